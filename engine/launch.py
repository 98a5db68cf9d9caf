"""Start an engine and return its ``EngineClient``: ``await start_engine(EngineConfig())``.

By default the ``EngineCore`` step loop runs in its own process (``multiprocessing`` spawn, so CUDA and
torch threads start clean), talking over pipes; HTTP work in the caller never stalls a decode step.
``in_process=True`` runs the identical core in a thread of this process (tests, notebooks).
"""

from __future__ import annotations

import asyncio
import multiprocessing as mp
import threading
from multiprocessing.connection import wait
from typing import Any

from engine.client import AsyncEngineClient
from engine.config import EngineConfig
from engine.core import ErrorInfo, run_engine_core
from engine.errors import EngineDeadError
from engine.heartbeat import Heartbeat
from engine.loader.source import resolve_model
from engine.tokenizer import Tokenizer

STARTUP_TIMEOUT_S = 600.0
IN_PROCESS_STOP_S = 120.0  # how long shutdown waits for an in-process engine's step to end


async def start_engine(config: EngineConfig, *, in_process: bool = False) -> AsyncEngineClient:
    """Raises ``UnknownModelError`` for a model that cannot be found or loaded."""
    source = resolve_model(config.model, config.served_model_name)  # fail fast, before starting anything
    loop = asyncio.get_running_loop()
    if in_process:
        in_recv, in_send = mp.Pipe(duplex=False)
        out_recv, out_send = mp.Pipe(duplex=False)
        thread = threading.Thread(target=run_engine_core, args=(config, in_recv, out_send),
                                  kwargs={"own_process": False}, name="engine-core", daemon=True)
        thread.start()
        sentinel = pid = heartbeat = None

        def is_alive() -> bool:
            return thread.is_alive()

        def stop(timeout: float) -> None:
            # The thread ends after the step it is in; a process that exits while it is still inside torch aborts
            # ("terminate called without an active exception"), so a long prefill step is waited out.
            thread.join(max(timeout, IN_PROCESS_STOP_S))
    else:
        ctx = mp.get_context("spawn")
        in_recv, in_send = ctx.Pipe(duplex=False)
        out_recv, out_send = ctx.Pipe(duplex=False)
        heartbeat = Heartbeat.shared()
        process = ctx.Process(target=run_engine_core, args=(config, in_recv, out_send),
                              kwargs={"heartbeat": heartbeat}, name="warden-engine-core", daemon=True)
        process.start()
        # The child holds its own copies; closing ours makes a dead child show up as EOF.
        in_recv.close()
        out_send.close()
        sentinel, pid = process.sentinel, process.pid

        def is_alive() -> bool:
            return process.is_alive()

        def stop(timeout: float) -> None:
            process.join(timeout)
            if process.is_alive():
                process.terminate()
                process.join(5)

    tokenizer_task = loop.run_in_executor(None, Tokenizer.from_source, source)
    message = await loop.run_in_executor(None, _await_ready, out_recv, sentinel)
    tokenizer = await tokenizer_task
    if message[0] == "failed":
        stop(5.0)
        info: ErrorInfo = message[1]
        raise info.to_exception()
    ready: dict[str, Any] = message[1]
    return AsyncEngineClient(inbox=in_send, outbox=out_recv, tokenizer=tokenizer, info=ready, is_core_alive=is_alive,
                             stop_core=stop, sentinel=sentinel, core_pid=pid, heartbeat=heartbeat)


def _await_ready(outbox: Any, sentinel: Any) -> tuple[Any, ...]:
    waitables = [outbox] + ([sentinel] if sentinel is not None else [])
    ready = wait(waitables, timeout=STARTUP_TIMEOUT_S)
    if outbox in ready:
        try:
            return outbox.recv()
        except EOFError:
            pass
    raise EngineDeadError("the engine process exited or timed out before it was ready")
