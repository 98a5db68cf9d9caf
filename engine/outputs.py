"""What the engine streams back: one ``RequestOutput`` delta per step per request."""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.metrics import RequestTimings


@dataclass(slots=True)
class TokenLogprob:
    token_id: int
    token: str
    logprob: float
    bytes: list[int] | None = None
    top_logprobs: list[tuple[int, str, float]] = field(default_factory=list)  # (token_id, token, logprob)


@dataclass(slots=True)
class Usage:
    prompt_tokens: int
    completion_tokens: int
    cached_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


@dataclass(slots=True)
class RequestOutput:
    """Incremental output. ``text`` is the new text since the previous delta (never broken UTF-8,
    never any part of a stop string); ``finish_reason`` is set on the last delta only."""

    request_id: str
    token_ids: list[int] = field(default_factory=list)
    text: str = ""
    logprobs: list[TokenLogprob] | None = None
    finish_reason: str | None = None  # "stop" | "length" | "abort" | "error"
    # With finish_reason "stop": the stop string that matched, or the stop token id (one of the request's
    # stop_token_ids) that was sampled; None when the output ended at EOS or a grammar's end (vLLM's stop_reason).
    stop_reason: str | int | None = None
    usage: Usage | None = None  # set on every delta: running totals
    error: str | None = None  # set with finish_reason == "error"
    metrics: RequestTimings | None = None  # set on the last delta: the request's phases, timed by the engine

    @property
    def finished(self) -> bool:
        return self.finish_reason is not None
