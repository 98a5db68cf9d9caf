"""Read an HF checkpoint directory: ``config.json`` plus ``*.safetensors`` shards."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from safetensors import safe_open

from engine.models.config import ModelArchConfig


def hf_arch_config(directory: Path) -> ModelArchConfig:
    cfg = json.loads((directory / "config.json").read_text())
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
    until the next item."""
    for shard in sorted(directory.glob("*.safetensors")):
        with safe_open(shard, framework="pt") as f:
            for name in f.keys():  # noqa: SIM118 - safe_open is not a mapping
                yield name, (f.get_slice(name) if lazy else f.get_tensor(name))


def count_hf_tensors(directory: Path) -> int:
    total = 0
    for shard in sorted(directory.glob("*.safetensors")):
        with safe_open(shard, framework="pt") as f:
            total += len(list(f.keys()))
    return total
