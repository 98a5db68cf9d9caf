"""Start ``count`` engine replicas from one ``EngineConfig``: one engine (today's path, no pool) for one replica,
a ``ReplicaPool`` otherwise.

Replicas differ only in their device: on CUDA replica ``i`` gets ``cuda:{base + i * tensor_parallel_size}`` (its
tensor-parallel ranks take the devices after that one); on CPU each gets ``cpu``, and when the engine processes run
apart and ``num_threads`` is unset, the cores are split between them (each torch would otherwise start one thread
per core, and N processes spinning on every core slow each other down).
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
from pathlib import Path
from typing import TYPE_CHECKING

from engine.protocol import EngineClient
from gateway.replicas.pool import ReplicaPool

if TYPE_CHECKING:
    from engine.config import EngineConfig


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

    from engine.llm_engine import resolve_device

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
                         restart_dead: bool = True) -> EngineClient:
    """All replicas start at once; if one fails, the others are shut down and its error is raised. With
    ``restart_dead`` the pool brings a replica that dies back with the same config (``ReplicaPool.supervise``)."""
    from engine import launch

    if count == 1:
        return await launch.start_engine(config, in_process=in_process)
    configs = replica_configs(config, count, in_process=in_process)
    results = await asyncio.gather(*(launch.start_engine(c, in_process=in_process) for c in configs),
                                   return_exceptions=True)
    started = [r for r in results if not isinstance(r, BaseException)]
    failed = [r for r in results if isinstance(r, BaseException)]
    if failed:
        await asyncio.gather(*(engine.shutdown() for engine in started), return_exceptions=True)
        raise failed[0]

    async def restart(index: int) -> EngineClient:
        return await launch.start_engine(configs[index], in_process=in_process)

    pool = ReplicaPool(started, block_size=config.block_size, restart=restart if restart_dead else None)
    pool.supervise()
    return pool


async def connect_replicas(config: EngineConfig, sockets: list[Path], authkey: bytes) -> EngineClient:
    """A pool over the engine hosts at ``sockets`` (``warden serve --workers N``: the hosts run beside the workers,
    each worker connects its own pool). A host that dies is restarted by the process that runs the hosts; the
    pool's supervisor reconnects to it, so the worker heals with it."""
    from engine.host import connect_engine

    clients = await asyncio.gather(*(connect_engine(config, socket, authkey) for socket in sockets),
                                   return_exceptions=True)
    connected = [c for c in clients if not isinstance(c, BaseException)]
    failed = [c for c in clients if isinstance(c, BaseException)]
    if failed:
        await asyncio.gather(*(client.shutdown() for client in connected), return_exceptions=True)
        raise failed[0]

    async def reconnect(index: int) -> EngineClient:
        return await connect_engine(config, sockets[index], authkey)

    pool = ReplicaPool(connected, block_size=config.block_size, restart=reconnect)
    pool.supervise()
    return pool
