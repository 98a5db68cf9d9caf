"""The engine behind a bare OpenAI-compatible endpoint: no keys, limits, guardrails or audit.

The gateway-overhead benchmark's baseline and upstream: what a client sees talking to the engine directly (as to
vLLM's OpenAI server), and what LiteLLM proxies to. Chat completions only, whole or streamed; the engine and its
settings come from the same ``WARDEN_*`` environment as ``warden serve``'s, so both serve the same engine.

    python -m bench.bare_engine_server --https-port 9443 --http-port 9080 --certfile C.pem --keyfile K.pem

HTTPS for clients, plain HTTP on loopback for a proxy's hop.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, StreamingResponse

from engine.launch import start_engine
from engine.outputs import RequestOutput
from engine.protocol import EngineClient
from engine.request import EngineRequest
from engine.sampling_params import SamplingParams
from gateway.core.settings import Settings
from gateway.openai.prompts import chat_prompt_ids


def _engine_request(engine: EngineClient, body: dict[str, Any]) -> EngineRequest:
    # The gateway's own template step, so both sides hand the engine the same token ids for the same messages.
    messages = [{"role": m["role"], "content": m.get("content") or ""} for m in body["messages"]]
    params = SamplingParams(max_tokens=int(body.get("max_tokens") or body.get("max_completion_tokens") or 16),
                            temperature=float(body.get("temperature", 1.0)), top_p=float(body.get("top_p", 1.0)),
                            ignore_eos=bool(body.get("ignore_eos", False)))
    return EngineRequest(request_id=uuid.uuid4().hex,
                         prompt_token_ids=chat_prompt_ids(engine.tokenizer, messages),
                         sampling_params=params)


def _usage(output: RequestOutput) -> dict[str, int]:
    usage = output.usage
    assert usage is not None
    return {"prompt_tokens": usage.prompt_tokens, "completion_tokens": usage.completion_tokens,
            "total_tokens": usage.total_tokens}


def build_app(engine: EngineClient) -> FastAPI:
    app = FastAPI()

    @app.get("/v1/models")
    async def models() -> dict[str, Any]:
        return {"object": "list", "data": [{"id": engine.model_name, "object": "model", "owned_by": "bench"}]}

    @app.post("/v1/chat/completions", response_model=None)
    async def chat(request: Request) -> JSONResponse | StreamingResponse:
        body = await request.json()
        engine_request = _engine_request(engine, body)
        chunk_id, created = f"chatcmpl-{engine_request.request_id}", int(time.time())
        head = {"id": chunk_id, "created": created, "model": engine.model_name}
        if body.get("stream"):
            include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
            return StreamingResponse(_stream(engine, engine_request, head, include_usage=include_usage),
                                     media_type="text/event-stream")
        text, last = [], None
        async for output in engine.generate(engine_request):
            text.append(output.text)
            last = output
        assert last is not None
        choice = {"index": 0, "message": {"role": "assistant", "content": "".join(text)},
                  "finish_reason": last.finish_reason, "logprobs": None}
        return JSONResponse({**head, "object": "chat.completion", "choices": [choice], "usage": _usage(last)})

    return app


async def _stream(engine: EngineClient, request: EngineRequest, head: dict[str, Any], *,
                  include_usage: bool) -> AsyncIterator[str]:
    def event(choices: list[dict[str, Any]], **extra: Any) -> str:
        return f"data: {json.dumps({**head, 'object': 'chat.completion.chunk', 'choices': choices, **extra})}\n\n"

    def choice(delta: dict[str, Any], finish_reason: str | None) -> list[dict[str, Any]]:
        return [{"index": 0, "delta": delta, "finish_reason": finish_reason, "logprobs": None}]

    yield event(choice({"role": "assistant", "content": ""}, None))
    async for output in engine.generate(request):
        if output.text:
            yield event(choice({"content": output.text}, None))
        if output.finished:
            yield event(choice({}, output.finish_reason))
            if include_usage:
                yield event([], usage=_usage(output))
    yield "data: [DONE]\n\n"


async def serve(https_port: int, http_port: int, cert: Path, key: Path) -> None:
    settings = Settings()
    engine = await start_engine(settings.engine_config())
    app = build_app(engine)
    common: dict[str, Any] = {"host": "127.0.0.1", "log_level": "warning", "lifespan": "off"}
    servers = [uvicorn.Server(uvicorn.Config(app, port=https_port, ssl_certfile=str(cert), ssl_keyfile=str(key),
                                             **common)),
               uvicorn.Server(uvicorn.Config(app, port=http_port, **common))]
    try:
        await asyncio.gather(*(server.serve() for server in servers))
    finally:
        await engine.shutdown()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--https-port", type=int, required=True)
    parser.add_argument("--http-port", type=int, required=True)
    parser.add_argument("--certfile", type=Path, required=True)
    parser.add_argument("--keyfile", type=Path, required=True)
    args = parser.parse_args()
    asyncio.run(serve(args.https_port, args.http_port, args.certfile, args.keyfile))


if __name__ == "__main__":
    main()
