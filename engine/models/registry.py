"""Which model class serves an architecture (``ModelArchConfig.architecture``, HF's ``model_type``).

Every class has ``LlamaForCausalLM``'s interface (constructor ``(cfg, max_position, tp)``, ``forward``,
``compute_logits``, ``load_weights``, ``layers``, ``rotary``, ``lm_head``), which the runner and the loader use.
Imported lazily per family, so a process that serves Llama never imports the others.
"""

from __future__ import annotations

import importlib

from engine.errors import UnknownModelError
from engine.models.config import ModelArchConfig

# architecture -> (module, class)
MODEL_CLASSES = {
    "llama": ("engine.models.llama", "LlamaForCausalLM"),
    "mistral": ("engine.models.llama", "LlamaForCausalLM"),
    "qwen2": ("engine.models.llama", "LlamaForCausalLM"),
    "mixtral": ("engine.models.mixtral", "MixtralForCausalLM"),
    "qwen2_moe": ("engine.models.qwen_moe", "Qwen2MoeForCausalLM"),
    "qwen3_moe": ("engine.models.qwen_moe", "Qwen3MoeForCausalLM"),
    "gemma2": ("engine.models.gemma2", "Gemma2ForCausalLM"),
    "gemma3_text": ("engine.models.gemma3", "Gemma3ForCausalLM"),
    # Models with Mamba2 layers: the runner also drives their recurrent state (engine.scheduling.mamba_state).
    "mamba2": ("engine.models.mamba2", "Mamba2ServedModel"),
    "nemotron_h": ("engine.models.nemotron_h", "NemotronHForCausalLM"),
}


def model_class(cfg: ModelArchConfig) -> type:
    entry = MODEL_CLASSES.get(cfg.architecture)
    if entry is None:
        raise UnknownModelError(f"no model class for architecture {cfg.architecture!r}; have {sorted(MODEL_CLASSES)}")
    module, name = entry
    return getattr(importlib.import_module(module), name)
