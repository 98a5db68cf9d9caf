"""RMSNorm, alone and fused with the residual add that precedes it (Llama's pre-norm blocks).

Computed in float32 like HF, then cast back before the weight multiply, so float32 parity with HF is exact and
bf16 stays stable. The Triton kernels reproduce this rounding order.
"""

from __future__ import annotations

import torch


def rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
    """``weight * normalize(x)`` over the last dimension of ``x`` ``[num_tokens, hidden]``."""
    xf = x.float()
    xf = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)
    return weight * xf.to(x.dtype)


def fused_add_rms_norm(
    x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, eps: float
) -> tuple[torch.Tensor, torch.Tensor]:
    """``(rms_norm(x + residual), x + residual)``: the normalized input of the next sub-layer and the new
    residual stream."""
    residual = x + residual
    return rms_norm(residual, weight, eps), residual
