"""The grammar mask is filled while the forward pass runs, on the real model: the fill is still in progress when the
logits are computed (so it cannot have run before the forward), it runs off the step loop's thread, its mask is
applied before sampling, and a fill that fails fails only its own request."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from typing import Any

import pytest
import torch

from engine.llm_engine import LLMEngine
from engine.request import EngineRequest
from engine.sampling_params import SamplingParams
from engine.structured.bitmask import ALL_ALLOWED

pytestmark = pytest.mark.slow


class _Grammar:
    """Stands in for a ``CompiledGrammar``: ``EngineCore`` hands the engine an object with ``new_matcher()``."""

    def __init__(self, matcher: Any) -> None:
        self.matcher = matcher

    def new_matcher(self) -> Any:
        return self.matcher


class _OnlyToken:
    """A duck-typed matcher that allows one token; its fill can wait for an event, or raise from a
    chosen call on."""

    def __init__(self, token: int, *, wait_for: threading.Event | None = None, fail_from_call: int = 0) -> None:
        self.token = token
        self.wait_for = wait_for
        self.fail_from_call = fail_from_call
        self.calls = 0
        self.threads: set[int] = set()
        self.waited_ok: list[bool] = []

    def fill_bitmask(self, row: torch.Tensor) -> None:
        self.calls += 1
        self.threads.add(threading.get_ident())
        if 0 < self.fail_from_call <= self.calls:  # a persistent failure: a retry fails too
            raise RuntimeError("mask fill exploded")
        if self.wait_for is not None:
            self.waited_ok.append(self.wait_for.wait(timeout=10))
        row.zero_()
        row[self.token // 32] = torch.tensor(1 << (self.token % 32), dtype=torch.int64).to(torch.int32)

    def accept_token(self, token_id: int) -> bool:
        return token_id == self.token

    def is_terminated(self) -> bool:
        return False


@pytest.fixture
def engine(small_pool_engine: LLMEngine) -> Iterator[LLMEngine]:
    yield small_pool_engine
    assert not small_pool_engine.has_unfinished_requests()


def _prompt(engine: LLMEngine, text: str) -> list[int]:
    tok = engine.tokenizer
    return tok.encode(tok.apply_chat_template([{"role": "user", "content": text}]))


def _drain(engine: LLMEngine) -> dict[str, dict[str, Any]]:
    results: dict[str, dict[str, Any]] = {}
    while engine.has_unfinished_requests():
        for delta in engine.step():
            r = results.setdefault(delta.request_id, {"tokens": [], "text": ""})
            r["tokens"] += delta.token_ids
            r["text"] += delta.text
            if delta.finished:
                r["finish"], r["error"] = delta.finish_reason, delta.error
    return results


def test_fill_runs_during_the_forward_and_its_mask_is_applied(engine: LLMEngine,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    # The fill blocks until the logits are being computed: were it run before the forward (serially), it would wait
    # out its timeout and the request would fail.
    logits_started = threading.Event()
    compute_logits = engine.runner.model.compute_logits

    def signalling_compute_logits(hidden: torch.Tensor) -> torch.Tensor:
        logits_started.set()
        return compute_logits(hidden)

    monkeypatch.setattr(engine.runner.model, "compute_logits", signalling_compute_logits)
    seven = engine.tokenizer.encode("7")[0]
    matcher = _OnlyToken(seven, wait_for=logits_started)
    engine.add_request(EngineRequest("waits", _prompt(engine, "Say hello."), SamplingParams(max_tokens=4)),
                       grammar=_Grammar(matcher))
    tokens = []
    while engine.has_unfinished_requests():
        logits_started.clear()  # set again only by this step's logits
        for delta in engine.step():
            tokens += delta.token_ids
            assert delta.error is None
    assert tokens == [seven] * 4  # the mask (one token allowed) was applied before every sample
    assert matcher.waited_ok == [True] * 4
    assert threading.get_ident() not in matcher.threads  # filled off the step loop's thread


def test_a_failing_fill_fails_only_its_request(engine: LLMEngine, compiler: Any) -> None:
    schema = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"],
              "additionalProperties": False}
    engine.add_request(EngineRequest("json", _prompt(engine, "Is the sky blue? Answer in JSON."),
                                     SamplingParams(max_tokens=16, temperature=0.0),
                                     structured={"type": "json_schema", "schema": schema}))
    engine.add_request(EngineRequest("free", _prompt(engine, "Say hello."), SamplingParams(max_tokens=6)))
    broken = _OnlyToken(engine.tokenizer.encode("7")[0], fail_from_call=2)
    engine.add_request(EngineRequest("broken", _prompt(engine, "Say hello."), SamplingParams(max_tokens=6)),
                       grammar=_Grammar(broken))
    results = _drain(engine)
    assert results["broken"]["finish"] == "error" and "mask fill exploded" in results["broken"]["error"]
    assert len(results["broken"]["tokens"]) == 1  # the token sampled without its mask was dropped
    assert results["json"]["finish"] == "stop" and isinstance(json.loads(results["json"]["text"])["ok"], bool)
    assert results["free"]["finish"] == "length" and results["free"]["error"] is None
    blocks = engine.block_manager
    assert blocks.num_free_blocks == blocks.num_blocks


def test_failing_row_is_reported_not_raised(compiler: Any, hf_tokenizer: Any) -> None:
    from engine.structured import BatchBitmask

    vocab = hf_tokenizer.get_vocab_size()
    bitmask = BatchBitmask(max_batch=4, vocab_size=vocab, num_threads=2)
    good = compiler.compile({"type": "json_schema", "schema": {"type": "integer"}}).new_matcher()
    broken = _OnlyToken(5, fail_from_call=1)
    errors: dict[int, str] = {}
    mask = bitmask.fill_async([good, broken, None], errors).result()
    assert list(errors) == [1] and "mask fill exploded" in errors[1]
    single = torch.zeros(mask.shape[1], dtype=torch.int32)
    good.fill_bitmask(single)
    assert torch.equal(mask[0], single)  # the healthy row still carries its constraint
    assert bool((mask[2] == ALL_ALLOWED).all())
    with pytest.raises(RuntimeError, match="exploded"):  # without an errors dict the caller sees the exception
        bitmask.fill([good, _OnlyToken(5, fail_from_call=1)])
    bitmask.close()
