"""Prompts that arrive together with a shared prefix compute it once: a waiting prompt whose next uncached block a
running sequence is computing waits for it to be cached, and takes it as a prefix hit.

The scheduler is driven directly with a simulated forward pass (every scheduled token becomes computed, a finished
prompt samples a token); one end-to-end check runs the real engine (tiny model)."""

from __future__ import annotations

from engine.request import EngineRequest
from engine.sampling_params import SamplingParams
from engine.scheduling.block_manager import BlockManager
from engine.scheduling.scheduler import ScheduledBatch, Scheduler
from engine.scheduling.sequence import Sequence

BS = 4
SHARED = list(range(1000, 1000 + 6 * BS))  # a 6-block prefix (a system prompt)
PARAMS = SamplingParams(max_tokens=2, temperature=0, ignore_eos=True)


def seq(request_id: str, prompt: list[int], salt: str = "tenant") -> Sequence:
    return Sequence(request_id, prompt, PARAMS, cache_salt=salt, tenant=salt)


def scheduler(budget: int) -> Scheduler:
    return Scheduler(BlockManager(num_blocks=64, block_size=BS), max_num_seqs=8, max_num_batched_tokens=budget)


def run_step(sched: Scheduler) -> ScheduledBatch:
    batch = sched.schedule()
    for s, n in zip(batch.seqs, batch.num_new_tokens, strict=True):
        s.num_computed_tokens += n
        sched.blocks.commit_computed_blocks(s)
        if s.num_computed_tokens == len(s):
            s.token_ids.append(1)
            if s.num_output_tokens >= s.sampling_params.max_tokens:
                sched.finish(s, "length")
    return batch


def test_prompts_arriving_together_compute_their_shared_prefix_once() -> None:
    sched = scheduler(budget=64)  # room for both prompts whole in one step
    a, b = seq("a", [*SHARED, 1, 2, 3, 4, 5, 6]), seq("b", [*SHARED, 7, 8, 9, 10, 11, 12, 13])
    sched.add(a)
    sched.add(b)
    first = run_step(sched)
    assert first.seqs == [a]  # b's next block is a's to compute: b waits for it
    second = run_step(sched)
    assert b in second.seqs and b.cached_tokens == len(SHARED)
    assert second.num_new_tokens[second.seqs.index(b)] == 7  # only what is b's own
    while sched.has_unfinished():
        run_step(sched)
    assert sched.prefix_cache_hits == len(SHARED)
    assert sched.blocks.in_flight == {} and sched.blocks.num_free_blocks == 64


def test_the_prompts_behind_a_waiting_one_go_ahead() -> None:
    sched = scheduler(budget=64)
    a, b = seq("a", [*SHARED, 1, 2, 3]), seq("b", [*SHARED, 4, 5, 6])
    c = seq("c", list(range(5000, 5000 + 20)))  # shares nothing
    other_tenant = seq("d", [*SHARED, 7, 8, 9], salt="other")  # same tokens, another domain: nothing in flight
    for s in (a, b, c, other_tenant):
        sched.add(s)
    assert set(run_step(sched).seqs) == {a, c, other_tenant}
    assert list(sched.waiting) == [b]


def test_a_prefix_its_computer_gives_up_is_not_waited_for() -> None:
    sched = scheduler(budget=8)
    a, b = seq("a", [*SHARED, 1, 2]), seq("b", [*SHARED, 3, 4, 5])
    sched.add(a)
    sched.add(b)
    assert run_step(sched).seqs == [a]  # a computed its first two blocks; b waits for the third
    sched.finish(a, "abort")
    assert sched.blocks.in_flight == {}
    batch = run_step(sched)
    assert batch.seqs == [b] and b.cached_tokens == 2 * BS  # the blocks a did compute stay cached


def test_the_engine_serves_prompts_arriving_together_from_one_prefill_of_their_prefix(tiny_llm) -> None:
    engine = tiny_llm.engine
    bs = engine.config.block_size
    shared = list(range(300, 300 + 5 * bs))
    greedy = SamplingParams(max_tokens=6, temperature=0, ignore_eos=True)
    prompts = {"together-a": [*shared, 11, 12, 13, 14, 15, 16], "together-b": [*shared, 21, 22, 23, 24, 25, 26]}
    for request_id, prompt in prompts.items():
        engine.add_request(EngineRequest(request_id, prompt, greedy, cache_salt="together"))
    tokens: dict[str, list[int]] = {k: [] for k in prompts}
    cached: dict[str, int] = {}
    while engine.has_unfinished_requests():
        for out in engine.step():
            tokens[out.request_id] += out.token_ids
            if out.finished:
                cached[out.request_id] = out.usage.cached_tokens
    assert cached == {"together-a": 0, "together-b": len(shared)}
    # The same answer as b computed from scratch (another salt: nothing shared).
    engine.add_request(EngineRequest("alone-b", prompts["together-b"], greedy, cache_salt="alone"))
    alone: list[int] = []
    while engine.has_unfinished_requests():
        for out in engine.step():
            alone += out.token_ids
    assert tokens["together-b"] == alone
