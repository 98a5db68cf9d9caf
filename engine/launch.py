"""Start an engine and return its ``EngineClient``: ``await start_engine(EngineConfig())``.

By default the ``EngineCore`` step loop runs in its own process (``multiprocessing`` spawn, so CUDA and
torch threads start clean), talking over pipes; HTTP work in the caller never stalls a decode step.
``in_process=True`` runs the identical core in a thread of this process (tests, notebooks).

Starting is two steps a caller may separate: ``spawn_engine`` starts the process and returns at once (it imports
nothing heavy, so a caller can start the engine loading before its own imports and set-up), ``attach`` waits until
it is ready and returns its client. The core, torch and the tokenizer are imported only by what needs them: the
engine process, an in-process engine, and ``attach`` (the caller's tokenizer).
"""

from __future__ import annotations

import asyncio
import multiprocessing as mp
import threading
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from typing import TYPE_CHECKING, Any

from engine.core.heartbeat import Heartbeat
from engine.errors import EngineDeadError
from engine.loader.source import ModelSource, resolve_model

if TYPE_CHECKING:
    from multiprocessing.process import BaseProcess

    from engine.config import EngineConfig
    from engine.core.client import AsyncEngineClient

STARTUP_TIMEOUT_S = 600.0
IN_PROCESS_STOP_S = 120.0  # how long shutdown waits for an in-process engine's step to end


@dataclass(slots=True)
class SpawnedEngine:
    """An engine process started and loading its model; ``attach`` waits until it serves. ``stop`` ends it (for a
    caller that gives up before attaching)."""

    config: EngineConfig
    source: ModelSource
    process: BaseProcess
    inbox: Connection  # requests to the core
    outbox: Connection  # outputs from the core
    heartbeat: Heartbeat

    def is_alive(self) -> bool:
        return self.process.is_alive()

    def stop(self, timeout: float) -> None:
        self.process.join(timeout)
        if self.process.is_alive():
            self.process.terminate()
            self.process.join(5)


def _run_core(*args: Any, **kwargs: Any) -> None:
    """The engine process's entry point: the core (torch, the model) is imported there, not by the spawner."""
    from engine.core.engine_core import run_engine_core

    run_engine_core(*args, **kwargs)


def spawn_engine(config: EngineConfig) -> SpawnedEngine:
    """Start the engine process and return without waiting for it. Raises ``UnknownModelError`` for a model that
    cannot be found, before starting anything."""
    source = resolve_model(config.model, config.served_model_name)
    ctx = mp.get_context("spawn")
    in_recv, in_send = ctx.Pipe(duplex=False)
    out_recv, out_send = ctx.Pipe(duplex=False)
    heartbeat = Heartbeat.shared()
    process = ctx.Process(target=_run_core, args=(config, in_recv, out_send), kwargs={"heartbeat": heartbeat},
                          name="warden-engine-core", daemon=True)
    process.start()
    # The child holds its own copies; closing ours makes a dead child show up as EOF.
    in_recv.close()
    out_send.close()
    return SpawnedEngine(config, source, process, in_send, out_recv, heartbeat)


async def attach(spawned: SpawnedEngine) -> AsyncEngineClient:
    """Wait until a spawned engine is ready and return its client. Raises the engine's start-up error (stopping
    the process) when it fails to load."""
    try:
        return await _connect(spawned.source, spawned.inbox, spawned.outbox, is_alive=spawned.is_alive,
                              stop=spawned.stop, sentinel=spawned.process.sentinel, pid=spawned.process.pid,
                              heartbeat=spawned.heartbeat)
    except asyncio.CancelledError:
        # The caller gave up (a shutdown while it loads): leave no engine loading for nobody. SIGTERM, not a join,
        # which would block the event loop; the process is reaped at exit.
        if spawned.process.is_alive():
            spawned.process.terminate()
        raise


async def start_engine(config: EngineConfig, *, in_process: bool = False) -> AsyncEngineClient:
    """Raises ``UnknownModelError`` for a model that cannot be found or loaded."""
    if not in_process:
        return await attach(spawn_engine(config))
    from engine.core.engine_core import run_engine_core

    source = resolve_model(config.model, config.served_model_name)  # fail fast, before starting anything
    in_recv, in_send = mp.Pipe(duplex=False)
    out_recv, out_send = mp.Pipe(duplex=False)
    thread = threading.Thread(target=run_engine_core, args=(config, in_recv, out_send),
                              kwargs={"own_process": False}, name="engine-core", daemon=True)
    thread.start()

    def stop(timeout: float) -> None:
        # The thread ends after the step it is in; a process that exits while it is still inside torch aborts
        # ("terminate called without an active exception"), so a long prefill step is waited out.
        thread.join(max(timeout, IN_PROCESS_STOP_S))

    return await _connect(source, in_send, out_recv, is_alive=thread.is_alive, stop=stop, sentinel=None, pid=None,
                          heartbeat=None)


async def _connect(source: ModelSource, inbox: Connection, outbox: Connection, *, is_alive: Callable[[], bool],
                   stop: Callable[[float], None], sentinel: Any, pid: int | None,
                   heartbeat: Heartbeat | None) -> AsyncEngineClient:
    from engine.core.client import AsyncEngineClient
    from engine.tokenization.tokenizer import Tokenizer

    loop = asyncio.get_running_loop()
    tokenizer_task = loop.run_in_executor(None, Tokenizer.from_source, source)
    message = await loop.run_in_executor(None, _await_ready, outbox, sentinel)
    tokenizer = await tokenizer_task
    if message[0] == "failed":
        stop(5.0)
        raise message[1].to_exception()  # an engine.core.error_info.ErrorInfo
    ready: dict[str, Any] = message[1]
    return AsyncEngineClient(inbox=inbox, outbox=outbox, tokenizer=tokenizer, info=ready, is_core_alive=is_alive,
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
