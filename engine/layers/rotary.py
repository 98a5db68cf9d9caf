"""Rotary position embedding (HF's rotate-half layout) with ``rope_theta`` and linear / llama3 scaling."""

from __future__ import annotations

import math
from typing import Any

import torch
from torch import nn

from kernels import dispatch


def _inv_freq(head_dim: int, theta: float, scaling: dict[str, Any] | None) -> torch.Tensor:
    inv = 1.0 / (theta ** (torch.arange(0, head_dim, 2, dtype=torch.float64) / head_dim))
    if not scaling:
        return inv
    kind = scaling.get("rope_type", scaling.get("type"))
    if kind in (None, "default"):
        return inv
    if kind == "linear":
        return inv / float(scaling["factor"])
    if kind == "llama3":
        factor = float(scaling["factor"])
        low, high = float(scaling["low_freq_factor"]), float(scaling["high_freq_factor"])
        old_ctx = float(scaling["original_max_position_embeddings"])
        low_wavelen, high_wavelen = old_ctx / low, old_ctx / high
        wavelen = 2 * math.pi / inv
        scaled = torch.where(wavelen > low_wavelen, inv / factor, inv)
        smooth = (old_ctx / wavelen - low) / (high - low)
        smoothed = (1 - smooth) * scaled / factor + smooth * scaled
        medium = (wavelen >= high_wavelen) & (wavelen <= low_wavelen)
        return torch.where(medium, smoothed, scaled)
    raise ValueError(f"unsupported rope scaling {kind!r}")


class RotaryEmbedding(nn.Module):
    cos: torch.Tensor  # [max_position, head_dim] buffers, rebuilt by _build
    sin: torch.Tensor

    def __init__(self, head_dim: int, max_position: int, theta: float, scaling: dict[str, Any] | None) -> None:
        super().__init__()
        self.max_position = max_position
        self.inv_freq = _inv_freq(head_dim, theta, scaling).float()
        self.register_buffer("cos", torch.empty(0), persistent=False)
        self.register_buffer("sin", torch.empty(0), persistent=False)
        self._build()

    def _build(self) -> None:
        freqs = torch.outer(torch.arange(self.max_position, dtype=torch.float32), self.inv_freq)
        # [max_position, head_dim] each, duplicated halves as HF's rotate_half expects.
        emb = torch.cat((freqs, freqs), dim=-1)
        self.cos, self.sin = emb.cos().to(self.cos.device), emb.sin().to(self.sin.device)

    def set_freq_factors(self, factors: torch.Tensor) -> None:
        """GGUF llama3-style checkpoints ship per-frequency divisors (``rope_freqs.weight``)."""
        self.inv_freq = self.inv_freq / factors.float().cpu()
        self._build()

    def forward(
        self, positions: torch.Tensor, q: torch.Tensor, k: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """q ``[T, H, D]``, k ``[T, KVH, D]`` rotated by the angle of each token's position."""
        return dispatch.rotary_embedding(positions, q, k, self.cos, self.sin)
