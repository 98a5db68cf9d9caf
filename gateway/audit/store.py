"""Appending events to their chains in the database: the only code that assigns sequence numbers and hashes.

Correct with any number of gateway workers and replicas: each chain's head row is locked (Postgres
``SELECT ... FOR UPDATE``) for the whole transaction, and the head is advanced with a compare-and-set on
``last_seq`` that also catches a concurrent writer on SQLite (which ignores FOR UPDATE). A lost race raises
``ChainConflict``; the caller rolls back and retries the batch. ``(chain_id, seq)`` is unique as a last line
of defence, and ``event_id`` is unique so replaying a spool never duplicates a record.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from gateway.audit.chain import GENESIS_HASH, record_hash_of
from gateway.audit.event import AuditEvent
from gateway.audit.models import AuditChainHead, AuditRecord
from gateway.core.clock import utcnow


class ChainConflict(RuntimeError):
    """Another writer advanced the chain head between our read and our update."""


def _lock_head(chain_id: str, *, session: Session) -> tuple[int, str]:
    head = session.execute(
        select(AuditChainHead.last_seq, AuditChainHead.last_hash)
        .where(AuditChainHead.chain_id == chain_id).with_for_update()
    ).first()
    if head is not None:
        return int(head.last_seq), head.last_hash
    # First record of this chain. A concurrent creator makes this INSERT fail on the primary key: the
    # transaction is retried and then finds the row.
    session.add(AuditChainHead(chain_id=chain_id, last_seq=0, last_hash=GENESIS_HASH))
    session.flush()
    return 0, GENESIS_HASH


def append_events(events: Sequence[AuditEvent], *, session: Session) -> int:
    """Chain and insert ``events`` (skipping ones already stored). Returns how many were inserted.
    Runs inside the caller's transaction; on any exception the caller must roll back."""
    if not events:
        return 0
    already_stored = set(session.scalars(
        select(AuditRecord.event_id).where(AuditRecord.event_id.in_([e.event_id for e in events]))
    ))
    by_chain: dict[str, list[AuditEvent]] = defaultdict(list)
    for event in events:
        if event.event_id not in already_stored:
            already_stored.add(event.event_id)
            by_chain[event.chain_id].append(event)

    inserted = 0
    for chain_id in sorted(by_chain):  # a fixed lock order: two writers never deadlock on heads
        last_seq, last_hash = _lock_head(chain_id, session=session)
        seq, prev_hash = last_seq, last_hash
        for event in by_chain[chain_id]:
            seq += 1
            record = AuditRecord(
                event_id=event.event_id, chain_id=chain_id, seq=seq, prev_hash=prev_hash, record_hash="",
                tenant_id=event.tenant_id, created_at=event.created_at, request_id=event.request_id,
                key_id=event.key_id, endpoint=event.endpoint, model=event.model, http_status=event.http_status,
                error_type=event.error_type, finish_reason=event.finish_reason,
                prompt_tokens=event.prompt_tokens, completion_tokens=event.completion_tokens,
                cached_tokens=event.cached_tokens, latency_ms=float(event.latency_ms),
                overhead_ms=float(event.overhead_ms), policy_version=event.policy_version,
                decisions=event.decisions, content=event.content,
            )
            record.record_hash = record_hash_of(record)
            prev_hash = record.record_hash
            session.add(record)
            inserted += 1
        advanced = session.execute(
            update(AuditChainHead)
            .where(AuditChainHead.chain_id == chain_id, AuditChainHead.last_seq == last_seq)
            .values(last_seq=seq, last_hash=prev_hash, updated_at=utcnow())
        )
        if advanced.rowcount != 1:
            raise ChainConflict(chain_id)
    session.flush()
    return inserted
