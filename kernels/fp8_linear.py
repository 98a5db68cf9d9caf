"""FP8 (e4m3) W8A8 linears on the device: each input row quantized to e4m3 with its own scale when it arrives
(``kernels.reference.fp8_linear.quantize_rows``), multiplied with the e4m3 weight codes, and the product scaled by
the row's and the output channel's scales (float32 accumulation).

* ``scaled_mm_linear``: ``torch._scaled_mm`` with row-wise scales. On CUDA that is cuBLASLt/CUTLASS's FP8
  tensor-core GEMM, which needs compute capability 8.9 (Ada) or 9.0+ (Hopper), an e4m3 weight read column-major (the
  transpose of the row-major ``[N, K]`` weight), ``K`` and ``N`` multiples of 16, and bfloat16 output for row-wise
  scales. torch also has the op on the CPU, as a plain loop ~100x slower than a bf16 GEMM there.
* ``codes_linear``: the CPU's: the codes held as their exact bfloat16 values (an e4m3 value has a 4-bit
  significand, bf16 an 8-bit one) and multiplied by the bf16 GEMM, the scales applied to its float32-accumulated
  product (rounded once to bf16 on the way: 2**-9, well under e4m3's 2**-4). Converting e4m3 codes on the CPU costs
  ~50x the matmul itself, so they are converted once, when the weight is quantized; the weight then takes bf16's
  memory, not half of it: on the CPU FP8 is a path for tests and measurements, not for serving.

Where neither runs (a GPU before compute capability 8.9, a shape cuBLASLt does not tile), the caller takes
``kernels.reference.fp8_linear.fp8_linear``: the same result up to summation order.
"""

from __future__ import annotations

from functools import cache

import torch
import torch.nn.functional as F

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


def codes_linear(x: torch.Tensor, weight: torch.Tensor, weight_scale: torch.Tensor) -> torch.Tensor:
    """``[rows, N]`` in ``x``'s dtype: ``x`` ``[rows, K]`` quantized to e4m3 per row, times the e4m3 codes ``weight``
    ``[N, K]`` held exactly in bfloat16, with their float32 per-channel ``weight_scale`` ``[1, N]``."""
    codes, scales = quantize_rows(x)
    product = F.linear(codes.to(weight.dtype), weight)
    return (product.float() * scales * weight_scale).to(x.dtype)
