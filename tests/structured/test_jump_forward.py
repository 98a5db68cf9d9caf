"""Jump-forward on the real model: where the grammar allows exactly one continuation, the forced tokens are appended
without a forward pass each. Greedy outputs must be token-for-token those of plain constrained decoding, in fewer
steps, through preemption and abort, with stop strings, max_tokens and logprobs still honoured."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import jsonschema
import pytest

from engine.llm_engine import LLMEngine
from engine.request import EngineRequest
from engine.sampling_params import SamplingParams

pytestmark = pytest.mark.slow

SCHEMAS: list[dict[str, Any]] = [
    {"type": "object", "additionalProperties": False, "required": ["name", "age", "city"],
     "properties": {"name": {"type": "string", "maxLength": 20}, "age": {"type": "integer"},
                    "city": {"enum": ["Paris", "London", "Tokyo"]}}},
    {"type": "object", "additionalProperties": False, "required": ["person", "is_employee"],
     "properties": {"person": {"type": "object", "additionalProperties": False,
                               "required": ["first_name", "last_name"],
                               "properties": {"first_name": {"type": "string", "maxLength": 12},
                                              "last_name": {"type": "string", "maxLength": 12}}},
                    "is_employee": {"type": "boolean"}}},
    {"type": "array", "minItems": 2, "maxItems": 2,
     "items": {"type": "object", "additionalProperties": False, "required": ["id", "status"],
               "properties": {"id": {"type": "integer"}, "status": {"const": "active"}}}},
]
MAX_TOKENS = 64


@pytest.fixture
def engine(small_pool_engine: LLMEngine) -> Iterator[LLMEngine]:
    yield small_pool_engine
    small_pool_engine.config.structured_jump_forward = True
    assert not small_pool_engine.has_unfinished_requests()


def _prompt(engine: LLMEngine) -> list[int]:
    tok = engine.tokenizer
    return tok.encode(tok.apply_chat_template([{"role": "user", "content": "Describe a person as JSON."}]))


def _request(engine: LLMEngine, rid: str, schema: dict[str, Any], *, salt: str | None = None,
             **params: Any) -> EngineRequest:
    params = {"max_tokens": MAX_TOKENS, "temperature": 0.0} | params
    return EngineRequest(rid, _prompt(engine), SamplingParams(**params), cache_salt=salt,
                         structured={"type": "json_schema", "schema": schema})


def _drain(engine: LLMEngine) -> dict[str, dict[str, Any]]:
    results: dict[str, dict[str, Any]] = {}
    while engine.has_unfinished_requests():
        for delta in engine.step():
            r = results.setdefault(delta.request_id, {"tokens": [], "text": "", "deltas": []})
            r["tokens"] += delta.token_ids
            r["text"] += delta.text
            r["deltas"].append(delta)
            if delta.finished:
                r["finish"], r["error"], r["usage"] = delta.finish_reason, delta.error, delta.usage
    return results


def _run(engine: LLMEngine, jump_forward: bool, copies: int = 1,
         salted: bool = False) -> tuple[dict[str, dict[str, Any]], int, int]:
    """Every schema ``copies`` times at once (``salted``: each in its own prefix-cache domain, so none shares a
    block with another): results by request id, forward steps taken, tokens forced."""
    engine.config.structured_jump_forward = jump_forward
    steps, forced = engine.num_steps, engine.num_forced_tokens
    for copy in range(copies):
        for i, schema in enumerate(SCHEMAS):
            rid = f"s{i}-{copy}-{jump_forward}"
            engine.add_request(_request(engine, rid, schema, salt=rid if salted else None))
    results = _drain(engine)
    return results, engine.num_steps - steps, engine.num_forced_tokens - forced


def _all_blocks_free(engine: LLMEngine) -> bool:
    blocks = engine.block_manager
    return blocks.num_free_blocks == blocks.num_blocks and not any(blocks.ref_counts)


@pytest.fixture(scope="module")
def reference(small_pool_engine: LLMEngine) -> dict[int, dict[str, Any]]:
    """Plain constrained decoding (no jump-forward), one request per schema: schema index -> result."""
    results, _, forced = _run(small_pool_engine, jump_forward=False)
    small_pool_engine.config.structured_jump_forward = True
    assert forced == 0
    return {int(rid[1:].split("-")[0]): r for rid, r in results.items()}


def test_greedy_outputs_identical_in_fewer_steps(engine: LLMEngine, reference: dict[int, dict[str, Any]]) -> None:
    _, steps_off, _ = _run(engine, jump_forward=False)
    results, steps_on, forced = _run(engine, jump_forward=True)
    for rid, r in results.items():
        ref = reference[int(rid[1:].split("-")[0])]
        assert (r["finish"], r["error"]) == ("stop", None), r["text"]
        assert r["tokens"] == ref["tokens"] and r["text"] == ref["text"]
        assert r["usage"].completion_tokens == len(r["tokens"]) == ref["usage"].completion_tokens
        jsonschema.validate(json.loads(r["text"]), SCHEMAS[int(rid[1:].split("-")[0])])
    assert forced > 0
    assert steps_on < steps_off, (steps_on, steps_off)
    assert _all_blocks_free(engine)


def test_preemption_with_forced_tokens_keeps_outputs_and_frees_blocks(
        engine: LLMEngine, reference: dict[int, dict[str, Any]]) -> None:
    preemptions = engine.scheduler.num_preemptions
    # 36 prompt tokens + up to 29 output: 3-5 blocks each, 7 in the pool, no shared prefix: two at once preempt.
    results, _, forced = _run(engine, jump_forward=True, copies=2, salted=True)
    assert engine.scheduler.num_preemptions > preemptions
    assert forced > 0
    for rid, r in results.items():
        ref = reference[int(rid[1:].split("-")[0])]
        assert (r["finish"], r["tokens"], r["text"]) == ("stop", ref["tokens"], ref["text"])
    assert _all_blocks_free(engine)


def test_abort_with_forced_tokens_pending_frees_blocks(engine: LLMEngine) -> None:
    engine.add_request(_request(engine, "abort-me", SCHEMAS[1]))
    engine.add_request(_request(engine, "keep", SCHEMAS[0]))
    seq = engine.scheduler.get("abort-me")
    for _ in range(40):  # until the sequence holds forced tokens that no forward has computed yet
        engine.step()
        if len(seq) - seq.num_computed_tokens > 1 and seq.num_output_tokens > 1:
            break
    else:
        pytest.fail("no forced tokens were ever pending")
    out = engine.abort_request("abort-me")
    assert out is not None and out.finish_reason == "abort" and out.usage.completion_tokens == seq.num_output_tokens
    results = _drain(engine)
    assert results["keep"]["finish"] == "stop" and "abort-me" not in results
    assert _all_blocks_free(engine)


def test_max_tokens_and_stop_strings_cut_a_forced_run(engine: LLMEngine,
                                                      reference: dict[int, dict[str, Any]]) -> None:
    ref = reference[0]  # starts '{"', then 'name' and '":' are forced
    engine.add_request(_request(engine, "short", SCHEMAS[0], max_tokens=2))
    engine.add_request(_request(engine, "stopped", SCHEMAS[0], stop=["name"]))
    results = _drain(engine)
    short = results["short"]
    assert (short["finish"], short["tokens"], short["usage"].completion_tokens) == ("length", ref["tokens"][:2], 2)
    stopped = results["stopped"]
    assert stopped["finish"] == "stop" and stopped["text"] == ref["text"][: ref["text"].index("name")]
    assert _all_blocks_free(engine)


def test_logprobs_requests_take_no_jump_forward(engine: LLMEngine, reference: dict[int, dict[str, Any]]) -> None:
    forced = engine.num_forced_tokens
    engine.add_request(_request(engine, "lp", SCHEMAS[0], logprobs=1))
    r = _drain(engine)["lp"]
    assert engine.num_forced_tokens == forced
    assert r["tokens"] == reference[0]["tokens"]
    for delta in r["deltas"]:  # one sampled token per delta, each with its own log-probability
        assert len(delta.token_ids) == 1 and len(delta.logprobs) == 1
        assert delta.logprobs[0].token_id == delta.token_ids[0]
