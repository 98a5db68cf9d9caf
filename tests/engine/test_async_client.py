"""The EngineClient: streaming, abort, and a dead engine process surfacing as EngineDeadError (never a hang)."""

from __future__ import annotations

import asyncio
import os
import signal

import pytest

from engine.config import EngineConfig
from engine.errors import EmptyPromptError, EngineDeadError, PromptTooLongError, UnknownModelError
from engine.launch import start_engine
from engine.protocol import EngineClient
from engine.request import EngineRequest
from engine.sampling_params import SamplingParams

pytestmark = pytest.mark.timeout(300)


@pytest.fixture
async def tiny_client(tiny_llama_dir):
    client = await start_engine(EngineConfig(model=str(tiny_llama_dir), show_progress=False, num_kv_blocks=64,
                                             block_size=4), in_process=True)
    yield client
    await client.shutdown()


async def collect(client, request):
    return [delta async for delta in client.generate(request)]


async def test_in_process_client_streams_deltas(tiny_client):
    assert isinstance(tiny_client, EngineClient)
    params = SamplingParams(max_tokens=7, temperature=0, ignore_eos=True)
    deltas = await collect(tiny_client, EngineRequest("r1", [5, 6, 7, 8, 9], params))
    assert [len(d.token_ids) for d in deltas] == [1] * 7
    assert [d.finish_reason for d in deltas] == [None] * 6 + ["length"]
    assert deltas[-1].usage.prompt_tokens == 5 and deltas[-1].usage.completion_tokens == 7
    text = "".join(d.text for d in deltas)
    assert text == tiny_client.tokenizer.decode([t for d in deltas for t in d.token_ids])


async def test_concurrent_requests_are_independent_of_each_other(tiny_client):
    params = SamplingParams(max_tokens=10, temperature=0, ignore_eos=True)
    prompts = [[i, i + 1, i + 2] for i in range(10, 16)]
    alone = [await collect(tiny_client, EngineRequest(f"a{i}", p, params)) for i, p in enumerate(prompts)]
    together = await asyncio.gather(*(collect(tiny_client, EngineRequest(f"b{i}", p, params))
                                      for i, p in enumerate(prompts)))
    def tokens(ds):
        return [t for d in ds for t in d.token_ids]
    assert [tokens(d) for d in alone] == [tokens(d) for d in together]


async def test_bad_requests_fail_alone(tiny_client):
    good = asyncio.create_task(collect(tiny_client, EngineRequest(
        "good", [1, 2, 3], SamplingParams(max_tokens=20, temperature=0, ignore_eos=True))))
    with pytest.raises(EmptyPromptError):
        await collect(tiny_client, EngineRequest("empty", [], SamplingParams()))
    with pytest.raises(PromptTooLongError):
        too_many = SamplingParams(max_tokens=tiny_client.max_model_len)
        await collect(tiny_client, EngineRequest("long", [1] * 10, too_many))
    deltas = await good
    assert deltas[-1].finish_reason == "length" and len(deltas) == 20


async def test_abort_stops_the_stream_and_frees_blocks(tiny_llama_dir):
    client = await start_engine(EngineConfig(model=str(tiny_llama_dir), show_progress=False, num_kv_blocks=64,
                                             block_size=4), in_process=True)
    try:
        params = SamplingParams(max_tokens=200, temperature=0, ignore_eos=True)
        seen = []
        async for delta in client.generate(EngineRequest("long", [3, 4, 5], params)):
            seen.append(delta)
            if len(seen) == 3:
                await client.abort("long")
        assert seen[-1].finish_reason == "abort"
        assert len(seen) < 200
        # walking away from a stream aborts it too
        stream = client.generate(EngineRequest("walk", [3, 4, 5], params))
        await stream.__anext__()
        await stream.aclose()
        follow_up = await collect(client, EngineRequest("after", [7, 8], SamplingParams(max_tokens=2)))
        assert follow_up[-1].finished
    finally:
        await client.shutdown()


@pytest.mark.slow
async def test_engine_process_death_fails_callers_promptly(tiny_llama_dir):
    client = await start_engine(EngineConfig(model=str(tiny_llama_dir), show_progress=False, num_kv_blocks=256,
                                             block_size=4))
    try:
        assert client.is_alive() and client.core_pid is not None
        first = await collect(client, EngineRequest("ok", [1, 2, 3], SamplingParams(max_tokens=3)))
        assert first[-1].finished
        stream = client.generate(EngineRequest("pending", [1, 2, 3], SamplingParams(max_tokens=500, ignore_eos=True)))
        await stream.__anext__()
        os.kill(client.core_pid, signal.SIGKILL)
        with pytest.raises(EngineDeadError):
            async with asyncio.timeout(30):
                async for _ in stream:
                    pass
        with pytest.raises(EngineDeadError):
            await collect(client, EngineRequest("new", [1, 2], SamplingParams()))
        assert not client.is_alive()
    finally:
        await client.shutdown()


async def test_unknown_model_is_refused_before_starting():
    with pytest.raises(UnknownModelError):
        await start_engine(EngineConfig(model="/nonexistent/model.gguf"))
