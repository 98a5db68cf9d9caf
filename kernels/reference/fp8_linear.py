"""FP8 (e4m3) W8A8 linear in plain torch: the math ``torch._scaled_mm`` computes with row-wise scales, written out as
dequantize-and-matmul in float32.

Weights ``[N, K]`` carry one scale per output channel, inputs ``[rows, K]`` one per row (token), computed when the
input arrives ("dynamic"). A row's scale is its largest magnitude over 448, e4m3's largest finite value, so that
value lands on the top of the grid; codes are the round-to-nearest-even cast ``Tensor.to(torch.float8_e4m3fn)``
of the row divided by its scale. e4m3 keeps 3 mantissa bits, so a code is within 2**-4 of its value relative to
it (normal range) and within 2**-10 of the row's scale absolutely (subnormals). A row of zeros gets ``MIN_SCALE``
instead of 0 so dividing by it stays finite (vLLM's bound, so inputs quantize alike in both engines).
"""

from __future__ import annotations

import torch

FP8_DTYPE = torch.float8_e4m3fn
FP8_MAX = float(torch.finfo(FP8_DTYPE).max)  # 448
MIN_SCALE = 1.0 / (FP8_MAX * 512.0)


def quantize_rows(t: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """``(codes, scales)``: ``t`` ``[R, C]`` as e4m3 codes ``[R, C]`` and float32 scales ``[R, 1]``, row by row."""
    values = t.float()
    scales = (values.abs().amax(dim=-1, keepdim=True) / FP8_MAX).clamp(min=MIN_SCALE)
    # The clamp only matters for a non-finite input; the cast itself saturates nothing (e4m3fn has no infinity).
    codes = (values / scales).clamp(-FP8_MAX, FP8_MAX).to(FP8_DTYPE)
    return codes, scales


def dequantize_rows(codes: torch.Tensor, scales: torch.Tensor) -> torch.Tensor:
    """The float32 values ``[R, C]`` the codes and per-row scales (``[R]`` or ``[R, 1]``) stand for."""
    return codes.float() * scales.float().reshape(-1, 1)


def fp8_linear(x: torch.Tensor, weight: torch.Tensor, weight_scale: torch.Tensor) -> torch.Tensor:
    """``[rows, N]`` in ``x``'s dtype: the rows of ``x`` ``[rows, K]`` quantized to e4m3 per row, times the e4m3
    ``weight`` ``[N, K]`` with its per-channel ``weight_scale`` (``[N]`` or ``[1, N]``), accumulated in float32."""
    codes, scales = quantize_rows(x)
    return (dequantize_rows(codes, scales) @ dequantize_rows(weight, weight_scale).t()).to(x.dtype)
