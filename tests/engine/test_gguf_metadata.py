"""The GGUF metadata cache: the tokenizer and architecture read back from the cache file are the ones read from the
file (same ids, same text, same chat prompt, same fields); the cache file is written once and used by the next
start; a changed file is read again; an unwritable cache directory only means no cache."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import gguf
import numpy as np
import pytest

from engine.loader import gguf_metadata
from engine.loader.gguf_loader import gguf_arch_config, open_gguf, open_gguf_tensors
from engine.loader.model_loader import load_arch_config
from engine.loader.source import ModelSource, default_gguf_path
from engine.models.config import ModelArchConfig
from engine.tokenization.tokenizer import Tokenizer

TEXTS = ["Hello world! 12345 ÿ café 🤖", "<|im_start|>user\nhi<|im_end|>\n", "  spaces\t\ttabs\n\nnew lines", "x" * 300]
FIELDS = ("chat_template", "bos_token_id", "eos_token_ids", "add_bos_token", "byte_level", "pad_token_id",
          "vocab_size", "all_special_ids")


@pytest.fixture(scope="module")
def reference() -> tuple[Tokenizer, ModelArchConfig]:
    reader = open_gguf(default_gguf_path())
    return Tokenizer.from_gguf(reader), gguf_arch_config(reader)


@pytest.fixture
def cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    gguf_metadata._read.cache_clear()
    yield tmp_path / "cache"
    gguf_metadata._read.cache_clear()


def _assert_same(tokenizer: Tokenizer, reference: Tokenizer) -> None:
    for text in TEXTS:
        ids = reference.encode(text)
        assert tokenizer.encode(text) == ids
        assert tokenizer.decode(ids) == reference.decode(ids)
        assert tokenizer.decode(ids, skip_special_tokens=False) == reference.decode(ids, skip_special_tokens=False)
    for name in FIELDS:
        assert getattr(tokenizer, name) == getattr(reference, name), name
    messages = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "hi"}]
    assert tokenizer.apply_chat_template(messages) == reference.apply_chat_template(messages)


@pytest.mark.slow  # the default GGUF is parsed twice (seconds each on a shared core)
def test_the_cached_tokenizer_and_architecture_are_the_files(reference: tuple[Tokenizer, ModelArchConfig],
                                                             cache_home: Path, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    tokenizer, arch = reference
    model = tmp_path / "model.gguf"
    shutil.copyfile(default_gguf_path(), model)
    source = ModelSource("gguf", model, "m")

    first = Tokenizer.from_source(source)  # parsed from the file; the cache file written
    files = list((cache_home / "warden" / "gguf").iterdir())
    assert len(files) == 1 and files[0].name == f"{gguf_metadata.cache_key(model)}.json"
    _assert_same(first, tokenizer)

    gguf_metadata._read.cache_clear()  # as a new process: only the cache file
    opened: list[Path] = []
    real_from_file = gguf_metadata._from_file

    def from_file(path: Path) -> gguf_metadata.GGUFMetadata:
        opened.append(path)
        return real_from_file(path)

    monkeypatch.setattr(gguf_metadata, "_from_file", from_file)
    _assert_same(Tokenizer.from_source(source), tokenizer)
    assert load_arch_config(source) == arch
    assert opened == []

    # A rewritten file has another identity: it is read again, under a new key.
    os.utime(model, ns=(model.stat().st_atime_ns, model.stat().st_mtime_ns + 1_000_000_000))
    assert load_arch_config(source) == arch
    assert opened == [model.resolve()]
    assert len(list((cache_home / "warden" / "gguf").iterdir())) == 2


def test_a_cache_that_cannot_be_written_or_read_is_no_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                            caplog: pytest.LogCaptureFixture) -> None:
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("a file where the cache directory would go")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    metadata = gguf_metadata.GGUFMetadata(_arch(), '{"version": "1.0"}', {"byte_level": True})
    gguf_metadata._store(gguf_metadata.cache_dir() / "key.json", metadata)
    assert "cannot cache GGUF metadata" in caplog.text
    # A damaged or foreign cache file is ignored (read from the file instead), never an error.
    broken = tmp_path / "broken.json"
    broken.write_text('{"version": 999}')
    with pytest.raises(ValueError):
        gguf_metadata.GGUFMetadata.from_json(broken.read_text())
    assert gguf_metadata.GGUFMetadata.from_json(metadata.to_json()) == metadata


def _arch() -> ModelArchConfig:
    return ModelArchConfig(architecture="llama", vocab_size=10, hidden_size=8, intermediate_size=16,
                           num_hidden_layers=1, num_attention_heads=2, num_key_value_heads=2, head_dim=4,
                           rms_norm_eps=1e-5, rope_theta=10000.0, max_position_embeddings=64,
                           tie_word_embeddings=True, eos_token_ids=[2])


def test_the_tensor_index_reader_finds_what_the_full_reader_does() -> None:
    path = default_gguf_path()
    fast, full = open_gguf_tensors(path), open_gguf(path)
    assert (fast.data_offset, fast.alignment) == (full.data_offset, full.alignment)
    assert [t.name for t in fast.tensors] == [t.name for t in full.tensors]
    for ours, theirs in zip(fast.tensors, full.tensors, strict=True):
        assert (ours.tensor_type, ours.shape.tolist(), ours.n_bytes, ours.data_offset) == \
            (theirs.tensor_type, theirs.shape.tolist(), theirs.n_bytes, theirs.data_offset)
        assert ours.data.dtype == theirs.data.dtype and ours.data.shape == theirs.data.shape
        assert np.array_equal(ours.data, theirs.data)
    assert "tokenizer.ggml.tokens" not in fast.fields  # the values were stepped over, not parsed


def test_the_tensor_index_reader_keeps_the_alignment_and_steps_over_every_value_type(tmp_path: Path) -> None:
    writer = gguf.GGUFWriter(tmp_path / "t.gguf", "llama")
    writer.add_custom_alignment(64)
    writer.add_array("x.strings", ["a", "bc", ""])
    writer.add_array("x.ints", [1, 2, 3])
    writer.add_array("x.nested", [[1, 2], [3]])
    writer.add_float64("x.f64", 1.5)
    writer.add_bool("x.bool", True)
    writer.add_string("x.string", "héllo")
    writer.add_tensor("blk.0.attn_q.weight", np.arange(64, dtype=np.float32).reshape(4, 16))
    writer.add_tensor("output_norm.weight", np.ones(16, dtype=np.float16))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    fast, full = open_gguf_tensors(tmp_path / "t.gguf"), open_gguf(tmp_path / "t.gguf")
    assert fast.alignment == full.alignment == 64 and fast.data_offset == full.data_offset
    for ours, theirs in zip(fast.tensors, full.tensors, strict=True):
        assert ours.name == theirs.name and np.array_equal(ours.data, theirs.data)
