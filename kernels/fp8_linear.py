"""FP8 (e4m3) W8A8 linear through ``torch._scaled_mm``: each input row quantized to e4m3 with its own scale when it
arrives (``kernels.reference.fp8_linear.quantize_rows``), multiplied with the e4m3 weight and its per-channel
scales by ``torch._scaled_mm`` with row-wise scales (float32 accumulation, the scales applied to the product).

On CUDA that is cuBLASLt/CUTLASS's FP8 tensor-core GEMM, which needs compute capability 8.9 (Ada) or 9.0+ (Hopper),
an e4m3 weight read column-major (the transpose of the row-major ``[N, K]`` weight), ``K`` and ``N`` multiples of
16, and bfloat16 output for row-wise scales. torch also runs the op on the CPU (a plain loop: the same math, no
speed), which lets the one code path the GPU serves run in the CPU tests. Where the op does not run, the caller
takes ``kernels.reference.fp8_linear.fp8_linear``: the same result up to summation order.
"""

from __future__ import annotations

from functools import cache

import torch

from kernels.reference.fp8_linear import FP8_DTYPE, quantize_rows

# cuBLASLt's FP8 GEMM reads K and N in whole 16-element tiles.
SCALED_MM_ALIGNMENT = 16


@cache
def scaled_mm_runs(device: torch.device) -> bool:
    """Whether ``torch._scaled_mm`` with row-wise scales runs on ``device``: tried once on a small product, since
    support depends on the build and the GPU (CUDA before compute capability 8.9 has no FP8 GEMM)."""
    try:
        a = torch.ones(2, SCALED_MM_ALIGNMENT, device=device).to(FP8_DTYPE)
        b = torch.ones(SCALED_MM_ALIGNMENT, SCALED_MM_ALIGNMENT, device=device).to(FP8_DTYPE)
        y = torch._scaled_mm(a, b.t(), scale_a=torch.ones(2, 1, device=device),
                             scale_b=torch.ones(1, SCALED_MM_ALIGNMENT, device=device), out_dtype=_out_dtype(device))
    except (RuntimeError, NotImplementedError):
        return False
    return bool((y.float() == SCALED_MM_ALIGNMENT).all())


def scaled_mm_serves(device: torch.device, out_features: int, in_features: int) -> bool:
    """Whether ``scaled_mm_linear`` runs a layer of this shape on ``device``."""
    aligned = out_features % SCALED_MM_ALIGNMENT == 0 and in_features % SCALED_MM_ALIGNMENT == 0
    return (aligned or device.type == "cpu") and scaled_mm_runs(device)


def _out_dtype(device: torch.device, dtype: torch.dtype = torch.bfloat16) -> torch.dtype:
    # CUDA's row-wise FP8 GEMM writes bfloat16 only; the CPU op writes any float dtype, so it keeps the caller's.
    return torch.bfloat16 if device.type == "cuda" else dtype


def scaled_mm_linear(x: torch.Tensor, weight: torch.Tensor, weight_scale: torch.Tensor) -> torch.Tensor:
    """``[rows, N]`` in ``x``'s dtype: ``x`` ``[rows, K]`` quantized to e4m3 per row, times the e4m3 ``weight``
    ``[N, K]`` with its float32 per-channel ``weight_scale`` ``[1, N]``."""
    codes, scales = quantize_rows(x)
    y = torch._scaled_mm(codes, weight.t(), scale_a=scales, scale_b=weight_scale,
                         out_dtype=_out_dtype(x.device, x.dtype))
    return y if y.dtype == x.dtype else y.to(x.dtype)
