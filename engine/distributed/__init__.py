"""Tensor parallelism: the group and its collectives (``parallel_state``), how weights split (``sharding``),
the worker processes (``worker``) and the engine process's handle on them (``executor``)."""

from engine.distributed.parallel_state import TensorParallelRank, all_gather_last_dim, all_reduce

__all__ = ["TensorParallelRank", "all_gather_last_dim", "all_reduce"]
