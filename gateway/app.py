"""The app factory: ``create_app(settings)`` wires settings, database, auth, policies, limiter, audit and engine."""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response
from prometheus_client import CONTENT_TYPE_LATEST
from starlette.types import Scope

from engine.protocol import EngineClient
from gateway.admin.router import router as admin_router
from gateway.admin.state import build_admin_services
from gateway.audit.event import AuditEvent
from gateway.audit.retention import run_maintenance
from gateway.audit.writer import AuditWriter
from gateway.core.clock import utcnow
from gateway.core.db import Database
from gateway.core.errors import install_error_handlers
from gateway.core.middleware import BodySizeLimitMiddleware, RequestContextMiddleware, RequestTiming
from gateway.core.secrets import load_server_secrets
from gateway.core.settings import Settings
from gateway.export.checkpoints import run_checkpoints
from gateway.export.router import router as audit_router
from gateway.keys.auth import Authenticator
from gateway.openai.hooks import InputGuard, OutputGuard
from gateway.openai.router import router as openai_router
from gateway.policystore.cache import PolicyResolver
from gateway.ratelimit import build_limiter
from gateway.replicas.pool import ReplicaPool
from gateway.services import GatewayServices
from gateway.telemetry import EngineStatsReader, Telemetry, configure_logging, mark_worker_dead

log = logging.getLogger(__name__)


async def _start_engine(settings: Settings) -> EngineClient:
    # Imported here: the engine (torch, model weights) is only loaded by a process that serves.
    from gateway.replicas import connect_replicas, start_replicas

    engine_config = settings.engine_config()
    if settings.engine_sockets:  # one of `warden serve --workers N`'s workers: the engines run in shared hosts
        return await connect_replicas(engine_config, settings.engine_sockets,
                                      load_server_secrets(settings).engine_authkey)
    return await start_replicas(engine_config, settings.engine.replicas, in_process=settings.engine_in_process)


def _build_guardrails(server_secret: bytes, settings: Settings) -> tuple[InputGuard, OutputGuard]:
    from gateway.guardrails import GuardConfig
    from gateway.guardrails import InputGuard as GuardrailsEngine
    from gateway.openai.guardrails_adapter import GuardrailsInput, GuardrailsOutput

    # A configured ONNX injection model is loaded and probed here: a bad one stops start-up, not a request.
    config = GuardConfig(injection_onnx_dir=settings.injection_onnx_dir, injection_label=settings.injection_onnx_label)
    guard = GuardrailsEngine(server_secret, config=config)
    return GuardrailsInput(guard), GuardrailsOutput(guard)


def create_app(settings: Settings | None = None, *, engine: EngineClient | None = None,
               input_guard: InputGuard | None = None, output_guard: OutputGuard | None = None,
               start_engine: bool = True) -> FastAPI:
    """``engine``: an already running engine to serve (tests share one per session; it is not shut down here).
    Otherwise the app starts its own on startup (unless ``start_engine`` is False: /v1 calls then get 503)."""
    settings = settings or Settings()
    configure_logging(settings.log_format, settings.log_level)
    telemetry = Telemetry.from_settings(settings)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        db = Database(settings.database_url)
        secrets = load_server_secrets(settings)
        audit = AuditWriter(db, settings.spool_dir, batch_size=settings.audit_batch_size,
                            flush_interval_s=settings.audit_flush_interval_s,
                            rotate_bytes=settings.audit_spool_rotate_bytes)
        audit.start()
        services = GatewayServices(
            settings=settings, db=db, secrets=secrets,
            authenticator=Authenticator(db, pepper=secrets.key_pepper, ttl_s=settings.key_cache_ttl_s,
                                        max_entries=settings.key_cache_max_entries,
                                        last_used_interval_s=settings.key_last_used_interval_s),
            policies=PolicyResolver(db, ttl_s=settings.policy_cache_ttl_s, max_entries=settings.key_cache_max_entries),
            audit=audit, limiter=build_limiter(settings.redis_url), engine=engine,
            input_guard=input_guard, output_guard=output_guard,
        )
        if settings.guardrails and input_guard is None and output_guard is None:
            services.input_guard, services.output_guard = _build_guardrails(secrets.server_secret, settings)
        app.state.services = services
        app.state.admin = admin = build_admin_services(settings)
        checkpointer = (asyncio.create_task(run_checkpoints(db, admin.signer, settings.audit_checkpoint_interval_s))
                        if settings.audit_checkpoint_interval_s > 0 else None)
        maintainer = (asyncio.create_task(run_maintenance(
            db, interval_s=settings.audit_maintenance_interval_s,
            default_days=settings.audit_default_retention_days, purge=settings.audit_purge))
            if settings.audit_maintenance_interval_s > 0 else None)
        owns_engine = engine is None and start_engine
        app.state.engine_stats = stats_reader = EngineStatsReader(telemetry.metrics, lambda: services.engine)
        stats_task: asyncio.Task[None] | None = None
        try:
            if owns_engine:
                services.engine = await _start_engine(settings)
                log.info("engine ready: serving %s (%d replica(s))", services.engine.model_name,
                         settings.engine.replicas)
            if settings.metrics:
                stats_task = asyncio.create_task(stats_reader.run(settings.engine_stats_interval_s))
            yield
        finally:
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
            db.dispose()
            telemetry.shutdown()
            mark_worker_dead()

    app = FastAPI(title="Warden", version="0.1.0", lifespan=lifespan)
    app.state.telemetry = telemetry
    install_error_handlers(app)
    app.include_router(openai_router)
    app.include_router(admin_router)
    app.include_router(audit_router)

    async def audit_oversized(scope: Scope) -> None:
        services: GatewayServices | None = getattr(app.state, "services", None)
        if services is None or not scope.get("path", "").startswith("/v1/"):
            return
        state = scope.get("state", {})
        timing: RequestTiming = state["timing"]
        telemetry.refused_at_edge(scope["path"].removeprefix("/v1/"), "body_size", 413)
        await services.audit.record(AuditEvent(
            created_at=utcnow(), request_id=state["request_id"], endpoint=scope["path"].removeprefix("/v1/"),
            http_status=413, latency_ms=round(timing.elapsed_ms(), 3), overhead_ms=round(timing.overhead_ms(), 3),
            error_type="invalid_request_error",
            decisions=[{"stage": "body_size", "decision": "refused", "limit_bytes": settings.max_body_bytes}],
        ))

    # Order: the context middleware is outermost, so even a 413 carries the request id and overhead headers.
    app.add_middleware(BodySizeLimitMiddleware, max_bytes=settings.max_body_bytes, on_reject=audit_oversized)
    app.add_middleware(RequestContextMiddleware, tracing=telemetry.tracing)

    @app.get("/healthz", include_in_schema=False)
    async def healthz(request: Request) -> JSONResponse:
        services: GatewayServices = request.app.state.services
        engine = services.engine
        engine_ok = engine is not None and engine.is_alive()
        body: dict[str, object] = {"status": "ok" if engine_ok else "degraded", "engine": engine_ok,
                                   "audit_pending_bytes": services.audit.pending_bytes,
                                   "audit_error": services.audit.last_error}
        if isinstance(engine, ReplicaPool):
            # Still serving (200) while any replica lives, but degraded: the rest carry the dead one's traffic.
            live = sum(engine.live())
            body["engine_replicas"] = {"live": live, "total": len(engine.replicas), "restarts": sum(engine.restarts)}
            if live < len(engine.replicas):
                body["status"] = "degraded"
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
    """Factory for ``uvicorn --factory`` (used by ``warden serve --workers N``)."""
    return create_app(Settings())
