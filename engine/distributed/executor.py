"""The engine process's handle on its tensor-parallel workers (ranks 1..size-1), vLLM's multiprocess executor.

Each worker is a fresh interpreter (``python -m engine.distributed.worker``; a subprocess, not a
``multiprocessing`` child, because the engine process itself runs as a daemonic child of the gateway, which may
not have children of its own). It talks to the driver over two pipes: commands in (the spec, the KV block count,
then one pickled ``StepInputs`` per step, pickled once and written to every worker), replies out (start-up
progress or the reason it failed). The tensors of the forward pass itself travel through the collectives of the
``torch.distributed`` group (gloo on CPU, NCCL on CUDA) that ``engine.distributed.parallel_state`` holds.

Liveness: a worker whose driver dies reads EOF on its command pipe (or a collective fails) and exits; a dead
worker makes the driver's next write fail, which raises ``EngineDeadError`` and takes the engine down, so the
gateway reports it instead of serving from half a model.
"""

from __future__ import annotations

import contextlib
import logging
import os
import pickle
import subprocess
import sys
import time
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from typing import Any, cast

import torch
import torch.distributed as dist

from engine.config import EngineConfig
from engine.distributed.parallel_state import (
    COLLECTIVE_TIMEOUT,
    TensorParallelRank,
    destroy_tensor_parallel,
    init_tensor_parallel,
)
from engine.errors import EngineDeadError
from engine.worker.compilation import use_compile_cache

log = logging.getLogger(__name__)
STORE_HOST = "127.0.0.1"  # the group's rendezvous: every rank runs on this host
FDS_ENV = "WARDEN_TP_WORKER_FDS"  # "<command fd>,<reply fd>" inherited by a worker
STARTUP_TIMEOUT_S = 900.0  # loading a large checkpoint shard and capturing graphs


@dataclass(frozen=True, slots=True)
class WorkerSpec:
    """What a worker needs to build the same model and runner as the driver, for its rank."""

    config: EngineConfig
    rank: int
    size: int
    store_port: int
    dtype: str  # resolved by the driver ("float32", "bfloat16", ...)
    max_position: int


def rank_device(device: torch.device, rank: int) -> torch.device:
    """Rank r runs on the r-th device after the driver's (``cuda:2`` with 4 ranks: cuda:2..5); CPU ranks share."""
    if device.type == "cuda":
        return torch.device("cuda", (device.index or 0) + rank)
    return device


def backend_for(device: torch.device) -> str:
    return "nccl" if device.type == "cuda" else "gloo"


def threads_per_rank(config: EngineConfig, device: torch.device) -> int | None:
    """CPU ranks share the machine's cores: without an explicit ``num_threads`` each takes its share, instead of
    every rank starting one thread per core (oversubscribed, the collectives then wait on descheduled ranks)."""
    if config.num_threads or device.type != "cpu" or config.tensor_parallel_size == 1:
        return config.num_threads
    return max(1, (os.cpu_count() or 1) // config.tensor_parallel_size)


def configure_process(config: EngineConfig, device: torch.device) -> None:
    """What an engine process — the driver or a tensor-parallel worker — sets before it loads or compiles anything:
    torch's thread count, where compiled code is cached, and on ``cuda:N`` the current device (Triton launches,
    CUDA graphs and NCCL use the current device, not the tensors')."""
    threads = threads_per_rank(config, device)
    if threads:
        torch.set_num_threads(threads)
    if config.compile_cache_dir:
        use_compile_cache(config.compile_cache_dir)
    if device.type == "cuda" and device.index is not None:
        torch.cuda.set_device(device)


class _Worker:
    def __init__(self, rank: int, process: subprocess.Popen[bytes], command: Connection, reply: Connection) -> None:
        self.rank, self.process, self.command, self.reply = rank, process, command, reply

    def describe_exit(self) -> str:
        code = self.process.poll()
        return f"tensor-parallel worker {self.rank} " + ("is not responding" if code is None else f"exited ({code})")


class TensorParallelWorkers:
    def __init__(self, workers: list[_Worker]) -> None:
        self._workers = workers
        self.tp = TensorParallelRank()  # the driver's rank (0 of size) once the group is joined
        self._closed = False

    @classmethod
    def start(cls, config: EngineConfig, device: torch.device, dtype: torch.dtype,
              max_position: int) -> TensorParallelWorkers:
        """Spawn ranks 1.. and join the group as rank 0 (returns once every rank has joined)."""
        size = config.tensor_parallel_size
        store = dist.TCPStore(STORE_HOST, 0, size, is_master=True, timeout=COLLECTIVE_TIMEOUT,
                              wait_for_workers=False)
        dtype_name = str(dtype).removeprefix("torch.")
        workers: list[_Worker] = []
        try:
            for rank in range(1, size):
                spec = WorkerSpec(config, rank, size, store.port, dtype_name, max_position)
                workers.append(_spawn(spec))
            group = cls(workers)
            group._await_all("joining")
            group.tp = init_tensor_parallel(0, size, store_host=STORE_HOST, store_port=store.port,
                                            backend=backend_for(device), store=store)
        except BaseException:
            for worker in workers:
                worker.process.kill()
            raise
        return group

    def await_loaded(self) -> None:
        self._await_all("loaded")

    def build_runners(self, num_blocks: int) -> None:
        """Tell every worker the KV pool size; each builds its runner (compiling or capturing graphs in lockstep
        with the driver's, which the caller builds next)."""
        self._send(pickle.dumps(num_blocks))

    def await_ready(self) -> None:
        self._await_all("ready")

    def execute(self, inputs: Any) -> None:
        """Hand one step's inputs to every worker; they run the forward with the driver's."""
        self._send(pickle.dumps(inputs, protocol=pickle.HIGHEST_PROTOCOL))

    def shutdown(self, timeout: float = 10.0) -> None:
        if self._closed:
            return
        self._closed = True
        for worker in self._workers:
            with contextlib.suppress(OSError):  # already gone
                worker.command.send_bytes(pickle.dumps(None))  # None: stop
        deadline = time.monotonic() + timeout
        for worker in self._workers:
            try:
                worker.process.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                worker.process.kill()
                worker.process.wait()
            worker.command.close()
            worker.reply.close()
        destroy_tensor_parallel()

    # --- plumbing ---------------------------------------------------------------------------------
    def _send(self, payload: bytes) -> None:
        for worker in self._workers:
            try:
                worker.command.send_bytes(payload)
            except OSError as exc:  # BrokenPipeError: the worker is gone
                raise EngineDeadError(worker.describe_exit()) from exc

    def _await_all(self, stage: str) -> None:
        """Wait until every worker reports ``stage``; raise with a worker's own error if one fails or exits."""
        pending = {worker.reply: worker for worker in self._workers}
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while pending:
            ready = wait(list(pending), timeout=max(0.0, deadline - time.monotonic()))
            if not ready:
                raise EngineDeadError(f"tensor-parallel workers did not reach {stage!r} within {STARTUP_TIMEOUT_S}s")
            for conn in cast("list[Connection[Any, Any]]", ready):  # wait() was given only these connections
                worker = pending[conn]
                try:
                    message = conn.recv()
                except (EOFError, OSError):
                    raise EngineDeadError(worker.describe_exit()) from None
                if message[0] == "failed":
                    raise EngineDeadError(f"tensor-parallel worker {worker.rank} failed: {message[1]}")
                if message[0] == stage:
                    del pending[conn]


def _spawn(spec: WorkerSpec) -> _Worker:
    command_r, command_w = os.pipe()
    reply_r, reply_w = os.pipe()
    env = dict(os.environ, **{FDS_ENV: f"{command_r},{reply_w}"})
    try:
        process = subprocess.Popen([sys.executable, "-m", "engine.distributed.worker"], env=env,
                                   pass_fds=(command_r, reply_w), stdin=subprocess.DEVNULL)
    finally:  # the child holds its own copies: ours closed, a dead child shows up as EOF / EPIPE
        os.close(command_r)
        os.close(reply_w)
    command = Connection(command_w, readable=False)
    reply = Connection(reply_r, writable=False)
    command.send_bytes(pickle.dumps(spec))
    return _Worker(spec.rank, process, command, reply)
