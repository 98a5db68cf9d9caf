"""Per-layer sliding windows and Gemma's attention settings read from HF configs (transformers' current and older
spellings), and the shared window that decides whether the block manager may release blocks early."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.errors import UnknownModelError
from engine.loader.gguf_loader import gguf_arch_config
from engine.models.config import ModelArchConfig

BASE = {"vocab_size": 100, "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 4,
        "num_attention_heads": 4, "num_key_value_heads": 2}


def arch(**cfg) -> ModelArchConfig:
    return ModelArchConfig.from_hf({**BASE, **cfg})


def test_mistral_windows_every_layer_and_shares_the_window() -> None:
    cfg = arch(model_type="mistral", sliding_window=4096)
    assert cfg.layer_windows == [4096] * 4 and cfg.uniform_window == 4096
    unwindowed = arch(model_type="mistral", sliding_window=None)
    assert unwindowed.layer_windows == [] and unwindowed.uniform_window == 0 and unwindowed.layer_window(2) == 0


def test_llama_and_qwen2_without_use_sliding_window_are_global() -> None:
    assert arch(model_type="llama", sliding_window=128).layer_windows == []
    assert arch(model_type="qwen2", sliding_window=4096, use_sliding_window=False).layer_windows == []
    qwen = arch(model_type="qwen2", sliding_window=64, use_sliding_window=True,
                layer_types=["full_attention", "full_attention", "sliding_attention", "sliding_attention"])
    assert qwen.layer_windows == [0, 0, 64, 64] and qwen.uniform_window == 0


def test_gemma2_alternates_and_reads_its_attention_settings() -> None:
    cfg = arch(model_type="gemma2", sliding_window=4096, query_pre_attn_scalar=256, attn_logit_softcapping=50.0,
               final_logit_softcapping=30.0, hidden_activation="gelu_pytorch_tanh",
               rope_parameters={"rope_type": "default", "rope_theta": 10000.0})
    assert cfg.layer_windows == [4096, 0, 4096, 0] and cfg.uniform_window == 0  # global layers: nothing released
    assert (cfg.query_pre_attn_scalar, cfg.attn_logit_softcapping, cfg.final_logit_softcapping) == (256, 50.0, 30.0)
    assert cfg.tie_word_embeddings and cfg.rope_theta == 10000.0
    explicit = arch(model_type="gemma2", sliding_window=8,
                    layer_types=["full_attention", "sliding_attention", "full_attention", "sliding_attention"])
    assert explicit.layer_windows == [0, 8, 0, 8]


def test_gemma3_reads_a_rope_base_per_layer_kind_in_both_spellings() -> None:
    current = arch(model_type="gemma3_text", sliding_window=512, num_hidden_layers=7,
                   layer_types=["sliding_attention"] * 5 + ["full_attention", "sliding_attention"],
                   rope_parameters={"sliding_attention": {"rope_type": "default", "rope_theta": 10_000.0},
                                    "full_attention": {"rope_type": "linear", "factor": 8.0,
                                                       "rope_theta": 1_000_000.0}})
    assert current.layer_windows == [512] * 5 + [0, 512]
    assert current.rope_theta == 1_000_000.0 and current.local_rope_theta == 10_000.0 and current.qk_norm
    assert current.rope_scaling == {"rope_type": "linear", "factor": 8.0, "rope_theta": 1_000_000.0}
    older = arch(model_type="gemma3_text", sliding_window=512, num_hidden_layers=7, sliding_window_pattern=6,
                 rope_theta=1_000_000.0, rope_local_base_freq=10_000.0)
    assert older.layer_windows == current.layer_windows
    assert older.rope_theta == 1_000_000.0 and older.local_rope_theta == 10_000.0
    with pytest.raises(UnknownModelError, match="bidirectional"):
        arch(model_type="gemma3_text", sliding_window=512, use_bidirectional_attention=True)


def test_gemma_gguf_files_are_refused(tmp_path: Path) -> None:
    """llama.cpp's Gemma files fold the norms' +1 and rename the tensors: refused by name, never served wrongly."""
    from gguf import GGUFReader, GGUFWriter

    path = tmp_path / "gemma2.gguf"
    writer = GGUFWriter(str(path), "gemma2")
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    with pytest.raises(UnknownModelError, match="HF safetensors"):
        gguf_arch_config(GGUFReader(path))
