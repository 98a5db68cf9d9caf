"""BatchBitmask: a mixed batch's mask (constrained and free rows), filled in parallel, applied to real logits."""

from __future__ import annotations

import json

import tokenizers
import torch

from engine.structured import BatchBitmask, GrammarCompiler, GrammarMatcher
from kernels.token_bitmask import apply_token_bitmask_

SCHEMAS = [
    {"type": "object", "properties": {"a": {"type": "boolean"}}, "required": ["a"], "additionalProperties": False},
    {"type": "array", "items": {"type": "integer"}, "maxItems": 3},
    {"type": "string", "enum": ["red", "green", "blue"]},
]


def _matchers(compiler: GrammarCompiler) -> list[GrammarMatcher]:
    return [compiler.compile({"type": "json_schema", "schema": s}).new_matcher() for s in SCHEMAS]


def test_rows_match_single_fills_and_free_rows_allow_all(compiler: GrammarCompiler, hf_tokenizer) -> None:
    vocab = hf_tokenizer.get_vocab_size()
    bitmask = BatchBitmask(max_batch=8, vocab_size=vocab, num_threads=2)
    a, b, c = _matchers(compiler)
    batch = [a, None, b, c, None]
    mask = bitmask.fill(batch)
    assert mask.shape == (5, (vocab + 31) // 32)
    for i, m in enumerate(batch):
        if m is None:
            assert bool((mask[i] == -1).all())
        else:
            single = torch.zeros(mask.shape[1], dtype=torch.int32)
            m.fill_bitmask(single)
            assert torch.equal(mask[i], single)
    assert bitmask.fill([None, None]) is None
    bitmask.close()


def test_async_fill_then_greedy_decoding_yields_valid_json(
    compiler: GrammarCompiler, hf_tokenizer: tokenizers.Tokenizer, eos_token_id: int
) -> None:
    """Drive three matchers to completion as an engine would, with adversarial logits that favor a token the
    grammar forbids at every step: the mask alone must keep every output valid."""
    vocab = hf_tokenizer.get_vocab_size()
    bitmask = BatchBitmask(max_batch=4, vocab_size=vocab, num_threads=2)
    matchers = _matchers(compiler)
    outputs: list[list[int]] = [[] for _ in matchers]
    gen = torch.Generator().manual_seed(0)
    favored = hf_tokenizer.token_to_id("Hello")
    live = list(range(len(matchers)))
    for _ in range(40):
        if not live:
            break
        pending = bitmask.fill_async([matchers[i] for i in live])
        logits = torch.randn(len(live), vocab, generator=gen)  # the "forward pass" runs meanwhile
        logits[:, favored] = 100.0
        apply_token_bitmask_(logits, pending.result())
        for row, i in enumerate(list(live)):
            token = int(logits[row].argmax())
            if token == eos_token_id:
                live.remove(i)
                continue
            assert matchers[i].accept_token(token), matchers[i].error
            outputs[i].append(token)
            if matchers[i].is_terminated():
                live.remove(i)
    assert not live
    values = [json.loads(hf_tokenizer.decode(out)) for out in outputs]
    assert isinstance(values[0]["a"], bool) and set(values[0]) == {"a"}
    assert isinstance(values[1], list) and len(values[1]) <= 3 and all(isinstance(x, int) for x in values[1])
    assert values[2] in ("red", "green", "blue")
    bitmask.close()


class _OnlyTokenZero:
    """A matcher outside engine.structured that keeps the engine's duck-typed contract (fill its own row)."""

    def fill_bitmask(self, row: torch.Tensor) -> None:
        row.zero_()
        row[0] = 1


def test_duck_typed_matchers_fill_their_own_rows(compiler: GrammarCompiler, hf_tokenizer) -> None:
    bitmask = BatchBitmask(max_batch=3, vocab_size=hf_tokenizer.get_vocab_size(), num_threads=1)
    real = _matchers(compiler)[0]
    mask = bitmask.fill([_OnlyTokenZero(), real, None])
    assert int(mask[0, 0]) == 1 and not bool(mask[0, 1:].any())
    single = torch.zeros(mask.shape[1], dtype=torch.int32)
    real.fill_bitmask(single)
    assert torch.equal(mask[1], single) and bool((mask[2] == -1).all())
    bitmask.close()
