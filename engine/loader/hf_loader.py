"""Read an HF checkpoint directory: ``config.json`` plus ``*.safetensors`` shards."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from safetensors import safe_open

from engine.loader.fp8_checkpoint import checkpoint_fp8_format, dequantized_tensors, is_fp8_scale
from engine.models.config import ModelArchConfig


def hf_arch_config(directory: Path) -> ModelArchConfig:
    cfg = _read_config(directory)
    checkpoint_fp8_format(cfg)  # a checkpoint quantized some other way fails here, before any weight is read
    arch = ModelArchConfig.from_hf(cfg)
    gen_path = directory / "generation_config.json"
    if gen_path.is_file():
        eos = json.loads(gen_path.read_text()).get("eos_token_id")
        extra = [] if eos is None else ([eos] if isinstance(eos, int) else list(eos))
        arch.eos_token_ids = list(dict.fromkeys([*arch.eos_token_ids, *extra]))
    return arch


def iter_hf_tensors(directory: Path, *, lazy: bool = False) -> Iterator[tuple[str, Any]]:
    """Each tensor of the checkpoint by name. ``lazy``: a safetensors slice instead, read only where indexed
    (``tensor[a:b]``, ``tensor[:]``), so a tensor-parallel rank reads its share of the file, not all of it; valid
    until the next item. An FP8 checkpoint's weights come dequantized to float32, without their scale tensors
    (``engine.loader.fp8_checkpoint``)."""
    tensors = _iter_shards(directory, lazy=lazy)
    fp8 = checkpoint_fp8_format(_read_config(directory))
    return tensors if fp8 is None else dequantized_tensors(tensors, fp8)


def count_hf_tensors(directory: Path) -> int:
    """How many tensors ``iter_hf_tensors`` yields (an FP8 checkpoint's scales are read with their weights)."""
    fp8 = checkpoint_fp8_format(_read_config(directory)) is not None
    total = 0
    for shard in sorted(directory.glob("*.safetensors")):
        with safe_open(shard, framework="pt") as f:
            total += sum(1 for name in f.keys() if not (fp8 and is_fp8_scale(name)))  # noqa: SIM118
    return total


def _read_config(directory: Path) -> dict[str, Any]:
    config: dict[str, Any] = json.loads((directory / "config.json").read_text())
    return config


def _iter_shards(directory: Path, *, lazy: bool) -> Iterator[tuple[str, Any]]:
    for shard in sorted(directory.glob("*.safetensors")):
        with safe_open(shard, framework="pt") as f:
            for name in f.keys():  # noqa: SIM118 - safe_open is not a mapping
                yield name, (f.get_slice(name) if lazy else f.get_tensor(name))
