"""Block accounting under random load: whatever the requests and aborts, every KV block comes back."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.llm import LLM
from engine.request import EngineRequest
from engine.sampling_params import SamplingParams

request_strategy = st.tuples(
    st.lists(st.integers(1, 400), min_size=1, max_size=40),  # prompt
    st.integers(1, 12),  # max_tokens
    st.sampled_from([None, "a", "b"]),  # cache salt: shared prefixes only within a salt
    st.one_of(st.none(), st.integers(0, 6)),  # abort after this many engine steps (None: run to the end)
    st.booleans(),  # greedy or sampled
)


def check_pool_is_whole(llm: LLM) -> None:
    bm = llm.engine.block_manager
    assert bm.num_free_blocks == bm.num_blocks
    assert all(r == 0 for r in bm.ref_counts)
    assert not llm.engine.scheduler.running and not llm.engine.scheduler.waiting and not llm.engine.states


@pytest.mark.slow
@settings(max_examples=10, deadline=None, suppress_health_check=[
    HealthCheck.function_scoped_fixture, HealthCheck.data_too_large, HealthCheck.large_base_example])
@given(st.lists(request_strategy, min_size=100, max_size=100), st.randoms(use_true_random=False))
def test_every_block_is_free_after_random_requests_and_aborts(tiny_llm, requests, rng):
    """10 examples x 100 requests = 1,000 requests through a 64-block pool (preemption, chunked prefill,
    prefix-cache hits and evictions all happen), each example ending with the whole pool free."""
    engine = tiny_llm.engine
    check_pool_is_whole(tiny_llm)
    pending = list(enumerate(requests))
    abort_at: dict[str, int] = {}
    step = 0
    finished: set[str] = set()
    while pending or engine.has_unfinished_requests():
        # arrivals trickle in so the batch composition keeps changing; an idle engine always gets one (hypothesis'
        # random may answer 0 for ever, which would stall the loop rather than the engine)
        arrivals = rng.randint(0, 4)
        if not engine.has_unfinished_requests():
            arrivals = max(arrivals, 1)
        for _ in range(arrivals):
            if not pending:
                break
            i, (prompt, max_tokens, salt, abort_after, greedy) = pending.pop(0)
            rid = f"r{i}"
            params = SamplingParams(max_tokens=max_tokens, temperature=0 if greedy else 1.0, ignore_eos=True)
            engine.add_request(EngineRequest(rid, prompt, params, cache_salt=salt))
            if abort_after is not None:
                abort_at[rid] = step + abort_after
        for rid, when in list(abort_at.items()):
            if when <= step:
                engine.abort_request(rid)
                del abort_at[rid]
        for out in engine.step():
            if out.finished:
                finished.add(out.request_id)
        step += 1
        assert step < 10_000
    check_pool_is_whole(tiny_llm)
    assert engine.scheduler.num_preemptions >= 0
