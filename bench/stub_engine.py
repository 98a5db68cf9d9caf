"""A stub engine host: answers every request at once with a fixed completion, over the engine host protocol.

It listens where ``engine.host`` would (a Unix socket, ``multiprocessing``'s HMAC challenge with the gateway's
engine key, the ``("ready", info)`` greeting) and speaks the same messages (``engine.core.engine_core``: ``("add",
request)``, ``("abort", id)``, ``("shutdown",)`` in; ``("outputs", [RequestOutput])`` out), so a gateway pointed at it
with ``WARDEN_ENGINE_SOCKETS`` runs its whole request path for real — tokenizer, pool, engine client, audit — while no
model computes: what is left of a request's latency is the gateway's (and the IPC hop's).

Each request gets two deltas, sent in two messages: the first carries ``STAMP_PREFIX`` + the host's
``time.perf_counter_ns()`` as it sends it (CLOCK_MONOTONIC, one clock for every process on the machine), the
second ``" done"`` and the finish. A client reading a stream can so time the engine's first token to its own
first byte through the gateway. With ``--no-stamp`` the first delta is ``STAMP_PREFIX`` alone: for a gateway whose
requests are never streamed (the guarded benches), where nobody reads the stamp and its 19 digits only made the
output guardrails screen a phone-, SSN- and id-shaped number that no real completion of the bench holds (~0.1 ms of
output screening a request).

    WARDEN_STUB_ENGINE_AUTHKEY=<hex> python -m bench.stub_engine --socket /tmp/x.sock --model smollm2-135m-instruct \
        [--no-stamp]
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import signal
import sys
import threading
import time
from multiprocessing.connection import Connection, Listener
from pathlib import Path
from typing import Any

from engine.metrics import RequestTimings
from engine.outputs import RequestOutput, Usage

AUTHKEY_ENV = "WARDEN_STUB_ENGINE_AUTHKEY"
STAMP_PREFIX = "t"
FINAL_TEXT = " done"
MAX_MODEL_LEN = 8192
VOCAB_SIZE = 49152  # SmolLM2's: the gateway validates token ids against it


def first_delta(request_id: str, prompt_tokens: int, stamp: bool = True) -> RequestOutput:
    text = f"{STAMP_PREFIX}{time.perf_counter_ns()}" if stamp else STAMP_PREFIX
    return RequestOutput(request_id, token_ids=[0], text=text,
                         usage=Usage(prompt_tokens=prompt_tokens, completion_tokens=1))


def last_delta(request_id: str, prompt_tokens: int, arrival_ns: int) -> RequestOutput:
    now = time.perf_counter_ns()
    return RequestOutput(request_id, token_ids=[0], text=FINAL_TEXT, finish_reason="length",
                         usage=Usage(prompt_tokens=prompt_tokens, completion_tokens=2),
                         metrics=RequestTimings(arrival_ns=arrival_ns, scheduled_ns=arrival_ns,
                                                first_token_ns=arrival_ns, finished_ns=now))


def serve_caller(conn: Connection, stamp: bool = True) -> None:
    """One gateway worker's connection: answer each request as it arrives, until the worker leaves."""
    try:
        while True:
            message = conn.recv()
            if message[0] == "add":
                request = message[1]
                arrival = time.perf_counter_ns()
                prompt_tokens = len(request.prompt_token_ids)
                conn.send(("outputs", [first_delta(request.request_id, prompt_tokens, stamp)]))
                conn.send(("outputs", [last_delta(request.request_id, prompt_tokens, arrival)]))
            elif message[0] == "shutdown":
                return
            # "abort": every request is already finished when its add returns; nothing to free.
    except (EOFError, OSError):
        return
    finally:
        conn.close()


def serve(address: Path, authkey: bytes, model_name: str, stamp: bool = True) -> None:
    info: dict[str, Any] = {"model_name": model_name, "max_model_len": MAX_MODEL_LEN, "vocab_size": VOCAB_SIZE,
                            "pid": os.getpid()}
    old_umask = os.umask(0o077)
    try:
        listener = Listener(str(address), family="AF_UNIX", authkey=authkey)
    finally:
        os.umask(old_umask)
    print(f"stub engine listening at {address}", file=sys.stderr, flush=True)
    try:
        while True:
            try:
                conn = listener.accept()
            except (mp.AuthenticationError, EOFError, ConnectionError):
                continue
            conn.send(("ready", info))
            threading.Thread(target=serve_caller, args=(conn, stamp), daemon=True).start()
    finally:
        listener.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--socket", type=Path, required=True)
    parser.add_argument("--model", default="smollm2-135m-instruct", help="the model name it serves")
    parser.add_argument("--no-stamp", dest="stamp", action="store_false",
                        help="the first delta without the clock stamp (a gateway whose requests are not streamed)")
    args = parser.parse_args(argv)
    authkey = bytes.fromhex(os.environ[AUTHKEY_ENV])  # from the environment: never on a command line
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    serve(args.socket, authkey, args.model, args.stamp)
    return 0


if __name__ == "__main__":
    sys.exit(main())
