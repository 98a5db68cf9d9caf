"""Greedy sampling's argmax: per row, the index of the first largest value, a NaN counting as the largest (the first
NaN wins). ``kernels/cpu/argmax.cpp`` computes exactly these indices."""

from __future__ import annotations

import torch


def argmax(x: torch.Tensor) -> torch.Tensor:
    """Long ``[rows]`` for ``x`` ``[rows, vocab]``. ``max(dim).indices`` rather than ``argmax``: the same indices,
    about 3x faster on CPU over a 49k vocabulary."""
    return x.max(dim=-1).indices
