"""Build the model for a ``ModelSource`` and fill it with weights, with a progress bar."""

from __future__ import annotations

import torch
from tqdm import tqdm

from engine.core.startup import phase
from engine.distributed.parallel_state import TensorParallelRank
from engine.errors import UnknownModelError
from engine.loader.gguf_loader import iter_gguf_tensors, open_gguf_tensors
from engine.loader.gguf_metadata import read_gguf_metadata
from engine.loader.hf_loader import count_hf_tensors, hf_arch_config, iter_hf_tensors
from engine.loader.source import ModelSource
from engine.models.config import ModelArchConfig
from engine.models.llama import LlamaForCausalLM
from engine.models.registry import model_class


def load_arch_config(source: ModelSource) -> ModelArchConfig:
    if source.kind == "gguf":
        return read_gguf_metadata(source.path).arch  # cached: the reader parses every field on open
    return hf_arch_config(source.path)


def load_model(
    source: ModelSource,
    *,
    dtype: torch.dtype,
    device: torch.device,
    max_position: int,
    show_progress: bool = True,
    tp: TensorParallelRank | None = None,
) -> LlamaForCausalLM:
    """``tp``: the tensor-parallel rank whose slice of every weight to build and load (None: the whole model)."""
    if source.kind == "gguf":
        reader = open_gguf_tensors(source.path)  # the metadata (architecture, tokenizer) is read once and cached
        cfg = read_gguf_metadata(source.path).arch
        weights, total = iter_gguf_tensors(reader, cfg), len(reader.tensors)
    else:
        cfg = hf_arch_config(source.path)
        # A tensor-parallel rank reads only its slices of the checkpoint (the model's load_weights indexes them).
        weights = iter_hf_tensors(source.path, lazy=tp is not None and tp.size > 1)
        total = count_hf_tensors(source.path)
    label = f"loading {source.served_name}" + (f" (rank {tp.rank})" if tp and tp.size > 1 else "")
    with phase("weights", enabled=show_progress) as current:
        with torch.device("cpu"):
            model = model_class(cfg)(cfg, max_position, tp)
        bar = tqdm(weights, total=total, desc=label, unit="tensor", disable=not show_progress)
        loaded = model.load_weights(bar)
        expected = {name for name, _ in model.named_parameters()}
        missing = expected - loaded
        if missing:
            raise UnknownModelError(f"checkpoint {source.path} lacks weights: {sorted(missing)[:5]}")
        model = model.to(device=device, dtype=dtype).eval()
        size_mb = sum(p.numel() * p.element_size() for p in model.parameters()) / 2**20
        as_dtype = str(dtype).removeprefix("torch.")
        current.outcome = f"{total} tensors of {source.path.name} loaded ({size_mb:,.0f} MB as {as_dtype})"
    return model
