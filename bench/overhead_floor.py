"""The floor of the gateway-overhead benchmark: a bare ASGI app that answers a chat completion with the body a
gateway in front of the stub engine (``bench.stub_engine``) would send, and nothing else — no framework, no
parsing beyond reading the body, no engine. Served by the same server, with the same TLS, as the gateways, its
latency is what the server, TLS and the client cost; a gateway's latency minus the floor's is the gateway's own.

It is also the upstream LiteLLM proxies to (plain HTTP on loopback), so LiteLLM's latency minus the floor's is
LiteLLM's own, measured the same way. Streams (``"stream": true`` anywhere in the body) get the stub engine's two
deltas as SSE, the first stamped with ``time.perf_counter_ns()`` as it is sent.

    python -m bench.overhead_floor --port 9443 --certfile C.pem --keyfile K.pem [--http-port 9080]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

import uvicorn

from bench.stub_engine import FINAL_TEXT, STAMP_PREFIX

MODEL = "smollm2-135m-instruct"
JSON_HEADERS = [(b"content-type", b"application/json")]
SSE_HEADERS = [(b"content-type", b"text/event-stream"), (b"cache-control", b"no-cache")]


def completion_body(model: str) -> bytes:
    content = f"{STAMP_PREFIX}{time.perf_counter_ns()}{FINAL_TEXT}"
    return json.dumps({
        "id": "chatcmpl-0123456789abcdef0123456789abcdef", "object": "chat.completion", "created": int(time.time()),
        "model": model, "system_fingerprint": None,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content, "refusal": None},
                     "logprobs": None, "finish_reason": "length"}],
        "usage": {"prompt_tokens": 30, "completion_tokens": 2, "total_tokens": 32},
    }, separators=(",", ":")).encode()


def _chunk(model: str, delta: dict[str, Any], finish_reason: str | None) -> bytes:
    body = {"id": "chatcmpl-0123456789abcdef0123456789abcdef", "object": "chat.completion.chunk",
            "created": int(time.time()), "model": model,
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}]}
    return b"data: " + json.dumps(body, separators=(",", ":")).encode() + b"\n\n"


def build_app(model: str = MODEL) -> Any:
    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        if scope["type"] != "http":
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        if scope["path"].endswith("/models"):
            payload = json.dumps({"object": "list", "data": [{"id": model, "object": "model", "created": 0,
                                                            "owned_by": "floor"}]}).encode()
            await send({"type": "http.response.start", "status": 200, "headers": JSON_HEADERS})
            await send({"type": "http.response.body", "body": payload})
            return
        if b'"stream":true' not in body.replace(b" ", b""):
            await send({"type": "http.response.start", "status": 200, "headers": JSON_HEADERS})
            await send({"type": "http.response.body", "body": completion_body(model)})
            return
        await send({"type": "http.response.start", "status": 200, "headers": SSE_HEADERS})
        await send({"type": "http.response.body", "more_body": True,
                    "body": _chunk(model, {"role": "assistant", "content": ""}, None)})
        stamp = f"{STAMP_PREFIX}{time.perf_counter_ns()}"
        await send({"type": "http.response.body", "more_body": True, "body": _chunk(model, {"content": stamp}, None)})
        await send({"type": "http.response.body", "more_body": True,
                    "body": _chunk(model, {"content": FINAL_TEXT}, "length")})
        await send({"type": "http.response.body", "body": b"data: [DONE]\n\n"})

    return app


async def serve(port: int, cert: Path, key: Path, http_port: int | None, *, loop: str, http: str) -> None:
    app = build_app()
    common: dict[str, Any] = {"host": "127.0.0.1", "log_level": "warning", "lifespan": "off", "loop": loop,
                              "http": http}
    servers = [uvicorn.Server(uvicorn.Config(app, port=port, ssl_certfile=str(cert), ssl_keyfile=str(key),
                                             **common))]
    if http_port is not None:
        servers.append(uvicorn.Server(uvicorn.Config(app, port=http_port, **common)))
    await asyncio.gather(*(server.serve() for server in servers))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, required=True, help="HTTPS")
    parser.add_argument("--http-port", type=int, help="plain HTTP too (a proxy's upstream)")
    parser.add_argument("--certfile", type=Path, required=True)
    parser.add_argument("--keyfile", type=Path, required=True)
    parser.add_argument("--loop", default="auto", choices=["auto", "asyncio", "uvloop"])
    parser.add_argument("--http", default="auto", choices=["auto", "h11", "httptools"])
    args = parser.parse_args(argv)
    server = serve(args.port, args.certfile, args.keyfile, args.http_port, loop=args.loop, http=args.http)
    if args.loop == "asyncio":
        asyncio.run(server)
    else:  # "auto" is uvloop where installed, as uvicorn.run's own setup would pick
        import uvloop

        uvloop.run(server)
    return 0


if __name__ == "__main__":
    sys.exit(main())
