"""A bias-optional linear layer whose weight can also be held as weight-only int8.

``torch._weight_int8pack_mm`` (per-output-channel scales) is several times faster than a dense matmul at
batch 1 on CPU but slower for large batches, so the dense weight is kept beside it and the row count of the
input picks the kernel. Quantization is a serving switch; parity tests run dense float32.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn


class Linear(nn.Module):
    def __init__(self, in_features: int, out_features: int, bias: bool = False) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.empty(out_features, in_features), requires_grad=False)
        self.bias = nn.Parameter(torch.zeros(out_features), requires_grad=False) if bias else None
        self.int8_weight: torch.Tensor | None = None
        self.int8_scales: torch.Tensor | None = None
        self.int8_max_rows = 0

    def quantize_int8(self, max_rows: int) -> None:
        """Per-channel symmetric int8 copy of the weight, used for inputs of at most ``max_rows`` rows."""
        w = self.weight.detach().float()
        scales = (w.abs().amax(dim=1) / 127.0).clamp(min=1e-8)
        self.int8_weight = torch.round(w / scales[:, None]).clamp(-128, 127).to(torch.int8).contiguous()
        self.int8_scales = scales.to(self.weight.dtype)
        self.int8_max_rows = max_rows

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.int8_weight is not None and x.shape[0] <= self.int8_max_rows:
            y = torch._weight_int8pack_mm(x, self.int8_weight, self.int8_scales)
            return y if self.bias is None else y + self.bias
        return F.linear(x, self.weight, self.bias)
