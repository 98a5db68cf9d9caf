"""The prefix reuse a replay offers against the reuse the engine's prefix cache took.

A prompt can reuse at most its longest common token prefix with a prompt sent before it (another turn of its
session, or any request sharing the system prompt), less its last token, which must be computed to give the first
output's logits. A block-granular cache takes that prefix only in whole blocks. The tally keeps the three apart, so a
gap between the ideal and the achieved can be told to be the block granularity or something else (a prompt admitted
in the same step as the request computing its prefix, eviction, a namespace split).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field


def common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


@dataclass
class ReuseTally:
    block_size: int
    prompt_tokens: int = 0
    ideal_tokens: int = 0  # each prompt's longest common prefix with an earlier one, its last token excluded
    ideal_block_tokens: int = 0  # the same in whole blocks: what a block-granular cache can take at best
    cached_tokens: int = 0  # what the engine reported as prefix-cache hits
    _sent: list[tuple[int, ...]] = field(default_factory=list, repr=False)
    _ideal_of: dict[str, int] = field(default_factory=dict, repr=False)

    def sent(self, request_id: str, prompt: Sequence[int]) -> None:
        """A prompt entering the engine, in the order they enter."""
        shared = max((common_prefix(prompt, earlier) for earlier in self._sent), default=0)
        shared = min(shared, len(prompt) - 1)
        self._sent.append(tuple(prompt))
        self._ideal_of[request_id] = shared
        self.prompt_tokens += len(prompt)
        self.ideal_tokens += shared
        self.ideal_block_tokens += shared // self.block_size * self.block_size

    def finished(self, request_id: str, cached_tokens: int) -> None:
        if request_id not in self._ideal_of:
            raise KeyError(f"{request_id} was never sent")
        self.cached_tokens += cached_tokens

    def as_dict(self) -> dict[str, float | int]:
        def share(n: int) -> float:
            return round(n / self.prompt_tokens, 4) if self.prompt_tokens else 0.0

        return {"block_size": self.block_size, "prompt_tokens": self.prompt_tokens,
                "ideal_tokens": self.ideal_tokens, "ideal_share": share(self.ideal_tokens),
                "ideal_block_tokens": self.ideal_block_tokens, "ideal_block_share": share(self.ideal_block_tokens),
                "cached_tokens": self.cached_tokens, "cached_share": share(self.cached_tokens)}

    def line(self) -> str:
        d = self.as_dict()
        return (f"prefix reuse: ideal {d['ideal_tokens']} of {d['prompt_tokens']} prompt tokens"
                f" ({d['ideal_share']:.1%}), in whole {self.block_size}-token blocks {d['ideal_block_tokens']}"
                f" ({d['ideal_block_share']:.1%}),"
                f" prefix cache hits {d['cached_tokens']} ({d['cached_share']:.1%})")
