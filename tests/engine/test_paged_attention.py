"""The reference paged attention against plain per-sequence causal attention on contiguous tensors."""

from __future__ import annotations

import torch

from kernels import dispatch
from kernels.attention_metadata import AttentionMetadata


def naive(q, k, v, scale):
    """q [L, H, D] (the last L positions), k/v [S, KVH, D]."""
    rep = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(rep, 1), v.repeat_interleave(rep, 1)
    scores = torch.einsum("qhd,khd->hqk", q, k) * scale
    L, S = q.shape[0], k.shape[0]
    mask = torch.arange(S)[None, :] <= (S - L + torch.arange(L))[:, None]
    scores = scores.masked_fill(~mask, float("-inf"))
    return torch.einsum("hqk,khd->qhd", scores.softmax(-1), v)


def test_mixed_batch_matches_naive_attention():
    torch.manual_seed(0)
    heads, kv_heads, dim, bs, num_blocks = 6, 2, 16, 4, 64
    # (context already cached, new tokens): two decodes, then a fresh prefill and a continued chunk
    shapes = [(9, 1), (0, 1), (0, 7), (5, 6)]
    k_cache = torch.zeros(num_blocks, bs, kv_heads, dim)
    v_cache = torch.zeros_like(k_cache)
    perm = torch.randperm(num_blocks).tolist()
    tables, full_k, full_v, qs, slots, seq_lens, qsl = [], [], [], [], [], [], [0]
    for cached, new in shapes:
        total = cached + new
        blocks = [perm.pop() for _ in range(-(-total // bs))]
        tables.append(blocks)
        k, v = torch.randn(total, kv_heads, dim), torch.randn(total, kv_heads, dim)
        full_k.append(k)
        full_v.append(v)
        for p in range(cached):  # the earlier context is already in the cache
            k_cache[blocks[p // bs], p % bs], v_cache[blocks[p // bs], p % bs] = k[p], v[p]
        slots += [blocks[p // bs] * bs + p % bs for p in range(cached, total)]
        qs.append(torch.randn(new, heads, dim))
        seq_lens.append(total)
        qsl.append(qsl[-1] + new)
    width = max(map(len, tables))
    meta = AttentionMetadata(
        query_start_loc=torch.tensor(qsl, dtype=torch.int32),
        seq_lens=torch.tensor(seq_lens, dtype=torch.int32),
        block_tables=torch.tensor([t + [0] * (width - len(t)) for t in tables], dtype=torch.int32),
        slot_mapping=torch.tensor(slots),
        num_decodes=2, max_query_len=7, max_seq_len=max(seq_lens), max_decode_seq_len=10,
    )
    new_k = torch.cat([k[c:] for k, (c, _) in zip(full_k, shapes, strict=True)])
    new_v = torch.cat([v[c:] for v, (c, _) in zip(full_v, shapes, strict=True)])
    dispatch.store_kvcache(new_k, new_v, k_cache, v_cache, meta.slot_mapping)
    out = dispatch.paged_attention(torch.cat(qs), k_cache, v_cache, meta, dim**-0.5)
    expected = torch.cat([naive(q, k, v, dim**-0.5) for q, k, v in zip(qs, full_k, full_v, strict=True)])
    assert torch.allclose(out, expected, atol=1e-5)
