"""A tensor-parallel worker process (rank 1..size-1): ``python -m engine.distributed.worker``, started by
``engine.distributed.executor``. It builds its slice of the model and of the KV cache, then runs the forward of
every step the driver sends, in lockstep with the other ranks; sampling happens on the driver only.

Messages in (pickled, on the command pipe): the ``WorkerSpec``, the KV block count, then ``StepInputs`` per step
and ``None`` to stop. Replies (``Connection.send``): ``("joining",)``, ``("loaded",)``, ``("ready",)``, or
``("failed", reason)``.
"""

from __future__ import annotations

import contextlib
import logging
import os
import pickle
import signal
from multiprocessing.connection import Connection
from typing import Any

import torch

from engine.config import resolve_device
from engine.distributed.executor import (
    FDS_ENV,
    STORE_HOST,
    WorkerSpec,
    backend_for,
    configure_process,
    rank_device,
)
from engine.distributed.parallel_state import destroy_tensor_parallel, init_tensor_parallel
from engine.loader.model_loader import load_model
from engine.loader.source import resolve_model
from engine.worker.model_runner import ModelRunner

log = logging.getLogger("engine.distributed.worker")


def _receive(command: Connection) -> Any:
    # The pipe was made by our parent, the driver, before it started this interpreter: nothing else can write it.
    return pickle.loads(command.recv_bytes())  # noqa: S301


def run_worker(spec: WorkerSpec, command: Connection, reply: Connection) -> None:
    config = spec.config
    device = rank_device(resolve_device(config.device), spec.rank)
    configure_process(config, device)
    reply.send(("joining",))
    tp = init_tensor_parallel(spec.rank, spec.size, store_host=STORE_HOST, store_port=spec.store_port,
                              backend=backend_for(device))
    source = resolve_model(config.model, config.served_model_name)
    model = load_model(source, dtype=getattr(torch, spec.dtype), device=device, max_position=spec.max_position,
                       show_progress=False, tp=tp)
    reply.send(("loaded",))
    num_blocks: int = _receive(command)
    runner = ModelRunner(config, model, device, getattr(torch, spec.dtype), num_blocks)
    reply.send(("ready",))
    while (inputs := _receive(command)) is not None:
        runner.run_forward(inputs)
    destroy_tensor_parallel()  # told to stop: leave the group in order (a dead driver's EOF skips this)


def main() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C belongs to the gateway, which stops the driver, then us
    logging.basicConfig(level=os.environ.get("WARDEN_ENGINE_LOG", "WARNING"))
    command_fd, reply_fd = (int(fd) for fd in os.environ.pop(FDS_ENV).split(","))
    command = Connection(command_fd, readable=True, writable=False)
    reply = Connection(reply_fd, readable=False, writable=True)
    try:
        spec: WorkerSpec = _receive(command)
        run_worker(spec, command, reply)
    except (EOFError, BrokenPipeError):
        pass  # the driver went away: nothing left to serve
    except Exception as exc:
        log.exception("tensor-parallel worker failed")
        with contextlib.suppress(OSError):
            reply.send(("failed", f"{type(exc).__name__}: {exc}"))
        raise SystemExit(1) from exc


if __name__ == "__main__":
    main()
