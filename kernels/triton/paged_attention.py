"""Paged attention over block tables: a split-K decode kernel and a flash-style prefill kernel.

Decode (sequences ``0 .. num_decodes-1``, one query each) is memory-bound: every program streams the keys and
values of one context *partition* of one or more KV heads through the block table, computing all the query heads
that share those KV heads at once (GQA: the cache is read once per group, not once per query head). With small
heads (SmolLM2: 3 KV heads of 64) one program takes all of a token's KV heads: its tiles are the cache's whole
contiguous rows (384 bytes rather than three 128-byte pieces read by three programs), and each tile carries three
times the bytes for the same softmax work. The query rows then form a block diagonal over the packed heads'
columns: a query's entries outside its own KV head's columns are zero, so one ``tl.dot`` gives every query head
its own scores, and of ``P @ V`` each row keeps its own head's columns. Partitions give enough programs to fill
the GPU at small batch sizes; a second kernel merges their partial softmax states. Programs
whose partition starts past the sequence's length return at once, so a launch sized for an upper bound on the
context (what a CUDA graph needs) costs only empty programs.

Prefill chunks (the remaining sequences, one or more queries each, possibly continuing earlier chunks) run a
flash-attention loop per (sequence, KV head, block of queries) over the cached keys up to each query's position.
A program's query rows are its block's tokens times the query heads sharing the KV head (GQA), so the keys and
values are read once per group rather than once per query head, and short chunks (a speculative verification
step's few tokens, which are memory-bound like decodes) fill the tile with heads instead of padding.

Sliding windows (``window = W > 0``, transformers' convention: the query at ``p`` sees keys ``p - W < k <= p``): a
decode program's loop starts at the window's first key, and a program whose partition lies wholly before it returns at
once (the merge leaves those partitions out); a prefill program's loop starts at the first key its earliest
query sees and masks the rest of the partial block per row. Blocks wholly before the window are never read (the
block manager may already have given them to another sequence). Soft-capping (``softcap = c > 0``, Gemma 2) turns
each score ``s`` into ``c * tanh(s / c)`` before the mask.

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
    # Keys per inner-loop tile. None: 64 for one KV head per program, 32 for packed heads (the tile is then
    # several heads wide, and its shared-memory stages grow with it).
    block_n: int | None = None
    # Keys per program; longer contexts are split and merged. None: chosen per launch from the number of
    # programs it gives (see _partition_size).
    partition: int | None = None
    num_warps: int = 4
    num_stages: int = 3
    # KV heads per program. None: packed up to PACKED_COLUMNS columns (see kv_heads_per_program).
    kv_heads_per_program: int | None = None


@dataclass(frozen=True, slots=True)
class PrefillConfig:
    # Query rows per program: tokens x the query heads it takes.
    block_m: int = 64
    block_n: int = 64
    num_warps: int = 4
    num_stages: int = 2
    # All the query heads of one KV head in one program (rows = tokens x heads), so each K/V tile is read once
    # per group rather than once per query head; False: one query head per program.
    pack_query_heads: bool = True


DEFAULT_DECODE = DecodeConfig()
DEFAULT_PREFILL = PrefillConfig()


@triton.jit
def _load_kv_tile(cache_ptr, block_table_row, n, n_mask, columns, column_mask,
                  stride_block, stride_slot, BLOCK_SIZE: tl.constexpr):
    """``[len(n), len(columns)]`` keys (or values) of token positions ``n``, looked up through the block table;
    ``columns`` are element offsets within a token's slot (head * stride_head + dim)."""
    physical = tl.load(block_table_row + n // BLOCK_SIZE, mask=n_mask, other=0).to(tl.int64)
    rows = physical * stride_block + (n % BLOCK_SIZE) * stride_slot
    return tl.load(cache_ptr + rows[:, None] + columns[None, :], mask=n_mask[:, None] & column_mask[None, :],
                   other=0.0)


@triton.jit
def _soft_cap(s, cap):
    """``cap * tanh(s / cap)``, from one exp of a non-positive argument (no overflow, full precision near 0)."""
    x = s / cap
    e = tl.exp(-2.0 * tl.abs(x))
    t = (1.0 - e) / (1.0 + e)
    return cap * tl.where(x < 0, -t, t)


@triton.jit
def _decode_kernel(
    q_ptr, k_cache_ptr, v_cache_ptr, block_tables_ptr, seq_lens_ptr,
    out_ptr, part_m_ptr, part_l_ptr, part_acc_ptr,
    scale, softcap,
    q_stride_t, q_stride_h, out_stride_t, out_stride_h, bt_stride,
    k_stride_block, k_stride_slot, k_stride_head, v_stride_block, v_stride_slot, v_stride_head,
    num_heads, kv_heads, max_partitions,
    QUERIES_PER_KV: tl.constexpr, KV_PER_PROGRAM: tl.constexpr, ROWS_PAD: tl.constexpr,
    HEAD_DIM: tl.constexpr, COLUMNS_PAD: tl.constexpr, PART_DIM: tl.constexpr,
    BLOCK_SIZE: tl.constexpr, BLOCK_N: tl.constexpr, PARTITION: tl.constexpr, SPLIT: tl.constexpr,
    PRECISION: tl.constexpr, WINDOW: tl.constexpr, SOFTCAP: tl.constexpr,
):
    seq = tl.program_id(0).to(tl.int64)
    first_kv = tl.program_id(1) * KV_PER_PROGRAM
    part = tl.program_id(2)
    seq_len = tl.load(seq_lens_ptr + seq)
    start = part * PARTITION
    # Partitions past the context have nothing to do. Partition 0 always runs, so an empty context (a CUDA graph's
    # padding row) still leaves a defined result: zeros, or an empty partial state the merge turns into zeros.
    if start >= tl.maximum(seq_len, 1):
        return
    end = tl.minimum(start + PARTITION, seq_len)
    if WINDOW > 0:
        # Keys before the window are never read: a partition wholly before it has nothing to do (the merge skips it).
        if end <= seq_len - WINDOW:
            return
        start = tl.maximum(start, seq_len - WINDOW)

    # Rows: the program's query heads (QUERIES_PER_KV per KV head); columns: its KV heads' dims side by side.
    rows = tl.arange(0, ROWS_PAD)
    row_kv = rows // QUERIES_PER_KV
    heads = first_kv * QUERIES_PER_KV + rows
    row_mask = (row_kv < KV_PER_PROGRAM) & (first_kv + row_kv < kv_heads)
    columns = tl.arange(0, COLUMNS_PAD)
    column_kv = columns // HEAD_DIM
    dims = columns % HEAD_DIM
    column_mask = (column_kv < KV_PER_PROGRAM) & (first_kv + column_kv < kv_heads)
    k_columns = (first_kv + column_kv) * k_stride_head + dims
    v_columns = (first_kv + column_kv) * v_stride_head + dims
    # A query's own KV head's columns: the only ones it reads or writes.
    own = row_mask[:, None] & column_mask[None, :] & (row_kv[:, None] == column_kv[None, :])
    q = tl.load(q_ptr + seq * q_stride_t + heads[:, None] * q_stride_h + dims[None, :], mask=own, other=0.0)
    q = (q.to(tl.float32) * scale).to(k_cache_ptr.dtype.element_ty)

    m = tl.full([ROWS_PAD], float("-inf"), tl.float32)
    row_sum = tl.zeros([ROWS_PAD], tl.float32)
    acc = tl.zeros([ROWS_PAD, COLUMNS_PAD], tl.float32)
    table = block_tables_ptr + seq * bt_stride
    for tile in range(start, end, BLOCK_N):
        n = tile + tl.arange(0, BLOCK_N)
        n_mask = n < end
        k = _load_kv_tile(k_cache_ptr, table, n, n_mask, k_columns, column_mask,
                          k_stride_block, k_stride_slot, BLOCK_SIZE)
        s = tl.dot(q, tl.trans(k), input_precision=PRECISION)
        if SOFTCAP:
            s = _soft_cap(s, softcap)
        s = tl.where(n_mask[None, :], s, float("-inf"))
        m_new = tl.maximum(m, tl.max(s, axis=1))
        p = tl.exp(s - m_new[:, None])
        alpha = tl.exp(m - m_new)
        v = _load_kv_tile(v_cache_ptr, table, n, n_mask, v_columns, column_mask,
                          v_stride_block, v_stride_slot, BLOCK_SIZE)
        row_sum = row_sum * alpha + tl.sum(p, axis=1)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v, input_precision=PRECISION)
        m = m_new

    if SPLIT:
        # Unnormalized partial state of this partition, merged by _merge_partitions_kernel.
        idx = (seq * num_heads + heads) * max_partitions + part
        tl.store(part_m_ptr + idx, m, mask=row_mask)
        tl.store(part_l_ptr + idx, row_sum, mask=row_mask)
        tl.store(part_acc_ptr + idx[:, None] * PART_DIM + dims[None, :], acc, mask=own)
    else:
        # row_sum == 0 only for an empty context (padding rows of a CUDA graph): write zeros rather than NaN.
        out = acc / tl.where(row_sum > 0, row_sum, 1.0)[:, None]
        tl.store(out_ptr + seq * out_stride_t + heads[:, None] * out_stride_h + dims[None, :],
                 out.to(out_ptr.dtype.element_ty), mask=own)


@triton.jit
def _merge_partitions_kernel(
    out_ptr, part_m_ptr, part_l_ptr, part_acc_ptr, seq_lens_ptr,
    out_stride_t, out_stride_h, num_heads, max_partitions,
    HEAD_DIM: tl.constexpr, HEAD_DIM_PAD: tl.constexpr, PARTITION: tl.constexpr, PARTITIONS_PAD: tl.constexpr,
    WINDOW: tl.constexpr,
):
    seq = tl.program_id(0).to(tl.int64)
    head = tl.program_id(1)
    seq_len = tl.load(seq_lens_ptr + seq)
    used = tl.cdiv(seq_len, PARTITION)
    parts = tl.arange(0, PARTITIONS_PAD)
    part_mask = parts < used
    if WINDOW > 0:  # partitions wholly before the window returned without a state
        part_mask = part_mask & (parts >= tl.maximum(seq_len - WINDOW, 0) // PARTITION)
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
    scale, softcap, first_seq,
    q_stride_t, q_stride_h, out_stride_t, out_stride_h, bt_stride,
    k_stride_block, k_stride_slot, k_stride_head, v_stride_block, v_stride_slot, v_stride_head,
    QUERIES_PER_KV: tl.constexpr, HEADS_PER_PROGRAM: tl.constexpr, TOKENS_PER_PROGRAM: tl.constexpr,
    HEAD_DIM: tl.constexpr, HEAD_DIM_PAD: tl.constexpr, BLOCK_SIZE: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, PRECISION: tl.constexpr, WINDOW: tl.constexpr,
    SOFTCAP: tl.constexpr,
):
    seq = first_seq + tl.program_id(0).to(tl.int64)
    first_head = tl.program_id(1) * HEADS_PER_PROGRAM
    q_block = tl.program_id(2)
    q_start = tl.load(query_start_loc_ptr + seq)
    q_len = tl.load(query_start_loc_ptr + seq + 1) - q_start
    if q_block * TOKENS_PER_PROGRAM >= q_len:
        return
    seq_len = tl.load(seq_lens_ptr + seq)
    kv_head = first_head // QUERIES_PER_KV

    # Row r is query token r // HEADS_PER_PROGRAM of this block, of query head first_head + r % HEADS_PER_PROGRAM:
    # the heads sharing a KV head sit in one tile, so each key and value tile serves all of them.
    r = tl.arange(0, BLOCK_M)
    rows = q_block * TOKENS_PER_PROGRAM + r // HEADS_PER_PROGRAM  # the query's index within its chunk
    heads = first_head + r % HEADS_PER_PROGRAM
    row_mask = (r < TOKENS_PER_PROGRAM * HEADS_PER_PROGRAM) & (rows < q_len)
    q_pos = seq_len - q_len + rows  # absolute position of each query; it sees keys 0 ..= q_pos
    dims = tl.arange(0, HEAD_DIM_PAD)
    dim_mask = dims < HEAD_DIM
    qd_mask = row_mask[:, None] & dim_mask[None, :]
    tokens = (q_start + rows).to(tl.int64)
    q_rows = tokens * q_stride_t + heads * q_stride_h
    q = tl.load(q_ptr + q_rows[:, None] + dims[None, :], mask=qd_mask, other=0.0)
    q = (q.to(tl.float32) * scale).to(k_cache_ptr.dtype.element_ty)

    m = tl.full([BLOCK_M], float("-inf"), tl.float32)
    row_sum = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM_PAD], tl.float32)
    table = block_tables_ptr + seq * bt_stride
    # Keys past the last query of this block are never visible to it.
    kv_end = tl.minimum(seq_len, seq_len - q_len + (q_block + 1) * TOKENS_PER_PROGRAM)
    # Keys before the window of this block's first query are never visible to any of its rows: never read.
    kv_start = 0
    if WINDOW > 0:
        kv_start = tl.maximum(seq_len - q_len + q_block * TOKENS_PER_PROGRAM - WINDOW + 1, 0)
    for tile in range(kv_start, kv_end, BLOCK_N):
        n = tile + tl.arange(0, BLOCK_N)
        n_mask = n < kv_end
        k = _load_kv_tile(k_cache_ptr, table, n, n_mask, kv_head * k_stride_head + dims, dim_mask,
                          k_stride_block, k_stride_slot, BLOCK_SIZE)
        s = tl.dot(q, tl.trans(k), input_precision=PRECISION)
        if SOFTCAP:
            s = _soft_cap(s, softcap)
        visible = n_mask[None, :] & (n[None, :] <= q_pos[:, None])
        if WINDOW > 0:
            visible = visible & (n[None, :] > q_pos[:, None] - WINDOW)
        s = tl.where(visible, s, float("-inf"))
        m_new = tl.maximum(m, tl.max(s, axis=1))
        # Without a window every row keeps key 0 (q_pos >= 0, padding rows included), so m is finite after tile 0;
        # a windowed row may see nothing in the first tiles: exp against 0 then (p = 0, alpha = 0 or 1).
        m_safe = tl.where(m_new == float("-inf"), 0.0, m_new)
        p = tl.exp(s - m_safe[:, None])
        alpha = tl.exp(m - m_safe)
        v = _load_kv_tile(v_cache_ptr, table, n, n_mask, kv_head * v_stride_head + dims, dim_mask,
                          v_stride_block, v_stride_slot, BLOCK_SIZE)
        row_sum = row_sum * alpha + tl.sum(p, axis=1)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v, input_precision=PRECISION)
        m = m_new
    out = acc / tl.where(row_sum > 0, row_sum, 1.0)[:, None]
    out_rows = tokens * out_stride_t + heads * out_stride_h
    tl.store(out_ptr + out_rows[:, None] + dims[None, :], out.to(out_ptr.dtype.element_ty), mask=qd_mask)


def _precision(dtype: torch.dtype) -> str:
    return "ieee" if dtype == torch.float32 else "tf32"


def _dot_pad(n: int) -> int:
    """tl.dot needs every dimension to be a power of two of at least 16."""
    return max(16, triton.next_power_of_2(n))


MAX_PARTITION = 1024
MAX_MERGED = 128


@cache
def _sm_count(device: torch.device) -> int:
    if device.type != "cuda":
        return 8  # the interpreter: small partitions, so small test contexts exercise the split path
    return torch.cuda.get_device_properties(device).multi_processor_count


MIN_WIDE_PARTITION = 128
# Packed decode programs take whole KV heads of at most PACKED_HEAD_DIM dims, up to PACKED_COLUMNS columns
# (cache elements of a token): SmolLM2's 3 x 64 packs (192, padded to 256 in registers). Layouts of 128-dim heads
# (8B-like: 8 x 128) keep one head per program: their tiles are already 256-byte rows, and bench.kernels' sweep
# measures packing them (docs/benchmarks.md, "GPU kernels").
PACKED_HEAD_DIM = 64
PACKED_COLUMNS = 256


def kv_heads_per_program(config: DecodeConfig, kv_heads: int, head_dim: int) -> int:
    """KV heads one decode program streams: the configured number, else the largest divisor of ``kv_heads``
    whose heads fit in PACKED_COLUMNS (a divisor, so no program carries masked-off heads) for heads of at most
    PACKED_HEAD_DIM dims."""
    if config.kv_heads_per_program is not None:
        return max(1, min(config.kv_heads_per_program, kv_heads))
    if head_dim > PACKED_HEAD_DIM:
        return 1
    fitting = [h for h in range(2, kv_heads + 1) if kv_heads % h == 0 and h * head_dim <= PACKED_COLUMNS]
    return max(fitting, default=1)


def _partition_size(config: DecodeConfig, block_n: int, programs_per_partition: int, max_len: int,
                    device: torch.device) -> int:
    """Keys per program, given how many programs each context partition gets (sequences x KV-head programs).
    With enough work, the largest power of two that still gives every SM at least four programs (fewer, larger
    partitions were slower in bench.kernels' sweep). With little work (one short sequence), fewer, larger
    programs: each partition adds a merge. The sweep's figures: bench/results/kernels.json."""
    if config.partition is not None:
        return max(config.partition, block_n)
    keys = programs_per_partition * max_len
    sms = _sm_count(device)
    wide = keys // (4 * sms)
    if wide >= MIN_WIDE_PARTITION:
        return min(1 << (wide.bit_length() - 1), MAX_PARTITION)
    # At most MAX_MERGED partitions for the merge kernel to hold in registers (one long packed sequence would
    # otherwise split into 32-key programs: 256 of them at 8k).
    fewest = triton.next_power_of_2(triton.cdiv(max_len, MAX_MERGED))
    return min(max(triton.next_power_of_2(max(keys // (2 * sms), 1)), block_n, fewest), MAX_PARTITION)


def decode_attention(q: torch.Tensor, k_cache: torch.Tensor, v_cache: torch.Tensor, meta: AttentionMetadata,
                     scale: float, out: torch.Tensor, config: DecodeConfig = DEFAULT_DECODE, window: int = 0,
                     softcap: float = 0.0) -> None:
    """Attention of the ``meta.num_decodes`` leading single-token queries, written into ``out``.

    ``meta.max_decode_seq_len`` only bounds the launch (an upper bound is fine: CUDA graphs pass the model
    length)."""
    nd = meta.num_decodes
    num_heads, head_dim = q.shape[1], q.shape[2]
    block_size, kv_heads = k_cache.shape[1], k_cache.shape[2]
    group = num_heads // kv_heads
    packed = kv_heads_per_program(config, kv_heads, head_dim)
    kv_programs = triton.cdiv(kv_heads, packed)
    part_dim = _dot_pad(head_dim)
    block_n = _dot_pad(config.block_n if config.block_n is not None else 64 if packed == 1 else 32)
    partition = _partition_size(config, block_n, nd * kv_programs, meta.max_decode_seq_len, q.device)
    partitions = max(1, triton.cdiv(meta.max_decode_seq_len, partition))
    split = partitions > 1
    if split:
        part_m = torch.empty((nd, num_heads, partitions), dtype=torch.float32, device=q.device)
        part_l = torch.empty_like(part_m)
        part_acc = torch.empty((nd, num_heads, partitions, part_dim), dtype=torch.float32, device=q.device)
    else:
        part_m = part_l = part_acc = out  # unused by the kernel
    _decode_kernel[(nd, kv_programs, partitions)](
        q, k_cache, v_cache, meta.block_tables, meta.seq_lens, out, part_m, part_l, part_acc,
        scale, softcap,
        q.stride(0), q.stride(1), out.stride(0), out.stride(1), meta.block_tables.stride(0),
        k_cache.stride(0), k_cache.stride(1), k_cache.stride(2),
        v_cache.stride(0), v_cache.stride(1), v_cache.stride(2),
        num_heads, kv_heads, partitions,
        QUERIES_PER_KV=group, KV_PER_PROGRAM=packed, ROWS_PAD=_dot_pad(packed * group),
        HEAD_DIM=head_dim, COLUMNS_PAD=_dot_pad(packed * head_dim), PART_DIM=part_dim,
        BLOCK_SIZE=block_size, BLOCK_N=block_n, PARTITION=partition, SPLIT=split,
        PRECISION=_precision(k_cache.dtype), WINDOW=max(window, 0), SOFTCAP=softcap > 0,
        num_warps=config.num_warps, num_stages=config.num_stages,
    )
    if split:
        _merge_partitions_kernel[(nd, num_heads)](
            out, part_m, part_l, part_acc, meta.seq_lens,
            out.stride(0), out.stride(1), num_heads, partitions,
            HEAD_DIM=head_dim, HEAD_DIM_PAD=part_dim, PARTITION=partition,
            PARTITIONS_PAD=triton.next_power_of_2(partitions), WINDOW=max(window, 0),
        )


def prefill_attention(q: torch.Tensor, k_cache: torch.Tensor, v_cache: torch.Tensor, meta: AttentionMetadata,
                      scale: float, out: torch.Tensor, config: PrefillConfig = DEFAULT_PREFILL, window: int = 0,
                      softcap: float = 0.0) -> None:
    """Causal attention of the prefill chunks (sequences after the decodes), written into ``out``."""
    nd = meta.num_decodes
    num_prefills = meta.num_seqs - nd
    num_heads, head_dim = q.shape[1], q.shape[2]
    block_size, kv_heads = k_cache.shape[1], k_cache.shape[2]
    group = num_heads // kv_heads
    heads = group if config.pack_query_heads else 1
    # Rows of the query tile: up to block_m, fewer for short chunks (a verification step's few tokens), and
    # at least one token's heads.
    block_m = max(min(_dot_pad(config.block_m), _dot_pad(meta.max_query_len * heads)), _dot_pad(heads))
    tokens = block_m // heads
    _prefill_kernel[(num_prefills, num_heads // heads, triton.cdiv(meta.max_query_len, tokens))](
        q, k_cache, v_cache, meta.block_tables, meta.seq_lens, meta.query_start_loc, out,
        scale, softcap, nd,
        q.stride(0), q.stride(1), out.stride(0), out.stride(1), meta.block_tables.stride(0),
        k_cache.stride(0), k_cache.stride(1), k_cache.stride(2),
        v_cache.stride(0), v_cache.stride(1), v_cache.stride(2),
        QUERIES_PER_KV=group, HEADS_PER_PROGRAM=heads, TOKENS_PER_PROGRAM=tokens,
        HEAD_DIM=head_dim, HEAD_DIM_PAD=_dot_pad(head_dim),
        BLOCK_SIZE=block_size, BLOCK_M=block_m, BLOCK_N=_dot_pad(config.block_n),
        PRECISION=_precision(k_cache.dtype), WINDOW=max(window, 0), SOFTCAP=softcap > 0,
        num_warps=config.num_warps, num_stages=config.num_stages,
    )


def paged_attention(
    q: torch.Tensor,  # [num_tokens, num_heads, head_dim]
    k_cache: torch.Tensor,  # [num_blocks, block_size, num_kv_heads, head_dim]
    v_cache: torch.Tensor,
    meta: AttentionMetadata,
    scale: float,
    window: int = 0,
    softcap: float = 0.0,
) -> torch.Tensor:
    assert q.stride(-1) == k_cache.stride(-1) == v_cache.stride(-1) == 1
    assert q.shape[1] % k_cache.shape[2] == 0, "query heads must be a multiple of KV heads"
    out = torch.empty_like(q, memory_format=torch.contiguous_format)
    if meta.num_decodes:
        decode_attention(q, k_cache, v_cache, meta, scale, out, window=window, softcap=softcap)
    if meta.num_seqs > meta.num_decodes:
        prefill_attention(q, k_cache, v_cache, meta, scale, out, window=window, softcap=softcap)
    return out
