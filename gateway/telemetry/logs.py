"""Structured JSON logs: one object per line with the request id, the tenant id and (when tracing) the trace and
span ids of the request being served, every message scrubbed by ``redaction`` first.

``configure_logging`` installs one handler on the root logger (replacing the one it installed before, so app
factories in tests can call it repeatedly) and routes uvicorn's loggers (access log included) through it, so they
obey the same rule.
"""

from __future__ import annotations

import logging
import sys
from datetime import UTC, datetime
from typing import Any, Literal

import orjson
from opentelemetry import trace

from gateway.telemetry.context import current_request_id, current_tenant_id
from gateway.telemetry.redaction import redact, redact_value

LogFormat = Literal["json", "text", "none"]
_HANDLER_MARK = "_warden_handler"
# Attributes every LogRecord has; anything else on a record came from ``extra=`` and is logged as a field.
_STANDARD_ATTRS = frozenset(logging.LogRecord("", 0, "", 0, "", None, None).__dict__) | {
    "message", "asctime",
    "color_message",  # uvicorn's ANSI-coloured duplicate of the message
}


# uvicorn's start-up line names the address the server listens on: the operator's own configuration, never a
# client's, and the one line a start-up log must show verbatim (the IP rule would print "https://[IP]:8443").
_LISTEN_LOGGERS = frozenset({"uvicorn.error", "uvicorn"})
_LISTEN_PREFIX = "Uvicorn running on "
_VERBATIM = "_warden_verbatim"


def _is_listen_line(record: logging.LogRecord) -> bool:
    return (record.name in _LISTEN_LOGGERS and isinstance(record.msg, str)
            and record.msg.startswith(_LISTEN_PREFIX) and record.exc_info is None)


def _scrubbed_message(record: logging.LogRecord) -> str:
    message = record.getMessage()
    return message if getattr(record, _VERBATIM, False) else redact(message)


class RedactionFilter(logging.Filter):
    """Rewrites the record's message in place (args folded in, then scrubbed) so every handler after it, of any
    format, only ever sees the scrubbed text."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a malformed %-format: log what we have rather than lose the line
            message = f"{record.msg!s} {record.args!r}"
        if _is_listen_line(record):
            setattr(record, _VERBATIM, True)
            record.msg = message
        else:
            record.msg = redact(message)
        record.args = None
        return True


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": _scrubbed_message(record),
        }
        request_id, tenant_id = current_request_id(), current_tenant_id()
        if request_id is not None:
            entry["request_id"] = request_id
        if tenant_id is not None:
            entry["tenant_id"] = tenant_id
        span_context = trace.get_current_span().get_span_context()
        if span_context.is_valid:
            entry["trace_id"] = format(span_context.trace_id, "032x")
            entry["span_id"] = format(span_context.span_id, "016x")
        for name, value in record.__dict__.items():
            if name not in _STANDARD_ATTRS and not name.startswith("_") and name not in entry:
                entry[name] = redact_value(name, value)
        if record.exc_info:
            entry["exception"] = redact(self.formatException(record.exc_info))
        if record.stack_info:
            entry["stack"] = redact(self.formatStack(record.stack_info))
        return orjson.dumps(entry, default=str).decode()


class RedactingTextFormatter(logging.Formatter):
    """Plain text for a terminal; tracebacks scrubbed like messages."""

    def formatException(self, ei: Any) -> str:  # logging's method name
        return redact(super().formatException(ei))


def configure_logging(log_format: LogFormat = "json", level: str = "INFO", stream: Any = None) -> None:
    """``none`` leaves logging as the host process set it up (tests, embedding) apart from the redaction filter
    on uvicorn's handlers."""
    root = logging.getLogger()
    for handler in list(root.handlers):
        if getattr(handler, _HANDLER_MARK, False):
            root.removeHandler(handler)
    if log_format != "none":
        handler = logging.StreamHandler(stream or sys.stderr)
        setattr(handler, _HANDLER_MARK, True)
        handler.addFilter(RedactionFilter())
        handler.setFormatter(JsonFormatter() if log_format == "json" else
                             RedactingTextFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        root.addHandler(handler)
        root.setLevel(level.upper())
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        logger = logging.getLogger(name)
        if log_format != "none":
            # One format for every line: uvicorn's records go to the root handler above.
            for uvicorn_handler in list(logger.handlers):
                logger.removeHandler(uvicorn_handler)
            logger.propagate = True
            continue
        for uvicorn_handler in logger.handlers:
            if not any(isinstance(f, RedactionFilter) for f in uvicorn_handler.filters):
                uvicorn_handler.addFilter(RedactionFilter())
