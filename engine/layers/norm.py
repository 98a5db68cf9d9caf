"""RMSNorm, optionally fused with the residual add that precedes it (``kernels.dispatch``: one Triton kernel on
CUDA, the float32-exact torch reference elsewhere)."""

from __future__ import annotations

import torch
from torch import nn

from kernels import dispatch


class RMSNorm(nn.Module):
    def __init__(self, hidden_size: int, eps: float) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(hidden_size))

    def forward(
        self, x: torch.Tensor, residual: torch.Tensor | None = None
    ) -> torch.Tensor | tuple[torch.Tensor, torch.Tensor]:
        if residual is None:
            return dispatch.rms_norm(x, self.weight, self.eps)
        return dispatch.fused_add_rms_norm(x, residual, self.weight, self.eps)
