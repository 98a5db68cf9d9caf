"""Start ``count`` engine replicas from one ``EngineConfig``: a ``ReplicaPool`` (for one replica too when it is to be
supervised, as the gateway's is), or the plain engine for one unsupervised replica.

Replicas differ only in their device: on CUDA replica ``i`` gets ``cuda:{base + i * tensor_parallel_size}`` (its
tensor-parallel ranks take the devices after that one); on CPU each gets ``cpu``, and when the engine processes run
apart and ``num_threads`` is unset, the cores are split between them (each torch would otherwise start one thread
per core, and N processes spinning on every core slow each other down).

Early start: ``warden serve`` calls ``spawn_early`` before its own imports and migrations, so the engine loads its
model while the gateway sets itself up; the pool's first start of replica 0 (``start_replicas``) then attaches to
that process instead of spawning another. The pool stays the one owner: an early engine nobody attached to is stopped
by ``discard_early``.

Detached engines (``DetachedEngine``, ``WARDEN_ENGINE_ORPHAN_S`` > 0; ``gateway.replicas.detached``): the one-worker
gateway's engine and its standby run as detached ``engine.host`` processes at sockets in the data directory, so a
SIGKILL of the gateway takes neither with it, before or after a promotion. ``spawn_early`` first looks for a live host
of this deployment's there that loads the same config (a crashed gateway's) and attaches to it, so the restarted
gateway serves without loading the model; otherwise it starts one. A dead replica 0 is restarted the same way, and the
standby is such a host too (one a crashed gateway left is adopted). The pool's orderly shutdown stops them all; a host
abandoned by a crash stops by itself once it has had no gateway for ``orphan_s`` seconds.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import os
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from engine.config import DEFAULT_BLOCK_SIZE
from engine.errors import EngineDeadError
from engine.protocol import EngineClient
from gateway.replicas.detached import DetachedEngine, EarlyHost, HostSlots, open_host, prepare_host
from gateway.replicas.pool import RECONNECT_BACKOFF_S, RESTART_BACKOFF_S, ReplicaPool

if TYPE_CHECKING:
    from engine.config import EngineConfig
    from engine.launch import SpawnedEngine

__all__ = ["DetachedEngine", "connect_replicas", "discard_early", "prepare_host", "spawn_early", "start_replicas"]

log = logging.getLogger(__name__)


# The gateway's first standby engine loads this long after its serving engine is up: a restarted gateway (attached to
# its detached engine) serves first, before a second model load competes with it for the CPU.
STANDBY_START_DELAY_S = 10.0

_early: list[SpawnedEngine | EarlyHost] = []  # at most one: the engine `warden serve` started before the app


def replica_devices(device: str, count: int, *, tensor_parallel_size: int = 1, cuda_devices: int = 0) -> list[str]:
    """Each replica's device. ``device`` is resolved already (``cpu``, ``cuda`` or ``cuda:K``); ``cuda_devices``:
    how many the machine has."""
    if not device.startswith("cuda"):
        return [device] * count
    base = int(device.partition(":")[2] or 0)
    needed = base + count * tensor_parallel_size
    if needed > cuda_devices:
        raise ValueError(f"{count} engine replicas x {tensor_parallel_size} GPUs each from cuda:{base} need {needed} "
                         f"CUDA devices, this machine has {cuda_devices} (WARDEN_ENGINE_REPLICAS)")
    return [f"cuda:{base + i * tensor_parallel_size}" for i in range(count)]


def replica_configs(config: EngineConfig, count: int, *, in_process: bool) -> list[EngineConfig]:
    import torch  # the engine is loaded by now; kept out of the gateway's import time

    from engine.config import resolve_device

    device = str(resolve_device(config.device))  # as the engine resolves it, so every replica is told its own
    tp = config.tensor_parallel_size
    cuda_devices = torch.cuda.device_count() if device.startswith("cuda") else 0
    devices = replica_devices(device, count, tensor_parallel_size=tp, cuda_devices=cuda_devices)
    threads = config.num_threads
    if threads is None and device == "cpu" and not in_process:
        # in one process, torch's pool is shared anyway; each replica's tensor-parallel ranks share its part
        threads = max(1, len(os.sched_getaffinity(0)) // (count * tp))
    return [dataclasses.replace(config, device=d, num_threads=threads) for d in devices]


async def start_replicas(config: EngineConfig, count: int, *, in_process: bool = False,
                         restart_dead: bool = True, supervise_one: bool = False,
                         watchdog_s: float | None = None, standby: bool | None = False) -> EngineClient:
    """All replicas start at once; if one fails, the others are shut down and its error is raised. With
    ``restart_dead`` the pool brings a replica that dies back with the same config (``ReplicaPool.supervise``); with
    ``watchdog_s`` it kills one that hangs that long with work waiting (an engine in its own process), to restart it.
    One replica is the plain engine, unsupervised, unless ``supervise_one`` (the gateway's way): then a pool of one.
    ``standby``: keep one more engine started and idle, promoted when a replica dies (``wants_standby``: None means
    on CPUs only); it starts once the replicas serve, and only for supervised engines in their own processes."""
    from engine import launch

    early = _take_early(config) if count == 1 and not in_process else None
    # Restarts and standbys are detached hosts too, in this gateway's other slots
    slots = early.slots if isinstance(early, EarlyHost) else None
    if count == 1 and not supervise_one:
        return await _open_early(early) if early else await launch.start_engine(config, in_process=in_process)
    configs = [config] if count == 1 else replica_configs(config, count, in_process=in_process)

    async def start(index: int) -> EngineClient:
        nonlocal early
        if early is not None:  # the first start of replica 0 only; a restart spawns afresh
            taken, early = early, None
            return await _open_early(taken)
        if slots is not None:
            return await _open_detached(slots, configs[index])
        return await launch.start_engine(configs[index], in_process=in_process)

    wanted: list[bool] = [] if standby is None else [wants_standby(standby, configs[0].device)]

    async def start_standby() -> EngineClient | None:
        if not wanted:  # unset: decided here, in the background, since resolving "auto" imports torch
            wanted.append(await asyncio.to_thread(wants_standby, None, configs[0].device))
        if not wanted[0]:
            return None
        if slots is not None:
            return await _open_detached(slots, configs[0])
        return await launch.start_engine(configs[0], in_process=False)

    keep_standby = restart_dead and not in_process and (not wanted or wanted[0])
    return await _open_pool(start, count, block_size=config.block_size, heal=restart_dead, watchdog_s=watchdog_s,
                            standby=start_standby if keep_standby else None, standby_delay_s=STANDBY_START_DELAY_S)


def spawn_early(config: EngineConfig, detached: DetachedEngine | None = None) -> None:
    """Start the engine process for ``config`` now, without waiting for it (nothing heavy is imported here); the
    next ``start_replicas`` of one replica with an equal config attaches to it. ``detached``: the engine is a
    detached host there, the live one a crashed gateway left if it loads ``config``."""
    from engine.launch import spawn_engine

    discard_early()
    _early.append(prepare_host(config, detached) if detached is not None else spawn_engine(config))


async def _open_detached(slots: HostSlots, config: EngineConfig) -> EngineClient:
    prepared = await asyncio.get_running_loop().run_in_executor(None, slots.prepare, config)
    return await open_host(prepared)


async def _open_early(early: SpawnedEngine | EarlyHost) -> EngineClient:
    """The client of an early engine: attached to its pipes, or connected to its detached host once it serves."""
    from engine import launch

    if isinstance(early, EarlyHost):
        return await open_host(early)
    return await launch.attach(early)


def discard_early(timeout_s: float = 5.0) -> None:
    """Stop an early engine that no pool attached to (the gateway failed before it started its engine)."""
    while _early:
        _early.pop().stop(timeout_s)


def _take_early(config: EngineConfig) -> SpawnedEngine | EarlyHost | None:
    """The early engine, if it was started for ``config``; one started for another config is stopped."""
    if not _early:
        return None
    spawned = _early.pop()
    if spawned.config == config and spawned.is_alive():
        return spawned
    spawned.stop(0)
    return None


def wants_standby(setting: bool | None, device: str) -> bool:
    """The standby engine setting resolved for ``device``: unset (None) means on for engines on the CPU, where one
    more copy of the model and its KV pool lives in host memory, and off on GPUs, where it would take device memory
    the serving engine's KV pool may need."""
    if setting is not None:
        return setting
    if device != "auto":
        return device == "cpu"
    from engine.config import resolve_device  # imports torch to look for CUDA

    return str(resolve_device(device)) == "cpu"


async def connect_replicas(config: EngineConfig, sockets: list[Path], authkey: bytes, *,
                           watchdog_s: float | None = None) -> EngineClient:
    """A pool over the engine hosts at ``sockets`` (``warden serve --workers N``: the hosts run beside the workers,
    each worker connects its own pool). A host that dies is restarted by the process that runs the hosts; the
    pool's supervisor reconnects to it (every 2 s at most: ``RECONNECT_BACKOFF_S``), so the worker heals with it;
    a worker that starts while a host is down waits for it. With ``watchdog_s`` a worker whose requests
    wait that long on a host whose loop stands still kills the host, which is then restarted the same way."""
    from engine.host import STARTUP_TIMEOUT_S, connect_engine

    async def connect(index: int) -> EngineClient:
        return await connect_engine(config, sockets[index], authkey)

    async def first_connect(index: int) -> EngineClient:
        # A worker (re)started by uvicorn while `warden serve` restarts a host waits for that host, at most as long
        # as a host may take to load: failing its start-up instead would make uvicorn stop every worker.
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        delay = RECONNECT_BACKOFF_S[0]
        while True:
            try:
                return await connect(index)
            except EngineDeadError as exc:
                if time.monotonic() + delay > deadline:
                    raise
                log.warning("waiting for the engine host at %s: %s", sockets[index], exc)
            await asyncio.sleep(delay)
            delay = min(RECONNECT_BACKOFF_S[1], delay * 2)

    # Reconnecting is cheap and the host's restarts back off in `warden serve`: retry often (RECONNECT_BACKOFF_S).
    return await _open_pool(first_connect, len(sockets), block_size=config.block_size, heal=True,
                            watchdog_s=watchdog_s, reopen=connect, restart_backoff_s=RECONNECT_BACKOFF_S)


def served_block_size(replicas: Sequence[EngineClient], configured: int | None) -> int:
    """The KV block size the replicas serve with, which the pool's route keys span. Each engine settles it at start
    (unset, a model with Mamba2 layers raises it to its scan chunk:
    ``engine.scheduling.mamba_state.choose_block_size``) and reports it in its greeting; a client that reports none
    (an engine host started by an older release) is taken to serve ``configured``, or the default when unset."""
    reported = {size for r in replicas if (size := getattr(r, "block_size", None)) is not None}
    if len(reported) > 1:
        raise ValueError(f"engine replicas serve different KV block sizes {sorted(reported)}: the pool routes on one")
    return reported.pop() if reported else configured or DEFAULT_BLOCK_SIZE


async def _open_pool(open_replica: Callable[[int], Awaitable[EngineClient]], count: int, *, block_size: int | None,
                     heal: bool, watchdog_s: float | None = None,
                     standby: Callable[[], Awaitable[EngineClient | None]] | None = None,
                     standby_delay_s: float = 0.0, reopen: Callable[[int], Awaitable[EngineClient]] | None = None,
                     restart_backoff_s: tuple[float, float] = RESTART_BACKOFF_S) -> ReplicaPool:
    """Open ``count`` replicas at once and pool them; if one fails, the opened ones are shut down and its error is
    raised. With ``heal`` the pool's supervisor opens a dead replica again the same way (or with ``reopen``)."""
    results = await asyncio.gather(*(open_replica(i) for i in range(count)), return_exceptions=True)
    opened = [r for r in results if not isinstance(r, BaseException)]
    failed = [r for r in results if isinstance(r, BaseException)]
    if failed:
        await asyncio.gather(*(replica.shutdown() for replica in opened), return_exceptions=True)
        raise failed[0]
    try:
        block_size = served_block_size(opened, block_size)
    except ValueError:
        await asyncio.gather(*(replica.shutdown() for replica in opened), return_exceptions=True)
        raise
    pool = ReplicaPool(opened, block_size=block_size, restart=(reopen or open_replica) if heal else None,
                       watchdog_s=watchdog_s, standby=standby, standby_delay_s=standby_delay_s,
                       restart_backoff_s=restart_backoff_s)
    pool.supervise()
    return pool
