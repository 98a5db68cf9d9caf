"""Fair scheduling, decided by the scheduler alone: token-budget shares by weight and recent usage, weighted KV and
slot shares reclaimed under contention, the per-tenant KV quota, and a flood that cannot starve a light tenant.

The scheduler is driven directly with a simulated forward pass (each scheduled token becomes computed; a finished
prompt samples a token), so these run in milliseconds and assert on decisions, not on timings. Cost is counted the
way a CPU pays it: in tokens computed. One end-to-end check runs the real engine (tiny model).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from itertools import count

import pytest

from engine.request import EngineRequest
from engine.sampling_params import SamplingParams
from engine.scheduling.block_manager import BlockManager
from engine.scheduling.fairness import DecayedUsage, token_allowances, water_fill
from engine.scheduling.scheduler import ScheduledBatch, Scheduler
from engine.scheduling.sequence import Sequence

_ids = count()


def make_seq(tenant: str | None, prompt_len: int, max_tokens: int = 4, weight: int = 1,
             ids: count = _ids) -> Sequence:
    params = SamplingParams(max_tokens=max_tokens, temperature=0, ignore_eos=True)
    n = next(ids)
    prompt = [(n * 7919 + i) % 30_000 + 1 for i in range(prompt_len)]  # distinct: no accidental prefix hits
    return Sequence(f"r{n}", prompt, params, cache_salt=tenant, arrival=n, tenant=tenant, weight=weight)


class Sim:
    """The engine's half of a step, without a model: compute what was scheduled, sample where a prompt ends."""

    def __init__(self, scheduler: Scheduler) -> None:
        self.scheduler = scheduler
        self.step_no = 0
        self.tokens_computed = 0
        self.first_token_at: dict[str, int] = {}  # request id -> engine tokens computed when it sampled its first
        self.per_tenant: Counter[str | None] = Counter()
        self.history: list[ScheduledBatch] = []

    def step(self) -> ScheduledBatch:
        sched = self.scheduler
        batch = sched.schedule()
        self.history.append(batch)
        self.step_no += 1
        self.tokens_computed += batch.num_tokens
        for seq, n in zip(batch.seqs, batch.num_new_tokens, strict=True):
            self.per_tenant[seq.tenant] += n
            seq.num_computed_tokens += n
            sched.blocks.commit_computed_blocks(seq)
            if seq.num_computed_tokens == len(seq):
                seq.token_ids.append(1)
                if seq.num_output_tokens == 1:
                    self.first_token_at[seq.request_id] = self.tokens_computed
                if seq.num_output_tokens >= seq.sampling_params.max_tokens:
                    sched.finish(seq, "length")
        check_accounting(sched)
        return batch

    def run(self, steps: int) -> None:
        for _ in range(steps):
            self.step()


def check_accounting(sched: Scheduler) -> None:
    bm = sched.blocks
    held = Counter(b for s in sched.running for b in s.block_table)
    assert all(bm.ref_counts[b] == n for b, n in held.items())
    assert sum(1 for r in bm.ref_counts if r == 0) == bm.num_free_blocks
    assert not any(s.block_table for s in sched.waiting)
    assert len(sched.running) <= sched.max_num_seqs


def new_scheduler(num_blocks: int = 256, block_size: int = 16, max_num_seqs: int = 16, budget: int = 64,
                  **kwargs: object) -> Scheduler:
    return Scheduler(BlockManager(num_blocks, block_size), max_num_seqs=max_num_seqs,
                     max_num_batched_tokens=budget, **kwargs)  # type: ignore[arg-type]


# --- the share rule ---------------------------------------------------------------------------------------------
def test_water_fill_respects_caps_weights_and_the_amount() -> None:
    assert water_fill(90, {"a": 100, "b": 100}, {"a": 2.0, "b": 1.0}) == {"a": 60, "b": 30}
    assert water_fill(90, {"a": 10, "b": 100}, {"a": 2.0, "b": 1.0}) == {"a": 10, "b": 80}  # a's rest goes to b
    assert water_fill(2, {"a": 5, "b": 5, "c": 5}, {"a": 1.0, "b": 3.0, "c": 2.0}) == {"a": 0, "b": 1, "c": 1}
    assert water_fill(50, {"a": 10, "b": 5}, {"a": 1.0, "b": 1.0}) == {"a": 10, "b": 5}


def test_equal_recent_usage_splits_the_budget_by_weight() -> None:
    shares = token_allowances(300, {"a": 1000, "b": 1000}, {"a": 2, "b": 1}, {"a": 500.0, "b": 250.0})
    assert shares == {"a": 200, "b": 100}
    fresh = token_allowances(300, {"a": 1000, "b": 1000}, {"a": 1, "b": 1}, {})
    assert fresh == {"a": 150, "b": 150}


def test_a_light_tenant_claims_the_budget_from_a_heavy_one_and_leftovers_are_not_wasted() -> None:
    shares = token_allowances(256, {"heavy": 10_000, "light": 2_000}, {"heavy": 1, "light": 1},
                              {"heavy": 20_000.0})
    assert shares == {"heavy": 0, "light": 256}
    small = token_allowances(256, {"heavy": 10_000, "light": 40}, {"heavy": 1, "light": 1}, {"heavy": 20_000.0})
    assert small == {"heavy": 216, "light": 40}
    idle = token_allowances(256, {"heavy": 10_000, "light": 0}, {"heavy": 1, "light": 1}, {"heavy": 20_000.0})
    assert idle == {"heavy": 256, "light": 0}


@pytest.mark.parametrize("budget", [1, 7, 64, 1000])
def test_allowances_never_exceed_the_budget_or_a_demand(budget: int) -> None:
    demand = {"a": 3, "b": 500, "c": 0, "d": 90}
    shares = token_allowances(budget, demand, {"a": 1, "b": 5, "c": 2, "d": 3}, {"b": 4000.0, "d": 10.0})
    assert sum(shares.values()) == min(budget, sum(demand.values()))
    assert all(0 <= shares[t] <= demand[t] for t in demand)


def test_usage_decays_by_half_life_and_idle_tenants_are_forgotten() -> None:
    usage = DecayedUsage(half_life_tokens=100)
    usage.charge({"a": 100})
    usage.charge({"b": 100})  # 100 engine tokens later a's usage has halved
    assert usage.get("a") == pytest.approx(50.0) and usage.get("b") == 100
    for _ in range(40):
        usage.charge({"b": 100})
    assert "a" not in usage.tokens  # bounded state: an idle tenant costs nothing


# --- the scheduler ----------------------------------------------------------------------------------------------
def test_backlogged_tenants_share_prefill_by_weight() -> None:
    sched = new_scheduler(num_blocks=2048, max_num_seqs=64, budget=96)
    for _ in range(12):
        sched.add(make_seq("heavy", 300, max_tokens=2, weight=2))
        sched.add(make_seq("light", 300, max_tokens=2, weight=1))
    sim = Sim(sched)
    sim.run(40)
    assert sched.waiting  # both still backlogged: the split below is the scheduler's, not the queue's
    ratio = sim.per_tenant["heavy"] / sim.per_tenant["light"]
    assert 1.8 <= ratio <= 2.2, sim.per_tenant
    assert sim.tokens_computed == 40 * 96  # work-conserving: every step is full


def test_fair_off_is_first_come_first_served() -> None:
    sched = new_scheduler(fair=False, budget=64)
    flood = [make_seq("flood", 256) for _ in range(6)]
    for seq in flood:
        sched.add(seq)
    victim = make_seq("victim", 64)
    sched.add(victim)
    sim = Sim(sched)
    while victim.request_id not in sim.first_token_at:
        sim.step()
    assert all(s.request_id in sim.first_token_at for s in flood)  # the victim waited for the whole flood


def victim_cost(fair: bool, flood: bool, *, victims: int = 5) -> list[int]:
    """Engine tokens computed between each victim request's arrival and its first token (CPU cost is linear
    in tokens, so this is TTFT in compute units), one victim request at a time, each arriving mid-flood."""
    sched = new_scheduler(num_blocks=1024, block_size=16, max_num_seqs=16, budget=128, fair=fair)
    sim = Sim(sched)
    costs = []
    for _ in range(victims):
        if flood:  # the flooder keeps 24 requests queued at all times
            while sum(1 for s in (*sched.running, *sched.waiting) if s.tenant == "flood") < 24:
                sched.add(make_seq("flood", 384, max_tokens=16))
            sim.run(5)  # the flood has been running before the victim shows up
        victim = make_seq("victim", 256, max_tokens=2)
        sched.add(victim)
        start = sim.tokens_computed
        while victim.request_id not in sim.first_token_at:
            sim.step()
            if flood:
                while sum(1 for s in (*sched.running, *sched.waiting) if s.tenant == "flood") < 24:
                    sched.add(make_seq("flood", 384, max_tokens=16))
        costs.append(sim.first_token_at[victim.request_id] - start)
        while victim.status.name != "FINISHED":
            sim.step()
    return costs


def median(values: list[int]) -> float:
    ordered = sorted(values)
    return float(ordered[len(ordered) // 2])


def test_a_flood_cannot_double_a_light_tenants_time_to_first_token() -> None:
    alone = median(victim_cost(fair=True, flood=False))
    fair = median(victim_cost(fair=True, flood=True))
    fifo = median(victim_cost(fair=False, flood=True))
    assert fair <= 2.0 * alone, (alone, fair)
    assert fifo > 4.0 * alone, (alone, fifo)  # what fairness prevents: the victim queued behind the flood


def test_a_tenant_under_its_kv_share_reclaims_blocks_from_one_over_it() -> None:
    sched = new_scheduler(num_blocks=64, block_size=16, max_num_seqs=16, budget=256)
    hogs = [make_seq("hog", 200, max_tokens=50) for _ in range(5)]  # 13 blocks each: 65 > 64
    for seq in hogs:
        sched.add(seq)
    sim = Sim(sched)
    sim.run(4)
    assert sched.blocks.num_free_blocks < 13 and sched.waiting  # the hog filled what nobody else wanted
    victim = make_seq("victim", 250, max_tokens=2)  # 16 blocks: more than are free
    sched.add(victim)
    preemptions = sched.num_preemptions
    sim.step()
    assert victim in sched.running and sched.num_preemptions > preemptions
    assert all(s.tenant == "hog" for s in sim.history[-1].preempted)


def test_a_tenant_over_its_share_never_preempts_others_to_start_more() -> None:
    sched = new_scheduler(num_blocks=64, block_size=16, max_num_seqs=16, budget=256)
    other = make_seq("other", 100, max_tokens=50)
    sched.add(other)
    sim = Sim(sched)
    sim.step()
    for _ in range(6):
        sched.add(make_seq("hog", 150, max_tokens=50))
    sim.run(6)
    assert other in sched.running  # the hog may fill free memory but never takes the other tenant's
    assert all(s.tenant == "hog" for b in sim.history for s in b.preempted)


def test_sequence_slots_are_shared_by_weight_under_contention() -> None:
    sched = new_scheduler(num_blocks=512, max_num_seqs=4, budget=64)
    for _ in range(8):
        sched.add(make_seq("hog", 20, max_tokens=30))
    sim = Sim(sched)
    sim.run(4)
    assert len(sched.running) == 4 and all(s.tenant == "hog" for s in sched.running)
    victim = make_seq("victim", 20, max_tokens=2)
    sched.add(victim)
    sim.step()
    assert victim in sched.running
    assert sum(1 for s in sched.running if s.tenant == "hog") == 3


def test_the_kv_quota_caps_a_tenant_even_without_contention() -> None:
    sched = new_scheduler(num_blocks=64, block_size=16, max_num_seqs=16, budget=512, tenant_kv_quota=0.5)
    for _ in range(6):
        sched.add(make_seq("hog", 100, max_tokens=8))  # 7 blocks each
    sim = Sim(sched)
    for _ in range(30):
        sim.step()
        hog_blocks = sum(len(s.block_table) for s in sched.running if s.tenant == "hog")
        assert hog_blocks <= 32 + 1  # half the pool (+1: a running request may grow past it by its last block)
    big = new_scheduler(num_blocks=64, block_size=16, tenant_kv_quota=0.25)
    alone = make_seq("hog", 600, max_tokens=2)  # 38 blocks: over the quota, but the tenant's only request
    big.add(alone)
    Sim(big).run(12)
    assert alone.is_finished


def test_one_tenant_schedules_like_the_fifo_scheduler() -> None:
    """Fairness changes nothing for a single tenant: same batches, same preemptions."""
    def trace(fair: bool) -> list[tuple[list[int], list[int], list[int]]]:
        ids = count()
        sched = new_scheduler(num_blocks=40, block_size=8, max_num_seqs=6, budget=48, fair=fair)
        for i in range(10):
            sched.add(make_seq("only", 30 + 13 * i, max_tokens=12, ids=ids))
        sim = Sim(sched)
        while sched.has_unfinished():
            sim.step()
        return [([int(s.request_id[1:]) for s in b.seqs], b.num_new_tokens,
                 [int(s.request_id[1:]) for s in b.preempted]) for b in sim.history]

    fair, fifo = trace(True), trace(False)
    assert fair == fifo
    assert any(preempted for _, _, preempted in fair)  # the pool was tight enough to preempt


def test_preemption_and_abort_release_every_reference() -> None:
    # The shared 5-block prefix is computed once (the others wait for it), so the pool is tight enough to preempt
    # once the six sequences' own blocks outgrow the 15 blocks left beside it.
    sched = new_scheduler(num_blocks=20, block_size=8, max_num_seqs=8, budget=64)
    shared = list(range(1, 41))
    seqs = [Sequence(f"s{i}", shared + [100 + i] * 9, SamplingParams(max_tokens=20, temperature=0),
                     cache_salt="t", tenant=f"t{i % 2}", arrival=i) for i in range(6)]
    for seq in seqs:
        sched.add(seq)
    sim = Sim(sched)
    sim.run(12)
    assert sched.num_preemptions > 0
    for seq in list(sched.running) + list(sched.waiting):
        sched.finish(seq, "abort")
    bm = sched.blocks
    assert bm.num_free_blocks == bm.num_blocks and not any(bm.ref_counts)


# --- end to end -------------------------------------------------------------------------------------------------
def test_engine_serves_a_light_tenant_through_a_flood(tiny_llm) -> None:
    """The real engine (tiny model, 32-token steps, 8 slots): a 40-token request from a light tenant arrives
    behind 16 queued flood requests and still gets its first token within a few steps, with the same greedy
    output as when it runs alone."""
    engine = tiny_llm.engine
    greedy = SamplingParams(max_tokens=4, temperature=0, ignore_eos=True)
    prompt = [(17 * i) % 900 + 5 for i in range(40)]

    def run(requests: list[EngineRequest], watch: str) -> tuple[int, list[int]]:
        for r in requests:
            engine.add_request(r)
        steps, first, tokens = 0, None, defaultdict(list)
        while engine.has_unfinished_requests():
            steps += 1
            for out in engine.step():
                tokens[out.request_id] += out.token_ids
                if out.request_id == watch and first is None and out.token_ids:
                    first = steps
        assert first is not None
        return first, tokens[watch]

    alone_steps, alone_out = run([EngineRequest("v-alone", prompt, greedy, cache_salt="v", tenant="v")], "v-alone")
    flood = [EngineRequest(f"f{i}", [(31 * i + j) % 900 + 3 for j in range(60)], SamplingParams(
        max_tokens=12, temperature=0, ignore_eos=True), cache_salt="f", tenant="f") for i in range(16)]
    for r in flood:
        engine.add_request(r)
    for _ in range(4):
        engine.step()  # the flood is running
    flooded_steps, flooded_out = run([EngineRequest("v-flood", prompt, greedy, cache_salt="v2", tenant="v")],
                                     "v-flood")
    assert flooded_out == alone_out
    assert flooded_steps <= 2 * alone_steps + 1, (alone_steps, flooded_steps)
