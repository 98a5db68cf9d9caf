"""Copying a checkpoint tensor into a model's parameter, with the shape check every family's loader needs."""

from __future__ import annotations

import torch


def copy_weight(name: str, dest: torch.Tensor, tensor: torch.Tensor) -> None:
    """``tensor`` into ``dest`` (a parameter or a view of one); a shape mismatch names the checkpoint tensor."""
    if dest.shape != tensor.shape:
        raise ValueError(f"{name}: checkpoint shape {tuple(tensor.shape)} != model {tuple(dest.shape)}")
    with torch.no_grad():
        dest.copy_(tensor)
