"""The one place that decides which kernel runs: Triton on CUDA when available, the torch reference elsewhere.

Signatures (every implementation matches them exactly):

* ``store_kvcache(key, value, k_cache, v_cache, slot_mapping) -> None`` — write ``[num_tokens, kv_heads,
  head_dim]`` keys/values into the paged cache at the flat slots ``slot_mapping`` (int64 ``[num_tokens]``).
* ``paged_attention(q, k_cache, v_cache, meta, scale) -> Tensor`` — causal grouped-query attention of the
  flattened queries ``[num_tokens, heads, head_dim]`` over each sequence's cached keys/values, described by
  ``kernels.attention_metadata.AttentionMetadata`` (decodes first, then prefill chunks).

A Triton implementation plugs in as a module ``kernels.triton`` exporting both functions with these
signatures; it is used for CUDA tensors unless ``WARDEN_KERNELS=reference``.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from functools import cache
from types import ModuleType

import torch

from kernels.attention_metadata import AttentionMetadata
from kernels.reference import kv_store as _ref_kv_store
from kernels.reference import paged_attention as _ref_attention


@cache
def _triton_module() -> ModuleType | None:
    if os.environ.get("WARDEN_KERNELS") == "reference":
        return None
    try:
        return importlib.import_module("kernels.triton")
    except ImportError:
        return None


def _pick(device: torch.device, name: str, reference: Callable) -> Callable:
    if device.type == "cuda":
        module = _triton_module()
        if module is not None and hasattr(module, name):
            return getattr(module, name)
    return reference


def store_kvcache(
    key: torch.Tensor,
    value: torch.Tensor,
    k_cache: torch.Tensor,
    v_cache: torch.Tensor,
    slot_mapping: torch.Tensor,
) -> None:
    _pick(key.device, "store_kvcache", _ref_kv_store.store_kvcache)(key, value, k_cache, v_cache, slot_mapping)


def paged_attention(
    q: torch.Tensor,
    k_cache: torch.Tensor,
    v_cache: torch.Tensor,
    meta: AttentionMetadata,
    scale: float,
) -> torch.Tensor:
    return _pick(q.device, "paged_attention", _ref_attention.paged_attention)(q, k_cache, v_cache, meta, scale)
