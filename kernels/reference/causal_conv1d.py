"""Causal depthwise 1-D convolution with a carried state (Mamba's short convolution over x, B and C).

The state of a sequence is its last ``K - 1`` inputs (``K``: kernel width), channels first: ``[D, K - 1]``, zeros
before the first token. Prefill and decode both compute ``out_t = bias + sum_k weight[:, k] * in_{t - K + 1 + k}``
over the state followed by the new inputs, so a prefill split anywhere equals one call given the state.
Computed in float32; outputs and states come back in float32.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F


def causal_conv1d_prefill(
    x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None, state: torch.Tensor | None
) -> tuple[torch.Tensor, torch.Tensor]:
    """One sequence: ``x [T, D]``, ``weight [D, K]``, ``state [D, K - 1]`` (None: zeros). Returns
    ``(out [T, D], new_state [D, K - 1])``, without activation."""
    channels = x.shape[1]
    width = weight.shape[1]
    if state is None:
        state = x.new_zeros(channels, width - 1, dtype=torch.float32)
    window = torch.cat([state.float(), x.float().t()], dim=1)  # [D, K - 1 + T]
    out = F.conv1d(window[None], weight.float()[:, None, :], None if bias is None else bias.float(),
                   groups=channels)[0]  # [D, T]
    return out.t(), window[:, window.shape[1] - (width - 1):]


def causal_conv1d_decode(
    x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None, state: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """One token per sequence: ``x [S, D]``, ``state [S, D, K - 1]``. Returns ``(out [S, D], new_state)``;
    ``state`` is not modified (the caller scatters the new state to its slots)."""
    window = torch.cat([state.float(), x.float()[:, :, None]], dim=2)  # [S, D, K]
    out = (window * weight.float()[None]).sum(dim=-1)
    if bias is not None:
        out = out + bias.float()
    return out, window[:, :, 1:]
