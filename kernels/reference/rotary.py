"""Rotary position embedding in HF's rotate-half layout, applied to queries and keys together."""

from __future__ import annotations

import torch

_angles: tuple[torch.Tensor, torch.Tensor, torch.dtype, torch.Tensor, torch.Tensor] | None = None


def _step_angles(positions: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor,
                 dtype: torch.dtype) -> tuple[torch.Tensor, torch.Tensor]:
    """``cos``/``sin`` rows of each token ``[num_tokens, 1, head_dim]`` in ``dtype``. Every layer of a forward
    pass rotates by the same positions tensor, so the rows are gathered once per step and reused (the memo
    holds ``positions``, so its identity cannot be taken by a later step's tensor)."""
    global _angles
    compiling = torch.compiler.is_compiling()  # a compiled graph computes the rows once itself: eager-only memo
    if not compiling and _angles is not None and _angles[0] is positions and _angles[1] is cos \
            and _angles[2] == dtype:
        return _angles[3], _angles[4]
    c = cos[positions].unsqueeze(1).to(dtype)
    s = sin[positions].unsqueeze(1).to(dtype)
    if not compiling:
        _angles = (positions, cos, dtype, c, s)
    return c, s


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
    c, s = _step_angles(positions, cos, sin, q.dtype)
    return q * c + _rotate_half(q) * s, k * c + _rotate_half(k) * s
