"""The tokenizer description llguidance needs: every token's bytes, built from the engine's HF tokenizer."""

from __future__ import annotations

from collections.abc import Sequence

import llguidance
import tokenizers


def build_ll_tokenizer(
    tokenizer: tokenizers.Tokenizer, *, vocab_size: int, eos_token_ids: Sequence[int]
) -> llguidance.LLTokenizer:
    """``vocab_size`` is the width of the model's logits (it may exceed the tokenizer's vocabulary; the extra ids
    are never allowed). The first EOS id is the one the grammar allows when the output is complete; llguidance
    accepts any of them. Takes about half a second for a 49k vocabulary: build once per engine."""
    if not eos_token_ids:
        raise ValueError("the grammar needs at least one EOS token id to end an output")
    if tokenizer.get_vocab_size(with_added_tokens=True) > vocab_size:
        raise ValueError(f"tokenizer has more tokens than the model's logits ({vocab_size})")
    return llguidance.LLTokenizer(tokenizer.to_str(), n_vocab=vocab_size, eos_token=list(eos_token_ids))


def bitmask_words(vocab_size: int) -> int:
    """int32 words in one row of the packed bitmask (bit i of word w allows token 32*w + i)."""
    return (vocab_size + 31) // 32
