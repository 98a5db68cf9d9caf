"""The C++ one-row int4 and int8 linears (kernels/cpu/int4_linear.cpp, int8_linear.cpp) equal their plain-torch
references, stay close to torch's own kernels on the same weights, refuse what they cannot read, and are what a
quantized ``Linear`` runs for exactly one input row. The int4 kernel's checks run with the input in one level (the
small-batch kernel) and in two (the one-row linear), in both builds."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest
import torch

import kernels.cpu
from engine.layers.linear import INT4_GROUP_SIZE, Linear
from kernels import dispatch
from kernels.reference.quantized_linear import (
    dequantize_int4,
    int4_linear,
    int8_linear,
    quantize_rows_int8,
    unpack_int4_codes,
)

pytestmark = [
    pytest.mark.skipif(not kernels.cpu.load(), reason="no C++ toolchain to build the CPU kernels"),
    pytest.mark.skipif(kernels.cpu.load() and not kernels.cpu.one_row_linear_supported("int4", 64, 64),
                       reason="this CPU has neither AVX-512 VNNI nor AVX2: torch's kernels serve every row count"),
]


def quantized(out_features: int, in_features: int, dtype: torch.dtype = torch.bfloat16, seed: int = 0) -> Linear:
    torch.manual_seed(seed)
    layer = Linear(in_features, out_features).to(dtype)
    torch.nn.init.normal_(layer.weight, std=0.05)
    assert layer.quantize_int4(max_rows=64)
    return layer


def run(layer: Linear, x: torch.Tensor, kernel=kernels.cpu.int4_linear) -> torch.Tensor:
    return kernel(x, layer.quant_weight, INT4_GROUP_SIZE, layer.quant_scales)


@dataclass(frozen=True)
class Int4Kernel:
    """An int4 kernel op with torch's signature and the input quantization levels it uses (the reference's)."""

    op: Callable[..., torch.Tensor]
    levels: int

    def __call__(self, x: torch.Tensor, packed: torch.Tensor, group: int, scales_zeros: torch.Tensor) -> torch.Tensor:
        return self.op(x, packed, group, scales_zeros)


@pytest.fixture(params=["dispatched", "avx2", "dispatched-two-level", "avx2-two-level"])
def int4_kernel(request: pytest.FixtureRequest) -> Int4Kernel:
    """``int4_linear`` (the AVX-512 kernel where it is built, else the AVX2 one) and the AVX2 build as its own op
    (int4_linear_avx2.cpp: other float sums than the AVX-512 kernel's, so its own checks on AVX-512 machines), each
    with one input level (``int4_linear``) and two (``int4_linear_two_level``)."""
    build, _, two = request.param.partition("-")
    levels = 2 if two else 1
    if build == "dispatched":
        return Int4Kernel(kernels.cpu.int4_linear_two_level if two else kernels.cpu.int4_linear, levels)
    if not torch.ops.warden_cpu.one_row_linear_supported():
        pytest.skip("no AVX-512 VNNI here: int4_linear is the AVX2 build already")
    return Int4Kernel(lambda x, packed, group, sz: torch.ops.warden_cpu.int4_linear_avx2(x, packed, group, sz, levels),
                      levels)


def test_the_reference_unpacks_torchs_packing() -> None:
    layer = quantized(128, 64)
    codes = unpack_int4_codes(layer.quant_weight, 128, 64)
    assert codes.min() >= 0 and codes.max() <= 15
    # The weights came from these codes: dequantized they sit within half a step of the originals.
    weight = dequantize_int4(layer.quant_weight, INT4_GROUP_SIZE, layer.quant_scales, 64)
    step = layer.quant_scales[..., 0].float().t().repeat_interleave(INT4_GROUP_SIZE, dim=1)
    assert ((weight - layer.weight.float()).abs() <= step / 2 + 1e-2 * step + 1e-3).all()


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
@pytest.mark.parametrize(("out_features", "in_features"), [(64, 32), (128, 64), (960, 576), (576, 1536)])
@pytest.mark.parametrize("rows", [1, 3])
def test_equals_the_reference(dtype, out_features, in_features, rows, int4_kernel) -> None:
    layer = quantized(out_features, in_features, dtype, seed=out_features + rows)
    x = torch.randn(rows, in_features, dtype=dtype)
    out = run(layer, x, int4_kernel)
    expected = int4_linear(x, layer.quant_weight, INT4_GROUP_SIZE, layer.quant_scales, int4_kernel.levels)
    assert out.dtype == dtype and out.shape == (rows, out_features)
    # Same integer dot products; float32 sums in another order (scale x dot and offset x sum cancel near zero),
    # then one rounding to the output dtype (outputs here are of order 1).
    torch.testing.assert_close(out.float(), expected.float(), rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
# Tiles of up to 4 rows (the regrouping kernel, AVX2) or 8 (the permuting one) and their remainders.
@pytest.mark.parametrize("rows", [2, 3, 4, 5, 7, 8, 9, 16, 17])
def test_several_rows_equal_the_reference_and_each_row_alone(dtype, rows, int4_kernel) -> None:
    """Rows are dotted with each unpacked weight vector a tile at a time; every row's results are bitwise those it
    gets alone (the same operations, whatever the tile)."""
    layer = quantized(192, 576, dtype, seed=rows)
    x = torch.randn(rows, 576, dtype=dtype)
    x[rows // 2] *= 50  # rows of other magnitudes share the tile
    out = run(layer, x, int4_kernel)
    expected = int4_linear(x, layer.quant_weight, INT4_GROUP_SIZE, layer.quant_scales, int4_kernel.levels)
    for m in range(rows):  # outputs scale with their row
        size = x[m].abs().amax().item()
        torch.testing.assert_close(out[m].float() / size, expected[m].float() / size, rtol=1e-2, atol=1e-2)
    alone = torch.cat([run(layer, x[m:m + 1], int4_kernel) for m in range(rows)])
    assert torch.equal(out, alone)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
@pytest.mark.parametrize("levels", [1, 2])
@pytest.mark.parametrize("per_block_scales", [False, True])
@pytest.mark.parametrize(("out_features", "in_features", "group"), [(64, 32, 32), (960, 576, 32), (576, 1536, 32),
                                                                     (192, 512, 64), (128, 256, 256)])
def test_the_permuting_kernel_is_bitwise_the_regrouping_one(dtype, levels, per_block_scales, out_features,
                                                            in_features, group) -> None:
    """Where AVX512-VBMI builds the permuting kernel (int4_linear.cpp: vpermt2b gathers each row's codes, tiles of
    up to 8 rows), it serves ``int4_linear`` and ``int4_linear_two_level``; its integer sums and float updates are
    the regrouping kernel's, so every row count (1-8 rows: one tile; 9-17: a full tile and a remainder; levels 2:
    each row two rows of a tile) gives the regrouping kernel's results bit for bit."""
    if not torch.ops.warden_cpu.int4_linear_permutes():
        pytest.skip("no AVX512-VBMI here: int4_linear is the regrouping kernel (or the AVX2 one) already")
    torch.manual_seed(out_features + group)
    codes = torch.randint(0, 16, (out_features, in_features), dtype=torch.int32)
    packed = torch._convert_weight_to_int4pack_for_cpu(codes, 1)
    scales_zeros = torch.stack([torch.rand(in_features // group, out_features) * 0.02 + 1e-3,
                                torch.randn(in_features // group, out_features) * 0.01],
                               dim=-1).to(dtype).contiguous()
    scales = torch.ops.warden_cpu.int4_row_scales(scales_zeros) if per_block_scales else scales_zeros
    op = kernels.cpu.int4_linear_two_level if levels == 2 else kernels.cpu.int4_linear
    for rows in [*range(1, 10), 15, 16, 17]:
        x = torch.randn(rows, in_features, dtype=dtype)
        x[rows // 2] *= 50  # rows of other magnitudes share a tile
        out = op(x, packed, group, scales)
        assert torch.equal(out, torch.ops.warden_cpu.int4_linear_regrouped(x, packed, group, scales, levels)), rows


@pytest.mark.parametrize("group", [64, 128, 256])
def test_other_group_sizes_torch_packs_equal_the_reference(group: int, int4_kernel) -> None:
    """The engine quantizes in groups of 32; the op takes any group torch's packing does (and the input is
    quantized in the same groups)."""
    torch.manual_seed(group)
    codes = torch.randint(0, 16, (192, 512), dtype=torch.int32)
    packed = torch._convert_weight_to_int4pack_for_cpu(codes, 1)
    scales_zeros = torch.stack([torch.rand(512 // group, 192) * 0.02 + 1e-3, torch.randn(512 // group, 192) * 0.01],
                               dim=-1).to(torch.bfloat16).contiguous()
    assert torch.equal(unpack_int4_codes(packed, 192, 512), codes)
    x = torch.randn(2, 512, dtype=torch.bfloat16)
    out = int4_kernel(x, packed, group, scales_zeros)
    expected = int4_linear(x, packed, group, scales_zeros, int4_kernel.levels)
    torch.testing.assert_close(out.float(), expected.float(), rtol=1e-2, atol=1e-2)
    # and torch's own kernel agrees within the input quantization
    torchs = torch._weight_int4pack_mm_for_cpu(x, packed, group, scales_zeros).float()
    assert ((out.float() - torchs).pow(2).mean().sqrt() / torchs.pow(2).mean().sqrt()) < 0.02


def test_stays_close_to_torchs_kernel_which_keeps_the_input_in_float(int4_kernel) -> None:
    """The int8 input costs well under 1% of the output's size (the int4 weights themselves cost far more)."""
    layer = quantized(3072, 576)
    x = torch.randn(1, 576, dtype=torch.bfloat16)
    ours, torchs = run(layer, x, int4_kernel).float(), run(layer, x, torch._weight_int4pack_mm_for_cpu).float()
    relative_rms = (ours - torchs).pow(2).mean().sqrt() / torchs.pow(2).mean().sqrt()
    assert relative_rms < 0.01
    # and the reference's input quantization is what makes the difference
    exact = x.float() @ dequantize_int4(layer.quant_weight, INT4_GROUP_SIZE, layer.quant_scales, 576).t()
    torch.testing.assert_close(torchs, exact, rtol=1e-2, atol=2e-2)


def test_two_input_levels_are_as_close_to_the_float_product_as_torchs_kernel() -> None:
    """One level rounds each input to ~7 bits of its group's largest; the second level (the rounding error in 254
    steps) leaves ~15, finer than the bf16 input itself: the outputs are then as close to the float32 product as
    torch's kernel's, which converts every weight to float (both differ from it by their bf16 output rounding)."""
    layer = quantized(3072, 576)
    x = torch.randn(4, 576, dtype=torch.bfloat16)
    exact = x.float() @ dequantize_int4(layer.quant_weight, INT4_GROUP_SIZE, layer.quant_scales, 576).t()

    def error(kernel) -> float:
        return ((run(layer, x, kernel).float() - exact).pow(2).mean().sqrt() / exact.pow(2).mean().sqrt()).item()

    one, two, torchs = error(kernels.cpu.int4_linear), error(kernels.cpu.int4_linear_two_level), error(
        torch._weight_int4pack_mm_for_cpu)
    assert two < one / 2
    assert two < 1.1 * torchs


def test_rows_of_zeros_and_outliers(int4_kernel) -> None:
    layer = quantized(128, 64)
    x = torch.zeros(2, 64, dtype=torch.bfloat16)
    x[1, 5] = 300.0  # one outlier: its group's other inputs quantize to 0, the other group keeps its scale
    x[1, 40:] = torch.linspace(-1, 1, 24, dtype=torch.bfloat16)
    out = run(layer, x, int4_kernel)
    assert torch.equal(out[0], torch.zeros(128, dtype=torch.bfloat16))
    assert torch.equal(quantize_rows_int8(x, INT4_GROUP_SIZE, levels=1)[1, :32].nonzero().flatten(), torch.tensor([5]))
    expected = int4_linear(x, layer.quant_weight, INT4_GROUP_SIZE, layer.quant_scales, int4_kernel.levels)
    torch.testing.assert_close(out.float(), expected.float(), rtol=1e-2, atol=1e-2)


def test_a_non_contiguous_row_is_read_as_its_values(int4_kernel) -> None:
    layer = quantized(64, 64)
    wide = torch.randn(1, 128, dtype=torch.bfloat16)
    strided, packed = run(layer, wide[:, ::2], int4_kernel), run(layer, wide[:, ::2].contiguous(), int4_kernel)
    torch.testing.assert_close(strided, packed, rtol=0, atol=0)


def test_what_it_cannot_read_is_refused(int4_kernel) -> None:
    assert_refuses_what_it_cannot_read(int4_kernel)


def assert_refuses_what_it_cannot_read(int4_kernel) -> None:
    layer = quantized(128, 64)
    x = torch.randn(1, 64, dtype=torch.bfloat16)
    with pytest.raises(RuntimeError, match="bfloat16 or float16"):
        run(layer, x.float(), int4_kernel)
    with pytest.raises(RuntimeError, match="K / 2"):
        run(layer, torch.randn(1, 32, dtype=torch.bfloat16), int4_kernel)
    with pytest.raises(RuntimeError, match="multiple of 64"):
        int4_kernel(x, layer.quant_weight[:48], INT4_GROUP_SIZE, layer.quant_scales[:, :48])
    with pytest.raises(RuntimeError, match="group"):
        int4_kernel(x, layer.quant_weight, 12, layer.quant_scales)
    with pytest.raises(RuntimeError, match="scales_zeros"):
        int4_kernel(x, layer.quant_weight, INT4_GROUP_SIZE, layer.quant_scales.float())


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
@pytest.mark.parametrize(("out_features", "in_features"), [(64, 32), (960, 576), (576, 1536)])
@pytest.mark.parametrize("rows", [1, 3, 5])
@pytest.mark.parametrize("op", [kernels.cpu.int4_linear, kernels.cpu.int4_linear_two_level])
def test_the_one_row_scales_layout_gives_bitwise_the_results_of_torchs(dtype, out_features, in_features, rows,
                                                                       op) -> None:
    """A quantized Linear keeps its scales per 64-row block too (where the AVX-512 kernel runs), for its one-row
    linear; the kernels read either layout to the same outputs."""
    layer = quantized(out_features, in_features, dtype, seed=rows)
    assert layer.quant_row_scales is not None
    if kernels.cpu.int4_gemm_runs():  # the AVX2 kernel serves int4_linear here and reads torch's layout only
        assert layer.quant_row_scales is layer.quant_scales
    else:
        assert layer.quant_row_scales.shape == (out_features // 64, in_features // INT4_GROUP_SIZE, 64, 2)
    x = torch.randn(rows, in_features, dtype=dtype)
    assert torch.equal(op(x, layer.quant_weight, INT4_GROUP_SIZE, layer.quant_row_scales),
                       op(x, layer.quant_weight, INT4_GROUP_SIZE, layer.quant_scales))
    assert torch.equal(layer(x[:1]), kernels.cpu.int4_linear_two_level(x[:1], layer.quant_weight, INT4_GROUP_SIZE,
                                                                        layer.quant_scales))


def test_scales_per_block_of_another_shape_are_refused() -> None:
    layer = quantized(128, 64)
    if layer.quant_row_scales is layer.quant_scales:
        pytest.skip("the AVX2 kernel serves int4_linear here: no per-block layout")
    assert layer.quant_row_scales is not None
    x = torch.randn(1, 64, dtype=torch.bfloat16)
    swapped = layer.quant_row_scales.transpose(1, 2).contiguous()
    with pytest.raises(RuntimeError, match="per block"):
        kernels.cpu.int4_linear(x, layer.quant_weight, INT4_GROUP_SIZE, swapped)
    with pytest.raises(RuntimeError, match="in x's dtype"):
        kernels.cpu.int4_linear(x, layer.quant_weight, INT4_GROUP_SIZE, layer.quant_row_scales.half())


def test_warden_kernels_reference_keeps_torchs_kernels(monkeypatch: pytest.MonkeyPatch) -> None:
    dispatch._cpu_module.cache_clear()
    monkeypatch.setenv("WARDEN_KERNELS", "reference")
    try:
        assert quantized(128, 64).quant_kernel is None
        assert int8_quantized(8, 64).quant_kernel is None
    finally:
        dispatch._cpu_module.cache_clear()


def int8_quantized(out_features: int, in_features: int, dtype: torch.dtype = torch.bfloat16, seed: int = 0) -> Linear:
    torch.manual_seed(seed)
    layer = Linear(in_features, out_features).to(dtype)
    torch.nn.init.normal_(layer.weight, std=0.05)
    layer.quantize_int8(max_rows=64)
    return layer


def run_int8(layer: Linear, x: torch.Tensor, kernel=kernels.cpu.int8_linear) -> torch.Tensor:
    return kernel(x, layer.quant_weight, layer.quant_scales)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16])
@pytest.mark.parametrize(("out_features", "in_features"), [(5, 64), (130, 128), (1000, 576)])  # tiles of 4 + tails
@pytest.mark.parametrize("rows", [1, 3])
def test_int8_equals_the_reference(dtype, out_features, in_features, rows) -> None:
    layer = int8_quantized(out_features, in_features, dtype, seed=out_features + rows)
    x = torch.randn(rows, in_features, dtype=dtype)
    out, expected = run_int8(layer, x), int8_linear(x, layer.quant_weight, layer.quant_scales)
    assert out.dtype == dtype and out.shape == (rows, out_features)
    torch.testing.assert_close(out.float(), expected.float(), rtol=1e-2, atol=1e-2)


def test_int8_stays_close_to_torchs_kernel_and_keeps_the_argmax() -> None:
    """An LM-head-like shape: with both quantization levels the input loses no more than bfloat16 rounding does
    (one level alone: ~0.6% of the logits' size, and SmolLM2's greedy outputs moved)."""
    layer = int8_quantized(8192, 576)
    x = torch.randn(4, 576, dtype=torch.bfloat16)
    ours, torchs = run_int8(layer, x).float(), run_int8(layer, x, torch._weight_int8pack_mm).float()
    assert ((ours - torchs).pow(2).mean().sqrt() / torchs.pow(2).mean().sqrt()) < 0.002
    assert torch.equal(ours.argmax(dim=1), torchs.argmax(dim=1))


def test_int8_rows_of_zeros_and_extremes() -> None:
    """All-zero input, and weights at -128/127 against inputs at the code limits (the flipped sign bit's range)."""
    layer = int8_quantized(8, 64, torch.float32)
    layer.quant_weight[0] = -128
    layer.quant_weight[1] = 127
    x = torch.zeros(2, 64)
    x[1] = torch.tensor([1.0, -1.0] * 32)
    out = run_int8(layer, x)
    assert torch.equal(out[0], torch.zeros(8))
    torch.testing.assert_close(out, int8_linear(x, layer.quant_weight, layer.quant_scales), rtol=1e-5, atol=1e-5)


def test_int8_refuses_what_it_cannot_read() -> None:
    layer = int8_quantized(8, 64)
    x = torch.randn(1, 64, dtype=torch.bfloat16)
    with pytest.raises(RuntimeError, match="multiple of 64"):
        kernels.cpu.int8_linear(x[:, :32], layer.quant_weight[:, :32].contiguous(), layer.quant_scales)
    with pytest.raises(RuntimeError, match="int8"):
        kernels.cpu.int8_linear(x, layer.quant_weight.to(torch.uint8), layer.quant_scales)
    with pytest.raises(RuntimeError, match="scales"):
        kernels.cpu.int8_linear(x, layer.quant_weight, layer.quant_scales.float())
    with pytest.raises(RuntimeError, match="float32, bfloat16 or float16"):
        kernels.cpu.int8_linear(x.double(), layer.quant_weight, layer.quant_scales.double())


@pytest.mark.parametrize("kind", ["int4", "int8"])
def test_a_quantized_linear_runs_the_kernel_for_its_kernel_rows_and_torchs_for_more(kind: str) -> None:
    """int4: up to the kernel_rows it was given (the engine's cpu_small_batch_rows); int8: one row."""
    if kind == "int4":
        layer, call, torchs = quantized(128, 64), run, int4_above_kernel_rows()
        one_row, ours = kernels.cpu.int4_linear_two_level, kernels.cpu.int4_linear  # two input levels at one row
        assert layer.quantize_int4(max_rows=64, kernel_rows=3)
        # 48 output rows: torch packs them in another layout, so torch's kernel serves every row count
        unsupported = quantized(48, 64)
        kernel_rows = 3
    else:
        layer, call, torchs = int8_quantized(8, 64), run_int8, torch._weight_int8pack_mm
        one_row = ours = kernels.cpu.int8_linear
        unsupported = int8_quantized(8, 96)  # 96 inputs: not whole 64-input chunks
        kernel_rows = 1
    assert layer.quant_kernel is one_row and layer.quant_kernel_rows == kernel_rows
    for rows in sorted({1, 2, kernel_rows, kernel_rows + 1}):
        x = torch.randn(rows, 64, dtype=torch.bfloat16)
        expected = one_row if rows == 1 else ours if rows <= kernel_rows else torchs
        assert torch.equal(layer(x), call(layer, x, expected)), rows
    assert unsupported.quant_kernel is None


@pytest.mark.parametrize("kind", ["int4", "int8"])
def test_a_nan_or_infinite_input_shows_in_the_output(kind: str, int4_kernel) -> None:
    """Non-finite inputs have no int8 code; the kernels make their rows NaN (as torch's float kernels would) rather
    than drop them."""
    layer = quantized(64, 64) if kind == "int4" else int8_quantized(8, 64)
    call = (lambda layer, x: run(layer, x, int4_kernel)) if kind == "int4" else run_int8
    x = torch.randn(3, 64, dtype=torch.bfloat16)
    x[0, 3], x[1, 40] = float("nan"), float("inf")
    out = call(layer, x)
    assert out[:2].isnan().all() and out[2].isfinite().all()


def int4_above_kernel_rows(dtype: torch.dtype = torch.bfloat16):
    """What int4_linear_up_to runs above its kernel rows here for inputs of ``dtype``: the bf16 GEMM (AVX512-BF16,
    bf16 inputs), the AVX2 GEMM (CPUs without the AVX-512 kernel), or torch's kernel."""
    if dtype == torch.bfloat16 and kernels.cpu.int4_gemm_bf16_runs():
        return kernels.cpu.int4_gemm_bf16
    return kernels.cpu.int4_gemm_avx2 if kernels.cpu.int4_gemm_runs() else torch._weight_int4pack_mm_for_cpu


@pytest.mark.parametrize("kernel_rows", [2, 3, 8])  # the bound at a tile's remainder, and at a full 8-row tile
def test_int4_linear_up_to_picks_the_kernel_up_to_its_rows_and_the_gemm_or_torchs_above(kernel_rows: int) -> None:
    # int4_gemm_bf16_serves states the rule the op applies (the engine asks it to choose its small-batch rows).
    for dtype in (torch.bfloat16, torch.float16):
        assert kernels.cpu.int4_gemm_bf16_serves(dtype) == (int4_above_kernel_rows(dtype) is kernels.cpu.int4_gemm_bf16)
    layer = quantized(128, 64)
    assert layer.quantize_int4(max_rows=64, kernel_rows=kernel_rows)
    for rows in sorted({1, 2, 3, 4, kernel_rows, kernel_rows + 1, 9, 17}):
        x = torch.randn(rows, 64, dtype=torch.bfloat16)
        chosen = kernels.cpu.int4_linear_up_to(x, layer.quant_weight, INT4_GROUP_SIZE, layer.quant_scales,
                                               kernel_rows)
        ours = rows <= kernel_rows
        expected = run(layer, x, kernels.cpu.int4_linear if ours else int4_above_kernel_rows())
        assert torch.equal(chosen, expected), rows


def int8_weights(out_features: int, in_features: int, dtype: torch.dtype, seed: int) -> tuple[torch.Tensor, ...]:
    """Per-channel int8 weights with scales in ``dtype`` (``Linear.quantize_int8``'s), and the float32 weight they
    stand for."""
    layer = int8_quantized(out_features, in_features, dtype, seed)
    return layer.quant_weight, layer.quant_scales, layer.quant_weight.float() * layer.quant_scales.float()[:, None]


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16])
@pytest.mark.parametrize("rows", [1, 2, 3, 4, 5, 7, 8, 9, 13, 32])  # tiles of up to 4 input rows and their remainders
def test_int8_several_rows_equal_each_row_alone_and_the_float_product(dtype, rows) -> None:
    """Each weight chunk is dotted with a tile of input rows; every row's results are bitwise those it gets alone
    (the same operations in the same order, whatever the tile), for any row count."""
    weight, scales, dequantized = int8_weights(130, 192, dtype, seed=rows)  # 130: output tiles of 4 and a tail of 2
    x = torch.randn(rows, 192, dtype=dtype)
    x[rows // 2] *= 50  # rows of other magnitudes share the tile
    out = kernels.cpu.int8_linear(x, weight, scales)
    assert out.dtype == dtype and out.shape == (rows, 130)
    alone = torch.cat([kernels.cpu.int8_linear(x[m:m + 1], weight, scales) for m in range(rows)])
    assert torch.equal(out, alone)
    expected = x.float() @ dequantized.t()
    for m in range(rows):  # outputs scale with their row
        size = x[m].float().abs().amax().item()
        torch.testing.assert_close(out[m].float() / size, expected[m] / size, rtol=1e-2, atol=1e-2)


def test_int8_zero_and_non_finite_rows_stay_their_own_in_a_tile() -> None:
    """A zero row gives zeros and a NaN or infinite input makes its row NaN, without touching the rows it shares a
    tile with (6 rows: a tile of 4 and one of 2)."""
    weight, scales, _ = int8_weights(68, 128, torch.bfloat16, seed=1)
    x = torch.randn(6, 128, dtype=torch.bfloat16)
    x[1] = 0
    x[2, 3] = float("nan")
    x[4, 100] = float("-inf")
    out = kernels.cpu.int8_linear(x, weight, scales)
    assert torch.equal(out[1], torch.zeros(68, dtype=torch.bfloat16))
    assert out[2].isnan().all() and out[4].isnan().all()
    assert out[[0, 3, 5]].isfinite().all()
    alone = torch.cat([kernels.cpu.int8_linear(x[m:m + 1], weight, scales) for m in range(6)])
    torch.testing.assert_close(out, alone, rtol=0, atol=0, equal_nan=True)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16])
@pytest.mark.parametrize("out_features", [72, 128])  # 72: not whole 64-row blocks, which the bf16 GEMM converts
def test_int8_linear_up_to_picks_the_kernel_up_to_its_rows_and_the_gemm_or_torchs_above(dtype, out_features) -> None:
    weight, scales, _ = int8_weights(out_features, 128, dtype, seed=2)
    gemm_above = dtype == torch.bfloat16 and out_features % 64 == 0 and kernels.cpu.int8_gemm_bf16_runs()
    assert kernels.cpu.int8_gemm_bf16_serves(dtype, out_features) == gemm_above
    above = kernels.cpu.int8_gemm_bf16 if gemm_above else torch._weight_int8pack_mm
    for rows in (1, 3, 4, 5, 9):
        x = torch.randn(rows, 128, dtype=dtype)
        chosen = kernels.cpu.int8_linear_up_to(x, weight, scales, 4)
        expected = (kernels.cpu.int8_linear if rows <= 4 else above)(x, weight, scales)
        assert chosen.dtype == dtype and torch.equal(chosen, expected), rows


# The AVX512-BF16 GEMM for many rows of an int8 linear (int8_gemm_bf16.cpp).

needs_int8_gemm = pytest.mark.skipif(not kernels.cpu.int8_gemm_bf16_runs(),
                                     reason="no AVX512-BF16 here: int8_gemm_bf16 is not built")


@needs_int8_gemm
@pytest.mark.parametrize(("out_features", "in_features"), [(64, 64), (192, 576), (128, 1536), (1024, 576)])
@pytest.mark.parametrize("rows", [1, 3, 4, 5, 9, 16, 17, 33])  # tiles of 4 and remainders; 16 / 17: both layouts
def test_int8_gemm_is_the_float_product_of_the_unquantized_inputs(out_features, in_features, rows) -> None:
    """int8 weights are exact in bfloat16 and vdpbf16ps's products exact in float32: the float product of the
    unquantized inputs, rounded once, in both layouts (k-lanes up to 16 rows, broadcast operands above)."""
    weight, scales, _ = int8_weights(out_features, in_features, torch.bfloat16, seed=out_features + rows)
    x = torch.randn(rows, in_features, dtype=torch.bfloat16)
    out = kernels.cpu.int8_gemm_bf16(x, weight, scales)
    assert out.dtype == torch.bfloat16 and out.shape == (rows, out_features)
    exact = (x.double() @ weight.double().t()) * scales.double()
    assert_within_output_rounding(out, exact.float())


@needs_int8_gemm
@pytest.mark.parametrize("rows", [1, 17])  # the k-lanes and the broadcast layout
def test_int8_gemm_places_every_weight_at_its_row_and_input(rows: int) -> None:
    """One nonzero weight at a time, at rows and k across a 64-row block (every byte of a k-lanes lane, both sides
    of the broadcast layout's 16 x 16 word transposition), lands in exactly its output, for every input row."""
    in_features = 64
    x = (torch.arange(in_features, dtype=torch.float32) + 1).repeat(rows, 1) * torch.arange(1, rows + 1)[:, None]
    x = x.to(torch.bfloat16)
    for row, k in [(0, 0), (0, 1), (15, 2), (16, 31), (17, 33), (47, 62), (63, 63), (5, 17), (9, 3)]:
        weight = torch.zeros(128, in_features, dtype=torch.int8)
        weight[64 + row, k] = -3  # in the second block
        out = kernels.cpu.int8_gemm_bf16(x, weight, torch.ones(128, dtype=torch.bfloat16))
        expected = torch.zeros(rows, 128)
        expected[:, 64 + row] = -3 * x[:, k].float()
        assert torch.equal(out.float(), expected.bfloat16().float()), (row, k)


@needs_int8_gemm
def test_int8_gemm_gives_every_row_what_it_gets_alone_and_keeps_non_finite_rows() -> None:
    weight, scales, _ = int8_weights(192, 576, torch.bfloat16, seed=7)
    x = torch.randn(11, 576, dtype=torch.bfloat16)  # up to 16 rows: one layout, whatever the tiles
    x[2] = 0
    x[3, 100] = 500.0  # an outlier: no input quantization flattens the rest of its group
    x[5, 7], x[8, 300] = float("nan"), float("inf")
    together = kernels.cpu.int8_gemm_bf16(x, weight, scales)
    for m in range(11):
        alone = kernels.cpu.int8_gemm_bf16(x[m:m + 1], weight, scales)
        torch.testing.assert_close(together[m:m + 1], alone, rtol=0, atol=0, equal_nan=True)
    assert torch.equal(together[2], torch.zeros(192, dtype=torch.bfloat16))
    finite = [0, 1, 3, 4, 6, 7, 9, 10]
    assert_within_output_rounding(together[finite], ((x[finite].double() @ weight.double().t())
                                                     * scales.double()).float())
    assert together[5].isnan().all() and not together[8].isfinite().any()


@needs_int8_gemm
def test_int8_gemm_stays_closer_to_float_than_int8_inputs_do() -> None:
    """Against the two-level int8 inputs of the small-batch kernel, on rows with an outlier channel."""
    weight, scales, dequantized = int8_weights(1024, 576, torch.bfloat16, seed=3)
    x = torch.randn(12, 576, dtype=torch.bfloat16)
    x[:, 100] = 60.0
    exact = x.float() @ dequantized.t()

    def error(out: torch.Tensor) -> float:
        return float((out.float() - exact).pow(2).mean().sqrt() / exact.pow(2).mean().sqrt())

    assert error(kernels.cpu.int8_gemm_bf16(x, weight, scales)) <= error(kernels.cpu.int8_linear(x, weight, scales))


@needs_int8_gemm
def test_int8_gemm_refuses_what_it_cannot_read() -> None:
    weight, scales, _ = int8_weights(128, 64, torch.bfloat16, seed=1)
    with pytest.raises(RuntimeError, match="takes bfloat16 inputs"):
        kernels.cpu.int8_gemm_bf16(torch.randn(9, 64), weight, scales.float())
    odd_weight, odd_scales, _ = int8_weights(72, 64, torch.bfloat16, seed=1)
    with pytest.raises(RuntimeError, match="multiple of 64"):
        kernels.cpu.int8_gemm_bf16(torch.randn(9, 64, dtype=torch.bfloat16), odd_weight, odd_scales)
    with pytest.raises(RuntimeError, match="K must be a multiple of 64"):
        kernels.cpu.int8_gemm_bf16(torch.randn(9, 32, dtype=torch.bfloat16), weight[:, :32].contiguous(), scales)


def test_int8_linear_up_to_traces_with_its_output_shape() -> None:
    """The compiled engine traces the op with fake tensors (its registered shape function), never running it."""
    from torch._subclasses.fake_tensor import FakeTensorMode

    with FakeTensorMode():
        x = torch.empty(7, 128, dtype=torch.bfloat16)
        out = kernels.cpu.int8_linear_up_to(x, torch.empty(72, 128, dtype=torch.int8),
                                            torch.empty(72, dtype=torch.bfloat16), 4)
        assert out.shape == (7, 72) and out.dtype == torch.bfloat16


@pytest.mark.parametrize(("dtype", "rows"), [(torch.float32, 5), (torch.bfloat16, 9), (torch.float16, 3)])
def test_int8_avx2_kernel_gives_the_avx512_kernels_results_bitwise(dtype, rows) -> None:
    """Without AVX-512 VNNI, int8_linear runs the AVX2 build of the same kernel (int8_linear_avx2, built on every
    x86 CPU with AVX2): the same integers per lane, the same float operations in the same order, the same bits. On
    an AVX2-only CPU both ops are that build."""
    weight, scales, _ = int8_weights(130, 192, dtype, seed=rows)
    x = torch.randn(rows, 192, dtype=dtype)
    x[1] *= 50
    avx2 = torch.ops.warden_cpu.int8_linear_avx2(x, weight, scales)
    assert torch.equal(avx2, kernels.cpu.int8_linear(x, weight, scales))


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16])
@pytest.mark.parametrize("out_features", [16, 83, 160])  # whole 16-row blocks, and a tail of 3 rows
def test_int8_one_row_gives_the_avx2_kernels_bits(dtype, out_features) -> None:
    """One input row takes a path of its own on AVX-512 (the weight bytes widened in place, the sums of 16 output
    rows gathered across lanes): the same integers per lane and the same float operations as the kernel for several
    rows, so the bits of the AVX2 kernel, with the weights' extremes (-128, 127) among the rows."""
    weight, scales, _ = int8_weights(out_features, 576, dtype, seed=out_features)
    weight[0], weight[5] = -128, 127
    weight[9, ::2] = -128
    for scale in (1.0, 50.0, 1e-3):
        x = torch.randn(1, 576, dtype=dtype) * scale
        out = kernels.cpu.int8_linear(x, weight, scales)
        assert torch.equal(out, torch.ops.warden_cpu.int8_linear_avx2(x, weight, scales))
        assert torch.equal(out, kernels.cpu.int8_linear(torch.cat([x, x]), weight, scales)[:1])
    x[0, 300] = float("nan")
    assert kernels.cpu.int8_linear(x, weight, scales).isnan().all()


# The AVX2 float32 GEMM for many rows (int4_gemm_avx2.cpp): unquantized inputs times the dequantized weights.


def float_product(x: torch.Tensor, packed: torch.Tensor, group: int, scales_zeros: torch.Tensor) -> torch.Tensor:
    return x.float() @ dequantize_int4(packed, group, scales_zeros, x.shape[1]).t()


def assert_within_output_rounding(out: torch.Tensor, exact: torch.Tensor) -> None:
    """The float32 product in another order of additions, rounded once to the output's dtype: within half a unit in
    the last place of bf16/fp16 (plus the summation's own error, far below it for these sizes)."""
    unit = 2.0 ** -8 if out.dtype == torch.bfloat16 else 2.0 ** -11
    assert ((out.float() - exact).abs() <= exact.abs() * unit + 1e-4).all()


@dataclass(frozen=True)
class Int4Gemm:
    """A many-row int4 GEMM that keeps the inputs unquantized, with the input dtypes it takes."""

    name: str
    op: Callable[..., torch.Tensor]
    dtypes: tuple[torch.dtype, ...]

    def __call__(self, x: torch.Tensor, packed: torch.Tensor, group: int, scales_zeros: torch.Tensor) -> torch.Tensor:
        return self.op(x, packed, group, scales_zeros)


@pytest.fixture(params=["avx2", "bf16"])
def int4_gemm(request: pytest.FixtureRequest) -> Int4Gemm:
    """The AVX2 float32 GEMM (int4_gemm_avx2.cpp) and the AVX512-BF16 one (int4_gemm_bf16.cpp), each
    where it runs."""
    if request.param == "bf16":
        if not kernels.cpu.int4_gemm_bf16_runs():
            pytest.skip("no AVX512-BF16 (or not torch's 64-row packing) here: int4_gemm_bf16 is not built")
        return Int4Gemm("int4_gemm_bf16", kernels.cpu.int4_gemm_bf16, (torch.bfloat16,))
    if not kernels.cpu.int4_gemm_runs() and not torch.ops.warden_cpu.int4_linear_supported():
        pytest.skip("no AVX2 here")
    return Int4Gemm("int4_gemm_avx2", kernels.cpu.int4_gemm_avx2, (torch.bfloat16, torch.float16))


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
@pytest.mark.parametrize(("out_features", "in_features"), [(64, 32), (192, 64), (960, 576), (128, 1536)])
@pytest.mark.parametrize("rows", [1, 4, 5, 6, 7, 8, 13, 33])  # tiles (bf16: converted in registers up to 8 rows)
def test_int4_gemm_is_the_float_product_of_the_unquantized_inputs(dtype, out_features, in_features, rows,
                                                                  int4_gemm) -> None:
    """1536 inputs: six chunks of dequantized k, the results carried across them in float32."""
    if dtype not in int4_gemm.dtypes:
        pytest.skip(f"{int4_gemm.name} takes {int4_gemm.dtypes} inputs")
    layer = quantized(out_features, in_features, dtype, seed=out_features + rows)
    x = torch.randn(rows, in_features, dtype=dtype)
    out = int4_gemm(x, layer.quant_weight, INT4_GROUP_SIZE, layer.quant_scales)
    assert out.dtype == dtype and out.shape == (rows, out_features)
    assert_within_output_rounding(out, float_product(x, layer.quant_weight, INT4_GROUP_SIZE, layer.quant_scales))


def test_int4_gemm_gives_every_row_what_it_gets_alone(int4_gemm) -> None:
    layer = quantized(192, 576, seed=7)
    x = torch.randn(17, 576, dtype=torch.bfloat16)
    together = int4_gemm(x, layer.quant_weight, INT4_GROUP_SIZE, layer.quant_scales)
    for m in range(17):
        alone = int4_gemm(x[m:m + 1], layer.quant_weight, INT4_GROUP_SIZE, layer.quant_scales)
        assert torch.equal(together[m:m + 1], alone), m


@pytest.mark.parametrize("group", [64, 128, 256, 512])  # 512: a chunk of k larger than the default 256
def test_int4_gemm_takes_other_group_sizes(group: int, int4_gemm) -> None:
    torch.manual_seed(group)
    codes = torch.randint(0, 16, (192, 1024), dtype=torch.int32)
    packed = torch._convert_weight_to_int4pack_for_cpu(codes, 1)
    scales_zeros = torch.stack([torch.rand(1024 // group, 192) * 0.02 + 1e-3,
                                torch.randn(1024 // group, 192) * 0.01], dim=-1).to(torch.bfloat16).contiguous()
    x = torch.randn(9, 1024, dtype=torch.bfloat16)
    out = int4_gemm(x, packed, group, scales_zeros)
    assert_within_output_rounding(out, float_product(x, packed, group, scales_zeros))


def test_int4_gemm_keeps_zeros_outliers_and_non_finite_rows(int4_gemm) -> None:
    """No input quantization: an outlier does not flatten its group's other inputs (as int8 inputs would), and a
    NaN or infinity reaches its row's outputs as float arithmetic carries it."""
    layer = quantized(128, 64)
    x = torch.zeros(4, 64, dtype=torch.bfloat16)
    x[1, 5] = 300.0
    x[1, 6:32] = torch.linspace(-1e-2, 1e-2, 26, dtype=torch.bfloat16)
    x[2, 3], x[3, 40] = float("nan"), float("inf")
    out = int4_gemm(x, layer.quant_weight, INT4_GROUP_SIZE, layer.quant_scales)
    assert torch.equal(out[0], torch.zeros(128, dtype=torch.bfloat16))
    exact = float_product(x[:2], layer.quant_weight, INT4_GROUP_SIZE, layer.quant_scales)
    assert_within_output_rounding(out[:2], exact)
    assert out[2].isnan().all() and not out[3].isfinite().any()


def test_int4_gemm_stays_closer_to_float_than_int8_inputs_do(int4_gemm) -> None:
    """What it is for: on a row with an outlier, the int8-input kernel's error is the input quantization's; the
    GEMM's is only the output's rounding."""
    layer = quantized(960, 576)
    x = torch.randn(12, 576, dtype=torch.bfloat16)
    x[:, 100] = 40.0  # an outlier channel, as LLM activations have
    exact = float_product(x, layer.quant_weight, INT4_GROUP_SIZE, layer.quant_scales)

    def error(out: torch.Tensor) -> float:
        return float((out.float() - exact).pow(2).mean().sqrt() / exact.pow(2).mean().sqrt())

    gemm = int4_gemm(x, layer.quant_weight, INT4_GROUP_SIZE, layer.quant_scales)
    int8_inputs = kernels.cpu.int4_linear(x, layer.quant_weight, INT4_GROUP_SIZE, layer.quant_scales)
    assert error(gemm) < 0.25 * error(int8_inputs)


def test_int4_gemm_refuses_what_it_cannot_read(int4_gemm) -> None:
    assert_refuses_what_it_cannot_read(int4_gemm)
    if torch.float16 not in int4_gemm.dtypes:
        layer = quantized(128, 64, torch.float16)
        with pytest.raises(RuntimeError, match="takes bfloat16 inputs"):
            run(layer, torch.randn(9, 64, dtype=torch.float16), int4_gemm)
