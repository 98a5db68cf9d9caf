"""The export manifest and signed checkpoint statements: their canonical bytes and signatures.

A manifest is a JSON object; its signature is Ed25519 over the canonical JSON (sorted keys, no spaces) of the
object without its ``signature`` member. A checkpoint statement is signed the same way, and chained: each
names the SHA-256 of its chain's previous statement.
"""

from __future__ import annotations

import hashlib
from typing import Any

from gateway.audit.chain import canonical_json

MANIFEST_TYPE = "warden.audit.export-manifest"
CHECKPOINT_TYPE = "warden.audit.checkpoint"
FORMAT_VERSION = 1


def signed_bytes(document: dict[str, Any]) -> bytes:
    return canonical_json({k: v for k, v in document.items() if k != "signature"})


def checkpoint_statement(*, chain_id: str, seq: int, head_hash: str, prev_checkpoint_hash: str, created_at: str,
                         key_id: str) -> dict[str, Any]:
    return {"type": CHECKPOINT_TYPE, "v": FORMAT_VERSION, "chain_id": chain_id, "seq": int(seq),
            "head_hash": head_hash, "prev_checkpoint_hash": prev_checkpoint_hash, "created_at": created_at,
            "key_id": key_id}


def statement_hash(statement: dict[str, Any]) -> str:
    return hashlib.sha256(signed_bytes(statement)).hexdigest()
