"""Gateway settings, read from ``WARDEN_*`` environment variables or a ``.env`` file."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import Field, SecretStr, ValidationError
from pydantic_settings import BaseSettings, SettingsConfigDict

from gateway.core.engine_settings import EngineSettings

if TYPE_CHECKING:
    from engine.config import EngineConfig


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="WARDEN_", env_file=".env", extra="ignore")

    # SQLite is the embedded default; Postgres (postgresql://...) in production and CI.
    database_url: str = "sqlite:///./warden.db"
    redis_url: str | None = None
    model: str = "default"
    engine_in_process: bool = False
    # Set by `warden serve --workers N` for its workers: the engine hosts' sockets (one per replica) they connect to
    # instead of each starting its own engine (engine.host). Not an operator setting.
    engine_sockets: list[Path] = Field(default_factory=list)
    engine: EngineSettings = Field(default_factory=EngineSettings)  # WARDEN_ENGINE_* (gateway.core.engine_settings)
    # Supervision (gateway.replicas): an engine that has requests waiting and makes no progress (no turn of its step
    # loop) for this long is killed and restarted; generous, since one step may be a long prompt's prefill chunk on a
    # CPU or a recompilation. Model loading and the compilation at start are never watched. 0 disables it.
    engine_watchdog_s: float = Field(default=30.0, ge=0.0)
    # A standby engine (gateway.replicas.pool): one more engine started and idle beside the serving one, put in the
    # place of an engine that dies or is killed as hung, so serving resumes in about a second instead of after a model
    # load; another standby then starts in the background. It costs one more engine's memory (the model's weights
    # and its KV pool) and, while it loads, CPU. Unset: on where the engine runs on the CPU, off on GPUs (device
    # memory). Not used by `--workers N`'s engine hosts or an in-process engine.
    engine_standby: bool | None = None
    # `warden serve` runs its engines as detached hosts (engine.host, own session) that outlive a crash of the
    # gateway: with one worker the serving engine and its standby, with `--workers N` the hosts the workers share. The
    # restarted gateway attaches to them instead of loading the model again. A host exits once it has had no gateway
    # for this long. 0: the engines are plain child processes that die with the gateway.
    engine_orphan_s: float = Field(default=60.0, ge=0.0)
    # SIGTERM (gateway.lifecycle): /readyz turns not_ready and new /v1 calls get 503 + Retry-After at once; after
    # shutdown_unready_s (for load balancers to notice) the server stops accepting connections; calls in flight
    # drain until shutdown_grace_s after the signal, and streams still open then are cut (audited as "shutdown").
    shutdown_grace_s: float = Field(default=30.0, ge=0.0)
    shutdown_unready_s: float = Field(default=2.0, ge=0.0)
    # The interpreter's thread switch interval in a serving process (sys.setswitchinterval, Python's default 5 ms):
    # a background thread holding the GIL (the audit drain's batches) keeps a ready event loop waiting up to this
    # long. Shorter: the loop gets the GIL back sooner, for more switches. Unset: Python's default.
    switch_interval_ms: float | None = Field(default=None, gt=0.0, le=100.0)
    # PII actions, injection screening and output redaction per tenant policy (gateway.guardrails).
    guardrails: bool = True
    # An operator's ONNX prompt-injection classifier (a directory with model.onnx + tokenizer.json) instead of the
    # shipped linear model; the label is the logit column meaning "injection".
    injection_onnx_dir: Path | None = None
    injection_onnx_label: int = Field(default=1, ge=0)
    # Worker processes per gateway process that run the input's PII detectors and NER (0: the guard threads in the
    # gateway process run them). A scan is pure Python and holds the GIL the event loop needs; in processes it does
    # not, at about 1 ms more CPU per request and ~0.2 GB per worker. A dead worker fails its scans closed (503).
    guardrail_analysis_processes: int = Field(default=0, ge=0)
    # The CPU seconds one request's input scan may spend (0: no limit): past it the request is refused with 422
    # guardrail_budget_exceeded, never forwarded unscanned. Against text built to be slow to scan; dev-corpus
    # requests scan in well under 0.2 s. With analysis processes, a worker still busy past it is killed and replaced.
    guardrail_scan_budget_s: float = Field(default=2.0, ge=0.0)
    # Load the NER models (PERSON/LOCATION) as the gateway starts, so that the first request whose policy masks names
    # or places does not wait for them (about 0.7 s, in each worker). False: the first scan that needs them loads
    # them (memory-tight deployments whose policies never find names). Analysis processes always start with them.
    guardrail_ner_at_startup: bool = True

    data_dir: Path = Path("./.warden")
    tls_cert: Path | None = None
    tls_key: Path | None = None
    # Root secret: derives the cache salt per tenant and (unless set separately) the key pepper.
    # Generated into data_dir on first run when unset; replicas must share it, so set it in production.
    server_secret: SecretStr | None = None
    key_pepper: SecretStr | None = None

    max_body_bytes: int = Field(default=4 * 1024 * 1024, ge=1024)
    key_cache_ttl_s: float = Field(default=5.0, ge=0.0)
    key_cache_max_entries: int = Field(default=10_000, ge=1)
    key_last_used_interval_s: float = Field(default=60.0, ge=0.0)
    policy_cache_ttl_s: float = Field(default=5.0, ge=0.0)
    # A handshake-era session of the /mcp endpoint unused this long is closed; its id then answers 404 (gateway.mcp).
    mcp_session_idle_s: float = Field(default=600.0, gt=0.0, le=7 * 86400)
    # The store under faults (gateway.core.db, gateway.core.store_health): every wait on Postgres is bounded, in
    # seconds (0: no limit). Connecting (libpq's least is 2 s); each statement on the request path and the admin and
    # audit APIs, and (longer) in the audit writer, retention and checkpoints; each lock wait; a background
    # transaction left idle (not on the request path: an audit export streams from one read transaction at its
    # client's pace); the wait for a pooled connection; and a server gone silent (TCP keepalives, user timeout).
    db_connect_timeout_s: float = Field(default=3.0, ge=1.0, le=60.0)
    db_statement_timeout_s: float = Field(default=5.0, ge=0.0)
    db_background_statement_timeout_s: float = Field(default=120.0, ge=0.0)
    db_lock_timeout_s: float = Field(default=3.0, ge=0.0)
    db_background_idle_in_transaction_timeout_s: float = Field(default=60.0, ge=0.0)
    db_pool_timeout_s: float = Field(default=3.0, gt=0.0)
    db_tcp_timeout_s: float = Field(default=10.0, ge=2.0)
    # While the store is unavailable, cached keys and policies keep serving for at most this long past their TTL
    # (so a key revoked just before an outage works at most key_cache_ttl_s + this long after); after it, and for
    # a key or tenant never cached, requests get 503 store_unavailable with Retry-After: store_retry_after_s.
    store_stale_window_s: float = Field(default=30.0, ge=0.0)
    store_retry_after_s: int = Field(default=5, ge=1, le=300)
    # Once a connection failure opens the store's circuit, requests fail fast; one request per this interval probes
    # the store (and, while it is still unreachable, waits out db_connect_timeout_s).
    store_probe_interval_s: float = Field(default=1.0, gt=0.0, le=300.0)
    max_choices: int = Field(default=8, ge=1)  # upper bound for n (and prompts x n on /v1/completions)

    # Admission control per worker process (gateway.ratelimit.overload): at most max_inflight_requests /v1 calls
    # run at once, up to max_queued_requests more wait in line for at most queue_timeout_s; beyond that, or while
    # the engine has max_engine_waiting_requests waiting (unset: no such bound), a 503 "overloaded" with
    # Retry-After. request_timeout_s bounds a call from its arrival to its last byte: past it the engine request is
    # aborted and the client gets a 504 (mid-stream: a final error event), audited as "timeout_error".
    max_inflight_requests: int = Field(default=256, ge=1)
    max_queued_requests: int = Field(default=512, ge=0)
    queue_timeout_s: float = Field(default=10.0, ge=0.0)
    max_engine_waiting_requests: int | None = Field(default=None, ge=1)
    request_timeout_s: float = Field(default=600.0, gt=0.0)
    # A worker renews the concurrency leases of its calls in flight every quarter of this; the leases of a worker
    # that died lapse within it, and its unsettled calls are charged their whole reservation (gateway.ratelimit).
    rate_limit_lease_s: float = Field(default=20.0, ge=2.0, le=900.0)

    audit_spool_dir: Path | None = None  # default: data_dir / "audit-spool"
    audit_batch_size: int = Field(default=256, ge=1)
    # The drain also runs as soon as a whole batch waits. Each drain batch holds the interpreter lock the event loop
    # needs, for a fixed cost per batch plus a little per record: fewer, fuller batches stall the loop less often for
    # the same records (they are durable in the spool meanwhile; only the database sees them later).
    audit_flush_interval_s: float = Field(default=0.5, gt=0.0)
    # Where the drain stores its batches: a child process (the serving process only reads the spool and waits on a
    # pipe, so storing never holds the interpreter lock its event loop needs), or a thread of the serving process.
    audit_drain: Literal["process", "thread"] = "process"
    audit_spool_rotate_bytes: int = Field(default=8 * 1024 * 1024, ge=1024)
    # Below this much free space on the spool's file system (and with the database unreachable) a stream is
    # refused before its first byte with 503 audit_unavailable: its record would have nowhere durable to go.
    audit_spool_min_free_bytes: int = Field(default=16 * 1024 * 1024, ge=0)

    # Admin API identity (gateway.adminauth). With an issuer set, bearer JWTs must come from it, signed by a key
    # in its JWKS (a URL or a file). Without one, a local issuer key in data_dir signs tokens minted by
    # `warden admin token` (single-host and development use).
    admin_oidc_issuer: str | None = None
    admin_oidc_audience: str = "warden-admin"
    admin_jwks_url: str | None = None
    admin_jwks_file: Path | None = None
    admin_jwt_algorithms: list[str] = Field(default_factory=lambda: ["RS256", "PS256", "ES256", "EdDSA"])
    admin_roles_claim: str = "warden_roles"  # a string or a list of strings
    admin_tenant_claim: str = "warden_tenant"  # the tenant a tenant-admin administers
    admin_clock_skew_s: int = Field(default=30, ge=0, le=300)
    admin_jwks_cache_ttl_s: float = Field(default=300.0, ge=1.0)
    admin_dev_token_ttl_s: int = Field(default=3600, ge=60, le=7 * 86400)

    # Compliance export and checkpoints (gateway.export). The Ed25519 key is generated into data_dir on first
    # use when unset; replicas must share it.
    export_signing_key: Path | None = None
    audit_checkpoint_interval_s: float = Field(default=300.0, ge=0.0)  # 0 disables the periodic task
    key_rotation_max_grace_s: int = Field(default=30 * 86400, ge=0)
    audit_default_retention_days: int = Field(default=90, ge=1, le=3650)  # chains without a tenant policy
    # Audit maintenance (gateway.audit.retention): Postgres partitions for this month and the next, then the
    # retention purge (unless audit_purge is off). 0 disables the periodic task; `warden audit purge` still works.
    audit_maintenance_interval_s: float = Field(default=3600.0, ge=0.0)
    audit_purge: bool = True

    # Observability (gateway.telemetry). Logs: JSON lines with request/tenant/trace ids, secrets and PII scrubbed
    # ("none" leaves the host's logging alone), an access line per request (access_log). Tracing is off unless
    # enabled; spans go to an OTLP/HTTP collector (otlp_endpoint, else the exporter's OTEL_EXPORTER_OTLP_*
    # variables). /metrics is Prometheus text, guarded by a bearer token when metrics_token is set; tenant labels
    # are capped per worker.
    log_format: Literal["json", "text", "none"] = "json"
    log_level: str = "INFO"
    access_log: bool = True
    tracing: bool = False
    trace_exporter: Literal["otlp", "console", "memory"] = "otlp"
    otlp_endpoint: str | None = None
    trace_sample_ratio: float = Field(default=1.0, ge=0.0, le=1.0)
    service_name: str = "warden-gateway"
    metrics: bool = True
    metrics_token: SecretStr | None = None
    metrics_max_tenants: int = Field(default=100, ge=1, le=10_000)
    engine_stats_interval_s: float = Field(default=1.0, gt=0.0)

    @property
    def admin_local_issuer(self) -> bool:
        return self.admin_oidc_issuer is None

    @property
    def export_signing_key_path(self) -> Path:
        return self.export_signing_key or self.data_dir / "export-signing-key.pem"

    @property
    def spool_dir(self) -> Path:
        return self.audit_spool_dir or self.data_dir / "audit-spool"

    def engine_config(self) -> EngineConfig:
        """The engine's configuration: ``WARDEN_MODEL`` with the ``WARDEN_ENGINE_*`` settings. Imports the engine
        (torch), so only a process that serves one calls it."""
        from engine.config import EngineConfig

        kwargs = self.engine.engine_kwargs(self.model)
        if kwargs["compile_cache_dir"] is None and self.engine.profile == "fast":
            # The fast profile compiles the decoder for minutes at a first start: its code is kept with the
            # deployment's data (the compose volume, the chart's volume), not in /tmp, so a restart loads it in
            # seconds. The exact profile compiles only the C++ kernels, once per machine under torch's own cache.
            kwargs["compile_cache_dir"] = str((self.data_dir / "compile-cache").resolve())
        return EngineConfig(**kwargs)


def settings_error_message(exc: ValidationError) -> str:
    """A startup error naming the environment variables at fault (never their values: some are secrets)."""
    prefix = "WARDEN_ENGINE_" if exc.title == EngineSettings.__name__ else "WARDEN_"
    problems = [f"{prefix}{'_'.join(str(p) for p in err['loc']).upper()}: {err['msg']}" for err in exc.errors()]
    return "invalid settings: " + "; ".join(problems)
