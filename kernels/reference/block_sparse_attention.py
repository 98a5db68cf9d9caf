"""Reference block-sparse paged attention: every sequence of the batch (decodes are chunks of one query) against
its whole gathered context, masked by ``kernels.block_sparse.BlockSparsePattern.token_mask``.

Plain batched torch, as the dense reference's prefill path: each sequence's blocks are gathered from the paged
cache through its block-table row and run through ``scaled_dot_product_attention`` (or the explicit softmax under
soft-capping) with the pattern's boolean mask. It reads every block of the context and masks the ones the pattern
leaves out: the definition the skipping kernels (``kernels.cpu``, ``kernels.triton``) are checked against, not a
fast path.
"""

from __future__ import annotations

import torch

from kernels.attention_metadata import AttentionMetadata
from kernels.block_sparse import BlockSparsePattern
from kernels.reference.paged_attention import _attend, _gather_blocks


def block_sparse_attention(
    q: torch.Tensor,  # [num_tokens, num_heads, head_dim]
    k_cache: torch.Tensor,  # [num_blocks, block_size, num_kv_heads, head_dim]
    v_cache: torch.Tensor,
    meta: AttentionMetadata,
    scale: float,
    pattern: BlockSparsePattern,
    softcap: float = 0.0,
) -> torch.Tensor:
    """Attention output ``[num_tokens, num_heads, head_dim]`` of every query (decodes and prefill chunks alike)
    under ``pattern``; this step's keys and values must already be in the cache."""
    block_size, kv_heads, head_dim = k_cache.shape[1], k_cache.shape[2], k_cache.shape[3]
    start = meta.query_start_loc[:-1].long()
    q_lens = meta.query_start_loc[1:].long() - start
    seq_lens = meta.seq_lens.long()
    num_seqs = seq_lens.shape[0]
    max_q = int(q_lens.max())  # not meta.max_query_len: decodes count here, and a bound may be loose
    nb = -(-int(seq_lens.max()) // block_size)
    physical, logical = _gather_blocks(meta.block_tables, torch.zeros_like(seq_lens), nb)
    k = k_cache.index_select(0, physical.reshape(-1)).view(num_seqs, nb * block_size, kv_heads, head_dim)
    v = v_cache.index_select(0, physical.reshape(-1)).view(num_seqs, nb * block_size, kv_heads, head_dim)
    offs = torch.arange(max_q, device=q.device)
    valid = offs[None, :] < q_lens[:, None]  # [S, max_q]
    rows = torch.where(valid, start[:, None] + offs[None, :], start[:, None])  # padded rows repeat row 0
    first_pos = seq_lens - q_lens
    q_pos = first_pos[:, None] + offs[None, :]
    # Padded query rows take a real row's mask (never all-False, which would give NaN); dropped below.
    q_pos = torch.where(valid, q_pos, first_pos[:, None]).unsqueeze(-1)  # [S, max_q, 1]
    key_pos = ((logical * block_size).unsqueeze(-1) + torch.arange(block_size, device=q.device)).view(num_seqs, 1, -1)
    mask = pattern.token_mask(q_pos, key_pos)  # [S, max_q, Lk]; causal, so never past the context
    result = _attend(q[rows].transpose(1, 2), k.to(q.dtype).transpose(1, 2), v.to(q.dtype).transpose(1, 2),
                     mask.unsqueeze(1), scale, softcap).transpose(1, 2)  # [S, max_q, H, D]
    out = torch.empty_like(q)
    out[rows[valid]] = result[valid]
    return out
