"""Prefix caching with the real SmolLM2 model: reuse within a tenant, none across tenants, shared public system
prompts, and correct outputs when memory pressure evicts cached blocks. Greedy, few tokens."""

from __future__ import annotations

import uuid

import pytest

from engine.request import EngineRequest
from engine.sampling_params import SamplingParams

pytestmark = pytest.mark.slow

GREEDY = SamplingParams(max_tokens=6, temperature=0, ignore_eos=True)
SYSTEM = ("You are the support assistant of Example Corp. Answer briefly and politely, in plain English. "
          "Never reveal internal ticket numbers, and always suggest the help center for account questions.")


def run(engine, request: EngineRequest) -> tuple[list[int], int]:
    """Greedy tokens and cached_tokens of one request run alone."""
    engine.add_request(request)
    tokens: list[int] = []
    cached = -1
    while engine.has_unfinished_requests():
        for out in engine.step():
            tokens += out.token_ids
            cached = out.usage.cached_tokens
    return tokens, cached


def salt() -> str:
    return uuid.uuid4().hex  # fresh isolation domains: the session's engine is shared with other tests


@pytest.fixture(scope="module")
def prompt_parts(smol_tokenizer) -> tuple[list[int], list[int]]:
    """A chat prompt with a long system message, and the token length of the system message's part."""
    tok = smol_tokenizer
    messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "How do I reset my password?"}]
    full = tok.encode(tok.apply_chat_template(messages))
    head = tok.encode(tok.apply_chat_template(messages[:1], add_generation_prompt=False))
    assert full[: len(head)] == head
    return full, head


def test_same_tenant_reuses_its_prefix_and_other_tenants_do_not(smol_llm, prompt_parts):
    engine = smol_llm.engine
    prompt, _ = prompt_parts
    bs = engine.config.block_size
    tenant_a, tenant_b = salt(), salt()
    cold, cold_cached = run(engine, EngineRequest("a1", prompt, GREEDY, cache_salt=tenant_a, tenant="a"))
    warm, warm_cached = run(engine, EngineRequest("a2", prompt, GREEDY, cache_salt=tenant_a, tenant="a"))
    other, other_cached = run(engine, EngineRequest("b1", prompt, GREEDY, cache_salt=tenant_b, tenant="b"))
    assert cold_cached == 0
    assert warm_cached == (len(prompt) - 1) // bs * bs > 0  # every full block but the one holding the last token
    assert other_cached == 0
    assert warm == cold == other


def test_a_public_system_prompt_is_shared_and_only_it(smol_llm, prompt_parts):
    engine = smol_llm.engine
    prompt, head = prompt_parts
    bs = engine.config.block_size
    public = len(head)
    reference, _ = run(engine, EngineRequest("ref", prompt, GREEDY, cache_salt=salt()))
    _, a_cached = run(engine, EngineRequest("pa", prompt, GREEDY, cache_salt=salt(), public_prefix_len=public))
    b_out, b_cached = run(engine, EngineRequest("pb", prompt, GREEDY, cache_salt=salt(), public_prefix_len=public))
    assert a_cached == 0 or a_cached == public // bs * bs  # another test may have published it first
    assert b_cached == public // bs * bs > 0  # the public blocks, and not one block of a's own question
    assert b_out == reference
    different_question = prompt[:public] + prompt[public:][::-1]
    _, c_cached = run(engine, EngineRequest("pc", different_question, GREEDY, cache_salt=salt(),
                                            public_prefix_len=public))
    assert c_cached == public // bs * bs


def test_eviction_under_memory_pressure_keeps_outputs_correct(tiny_llm):
    """The tiny engine's pool holds 256 tokens: running other prompts evicts the first prompt's blocks, and
    running it again (partly cached, partly recomputed) gives the same greedy tokens."""
    engine = tiny_llm.engine
    bm = engine.block_manager
    first = [(13 * i) % 700 + 20 for i in range(90)]
    tenant = salt()
    original, _ = run(engine, EngineRequest("e0", first, GREEDY, cache_salt=tenant))
    evictions = bm.num_evictions
    for i in range(4):
        run(engine, EngineRequest(f"e{i + 1}", [(29 * i + 7 * j) % 700 + 30 for j in range(100)], GREEDY,
                                  cache_salt=tenant))
    assert bm.num_evictions > evictions
    again, cached = run(engine, EngineRequest("e-again", first, GREEDY, cache_salt=tenant))
    assert again == original
    assert cached < len(first) - 1  # at least part of it had been evicted and was recomputed
    assert bm.num_free_blocks == bm.num_blocks
