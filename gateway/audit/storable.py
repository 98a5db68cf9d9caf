"""Making an audit event storable by every backend before it is spooled.

The edge refuses requests whose strings hold a NUL or a lone surrogate (``gateway.core.text_safety``), but an audit
record must never depend on every caller having checked: Postgres refuses NUL in text and JSON, orjson refuses lone
surrogates, and a value longer than its column is refused too. One refused record used to stop a host's audit
trail. So every event is fitted here, once, before it is spooled: NUL and lone surrogates become U+FFFD (visible in
the record, never silently dropped), and the free-text columns are cut to their width with a marker. What the
store still refuses after this goes to the quarantine (``gateway.audit.quarantine``).
"""

from __future__ import annotations

import re
from typing import Any

from sqlalchemy import String

from gateway.audit.models import AuditRecord

REPLACEMENT = "\ufffd"
TRUNCATED = "…"
# NUL, and UTF-16 surrogates (valid only in pairs inside UTF-16, never in a Python str that came from UTF-8).
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def _column_widths() -> dict[str, int]:
    return {column.name: column.type.length for column in AuditRecord.__table__.columns
            if isinstance(column.type, String) and column.type.length is not None}


COLUMN_WIDTHS = _column_widths()


def storable_text(value: str) -> str:
    """``value`` with every NUL and lone surrogate replaced by U+FFFD."""
    return _UNSTORABLE.sub(REPLACEMENT, value)


def fits(value: str, width: int) -> str:
    return value if len(value) <= width else value[:width - 1] + TRUNCATED


def storable_value(value: Any) -> Any:
    """A JSON-like value with every string (keys included) made storable."""
    if isinstance(value, str):
        return storable_text(value)
    if isinstance(value, dict):
        return {storable_value(key) if isinstance(key, str) else key: storable_value(item)
                for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [storable_value(item) for item in value]
    return value


def storable_columns(columns: dict[str, Any]) -> dict[str, Any]:
    """The event's fields (as ``dataclasses.asdict`` gives them) fitted for storage: text made storable, and each
    string column cut to its width."""
    fitted = {}
    for name, value in columns.items():
        value = storable_value(value)
        width = COLUMN_WIDTHS.get(name)
        if width is not None and isinstance(value, str):
            value = fits(value, width)
        fitted[name] = value
    return fitted


def needs_fitting(columns: dict[str, Any], encoded: bytes | None) -> bool:
    """Cheap check on the common path: the encoding failed (a lone surrogate), holds an escaped NUL, or a string
    column is too wide."""
    if encoded is None or b"\\u0000" in encoded:
        return True
    return any(isinstance(columns.get(name), str) and len(columns[name]) > width
               for name, width in COLUMN_WIDTHS.items())
