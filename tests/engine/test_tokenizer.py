"""Tokenizer built from GGUF metadata vs transformers' tokenizer of the same file; chat template rendering;
incremental detokenization that never splits a character."""

from __future__ import annotations

import pytest

from engine.tokenization.detokenizer import IncrementalDetokenizer, StopStringFilter

TEXTS = [
    "Hello world!",
    "  leading spaces,\ttabs\n\nand newlines",
    "Ünïcödé 日本語 🙂 emoji 👩‍👩‍👧",
    "<|im_start|>user\nhi<|im_end|>",
    "I'm sure they'll've done it",
    "def f(x):\n    return x ** 2  # 12345",
]
CONVERSATIONS = [
    [{"role": "user", "content": "What is 2+2?"}],
    [{"role": "system", "content": "Be terse."}, {"role": "user", "content": "Hi"}],
    [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello!"},
     {"role": "user", "content": "Tell me a joke."}],
]


@pytest.fixture(scope="module")
def hf_tokenizer(gguf_path):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(gguf_path.parent, gguf_file=gguf_path.name)


@pytest.mark.parametrize("text", TEXTS)
def test_encode_decode_match_transformers(smol_tokenizer, hf_tokenizer, text):
    ids = smol_tokenizer.encode(text)
    assert ids == hf_tokenizer.encode(text, add_special_tokens=False)
    assert smol_tokenizer.decode(ids, skip_special_tokens=False) == text


def test_digits_are_split_like_smollm2(smol_tokenizer):
    assert len(smol_tokenizer.encode("2024")) == 4


@pytest.mark.parametrize("messages", CONVERSATIONS)
@pytest.mark.parametrize("add_generation_prompt", [True, False])
def test_chat_template_matches_transformers(smol_tokenizer, hf_tokenizer, messages, add_generation_prompt):
    ours = smol_tokenizer.apply_chat_template(messages, add_generation_prompt=add_generation_prompt)
    theirs = hf_tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=add_generation_prompt)
    assert ours == theirs


def test_special_ids(smol_tokenizer):
    assert smol_tokenizer.eos_token_ids == [2]
    assert smol_tokenizer.decode([1, 2]) == ""


@pytest.mark.parametrize("text", TEXTS)
def test_incremental_detokenizer_never_splits_a_character(smol_tokenizer, text):
    ids = smol_tokenizer.encode(text)
    detok = IncrementalDetokenizer(smol_tokenizer, [1, 4093, 198], skip_special_tokens=False)
    pieces = [detok.push(t) for t in ids] + [detok.flush()]
    assert "".join(pieces) == text
    assert all("\ufffd" not in p for p in pieces)


def test_stop_string_filter_holds_back_partial_matches():
    f = StopStringFilter(["STOP"])
    assert f.feed("abc ST") == ("abc", False)
    assert f.feed("O") == (" ", False)
    assert f.feed("P tail") == ("", True)
    g = StopStringFilter(["STOP"])
    assert g.feed("abc ST") == ("abc", False)
    assert g.feed("ore") == (" ST", False)
    assert g.flush() == "ore"


def test_token_bytes_of_partial_characters(smol_tokenizer):
    ids = smol_tokenizer.encode("🙂")
    assert b"".join(bytes(smol_tokenizer.token_bytes(i)) for i in ids) == "🙂".encode()
