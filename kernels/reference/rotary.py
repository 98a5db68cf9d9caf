"""Rotary position embedding in HF's rotate-half layout, applied to queries and keys together."""

from __future__ import annotations

import torch


def _rotate_half(x: torch.Tensor) -> torch.Tensor:
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def rotary_embedding(
    positions: torch.Tensor,  # int64 [num_tokens]
    q: torch.Tensor,  # [num_tokens, num_heads, head_dim]
    k: torch.Tensor,  # [num_tokens, num_kv_heads, head_dim]
    cos: torch.Tensor,  # [max_position, head_dim], both halves equal (HF's layout)
    sin: torch.Tensor,
) -> tuple[torch.Tensor, torch.Tensor]:
    """``(q, k)`` rotated by the angle of each token's position; new tensors in ``q``'s dtype."""
    c = cos[positions].unsqueeze(1).to(q.dtype)
    s = sin[positions].unsqueeze(1).to(q.dtype)
    return q * c + _rotate_half(q) * s, k * c + _rotate_half(k) * s
