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
    # Leading prompt tokens that are a published public prefix (the gateway checked the content hash against the
    # tenant's policy). Full blocks inside it are hashed with the public salt, so every tenant that publishes the
    # same prefix shares them; every block after it stays under ``cache_salt``. 0: nothing is public.
    public_prefix_len: int = 0
    # JSON schema / grammar for constrained decoding (filled by the structured-outputs work).
    structured: dict | None = None
