"""Per-request sampling parameters, validated at construction."""

from __future__ import annotations

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
        # Every request passes twice (built, then checked before it is sent): one chained test in the common case;
        # the checks below, in the same order, find which one failed (and raise what they would have raised).
        if (self.max_tokens >= 1 and 0 <= self.min_tokens <= self.max_tokens and 0.0 <= self.temperature <= 2.0
                and 0.0 < self.top_p <= 1.0 and self.top_k >= 0 and 0.0 <= self.min_p <= 1.0
                and 0.0 < self.repetition_penalty <= 2.0 and -2.0 <= self.presence_penalty <= 2.0
                and -2.0 <= self.frequency_penalty <= 2.0 and len(self.stop) <= 16
                and all(isinstance(s, str) and s for s in self.stop)
                and (self.logprobs is None or 0 <= self.logprobs <= MAX_TOP_LOGPROBS)):
            return
        checks: list[tuple[bool, str, str]] = [
            (self.max_tokens >= 1, "max_tokens", "max_tokens must be at least 1"),
            (0 <= self.min_tokens <= self.max_tokens, "min_tokens", "min_tokens must be between 0 and max_tokens"),
            (0.0 <= self.temperature <= 2.0, "temperature", "temperature must be between 0 and 2"),
            (0.0 < self.top_p <= 1.0, "top_p", "top_p must be in (0, 1]"),
            (self.top_k >= 0, "top_k", "top_k must be >= 0 (0 disables it)"),
            (0.0 <= self.min_p <= 1.0, "min_p", "min_p must be between 0 and 1"),
            (0.0 < self.repetition_penalty <= 2.0, "repetition_penalty", "repetition_penalty must be in (0, 2]"),
            (-2.0 <= self.presence_penalty <= 2.0, "presence_penalty", "presence_penalty must be between -2 and 2"),
            (-2.0 <= self.frequency_penalty <= 2.0, "frequency_penalty",
             "frequency_penalty must be between -2 and 2"),
            (len(self.stop) <= 16, "stop", "at most 16 stop sequences"),
            (all(isinstance(s, str) and s for s in self.stop), "stop", "stop sequences must be non-empty strings"),
            (self.logprobs is None or 0 <= self.logprobs <= MAX_TOP_LOGPROBS, "top_logprobs",
             f"top_logprobs must be between 0 and {MAX_TOP_LOGPROBS}"),
        ]
        for ok, param, message in checks:
            if not ok:
                raise InvalidRequestError(message, param=param)
