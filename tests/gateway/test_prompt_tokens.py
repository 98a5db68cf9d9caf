"""A chat prompt encoded in pieces, the repeating ones kept, has exactly the ids of the prompt encoded whole; kept
pieces are per tenant, the newest message is never kept, and a tokenizer where pieces could differ is encoded
whole."""

from __future__ import annotations

import json
import random
from types import SimpleNamespace
from typing import Any

import pytest

from engine.loader.source import resolve_model
from engine.tokenization.tokenizer import Tokenizer
from gateway import app as app_module
from gateway.openai import prompt_tokens
from gateway.openai.prompt_tokens import SegmentEncoder, segment_encoder
from gateway.openai.prompts import chat_prompt_ids, model_messages

ODD = ["", " ", "  two leading", "trailing  ", "\n\n", "<|im_start|>inside", "a<|im_end|>b", "emoji 🙂🙂 and ñ",
       "12345678901", "\t\ttabs", "<|endoftext|>", "<|im_start"]


@pytest.fixture(scope="module")
def tokenizer() -> Tokenizer:
    return Tokenizer.from_source(resolve_model("default"))


def conversations(count: int, seed: int) -> list[list[dict[str, Any]]]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        messages = [{"role": "system", "content": rng.choice(ODD) + "You are helpful." + rng.choice(ODD)}]
        for turn in range(rng.randrange(0, 4)):
            messages.append({"role": "user", "content": f"{rng.choice(ODD)}question {turn} {rng.choice(ODD)}"})
            messages.append({"role": "assistant", "content": f"{rng.choice(ODD)}answer {rng.choice(ODD)}"})
        messages.append({"role": "user", "content": f"{rng.choice(ODD)}last {rng.random()}{rng.choice(ODD)}"})
        out.append(messages)
    return out


def whole(tokenizer: Tokenizer, messages: list[dict[str, Any]]) -> list[int]:
    return tokenizer.encode(tokenizer.apply_chat_template(model_messages(messages), add_generation_prompt=True))


def test_pieces_encode_to_the_ids_of_the_whole_prompt(tokenizer: Tokenizer) -> None:
    encoder = segment_encoder(tokenizer)
    assert encoder is not None  # SmolLM2's byte-level BPE: encoded in pieces
    prompts = conversations(200, seed=1)
    for messages in prompts + prompts:  # the second time round, from kept pieces
        assert chat_prompt_ids(tokenizer, messages, tenant_id="t1") == whole(tokenizer, messages)
    assert encoder.hits > 0


def test_kept_pieces_are_per_tenant_and_the_newest_message_is_not_kept(tokenizer: Tokenizer) -> None:
    encoder = SegmentEncoder.build(tokenizer)
    assert encoder is not None
    system = "You are the assistant of tenant A, with a prompt of its own."
    rendered = tokenizer.apply_chat_template([{"role": "system", "content": system},
                                              {"role": "user", "content": "brand new question"}])
    encoder.encode(rendered, scope="a", fresh="brand new question")
    kept = {piece for _, piece in encoder._kept}
    assert any(system in piece for piece in kept)
    assert not any("brand new question" in piece for piece in kept)
    first = (encoder.hits, encoder.misses)
    encoder.encode(rendered, scope="b", fresh="brand new question")  # tenant b finds nothing of a's
    assert (encoder.hits, encoder.misses) == (2 * first[0], 2 * first[1])
    misses = encoder.misses
    encoder.encode(rendered, scope="a", fresh="brand new question")  # a finds its own, all but the newest
    assert encoder.misses == misses + 1


def test_kept_pieces_are_bounded(tokenizer: Tokenizer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(prompt_tokens, "MAX_ENTRIES", 10)
    encoder = SegmentEncoder.build(tokenizer)
    assert encoder is not None
    for i in range(50):
        encoder.encode(f"<|im_start|>system\nprompt {i}<|im_end|>\n", scope="t", fresh="")
    assert len(encoder._kept) == 10
    assert encoder._kept_chars == sum(len(piece) for _, piece in encoder._kept)


def test_a_tokenizer_that_may_differ_in_pieces_is_encoded_whole(tokenizer: Tokenizer) -> None:
    not_byte_level = Tokenizer(tokenizer.backend, chat_template=tokenizer.chat_template, bos_token_id=None,
                               eos_token_ids=tokenizer.eos_token_ids, add_bos_token=False, byte_level=False)
    assert segment_encoder(not_byte_level) is None
    messages = conversations(1, seed=2)[0]
    assert chat_prompt_ids(not_byte_level, messages, tenant_id="t") == whole(tokenizer, messages)


PLAIN_ALPHABET = "ab Z09'sltredvm \n\t\r.,;:!?()-_@#$%^&*~`\"{}[]<>/\\|+="
PLAIN_WORDS = ["the", "It's", "we'll", " don't", "'S", "'ll", "  ", "\n\n", "1234", "user@example.org", "x" * 30,
               "   \n", " 3.14", "+1 415 555 1663"]


def plain_texts(count: int, seed: int) -> list[str]:
    """ASCII text built to hit the regex's corners: contractions, runs of spaces before words and line ends,
    digits next to letters and spaces, punctuation runs."""
    rng = random.Random(seed)
    texts = []
    for n in range(count):
        if n % 2:
            texts.append("".join(rng.choice(PLAIN_ALPHABET) for _ in range(rng.randrange(0, 40))))
        else:
            texts.append("".join(rng.choice(PLAIN_WORDS + list(PLAIN_ALPHABET)) for _ in range(rng.randrange(0, 15))))
    return texts


def test_plain_pieces_cut_into_words_encode_to_the_tokenizers_ids(tokenizer: Tokenizer) -> None:
    encoder = SegmentEncoder.build(tokenizer)
    assert encoder is not None and encoder._digits_apart is True  # SmolLM2: digits apart, then GPT-2's regex
    for text in plain_texts(4000, seed=3) + plain_texts(200, seed=3):  # the second time round, from kept words
        assert encoder._plain_ids(text, "t") == tokenizer.encode(text), repr(text)
    for messages in conversations(100, seed=4):  # whole prompts, their newest message cut into words
        rendered = tokenizer.apply_chat_template(model_messages(messages), add_generation_prompt=True)
        assert encoder.encode(rendered, scope="t", fresh=messages[-1]["content"]) == whole(tokenizer, messages)


def test_kept_words_are_per_tenant_and_bounded(tokenizer: Tokenizer, monkeypatch: pytest.MonkeyPatch) -> None:
    encoder = SegmentEncoder.build(tokenizer)
    assert encoder is not None
    encoder._plain_ids("shared words here", "a")
    assert set(encoder._words) == {"a"}
    encoder._plain_ids("shared words here", "b")  # b's first use is a miss of its own, not a's entry
    assert set(encoder._words["b"]) == {"shared", " words", " here"}
    monkeypatch.setattr(prompt_tokens, "MAX_WORDS", 20)
    for i in range(100):
        assert encoder._plain_ids(f"word{i}x", "a") == tokenizer.encode(f"word{i}x")
        assert encoder._plain_ids(f"other{i}y", "c") == tokenizer.encode(f"other{i}y")
        assert encoder._word_count == sum(len(words) for words in encoder._words.values()) <= 20
    assert len(encoder._words["a"]) >= 5 and len(encoder._words["c"]) >= 5  # tenants take turns losing words


def test_a_piece_that_is_not_plain_ascii_goes_to_the_tokenizer_whole(tokenizer: Tokenizer) -> None:
    encoder = SegmentEncoder.build(tokenizer)
    assert encoder is not None
    for text in ["émoji 🙂 and ñ", "form\x0cfeed", "nul\x00", "vertical\x0btab", "nbsp\u00a0here", "fullwidth１２３"]:
        rendered = f"<|im_start|>user\n{text}<|im_end|>\n"
        assert encoder.encode(rendered, scope="t", fresh=text) == tokenizer.encode(rendered)
    assert not any("\u00a0" in word or "\x0c" in word for words in encoder._words.values() for word in words)


def test_an_unknown_pre_tokenizer_is_not_cut_into_words() -> None:
    class Backend:
        def __init__(self, pre_tokenizer: dict[str, Any]) -> None:
            self.pre_tokenizer = pre_tokenizer

        def to_str(self) -> str:
            return json.dumps({"pre_tokenizer": self.pre_tokenizer})

    byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}
    assert prompt_tokens._digits_apart(Backend(byte_level)) is False
    assert prompt_tokens._digits_apart(Backend({"type": "Sequence", "pretokenizers": [
        {"type": "Digits", "individual_digits": True}, byte_level]})) is True
    others: list[dict[str, Any]] = [
        {**byte_level, "add_prefix_space": True}, {"type": "Metaspace"},
        {"type": "Sequence", "pretokenizers": [{"type": "Digits", "individual_digits": False}, byte_level]},
        {"type": "Sequence", "pretokenizers": [{"type": "Split", "pattern": {"Regex": "x"}}, byte_level]}]
    for other in others:
        assert prompt_tokens._digits_apart(Backend(other)) is None


LINE_WORDS = ["\n", "\n\n", " \n", "\n ", "  \n  ", "\t\n", "\r\n", "x", " y", "12", ".", "'s", "(a)", "  ", "<EMAIL>"]


def lined_texts(count: int, seed: int) -> list[str]:
    """ASCII text dense in line breaks next to spaces, tabs, digits, punctuation and other line breaks."""
    rng = random.Random(seed)
    return ["".join(rng.choice(LINE_WORDS + PLAIN_WORDS) for _ in range(rng.randrange(0, 25))) for _ in range(count)]


def test_lines_are_cut_only_where_a_word_ends() -> None:
    for text in lined_texts(2000, seed=5) + plain_texts(500, seed=6):
        lines = prompt_tokens._lines(text)
        assert "".join(lines) == text
        assert all(line.startswith("\n") for line in lines[1:])
        assert all(line and not line[-1].isspace() for line in lines[:-1])


def test_a_piece_encoded_line_by_line_has_the_ids_of_the_piece(tokenizer: Tokenizer) -> None:
    encoder = SegmentEncoder.build(tokenizer)
    assert encoder is not None
    for text in lined_texts(3000, seed=7):
        reuse: dict[str, list[int]] = {}
        assert encoder._lines_ids(text, "t", reuse) == tokenizer.encode(text), repr(text)
        assert encoder._lines_ids(text, "t", reuse) == tokenizer.encode(text), repr(text)  # from reuse alone


def rewritten(messages: list[dict[str, Any]], rng: random.Random) -> list[dict[str, Any]]:
    """``messages`` as an input guardrail might leave them: spans of some messages replaced by a placeholder (or by
    nothing, or by text with line breaks), the rest untouched."""
    out = []
    for message in messages:
        content = message["content"]
        if content and rng.random() < 0.6:
            start = rng.randrange(len(content))
            end = min(len(content), start + rng.randrange(1, 20))
            content = content[:start] + rng.choice(["<EMAIL_ADDRESS>", "", " \n", "<PERSON>\n\n", "12 34"]) + \
                content[end:]
        out.append({**message, "content": content})
    return out


def ticket_conversations(count: int, seed: int) -> list[list[dict[str, Any]]]:
    """Conversations whose newest message is many lines (plain ASCII), beside the odd ones above."""
    rng = random.Random(seed)
    out = conversations(count, seed)
    for messages in out:
        lines = [f"Ticket {rng.randrange(10_000)}: {rng.choice(PLAIN_WORDS)} {rng.choice(LINE_WORDS)}"
                 for _ in range(rng.randrange(1, 12))]
        messages[-1]["content"] = "\n".join(lines) + rng.choice(["", "\n", " ", "\n\n"])
    return out


def test_a_rewritten_prompt_reusing_the_first_encoding_has_the_ids_of_the_rewritten_prompt(
        tokenizer: Tokenizer) -> None:
    rng = random.Random(8)
    for messages in ticket_conversations(300, seed=9) + conversations(100, seed=10):
        reuse: dict[str, list[int]] = {}
        assert chat_prompt_ids(tokenizer, messages, tenant_id="t", reuse=reuse) == whole(tokenizer, messages)
        screened = rewritten(messages, rng)
        assert chat_prompt_ids(tokenizer, screened, tenant_id="t", reuse=reuse) == whole(tokenizer, screened)


def test_only_the_lines_a_rewrite_changed_are_cut_into_words_again(tokenizer: Tokenizer,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    encoder = segment_encoder(tokenizer)
    assert encoder is not None
    lines = [f"Ticket {i}: Jonas Berg (jonas{i}@example.org) was charged twice." for i in range(20)]
    messages = [{"role": "system", "content": "You are a support assistant."},
                {"role": "user", "content": "\n".join(lines)}]
    reuse: dict[str, list[int]] = {}
    chat_prompt_ids(tokenizer, messages, tenant_id="t-lines", reuse=reuse)
    screened = [messages[0], {"role": "user", "content": messages[1]["content"].replace("jonas7@example.org",
                                                                                       "<EMAIL_ADDRESS>")}]
    cut: list[str] = []
    real_cut = encoder._cut

    def counted_cut(text: str) -> list[str]:
        cut.append(text)
        return real_cut(text)

    monkeypatch.setattr(encoder, "_cut", counted_cut)
    assert chat_prompt_ids(tokenizer, screened, tenant_id="t-lines", reuse=reuse) == whole(tokenizer, screened)
    assert cut == ["\nTicket 7: Jonas Berg (<EMAIL_ADDRESS>) was charged twice."]


def test_start_up_builds_the_prompt_encoder_before_the_first_request() -> None:
    # A fresh tokenizer object, so no earlier test has built its encoder; the warm-up is what start-up runs once the
    # engine is ready, before the heap is frozen.
    fresh = Tokenizer.from_source(resolve_model("default"))
    assert fresh not in prompt_tokens._encoders
    app_module._warm_chat_template(SimpleNamespace(tokenizer=fresh))
    assert prompt_tokens._encoders.get(fresh) is not None
