"""The hash chain, defined in one place: record_hash = SHA-256(prev_hash || canonical JSON of the record).

The writer (on the plain row it inserts) and the verifier (on an ``AuditRecord`` it reads back) both call
``record_hash_of``, so what is hashed can never drift between them.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from gateway.audit.models import AuditRecord
from gateway.core.clock import canonical_timestamp

GENESIS_HASH = "0" * 64
CHAIN_FORMAT_VERSION = 1


# One encoder for every record: ``json.dumps`` with these options builds a new one per call. The standard library's
# text, not orjson's, is the canonical form every stored chain was hashed over (orjson writes some floats otherwise).
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def canonical_json(value: Any) -> bytes:
    return _CANONICAL.encode(value).encode()


def _optional_int(value: int | None) -> int | None:
    return None if value is None else int(value)


# The stored columns ``_payload`` reads.
_HASHED_COLUMNS = ("chain_id", "seq", "event_id", "tenant_id", "created_at", "request_id", "key_id", "endpoint",
                   "model", "http_status", "error_type", "finish_reason", "prompt_tokens", "completion_tokens",
                   "cached_tokens", "latency_ms", "overhead_ms", "policy_version", "decisions", "content")


def hashed_payload(record: AuditRecord | Mapping[str, Any]) -> dict[str, Any]:
    """Every stored field except the links themselves and storage bookkeeping (row id, recorded_at), of a stored
    record or of a row about to be inserted (its columns by name). Numbers are normalised (int/float) so a database
    round trip cannot change the canonical text."""
    # A row's columns by key, a record's by attribute: one function reads rows and records alike. ``dict`` is tested
    # first because the drain hashes hundreds of rows a second and an ABC's isinstance check is slow.
    if isinstance(record, dict):
        return _payload(record)
    if isinstance(record, Mapping):
        return _payload(dict(record))
    return _payload({name: getattr(record, name) for name in _HASHED_COLUMNS})


def _payload(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "v": CHAIN_FORMAT_VERSION,
        "chain_id": row["chain_id"],
        "seq": int(row["seq"]),
        "event_id": row["event_id"],
        "tenant_id": row["tenant_id"],
        "created_at": canonical_timestamp(row["created_at"]),
        "request_id": row["request_id"],
        "key_id": row["key_id"],
        "endpoint": row["endpoint"],
        "model": row["model"],
        "http_status": int(row["http_status"]),
        "error_type": row["error_type"],
        "finish_reason": row["finish_reason"],
        "prompt_tokens": int(row["prompt_tokens"]),
        "completion_tokens": int(row["completion_tokens"]),
        "cached_tokens": int(row["cached_tokens"]),
        "latency_ms": float(row["latency_ms"]),
        "overhead_ms": float(row["overhead_ms"]),
        "policy_version": _optional_int(row["policy_version"]),
        "decisions": row["decisions"],
        "content": row["content"],
    }


def record_hash_of(record: AuditRecord | Mapping[str, Any]) -> str:
    prev_hash: str = record["prev_hash"] if isinstance(record, dict | Mapping) else record.prev_hash
    return hashlib.sha256(prev_hash.encode("ascii") + canonical_json(hashed_payload(record))).hexdigest()
