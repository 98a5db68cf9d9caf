"""Grammars compile beside the step loop: ``PendingGrammars`` returns at once and settles each request later, and
``EngineCore`` keeps decoding other requests while a large schema compiles (a tiny random model with SmolLM2's real
tokenizer, in-process core)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import llguidance
import pytest

from engine.config import EngineConfig
from engine.errors import InvalidRequestError
from engine.launch import start_engine
from engine.request import EngineRequest
from engine.sampling_params import SamplingParams
from engine.structured import CompiledGrammar, GrammarCompileError, GrammarCompiler, StructuredConfig
from engine.structured.pending import PendingGrammars, Settled

pytestmark = pytest.mark.timeout(300)


def _wide_schema(n: int, tag: str) -> dict:
    """Valid, and slower to compile as ``n`` grows (about 0.2 s at n=2000 on one core)."""
    return {
        "type": "object",
        "properties": {f"{tag}_{i}": {"type": "string", "pattern": f"^[a-z]{{{i % 7 + 1},{i % 7 + 9}}}$"}
                       for i in range(n)},
        "required": [f"{tag}_{i}" for i in range(n)],
    }


def _request(rid: str, structured: dict | None, *, max_tokens: int = 8) -> EngineRequest:
    return EngineRequest(rid, [1, 2, 3], SamplingParams(max_tokens=max_tokens, temperature=0), structured=structured)


def _settle_all(pending: PendingGrammars, deadline_s: float = 60.0) -> list[Settled]:
    out: list[Settled] = []
    end = time.monotonic() + deadline_s
    while len(pending) and time.monotonic() < end:
        out += pending.pop_settled()
        time.sleep(0.005)
    assert not len(pending), "grammars did not settle"
    return out


def test_add_returns_before_the_compile_and_settles_in_arrival_order(compiler: GrammarCompiler) -> None:
    pending = PendingGrammars(compiler)
    pending.add(_request("big", {"type": "json_schema", "schema": _wide_schema(2000, "pending_big")}))
    pending.add(_request("small", {"type": "regex", "pattern": "[0-9]{3}"}))
    assert "big" in pending and pending.pop_settled() == []  # nothing waited for the 0.2 s compile
    settled = _settle_all(pending)
    assert sorted(s.request.request_id for s in settled) == ["big", "small"]
    for s in settled:
        assert s.error is None and isinstance(s.grammar, CompiledGrammar)
        assert s.grammar.new_matcher().validate_tokens([]) == 0
    pending.close()


def test_refusals_and_no_constraint_settle_with_their_reason(compiler: GrammarCompiler) -> None:
    pending = PendingGrammars(compiler)
    pending.add(_request("bad-keyword", {"type": "json_schema", "schema": {"type": "string", "format": "nope"}}))
    pending.add(_request("malformed", {"type": "json_schema", "json_schema": {"name": "x"}}))
    pending.add(_request("bad-tools", {"type": "tool_calls", "tools": [], "tool_choice": "auto"}))
    pending.add(_request("none", {"type": "tool_calls", "tools": [], "tool_choice": "none"}))
    with pytest.raises(InvalidRequestError, match="already running"):
        pending.add(_request("none", None))
    by_id = {s.request.request_id: s for s in _settle_all(pending)}
    assert by_id["none"].error is None and by_id["none"].grammar is None
    for rid, param in (("bad-keyword", "response_format"), ("malformed", "response_format"), ("bad-tools", "tools")):
        error = by_id[rid].error
        assert isinstance(error, GrammarCompileError) and error.param == param, (rid, error)
    pending.close()


def test_time_cap_refuses_a_compile_still_running(ll_tokenizer: llguidance.LLTokenizer) -> None:
    compiler = GrammarCompiler(ll_tokenizer, StructuredConfig(compile_timeout_s=0.0))
    pending = PendingGrammars(compiler)
    pending.add(_request("slow", {"type": "json_schema", "schema": _wide_schema(2000, "pending_slow")}))
    [settled] = pending.pop_settled()  # the cap is 0 s and the compile takes far longer
    assert isinstance(settled.error, GrammarCompileError) and "longer than 0 s" in str(settled.error)
    assert not len(pending)
    pending.close()
    compiler.close()


def test_discard_forgets_a_compiling_request(compiler: GrammarCompiler) -> None:
    pending = PendingGrammars(compiler)
    request = _request("gone", {"type": "json_schema", "schema": _wide_schema(1500, "pending_gone")})
    pending.add(request)
    assert pending.discard("gone") is request and pending.discard("gone") is None
    assert not len(pending) and pending.pop_settled() == []
    pending.close()


# --- through the engine core --------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tests.engine.tiny_models import write_tiny_checkpoint

    return write_tiny_checkpoint(tmp_path_factory.mktemp("tiny-structured"))


@pytest.fixture
async def client(tiny_dir: Path):
    engine = await start_engine(EngineConfig(model=str(tiny_dir), show_progress=False, num_kv_blocks=256,
                                             block_size=4), in_process=True)
    yield engine
    await engine.shutdown()


async def test_decoding_continues_while_a_schema_compiles(client) -> None:
    events: list[tuple[str, str | None]] = []

    async def run(request: EngineRequest) -> str:
        text = ""
        async for delta in client.generate(request):
            events.append((request.request_id, delta.finish_reason))
            text += delta.text
        return text

    free = asyncio.create_task(run(EngineRequest("free", [5, 6, 7], SamplingParams(
        max_tokens=400, temperature=0, ignore_eos=True))))
    while not events:  # the free request is decoding
        await asyncio.sleep(0.01)
    schema = _wide_schema(2000, "core_wide")
    submitted = len(events)
    constrained = await run(EngineRequest("wide", [5, 6, 7], SamplingParams(max_tokens=3, temperature=0),
                                          structured={"type": "json_schema", "schema": schema}))
    first_wide = next(i for i, (rid, _) in enumerate(events) if rid == "wide")
    # While the grammar compiled (~0.2 s; a tiny-model step is a few ms), the loop kept stepping the other request.
    # Compiling inside the loop would let at most one of its deltas through before the constrained one's first.
    assert first_wide - submitted >= 3, (submitted, first_wide)
    assert constrained.startswith("{")
    await client.abort("free")
    await free


async def test_constrained_output_refusal_and_abort_through_the_core(client) -> None:
    deltas = [d async for d in client.generate(EngineRequest(
        "digits", [5, 6, 7], SamplingParams(max_tokens=10, temperature=0),
        structured={"type": "regex", "pattern": "[0-9]{3}"}))]
    assert "".join(d.text for d in deltas).isdigit() and len("".join(d.text for d in deltas)) == 3
    assert deltas[-1].finish_reason == "stop"

    with pytest.raises(InvalidRequestError, match="format") as refused:
        async for _ in client.generate(_request("refused", {"type": "json_schema",
                                                            "schema": {"type": "string", "format": "nope"}})):
            pass
    assert refused.value.param == "response_format"

    async def first_delta():
        return await anext(aiter(client.generate(_request(
            "aborted", {"type": "json_schema", "schema": _wide_schema(2000, "core_abort")}))))

    task = asyncio.create_task(first_delta())
    await asyncio.sleep(0.02)  # the add reached the core; the grammar is still compiling
    await client.abort("aborted")
    out = await task
    assert out.finish_reason == "abort" and out.usage.prompt_tokens == 3 and out.usage.completion_tokens == 0
