"""Per-request sampling parameters, validated at construction."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from engine.errors import InvalidRequestError

MAX_TOP_LOGPROBS = 20


@dataclass(slots=True)
class SamplingParams:
    max_tokens: int = 16
    temperature: float = 1.0  # 0 means greedy
    top_p: float = 1.0
    top_k: int = 0  # 0 disables top-k
    min_p: float = 0.0
    seed: int | None = None
    repetition_penalty: float = 1.0
    presence_penalty: float = 0.0
    frequency_penalty: float = 0.0
    stop: list[str] = field(default_factory=list)
    stop_token_ids: list[int] = field(default_factory=list)
    ignore_eos: bool = False
    # No EOS, stop token or stop string ends the output before this many tokens (vLLM's ``min_tokens``).
    min_tokens: int = 0
    logprobs: int | None = None  # None: no logprobs; k >= 0: sampled token's logprob + top-k alternatives

    def __post_init__(self) -> None:
        self.validate()

    @property
    def greedy(self) -> bool:
        """0, or a temperature too small to sample with (engine.layers.sampler.MIN_TEMPERATURE, as vLLM)."""
        return self.temperature < 1e-5

    def validate(self) -> None:
        # Every request passes twice (built, then checked before it is sent): the checks are module-level
        # predicates, so the common case builds no messages and each bound is written once.
        for holds, param, message in _CHECKS:
            if not holds(self):
                raise InvalidRequestError(message, param=param)


# (holds, the parameter named, the message) in the order a request's parameters are checked: the first to fail is
# the one reported.
_CHECKS: tuple[tuple[Callable[[SamplingParams], bool], str, str], ...] = (
    (lambda p: p.max_tokens >= 1, "max_tokens", "max_tokens must be at least 1"),
    (lambda p: 0 <= p.min_tokens <= p.max_tokens, "min_tokens", "min_tokens must be between 0 and max_tokens"),
    (lambda p: 0.0 <= p.temperature <= 2.0, "temperature", "temperature must be between 0 and 2"),
    (lambda p: 0.0 < p.top_p <= 1.0, "top_p", "top_p must be in (0, 1]"),
    (lambda p: p.top_k >= 0, "top_k", "top_k must be >= 0 (0 disables it)"),
    (lambda p: 0.0 <= p.min_p <= 1.0, "min_p", "min_p must be between 0 and 1"),
    (lambda p: 0.0 < p.repetition_penalty <= 2.0, "repetition_penalty", "repetition_penalty must be in (0, 2]"),
    (lambda p: -2.0 <= p.presence_penalty <= 2.0, "presence_penalty", "presence_penalty must be between -2 and 2"),
    (lambda p: -2.0 <= p.frequency_penalty <= 2.0, "frequency_penalty", "frequency_penalty must be between -2 and 2"),
    (lambda p: len(p.stop) <= 16, "stop", "at most 16 stop sequences"),
    (lambda p: all(isinstance(s, str) and s for s in p.stop), "stop", "stop sequences must be non-empty strings"),
    (lambda p: p.logprobs is None or 0 <= p.logprobs <= MAX_TOP_LOGPROBS, "top_logprobs",
     f"top_logprobs must be between 0 and {MAX_TOP_LOGPROBS}"),
)
