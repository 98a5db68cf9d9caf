"""kernels/cpu's AVX-512 paths, built under SIMDe's emulation (tests/kernels/avx512_emulation.py), against the
plain-torch references on CPUs without AVX-512, where the native build compiles only the AVX2 paths and so
test_cpu_quantized_linear.py, test_cpu_argmax.py and test_cpu_kernels.py never run the production ones.

The same checks and tolerances as those native tests, on small shapes (emulated vectors are slow): the int8 and
int4 linears (AVX-512 VNNI) and their ``_up_to`` routing, the argmax's vector path, the bfloat16 decode attention
(AVX512-BF16). The int8 kernel's AVX2 path is bitwise its AVX-512 path, so there the emulated op must also give
the native AVX2 build's bits exactly. Skipped on AVX-512 CPUs (the native tests run the real instructions there)
and where SIMDe's headers are missing (``.ci/run`` installs ``libsimde-dev``).
"""

from __future__ import annotations

import platform
import re
from typing import Any

import pytest
import torch

import kernels.cpu
from engine.layers.linear import INT4_GROUP_SIZE
from kernels.reference.argmax import argmax as reference_argmax
from kernels.reference.paged_attention import paged_attention as reference_attention
from kernels.reference.quantized_linear import (
    dequantize_int4,
    int4_block_rows,
    int4_linear,
    int8_linear,
    unpack_int4_codes,
)
from tests.kernels import avx512_emulation as emulation
from tests.kernels.batch import make_batch
from tests.kernels.test_cpu_argmax import SIZES
from tests.kernels.test_cpu_kernels import TOLERANCE
from tests.kernels.test_cpu_quantized_linear import int8_quantized, int8_weights, quantized

_x86 = platform.machine().lower() in ("x86_64", "amd64")
pytestmark = [
    pytest.mark.skipif(not _x86 or not emulation.native_avx2(),
                       reason="needs an x86 CPU with AVX2 (the emulation's native half, as the AVX2 kernels')"),
    pytest.mark.skipif(_x86 and emulation.native_avx512(),
                       reason="this CPU has AVX-512: the native kernel tests run the AVX-512 paths themselves"),
    pytest.mark.skipif(not emulation.simde_available(),
                       reason=f"SIMDe's AVX-512 headers are missing ({emulation.SIMDE_HEADER}): "
                              "apt-get install libsimde-dev"),
    pytest.mark.skipif(not kernels.cpu.load(), reason="no C++ toolchain to build the CPU kernels"),
]

FLOAT_DTYPES = [torch.float32, torch.bfloat16, torch.float16]
BITS = {torch.float32: torch.int32, torch.bfloat16: torch.int16, torch.float16: torch.int16}


@pytest.fixture(scope="module")
def emulated() -> Any:
    """``torch.ops.warden_cpu_avx512sim``: built once per session (about a minute on 2 cores, then cached)."""
    return emulation.build()


def assert_same_bits(actual: torch.Tensor, expected: torch.Tensor) -> None:
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    assert torch.equal(actual.view(BITS[actual.dtype]), expected.view(BITS[expected.dtype]))


def test_the_emulated_build_has_every_avx512_path(emulated: Any) -> None:
    """The rewrites left no AVX-512 feature test in the sources, and the build reports its AVX-512 kernels (the
    int4 one too: its probe of torch's packing finds the 64-row blocks an AVX-512 torch makes)."""
    for path in emulation.kernel_sources():
        text, _ = emulation.rewrite(path.name, path.read_text())
        conditions = [line for line in text.splitlines() if re.match(r"\s*#\s*(if|elif)", line)]
        assert not [line for line in conditions if "__AVX512" in line], path.name
    assert emulated.one_row_linear_supported() and emulated.argmax_supported()
    assert emulated.int4_packing_block_rows() == 64
    assert not torch.ops.warden_cpu.one_row_linear_supported()  # the native build: the AVX2 paths


# int8 (int8_linear.cpp: vpdpwssd, the vectorized two-level input quantization)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize(("out_features", "in_features"), [(5, 64), (130, 128), (1000, 576)])  # tiles of 4 + tails
@pytest.mark.parametrize("rows", [1, 3])
def test_int8_equals_the_reference(emulated: Any, dtype, out_features, in_features, rows) -> None:
    layer = int8_quantized(out_features, in_features, dtype, seed=out_features + rows)
    x = torch.randn(rows, in_features, dtype=dtype)
    out = emulated.int8_linear(x, layer.quant_weight, layer.quant_scales)
    expected = int8_linear(x, layer.quant_weight, layer.quant_scales)
    assert out.dtype == dtype and out.shape == (rows, out_features)
    torch.testing.assert_close(out.float(), expected.float(), rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("rows", [1, 2, 3, 4, 5, 7, 9, 13])  # tiles of up to 4 input rows and their remainders
def test_int8_gives_the_native_avx2_kernels_bits_and_each_row_its_own(emulated: Any, dtype, rows) -> None:
    """int8_linear.cpp's AVX2 path is bitwise its AVX-512 path: the emulated AVX-512 kernel must give exactly
    what the native build's op gives on this machine, for every row of any tile, with rows of zeros, NaN,
    infinities and extreme weights (-128, 127) among them."""
    weight, scales, _ = int8_weights(130, 192, dtype, seed=rows)  # 130: output tiles of 4 and a tail of 2
    weight[0], weight[1] = -128, 127  # the ends of the flipped sign bit's range
    dequantized = weight.float() * scales.float()[:, None]
    x = torch.randn(rows, 192, dtype=dtype)
    x[rows // 2] *= 50  # rows of other magnitudes share the tile
    if rows > 4:
        x[1] = 0
        x[2, :32] = torch.tensor([1.0, -1.0] * 16)
        x[3, 7] = float("nan")
        x[4, 100] = float("-inf")
    out = emulated.int8_linear(x, weight, scales)
    assert_same_bits(out, torch.ops.warden_cpu.int8_linear(x, weight, scales))
    assert_same_bits(out, emulated.int8_linear_avx2(x, weight, scales))  # the AVX2 kernel beside it in this build
    assert_same_bits(out, torch.cat([emulated.int8_linear(x[m:m + 1], weight, scales) for m in range(rows)]))
    expected = x.float() @ dequantized.t()
    for m in range(rows):  # outputs scale with their row
        if x[m].isfinite().all() and x[m].any():
            size = x[m].float().abs().amax().item()
            torch.testing.assert_close(out[m].float() / size, expected[m] / size, rtol=1e-2, atol=1e-2)
    if rows > 4:
        assert torch.equal(out[1], torch.zeros(130, dtype=dtype))
        assert out[3].isnan().all() and out[4].isnan().all()


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_int8_quantizes_any_magnitude_as_the_scalar_loop(emulated: Any, dtype) -> None:
    """The vectorized two-level quantization against the native AVX2 build's scalar one (quantize_groups), bitwise:
    rows from 1e-30 to 1e30 (overflowing float16 and bfloat16's ranges: infinite rows), denormal groups."""
    torch.manual_seed(0)
    x = torch.randn(24, 256) * torch.logspace(-30, 30, 24).unsqueeze(1)
    x[3, :32] = 1e-42
    x[4, :64] = torch.tensor([1e-40] * 63 + [3e-39])
    x = x.to(dtype)
    weight = torch.randint(-128, 128, (8, 256), dtype=torch.int8)
    scales = torch.ones(8, dtype=dtype)
    assert_same_bits(emulated.int8_linear(x, weight, scales), torch.ops.warden_cpu.int8_linear(x, weight, scales))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_int8_linear_up_to_picks_the_kernel_up_to_its_rows_and_torchs_above(emulated: Any, dtype) -> None:
    weight, scales, _ = int8_weights(72, 128, dtype, seed=2)
    for rows in (1, 3, 4, 5, 9):
        x = torch.randn(rows, 128, dtype=dtype)
        chosen = emulated.int8_linear_up_to(x, weight, scales, 4)
        expected = (emulated.int8_linear if rows <= 4 else torch._weight_int8pack_mm)(x, weight, scales)
        assert chosen.dtype == dtype and torch.equal(chosen, expected), rows


@pytest.mark.parametrize(("out_features", "in_features"), [(64, 64), (192, 576), (128, 1536)])
@pytest.mark.parametrize("rows", [1, 4, 7, 9, 17, 19])  # tiles of 4 rows and remainders, in both layouts
def test_int8_gemm_bf16_is_the_float_product_and_each_row_alone(emulated: Any, out_features, in_features,
                                                                  rows) -> None:
    """The AVX512-BF16 GEMM (int8_gemm_bf16.cpp: k-lanes up to 16 rows, each weight's bytes widened in
    place; broadcast operands above, each 64-row block transposed 16 x 16 words at a time): within the output's
    rounding of the float product of the unquantized inputs."""
    weight, scales, dequantized = int8_weights(out_features, in_features, torch.bfloat16, seed=rows)
    x = torch.randn(rows, in_features, dtype=torch.bfloat16)
    out = emulated.int8_gemm_bf16(x, weight, scales)
    exact = x.float() @ dequantized.t()
    assert ((out.float() - exact).abs() <= exact.abs() * 2.0 ** -8 + 1e-3).all()
    if rows <= 16:  # alone, a row takes the k-lanes layout: the same sums only where it did together
        alone = torch.cat([emulated.int8_gemm_bf16(x[m:m + 1], weight, scales) for m in range(rows)])
        assert torch.equal(out, alone)


def test_int8_linear_up_to_takes_the_bf16_gemm_above_its_rows(emulated: Any) -> None:
    assert emulated.int8_gemm_bf16_runs()
    weight, scales, _ = int8_weights(128, 128, torch.bfloat16, seed=4)
    for rows in (1, 4, 5, 9):
        x = torch.randn(rows, 128, dtype=torch.bfloat16)
        kernel = emulated.int8_linear if rows <= 4 else emulated.int8_gemm_bf16
        assert torch.equal(emulated.int8_linear_up_to(x, weight, scales, 4), kernel(x, weight, scales)), rows


# int4 (int4_linear.cpp: vpdpbusd on torch's 64-row packing; int4_linear_avx2.cpp on the same blocks)


def pack_int4(codes: torch.Tensor, block_rows: int) -> torch.Tensor:
    """Codes 0..15 ``[N, K]`` in torch's CPU int4 packing with ``block_rows``-row blocks (64 on AVX-512 builds of
    torch, 32 elsewhere): ``[N / rows, K, rows / 2]`` bytes, row ``j`` of a block in byte ``j``'s low nibble and
    row ``rows / 2 + j`` in its high one; as ``[N, K / 2]`` uint8."""
    out_features, in_features = codes.shape
    blocks = codes.to(torch.uint8).view(out_features // block_rows, 2, block_rows // 2, in_features)
    return (blocks[:, 0] | (blocks[:, 1] << 4)).transpose(1, 2).contiguous().view(out_features, in_features // 2)


def int4_weights(out_features: int, in_features: int, dtype: torch.dtype, seed: int) -> tuple[Any, torch.Tensor]:
    """The test layer of the native int4 tests (packed by this machine's torch) and its codes repacked in 64-row
    blocks for the emulated kernels; the reference reads the layer's own packing (the same weights)."""
    layer = quantized(out_features, in_features, dtype, seed)
    codes = unpack_int4_codes(layer.quant_weight, out_features, in_features)
    assert torch.equal(pack_int4(codes, int4_block_rows()), layer.quant_weight)  # pack_int4 packs as torch does
    return layer, pack_int4(codes, 64)


INT4_KERNELS = ["int4_linear", "int4_linear_avx2"]  # the AVX-512 kernel, and the AVX2 one on 64-row blocks
# each with the input in one level and in two (int4_linear_two_level; the AVX2 op's levels argument)
INT4_KERNEL_LEVELS = [(kernel, levels) for kernel in INT4_KERNELS for levels in (1, 2)]


def int4_op(emulated: Any, kernel: str, levels: int):
    if kernel == "int4_linear":
        return emulated.int4_linear if levels == 1 else emulated.int4_linear_two_level
    return lambda x, packed, group, sz: emulated.int4_linear_avx2(x, packed, group, sz, levels)


@pytest.mark.parametrize(("kernel", "levels"), INT4_KERNEL_LEVELS)
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
@pytest.mark.parametrize(("out_features", "in_features"), [(64, 32), (128, 64), (960, 576)])
@pytest.mark.parametrize("rows", [1, 3])
def test_int4_equals_the_reference(emulated: Any, kernel, levels, dtype, out_features, in_features, rows) -> None:
    layer, packed = int4_weights(out_features, in_features, dtype, seed=out_features + rows)
    x = torch.randn(rows, in_features, dtype=dtype)
    out = int4_op(emulated, kernel, levels)(x, packed, INT4_GROUP_SIZE, layer.quant_scales)
    expected = int4_linear(x, layer.quant_weight, INT4_GROUP_SIZE, layer.quant_scales, levels)
    assert out.dtype == dtype and out.shape == (rows, out_features)
    torch.testing.assert_close(out.float(), expected.float(), rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
@pytest.mark.parametrize("rows", [2, 3, 4, 5, 7, 9])  # tiles of up to 4 rows and their remainders
def test_int4_several_rows_equal_the_reference_and_each_row_alone(emulated: Any, dtype, rows) -> None:
    layer, packed = int4_weights(192, 576, dtype, seed=rows)
    x = torch.randn(rows, 576, dtype=dtype)
    x[rows // 2] *= 50  # rows of other magnitudes share the tile
    out = emulated.int4_linear(x, packed, INT4_GROUP_SIZE, layer.quant_scales)
    expected = int4_linear(x, layer.quant_weight, INT4_GROUP_SIZE, layer.quant_scales)
    for m in range(rows):  # outputs scale with their row
        size = x[m].abs().amax().item()
        torch.testing.assert_close(out[m].float() / size, expected[m].float() / size, rtol=1e-2, atol=1e-2)
    alone = torch.cat([emulated.int4_linear(x[m:m + 1], packed, INT4_GROUP_SIZE, layer.quant_scales)
                       for m in range(rows)])
    assert torch.equal(out, alone)


@pytest.mark.parametrize("group", [64, 128, 256])
def test_int4_other_group_sizes_equal_the_reference(emulated: Any, group: int) -> None:
    torch.manual_seed(group)
    codes = torch.randint(0, 16, (192, 512), dtype=torch.int32)
    scales_zeros = torch.stack([torch.rand(512 // group, 192) * 0.02 + 1e-3, torch.randn(512 // group, 192) * 0.01],
                               dim=-1).to(torch.bfloat16).contiguous()
    x = torch.randn(2, 512, dtype=torch.bfloat16)
    out = emulated.int4_linear(x, pack_int4(codes, 64), group, scales_zeros)
    expected = int4_linear(x, pack_int4(codes, int4_block_rows()), group, scales_zeros)
    torch.testing.assert_close(out.float(), expected.float(), rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize("kernel", INT4_KERNELS)
def test_int4_rows_of_zeros_outliers_and_non_finite_inputs(emulated: Any, kernel) -> None:
    layer, packed = int4_weights(128, 64, torch.bfloat16, seed=0)
    x = torch.zeros(4, 64, dtype=torch.bfloat16)
    x[1, 5] = 300.0  # one outlier: its group's other inputs quantize to 0, the other group keeps its scale
    x[1, 40:] = torch.linspace(-1, 1, 24, dtype=torch.bfloat16)
    x[2, 3], x[3, 40] = float("nan"), float("inf")
    out = getattr(emulated, kernel)(x, packed, INT4_GROUP_SIZE, layer.quant_scales)
    assert torch.equal(out[0], torch.zeros(128, dtype=torch.bfloat16))
    expected = int4_linear(x[:2], layer.quant_weight, INT4_GROUP_SIZE, layer.quant_scales)
    torch.testing.assert_close(out[:2].float(), expected.float(), rtol=1e-2, atol=1e-2)
    assert out[2:].isnan().all()


def test_int4_linear_up_to_picks_the_kernel_up_to_its_rows_and_the_bf16_gemm_above(emulated: Any) -> None:
    """Above kernel_rows bfloat16 inputs take the AVX512-BF16 GEMM (on the emulated machine's 64-row blocks)."""
    layer, packed = int4_weights(128, 64, torch.bfloat16, seed=0)
    assert emulated.int4_gemm_bf16_runs()
    for rows in (1, 2, 3, 4, 9):
        x = torch.randn(rows, 64, dtype=torch.bfloat16)
        chosen = emulated.int4_linear_up_to(x, packed, INT4_GROUP_SIZE, layer.quant_scales, 3)
        kernel = emulated.int4_linear if rows <= 3 else emulated.int4_gemm_bf16
        assert torch.equal(chosen, kernel(x, packed, INT4_GROUP_SIZE, layer.quant_scales)), rows


@pytest.mark.parametrize(("out_features", "in_features"), [(64, 32), (192, 64), (960, 576)])
@pytest.mark.parametrize("rows", [1, 4, 7, 9])  # tiles of 4 rows and their remainders
def test_int4_gemm_bf16_is_the_float_product_and_each_row_alone(emulated: Any, out_features, in_features,
                                                                  rows) -> None:
    """vdpbf16ps's products are exact in float32 (the shim's too), so within the output's rounding of the float
    product of the unquantized inputs, as natively."""
    layer, packed = int4_weights(out_features, in_features, torch.bfloat16, seed=rows)
    x = torch.randn(rows, in_features, dtype=torch.bfloat16)
    out = emulated.int4_gemm_bf16(x, packed, INT4_GROUP_SIZE, layer.quant_scales)
    exact = x.float() @ dequantize_int4(layer.quant_weight, INT4_GROUP_SIZE, layer.quant_scales, in_features).t()
    assert ((out.float() - exact).abs() <= exact.abs() * 2.0 ** -8 + 1e-4).all()
    alone = torch.cat([emulated.int4_gemm_bf16(x[m:m + 1], packed, INT4_GROUP_SIZE, layer.quant_scales)
                       for m in range(rows)])
    assert torch.equal(out, alone)


# argmax (argmax.cpp: 16-lane compares, four accumulators, masked tail)


@pytest.mark.parametrize("vocab", SIZES)
def test_argmax_gives_torchs_indices(emulated: Any, vocab: int) -> None:
    """The maximum in every lane, accumulator, block and the tail; ties (first index), NaN (the first wins),
    infinities, constant rows; as test_cpu_argmax.py's cases, in one batch of rows per size."""
    gen = torch.Generator().manual_seed(vocab)
    rows = min(vocab, 64)
    x = torch.randn(rows + 12, vocab, generator=gen)
    positions = torch.linspace(0, vocab - 1, rows).long()
    x[torch.arange(rows), positions] = 10.0
    ties = x[rows:rows + 4]
    ties[:, [vocab - 1, 0]] = 8.0  # first and last element
    ties[1, [16 % vocab, 0]] = 9.0  # same lane, other accumulator
    ties[2, [64 % vocab, 0]] = 9.0  # same lane and accumulator, next block
    ties[3] = 1.5  # all tied
    special = x[rows + 4:]
    special[0, vocab // 2] = float("nan")
    special[1, [vocab // 2, vocab - 1]] = torch.tensor([float("inf"), float("nan")])  # a NaN after an infinity
    special[2, -1] = float("nan")  # in the tail
    special[3] = float("-inf")
    special[4, [vocab - 1, vocab // 3]] = float("inf")  # two +inf: the first
    special[5] = torch.finfo(torch.float32).max
    special[6] = torch.where(torch.arange(vocab) % 2 == 0, -0.0, 0.0)  # signed zeros compare equal
    special[7, 0] = float("nan")
    assert torch.equal(emulated.argmax(x, False), reference_argmax(x))
    assert torch.equal(emulated.argmax(x[:rows], False), positions)
    wide = torch.randn(3, vocab + 40, generator=gen)
    assert torch.equal(emulated.argmax(wide[:, 3:vocab + 3], False), reference_argmax(wide[:, 3:vocab + 3]))


# bfloat16 decode attention (paged_attention.cpp's AVX512-BF16 path: vdpbf16ps, 16-token tiles, 4-head blocks)


@pytest.mark.parametrize("head_dim", [32, 64, 96, 128])
def test_bfloat16_decode_tiles_and_head_blocks_match_the_reference(emulated: Any, head_dim: int) -> None:
    """Contexts around a 16-token tile, 5 query heads per KV head (a block of 4 and one), dims with a partial
    64-dim chunk (as test_cpu_kernels.py's test of this path)."""
    b = make_batch([1, 15, 16, 17, 33, 100], [], kv_heads=2, group=5, head_dim=head_dim, block_size=8,
                   dtype=torch.bfloat16, device=torch.device("cpu"), seed=head_dim)
    expected = reference_attention(b.q.float(), b.k_cache.float(), b.v_cache.float(), b.meta, 0.2)
    out = emulated.decode_attention(b.q, b.k_cache, b.v_cache, b.meta.block_tables, b.meta.seq_lens, 0.2)
    assert out.dtype == torch.bfloat16 and out.shape == b.q.shape
    tolerance = TOLERANCE[torch.bfloat16]
    torch.testing.assert_close(out.float(), expected, atol=tolerance, rtol=tolerance)


@pytest.mark.parametrize(("kv_heads", "group"), [(2, 1), (3, 3), (1, 8)])
@pytest.mark.parametrize("block_size", [4, 16])
def test_bfloat16_decode_batches_match_the_reference(emulated: Any, kv_heads: int, group: int,
                                                     block_size: int) -> None:
    b = make_batch([1, block_size, block_size + 1, 3 * block_size - 1, 70], [], kv_heads=kv_heads, group=group,
                   head_dim=64, block_size=block_size, dtype=torch.bfloat16, device=torch.device("cpu"),
                   seed=block_size + group)
    expected = reference_attention(b.q.float(), b.k_cache.float(), b.v_cache.float(), b.meta, 0.125)
    out = emulated.decode_attention(b.q, b.k_cache, b.v_cache, b.meta.block_tables, b.meta.seq_lens, 0.125)
    tolerance = TOLERANCE[torch.bfloat16]
    torch.testing.assert_close(out.float(), expected, atol=tolerance, rtol=tolerance)
