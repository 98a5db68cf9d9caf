"""Structured JSON logs: one object per line with the request id, the tenant id and (when tracing) the trace and
span ids of the request being served, every message scrubbed by ``redaction`` first.

``configure_logging`` installs one handler on the root logger (replacing the one it installed before, so app
factories in tests can call it repeatedly) and routes uvicorn's loggers through it, so they obey the same rule;
uvicorn's access line is turned off, the gateway writing its own (``access_log``).
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
_SCRUBBED = "_warden_scrubbed"  # the message is scrubbed already: neither the filter nor a formatter scrubs it again
_FIELDS = "_warden_fields"  # structured fields made of scrubbed values, written as they are (``scrubbed_record``)


def _is_listen_line(record: logging.LogRecord) -> bool:
    return (record.name in _LISTEN_LOGGERS and isinstance(record.msg, str)
            and record.msg.startswith(_LISTEN_PREFIX) and record.exc_info is None)


def _scrubbed_message(record: logging.LogRecord) -> str:
    message = record.getMessage()
    if getattr(record, _SCRUBBED, False) or getattr(record, _VERBATIM, False):
        return message
    return redact(message)


def scrubbed_record(logger: logging.Logger, level: int, message: str, fields: dict[str, Any]) -> logging.LogRecord:
    """A record whose message and fields its maker built from scrubbed values only (the access line), so no
    handler scrubs them again; made without ``Logger.info``'s walk up the stack for a caller to name."""
    record = logger.makeRecord(logger.name, level, logger.name, 0, message, (), None)
    setattr(record, _SCRUBBED, True)
    setattr(record, _FIELDS, fields)
    return record


class RedactionFilter(logging.Filter):
    """Rewrites the record's message in place (args folded in, then scrubbed) so every handler after it, of any
    format, only ever sees the scrubbed text."""

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, _SCRUBBED, False):  # by an earlier handler's filter, or made so (scrubbed_record)
            return True
        try:
            message = record.getMessage()
        except Exception:  # a malformed %-format: log what we have rather than lose the line
            message = f"{record.msg!s} {record.args!r}"
        if _is_listen_line(record):
            setattr(record, _VERBATIM, True)
            record.msg = message
        else:
            record.msg = redact(message)
            setattr(record, _SCRUBBED, True)
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
        for name, value in getattr(record, _FIELDS, {}).items():
            entry.setdefault(name, value)
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
    on uvicorn's handlers. Otherwise uvicorn's access line is off: a logger with no handler anywhere up its tree is
    one uvicorn does not write to at all, and the gateway's own line (``access_log``) says more."""
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
            # One format for every line: uvicorn's records go to the root handler above (its access line nowhere).
            for uvicorn_handler in list(logger.handlers):
                logger.removeHandler(uvicorn_handler)
            logger.propagate = name != "uvicorn.access"
            continue
        for uvicorn_handler in logger.handlers:
            if not any(isinstance(f, RedactionFilter) for f in uvicorn_handler.filters):
                uvicorn_handler.addFilter(RedactionFilter())
