"""Observability of the gateway and its engine: OpenTelemetry traces (``tracing``), Prometheus metrics
(``metrics``), structured JSON logs with redaction (``logs``, ``redaction``), tied together per process by
``Telemetry`` and per /v1 call by ``RequestTelemetry``."""

from gateway.telemetry.engine_stats import EngineStatsReader
from gateway.telemetry.hub import Telemetry
from gateway.telemetry.logs import configure_logging
from gateway.telemetry.metrics import GatewayMetrics, mark_worker_dead, prepare_multiprocess_dir
from gateway.telemetry.request import RequestTelemetry
from gateway.telemetry.tracing import Tracing

__all__ = ["EngineStatsReader", "GatewayMetrics", "RequestTelemetry", "Telemetry", "Tracing", "configure_logging",
           "mark_worker_dead", "prepare_multiprocess_dir"]
