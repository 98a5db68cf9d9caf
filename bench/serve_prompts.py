"""Turn a Mooncake entry into a chat request whose prompt has the entry's length and shares exactly the prefixes
its ``hash_ids`` say it shares.

Each hash id becomes a block of ``block_size`` words, drawn deterministically from the id (and a salt), from a
vocabulary of words that are one token each *with* their leading space. The BPE pre-tokenizer splits on spaces,
so a block is exactly ``block_size`` tokens wherever it appears and blocks never merge across their boundary:
equal hash-id prefixes give equal token prefixes, which is what the engine's prefix cache keys on. The chat
template's own tokens and a short closing instruction come out of the last block's share, so the requested
``input_length`` is the length of the templated prompt the engine sees.
"""

from __future__ import annotations

import random
import re
from typing import Any

from bench.traces.mooncake import TraceEntry
from engine.protocol import TokenizerLike

INSTRUCTION = " Now write a long, detailed story that uses the words above."
_WORD = re.compile(r"^[a-z]{3,10}$")
VOCABULARY_SIZE = 4096


def one_token_words(tokenizer: TokenizerLike, limit: int = VOCABULARY_SIZE) -> list[str]:
    """Lower-case words that encode, with a leading space, to a single token (sorted, so the set is stable)."""
    backend: Any = getattr(tokenizer, "backend", None)
    candidates = sorted(backend.get_vocab()) if backend is not None else []
    words = []
    for piece in candidates:
        word = piece[1:] if piece.startswith("Ġ") else None  # byte-level BPE marks a leading space with Ġ
        if word is None or not _WORD.match(word):
            continue
        if len(tokenizer.encode(" " + word)) == 1:
            words.append(word)
        if len(words) == limit:
            break
    if len(words) < 256:
        raise RuntimeError("this tokenizer has too few one-token words to synthesize prompts")
    return words


class PromptSynthesizer:
    def __init__(self, tokenizer: TokenizerLike, block_size: int) -> None:
        self.tokenizer = tokenizer
        self.block_size = block_size
        self.words = one_token_words(tokenizer)
        # Tokens the template and the instruction add around the words (measured, not assumed).
        empty = self._prompt_ids("")
        self.overhead = len(empty)

    def _prompt_ids(self, content: str) -> list[int]:
        rendered = self.tokenizer.apply_chat_template([{"role": "user", "content": content + INSTRUCTION}])
        return self.tokenizer.encode(rendered)

    def block(self, hash_id: int, salt: int) -> list[str]:
        rng = random.Random(hash_id * 1_000_003 + salt * 7_919)
        return rng.choices(self.words, k=self.block_size)

    def content(self, entry: TraceEntry, salt: int = 0) -> str:
        budget = max(1, entry.input_length - self.overhead)
        words: list[str] = []
        for hash_id in entry.hash_ids:
            words.extend(self.block(hash_id, salt))
            if len(words) >= budget:
                break
        if not entry.hash_ids:  # a trace without hash ids: every prompt unique
            words = random.Random(salt).choices(self.words, k=budget)
        return "".join(" " + w for w in words[:budget])

    def messages(self, entry: TraceEntry, salt: int = 0) -> list[dict[str, str]]:
        return [{"role": "user", "content": self.content(entry, salt) + INSTRUCTION}]

    def prompt_length(self, entry: TraceEntry, salt: int = 0) -> int:
        return len(self._prompt_ids(self.content(entry, salt)))
