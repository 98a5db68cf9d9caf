"""The long-lived parts of one gateway process, built once by the app factory and shared by every request."""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.protocol import EngineClient
from gateway.audit.writer import AuditWriter
from gateway.core.db import Database
from gateway.core.secrets import ServerSecrets
from gateway.core.settings import Settings
from gateway.keys.auth import Authenticator
from gateway.openai.hooks import InputGuard, OutputGuard
from gateway.policystore.cache import PolicyResolver
from gateway.ratelimit import RateLimiter
from gateway.ratelimit.overload import AdmissionGate, build_gate


@dataclass(slots=True)
class GatewayServices:
    settings: Settings
    db: Database
    secrets: ServerSecrets
    authenticator: Authenticator
    policies: PolicyResolver
    audit: AuditWriter
    limiter: RateLimiter
    engine: EngineClient | None = None  # None until the engine has started (requests get 503)
    input_guard: InputGuard | None = None
    output_guard: OutputGuard | None = None
    # This worker's global admission control (in-flight bound, wait queue), built from the settings.
    gate: AdmissionGate = field(init=False)

    def __post_init__(self) -> None:
        self.gate = build_gate(self.settings, lambda: self.engine)
