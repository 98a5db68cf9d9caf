"""Streaming an export: rows leave the database through a server-side cursor and leave the process in chunks,
while their SHA-256 is accumulated; when the last byte is out, the signed manifest is stored.

Selection: for each chain, the records whose ``created_at`` lies in [from, to) define the lowest and highest
sequence number, and every record between them is exported (a request that arrived just before ``from`` but
was chained after one inside the range is included). Each chain's part is therefore a contiguous run of the
chain that a verifier can recompute link by link.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from gateway.audit.models import AuditChainHead, AuditRecord
from gateway.core.clock import canonical_timestamp, utcnow
from gateway.core.db import Database
from gateway.export.checkpoints import checkpoint_document, latest_checkpoints
from gateway.export.manifest import FORMAT_VERSION, MANIFEST_TYPE, signed_bytes
from gateway.export.models import AuditExport
from gateway.export.records import csv_header, csv_line, export_row, jsonl_line
from gateway.export.signing import Signer

log = logging.getLogger(__name__)

ROWS_PER_FETCH = 1000  # server-side cursor page (Postgres) / fetchmany size (SQLite)
CHUNK_BYTES = 64 * 1024  # bytes handed to the HTTP layer at a time


class ExportFormat(StrEnum):
    JSONL = "jsonl"
    CSV = "csv"

    @property
    def media_type(self) -> str:
        return "application/x-ndjson" if self is ExportFormat.JSONL else "text/csv; charset=utf-8"


@dataclass(frozen=True, slots=True)
class ExportRequest:
    export_id: str
    format: ExportFormat
    tenant_id: str | None  # None: every chain (platform-admin, auditor)
    start: datetime | None
    end: datetime | None
    requested_by: str
    requester_tenant_id: str | None = None


@dataclass(slots=True)
class ChainPart:
    chain_id: str
    first_seq: int
    last_seq: int
    rows: int = 0
    first_prev_hash: str | None = None
    last_hash: str | None = None

    def summary(self) -> dict[str, Any]:
        return {"chain_id": self.chain_id, "first_seq": self.first_seq, "last_seq": self.last_seq,
                "rows": self.rows, "first_prev_hash": self.first_prev_hash, "last_hash": self.last_hash}


@dataclass(slots=True)
class _Progress:
    parts: list[ChainPart] = field(default_factory=list)
    digest: Any = field(default_factory=hashlib.sha256)
    size: int = 0


def chain_parts(request: ExportRequest, *, session: Session) -> list[ChainPart]:
    query = select(AuditRecord.chain_id, func.min(AuditRecord.seq), func.max(AuditRecord.seq))
    if request.tenant_id is not None:
        # Both columns: tenant_id uses the (tenant_id, created_at) index; chain_id keeps the tenant's own chain.
        query = query.where(AuditRecord.tenant_id == request.tenant_id, AuditRecord.chain_id == request.tenant_id)
    if request.start is not None:
        query = query.where(AuditRecord.created_at >= request.start)
    if request.end is not None:
        query = query.where(AuditRecord.created_at < request.end)
    rows = session.execute(query.group_by(AuditRecord.chain_id).order_by(AuditRecord.chain_id))
    return [ChainPart(chain_id, int(first), int(last)) for chain_id, first, last in rows]


def _records(part: ChainPart, *, session: Session) -> Iterator[AuditRecord]:
    statement = (select(AuditRecord)
                 .where(AuditRecord.chain_id == part.chain_id, AuditRecord.seq >= part.first_seq,
                        AuditRecord.seq <= part.last_seq)
                 .order_by(AuditRecord.seq)
                 .execution_options(yield_per=ROWS_PER_FETCH))
    for record in session.scalars(statement):
        yield record
        session.expunge(record)  # nothing keeps a reference: memory stays flat however long the chain


def begin_export(db: Database, request: ExportRequest) -> list[ChainPart]:
    """Record the export and fix what it covers: the records stored when it was asked for (so the export's own
    audit record, written as the response starts, is never half in it)."""
    with db.transaction() as session:
        session.add(AuditExport(id=request.export_id, tenant_id=request.tenant_id, requested_by=request.requested_by,
                                requester_tenant_id=request.requester_tenant_id, status="streaming"))
        return chain_parts(request, session=session)


def _manifest(request: ExportRequest, progress: _Progress, heads: list[dict[str, Any]],
              checkpoints: list[dict[str, Any]], signer: Signer, started: datetime) -> dict[str, Any]:
    parts = progress.parts
    single = parts[0] if len(parts) == 1 else None
    manifest: dict[str, Any] = {
        "type": MANIFEST_TYPE, "v": FORMAT_VERSION, "export_id": request.export_id,
        "format": request.format.value, "tenant": request.tenant_id,
        "from": canonical_timestamp(request.start) if request.start else None,
        "to": canonical_timestamp(request.end) if request.end else None,
        "started_at": canonical_timestamp(started), "completed_at": canonical_timestamp(utcnow()),
        "requested_by": request.requested_by,
        "row_count": sum(p.rows for p in parts),
        "first_seq": single.first_seq if single else None,
        "last_seq": single.last_seq if single else None,
        "chain_head_hash": single.last_hash if single else None,
        "chains": [p.summary() for p in parts],
        "chain_heads_at_export": heads,
        "checkpoints": checkpoints,
        "file_sha256": progress.digest.hexdigest(), "file_bytes": progress.size,
        "key_id": signer.key_id,
    }
    manifest["signature"] = signer.sign(signed_bytes(manifest))
    return manifest


def stream_export(db: Database, signer: Signer, request: ExportRequest, parts: list[ChainPart]) -> Iterator[bytes]:
    """The export body in chunks (``parts`` from ``begin_export``). The manifest is stored only if the whole body
    was produced."""
    started = utcnow()
    progress = _Progress(parts=parts)
    buffer = bytearray()
    completed = False

    def emit(data: bytes) -> bytes | None:
        progress.digest.update(data)
        progress.size += len(data)
        buffer.extend(data)
        if len(buffer) < CHUNK_BYTES:
            return None
        chunk = bytes(buffer)
        buffer.clear()
        return chunk

    try:
        with db.session() as session:
            chain_ids = [p.chain_id for p in progress.parts]
            heads = [{"chain_id": h.chain_id, "seq": int(h.last_seq), "hash": h.last_hash}
                     for h in session.scalars(select(AuditChainHead).where(AuditChainHead.chain_id.in_(chain_ids))
                                              .order_by(AuditChainHead.chain_id))] if chain_ids else []
            checkpoints = [checkpoint_document(c) for c in latest_checkpoints(session=session,
                                                                              chain_id=request.tenant_id)
                           if c.chain_id in set(chain_ids)]
            if request.format is ExportFormat.CSV and (chunk := emit(csv_header())):
                yield chunk
            encode = jsonl_line if request.format is ExportFormat.JSONL else csv_line
            for part in progress.parts:
                for record in _records(part, session=session):
                    if part.first_prev_hash is None:
                        part.first_prev_hash = record.prev_hash
                    part.last_hash = record.record_hash
                    part.rows += 1
                    if chunk := emit(encode(export_row(record))):
                        yield chunk
        if buffer:
            yield bytes(buffer)
        manifest = _manifest(request, progress, heads, checkpoints, signer, started)
        with db.transaction() as session:
            session.execute(update(AuditExport).where(AuditExport.id == request.export_id)
                            .values(status="complete", completed_at=utcnow(), manifest=manifest))
        completed = True
    finally:
        if not completed:
            # The client went away or the database failed mid-stream: no manifest vouches for a partial file.
            log.warning("export %s did not complete", request.export_id)
            try:
                with db.transaction() as session:
                    session.execute(update(AuditExport).where(AuditExport.id == request.export_id)
                                    .values(status="failed", completed_at=utcnow()))
            except Exception:
                log.warning("could not mark export %s failed", request.export_id, exc_info=True)
