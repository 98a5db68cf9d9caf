"""One audit record as an export row (JSON Lines or CSV) and back. Pure functions shared by exporter and verifier.

An exported row carries exactly the fields the chain hash covers (``gateway.audit.chain.hashed_payload``) plus
``prev_hash`` and ``record_hash``, so a verifier recomputes every hash from the file alone.

CSV cells: integers and floats in Python's shortest round-trip form; ``decisions`` and ``content`` as canonical
JSON; a missing value (SQL NULL) as ``\\N`` (PostgreSQL's COPY convention), and a text value that starts with a
backslash gets one more in front, so NULL and text never collide.
"""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from gateway.audit.chain import canonical_json, hashed_payload
from gateway.audit.models import AuditRecord

LINK_FIELDS = ("prev_hash", "record_hash")
CSV_COLUMNS = ("v", "chain_id", "seq", "event_id", "tenant_id", "created_at", "request_id", "key_id", "endpoint",
               "model", "http_status", "error_type", "finish_reason", "prompt_tokens", "completion_tokens",
               "cached_tokens", "latency_ms", "overhead_ms", "policy_version", "decisions", "content",
               "prev_hash", "record_hash")
INT_COLUMNS = frozenset({"v", "seq", "http_status", "prompt_tokens", "completion_tokens", "cached_tokens",
                         "policy_version"})
FLOAT_COLUMNS = frozenset({"latency_ms", "overhead_ms"})
JSON_COLUMNS = frozenset({"decisions", "content"})
NULL = "\\N"


def export_row(record: AuditRecord) -> dict[str, Any]:
    return {**hashed_payload(record), "prev_hash": record.prev_hash, "record_hash": record.record_hash}


def jsonl_line(row: dict[str, Any]) -> bytes:
    return canonical_json(row) + b"\n"


def _csv_cell(name: str, value: Any) -> str:
    if name in JSON_COLUMNS:
        return canonical_json(value).decode()
    if value is None:
        return NULL
    if name in FLOAT_COLUMNS:
        return repr(float(value))
    if name in INT_COLUMNS:
        return str(int(value))
    text = str(value)
    return "\\" + text if text.startswith("\\") else text


def _csv_line(cells: list[str]) -> bytes:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerow(cells)
    return buffer.getvalue().encode()


def csv_header() -> bytes:
    return _csv_line(list(CSV_COLUMNS))


def csv_line(row: dict[str, Any]) -> bytes:
    return _csv_line([_csv_cell(name, row[name]) for name in CSV_COLUMNS])


def parse_csv_row(cells: list[str]) -> dict[str, Any]:
    """The inverse of ``csv_line``. Raises ValueError on a row that cannot be an export row."""
    if len(cells) != len(CSV_COLUMNS):
        raise ValueError(f"expected {len(CSV_COLUMNS)} columns, found {len(cells)}")
    row: dict[str, Any] = {}
    for name, cell in zip(CSV_COLUMNS, cells, strict=True):
        if name in JSON_COLUMNS:
            row[name] = json.loads(cell)
        elif cell == NULL:
            row[name] = None
        elif name in INT_COLUMNS:
            row[name] = int(cell)
        elif name in FLOAT_COLUMNS:
            row[name] = float(cell)
        else:
            row[name] = cell[1:] if cell.startswith("\\") else cell
    return row
