"""``Telemetry``: the metrics, the tracer and the per-request helper of one gateway process, built from settings
by the app factory and kept on ``app.state.telemetry``."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gateway.telemetry.metrics import GatewayMetrics
from gateway.telemetry.request import RequestTelemetry
from gateway.telemetry.tracing import Tracing

if TYPE_CHECKING:
    from gateway.core.settings import Settings


@dataclass(slots=True)
class Telemetry:
    metrics: GatewayMetrics
    tracing: Tracing

    @classmethod
    def from_settings(cls, settings: Settings) -> Telemetry:
        # OTEL_SERVICE_NAME (the SDK's standard variable, set by docker-compose) wins over the setting.
        service_name = os.environ.get("OTEL_SERVICE_NAME") or settings.service_name
        tracing = (Tracing.create(exporter=settings.trace_exporter, endpoint=settings.otlp_endpoint,
                                  service_name=service_name, sample_ratio=settings.trace_sample_ratio)
                   if settings.tracing else Tracing.disabled())
        return cls(metrics=GatewayMetrics(max_tenants=settings.metrics_max_tenants), tracing=tracing)

    def request(self, endpoint: str, started_ns: int) -> RequestTelemetry:
        return RequestTelemetry(self.metrics, self.tracing, endpoint, started_ns)

    def refused_at_edge(self, endpoint: str, reason: str, status: int) -> None:
        """A /v1 request refused before it reached the handler (body too large): no tenant is known."""
        tenant = self.metrics.tenants.label(None)
        self.metrics.tenant_requests.labels(tenant, endpoint, str(status)).inc()
        self.metrics.tenant_refusals.labels(tenant, reason).inc()

    def shutdown(self) -> None:
        self.metrics.flush()  # in multiprocess mode, this worker's last counts stay in its files after it exits
        self.tracing.shutdown()
