"""The plain-torch reference of the int8-input linears (kernels/reference/quantized_linear.py) quantizes each group
as the C++ kernels do (quantize_input.h: IEEE float32 inverses, products rounded half to even), so the kernels'
outputs are the reference's up to float32 summation order and one rounding to the output dtype, on every row,
including rows with an input on a rounding tie."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import kernels.cpu
from kernels.reference.quantized_linear import dequantize_int4, quantize_rows_int8

GROUP = 32


def ieee_codes(x: torch.Tensor) -> np.ndarray:
    """quantize_input.h's first level in numpy float32: inverse 127 / amax, codes rint(x * inverse)."""
    groups = x.float().numpy().reshape(x.shape[0], -1, GROUP)
    amax = np.abs(groups).max(axis=-1, keepdims=True)
    with np.errstate(divide="ignore"):
        inverse = np.where(amax > 0, np.float32(127.0) / amax, np.float32(0.0)).astype(np.float32)
    return np.rint(groups * inverse)


def test_the_reference_codes_are_the_ieee_quotients_codes() -> None:
    """Python's ``127.0 / tensor`` is 127 times the tensor's reciprocal in torch, off by an ulp for about a quarter
    of the groups; among 4000 random rows some products then sit on the other side of a tie."""
    torch.manual_seed(0)
    x = torch.randn(4000, 4 * GROUP).to(torch.bfloat16)
    x[0] = 0  # a zero group: inverse and codes 0
    rows = x.shape[0]
    groups = x.float().view(rows, -1, GROUP)
    scale = groups.abs().amax(dim=-1, keepdim=True) / 127.0
    dequantized = quantize_rows_int8(x, GROUP, levels=1).view(rows, -1, GROUP)
    # code * scale divided by scale again: the code within float32 rounding, so rounded it is exact.
    codes = torch.where(scale > 0, dequantized / scale, torch.zeros_like(dequantized)).round()
    assert np.array_equal(codes.numpy(), ieee_codes(x))


@pytest.mark.skipif(not kernels.cpu.load(), reason="no C++ toolchain to build the CPU kernels")
@pytest.mark.skipif(kernels.cpu.load() and not kernels.cpu.one_row_linear_supported("int4", 64, 64),
                    reason="no AVX-512 VNNI or AVX2 here: no int8-input int4 kernel")
@pytest.mark.parametrize("levels", [1, 2])
def test_the_int4_kernels_are_the_reference_up_to_output_rounding(levels: int) -> None:
    torch.manual_seed(levels)
    out_features, in_features = 192, 576
    codes = torch.randint(0, 16, (out_features, in_features), dtype=torch.int32)
    packed = torch._convert_weight_to_int4pack_for_cpu(codes, 1)
    scales_zeros = torch.stack([torch.rand(in_features // GROUP, out_features) * 0.02 + 1e-3,
                                torch.randn(in_features // GROUP, out_features) * 0.01],
                               dim=-1).to(torch.bfloat16).contiguous()
    x = torch.randn(300 if levels == 1 else 40, in_features).to(torch.bfloat16)
    op = kernels.cpu.int4_linear if levels == 1 else kernels.cpu.int4_linear_two_level
    out = torch.cat([op(x[m:m + 8], packed, GROUP, scales_zeros) for m in range(0, x.shape[0], 8)]).double()
    exact = quantize_rows_int8(x, GROUP, levels).double() @ dequantize_int4(
        packed, GROUP, scales_zeros, in_features).double().t()
    # Half a bf16 unit in the last place, plus float32 summation's own error (far below it at these sizes).
    assert ((out - exact).abs() <= exact.abs() * 2.0 ** -8 + 1e-5).all()
