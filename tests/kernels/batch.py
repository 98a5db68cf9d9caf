"""Random paged-attention batches for the tests: scattered physical blocks, decodes first, then prefill chunks."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch

from kernels.attention_metadata import AttentionMetadata


@dataclass(slots=True)
class PagedBatch:
    q: torch.Tensor  # [num_tokens, heads, head_dim]
    key: torch.Tensor  # [num_tokens, kv_heads, head_dim]: this step's keys (also already in the cache)
    value: torch.Tensor
    k_cache: torch.Tensor  # [num_blocks, block_size, kv_heads, head_dim]
    v_cache: torch.Tensor
    meta: AttentionMetadata


def make_batch(
    decode_lens: list[int],
    prefills: list[tuple[int, int]],  # (query_len, seq_len) per chunk; seq_len counts this step's tokens
    *,
    kv_heads: int,
    group: int,
    head_dim: int,
    block_size: int,
    dtype: torch.dtype,
    device: torch.device,
    seed: int = 0,
    spare_blocks: int = 3,
) -> PagedBatch:
    gen = torch.Generator().manual_seed(seed)
    q_lens = [1] * len(decode_lens) + [q for q, _ in prefills]
    seq_lens = list(decode_lens) + [s for _, s in prefills]
    assert all(0 < q <= s for q, s in zip(q_lens, seq_lens, strict=True))
    blocks_per_seq = [-(-s // block_size) for s in seq_lens]
    num_blocks = sum(blocks_per_seq) + spare_blocks
    # Physical blocks in a random order so neighbours in a sequence are never neighbours in memory.
    order = torch.randperm(num_blocks, generator=gen).tolist()
    max_blocks = max(blocks_per_seq)
    tables, cursor = [], 0
    for n in blocks_per_seq:
        tables.append(order[cursor : cursor + n] + [0] * (max_blocks - n))
        cursor += n
    shape = (num_blocks, block_size, kv_heads, head_dim)
    k_cache = torch.randn(shape, generator=gen).to(dtype)
    v_cache = torch.randn(shape, generator=gen).to(dtype)
    num_tokens = sum(q_lens)
    q = torch.randn(num_tokens, kv_heads * group, head_dim, generator=gen).to(dtype)

    slots = []
    for table, q_len, seq_len in zip(tables, q_lens, seq_lens, strict=True):
        for pos in range(seq_len - q_len, seq_len):
            slots.append(table[pos // block_size] * block_size + pos % block_size)
    slot_mapping = torch.tensor(slots, dtype=torch.int64)
    key = k_cache.view(-1, kv_heads, head_dim)[slot_mapping].clone()
    value = v_cache.view(-1, kv_heads, head_dim)[slot_mapping].clone()
    query_start = torch.tensor([0, *q_lens], dtype=torch.int32).cumsum(0).to(torch.int32)
    nd = len(decode_lens)
    meta = AttentionMetadata(
        query_start_loc=query_start.to(device),
        seq_lens=torch.tensor(seq_lens, dtype=torch.int32, device=device),
        block_tables=torch.tensor(tables, dtype=torch.int32, device=device),
        slot_mapping=slot_mapping.to(device),
        num_decodes=nd,
        max_query_len=max(q_lens),
        max_seq_len=max(seq_lens),
        max_decode_seq_len=max(decode_lens, default=0),
    )
    return PagedBatch(q.to(device), key.to(device), value.to(device), k_cache.to(device), v_cache.to(device), meta)


def naive_attention(b: PagedBatch, scale: float, sees: Callable[[int, int], bool],
                    softcap: float = 0.0) -> torch.Tensor:
    """One sequence, query and head at a time in float32, straight from the definition: the query at position ``p``
    attends to the key at ``k <= p`` where ``sees(p, k)`` (causal attention: always)."""
    meta, block_size = b.meta, b.k_cache.shape[1]
    group = b.q.shape[1] // b.k_cache.shape[2]
    out = torch.empty(b.q.shape, dtype=torch.float32)
    flat_k = b.k_cache.float().reshape(-1, *b.k_cache.shape[2:])
    flat_v = b.v_cache.float().reshape(-1, *b.v_cache.shape[2:])
    for s in range(meta.num_seqs):
        start, end = int(meta.query_start_loc[s]), int(meta.query_start_loc[s + 1])
        seq_len = int(meta.seq_lens[s])
        slots = [int(meta.block_tables[s, p // block_size]) * block_size + p % block_size for p in range(seq_len)]
        for i, t in enumerate(range(start, end)):
            pos = seq_len - (end - start) + i
            seen = [slots[k] for k in range(pos + 1) if sees(pos, k)]
            for h in range(b.q.shape[1]):
                scores = flat_k[seen, h // group] @ b.q[t, h].float() * scale
                if softcap > 0:
                    scores = torch.tanh(scores / softcap) * softcap
                out[t, h] = torch.softmax(scores, dim=0) @ flat_v[seen, h // group]
    return out
