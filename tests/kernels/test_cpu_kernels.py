"""Warden's C++ CPU kernels (kernels/cpu) equal the torch references: decode attention on random paged batches, the
KV-cache store on fused-row views."""

from __future__ import annotations

import pytest
import torch

import kernels.cpu
from kernels.reference.kv_store import store_kvcache as reference_store
from kernels.reference.paged_attention import paged_attention as reference_attention
from tests.kernels.batch import make_batch

pytestmark = pytest.mark.skipif(not kernels.cpu.load(), reason="no C++ toolchain to build the CPU kernels")
CPU = torch.device("cpu")
TOLERANCE = {torch.float32: 1e-5, torch.bfloat16: 2e-2, torch.float16: 2e-3}


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16])
@pytest.mark.parametrize(("kv_heads", "group"), [(2, 1), (3, 3), (1, 8)])
@pytest.mark.parametrize("block_size", [4, 16])
def test_decode_batches_match_the_reference(dtype, kv_heads, group, block_size) -> None:
    # one token of context, a block boundary exactly, several blocks, and a long context
    b = make_batch([1, block_size, block_size + 1, 3 * block_size - 1, 70], [], kv_heads=kv_heads, group=group,
                   head_dim=64, block_size=block_size, dtype=dtype, device=CPU, seed=block_size + group)
    expected = reference_attention(b.q.float(), b.k_cache.float(), b.v_cache.float(), b.meta, 0.125)
    out = kernels.cpu.paged_attention(b.q, b.k_cache, b.v_cache, b.meta, 0.125)
    assert out.dtype == dtype and out.shape == b.q.shape
    torch.testing.assert_close(out.float(), expected, atol=TOLERANCE[dtype], rtol=TOLERANCE[dtype])


@pytest.mark.parametrize("head_dim", [32, 96, 128])
def test_bfloat16_decode_tiles_and_head_blocks_match_the_reference(head_dim) -> None:
    """The bfloat16 path (AVX512-BF16 CPUs) works in tiles of 16 tokens, blocks of 4 heads and 64 dims: contexts
    around a tile, 5 query heads per KV head (a block of 4 and one), dims with a partial 64-dim chunk."""
    b = make_batch([1, 15, 16, 17, 33, 100], [], kv_heads=2, group=5, head_dim=head_dim, block_size=8,
                   dtype=torch.bfloat16, device=CPU, seed=head_dim)
    expected = reference_attention(b.q.float(), b.k_cache.float(), b.v_cache.float(), b.meta, 0.2)
    out = kernels.cpu.paged_attention(b.q, b.k_cache, b.v_cache, b.meta, 0.2)
    torch.testing.assert_close(out.float(), expected, atol=TOLERANCE[torch.bfloat16], rtol=TOLERANCE[torch.bfloat16])


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
@pytest.mark.parametrize(("group", "head_dim"), [(1, 16), (2, 48), (4, 64), (8, 32)])
def test_reduced_precision_decode_tiles_and_head_blocks_match_the_reference(dtype, group, head_dim) -> None:
    """The AVX2 path (CPUs without AVX512-BF16) works in tiles of 8 tokens and blocks of up to 3 heads x 16 dims:
    contexts around a tile, groups of 1, 2, 4 (3 + 1) and 8 (3 + 3 + 2) heads, dims in whole 16-dim blocks. Other
    CPUs run their own path or the generic kernel on the same cases."""
    b = make_batch([1, 7, 8, 9, 24, 70], [], kv_heads=2, group=group, head_dim=head_dim, block_size=4,
                   dtype=dtype, device=CPU, seed=group + head_dim)
    expected = reference_attention(b.q.float(), b.k_cache.float(), b.v_cache.float(), b.meta, 0.2)
    out = kernels.cpu.paged_attention(b.q, b.k_cache, b.v_cache, b.meta, 0.2)
    assert out.dtype == dtype
    torch.testing.assert_close(out.float(), expected, atol=TOLERANCE[dtype], rtol=TOLERANCE[dtype])


@pytest.mark.parametrize("head_dim", [32, 80])  # 80: a tail past the vector width
def test_mixed_batches_route_decodes_to_cpp_and_prefills_to_the_reference(head_dim) -> None:
    b = make_batch([9, 33], [(5, 12), (1, 1), (17, 40)], kv_heads=2, group=2, head_dim=head_dim, block_size=8,
                   dtype=torch.float32, device=CPU, seed=3)
    expected = reference_attention(b.q, b.k_cache, b.v_cache, b.meta, 0.3)
    torch.testing.assert_close(kernels.cpu.paged_attention(b.q, b.k_cache, b.v_cache, b.meta, 0.3), expected,
                               atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_short_queries_run_as_one_decode_row_per_token(dtype) -> None:
    """Draft verification, forced tokens and small chunks (every query <= SHORT_QUERY tokens): causal against
    the context up to each token, across block boundaries, with GQA."""
    b = make_batch([9, 33], [(5, 12), (1, 1), (kernels.cpu.SHORT_QUERY, 40), (3, 70)], kv_heads=3, group=3,
                   head_dim=64, block_size=8, dtype=dtype, device=CPU, seed=5)
    expected = reference_attention(b.q.float(), b.k_cache.float(), b.v_cache.float(), b.meta, 0.3)
    tables, lens = kernels.cpu.token_rows(b.meta)
    assert lens.tolist()[2:8] == [8, 9, 10, 11, 12, 1]  # the 5-token chunk ending at 12, then the 1-token one
    assert torch.equal(tables[2:7], b.meta.block_tables[2:3].expand(5, -1))
    out = kernels.cpu.paged_attention(b.q, b.k_cache, b.v_cache, b.meta, 0.3)
    torch.testing.assert_close(out.float(), expected, atol=TOLERANCE[dtype], rtol=TOLERANCE[dtype])


@pytest.mark.skipif(not kernels.cpu.load() or not torch.ops.warden_cpu.prefill_attention_runs(),
                    reason="the bf16 prefill kernel needs AVX512-BF16")
@pytest.mark.parametrize(("decodes", "prefills", "block_size"), [
    ([700, 9], [(150, 850), (17, 17), (40, 333)], 16),  # long cached contexts, a new prompt, one partial block
    ([], [(200, 200)], 16),  # one new prompt: causal within the chunk only
    ([33], [(21, 95), (64, 64)], 8),  # smaller blocks, chunks not tiles of 16 keys or 8 query vectors
])
def test_bfloat16_prefill_chunks_match_the_reference(decodes, prefills, block_size) -> None:
    """Prefill chunks longer than SHORT_QUERY run paged_attention.cpp's prefill kernel (bfloat16, AVX512-BF16):
    each query against its context up to its own position, the decodes before them untouched."""
    b = make_batch(decodes, prefills, kv_heads=3, group=3, head_dim=64, block_size=block_size,
                   dtype=torch.bfloat16, device=CPU, seed=len(prefills))
    assert kernels.cpu.prefill_attention_serves(b.q, b.k_cache)
    expected = reference_attention(b.q.float(), b.k_cache.float(), b.v_cache.float(), b.meta, 0.125)
    out = kernels.cpu.paged_attention(b.q, b.k_cache, b.v_cache, b.meta, 0.125)
    torch.testing.assert_close(out.float(), expected, atol=TOLERANCE[torch.bfloat16], rtol=TOLERANCE[torch.bfloat16])


def test_bad_inputs_are_refused() -> None:
    b = make_batch([5], [], kv_heads=2, group=2, head_dim=32, block_size=4, dtype=torch.float32, device=CPU)
    with pytest.raises(RuntimeError, match="int32"):
        kernels.cpu.decode_attention(b.q, b.k_cache, b.v_cache, b.meta.block_tables.long(), b.meta.seq_lens, 1.0)
    with pytest.raises(RuntimeError, match="one dtype"):
        kernels.cpu.decode_attention(b.q.double(), b.k_cache, b.v_cache, b.meta.block_tables, b.meta.seq_lens, 1.0)


def _fused_rows(num_tokens: int, kv_heads: int, head_dim: int, dtype: torch.dtype, seed: int):
    """Keys and values as the model hands them over: views into one fused qkv row (non-contiguous)."""
    gen = torch.Generator().manual_seed(seed)
    qkv = torch.randn(num_tokens, (2 + 2 * kv_heads) * head_dim, generator=gen).to(dtype)
    key = qkv[:, 2 * head_dim : (2 + kv_heads) * head_dim].view(num_tokens, kv_heads, head_dim)
    value = qkv[:, (2 + kv_heads) * head_dim :].view(num_tokens, kv_heads, head_dim)
    return key, value, gen


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16])
@pytest.mark.parametrize(("num_tokens", "kv_heads", "head_dim"), [(1, 3, 64), (37, 3, 64), (20, 8, 16)])
def test_kv_store_writes_what_the_reference_writes(dtype, num_tokens, kv_heads, head_dim) -> None:
    key, value, gen = _fused_rows(num_tokens, kv_heads, head_dim, dtype, seed=num_tokens)
    shape = (6, 16, kv_heads, head_dim)
    slots = torch.randperm(6 * 16, generator=gen)[:num_tokens]
    k_cache, v_cache = torch.randn(shape, generator=gen).to(dtype), torch.randn(shape, generator=gen).to(dtype)
    k_ref, v_ref = k_cache.clone(), v_cache.clone()
    reference_store(key, value, k_ref, v_ref, slots)
    kernels.cpu.store_kvcache(key, value, k_cache, v_cache, slots)
    assert torch.equal(k_cache, k_ref) and torch.equal(v_cache, v_ref)
    # Rows of another dtype are cast to the cache's, as the reference casts them.
    reference_store(key.float(), value.float(), k_ref, v_ref, slots.flip(0))
    kernels.cpu.store_kvcache(key.float(), value.float(), k_cache, v_cache, slots.flip(0))
    assert torch.equal(k_cache, k_ref) and torch.equal(v_cache, v_ref)


def test_kv_store_skips_padding_slots_and_refuses_bad_ones() -> None:
    key, value, _ = _fused_rows(4, 2, 32, torch.float32, seed=7)
    k_cache, v_cache = torch.zeros(3, 4, 2, 32), torch.zeros(3, 4, 2, 32)
    kernels.cpu.store_kvcache(key, value, k_cache, v_cache, torch.tensor([5, -1, 0, -1]))
    flat = k_cache.view(-1, 2, 32)
    assert torch.equal(flat[5], key[0]) and torch.equal(flat[0], key[2])
    assert int((flat.abs().sum(dim=(1, 2)) > 0).sum()) == 2
    with pytest.raises(RuntimeError, match="outside the cache"):
        kernels.cpu.store_kvcache(key, value, k_cache, v_cache, torch.tensor([0, 1, 2, 12]))
    with pytest.raises(RuntimeError, match="int64"):
        kernels.cpu.store_kvcache(key, value, k_cache, v_cache, torch.tensor([0, 1, 2, 3], dtype=torch.int32))
    with pytest.raises(RuntimeError, match="kv_heads / head_dim"):
        kernels.cpu.store_kvcache(key[:, :1], value[:, :1], k_cache, v_cache, torch.tensor([0, 1, 2, 3]))
