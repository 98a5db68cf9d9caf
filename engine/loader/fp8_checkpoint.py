"""HF checkpoints stored in FP8: ``config.json``'s ``quantization_config`` with ``"quant_method": "fp8"`` (what vLLM's
FP8 loader and transformers' ``FineGrainedFP8Config`` read), their weights dequantized to float32 as they stream.

The layouts, per quantized linear ``<layer>``:

* ``<layer>.weight``: ``float8_e4m3fn`` ``[N, K]``, with ``<layer>.weight_scale`` float32: one value (per tensor:
  ``[]`` or ``[1]``, vLLM's and AutoFP8's format) or one per output channel (``[N]`` or ``[N, 1]``);
* with ``weight_block_size`` ``[bn, bk]`` in the config: ``<layer>.weight_scale_inv`` float32
  ``[ceil(N / bn), ceil(K / bk)]``, one scale per block (DeepSeek-V3's format; the name notwithstanding, the
  weight is ``code * scale``);
* ``<layer>.input_scale`` (``"activation_scheme": "static"``): a calibrated input scale, which the engine does not
  use: with ``quantization="fp8"`` it scales each input row by its own largest value as it arrives (dynamic, per
  token), so these tensors are skipped.

Every model reads the dequantized weights as it reads any checkpoint's (fused, sliced per tensor-parallel rank).
``EngineConfig.quantization="fp8"`` then requantizes each linear per output channel (``Linear.quantize_fp8``): a
per-channel checkpoint whose channels reach the top code (scales of the channel's largest magnitude / 448, what
vLLM and llm-compressor write) gets exactly its own codes back; per-tensor and block scales are rounded once more
onto each channel's grid. Without it the model serves the dequantized weights in the engine's dtype.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import torch

from engine.errors import UnknownModelError

FP8_WEIGHT_DTYPE = torch.float8_e4m3fn
_SCALE_SUFFIXES = (".weight_scale", ".weight_scale_inv")
_INPUT_SCALE_SUFFIX = ".input_scale"


@dataclass(frozen=True, slots=True)
class Fp8CheckpointFormat:
    """What ``quantization_config`` says of an FP8 checkpoint: the per-block scales' block (None: per tensor or per
    channel) and whether it carries calibrated input scales (``"static"``, skipped)."""

    weight_block_size: tuple[int, int] | None
    activation_scheme: str


def checkpoint_fp8_format(config: dict[str, Any]) -> Fp8CheckpointFormat | None:
    """The FP8 format of a checkpoint with this ``config.json``; None for an unquantized one. A checkpoint quantized
    by another method (GPTQ, AWQ, bitsandbytes...) stores tensors no model here reads: UnknownModelError."""
    quantization = config.get("quantization_config")
    if not quantization:
        return None
    method = quantization.get("quant_method")
    if method != "fp8":
        raise UnknownModelError(f"unsupported checkpoint quantization {method!r}; supported: 'fp8' (or none)")
    block = quantization.get("weight_block_size")
    if block is not None and (len(block) != 2 or min(block) < 1):
        raise UnknownModelError(f"weight_block_size must be two positive sizes, got {block!r}")
    return Fp8CheckpointFormat(tuple(block) if block is not None else None,
                               quantization.get("activation_scheme", "dynamic"))


def is_fp8_scale(name: str) -> bool:
    """Whether ``name`` is a scale tensor of an FP8 checkpoint (consumed with its weight, never loaded itself)."""
    return name.endswith((*_SCALE_SUFFIXES, _INPUT_SCALE_SUFFIX))


def dequantize_fp8(weight: torch.Tensor, scale: torch.Tensor,
                   block: tuple[int, int] | None = None) -> torch.Tensor:
    """The float32 ``[N, K]`` an e4m3 ``weight`` and its ``scale`` (per tensor, per channel, or per ``block``) stand
    for."""
    values, scale = weight.float(), scale.float()
    rows, cols = values.shape
    if block is not None:
        expanded = scale.repeat_interleave(block[0], dim=0).repeat_interleave(block[1], dim=1)[:rows, :cols]
        if expanded.shape != values.shape:
            raise UnknownModelError(f"block scales {tuple(scale.shape)} do not cover a weight of {(rows, cols)} in "
                                    f"blocks of {block}")
        return values * expanded
    if scale.numel() == 1:
        return values * scale.reshape(())
    if scale.numel() != rows:
        raise UnknownModelError(f"a weight of {rows} rows has {scale.numel()} scales (expected 1 or one per row)")
    return values * scale.reshape(rows, 1)


def dequantized_tensors(tensors: Iterator[tuple[str, Any]], fmt: Fp8CheckpointFormat
                        ) -> Iterator[tuple[str, Any]]:
    """``tensors`` with every e4m3 weight dequantized to float32 with its scale and the scale tensors dropped; other
    tensors (norms, embeddings, an unquantized head) pass through as they come. A weight and its scale may come in
    either order (shards split them at will): the first seen waits, read whole, for the other."""
    waiting_weights: dict[str, torch.Tensor] = {}
    waiting_scales: dict[str, torch.Tensor] = {}
    scale_suffix = ".weight_scale_inv" if fmt.weight_block_size is not None else ".weight_scale"
    for name, tensor in tensors:
        if name.endswith(_INPUT_SCALE_SUFFIX):
            continue
        if name.endswith(_SCALE_SUFFIXES):
            if not name.endswith(scale_suffix):
                raise UnknownModelError(f"{name}: an FP8 checkpoint {_described(fmt)} has {scale_suffix} tensors")
            weight_name = name.removesuffix(scale_suffix) + ".weight"
            scale = _read_whole(tensor)
            if weight_name in waiting_weights:
                yield weight_name, dequantize_fp8(waiting_weights.pop(weight_name), scale, fmt.weight_block_size)
            else:
                waiting_scales[weight_name] = scale
            continue
        if _dtype(tensor) != FP8_WEIGHT_DTYPE:
            yield name, tensor
            continue
        weight = _read_whole(tensor)
        if name in waiting_scales:
            yield name, dequantize_fp8(weight, waiting_scales.pop(name), fmt.weight_block_size)
        else:
            waiting_weights[name] = weight
    if waiting_weights:
        raise UnknownModelError(f"FP8 weights without a {scale_suffix}: {sorted(waiting_weights)[:5]}")


def _described(fmt: Fp8CheckpointFormat) -> str:
    return "with block scales" if fmt.weight_block_size is not None else "without weight_block_size"


def _dtype(tensor: Any) -> torch.dtype | str:
    """A tensor's dtype; a lazy safetensors slice names it ("F8_E4M3") without reading the tensor."""
    if isinstance(tensor, torch.Tensor):
        return tensor.dtype
    return FP8_WEIGHT_DTYPE if tensor.get_dtype() == "F8_E4M3" else tensor.get_dtype()


def _read_whole(tensor: Any) -> torch.Tensor:
    # A lazy slice is valid only until the stream moves on, and a waiting tensor outlives that.
    return tensor if isinstance(tensor, torch.Tensor) else tensor[...]  # [...]: 0-dim slices too
