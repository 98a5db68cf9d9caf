"""Reference paged attention over block tables: mixed prefill + decode, causal, grouped-query.

Batched torch, no per-sequence Python loop: the decodes (one query each) form one padded batch and the
prefill chunks another, each gathered from the paged cache through the block tables and run through
``scaled_dot_product_attention`` with a boolean mask. Splitting the two keeps padding small: a prefill
chunk of hundreds of tokens never pads the decode rows to its length.

Every layer of one forward pass attends with the same metadata, so what depends only on it (the decodes' flat
cache slots and key mask) is built once per step and reused by the other layers (``_decode_plan``).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from kernels.attention_metadata import AttentionMetadata


def _gather_kv(cache: torch.Tensor, block_tables: torch.Tensor, num_blocks: int) -> torch.Tensor:
    """[B, num_blocks * block_size, kv_heads, head_dim] contiguous keys (or values) per sequence."""
    table = block_tables[:, :num_blocks]
    b, nb = table.shape
    _, bs, kvh, d = cache.shape
    # index_select on the flat table is markedly cheaper on CPU than advanced indexing with a 2-D index
    return cache.index_select(0, table.reshape(-1)).view(b, nb * bs, kvh, d)


_plan: tuple[AttentionMetadata, int, torch.Tensor, torch.Tensor] | None = None


def _decode_plan(meta: AttentionMetadata, block_size: int) -> tuple[torch.Tensor, torch.Tensor]:
    """The decodes' flat cache slots ``[nd * Lk]`` and key mask ``[nd, 1, 1, Lk]``, memoised for the metadata
    object of the current step (it holds the metadata, so the identity cannot be reused by another step)."""
    global _plan
    if _plan is not None and _plan[0] is meta and _plan[1] == block_size:
        return _plan[2], _plan[3]
    nd = meta.num_decodes
    nb = -(-meta.max_decode_seq_len // block_size)
    offsets = torch.arange(block_size, device=meta.block_tables.device)
    slots = (meta.block_tables[:nd, :nb].long() * block_size).unsqueeze(-1) + offsets  # [nd, nb, block_size]
    key_pos = torch.arange(nb * block_size, device=meta.block_tables.device)
    mask = (key_pos[None, :] < meta.seq_lens[:nd, None]).view(nd, 1, 1, nb * block_size)
    _plan = (meta, block_size, slots.view(-1), mask)
    return slots.view(-1), mask


def _decode(q: torch.Tensor, k_cache: torch.Tensor, v_cache: torch.Tensor, meta: AttentionMetadata,
            scale: float) -> torch.Tensor:
    """One query per sequence against its gathered context: ``[nd, heads, head_dim]``."""
    slots, mask = _decode_plan(meta, k_cache.shape[1])
    nd, heads, head_dim = q.shape
    kv_heads = k_cache.shape[2]
    k = k_cache.view(-1, kv_heads, head_dim).index_select(0, slots).view(nd, -1, kv_heads, head_dim)
    v = v_cache.view(-1, kv_heads, head_dim).index_select(0, slots).view(nd, -1, kv_heads, head_dim)
    out = F.scaled_dot_product_attention(
        q.reshape(nd, heads, 1, head_dim),
        k.to(q.dtype).transpose(1, 2),
        v.to(q.dtype).transpose(1, 2),
        attn_mask=mask,
        scale=scale,
        enable_gqa=heads != kv_heads,
    )
    return out.view(nd, heads, head_dim)


def _attend(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: torch.Tensor, scale: float) -> torch.Tensor:
    """q [B, Lq, H, D], k/v [B, Lk, KVH, D], mask [B, Lq, Lk] -> [B, Lq, H, D]."""
    out = F.scaled_dot_product_attention(
        q.transpose(1, 2),
        k.transpose(1, 2),
        v.transpose(1, 2),
        attn_mask=mask.unsqueeze(1),
        scale=scale,
        enable_gqa=q.shape[2] != k.shape[2],
    )
    return out.transpose(1, 2)


def paged_attention(
    q: torch.Tensor,  # [num_tokens, num_heads, head_dim]
    k_cache: torch.Tensor,  # [num_blocks, block_size, num_kv_heads, head_dim]
    v_cache: torch.Tensor,
    meta: AttentionMetadata,
    scale: float,
) -> torch.Tensor:
    """Attention output ``[num_tokens, num_heads, head_dim]``; keys/values for this step must already be
    stored in the cache (``store_kvcache``)."""
    nd = meta.num_decodes
    if nd == meta.num_seqs:  # decode-only step: no output buffer to scatter into
        return _decode(q, k_cache, v_cache, meta, scale)
    out = torch.empty_like(q)
    if nd:
        out[:nd] = _decode(q[:nd], k_cache, v_cache, meta, scale)
    prefill_attention(q, k_cache, v_cache, meta, scale, out)
    return out


def prefill_attention(q: torch.Tensor, k_cache: torch.Tensor, v_cache: torch.Tensor, meta: AttentionMetadata,
                      scale: float, out: torch.Tensor) -> None:
    """Write the rows of the prefill chunks (sequences ``num_decodes..``) of ``out``."""
    nd = meta.num_decodes
    if meta.num_seqs == nd:
        return
    block_size = k_cache.shape[1]
    start = meta.query_start_loc[nd:-1].long()  # [P]
    q_lens = meta.query_start_loc[nd + 1 :].long() - start
    seq_lens = meta.seq_lens[nd:].long()
    max_q = meta.max_query_len
    nb = -(-meta.max_seq_len // block_size)
    k = _gather_kv(k_cache, meta.block_tables[nd:], nb)
    v = _gather_kv(v_cache, meta.block_tables[nd:], nb)
    offs = torch.arange(max_q, device=q.device)
    valid = offs[None, :] < q_lens[:, None]  # [P, max_q]
    rows = torch.where(valid, start[:, None] + offs[None, :], start[:, None])  # padded rows repeat row 0
    q_pos = seq_lens[:, None] - q_lens[:, None] + offs[None, :]  # absolute position of each query
    key_pos = torch.arange(nb * block_size, device=q.device)
    # Padded query rows get the mask of a real row (never all-False, which would yield NaN); dropped below.
    q_pos = torch.where(valid, q_pos, q_pos[:, :1])
    mask = key_pos[None, None, :] <= q_pos[:, :, None]  # [P, max_q, Lk]
    result = _attend(q[rows], k.to(q.dtype), v.to(q.dtype), mask, scale)  # [P, max_q, H, D]
    out[rows[valid]] = result[valid]
