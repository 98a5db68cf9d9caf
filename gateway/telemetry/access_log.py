"""The access log: one line per HTTP request, written by the gateway itself (``warden.access``) in place of
uvicorn's.

uvicorn's line names the client address (which the log redaction turns into ``[IP]`` anyway) and nothing Warden
knows; this one carries the method, the path (no query string: what follows a ``?`` may be anything), the status,
the request's duration and the gateway's overhead within it, and, through the JSON formatter, the request and
tenant ids. Secrets and personal data in the path are scrubbed, as in every log line.

The server's log level still decides, as it did for uvicorn's line: uvicorn sets its access logger's level from
``--log-level`` (``warden serve --log-level`` too), and above info there is no line.

It is written on every request, so it is kept cheap: the path is scrubbed once and the line's message and fields
are built from it (``scrubbed_record``: no handler scrubs them again), the record is made without the walk up the
stack that ``Logger.info`` does to name its caller, and the level check is two cached lookups when the line is off.
"""

from __future__ import annotations

import logging

from gateway.telemetry.logs import scrubbed_record
from gateway.telemetry.redaction import redact

ACCESS_LOGGER = "warden.access"
# The methods an HTTP parser hands the app as they are; any other is scrubbed like the path.
_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT"})
_logger = logging.getLogger(ACCESS_LOGGER)
_server_access = logging.getLogger("uvicorn.access")  # its level is the server's --log-level (no handler: unused)


def access_log_enabled() -> bool:
    return _logger.isEnabledFor(logging.INFO) and _server_access.isEnabledFor(logging.INFO)


def log_access(method: str, path: str, status: int | None, duration_ms: float, overhead_ms: float) -> None:
    """The request's line; ``status`` None: no response was started (the client left, or the app failed before
    uvicorn's own 500)."""
    method = method if method in _METHODS else redact(method)
    path = redact(path)
    message = f"{method} {path} {'-' if status is None else status}"
    _logger.handle(scrubbed_record(_logger, logging.INFO, message, {
        "method": method, "path": path, "status": status, "duration_ms": round(duration_ms, 3),
        "overhead_ms": round(overhead_ms, 3)}))
