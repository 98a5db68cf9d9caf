"""Reference paged attention over block tables: mixed prefill + decode, causal, grouped-query, with an optional
sliding window and attention-logit soft-capping per call (the calling layer's own settings).

Batched torch, no per-sequence Python loop: the decodes (one query each) form one padded batch and the
prefill chunks another, each gathered from the paged cache through the block tables and run through
``scaled_dot_product_attention`` with a boolean mask. Splitting the two keeps padding small: a prefill
chunk of hundreds of tokens never pads the decode rows to its length.

Sliding window ``window = W > 0``: the query at position ``p`` sees keys ``p - W < k <= p`` (``W`` keys, itself
included), transformers' convention (``kv_idx > q_idx - sliding_window``). Only the blocks that hold such keys
are gathered, from each sequence's first block inside the window, so a block wholly before the window is never
read: the block manager may already have handed it to another sequence (its table entry is then -1). The
partial block at the window's start is masked key by key.

Soft-capping ``softcap = c > 0`` (Gemma 2): scores become ``c * tanh(s / c)`` before the mask and softmax;
``scaled_dot_product_attention`` has no such hook, so those calls take the explicit softmax.

Every layer of one forward pass attends with the same metadata, so what depends only on it and the window (the
decodes' flat cache slots and key mask) is built once per step and window (Gemma's windowed and global layers
alternate: two plans) and reused by the other layers (``_decode_plan``).

An int8 cache (``kernels.reference.kv_int8``) is read the same way, its gathered rows dequantized to the query's
dtype before the products.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from kernels.attention_metadata import AttentionMetadata
from kernels.reference import kv_int8


def window_blocks(window: int, span: int, block_size: int, num_blocks: int) -> int:
    """Blocks to gather per sequence so that ``span`` consecutive query positions see their whole window: the
    keys from ``window - 1`` before the first query to the last one, starting anywhere inside a block. At most the
    ``num_blocks`` the widest table row has; every block when there is no window."""
    if window <= 0:
        return num_blocks
    return min(num_blocks, -(-(span + window - 1 + block_size - 1) // block_size))


def _gather_blocks(block_tables: torch.Tensor, first_block: torch.Tensor, count: int) -> tuple[torch.Tensor,
                                                                                                  torch.Tensor]:
    """Per row, the physical ids of ``count`` consecutive table entries from ``first_block`` and their logical
    block numbers ``[rows, count]``. Entries past the table's width are read as its last column (a valid padding
    or real block whose keys the caller masks by position)."""
    logical = first_block[:, None] + torch.arange(count, device=block_tables.device)
    column = logical.clamp(max=block_tables.shape[1] - 1)
    return block_tables.long().gather(1, column), logical


def _as_dtype(rows: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """Gathered cache rows in ``dtype``: int8 rows dequantized, others cast."""
    return kv_int8.dequantize(rows, dtype) if kv_int8.is_int8(rows) else rows.to(dtype)


def _attend(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: torch.Tensor, scale: float,
            softcap: float) -> torch.Tensor:
    """q [B, H, Lq, D], k/v [B, KVH, Lk, D], mask [B, 1, Lq, Lk] -> [B, H, Lq, D]."""
    heads, kv_heads = q.shape[1], k.shape[1]
    if softcap <= 0:
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=scale, enable_gqa=heads != kv_heads)
    if heads != kv_heads:
        k = k.repeat_interleave(heads // kv_heads, dim=1)
        v = v.repeat_interleave(heads // kv_heads, dim=1)
    scores = torch.matmul(q, k.transpose(-1, -2)).float() * scale
    scores = torch.tanh(scores / softcap) * softcap
    weights = scores.masked_fill(~mask, float("-inf")).softmax(dim=-1)
    return torch.matmul(weights.to(v.dtype), v)


# The current step's metadata and its plans by (block size, window).
_plans: tuple[AttentionMetadata, dict[tuple[int, int], tuple[torch.Tensor, torch.Tensor]]] | None = None


def _decode_plan(meta: AttentionMetadata, block_size: int, window: int) -> tuple[torch.Tensor, torch.Tensor]:
    """The decodes' flat cache slots ``[nd * Lk]`` and key mask ``[nd, 1, 1, Lk]``, memoised for the metadata
    object of the current step and the window (it holds the metadata, so the identity cannot be reused by another
    step)."""
    global _plans
    if _plans is None or _plans[0] is not meta:
        _plans = (meta, {})
    plan = _plans[1].get((block_size, window))
    if plan is not None:
        return plan
    nd = meta.num_decodes
    lens = meta.seq_lens[:nd].long()
    nb = window_blocks(window, 1, block_size, -(-meta.max_decode_seq_len // block_size))
    first = ((lens - window).clamp(min=0) // block_size) if window > 0 else torch.zeros_like(lens)
    physical, logical = _gather_blocks(meta.block_tables[:nd], first, nb)
    offsets = torch.arange(block_size, device=lens.device)
    slots = (physical * block_size).unsqueeze(-1) + offsets  # [nd, nb, block_size]
    key_pos = (logical * block_size).unsqueeze(-1) + offsets
    visible = key_pos < lens[:, None, None]
    if window > 0:
        visible &= key_pos >= (lens - window)[:, None, None]
    mask = visible.view(nd, 1, 1, nb * block_size)
    _plans[1][(block_size, window)] = (slots.view(-1), mask)
    return slots.view(-1), mask


def _decode(q: torch.Tensor, k_cache: torch.Tensor, v_cache: torch.Tensor, meta: AttentionMetadata,
            scale: float, window: int, softcap: float) -> torch.Tensor:
    """One query per sequence against its gathered context: ``[nd, heads, head_dim]``."""
    slots, mask = _decode_plan(meta, k_cache.shape[1], window)
    nd, heads, head_dim = q.shape
    kv_heads, row = k_cache.shape[2], k_cache.shape[3]
    k = k_cache.view(-1, kv_heads, row).index_select(0, slots).view(nd, -1, kv_heads, row)
    v = v_cache.view(-1, kv_heads, row).index_select(0, slots).view(nd, -1, kv_heads, row)
    out = _attend(q.reshape(nd, heads, 1, head_dim), _as_dtype(k, q.dtype).transpose(1, 2),
                  _as_dtype(v, q.dtype).transpose(1, 2), mask, scale, softcap)
    return out.view(nd, heads, head_dim)


def paged_attention(
    q: torch.Tensor,  # [num_tokens, num_heads, head_dim]
    k_cache: torch.Tensor,  # [num_blocks, block_size, num_kv_heads, head_dim]
    v_cache: torch.Tensor,
    meta: AttentionMetadata,
    scale: float,
    window: int = 0,
    softcap: float = 0.0,
) -> torch.Tensor:
    """Attention output ``[num_tokens, num_heads, head_dim]``; keys/values for this step must already be
    stored in the cache (``store_kvcache``). ``window``: sliding-window size in keys (0: global attention);
    ``softcap``: attention-logit soft-capping (0: none)."""
    nd = meta.num_decodes
    if nd == meta.num_seqs:  # decode-only step: no output buffer to scatter into
        return _decode(q, k_cache, v_cache, meta, scale, window, softcap)
    out = torch.empty_like(q)
    if nd:
        out[:nd] = _decode(q[:nd], k_cache, v_cache, meta, scale, window, softcap)
    prefill_attention(q, k_cache, v_cache, meta, scale, out, window, softcap)
    return out


def prefill_attention(q: torch.Tensor, k_cache: torch.Tensor, v_cache: torch.Tensor, meta: AttentionMetadata,
                      scale: float, out: torch.Tensor, window: int = 0, softcap: float = 0.0) -> None:
    """Write the rows of the prefill chunks (sequences ``num_decodes..``) of ``out``."""
    nd = meta.num_decodes
    if meta.num_seqs == nd:
        return
    block_size, kv_heads, row = k_cache.shape[1], k_cache.shape[2], k_cache.shape[3]
    start = meta.query_start_loc[nd:-1].long()  # [P]
    q_lens = meta.query_start_loc[nd + 1 :].long() - start
    seq_lens = meta.seq_lens[nd:].long()
    max_q = meta.max_query_len
    # Keys are gathered up to the longest prefill row, not the step's longest row: a short new prompt batched with
    # long-context decodes would otherwise attend over (and pad to) their length. Read from the host on CPU only:
    # elsewhere it would wait for the device, and the metadata's bound is correct, only wider.
    longest = int(seq_lens.max()) if seq_lens.device.type == "cpu" else meta.max_seq_len
    nb = window_blocks(window, max_q, block_size, -(-longest // block_size))
    first_pos = seq_lens - q_lens  # position of each chunk's first query
    first = ((first_pos - window + 1).clamp(min=0) // block_size) if window > 0 else torch.zeros_like(first_pos)
    physical, logical = _gather_blocks(meta.block_tables[nd:], first, nb)
    p = physical.shape[0]
    k = _as_dtype(k_cache.index_select(0, physical.reshape(-1)).view(p, nb * block_size, kv_heads, row), q.dtype)
    v = _as_dtype(v_cache.index_select(0, physical.reshape(-1)).view(p, nb * block_size, kv_heads, row), q.dtype)
    offs = torch.arange(max_q, device=q.device)
    valid = offs[None, :] < q_lens[:, None]  # [P, max_q]
    rows = torch.where(valid, start[:, None] + offs[None, :], start[:, None])  # padded rows repeat row 0
    q_pos = first_pos[:, None] + offs[None, :]  # absolute position of each query
    key_pos = ((logical * block_size).unsqueeze(-1) + torch.arange(block_size, device=q.device)).view(p, 1, -1)
    # Padded query rows get the mask of a real row (never all-False, which would yield NaN); dropped below.
    q_pos = torch.where(valid, q_pos, q_pos[:, :1]).unsqueeze(-1)
    mask = key_pos <= q_pos  # [P, max_q, Lk]
    if window > 0:
        mask &= key_pos > q_pos - window
    result = _attend(q[rows].transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), mask.unsqueeze(1), scale,
                     softcap).transpose(1, 2)  # [P, max_q, H, D]
    out[rows[valid]] = result[valid]
