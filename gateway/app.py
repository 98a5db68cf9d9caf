"""The app factory: ``create_app(settings)`` wires settings, database, auth, policies, limiter, audit and engine."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from starlette.types import Scope

from engine.protocol import EngineClient
from gateway.admin.router import router as admin_router
from gateway.admin.state import build_admin_services
from gateway.audit.event import AuditEvent
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
from gateway.services import GatewayServices

log = logging.getLogger(__name__)


async def _start_engine(settings: Settings) -> EngineClient:
    # Imported here: the engine (torch, model weights) is only loaded by a process that serves.
    from engine import config, launch

    return await launch.start_engine(config.EngineConfig(model=settings.model),
                                     in_process=settings.engine_in_process)


def _build_guardrails(server_secret: bytes) -> tuple[InputGuard, OutputGuard]:
    from gateway.guardrails import InputGuard as GuardrailsEngine
    from gateway.openai.guardrails_adapter import GuardrailsInput, GuardrailsOutput

    guard = GuardrailsEngine(server_secret)
    return GuardrailsInput(guard), GuardrailsOutput(guard)


def create_app(settings: Settings | None = None, *, engine: EngineClient | None = None,
               input_guard: InputGuard | None = None, output_guard: OutputGuard | None = None,
               start_engine: bool = True) -> FastAPI:
    """``engine``: an already running engine to serve (tests share one per session; it is not shut down here).
    Otherwise the app starts its own on startup (unless ``start_engine`` is False: /v1 calls then get 503)."""
    settings = settings or Settings()

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
            services.input_guard, services.output_guard = _build_guardrails(secrets.server_secret)
        app.state.services = services
        app.state.admin = admin = build_admin_services(settings)
        checkpointer = (asyncio.create_task(run_checkpoints(db, admin.signer, settings.audit_checkpoint_interval_s))
                        if settings.audit_checkpoint_interval_s > 0 else None)
        owns_engine = engine is None and start_engine
        try:
            if owns_engine:
                services.engine = await _start_engine(settings)
                log.info("engine ready: serving %s", services.engine.model_name)
            yield
        finally:
            if checkpointer is not None:
                checkpointer.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await checkpointer
            if owns_engine and services.engine is not None:
                await services.engine.shutdown()
            await services.limiter.aclose()
            audit.close()
            db.dispose()

    app = FastAPI(title="Warden", version="0.1.0", lifespan=lifespan)
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
        await services.audit.record(AuditEvent(
            created_at=utcnow(), request_id=state["request_id"], endpoint=scope["path"].removeprefix("/v1/"),
            http_status=413, latency_ms=round(timing.elapsed_ms(), 3), overhead_ms=round(timing.overhead_ms(), 3),
            error_type="invalid_request_error",
            decisions=[{"stage": "body_size", "decision": "refused", "limit_bytes": settings.max_body_bytes}],
        ))

    # Order: the context middleware is outermost, so even a 413 carries the request id and overhead headers.
    app.add_middleware(BodySizeLimitMiddleware, max_bytes=settings.max_body_bytes, on_reject=audit_oversized)
    app.add_middleware(RequestContextMiddleware)

    @app.get("/healthz", include_in_schema=False)
    async def healthz(request: Request) -> JSONResponse:
        services: GatewayServices = request.app.state.services
        engine_ok = services.engine is not None and services.engine.is_alive()
        body = {"status": "ok" if engine_ok else "degraded", "engine": engine_ok,
                "audit_pending_bytes": services.audit.pending_bytes, "audit_error": services.audit.last_error}
        return JSONResponse(body, status_code=200 if engine_ok else 503)

    return app


def app_from_env() -> FastAPI:
    """Factory for ``uvicorn --factory`` (used by ``warden serve --workers N``)."""
    return create_app(Settings())
