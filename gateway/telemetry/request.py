"""One /v1 call's telemetry: stage timers (histogram + span), streaming latencies per choice (TTFT, ITL, E2E),
the engine's phases (queue, prefill, decode) from the timings it reports, and per-tenant accounting at the end.

Everything here runs on the request's own task, in order, so there is no locking; each method is a few clock
reads and dictionary operations, and span work is skipped entirely when tracing is off.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from opentelemetry import trace

from engine.metrics import RequestTimings
from engine.outputs import RequestOutput
from gateway.telemetry.context import tenant_id_var
from gateway.telemetry.metrics import GatewayMetrics, ModelLatencies, refusal_reason
from gateway.telemetry.tracing import Tracing

CLIENT_CLOSED = 499
REFUSING_DECISIONS = ("refused", "blocked", "unavailable")


class RequestTelemetry:
    __slots__ = ("_accumulated_ns", "_last_output_ns", "_root", "endpoint", "metrics", "model_name", "started_ns",
                 "tracing")

    def __init__(self, metrics: GatewayMetrics, tracing: Tracing, endpoint: str, started_ns: int) -> None:
        self.metrics = metrics
        self.tracing = tracing
        self.endpoint = endpoint
        self.started_ns = started_ns  # perf_counter_ns at arrival (the request clock's start)
        self.model_name = "unknown"
        self._last_output_ns: dict[int, int] = {}  # choice index -> when its previous output arrived
        self._accumulated_ns: dict[str, int] = {}  # stages that run in pieces: total so far
        self._root = trace.get_current_span() if tracing.enabled else None

    def set_tenant(self, tenant_id: str | None) -> None:
        """From here on, log lines of this request carry the tenant id."""
        tenant_id_var.set(tenant_id)

    def stage(self, name: str) -> contextlib.AbstractContextManager[None]:
        """Times a stage into the stage histogram; with tracing on, also a ``gateway.<name>`` span."""
        if self.tracing.tracer is None:
            return _StageTimer(self.metrics.stage(name))  # the common case: two clock reads, one observe
        return self._traced_stage(name)

    @contextlib.contextmanager
    def _traced_stage(self, name: str) -> Iterator[None]:
        tracer = self.tracing.tracer
        assert tracer is not None
        with _StageTimer(self.metrics.stage(name)), \
                tracer.start_as_current_span(f"gateway.{name}", record_exception=False,
                                             set_status_on_exception=False) as span:
            try:
                yield
            except BaseException as exc:
                span.set_attribute("error.type", type(exc).__name__)
                raise

    @contextlib.contextmanager
    def accumulate(self, name: str) -> Iterator[None]:
        """A stage that runs in many small pieces (output guardrails, once per streamed delta): the pieces are
        summed and observed once, when the call finishes (no span per piece)."""
        started = time.perf_counter_ns()
        try:
            yield
        finally:
            self._accumulated_ns[name] = self._accumulated_ns.get(name, 0) + time.perf_counter_ns() - started

    # --- engine outputs -----------------------------------------------------------------------------------------
    def on_output(self, index: int, output: RequestOutput) -> None:
        now = time.perf_counter_ns()
        latencies = self.metrics.model_latencies(self.model_name)
        last = self._last_output_ns.get(index)
        if last is None:
            latencies.ttft.observe((now - self.started_ns) / 1e9)
        else:
            latencies.itl.observe((now - last) / 1e9)
        self._last_output_ns[index] = now
        if output.finished:
            latencies.e2e.observe((now - self.started_ns) / 1e9)
            timings = getattr(output, "metrics", None)
            if isinstance(timings, RequestTimings):
                self._engine_phases(index, timings, latencies)

    def _engine_phases(self, index: int, timings: RequestTimings, latencies: ModelLatencies) -> None:
        for child, value in ((latencies.queue_time, timings.queue_s), (latencies.prefill_time, timings.prefill_s),
                             (latencies.decode_time, timings.decode_s)):
            if value is not None:
                child.observe(value)
        tracing = self.tracing
        if not tracing.enabled:
            return
        attributes = {"warden.choice": index, "gen_ai.request.model": self.model_name}
        phases = (("engine.queue", timings.arrival_ns, timings.scheduled_ns),
                  ("engine.prefill", timings.scheduled_ns, timings.first_token_ns),
                  ("engine.decode", timings.first_token_ns, timings.finished_ns))
        for name, start, end in phases:
            if start and end:
                extra = {"warden.cached_tokens": timings.cached_tokens} if name == "engine.prefill" else {}
                tracing.record_span(name, start, end, {**attributes, **extra}, parent=self._root)

    # --- the end of the call ------------------------------------------------------------------------------------
    def finish(self, *, status: int, error_type: str | None, tenant_id: str | None,
               decisions: Iterable[Mapping[str, Any]], prompt_tokens: int, completion_tokens: int,
               cached_tokens: int, overhead_s: float) -> None:
        metrics = self.metrics
        tenant = metrics.tenants.label(tenant_id)
        metrics.child(metrics.tenant_requests, tenant, self.endpoint, str(status)).inc()
        for kind, count in (("prompt", prompt_tokens), ("completion", completion_tokens), ("cached", cached_tokens)):
            if count:
                metrics.child(metrics.tenant_tokens, tenant, kind).inc(count)
        if status >= 400 and status != CLIENT_CLOSED:
            stage = next((d.get("stage") for d in reversed(list(decisions))
                          if d.get("decision") in REFUSING_DECISIONS), None)
            metrics.tenant_refusals.labels(tenant, refusal_reason(stage, error_type)).inc()
        metrics.child(metrics.overhead_seconds, self.endpoint).observe(overhead_s)
        for name, total_ns in self._accumulated_ns.items():
            metrics.stage(name).observe(total_ns / 1e9)
        if self._root is not None:
            self._root.set_attribute("warden.tenant_id", tenant_id or "")
            self._root.set_attribute("gen_ai.usage.input_tokens", prompt_tokens)
            self._root.set_attribute("gen_ai.usage.output_tokens", completion_tokens)
        metrics.flush_if_due()


class _StageTimer:
    __slots__ = ("_histogram", "_started")

    def __init__(self, histogram: Any) -> None:
        self._histogram = histogram
        self._started = 0

    def __enter__(self) -> None:
        self._started = time.perf_counter_ns()

    def __exit__(self, *exc_info: object) -> None:
        self._histogram.observe((time.perf_counter_ns() - self._started) / 1e9)
