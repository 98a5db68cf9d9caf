"""RMSNorm with an optional fused residual add: one program per token row, the whole row in registers.

Rounding follows the reference: the residual sum is rounded to the activation dtype (it is stored and carried),
the statistics are float32, the normalized row is rounded before the weight multiply.
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl


@triton.jit
def _rms_norm_kernel(
    x_ptr, residual_ptr, weight_ptr, out_ptr, residual_out_ptr,
    x_stride, residual_stride, out_stride, residual_out_stride,
    hidden, eps,
    HAS_RESIDUAL: tl.constexpr, BLOCK: tl.constexpr,
):
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK)
    mask = offs < hidden
    x = tl.load(x_ptr + row * x_stride + offs, mask=mask, other=0.0)
    if HAS_RESIDUAL:
        x = x + tl.load(residual_ptr + row * residual_stride + offs, mask=mask, other=0.0)
        tl.store(residual_out_ptr + row * residual_out_stride + offs, x, mask=mask)
    xf = x.to(tl.float32)
    rstd = 1.0 / tl.sqrt(tl.sum(xf * xf, axis=0) / hidden + eps)
    normed = (xf * rstd).to(x_ptr.dtype.element_ty).to(tl.float32)
    w = tl.load(weight_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    tl.store(out_ptr + row * out_stride + offs, (normed * w).to(out_ptr.dtype.element_ty), mask=mask)


def _launch(x: torch.Tensor, residual: torch.Tensor | None, weight: torch.Tensor, eps: float
            ) -> tuple[torch.Tensor, torch.Tensor | None]:
    assert x.dim() == 2 and x.stride(-1) == 1 and weight.is_contiguous()
    rows, hidden = x.shape
    out = torch.empty((rows, hidden), dtype=torch.promote_types(x.dtype, weight.dtype), device=x.device)
    residual_out = None
    if residual is not None:
        assert residual.shape == x.shape and residual.dtype == x.dtype and residual.stride(-1) == 1
        residual_out = torch.empty_like(x, memory_format=torch.contiguous_format)
    if rows:
        block = triton.next_power_of_2(hidden)
        _rms_norm_kernel[(rows,)](
            x, residual if residual is not None else x, weight, out,
            residual_out if residual_out is not None else out,
            x.stride(0), residual.stride(0) if residual is not None else 0, out.stride(0),
            residual_out.stride(0) if residual_out is not None else 0,
            hidden, eps,
            HAS_RESIDUAL=residual is not None, BLOCK=block, num_warps=min(max(block // 256, 1), 8),
        )
    return out, residual_out


def rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
    return _launch(x, None, weight, eps)[0]


def fused_add_rms_norm(
    x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, eps: float
) -> tuple[torch.Tensor, torch.Tensor]:
    out, residual_out = _launch(x, residual, weight, eps)
    assert residual_out is not None
    return out, residual_out
