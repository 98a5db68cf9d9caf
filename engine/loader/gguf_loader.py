"""Read a GGUF file: architecture from its metadata, tensors dequantized to float32 with HF names.

The ``gguf`` package dequantizes every llama.cpp type it knows (Q4_0, Q4_1, Q5_*, Q8_0, K-quants, F16,
BF16, F32). llama.cpp's converter permutes the rows of Q and K for its interleaved RoPE on ``llama``
architectures; we undo that so one model implementation (HF's rotate-half RoPE) serves both formats.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import torch
from gguf import GGUFReader, GGUFValueType
from gguf.gguf_reader import ReaderField
from gguf.quants import dequantize

from engine.errors import UnknownModelError
from engine.models.config import STATE_SPACE_ARCHITECTURES, SUPPORTED_ARCHITECTURES, ModelArchConfig

_LAYER_NAMES = {
    "attn_norm.weight": "input_layernorm.weight",
    "attn_q.weight": "self_attn.q_proj.weight",
    "attn_k.weight": "self_attn.k_proj.weight",
    "attn_v.weight": "self_attn.v_proj.weight",
    "attn_q.bias": "self_attn.q_proj.bias",
    "attn_k.bias": "self_attn.k_proj.bias",
    "attn_v.bias": "self_attn.v_proj.bias",
    "attn_output.weight": "self_attn.o_proj.weight",
    "ffn_norm.weight": "post_attention_layernorm.weight",
    "ffn_gate.weight": "mlp.gate_proj.weight",
    "ffn_up.weight": "mlp.up_proj.weight",
    "ffn_down.weight": "mlp.down_proj.weight",
}
_GLOBAL_NAMES = {
    "token_embd.weight": "model.embed_tokens.weight",
    "output_norm.weight": "model.norm.weight",
    "output.weight": "lm_head.weight",
    "rope_freqs.weight": "rope_freqs",
}
_BLOCK = re.compile(r"^blk\.(\d+)\.(.+)$")


def open_gguf(path: Path) -> GGUFReader:
    try:
        return GGUFReader(path)
    except (OSError, ValueError) as exc:
        raise UnknownModelError(f"cannot read GGUF file {path}: {exc}") from exc


def open_gguf_tensors(path: Path) -> GGUFReader:
    """A reader of the file's tensors only (``TensorIndexReader``): its ``fields`` hold nothing but the alignment."""
    try:
        return TensorIndexReader(path)
    except (OSError, ValueError, struct.error) as exc:
        raise UnknownModelError(f"cannot read GGUF file {path}: {exc}") from exc


_SCALAR_BYTES = {GGUFValueType.UINT8: 1, GGUFValueType.INT8: 1, GGUFValueType.BOOL: 1, GGUFValueType.UINT16: 2,
                 GGUFValueType.INT16: 2, GGUFValueType.UINT32: 4, GGUFValueType.INT32: 4, GGUFValueType.FLOAT32: 4,
                 GGUFValueType.UINT64: 8, GGUFValueType.INT64: 8, GGUFValueType.FLOAT64: 8}


class TensorIndexReader(GGUFReader):
    """``GGUFReader`` that steps over the metadata values instead of parsing them, then reads the tensor index as
    the full reader does (the same ``tensors``, views of the same memory map). The full reader makes numpy views of
    every part of every value, the vocabulary and merges included (SmolLM2: ~250k views, 4-8 s on a shared core);
    loading the weights needs none of them (the architecture and tokenizer come from ``engine.loader.gguf_metadata``),
    only the alignment, which is kept. A file in the other byte order is read by the full reader's code."""

    def _build_fields(self, offs: int, count: int) -> int:
        if self.byte_order == "S":
            return super()._build_fields(offs, count)
        # A numpy memmap of the file: struct reads it as a buffer, which numpy's stubs do not declare.
        data: Any = self.data
        for _ in range(int(count)):
            start = offs
            (key_length,) = struct.unpack_from("<Q", data, offs)
            key = bytes(data[offs + 8:offs + 8 + key_length]).decode("utf-8")
            offs += 8 + key_length
            (value_type,) = struct.unpack_from("<I", data, offs)
            offs += 4
            if key == "general.alignment" and value_type == GGUFValueType.UINT32:
                (alignment,) = struct.unpack_from("<I", data, offs)
                self._push_field(ReaderField(start, key, [np.array([alignment], dtype=np.uint32)], [0],
                                             [GGUFValueType.UINT32]))
            offs = _skip_value(data, offs, GGUFValueType(value_type))
        return offs


def _skip_value(data: Any, offs: int, value_type: GGUFValueType) -> int:
    """The offset just past the value of ``value_type`` at ``offs``."""
    size = _SCALAR_BYTES.get(value_type)
    if size is not None:
        return offs + size
    if value_type == GGUFValueType.STRING:
        return offs + 8 + struct.unpack_from("<Q", data, offs)[0]
    if value_type != GGUFValueType.ARRAY:
        raise ValueError(f"unknown GGUF value type {value_type}")
    item_type, count = struct.unpack_from("<IQ", data, offs)
    offs += 12
    size = _SCALAR_BYTES.get(GGUFValueType(item_type))
    if size is not None:
        return offs + size * count
    for _ in range(count):
        offs = _skip_value(data, offs, GGUFValueType(item_type))
    return offs


def field_value(reader: GGUFReader, key: str, default: Any = None) -> Any:
    """A metadata value as a Python scalar, string or list (``None``/default when absent)."""
    f = reader.fields.get(key)
    if f is None:
        return default
    if f.types and f.types[0] == GGUFValueType.ARRAY:
        return list(f.contents())
    return f.contents()


def gguf_arch_config(reader: GGUFReader) -> ModelArchConfig:
    arch = field_value(reader, "general.architecture")
    if arch not in SUPPORTED_ARCHITECTURES:
        raise UnknownModelError(f"unsupported GGUF architecture {arch!r}; supported: {SUPPORTED_ARCHITECTURES}")

    if arch in ("gemma2", "gemma3_text", *STATE_SPACE_ARCHITECTURES):  # Gemma: llama.cpp folds the norms' +1 and
        # renames the tensors; Mamba2 / Nemotron-H: its SSM tensors are laid out differently
        raise UnknownModelError(f"GGUF {arch!r} models are served from HF safetensors checkpoints only")

    def meta(key: str, default: Any = None) -> Any:
        return field_value(reader, f"{arch}.{key}", default)

    if meta("expert_count"):  # llama.cpp writes Mixtral as "llama" with expert tensors Warden does not map
        raise UnknownModelError(f"GGUF {arch!r} model with {meta('expert_count')} experts: mixture-of-experts models "
                                f"are served from HF safetensors checkpoints only")

    hidden = meta("embedding_length")
    heads = meta("attention.head_count")
    names = {t.name for t in reader.tensors}
    vocab = meta("vocab_size") or len(field_value(reader, "tokenizer.ggml.tokens", []))
    scaling_type = meta("rope.scaling.type")
    rope_scaling = None
    if scaling_type == "linear":
        rope_scaling = {"rope_type": "linear", "factor": float(meta("rope.scaling.factor", 1.0))}
    eos = field_value(reader, "tokenizer.ggml.eos_token_id")
    eot = field_value(reader, "tokenizer.ggml.eot_token_id")
    return ModelArchConfig(
        architecture=arch,
        vocab_size=int(vocab),
        hidden_size=int(hidden),
        intermediate_size=int(meta("feed_forward_length")),
        num_hidden_layers=int(meta("block_count")),
        num_attention_heads=int(heads),
        num_key_value_heads=int(meta("attention.head_count_kv", heads)),
        head_dim=int(meta("attention.key_length", hidden // heads)),
        rms_norm_eps=float(meta("attention.layer_norm_rms_epsilon", 1e-6)),
        rope_theta=float(meta("rope.freq_base", 10000.0)),
        max_position_embeddings=int(meta("context_length", 2048)),
        tie_word_embeddings="output.weight" not in names,
        attention_bias="blk.0.attn_q.bias" in names,
        rope_scaling=rope_scaling,
        bos_token_id=field_value(reader, "tokenizer.ggml.bos_token_id"),
        eos_token_ids=[int(t) for t in dict.fromkeys(x for x in (eos, eot) if x is not None)],
    )


def _unpermute_rope_rows(w: np.ndarray, n_heads: int) -> np.ndarray:
    """Inverse of llama.cpp's ``permute``: interleaved (x0, x1) pairs back to HF's half-split layout."""
    rows = w.shape[0]
    return w.reshape(n_heads, rows // n_heads // 2, 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def hf_name(gguf_name: str) -> str | None:
    m = _BLOCK.match(gguf_name)
    if m:
        suffix = _LAYER_NAMES.get(m.group(2))
        return None if suffix is None else f"model.layers.{m.group(1)}.{suffix}"
    return _GLOBAL_NAMES.get(gguf_name)


def iter_gguf_tensors(reader: GGUFReader, cfg: ModelArchConfig) -> Iterator[tuple[str, torch.Tensor]]:
    """Yield ``(hf_name, float32 tensor)`` for every tensor the model uses, dequantized."""
    for t in reader.tensors:
        name = hf_name(t.name)
        if name is None:
            continue
        array = dequantize(t.data, t.tensor_type)
        # GGUF lists dims fastest-first; numpy wants them slowest-first.
        array = np.asarray(array).reshape([int(d) for d in reversed(t.shape)])
        if cfg.architecture == "llama":
            if name.endswith("q_proj.weight") or name.endswith("q_proj.bias"):
                array = _unpermute_rope_rows(array, cfg.num_attention_heads)
            elif name.endswith("k_proj.weight") or name.endswith("k_proj.bias"):
                array = _unpermute_rope_rows(array, cfg.num_key_value_heads)
        yield name, torch.from_numpy(np.array(array, dtype=np.float32, order="C", copy=True))
