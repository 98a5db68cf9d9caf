"""The hash chain, defined in one place: record_hash = SHA-256(prev_hash || canonical JSON of the record).

The writer (on the plain row it inserts) and the verifier (on an ``AuditRecord`` it reads back) both call
``record_hash_of``, so what is hashed can never drift between them.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from types import SimpleNamespace
from typing import Any

from gateway.audit.models import AuditRecord
from gateway.core.clock import canonical_timestamp

GENESIS_HASH = "0" * 64
CHAIN_FORMAT_VERSION = 1


def canonical_json(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode()


def _optional_int(value: int | None) -> int | None:
    return None if value is None else int(value)


def hashed_payload(record: AuditRecord | Mapping[str, Any]) -> dict[str, Any]:
    """Every stored field except the links themselves and storage bookkeeping (row id, recorded_at), of a stored
    record or of a row about to be inserted (its columns by name). Numbers are normalised (int/float) so a database
    round trip cannot change the canonical text."""
    # A row's columns as attributes, so one function reads rows and records alike.
    return _payload(SimpleNamespace(**record) if isinstance(record, Mapping) else record)


def _payload(record: Any) -> dict[str, Any]:
    return {
        "v": CHAIN_FORMAT_VERSION,
        "chain_id": record.chain_id,
        "seq": int(record.seq),
        "event_id": record.event_id,
        "tenant_id": record.tenant_id,
        "created_at": canonical_timestamp(record.created_at),
        "request_id": record.request_id,
        "key_id": record.key_id,
        "endpoint": record.endpoint,
        "model": record.model,
        "http_status": int(record.http_status),
        "error_type": record.error_type,
        "finish_reason": record.finish_reason,
        "prompt_tokens": int(record.prompt_tokens),
        "completion_tokens": int(record.completion_tokens),
        "cached_tokens": int(record.cached_tokens),
        "latency_ms": float(record.latency_ms),
        "overhead_ms": float(record.overhead_ms),
        "policy_version": _optional_int(record.policy_version),
        "decisions": record.decisions,
        "content": record.content,
    }


def record_hash_of(record: AuditRecord | Mapping[str, Any]) -> str:
    prev_hash: str = record["prev_hash"] if isinstance(record, Mapping) else record.prev_hash
    return hashlib.sha256(prev_hash.encode("ascii") + canonical_json(hashed_payload(record))).hexdigest()
