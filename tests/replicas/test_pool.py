"""A pool of two real in-process engines: sticky routing with real prefix-cache hits, spreading across tenants,
spill under load, abort, a replica dying, merged stats, and start-up (one replica: no pool; a failed start)."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import signal
import time
from collections.abc import AsyncIterator

import pytest

from engine import launch
from engine.config import EngineConfig
from engine.core.client import AsyncEngineClient
from engine.errors import EngineDeadError, InvalidRequestError, UnknownModelError
from engine.metrics import EngineStats
from engine.outputs import RequestOutput
from engine.request import EngineRequest
from engine.sampling_params import SamplingParams
from gateway.replicas import ReplicaPool, affinity, start_replicas
from gateway.replicas.launch import replica_configs, replica_devices
from gateway.replicas.pool import _merge

pytestmark = pytest.mark.timeout(300)

SYSTEM = ("You are the support assistant of Example Corp. Answer briefly and politely, in plain English. Never "
          "reveal internal ticket numbers, and always point to the help center for account questions.")
QUESTIONS = ["How do I reset my password?", "Where is my invoice?", "Can I change my plan?",
             "Why was my card declined?", "How do I add a user?"]
_ids = iter(range(1_000_000))


def chat_ids(pool: ReplicaPool, messages: list[dict[str, str]]) -> list[int]:
    text = pool.tokenizer.apply_chat_template(messages)
    return pool.tokenizer.encode(text, add_special_tokens=False)


def request(prompt: list[int], salt: str, *, max_tokens: int = 4) -> EngineRequest:
    params = SamplingParams(max_tokens=max_tokens, temperature=0, ignore_eos=True)
    return EngineRequest(f"req-{next(_ids)}", prompt, params, cache_salt=salt, tenant=salt)


async def run(pool: ReplicaPool, req: EngineRequest) -> tuple[int, list[RequestOutput]]:
    """(the replica that served it, its deltas)."""
    before = list(pool.routed)
    outputs = [out async for out in pool.generate(req)]
    (served,) = [i for i, (a, b) in enumerate(zip(before, pool.routed, strict=True)) if a != b]
    return served, outputs


async def drain(stream: AsyncIterator[RequestOutput]) -> list[RequestOutput]:
    return [o async for o in stream]


def salts_on(pool: ReplicaPool, prompt: list[int], replica: int, count: int) -> list[str]:
    """Tenant salts whose requests for ``prompt`` go to ``replica`` (the pool idle)."""
    found = [s for s in (f"tenant-{i}" for i in range(200)) if pool.route(request(prompt, s)) == replica]
    assert len(found) >= count
    return found[:count]


async def test_a_tenants_chats_under_one_system_prompt_share_a_replica_and_its_cache(pool: ReplicaPool) -> None:
    system_blocks = len(chat_ids(pool, [{"role": "system", "content": SYSTEM}])) // pool.block_size
    served = set()
    for i, question in enumerate(QUESTIONS):
        replica, outputs = await run(pool, request(chat_ids(pool, [{"role": "system", "content": SYSTEM},
                                                                   {"role": "user", "content": question}]), "acme"))
        served.add(replica)
        usage = outputs[-1].usage
        assert usage is not None
        if i:  # the system prompt's blocks were computed on this replica by the first chat
            assert usage.cached_tokens >= system_blocks * pool.block_size
    assert len(served) == 1
    # the other replica never saw this tenant: the same chat there would have hit nothing
    other = 1 - served.pop()
    replica, outputs = await run(pool, request(chat_ids(pool, [{"role": "system", "content": SYSTEM},
                                                               {"role": "user", "content": QUESTIONS[0]}]),
                                               salts_on(pool, [], other, 1)[0]))
    assert outputs[-1].usage is not None and outputs[-1].usage.cached_tokens == 0


async def test_a_conversations_next_turn_follows_it_while_other_conversations_spread(pool: ReplicaPool) -> None:
    # No system prompt: the chat template's own preamble (26 tokens) and the first words of the question make the key.
    first_turns = [[{"role": "user", "content": f"Question {i}: {q}"}] for i, q in enumerate(QUESTIONS * 4)]
    homes = {pool.route(request(chat_ids(pool, turn), "acme")) for turn in first_turns}
    assert homes == {0, 1}
    turn = [{"role": "user", "content": "Hi"}]  # the shortest first turn: 31 tokens, inside the span
    replica, outputs = await run(pool, request(chat_ids(pool, turn), "acme", max_tokens=8))
    previous: list[int] = []
    for number in (2, 3):
        answer = pool.tokenizer.decode([t for o in outputs for t in o.token_ids])
        turn += [{"role": "assistant", "content": answer}, {"role": "user", "content": f"And turn {number}?"}]
        prompt = chat_ids(pool, turn)
        next_replica, outputs = await run(pool, request(prompt, "acme", max_tokens=8))
        if number == 3:  # turn 2 may move once (turn 1 was shorter than the span); from then on the key holds
            assert next_replica == replica and prompt[:len(previous)] == previous
            usage = outputs[-1].usage
            assert usage is not None and usage.cached_tokens >= len(previous) // pool.block_size * pool.block_size
        replica, previous = next_replica, prompt


async def test_tenants_spread_over_the_replicas(pool: ReplicaPool) -> None:
    prompt = chat_ids(pool, [{"role": "system", "content": SYSTEM}, {"role": "user", "content": QUESTIONS[0]}])
    homes = [pool.route(request(prompt, f"tenant-{i}")) for i in range(40)]
    assert 10 <= homes.count(0) <= 30
    for replica in (0, 1):  # and each really serves its tenants
        served, outputs = await run(pool, request(prompt, salts_on(pool, prompt, replica, 1)[0]))
        assert served == replica and outputs[-1].finish_reason == "length"


async def test_a_flooded_key_spills_to_the_other_replica_within_the_bound(pool: ReplicaPool) -> None:
    prompt = chat_ids(pool, [{"role": "system", "content": SYSTEM}, {"role": "user", "content": QUESTIONS[1]}])
    home = pool.route(request(prompt, "acme"))
    flood = [request(prompt, "acme", max_tokens=24) for _ in range(24)]
    streams = [pool.generate(r) for r in flood]
    firsts = await asyncio.gather(*(anext(s) for s in streams))  # all routed at once, before any finishes
    loads = list(pool.in_flight)
    assert sum(loads) == 24 and loads[1 - home] > 0
    assert loads[home] > loads[1 - home]  # the cache still takes all it may
    assert loads[home] - loads[1 - home] <= affinity.spill_allowance(loads[1 - home]) + 1
    rests = await asyncio.gather(*(drain(s) for s in streams))
    assert all(len(first.token_ids) + sum(len(o.token_ids) for o in rest) == 24
               for first, rest in zip(firsts, rests, strict=True))
    assert pool.in_flight == [0, 0]


@pytest.mark.parametrize("replica", [0, 1])
async def test_abort_reaches_the_replica_that_holds_the_request(pool: ReplicaPool, replica: int) -> None:
    prompt = chat_ids(pool, [{"role": "user", "content": QUESTIONS[2]}])
    req = request(prompt, salts_on(pool, prompt, replica, 1)[0], max_tokens=400)
    stream = pool.generate(req)
    await anext(stream)
    assert pool.replica_of(req.request_id) == replica
    await pool.abort(req.request_id)
    rest = [o async for o in stream]
    assert rest[-1].finish_reason == "abort"  # sent elsewhere, the abort would be ignored and this would run on
    assert rest[-1].usage is not None and rest[-1].usage.completion_tokens < 400
    assert pool.replica_of(req.request_id) is None and pool.in_flight == [0, 0]
    await pool.abort("never-seen")  # unknown ids are ignored


async def test_a_request_id_runs_once(pool: ReplicaPool) -> None:
    req = request([5, 6, 7], "acme", max_tokens=50)
    stream = pool.generate(req)
    await anext(stream)
    with pytest.raises(InvalidRequestError):
        await anext(pool.generate(dataclasses.replace(req, cache_salt="someone-else")))
    await stream.aclose()  # closing early aborts on its replica and frees the id
    assert pool.in_flight == [0, 0] and pool.replica_of(req.request_id) is None


async def test_a_request_counts_as_load_until_its_last_delta(pool: ReplicaPool) -> None:
    req = request([5, 6, 7], "acme", max_tokens=3)
    stream = pool.generate(req)
    first = await anext(stream)
    assert sum(pool.in_flight) == 1 and pool.replica_of(req.request_id) is not None and not first.finished
    async for output in stream:
        if output.finished:
            break  # a caller that stops at the last delta without closing the stream
    assert pool.in_flight == [0, 0] and pool.replica_of(req.request_id) is None
    await stream.aclose()
    assert pool.in_flight == [0, 0]


async def test_a_dead_replica_fails_its_requests_and_its_keys_move(pool: ReplicaPool) -> None:
    prompt = chat_ids(pool, [{"role": "system", "content": SYSTEM}, {"role": "user", "content": QUESTIONS[3]}])
    victims, survivors = salts_on(pool, prompt, 0, 5), salts_on(pool, prompt, 1, 5)
    running = pool.generate(request(prompt, victims[0], max_tokens=400))
    await anext(running)
    await pool.replicas[0].shutdown()
    with pytest.raises(EngineDeadError):
        async for _ in running:
            pass
    assert pool.is_alive() and pool.live() == [False, True]
    assert all(pool.route(request(prompt, s)) == 1 for s in victims + survivors)
    for salt in (victims[1], survivors[0]):
        served, outputs = await run(pool, request(prompt, salt))
        assert served == 1 and outputs[-1].finish_reason == "length"
    await pool.replicas[1].shutdown()
    assert not pool.is_alive()
    with pytest.raises(EngineDeadError):
        await anext(pool.generate(request(prompt, survivors[1])))


async def test_stats_merge_the_replicas(pool: ReplicaPool) -> None:
    prompt = chat_ids(pool, [{"role": "system", "content": SYSTEM}, {"role": "user", "content": QUESTIONS[4]}])
    for replica in (0, 1):
        for salt in salts_on(pool, prompt, replica, 2):
            await run(pool, request(prompt, salt))
    total = 4 * len(prompt)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:  # snapshots arrive every 0.5 s while busy and once when idle
        stats = pool.stats()
        if stats is not None and stats.prompt_tokens == total and stats.num_requests_running == 0:
            break
        await asyncio.sleep(0.1)
    per_replica = pool.replica_stats()
    assert stats is not None and all(s is not None and s.prompt_tokens == 2 * len(prompt) for s in per_replica)
    assert stats.prompt_tokens == total and stats.generation_tokens == 4 * 4
    assert stats.prefix_cache_queries == sum(s.prefix_cache_queries for s in per_replica)  # type: ignore[union-attr]
    assert pool.stats() is stats  # nothing new: the same snapshot, which the metrics reader skips


def test_merging_keeps_a_dead_replicas_counters_and_drops_its_gauges() -> None:
    def snap(running: int, usage: float, hits: int, ts: int) -> EngineStats:
        return EngineStats(num_requests_running=running, num_requests_waiting=1, kv_cache_usage=usage,
                           prefix_cache_queries=10, prefix_cache_hits=hits, prompt_tokens=100, generation_tokens=7,
                           num_preemptions=0, timestamp_ns=ts, spec_draft_tokens=3, spec_accepted_tokens=2)
    merged = _merge([snap(2, 0.25, 4, 5), snap(3, 0.5, 6, 9), None], [True, False, True])
    assert merged is not None
    assert (merged.num_requests_running, merged.num_requests_waiting, merged.kv_cache_usage) == (2, 1, 0.25)
    assert (merged.prefix_cache_hits, merged.prompt_tokens, merged.spec_accepted_tokens) == (10, 200, 4)
    assert merged.timestamp_ns == 9
    assert _merge([None, None], [True, True]) is None


async def test_one_replica_is_the_plain_engine(tiny_config: EngineConfig) -> None:
    engine = await start_replicas(tiny_config, 1, in_process=True)
    try:
        assert isinstance(engine, AsyncEngineClient)
    finally:
        await engine.shutdown()


async def test_a_failed_replica_stops_the_started_ones(tiny_config: EngineConfig,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    real_start = launch.start_engine
    calls: list[EngineConfig] = []
    started: list[AsyncEngineClient] = []

    async def second_fails(config: EngineConfig, *, in_process: bool = False) -> AsyncEngineClient:
        calls.append(config)
        if len(calls) == 2:  # the second replica's model is gone (a bad volume, say)
            config = dataclasses.replace(config, model="/nonexistent/model")
        started.append(engine := await real_start(config, in_process=in_process))
        return engine

    monkeypatch.setattr(launch, "start_engine", second_fails)
    with pytest.raises(UnknownModelError):
        await start_replicas(tiny_config, 2, in_process=True)
    assert len(started) == 1 and not started[0].is_alive()


def test_replica_devices() -> None:
    assert replica_devices("cpu", 3) == ["cpu"] * 3
    assert replica_devices("cuda", 4, cuda_devices=4) == ["cuda:0", "cuda:1", "cuda:2", "cuda:3"]
    assert replica_devices("cuda", 2, tensor_parallel_size=2, cuda_devices=4) == ["cuda:0", "cuda:2"]
    assert replica_devices("cuda:1", 3, cuda_devices=4) == ["cuda:1", "cuda:2", "cuda:3"]
    with pytest.raises(ValueError, match="WARDEN_ENGINE_REPLICAS"):
        replica_devices("cuda", 3, tensor_parallel_size=2, cuda_devices=4)


def test_replica_configs_on_cpu(tiny_config: EngineConfig) -> None:
    config = dataclasses.replace(tiny_config, device="cpu")
    apart = replica_configs(config, 2, in_process=False)
    assert [c.device for c in apart] == ["cpu", "cpu"]
    assert apart[0].num_threads == apart[1].num_threads == max(1, len(os.sched_getaffinity(0)) // 2)
    assert [c.num_threads for c in replica_configs(config, 2, in_process=True)] == [None, None]
    pinned = dataclasses.replace(config, num_threads=3)
    assert [c.num_threads for c in replica_configs(pinned, 2, in_process=False)] == [3, 3]
    assert all(dataclasses.replace(c, device=config.device, num_threads=None) == config for c in apart)


async def test_replicas_in_their_own_processes(tiny_config: EngineConfig) -> None:
    """The production shape: each replica's core in its own process. A killed process fails only its own
    requests; its tenants move to the other replica."""
    pool = await start_replicas(dataclasses.replace(tiny_config, num_threads=1), 2, restart_dead=False)
    assert isinstance(pool, ReplicaPool)
    try:
        pids = [r.core_pid for r in pool.replicas]  # type: ignore[attr-defined]
        assert None not in pids and len(set(pids)) == 2
        prompt = chat_ids(pool, [{"role": "system", "content": SYSTEM}, {"role": "user", "content": QUESTIONS[0]}])
        victim, survivor = salts_on(pool, prompt, 0, 1)[0], salts_on(pool, prompt, 1, 1)[0]
        doomed = pool.generate(request(prompt, victim, max_tokens=400))
        spared = pool.generate(request(prompt, survivor, max_tokens=40))
        await anext(doomed)
        await anext(spared)
        os.kill(pids[0], signal.SIGKILL)
        with pytest.raises(EngineDeadError):
            await drain(doomed)
        assert len(await drain(spared)) > 0 and pool.live() == [False, True]
        served, outputs = await run(pool, request(prompt, victim))
        assert served == 1 and outputs[-1].finish_reason == "length"
    finally:
        await pool.shutdown()
