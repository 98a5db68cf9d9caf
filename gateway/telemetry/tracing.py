"""OpenTelemetry tracing: one trace per request (the middleware's root span), a child span per gateway stage, and
the engine's queue / prefill / decode phases as spans stamped with the times the engine process measured.

Disabled (the default) means no SDK objects at all: ``Tracing.enabled`` is False, the middleware starts no span
and ``stage`` spans are skipped, so the cost is one attribute check per stage. Enabled, spans go to an OTLP/HTTP
collector (``WARDEN_OTLP_ENDPOINT``, or the exporter's standard ``OTEL_EXPORTER_OTLP_*`` variables) through a
batching processor that exports off the request path; ``console`` prints them (development), ``memory`` keeps
them for tests.

The provider is owned by the app, not installed globally: each app (tests build many) gets its own, and shuts it
down, flushing pending spans, when the app stops. Incoming W3C ``traceparent`` headers are honoured, so a
client's trace continues through Warden.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from contextvars import Token
from typing import Any, Literal

from opentelemetry import context as otel_context
from opentelemetry import propagate, trace
from opentelemetry.context import Context
from opentelemetry.trace import NonRecordingSpan, Span, SpanKind, Status, StatusCode, Tracer

TraceExporterKind = Literal["otlp", "console", "memory"]
INSTRUMENTATION_NAME = "warden.gateway"


class Tracing:
    def __init__(self, tracer: Tracer | None = None, provider: Any = None, exporter: Any = None) -> None:
        self.tracer = tracer
        self.provider = provider
        self.exporter = exporter  # kept for the ``memory`` kind: tests read finished spans from it

    @property
    def enabled(self) -> bool:
        return self.tracer is not None

    @classmethod
    def disabled(cls) -> Tracing:
        return cls()

    @classmethod
    def create(cls, *, exporter: TraceExporterKind = "otlp", endpoint: str | None = None,
               service_name: str = "warden-gateway", sample_ratio: float = 1.0,
               headers: Mapping[str, str] | None = None) -> Tracing:
        # The SDK is imported only when tracing is on.
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter, SimpleSpanProcessor
        from opentelemetry.sdk.trace.sampling import ParentBased, TraceIdRatioBased

        provider = TracerProvider(resource=Resource.create({"service.name": service_name}),
                                  sampler=ParentBased(TraceIdRatioBased(sample_ratio)))
        span_exporter: Any
        if exporter == "memory":
            from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

            span_exporter = InMemorySpanExporter()
            provider.add_span_processor(SimpleSpanProcessor(span_exporter))
        elif exporter == "console":
            span_exporter = ConsoleSpanExporter()
            provider.add_span_processor(SimpleSpanProcessor(span_exporter))
        else:
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

            span_exporter = OTLPSpanExporter(endpoint=endpoint, headers=dict(headers) if headers else None)
            provider.add_span_processor(BatchSpanProcessor(span_exporter))
        return cls(provider.get_tracer(INSTRUMENTATION_NAME), provider, span_exporter)

    def shutdown(self) -> None:
        if self.provider is not None:
            self.provider.shutdown()

    # --- spans --------------------------------------------------------------------------------------------------
    def start_request_span(self, name: str, headers: Iterable[tuple[bytes, bytes]],
                           attributes: Mapping[str, Any]) -> tuple[Span, Token[Context]] | None:
        """The request's root span, made current; returns it with the token to detach, or None when disabled."""
        if self.tracer is None:
            return None
        carrier = {k.decode("latin-1"): v.decode("latin-1") for k, v in headers
                   if k in (b"traceparent", b"tracestate")}
        parent = propagate.extract(carrier) if carrier else None
        span = self.tracer.start_span(name, context=parent, kind=SpanKind.SERVER, attributes=dict(attributes))
        token = otel_context.attach(trace.set_span_in_context(span, parent))
        return span, token

    @staticmethod
    def end_request_span(started: tuple[Span, Token[Context]], status: int | None) -> None:
        span, token = started
        if status is not None:
            span.set_attribute("http.response.status_code", status)
            if status >= 500:
                span.set_status(Status(StatusCode.ERROR))
        span.end()
        otel_context.detach(token)

    def record_span(self, name: str, start_ns: int, end_ns: int, attributes: Mapping[str, Any] | None = None,
                    parent: Span | None = None) -> None:
        """A finished span with explicit times (the engine's phases), a child of ``parent`` or of the current
        span."""
        if self.tracer is None or end_ns < start_ns:
            return
        ctx = trace.set_span_in_context(parent) if parent is not None else None
        span = self.tracer.start_span(name, context=ctx, start_time=start_ns, attributes=dict(attributes or {}))
        span.end(end_time=end_ns)


def current_span() -> Span:
    return trace.get_current_span()


def is_recording(span: Span) -> bool:
    return not isinstance(span, NonRecordingSpan) and span.is_recording()
