"""The int8-input int4 GEMM (kernels/cpu/int4_gemm_int8.h, ``torch.ops.warden_cpu.int4_gemm_int8``): each weight
block unpacked once per call and every row dotted with it, giving ``int4_linear``'s results bit for bit at any row
count, the plain-torch reference's math, and refusing what it cannot read."""

from __future__ import annotations

import pytest
import torch

import kernels.cpu
from engine.layers.linear import INT4_GROUP_SIZE, Linear
from kernels.reference.quantized_linear import int4_linear

pytestmark = [
    pytest.mark.skipif(not kernels.cpu.load(), reason="no C++ toolchain to build the CPU kernels"),
    pytest.mark.skipif(kernels.cpu.load() and not torch.ops.warden_cpu.int4_gemm_int8_runs(),
                       reason="no AVX-512 VNNI + VBMI (or not torch's 64-row packing) here: no int8-input GEMM"),
]


def gemm(x: torch.Tensor, packed: torch.Tensor, group: int, scales_zeros: torch.Tensor) -> torch.Tensor:
    return torch.ops.warden_cpu.int4_gemm_int8(x, packed, group, scales_zeros)


def quantized(out_features: int, in_features: int, dtype: torch.dtype, seed: int) -> Linear:
    torch.manual_seed(seed)
    layer = Linear(in_features, out_features).to(dtype)
    torch.nn.init.normal_(layer.weight, std=0.05)
    assert layer.quantize_int4(max_rows=None)
    return layer


def random_packing(out_features: int, in_features: int, group: int, dtype: torch.dtype,
                   seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    torch.manual_seed(seed)
    codes = torch.randint(0, 16, (out_features, in_features), dtype=torch.int32)
    packed = torch._convert_weight_to_int4pack_for_cpu(codes, 1)
    scales_zeros = torch.stack([torch.rand(in_features // group, out_features) * 0.02 + 1e-3,
                                torch.randn(in_features // group, out_features) * 0.01],
                               dim=-1).to(dtype).contiguous()
    return packed, scales_zeros


# Register tiles of 4 rows and their remainders, up to prompt-chunk sizes.
ROWS = [1, 2, 3, 4, 5, 7, 9, 31, 64, 127, 257, 600]


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
@pytest.mark.parametrize(("out_features", "in_features"), [(64, 32), (960, 576), (576, 1536)])
def test_gives_int4_linears_results_bitwise_at_every_row_count(dtype, out_features, in_features) -> None:
    """The same integer sums and float updates per row, group and 16 outputs as the small-batch kernel, in either
    scales layout (torch's, and per 64-row block)."""
    layer = quantized(out_features, in_features, dtype, seed=out_features)
    assert layer.quant_weight is not None and layer.quant_scales is not None
    assert layer.quant_row_scales is not None
    for rows in ROWS:
        x = torch.randn(rows, in_features, dtype=dtype)
        x[rows // 2] *= 50  # rows of other magnitudes share a tile
        expected = kernels.cpu.int4_linear(x, layer.quant_weight, INT4_GROUP_SIZE, layer.quant_scales)
        out = gemm(x, layer.quant_weight, INT4_GROUP_SIZE, layer.quant_scales)
        assert out.dtype == dtype and out.shape == (rows, out_features)
        assert torch.equal(out, expected), rows
        assert torch.equal(gemm(x, layer.quant_weight, INT4_GROUP_SIZE, layer.quant_row_scales), expected), rows


@pytest.mark.parametrize("rows", [1, 6, 133])
@pytest.mark.parametrize(("out_features", "in_features", "group"), [(192, 512, 32), (192, 512, 64), (128, 256, 256)])
def test_equals_the_plain_torch_reference(rows, out_features, in_features, group) -> None:
    """The int8-quantized rows (one level) times the dequantized int4 weight, float32 sums: the reference's math,
    for the engine's groups of 32 (the unrolled loop) and larger ones torch packs."""
    packed, scales_zeros = random_packing(out_features, in_features, group, torch.bfloat16, seed=rows + group)
    x = torch.randn(rows, in_features, dtype=torch.bfloat16)
    out = gemm(x, packed, group, scales_zeros)
    expected = int4_linear(x, packed, group, scales_zeros, 1)
    # Same integer dots; float32 sums in another order, then one rounding to bfloat16 (outputs of order 1).
    torch.testing.assert_close(out.float(), expected.float(), rtol=1e-2, atol=1e-2)
    assert torch.equal(out, kernels.cpu.int4_linear(x, packed, group, scales_zeros))


def test_zero_rows_and_non_finite_rows_stay_their_own() -> None:
    layer = quantized(128, 64, torch.bfloat16, seed=1)
    assert layer.quant_weight is not None and layer.quant_scales is not None
    x = torch.randn(9, 64, dtype=torch.bfloat16)
    x[2] = 0
    x[5, 3] = float("nan")
    out = gemm(x, layer.quant_weight, INT4_GROUP_SIZE, layer.quant_scales)
    assert torch.equal(out[2], torch.zeros(128, dtype=torch.bfloat16))
    assert out[5].isnan().all()
    finite = [m for m in range(9) if m != 5]
    assert out[finite].isfinite().all()
    assert torch.equal(out[finite], kernels.cpu.int4_linear(x[finite], layer.quant_weight, INT4_GROUP_SIZE,
                                                            layer.quant_scales))


def test_a_non_contiguous_input_is_read_as_its_values() -> None:
    layer = quantized(64, 64, torch.bfloat16, seed=2)
    assert layer.quant_weight is not None and layer.quant_scales is not None
    wide = torch.randn(7, 128, dtype=torch.bfloat16)
    strided = gemm(wide[:, ::2], layer.quant_weight, INT4_GROUP_SIZE, layer.quant_scales)
    assert torch.equal(strided, gemm(wide[:, ::2].contiguous(), layer.quant_weight, INT4_GROUP_SIZE,
                                     layer.quant_scales))


def test_what_it_cannot_read_is_refused() -> None:
    layer = quantized(128, 64, torch.bfloat16, seed=3)
    assert layer.quant_weight is not None and layer.quant_scales is not None
    x = torch.randn(5, 64, dtype=torch.bfloat16)
    with pytest.raises(RuntimeError, match="bfloat16 or float16"):
        gemm(x.float(), layer.quant_weight, INT4_GROUP_SIZE, layer.quant_scales)
    with pytest.raises(RuntimeError, match="K / 2"):
        gemm(torch.randn(5, 32, dtype=torch.bfloat16), layer.quant_weight, INT4_GROUP_SIZE, layer.quant_scales)
    with pytest.raises(RuntimeError, match="multiple of 64"):
        gemm(x, layer.quant_weight[:48], INT4_GROUP_SIZE, layer.quant_scales[:, :48])
    with pytest.raises(RuntimeError, match="group"):
        gemm(x, layer.quant_weight, 12, layer.quant_scales)
    with pytest.raises(RuntimeError, match="scales_zeros"):
        gemm(x, layer.quant_weight, INT4_GROUP_SIZE, layer.quant_scales.float())
