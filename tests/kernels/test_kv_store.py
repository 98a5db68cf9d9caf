"""KV-cache store: the Triton scatter writes exactly what the reference writes, and skips slot -1."""

from __future__ import annotations

from types import ModuleType

import torch

from kernels.reference.kv_store import store_kvcache as reference_store
from tests.kernels.conftest import Backend


def _case(backend: Backend, num_tokens: int, kv_heads: int, head_dim: int, seed: int):
    gen = torch.Generator().manual_seed(seed)
    num_blocks, block_size = 6, 16
    # Keys and values as the model hands them over: views into one fused qkv row (non-contiguous).
    qkv = torch.randn(num_tokens, (2 + 2 * kv_heads) * head_dim, generator=gen).to(backend.dtype)
    key = qkv[:, 2 * head_dim : (2 + kv_heads) * head_dim].view(num_tokens, kv_heads, head_dim)
    value = qkv[:, (2 + kv_heads) * head_dim :].view(num_tokens, kv_heads, head_dim)
    slots = torch.randperm(num_blocks * block_size, generator=gen)[:num_tokens]
    cache_shape = (num_blocks, block_size, kv_heads, head_dim)
    dev = backend.device
    return (key.to(dev), value.to(dev), torch.zeros(cache_shape, dtype=backend.dtype, device=dev),
            torch.zeros(cache_shape, dtype=backend.dtype, device=dev), slots.to(dev))


def test_store_matches_reference(ops: ModuleType, backend: Backend) -> None:
    for num_tokens, kv_heads, head_dim, seed in [(1, 3, 64, 0), (37, 3, 64, 1), (20, 8, 16, 2), (9, 1, 48, 3)]:
        key, value, k_cache, v_cache, slots = _case(backend, num_tokens, kv_heads, head_dim, seed)
        k_ref, v_ref = k_cache.clone(), v_cache.clone()
        reference_store(key, value, k_ref, v_ref, slots)
        ops.store_kvcache(key, value, k_cache, v_cache, slots)
        assert torch.equal(k_cache, k_ref) and torch.equal(v_cache, v_ref)


def test_store_skips_negative_slots(ops: ModuleType, backend: Backend) -> None:
    key, value, k_cache, v_cache, slots = _case(backend, 5, 2, 32, seed=4)
    slots[[1, 3]] = -1
    ops.store_kvcache(key, value, k_cache, v_cache, slots)
    flat_k, flat_v = k_cache.view(-1, 2, 32), v_cache.view(-1, 2, 32)
    kept = slots >= 0
    assert torch.equal(flat_k[slots[kept]], key[kept]) and torch.equal(flat_v[slots[kept]], value[kept])
    assert int((flat_k.abs().sum(dim=(1, 2)) > 0).sum()) == 3
