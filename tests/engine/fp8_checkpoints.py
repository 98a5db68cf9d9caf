"""FP8 copies of tiny HF checkpoints, in the layout vLLM's FP8 loader reads: every decoder linear's weight as
``float8_e4m3fn`` with a float32 ``weight_scale`` (per output channel ``[N, 1]``, or one per tensor ``[]``), the
embeddings, norms and LM head left as they were, and ``quantization_config`` in ``config.json``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import torch
from safetensors.torch import load_file, save_file

from kernels.reference.fp8_linear import FP8_DTYPE, FP8_MAX, quantize_rows

QUANTIZED_LINEARS = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")


def write_fp8_checkpoint(source: Path, directory: Path, *, per_tensor: bool = False,
                         activation_scheme: str = "dynamic") -> Path:
    """``source``'s checkpoint with its decoder linears in FP8 (``per_tensor``: one scale per weight, else one
    per output channel), written to ``directory``; ``"static"`` also writes an ``input_scale`` per linear."""
    shutil.copytree(source, directory)
    for shard in sorted(directory.glob("*.safetensors")):
        tensors = load_file(shard)
        converted: dict[str, torch.Tensor] = {}
        for name, tensor in tensors.items():
            if not any(f".{linear}.weight" in name for linear in QUANTIZED_LINEARS):
                converted[name] = tensor
                continue
            prefix = name.removesuffix(".weight")
            if per_tensor:
                scale = (tensor.float().abs().amax() / FP8_MAX).clamp(min=1e-12)
                converted[name] = (tensor.float() / scale).to(FP8_DTYPE)
                converted[f"{prefix}.weight_scale"] = scale.reshape(())
            else:
                codes, scales = quantize_rows(tensor)
                converted[name], converted[f"{prefix}.weight_scale"] = codes, scales
            if activation_scheme == "static":
                converted[f"{prefix}.input_scale"] = torch.tensor(0.01)
        save_file(converted, shard, metadata={"format": "pt"})
    config_path = directory / "config.json"
    config = json.loads(config_path.read_text())
    config["quantization_config"] = {"quant_method": "fp8", "activation_scheme": activation_scheme}
    config_path.write_text(json.dumps(config))
    return directory


def checkpoint_tensors(directory: Path) -> dict[str, torch.Tensor]:
    tensors: dict[str, torch.Tensor] = {}
    for shard in sorted(directory.glob("*.safetensors")):
        tensors.update(load_file(shard))
    return tensors
