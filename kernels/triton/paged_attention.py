"""Paged attention over block tables: a split-K decode kernel and a flash-style prefill kernel.

Decode (sequences ``0 .. num_decodes-1``, one query each) is memory-bound: every program streams one KV head's
keys and values of one context *partition* through the block table, computing all the query heads that share
that KV head at once (GQA: the cache is read once per group, not once per query head). Partitions give enough
programs to fill the GPU at small batch sizes; a second kernel merges their partial softmax states. Programs
whose partition starts past the sequence's length return at once, so a launch sized for an upper bound on the
context (what a CUDA graph needs) costs only empty programs.

Prefill chunks (the remaining sequences, one or more queries each, possibly continuing earlier chunks) run a
flash-attention loop per (sequence, head, block of queries) over the cached keys up to each query's position.

Scores and softmax state are float32; Q·K and P·V run in the cache dtype on tensor cores with float32
accumulation (IEEE float32 when the data is float32, so float32 tests compare tightly with the reference).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import torch
import triton
import triton.language as tl

from kernels.attention_metadata import AttentionMetadata


@dataclass(frozen=True, slots=True)
class DecodeConfig:
    block_n: int = 64  # keys per inner-loop tile
    # Keys per program; longer contexts are split and merged. None: chosen per launch so that the grid has
    # about two programs per SM (small batches split finely, large ones hardly at all).
    partition: int | None = None
    num_warps: int = 4
    num_stages: int = 3


@dataclass(frozen=True, slots=True)
class PrefillConfig:
    block_m: int = 64
    block_n: int = 64
    num_warps: int = 4
    num_stages: int = 2


DEFAULT_DECODE = DecodeConfig()
DEFAULT_PREFILL = PrefillConfig()


@triton.jit
def _load_kv_tile(cache_ptr, block_table_row, n, n_mask, kv_head, dims, dim_mask,
                  stride_block, stride_slot, stride_head, BLOCK_SIZE: tl.constexpr):
    """``[len(n), HEAD_DIM_PAD]`` keys (or values) of token positions ``n``, looked up through the block table."""
    physical = tl.load(block_table_row + n // BLOCK_SIZE, mask=n_mask, other=0).to(tl.int64)
    rows = physical * stride_block + (n % BLOCK_SIZE) * stride_slot + kv_head * stride_head
    return tl.load(cache_ptr + rows[:, None] + dims[None, :], mask=n_mask[:, None] & dim_mask[None, :], other=0.0)


@triton.jit
def _decode_kernel(
    q_ptr, k_cache_ptr, v_cache_ptr, block_tables_ptr, seq_lens_ptr,
    out_ptr, part_m_ptr, part_l_ptr, part_acc_ptr,
    scale,
    q_stride_t, q_stride_h, out_stride_t, out_stride_h, bt_stride,
    k_stride_block, k_stride_slot, k_stride_head, v_stride_block, v_stride_slot, v_stride_head,
    num_heads, max_partitions,
    QUERIES_PER_KV: tl.constexpr, GROUP_PAD: tl.constexpr, HEAD_DIM: tl.constexpr, HEAD_DIM_PAD: tl.constexpr,
    BLOCK_SIZE: tl.constexpr, BLOCK_N: tl.constexpr, PARTITION: tl.constexpr, SPLIT: tl.constexpr,
    PRECISION: tl.constexpr,
):
    seq = tl.program_id(0).to(tl.int64)
    kv_head = tl.program_id(1)
    part = tl.program_id(2)
    seq_len = tl.load(seq_lens_ptr + seq)
    start = part * PARTITION
    # Partitions past the context have nothing to do. Partition 0 always runs, so an empty context (a CUDA graph's
    # padding row) still leaves a defined result: zeros, or an empty partial state the merge turns into zeros.
    if start >= tl.maximum(seq_len, 1):
        return
    end = tl.minimum(start + PARTITION, seq_len)

    group = tl.arange(0, GROUP_PAD)
    heads = kv_head * QUERIES_PER_KV + group
    head_mask = group < QUERIES_PER_KV
    dims = tl.arange(0, HEAD_DIM_PAD)
    dim_mask = dims < HEAD_DIM
    qd_mask = head_mask[:, None] & dim_mask[None, :]
    q = tl.load(q_ptr + seq * q_stride_t + heads[:, None] * q_stride_h + dims[None, :], mask=qd_mask, other=0.0)
    q = (q.to(tl.float32) * scale).to(k_cache_ptr.dtype.element_ty)

    m = tl.full([GROUP_PAD], float("-inf"), tl.float32)
    row_sum = tl.zeros([GROUP_PAD], tl.float32)
    acc = tl.zeros([GROUP_PAD, HEAD_DIM_PAD], tl.float32)
    table = block_tables_ptr + seq * bt_stride
    for tile in range(start, end, BLOCK_N):
        n = tile + tl.arange(0, BLOCK_N)
        n_mask = n < end
        k = _load_kv_tile(k_cache_ptr, table, n, n_mask, kv_head, dims, dim_mask,
                          k_stride_block, k_stride_slot, k_stride_head, BLOCK_SIZE)
        s = tl.dot(q, tl.trans(k), input_precision=PRECISION)
        s = tl.where(n_mask[None, :], s, float("-inf"))
        m_new = tl.maximum(m, tl.max(s, axis=1))
        p = tl.exp(s - m_new[:, None])
        alpha = tl.exp(m - m_new)
        v = _load_kv_tile(v_cache_ptr, table, n, n_mask, kv_head, dims, dim_mask,
                          v_stride_block, v_stride_slot, v_stride_head, BLOCK_SIZE)
        row_sum = row_sum * alpha + tl.sum(p, axis=1)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v, input_precision=PRECISION)
        m = m_new

    if SPLIT:
        # Unnormalized partial state of this partition, merged by _merge_partitions_kernel.
        idx = (seq * num_heads + heads) * max_partitions + part
        tl.store(part_m_ptr + idx, m, mask=head_mask)
        tl.store(part_l_ptr + idx, row_sum, mask=head_mask)
        tl.store(part_acc_ptr + idx[:, None] * HEAD_DIM_PAD + dims[None, :], acc, mask=head_mask[:, None])
    else:
        # row_sum == 0 only for an empty context (padding rows of a CUDA graph): write zeros rather than NaN.
        out = acc / tl.where(row_sum > 0, row_sum, 1.0)[:, None]
        tl.store(out_ptr + seq * out_stride_t + heads[:, None] * out_stride_h + dims[None, :],
                 out.to(out_ptr.dtype.element_ty), mask=qd_mask)


@triton.jit
def _merge_partitions_kernel(
    out_ptr, part_m_ptr, part_l_ptr, part_acc_ptr, seq_lens_ptr,
    out_stride_t, out_stride_h, num_heads, max_partitions,
    HEAD_DIM: tl.constexpr, HEAD_DIM_PAD: tl.constexpr, PARTITION: tl.constexpr, PARTITIONS_PAD: tl.constexpr,
):
    seq = tl.program_id(0).to(tl.int64)
    head = tl.program_id(1)
    used = tl.cdiv(tl.load(seq_lens_ptr + seq), PARTITION)
    parts = tl.arange(0, PARTITIONS_PAD)
    part_mask = parts < used
    base = (seq * num_heads + head) * max_partitions
    m = tl.load(part_m_ptr + base + parts, mask=part_mask, other=float("-inf"))
    row_sum = tl.load(part_l_ptr + base + parts, mask=part_mask, other=0.0)
    m_max = tl.max(m, axis=0)
    m_max = tl.where(m_max == float("-inf"), 0.0, m_max)  # empty context (graph padding row): no NaN
    weight = tl.where(part_mask, tl.exp(m - m_max), 0.0)
    denom = tl.sum(weight * row_sum, axis=0)
    dims = tl.arange(0, HEAD_DIM_PAD)
    acc = tl.load(part_acc_ptr + (base + parts)[:, None] * HEAD_DIM_PAD + dims[None, :],
                  mask=part_mask[:, None], other=0.0)
    out = tl.sum(weight[:, None] * acc, axis=0) / tl.where(denom > 0, denom, 1.0)
    tl.store(out_ptr + seq * out_stride_t + head * out_stride_h + dims, out.to(out_ptr.dtype.element_ty),
             mask=dims < HEAD_DIM)


@triton.jit
def _prefill_kernel(
    q_ptr, k_cache_ptr, v_cache_ptr, block_tables_ptr, seq_lens_ptr, query_start_loc_ptr, out_ptr,
    scale, first_seq,
    q_stride_t, q_stride_h, out_stride_t, out_stride_h, bt_stride,
    k_stride_block, k_stride_slot, k_stride_head, v_stride_block, v_stride_slot, v_stride_head,
    QUERIES_PER_KV: tl.constexpr, HEAD_DIM: tl.constexpr, HEAD_DIM_PAD: tl.constexpr, BLOCK_SIZE: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, PRECISION: tl.constexpr,
):
    seq = first_seq + tl.program_id(0).to(tl.int64)
    head = tl.program_id(1)
    q_block = tl.program_id(2)
    q_start = tl.load(query_start_loc_ptr + seq)
    q_len = tl.load(query_start_loc_ptr + seq + 1) - q_start
    if q_block * BLOCK_M >= q_len:
        return
    seq_len = tl.load(seq_lens_ptr + seq)
    kv_head = head // QUERIES_PER_KV

    rows = q_block * BLOCK_M + tl.arange(0, BLOCK_M)
    row_mask = rows < q_len
    q_pos = seq_len - q_len + rows  # absolute position of each query; it sees keys 0 ..= q_pos
    dims = tl.arange(0, HEAD_DIM_PAD)
    dim_mask = dims < HEAD_DIM
    qd_mask = row_mask[:, None] & dim_mask[None, :]
    tokens = (q_start + rows).to(tl.int64)
    q = tl.load(q_ptr + tokens[:, None] * q_stride_t + head * q_stride_h + dims[None, :], mask=qd_mask, other=0.0)
    q = (q.to(tl.float32) * scale).to(k_cache_ptr.dtype.element_ty)

    m = tl.full([BLOCK_M], float("-inf"), tl.float32)
    row_sum = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM_PAD], tl.float32)
    table = block_tables_ptr + seq * bt_stride
    # Keys past the last query of this block are never visible to it.
    kv_end = tl.minimum(seq_len, seq_len - q_len + (q_block + 1) * BLOCK_M)
    for tile in range(0, kv_end, BLOCK_N):
        n = tile + tl.arange(0, BLOCK_N)
        n_mask = n < kv_end
        k = _load_kv_tile(k_cache_ptr, table, n, n_mask, kv_head, dims, dim_mask,
                          k_stride_block, k_stride_slot, k_stride_head, BLOCK_SIZE)
        s = tl.dot(q, tl.trans(k), input_precision=PRECISION)
        # Every row keeps key 0 (q_pos >= 0), so no row is ever all -inf and m stays finite after tile 0.
        visible = n_mask[None, :] & (n[None, :] <= q_pos[:, None])
        s = tl.where(visible, s, float("-inf"))
        m_new = tl.maximum(m, tl.max(s, axis=1))
        p = tl.exp(s - m_new[:, None])
        alpha = tl.exp(m - m_new)
        v = _load_kv_tile(v_cache_ptr, table, n, n_mask, kv_head, dims, dim_mask,
                          v_stride_block, v_stride_slot, v_stride_head, BLOCK_SIZE)
        row_sum = row_sum * alpha + tl.sum(p, axis=1)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v, input_precision=PRECISION)
        m = m_new
    out = acc / row_sum[:, None]
    tl.store(out_ptr + tokens[:, None] * out_stride_t + head * out_stride_h + dims[None, :],
             out.to(out_ptr.dtype.element_ty), mask=qd_mask)


def _precision(dtype: torch.dtype) -> str:
    return "ieee" if dtype == torch.float32 else "tf32"


def _dot_pad(n: int) -> int:
    """tl.dot needs every dimension to be a power of two of at least 16."""
    return max(16, triton.next_power_of_2(n))


MAX_PARTITION = 1024


@cache
def _sm_count(device: torch.device) -> int:
    if device.type != "cuda":
        return 8  # the interpreter: small partitions, so small test contexts exercise the split path
    return torch.cuda.get_device_properties(device).multi_processor_count


MIN_WIDE_PARTITION = 128


def _partition_size(config: DecodeConfig, block_n: int, num_seqs: int, kv_heads: int, max_len: int,
                    device: torch.device) -> int:
    """Keys per program. With enough work, the largest power of two that still gives every SM at least four
    programs: the H200 sweep in bench/results/kernels.json found 256 (SmolLM2 layout) and 512 (8B-like) best at
    B=16, 4k context, where ~2 programs per SM rounded up to 1024 reached 28% / 58% of peak instead of 45% / 72%,
    and 1024 best at B>=64. With little work (one short sequence), fewer, larger programs: each partition adds
    a merge, and ~2 per SM was the measured best there."""
    if config.partition is not None:
        return max(config.partition, block_n)
    keys = num_seqs * kv_heads * max_len
    sms = _sm_count(device)
    wide = keys // (4 * sms)
    if wide >= MIN_WIDE_PARTITION:
        return min(1 << (wide.bit_length() - 1), MAX_PARTITION)
    return min(max(triton.next_power_of_2(max(keys // (2 * sms), 1)), block_n), MAX_PARTITION)


def decode_attention(q: torch.Tensor, k_cache: torch.Tensor, v_cache: torch.Tensor, meta: AttentionMetadata,
                     scale: float, out: torch.Tensor, config: DecodeConfig = DEFAULT_DECODE) -> None:
    """Attention of the ``meta.num_decodes`` leading single-token queries, written into ``out``.

    ``meta.max_decode_seq_len`` only bounds the launch (an upper bound is fine: CUDA graphs pass the model
    length)."""
    nd = meta.num_decodes
    num_heads, head_dim = q.shape[1], q.shape[2]
    block_size, kv_heads = k_cache.shape[1], k_cache.shape[2]
    group = num_heads // kv_heads
    head_dim_pad = _dot_pad(head_dim)
    block_n = _dot_pad(config.block_n)
    partition = _partition_size(config, block_n, nd, kv_heads, meta.max_decode_seq_len, q.device)
    partitions = max(1, triton.cdiv(meta.max_decode_seq_len, partition))
    split = partitions > 1
    if split:
        part_m = torch.empty((nd, num_heads, partitions), dtype=torch.float32, device=q.device)
        part_l = torch.empty_like(part_m)
        part_acc = torch.empty((nd, num_heads, partitions, head_dim_pad), dtype=torch.float32, device=q.device)
    else:
        part_m = part_l = part_acc = out  # unused by the kernel
    _decode_kernel[(nd, kv_heads, partitions)](
        q, k_cache, v_cache, meta.block_tables, meta.seq_lens, out, part_m, part_l, part_acc,
        scale,
        q.stride(0), q.stride(1), out.stride(0), out.stride(1), meta.block_tables.stride(0),
        k_cache.stride(0), k_cache.stride(1), k_cache.stride(2),
        v_cache.stride(0), v_cache.stride(1), v_cache.stride(2),
        num_heads, partitions,
        QUERIES_PER_KV=group, GROUP_PAD=_dot_pad(group), HEAD_DIM=head_dim, HEAD_DIM_PAD=head_dim_pad,
        BLOCK_SIZE=block_size, BLOCK_N=block_n, PARTITION=partition, SPLIT=split,
        PRECISION=_precision(k_cache.dtype), num_warps=config.num_warps, num_stages=config.num_stages,
    )
    if split:
        _merge_partitions_kernel[(nd, num_heads)](
            out, part_m, part_l, part_acc, meta.seq_lens,
            out.stride(0), out.stride(1), num_heads, partitions,
            HEAD_DIM=head_dim, HEAD_DIM_PAD=head_dim_pad, PARTITION=partition,
            PARTITIONS_PAD=triton.next_power_of_2(partitions),
        )


def prefill_attention(q: torch.Tensor, k_cache: torch.Tensor, v_cache: torch.Tensor, meta: AttentionMetadata,
                      scale: float, out: torch.Tensor, config: PrefillConfig = DEFAULT_PREFILL) -> None:
    """Causal attention of the prefill chunks (sequences after the decodes), written into ``out``."""
    nd = meta.num_decodes
    num_prefills = meta.num_seqs - nd
    num_heads, head_dim = q.shape[1], q.shape[2]
    block_size, kv_heads = k_cache.shape[1], k_cache.shape[2]
    block_m = min(config.block_m, _dot_pad(meta.max_query_len))
    _prefill_kernel[(num_prefills, num_heads, triton.cdiv(meta.max_query_len, block_m))](
        q, k_cache, v_cache, meta.block_tables, meta.seq_lens, meta.query_start_loc, out,
        scale, nd,
        q.stride(0), q.stride(1), out.stride(0), out.stride(1), meta.block_tables.stride(0),
        k_cache.stride(0), k_cache.stride(1), k_cache.stride(2),
        v_cache.stride(0), v_cache.stride(1), v_cache.stride(2),
        QUERIES_PER_KV=num_heads // kv_heads, HEAD_DIM=head_dim, HEAD_DIM_PAD=_dot_pad(head_dim),
        BLOCK_SIZE=block_size, BLOCK_M=block_m, BLOCK_N=_dot_pad(config.block_n),
        PRECISION=_precision(k_cache.dtype), num_warps=config.num_warps, num_stages=config.num_stages,
    )


def paged_attention(
    q: torch.Tensor,  # [num_tokens, num_heads, head_dim]
    k_cache: torch.Tensor,  # [num_blocks, block_size, num_kv_heads, head_dim]
    v_cache: torch.Tensor,
    meta: AttentionMetadata,
    scale: float,
) -> torch.Tensor:
    assert q.stride(-1) == k_cache.stride(-1) == v_cache.stride(-1) == 1
    assert q.shape[1] % k_cache.shape[2] == 0, "query heads must be a multiple of KV heads"
    out = torch.empty_like(q, memory_format=torch.contiguous_format)
    if meta.num_decodes:
        decode_attention(q, k_cache, v_cache, meta, scale, out)
    if meta.num_seqs > meta.num_decodes:
        prefill_attention(q, k_cache, v_cache, meta, scale, out)
    return out
