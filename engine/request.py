"""What a caller submits to the engine."""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.sampling_params import SamplingParams


@dataclass(slots=True)
class EngineRequest:
    request_id: str
    prompt_token_ids: list[int]
    sampling_params: SamplingParams = field(default_factory=SamplingParams)
    # Prefix-cache isolation domain. The gateway derives it from the tenant (HMAC); the engine treats it
    # as opaque bytes mixed into the first block's hash. None means "no isolation" (offline use only).
    cache_salt: str | None = None
    tenant: str | None = None  # fairness bucket; opaque to the engine
    priority: int = 0  # scheduling weight hint from the tenant's policy
    # JSON schema / grammar for constrained decoding (filled by the structured-outputs work).
    structured: dict | None = None
