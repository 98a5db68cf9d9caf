"""The int8 KV cache (``kernels.reference.kv_int8``): its quantization, the C++ store and attention over it
(``paged_attention.cpp``) against the torch reference, and how far int8 attention lands from bfloat16 attention."""

from __future__ import annotations

import pytest
import torch

import kernels.cpu
from kernels.reference import kv_int8
from kernels.reference.kv_store import store_kvcache as reference_store
from kernels.reference.paged_attention import paged_attention as reference_attention
from tests.kernels.batch import PagedBatch, make_batch

CPU = torch.device("cpu")
SCALE = 0.125
# int8 codes are exact; the kernel differs from the reference by float32 summation order and by where the bfloat16
# rounding falls (the reference rounds each dequantized row to the query's dtype, the kernel scales float32 sums).
KERNEL_TOLERANCE = 2e-2
# int8 attention against bf16 attention on unit-normal keys, values and queries: each row's codes are off by at most
# half a step (absmax / 254), which the softmax-weighted sums average down.
INT8_VS_BF16_MAX = 5e-2
INT8_VS_BF16_RELATIVE = 2e-2

int8_kernels = pytest.mark.skipif(
    not kernels.cpu.load() or not kernels.cpu.int8_attention_runs(),
    reason="the int8 attention kernels need AVX512-BF16 and a C++ toolchain")


def _batch(decodes: list[int], prefills: list[tuple[int, int]], group: int = 3, head_dim: int = 64,
           seed: int = 0, kv_heads: int = 3, block_size: int = 16) -> PagedBatch:
    return make_batch(decodes, prefills, kv_heads=kv_heads, group=group, head_dim=head_dim, block_size=block_size,
                      dtype=torch.bfloat16, device=CPU, seed=seed)


def _int8_caches(b: PagedBatch) -> tuple[torch.Tensor, torch.Tensor]:
    return kv_int8.quantize(b.k_cache), kv_int8.quantize(b.v_cache)


def test_quantize_round_trip_is_within_half_a_step() -> None:
    x = torch.randn(50, 3, 64) * torch.logspace(-3, 2, 50)[:, None, None]
    rows = kv_int8.quantize(x)
    assert rows.dtype == torch.int8 and rows.shape == (50, 3, 64 + kv_int8.SCALE_BYTES)
    step = x.abs().amax(dim=-1, keepdim=True) / 127
    assert ((kv_int8.dequantize(rows, torch.float32) - x).abs() <= step / 2 * (1 + 1e-5)).all()
    assert rows[..., :64].abs().amax(dim=-1).eq(127).all()  # each row's largest value takes the largest code


def test_a_row_of_zeros_stores_zeros() -> None:
    rows = kv_int8.quantize(torch.zeros(2, 1, 32))
    assert not rows.any()
    assert not kv_int8.dequantize(rows, torch.bfloat16).any()


def test_the_reference_store_quantizes_into_int8_caches() -> None:
    b = _batch([5, 40], [(20, 60)])
    k8, v8 = torch.zeros_like(kv_int8.quantize(b.k_cache)), torch.zeros_like(kv_int8.quantize(b.v_cache))
    reference_store(b.key, b.value, k8, v8, b.meta.slot_mapping)
    rows = k8.view(-1, 3, 68)[b.meta.slot_mapping]
    assert torch.equal(rows, kv_int8.quantize(b.key))
    assert torch.equal(v8.view(-1, 3, 68)[b.meta.slot_mapping], kv_int8.quantize(b.value))


@pytest.mark.skipif(not kernels.cpu.load(), reason="needs the C++ CPU kernels")
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float32])
def test_the_cpp_store_matches_the_reference_bit_for_bit(dtype: torch.dtype) -> None:
    b = _batch([1, 17, 90], [(40, 130)], seed=3)
    shape = kv_int8.quantize(b.k_cache).shape
    caches = [torch.zeros(shape, dtype=torch.int8) for _ in range(4)]
    slots = b.meta.slot_mapping.clone()
    slots[1] = -1  # a padding row: never written
    key, value = b.key.to(dtype), b.value.to(dtype)
    kernels.cpu.store_kvcache(key, value, caches[0], caches[1], slots)
    keep = slots >= 0
    reference_store(key[keep], value[keep], caches[2], caches[3], slots[keep])
    assert torch.equal(caches[0], caches[2]) and torch.equal(caches[1], caches[3])


@int8_kernels
@pytest.mark.parametrize("head_dim", [32, 64, 80, 128])  # a 64-dim block, a 16-dim tail, two blocks
@pytest.mark.parametrize("group", [1, 3, 5])  # value passes of up to 4 query heads: 1, 3, 4 + 1
def test_decode_matches_the_reference(head_dim: int, group: int) -> None:
    b = _batch([1, 2, 15, 16, 17, 33, 100, 701], [], group=group, head_dim=head_dim, seed=head_dim + group,
               kv_heads=2, block_size=8)
    k8, v8 = _int8_caches(b)
    for q in (b.q, b.q.float()):
        out = kernels.cpu.decode_attention(q, k8, v8, b.meta.block_tables, b.meta.seq_lens, SCALE)
        assert out.dtype == q.dtype and out.shape == q.shape
        expected = reference_attention(q.float(), k8, v8, b.meta, SCALE)
        torch.testing.assert_close(out.float(), expected, atol=KERNEL_TOLERANCE, rtol=KERNEL_TOLERANCE)


@int8_kernels
@pytest.mark.parametrize(("window", "softcap"), [(20, 0.0), (0, 30.0), (7, 5.0)])
def test_decode_with_window_and_softcap_matches_the_reference(window: int, softcap: float) -> None:
    b = _batch([1, 6, 7, 8, 64, 300], [], seed=window)
    k8, v8 = _int8_caches(b)
    out = kernels.cpu.decode_attention(b.q, k8, v8, b.meta.block_tables, b.meta.seq_lens, SCALE, window, softcap)
    expected = reference_attention(b.q.float(), k8, v8, b.meta, SCALE, window, softcap)
    torch.testing.assert_close(out.float(), expected, atol=KERNEL_TOLERANCE, rtol=KERNEL_TOLERANCE)


@int8_kernels
@pytest.mark.parametrize("threads", [1, 2])
def test_tasks_per_sequence_or_per_kv_head(threads: int) -> None:
    previous = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        b = _batch([33], [], seed=threads)  # one sequence: a task per kv head whatever the threads
        k8, v8 = _int8_caches(b)
        out = kernels.cpu.decode_attention(b.q, k8, v8, b.meta.block_tables, b.meta.seq_lens, SCALE)
    finally:
        torch.set_num_threads(previous)
    expected = reference_attention(b.q.float(), k8, v8, b.meta, SCALE)
    torch.testing.assert_close(out.float(), expected, atol=KERNEL_TOLERANCE, rtol=KERNEL_TOLERANCE)


@int8_kernels
@pytest.mark.parametrize(("decodes", "prefills"), [
    ([], [(64, 300)]),  # one long chunk over a cached prefix: the prefill kernel
    ([5, 40], [(40, 90), (17, 17)]),  # decodes with chunks: decode and prefill kernels
    ([3], [(9, 30), (4, 4)]),  # short queries: one decode row per query token
])
def test_mixed_steps_match_the_reference(decodes: list[int], prefills: list[tuple[int, int]]) -> None:
    b = _batch(decodes, prefills, seed=len(prefills))
    k8, v8 = _int8_caches(b)
    out = kernels.cpu.paged_attention(b.q, k8, v8, b.meta, SCALE)
    expected = reference_attention(b.q.float(), k8, v8, b.meta, SCALE)
    torch.testing.assert_close(out.float(), expected, atol=KERNEL_TOLERANCE, rtol=KERNEL_TOLERANCE)


@pytest.mark.parametrize("kernel", ["reference", "cpp"])
def test_int8_attention_is_close_to_bfloat16_attention(kernel: str) -> None:
    if kernel == "cpp" and not (kernels.cpu.load() and kernels.cpu.int8_attention_runs()):
        pytest.skip("the int8 attention kernels need AVX512-BF16 and a C++ toolchain")
    attend = kernels.cpu.paged_attention if kernel == "cpp" else reference_attention
    b = _batch([1, 16, 100, 701], [(64, 300)], seed=11)
    k8, v8 = _int8_caches(b)
    got = attend(b.q, k8, v8, b.meta, SCALE).float()
    bf16 = reference_attention(b.q.float(), b.k_cache.float(), b.v_cache.float(), b.meta, SCALE)
    assert (got - bf16).abs().max() <= INT8_VS_BF16_MAX
    assert (got - bf16).norm() / bf16.norm() <= INT8_VS_BF16_RELATIVE


@pytest.mark.skipif(not kernels.cpu.load(), reason="needs the C++ CPU kernels")
def test_a_cache_of_another_float_dtype_than_the_queries_takes_the_reference() -> None:
    b = _batch([9, 40], [(30, 50)], seed=5)
    out = kernels.cpu.paged_attention(b.q.float(), b.k_cache, b.v_cache, b.meta, SCALE)
    expected = reference_attention(b.q.float(), b.k_cache.float(), b.v_cache.float(), b.meta, SCALE)
    torch.testing.assert_close(out, expected, atol=1e-5, rtol=1e-5)
