"""Block-sparse causal attention patterns: which key blocks a query block attends to.

Positions are cut into blocks of ``block_size`` tokens (query block ``qb = p // block_size`` for the query at
position ``p``, key block ``kb = k // block_size``). A query block sees key block ``kb <= qb`` when any of:

* **global**: ``kb < global_blocks`` (the first blocks, as BigBird's and Longformer's global tokens: the attention
  sink every query keeps);
* **local**: ``qb - kb < local_blocks`` (its own block and the ``local_blocks - 1`` before it; Phi-3-small's
  ``blocksparse_num_local_blocks`` and vLLM's block-sparse ``local_blocks`` count the same way);
* **strided**: ``stride > 0`` and ``(kb + 1) % stride == 0`` (the last block of every ``stride``: the "summary"
  columns of the Sparse Transformer's fixed pattern, Phi-3-small's ``blocksparse_vert_stride``).

Inside a visible block the query at ``p`` sees the keys ``k <= p`` (causal), so the diagonal block is causal per
token and every earlier visible block is seen whole. ``local_blocks >= 1`` always keeps a query's own block: every
query sees at least itself. The pattern is a function of absolute positions only, so a prompt gives the same
attention whether it is prefilled in one chunk or several, or resumed from a prefix-cache hit.

The kernels (``kernels.reference.block_sparse_attention``, ``kernels.cpu``, ``kernels.triton``) run one loop per
query block over ``key_blocks(qb)``: the other blocks are never read. ``block_mask`` and ``token_mask`` are the
same rule as tensors (the reference's mask; the tests' expectations).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass(frozen=True, slots=True)
class BlockSparsePattern:
    block_size: int  # tokens per block (queries and keys alike); a power of two, at least 16
    local_blocks: int = 4  # the query's own block and the ones right before it
    global_blocks: int = 1  # the first blocks of the sequence
    stride: int = 0  # every stride-th block (the last of each group of stride); 0: none

    def __post_init__(self) -> None:
        if self.block_size < 16 or self.block_size & (self.block_size - 1):
            raise ValueError(f"block-sparse block_size must be a power of two >= 16, got {self.block_size}")
        if self.local_blocks < 1:
            raise ValueError("block-sparse local_blocks must be at least 1 (a query's own block)")
        if self.global_blocks < 0 or self.stride < 0:
            raise ValueError("block-sparse global_blocks and stride must not be negative")

    def as_ints(self) -> list[int]:
        """``[block_size, local_blocks, global_blocks, stride]``: what the C++ op and ``warden::paged_attention``
        take."""
        return [self.block_size, self.local_blocks, self.global_blocks, self.stride]

    @classmethod
    def from_ints(cls, values: list[int] | tuple[int, ...]) -> BlockSparsePattern:
        block_size, local_blocks, global_blocks, stride = values
        return cls(block_size, local_blocks, global_blocks, stride)

    def sees(self, q_block: int, k_block: int) -> bool:
        """Whether query block ``q_block`` attends to key block ``k_block`` (causal: never a later block)."""
        if k_block > q_block or k_block < 0:
            return False
        return (k_block < self.global_blocks or q_block - k_block < self.local_blocks
                or (self.stride > 0 and (k_block + 1) % self.stride == 0))

    def key_blocks(self, q_block: int) -> list[int]:
        """The key blocks query block ``q_block`` reads, ascending: the kernels' loop."""
        return [k for k in range(q_block + 1) if self.sees(q_block, k)]

    def block_mask(self, num_q_blocks: int, num_k_blocks: int, device: torch.device | None = None) -> torch.Tensor:
        """Bool ``[num_q_blocks, num_k_blocks]``: entry ``[qb, kb]`` is ``sees(qb, kb)``."""
        qb = torch.arange(num_q_blocks, device=device)[:, None]
        kb = torch.arange(num_k_blocks, device=device)[None, :]
        return self._visible(qb, kb)

    def token_mask(self, q_pos: torch.Tensor, k_pos: torch.Tensor) -> torch.Tensor:
        """Bool, broadcast of ``q_pos`` against ``k_pos`` (absolute positions): the query sees the key."""
        return self._visible(q_pos // self.block_size, k_pos // self.block_size) & (k_pos <= q_pos)

    def _visible(self, qb: torch.Tensor, kb: torch.Tensor) -> torch.Tensor:
        seen = (kb < self.global_blocks) | (qb - kb < self.local_blocks)
        if self.stride > 0:
            seen = seen | ((kb + 1) % self.stride == 0)
        return seen & (kb <= qb)

    def covers_everything(self, seq_len: int) -> bool:
        """Whether every causal block pair of a sequence of ``seq_len`` tokens is visible (then the pattern is
        dense attention)."""
        blocks = -(-seq_len // self.block_size)
        return bool(self.block_mask(blocks, blocks).sum() == blocks * (blocks + 1) // 2)


def query_blocks(seq_len: int, query_len: int, block_size: int) -> range:
    """The query blocks of a chunk of ``query_len`` queries ending at ``seq_len`` (the kernels' tasks, in order)."""
    return range((seq_len - query_len) // block_size, (seq_len - 1) // block_size + 1)


def visited_key_blocks(pattern: BlockSparsePattern, seq_lens: list[int], query_lens: list[int]) -> list[list[int]]:
    """Per sequence of a batch, per query block of its chunk (``query_blocks``): how many key blocks the kernels
    read. Dense causal attention reads ``qb + 1``."""
    return [[len(pattern.key_blocks(qb)) for qb in query_blocks(s, q, pattern.block_size)]
            for s, q in zip(seq_lens, query_lens, strict=True)]


def max_query_blocks(max_query_len: int, block_size: int) -> int:
    """The most query blocks (``len(query_blocks(...))``) a chunk of at most ``max_query_len`` queries spans,
    starting anywhere inside a block."""
    return (max_query_len + 2 * block_size - 2) // block_size
