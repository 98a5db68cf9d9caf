"""SwiGLU's activation: ``silu(gate) * up`` over a fused gate|up projection."""

from __future__ import annotations

import torch
import torch.nn.functional as F


def silu_and_mul(x: torch.Tensor) -> torch.Tensor:
    """``x`` ``[num_tokens, 2 * d]`` holds gate then up; returns ``[num_tokens, d]``."""
    gate, up = x.chunk(2, dim=-1)
    return F.silu(gate) * up
