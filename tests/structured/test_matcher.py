"""GrammarMatcher: the per-sequence interface the engine drives (mask, accept, forced tokens, rollback, end)."""

from __future__ import annotations

import json

import pytest
import tokenizers
import torch

from engine.structured import GrammarCompiler, GrammarMatcher, bitmask_words

SCHEMA = {
    "type": "object",
    "properties": {"status": {"const": "ok"}, "count": {"type": "integer", "minimum": 0}},
    "required": ["status", "count"],
    "additionalProperties": False,
}


@pytest.fixture()
def matcher(compiler: GrammarCompiler) -> GrammarMatcher:
    return compiler.compile({"type": "json_schema", "schema": SCHEMA}).new_matcher()


def _allowed(matcher: GrammarMatcher, vocab: int) -> set[int]:
    row = torch.zeros(bitmask_words(vocab), dtype=torch.int32)
    matcher.fill_bitmask(row)
    bits = ((row.unsqueeze(-1) >> torch.arange(32, dtype=torch.int32)) & 1).flatten()[:vocab]
    return set(torch.nonzero(bits).flatten().tolist())


def test_forced_prefix_then_choice_then_eos(
    matcher: GrammarMatcher, hf_tokenizer: tokenizers.Tokenizer, eos_token_id: int
) -> None:
    vocab = hf_tokenizer.get_vocab_size()
    forced = matcher.forced_tokens()
    # Layout and the const are fixed, so the grammar forces everything up to the integer's first digit.
    assert hf_tokenizer.decode(forced) == '{"status": "ok", "count": '
    assert matcher.accept_tokens(forced) == len(forced)
    allowed = _allowed(matcher, vocab)
    assert hf_tokenizer.token_to_id("7") in allowed
    assert hf_tokenizer.token_to_id("-") not in allowed  # minimum: 0
    assert eos_token_id not in allowed  # the object is not closed yet
    for tid in hf_tokenizer.encode("42}").ids:
        assert matcher.accept_token(tid)
    assert matcher.is_accepting() and matcher.is_terminated()
    assert _allowed(matcher, vocab) == {eos_token_id}
    assert matcher.error is None


def test_every_token_of_a_valid_output_is_in_its_mask(
    matcher: GrammarMatcher, hf_tokenizer: tokenizers.Tokenizer
) -> None:
    vocab = hf_tokenizer.get_vocab_size()
    for tid in hf_tokenizer.encode(json.dumps({"status": "ok", "count": 12})).ids:
        assert tid in _allowed(matcher, vocab)
        assert matcher.accept_token(tid)
    assert matcher.is_accepting()


def test_disallowed_token_is_refused_and_reported(matcher: GrammarMatcher, hf_tokenizer: tokenizers.Tokenizer) -> None:
    ids = hf_tokenizer.encode('{"status": "no').ids
    assert matcher.validate_tokens(ids) < len(ids)
    assert matcher.accept_tokens(ids) < len(ids)
    bad = hf_tokenizer.encode("no").ids[0]
    assert not matcher.accept_token(bad)
    assert matcher.error is not None and matcher.is_terminated()


def test_rollback_restores_the_earlier_state(matcher: GrammarMatcher, hf_tokenizer: tokenizers.Tokenizer) -> None:
    vocab = hf_tokenizer.get_vocab_size()
    prefix = hf_tokenizer.encode('{"status": "ok", "count": ').ids
    assert matcher.accept_tokens(prefix) == len(prefix)
    before = _allowed(matcher, vocab)
    tail = hf_tokenizer.encode("3}").ids
    assert matcher.accept_tokens(tail) == len(tail)
    assert matcher.is_terminated()
    matcher.rollback(len(tail))
    assert matcher.num_accepted == len(prefix)
    assert not matcher.is_terminated()
    assert _allowed(matcher, vocab) == before
    with pytest.raises(AssertionError):
        matcher.rollback(len(prefix) + 1)
    matcher.reset()
    assert matcher.num_accepted == 0
    assert matcher.forced_tokens()  # back at the forced prefix


def test_matchers_from_one_grammar_are_independent(
    compiler: GrammarCompiler, hf_tokenizer: tokenizers.Tokenizer
) -> None:
    grammar = compiler.compile({"type": "json_schema", "schema": SCHEMA})
    a, b = grammar.new_matcher(), grammar.new_matcher()
    ids = hf_tokenizer.encode('{"status": "ok"').ids
    assert a.accept_tokens(ids) == len(ids)
    assert b.num_accepted == 0 and hf_tokenizer.decode(b.forced_tokens()).startswith('{"status"')
