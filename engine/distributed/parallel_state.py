"""This process's place in the tensor-parallel group, and the two collectives the sharded layers need.

One group per process (vLLM's ``parallel_state`` idea, reduced to tensor parallelism): rank 0 is the engine
process (scheduler, sampling), ranks 1.. are ``engine.distributed.worker`` processes. Every rank holds a slice of
each weight and of the KV cache and runs the same forward in lockstep; ``all_reduce`` joins row-parallel partial
sums, ``all_gather_last_dim`` the vocabulary slices of the logits.

A model is built for an explicit ``TensorParallelRank`` (from its engine's config), not for whatever group the
process belongs to: a one-rank engine in a process that also drives a group (tests, notebooks) stays whole and
never calls a collective.

The collectives are the functional ones (``torch.distributed._functional_collectives``): they trace into
``torch.compile`` graphs (the CPU serving path) and into CUDA graph captures, and run eagerly as well.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass

import torch
import torch.distributed as dist
import torch.distributed._functional_collectives as funcol

# A collective waits this long for its peers before failing the step: generous for a first step's compile on a
# slow machine, finite so a wedged peer fails the engine instead of hanging it.
COLLECTIVE_TIMEOUT = datetime.timedelta(minutes=10)


@dataclass(frozen=True, slots=True)
class TensorParallelRank:
    rank: int = 0
    size: int = 1


def init_tensor_parallel(rank: int, size: int, *, store_host: str, store_port: int, backend: str,
                         store: dist.TCPStore | None = None) -> TensorParallelRank:
    """Join the group (blocks until all ``size`` ranks have joined). Rank 0 passes the store it created."""
    if dist.is_initialized():
        raise RuntimeError("this process already belongs to a tensor-parallel group: one sharded engine per process")
    if store is None:
        store = dist.TCPStore(store_host, store_port, size, is_master=False, timeout=COLLECTIVE_TIMEOUT)
    dist.init_process_group(backend, store=store, rank=rank, world_size=size, timeout=COLLECTIVE_TIMEOUT)
    return TensorParallelRank(rank, size)


def destroy_tensor_parallel() -> None:
    if dist.is_initialized():
        dist.destroy_process_group()


def _world() -> dist.ProcessGroup:
    group = dist.group.WORLD
    if group is None:
        raise RuntimeError("tensor parallelism is not initialised (init_tensor_parallel was not called)")
    return group


def all_reduce(x: torch.Tensor) -> torch.Tensor:
    """Sum ``x`` over the group's ranks (the partial products of a row-parallel layer)."""
    return funcol.wait_tensor(funcol.all_reduce(x, "sum", _world()))


def all_gather_last_dim(x: torch.Tensor, size: int) -> torch.Tensor:
    """Concatenate every rank's ``[rows, cols]`` along the last dimension, in rank order (vocabulary-sliced
    logits)."""
    rows, cols = x.shape
    gathered = funcol.wait_tensor(funcol.all_gather_single(x.contiguous(), 0, _world()))
    # [size * rows, cols] -> [rows, size * cols]; a view and a permute, so a compiled graph gets no guard on rows
    return gathered.view(size, rows, cols).permute(1, 0, 2).reshape(rows, size * cols)
