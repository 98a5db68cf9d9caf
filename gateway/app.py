"""The app factory: ``create_app(settings)`` wires settings, database, auth, policies, limiter, audit and engine."""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
import sys
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response
from prometheus_client import CONTENT_TYPE_LATEST
from starlette.types import Scope

from engine.errors import UnknownModelError
from engine.protocol import EngineClient
from gateway.admin.router import router as admin_router
from gateway.admin.state import build_admin_services
from gateway.anthropic.router import router as anthropic_router
from gateway.audit.event import AuditEvent
from gateway.audit.retention import run_maintenance
from gateway.audit.storable import storable_text
from gateway.audit.writer import AuditUnavailableError, AuditWriter
from gateway.core.clock import utcnow
from gateway.core.db import Database, StoreTimeouts
from gateway.core.errors import audit_unavailable, install_error_handlers
from gateway.core.gc_tuning import freeze_startup_heap
from gateway.core.middleware import BodySizeLimitMiddleware, RequestContextMiddleware, RequestTiming
from gateway.core.migrate import SchemaRevisionCheck
from gateway.core.secrets import load_server_secrets
from gateway.core.settings import Settings
from gateway.core.store_health import StoreCircuit
from gateway.core.text_safety import TextSafetyMiddleware
from gateway.export.checkpoints import run_checkpoints
from gateway.export.router import router as audit_router
from gateway.fairness import router as fairness_router
from gateway.keys.auth import Authenticator
from gateway.lifecycle import DrainMiddleware, Lifecycle
from gateway.lifecycle import router as lifecycle_router
from gateway.mcp.admin_router import router as mcp_admin_router
from gateway.mcp.endpoint import McpEndpoint
from gateway.openai.hooks import InputGuard, OutputGuard
from gateway.openai.prompt_tokens import segment_encoder
from gateway.openai.router import HotCalls, hot_routes
from gateway.openai.router import router as openai_router
from gateway.parent_watch import watch_parent
from gateway.policystore.cache import PolicyResolver
from gateway.ratelimit import build_limiter
from gateway.replicas.pool import ReplicaPool
from gateway.responses_api.router import router as responses_router
from gateway.services import GatewayServices
from gateway.telemetry import EngineStatsReader, Telemetry, configure_logging, mark_worker_dead

log = logging.getLogger(__name__)


async def _start_engine(settings: Settings) -> EngineClient:
    # Imported here: the engine (torch, model weights) is only loaded by a process that serves.
    from gateway.replicas import connect_replicas, start_replicas

    engine_config = settings.engine_config()
    if settings.engine_sockets:  # one of `warden serve --workers N`'s workers: the engines run in shared hosts
        return await connect_replicas(engine_config, settings.engine_sockets,
                                      load_server_secrets(settings).engine_authkey,
                                      watchdog_s=settings.engine_watchdog_s or None)
    # Pooled even when it is one engine: the pool's supervisor restarts it when it dies or hangs.
    return await start_replicas(engine_config, settings.engine.replicas, in_process=settings.engine_in_process,
                                supervise_one=True, watchdog_s=settings.engine_watchdog_s or None,
                                standby=settings.engine_standby)


def _build_guardrails(server_secret: bytes, settings: Settings) -> tuple[InputGuard, OutputGuard, Callable[[], None]]:
    """The input and output guards over one guardrails engine, and what stops its analysis processes."""
    from gateway.guardrails import GuardConfig
    from gateway.guardrails import InputGuard as GuardrailsEngine
    from gateway.openai.guardrails_adapter import GuardrailsInput, GuardrailsOutput

    # A configured ONNX injection model is loaded and probed here: a bad one stops start-up, not a request.
    config = GuardConfig(injection_onnx_dir=settings.injection_onnx_dir, injection_label=settings.injection_onnx_label,
                         analysis_processes=settings.guardrail_analysis_processes,
                         scan_budget_s=settings.guardrail_scan_budget_s or None,
                         load_ner=settings.guardrail_ner_at_startup)
    if settings.guardrail_ner_at_startup:
        _load_ner_models()
    guard = GuardrailsEngine(server_secret, config=config)
    return GuardrailsInput(guard), GuardrailsOutput(guard), guard.close


def _load_ner_models() -> None:
    """Load the NER models the guard is built with, as a start-up phase with its lines on stderr in the engine's
    form (``engine.core.startup``): the gateway's longest step after the engine's, and a person watching a start
    sees what it waits for. Loaded once per process: a second app built in it finds them loaded."""
    from gateway.guardrails.warm_up import loaded_ner

    print("warden: NER models: loading (names and places; WARDEN_GUARDRAIL_NER_AT_STARTUP=false defers them to the "
          "first scan that needs them)", file=sys.stderr, flush=True)
    started = time.perf_counter()
    loaded_ner()
    print(f"warden: NER models: loaded in {time.perf_counter() - started:.1f} s", file=sys.stderr, flush=True)


def _warm_chat_template(engine: EngineClient) -> None:
    """Render one turn at start-up: whether the template renders by its ChatML fast path is decided by rendering
    probe conversations on its first use (tens of ms), which would otherwise land on the first chat request. The
    prompt encoder is built here too (it reads the tokenizer's whole vocabulary, ~50 ms), before the start-up heap
    is frozen, so its tables are not left to the collector."""
    with contextlib.suppress(UnknownModelError):  # a model without a chat template serves /v1/completions only
        segment_encoder(engine.tokenizer)
        engine.tokenizer.apply_chat_template([{"role": "user", "content": "warm-up"}])


def create_app(settings: Settings | None = None, *, engine: EngineClient | None = None,
               input_guard: InputGuard | None = None, output_guard: OutputGuard | None = None,
               start_engine: bool = True, tune_gc: bool = False) -> FastAPI:
    """``engine``: an already running engine to serve (tests share one per session; it is not shut down here).
    Otherwise the app starts its own on startup (unless ``start_engine`` is False: /v1 calls then get 503).
    ``tune_gc``: once started, freeze the start-up heap and collect young objects less often
    (``gateway.core.gc_tuning``) and set ``switch_interval_ms``; process-wide, so only for a process that serves
    this one app."""
    settings = settings or Settings()
    configure_logging(settings.log_format, settings.log_level)
    telemetry = Telemetry.from_settings(settings)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # The request path's store fails fast and answers an outage with 503; background work (audit drain,
        # checkpoints, retention) has its own small pool and a longer statement budget.
        db = Database(settings.database_url, timeouts=StoreTimeouts.request_path(settings),
                      circuit=StoreCircuit(settings.store_probe_interval_s),
                      retry_after_s=settings.store_retry_after_s)
        background_db = Database(settings.database_url, timeouts=StoreTimeouts.background(settings))
        secrets = load_server_secrets(settings)
        audit = AuditWriter(background_db, settings.spool_dir, batch_size=settings.audit_batch_size,
                            flush_interval_s=settings.audit_flush_interval_s,
                            rotate_bytes=settings.audit_spool_rotate_bytes,
                            min_free_bytes=settings.audit_spool_min_free_bytes,
                            on_quarantine=telemetry.metrics.audit_quarantined.inc, drain=settings.audit_drain)
        # The guardrails' analysis workers register their preload with the fork server the audit drain shares, so
        # they are built before the drain can start it (adopted spool records start a drain child at once).
        close_guardrails: Callable[[], None] | None = None
        guard_in, guard_out = input_guard, output_guard
        if settings.guardrails and guard_in is None and guard_out is None:
            guard_in, guard_out, close_guardrails = _build_guardrails(secrets.server_secret, settings)
        audit.start()
        services = GatewayServices(
            settings=settings, db=db, secrets=secrets,
            authenticator=Authenticator(db, pepper=secrets.key_pepper, ttl_s=settings.key_cache_ttl_s,
                                        max_entries=settings.key_cache_max_entries,
                                        last_used_interval_s=settings.key_last_used_interval_s,
                                        stale_window_s=settings.store_stale_window_s,
                                        retry_after_s=settings.store_retry_after_s),
            policies=PolicyResolver(db, ttl_s=settings.policy_cache_ttl_s, max_entries=settings.key_cache_max_entries,
                                    stale_window_s=settings.store_stale_window_s,
                                    retry_after_s=settings.store_retry_after_s),
            audit=audit, engine=engine,
            # Leases renewed four times per lease length: a dead worker's slots free within rate_limit_lease_s.
            limiter=build_limiter(settings.redis_url, lease_ms=round(settings.rate_limit_lease_s * 1000),
                                  renew_interval_s=settings.rate_limit_lease_s / 4),
            input_guard=guard_in, output_guard=guard_out,
        )
        app.state.services = services
        app.state.schema = SchemaRevisionCheck(db.engine)  # /readyz: not ready while the schema is behind the code
        app.state.admin = admin = build_admin_services(settings)
        checkpointer = (asyncio.create_task(
            run_checkpoints(background_db, admin.signer, settings.audit_checkpoint_interval_s))
            if settings.audit_checkpoint_interval_s > 0 else None)
        maintainer = (asyncio.create_task(run_maintenance(
            background_db, interval_s=settings.audit_maintenance_interval_s,
            default_days=settings.audit_default_retention_days, purge=settings.audit_purge))
            if settings.audit_maintenance_interval_s > 0 else None)
        owns_engine = engine is None and start_engine
        app.state.engine_stats = stats_reader = EngineStatsReader(telemetry.metrics, lambda: services.engine)
        stats_task: asyncio.Task[None] | None = None
        try:
            await mcp_endpoint.start(services, lifecycle)
            if owns_engine:
                services.engine = await _start_engine(settings)
                if isinstance(services.engine, ReplicaPool):
                    lifecycle.on_drain(services.engine.begin_shutdown)
                log.info("engine ready: serving %s (%d replica(s))", services.engine.model_name,
                         settings.engine.replicas)
                _warm_chat_template(services.engine)
            if settings.metrics:
                stats_task = asyncio.create_task(stats_reader.run(settings.engine_stats_interval_s))
            lifecycle.install_signal_handlers()
            watch_parent()  # a worker of `warden serve --workers N` drains and stops when serve is gone
            if tune_gc:
                freeze_startup_heap()
                if settings.switch_interval_ms is not None:  # process-wide: a serving process's, like the GC's
                    sys.setswitchinterval(settings.switch_interval_ms / 1000)
            yield
        finally:
            lifecycle.close()
            await mcp_endpoint.close()
            if stats_task is not None:
                stats_task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await stats_task
            for task in (checkpointer, maintainer):
                if task is not None:
                    task.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await task
            if owns_engine and services.engine is not None:
                await services.engine.shutdown()
            await services.limiter.aclose()
            audit.close()
            if close_guardrails is not None:
                close_guardrails()
            db.dispose()
            background_db.dispose()
            telemetry.shutdown()
            mark_worker_dead()

    # Warden traces and meters its requests itself (gateway.telemetry). FastAPI's own OpenTelemetry would add a
    # second set of spans and metrics wherever a global provider is configured, and where none is it still looks
    # the three global providers up on every request to find that out.
    app = FastAPI(title="Warden", version="0.1.0", lifespan=lifespan,
                  telemetry={"tracing": False, "metrics": False, "logs": False})
    app.state.telemetry = telemetry
    app.state.lifecycle = lifecycle = Lifecycle(grace_s=settings.shutdown_grace_s,
                                                unready_s=settings.shutdown_unready_s)
    install_error_handlers(app, store_retry_after_s=settings.store_retry_after_s)

    @app.exception_handler(AuditUnavailableError)
    async def _audit_unavailable(_request: Request, _exc: AuditUnavailableError) -> JSONResponse:
        # Fail closed: a response whose record cannot be made durable is never sent.
        return audit_unavailable().response()
    app.include_router(openai_router)
    app.include_router(responses_router)  # /v1/responses
    app.include_router(anthropic_router)  # /v1/messages
    app.include_router(admin_router)
    app.include_router(audit_router)
    app.include_router(lifecycle_router)  # /readyz
    app.include_router(fairness_router)  # /authz/fairness-id: the endpoint picker's flow, for the gateway's ext_authz
    app.include_router(mcp_admin_router)
    app.state.mcp = mcp_endpoint = McpEndpoint()  # /mcp: governed tool calls (gateway.mcp)
    # First in line: matching a path against the included routers costs about half a millisecond per request, which
    # every MCP call would otherwise pay before reaching its route.
    app.router.routes.insert(0, mcp_endpoint.route())
    app.router.routes[0:0] = hot_routes()  # the /v1 calls, likewise (gateway.openai.router)

    async def audit_edge_refusal(scope: Scope, stage: str, status: int, **details: object) -> None:
        services: GatewayServices | None = getattr(app.state, "services", None)
        if services is None or not scope.get("path", "").startswith("/v1/"):
            return
        state = scope.get("state", {})
        timing: RequestTiming = state["timing"]
        endpoint = storable_text(scope["path"].removeprefix("/v1/"))
        # Metric labels stay a bounded set: a path the app does not serve is counted as "other".
        routed = any(getattr(route, "path", None) == scope["path"] for route in app.routes)
        telemetry.refused_at_edge(endpoint if routed else "other", stage, status)
        await services.audit.record(AuditEvent(
            created_at=utcnow(), request_id=state["request_id"], endpoint=endpoint, http_status=status,
            latency_ms=round(timing.elapsed_ms(), 3), overhead_ms=round(timing.overhead_ms(), 3),
            error_type="invalid_request_error", decisions=[{"stage": stage, "decision": "refused", **details}],
        ))

    async def audit_oversized(scope: Scope) -> None:
        await audit_edge_refusal(scope, "body_size", 413, limit_bytes=settings.max_body_bytes)

    async def audit_unsafe_text(scope: Scope, param: str) -> None:
        await audit_edge_refusal(scope, "text_safety", 400, param=param)

    # Order: the context middleware is outermost, so even a 413 carries the request id and overhead headers; the
    # text check runs on the body the size limit has already bounded and buffered.
    app.add_middleware(HotCalls, exception_handlers=app.exception_handlers)  # innermost: the /v1 calls' short way in
    app.add_middleware(DrainMiddleware, lifecycle=lifecycle)  # refuses /v1 calls while draining, cuts them after
    app.add_middleware(TextSafetyMiddleware, on_reject=audit_unsafe_text)
    app.add_middleware(BodySizeLimitMiddleware, max_bytes=settings.max_body_bytes, on_reject=audit_oversized)
    app.add_middleware(RequestContextMiddleware, tracing=telemetry.tracing, access_log=settings.access_log)

    @app.get("/healthz", include_in_schema=False)
    async def healthz(request: Request) -> JSONResponse:
        services: GatewayServices = request.app.state.services
        engine = services.engine
        # Unauthenticated: the body says how the server is and why in a word, with counts, never tenant data or
        # error text (a failed statement's message could carry it).
        engine_ok = engine is not None and engine.is_alive()
        audit_ok = services.audit.last_error is None
        reason: str | None = None if engine_ok else "engine_unavailable"
        body: dict[str, object] = {"engine": engine_ok, "audit": "ok" if audit_ok else "store_unavailable",
                                   "audit_pending_bytes": services.audit.pending_bytes}
        if isinstance(engine, ReplicaPool):
            # Still serving (200) while any replica lives, but degraded: the rest carry the dead one's traffic.
            live = sum(engine.live())
            body["engine_replicas"] = {"live": live, "total": len(engine.replicas), "restarts": sum(engine.restarts),
                                       "standby": engine.standby is not None and engine.standby.is_alive()}
            if live < len(engine.replicas):
                reason = reason or "engine_replica_down"
        if not audit_ok:  # records wait in the spool: still serving, but the store must be looked at
            reason = reason or "audit_store_unavailable"
        body = {"status": "ok" if reason is None else "degraded", "reason": reason, **body}
        return JSONResponse(body, status_code=200 if engine_ok else 503)

    if settings.metrics:
        @app.get("/metrics", include_in_schema=False)
        async def metrics(request: Request) -> Response:
            expected = settings.metrics_token
            if expected is not None and not hmac.compare_digest(
                    request.headers.get("authorization", "").encode(),
                    f"Bearer {expected.get_secret_value()}".encode()):
                return JSONResponse({"error": {"message": "A valid metrics bearer token is required",
                                               "type": "authentication_error", "code": "invalid_metrics_token"}},
                                    status_code=401)
            stats_reader: EngineStatsReader | None = getattr(request.app.state, "engine_stats", None)
            if stats_reader is not None:
                stats_reader.poll()  # this worker's engine as of now, not as of the last tick
            return Response(telemetry.metrics.render(), media_type=CONTENT_TYPE_LATEST)

    return app


def app_from_env() -> FastAPI:
    """Factory for ``uvicorn --factory`` (used by ``warden serve``): a process that serves this one app."""
    return create_app(Settings(), tune_gc=True)
