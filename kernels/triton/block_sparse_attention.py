"""Block-sparse causal attention over the paged KV cache (``kernels.block_sparse`` defines the pattern): a
flash-attention loop per (sequence, query heads of one KV head, tile of one query block) that reads only the key
blocks the pattern shows the query block.

Every sequence of the batch runs here, decodes included as chunks of one query, so a block-sparse model attends by
its pattern at every position. A program's query rows all lie in one query block (``block_size`` tokens, split into
tiles of ``tokens_per_program`` when the block's rows times the GQA group exceed the tile), so they share one list
of visible key blocks: the loop walks the key blocks up to the diagonal and branches past the ones the pattern
leaves out (no load, no dot), then runs the usual online softmax over the visible ones in tiles of ``BLOCK_N`` keys.
Only the diagonal block is masked per token (causal). Soft-capping (Gemma 2) turns each score ``s`` into
``c * tanh(s / c)``.

No host synchronisation: the launch is sized by ``meta.max_query_len`` (an upper bound is fine) and programs past a
chunk's query blocks return at once. ``visits`` (optional, int32/int64 ``[num_seqs, max_query_blocks]``) receives,
per sequence and query block, how many key blocks its programs read, for the tests.
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl

from kernels.attention_metadata import AttentionMetadata
from kernels.block_sparse import BlockSparsePattern, max_query_blocks
from kernels.triton.paged_attention import _dot_pad, _soft_cap


@triton.jit
def _block_sparse_kernel(
    q_ptr, k_cache_ptr, v_cache_ptr, block_tables_ptr, seq_lens_ptr, query_start_loc_ptr, out_ptr, visits_ptr,
    scale, softcap, local_blocks, global_blocks, stride,
    q_stride_t, q_stride_h, out_stride_t, out_stride_h, bt_stride, visits_stride,
    k_stride_block, k_stride_slot, k_stride_head, v_stride_block, v_stride_slot, v_stride_head,
    QUERIES_PER_KV: tl.constexpr, HEADS_PER_PROGRAM: tl.constexpr, TOKENS_PER_PROGRAM: tl.constexpr,
    TILES_PER_BLOCK: tl.constexpr, SPARSE_BLOCK: tl.constexpr,
    HEAD_DIM: tl.constexpr, HEAD_DIM_PAD: tl.constexpr, CACHE_BLOCK: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, PRECISION: tl.constexpr, SOFTCAP: tl.constexpr,
    COUNT: tl.constexpr,
):
    seq = tl.program_id(0).to(tl.int64)
    first_head = tl.program_id(1) * HEADS_PER_PROGRAM
    index = tl.program_id(2) // TILES_PER_BLOCK  # the chunk's index-th query block
    tile_in_block = tl.program_id(2) % TILES_PER_BLOCK
    q_start = tl.load(query_start_loc_ptr + seq)
    q_len = tl.load(query_start_loc_ptr + seq + 1) - q_start
    seq_len = tl.load(seq_lens_ptr + seq)
    first_pos = seq_len - q_len
    qb = first_pos // SPARSE_BLOCK + index
    block_begin = tl.maximum(first_pos, qb * SPARSE_BLOCK)
    block_end = tl.minimum(seq_len, (qb + 1) * SPARSE_BLOCK)
    tile_begin = block_begin + tile_in_block * TOKENS_PER_PROGRAM
    if q_len <= 0 or tile_begin >= block_end:
        return
    kv_head = first_head // QUERIES_PER_KV

    # Row r is the query at position tile_begin + r // HEADS_PER_PROGRAM, query head first_head + r % HEADS.
    r = tl.arange(0, BLOCK_M)
    q_pos = tile_begin + r // HEADS_PER_PROGRAM
    heads = first_head + r % HEADS_PER_PROGRAM
    row_mask = (r < TOKENS_PER_PROGRAM * HEADS_PER_PROGRAM) & (q_pos < block_end)
    dims = tl.arange(0, HEAD_DIM_PAD)
    dim_mask = dims < HEAD_DIM
    qd_mask = row_mask[:, None] & dim_mask[None, :]
    tokens = (q_start + q_pos - first_pos).to(tl.int64)
    q = tl.load(q_ptr + (tokens * q_stride_t + heads * q_stride_h)[:, None] + dims[None, :], mask=qd_mask, other=0.0)
    q = (q.to(tl.float32) * scale).to(k_cache_ptr.dtype.element_ty)

    m = tl.full([BLOCK_M], float("-inf"), tl.float32)
    row_sum = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM_PAD], tl.float32)
    table = block_tables_ptr + seq * bt_stride
    # Keys past this program's last query are seen by none of its rows (only the diagonal block has any).
    kv_end = tl.minimum(block_end, tile_begin + TOKENS_PER_PROGRAM)
    visited = qb * 0  # a tensor, so the interpreter's count is one too
    for kb in range(0, qb + 1):
        seen = (kb < global_blocks) | (qb - kb < local_blocks)
        seen = seen | ((stride > 0) & ((kb + 1) % tl.maximum(stride, 1) == 0))
        if seen:
            visited += 1
            key_end = tl.minimum((kb + 1) * SPARSE_BLOCK, kv_end)
            for tile in range(kb * SPARSE_BLOCK, key_end, BLOCK_N):
                n = tile + tl.arange(0, BLOCK_N)
                n_mask = n < key_end
                physical = tl.load(table + n // CACHE_BLOCK, mask=n_mask, other=0).to(tl.int64)
                k = tl.load(k_cache_ptr + (physical * k_stride_block + (n % CACHE_BLOCK) * k_stride_slot)[:, None]
                            + kv_head * k_stride_head + dims[None, :],
                            mask=n_mask[:, None] & dim_mask[None, :], other=0.0)
                s = tl.dot(q, tl.trans(k), input_precision=PRECISION)
                if SOFTCAP:
                    s = _soft_cap(s, softcap)
                s = tl.where(n_mask[None, :] & (n[None, :] <= q_pos[:, None]), s, float("-inf"))
                m_new = tl.maximum(m, tl.max(s, axis=1))
                # A padding row past the block may see nothing in a tile: exp against 0 then (p = 0).
                m_safe = tl.where(m_new == float("-inf"), 0.0, m_new)
                p = tl.exp(s - m_safe[:, None])
                alpha = tl.exp(m - m_safe)
                v = tl.load(v_cache_ptr + (physical * v_stride_block + (n % CACHE_BLOCK) * v_stride_slot)[:, None]
                            + kv_head * v_stride_head + dims[None, :],
                            mask=n_mask[:, None] & dim_mask[None, :], other=0.0)
                row_sum = row_sum * alpha + tl.sum(p, axis=1)
                acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v, input_precision=PRECISION)
                m = m_new
    out = acc / tl.where(row_sum > 0, row_sum, 1.0)[:, None]
    tl.store(out_ptr + (tokens * out_stride_t + heads * out_stride_h)[:, None] + dims[None, :],
             out.to(out_ptr.dtype.element_ty), mask=qd_mask)
    if COUNT:
        tl.atomic_max(visits_ptr + seq * visits_stride + index, visited.to(visits_ptr.dtype.element_ty))


def block_sparse_attention(
    q: torch.Tensor,  # [num_tokens, num_heads, head_dim]
    k_cache: torch.Tensor,  # [num_blocks, block_size, num_kv_heads, head_dim]
    v_cache: torch.Tensor,
    meta: AttentionMetadata,
    scale: float,
    pattern: BlockSparsePattern,
    softcap: float = 0.0,
    visits: torch.Tensor | None = None,
    *,
    block_m: int = 64,
    block_n: int = 64,
    num_warps: int = 4,
    num_stages: int = 2,
) -> torch.Tensor:
    """``kernels.reference.block_sparse_attention`` for every query of the batch (decodes and prefill chunks)."""
    assert q.stride(-1) == k_cache.stride(-1) == v_cache.stride(-1) == 1
    assert q.shape[1] % k_cache.shape[2] == 0, "query heads must be a multiple of KV heads"
    num_heads, head_dim = q.shape[1], q.shape[2]
    cache_block, kv_heads = k_cache.shape[1], k_cache.shape[2]
    group = num_heads // kv_heads
    out = torch.empty_like(q, memory_format=torch.contiguous_format)
    sparse = pattern.block_size
    rows = max(min(_dot_pad(block_m), _dot_pad(min(meta.max_query_len, sparse) * group)), _dot_pad(group))
    tokens = min(rows // group, sparse)
    tiles_per_block = triton.cdiv(sparse, tokens)
    query_blocks = max_query_blocks(meta.max_query_len, sparse)
    _block_sparse_kernel[(meta.num_seqs, kv_heads, query_blocks * tiles_per_block)](
        q, k_cache, v_cache, meta.block_tables, meta.seq_lens, meta.query_start_loc, out,
        visits if visits is not None else out,
        scale, softcap, pattern.local_blocks, pattern.global_blocks, pattern.stride,
        q.stride(0), q.stride(1), out.stride(0), out.stride(1), meta.block_tables.stride(0),
        visits.stride(0) if visits is not None else 0,
        k_cache.stride(0), k_cache.stride(1), k_cache.stride(2),
        v_cache.stride(0), v_cache.stride(1), v_cache.stride(2),
        QUERIES_PER_KV=group, HEADS_PER_PROGRAM=group, TOKENS_PER_PROGRAM=tokens, TILES_PER_BLOCK=tiles_per_block,
        SPARSE_BLOCK=sparse, HEAD_DIM=head_dim, HEAD_DIM_PAD=_dot_pad(head_dim), CACHE_BLOCK=cache_block,
        BLOCK_M=rows, BLOCK_N=min(_dot_pad(block_n), sparse),
        PRECISION="ieee" if k_cache.dtype == torch.float32 else "tf32", SOFTCAP=softcap > 0, COUNT=visits is not None,
        num_warps=num_warps, num_stages=num_stages,
    )
    return out
