"""Retention: drop each chain's months that lie entirely before its retention cutoff, unless its tenant is on
legal hold, and re-anchor the chain so verification starts at the first record that remains.

A tenant's cutoff is ``policies.retention_cutoff`` of its active policy (chains without one, and the anonymous
chain, use ``WARDEN_AUDIT_DEFAULT_RETENTION_DAYS``). Whole months only: what goes is everything recorded before
the first day of the cutoff's month (``purged_before``), so a record is kept at least its retention and at most a
month longer. On Postgres each such month is one table (``gateway.audit.partitions``) and is dropped; on SQLite
the same records are deleted (an embedded database is small).

The chain stays verifiable: months hold contiguous runs of seq, so what is dropped is a prefix of the chain, and
``audit_chain_anchors`` records the first remaining seq with its predecessor's hash (the first remaining row's
``prev_hash``). Every purge is itself an audit record, appended to the purged chain in the same transaction.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import delete, func, select, text
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool

from gateway.audit.event import AuditEvent
from gateway.audit.models import AuditChainAnchor, AuditChainHead, AuditRecord
from gateway.audit.partitions import (
    MonthPartition,
    ensure_chain_partitions,
    is_partitioned,
    known_chains,
    maintain_partitions,
    month_partitions,
    month_start,
)
from gateway.audit.store import append_events
from gateway.core.clock import as_utc, canonical_timestamp, utcnow
from gateway.core.db import Database
from gateway.policystore.service import load_active_policy
from gateway.responses_api.retention import purge_expired_responses
from gateway.tenants.models import Tenant
from policies import retention_cutoff

log = logging.getLogger(__name__)

PURGE_ENDPOINT = "admin.audit.purge"


@dataclass(slots=True)
class ChainPurge:
    """What retention did (or, in a dry run, would do) to one chain."""

    chain_id: str
    retention_days: int
    purged_before: datetime
    rows: int = 0
    partitions: list[str] = field(default_factory=list)
    first_seq: int | None = None  # the chain's first remaining seq afterwards
    skipped: str | None = None  # why nothing was purged although something was due

    def describe(self) -> dict[str, Any]:
        return {"chain_id": self.chain_id, "retention_days": self.retention_days,
                "purged_before": canonical_timestamp(self.purged_before), "rows": self.rows,
                "partitions": self.partitions, "first_seq": self.first_seq, "skipped": self.skipped}


def _retention(chain_id: str, now: datetime, *, session: Session, default_days: int) -> tuple[int, datetime, bool]:
    """(retention days, cutoff, legal hold) of a chain."""
    tenant = session.get(Tenant, chain_id)
    active = load_active_policy(chain_id, session=session) if tenant is not None else None
    if active is None or active.version is None:
        return default_days, now - timedelta(days=default_days), bool(tenant and tenant.legal_hold)
    return active.policy.retention_days, retention_cutoff(active.policy, now), bool(tenant and tenant.legal_hold)


def _purge_event(chain_id: str, purge: ChainPurge, actor: str, *, tenant_id: str | None) -> AuditEvent:
    # The same decision shape as every other admin action (gateway.admin.action_log), from a system actor.
    decision = {"stage": "admin", "action": "audit.purge", "decision": "allowed", "actor": actor,
                "target": {"chain_id": chain_id}, "details": purge.describe()}
    return AuditEvent(created_at=utcnow(), request_id=f"purge-{uuid.uuid4().hex}", endpoint=PURGE_ENDPOINT,
                      http_status=200, latency_ms=0.0, overhead_ms=0.0, tenant_id=tenant_id, decisions=[decision])


def _first_remaining(chain_id: str, boundary: datetime, *, session: Session) -> tuple[int | None, str | None]:
    """The chain's first record recorded at or after ``boundary`` (seq, prev_hash), if any."""
    row = session.execute(select(AuditRecord.seq, AuditRecord.prev_hash)
                          .where(AuditRecord.chain_id == chain_id, AuditRecord.recorded_at >= boundary)
                          .order_by(AuditRecord.seq).limit(1)).first()
    return (None, None) if row is None else (int(row.seq), row.prev_hash)


def _drop(months: list[MonthPartition], *, session: Session) -> None:
    for month in months:
        session.execute(text(f"DROP TABLE {month.name}"))


def purge_chain(chain_id: str, *, session: Session, now: datetime, default_days: int, dry_run: bool = False,
                actor: str = "system:retention") -> ChainPurge | None:
    """Purge one chain in the caller's transaction. None when no record is due; a ``ChainPurge`` with
    ``skipped`` set when some are but stay (legal hold)."""
    days, cutoff, hold = _retention(chain_id, now, session=session, default_days=default_days)
    purge = ChainPurge(chain_id, days, month_start(cutoff))
    boundary = purge.purged_before
    partitioned = is_partitioned(session)
    if partitioned and not dry_run:  # rows a default partition caught get their month's table first
        ensure_chain_partitions(chain_id, session=session, now=now)
    # Locked like a writer locks it: no record can join the chain while we cut its start.
    head = session.execute(select(AuditChainHead.last_seq, AuditChainHead.last_hash)
                           .where(AuditChainHead.chain_id == chain_id).with_for_update()).first()
    expired = [m for m in month_partitions(chain_id, session=session) if m.end <= boundary] if partitioned else []
    rows, last_dropped = session.execute(
        select(func.count(), func.max(AuditRecord.seq))
        .where(AuditRecord.chain_id == chain_id, AuditRecord.recorded_at < boundary)).one()
    if head is None or not rows:
        if expired and not dry_run and not rows:
            _drop(expired, session=session)  # months made ahead that stayed empty: nothing to anchor or record
        return None
    if hold:
        purge.skipped = "legal hold"
        return purge
    anchor = session.get(AuditChainAnchor, chain_id)
    old_first = 1 if anchor is None else int(anchor.first_seq)
    first_seq, first_prev = _first_remaining(chain_id, boundary, session=session)
    if first_seq is None or first_prev is None:
        first_seq, first_prev = int(head.last_seq) + 1, head.last_hash
    if last_dropped != first_seq - 1 or rows != first_seq - old_first:
        # Only possible for records written before recorded_at was kept monotone: dropping would cut a hole.
        purge.skipped = "records before the cutoff interleave with newer ones in sequence; not purged"
        log.warning("audit retention: chain %s: %s", chain_id, purge.skipped)
        return purge
    purge.rows, purge.first_seq, purge.partitions = int(rows), first_seq, [m.name for m in expired]
    if dry_run:
        return purge
    if partitioned:
        _drop(expired, session=session)
    else:
        session.execute(delete(AuditRecord).where(AuditRecord.chain_id == chain_id, AuditRecord.seq < first_seq))
    if anchor is None:
        session.add(AuditChainAnchor(chain_id=chain_id, first_seq=first_seq, prev_hash=first_prev,
                                     purged_before=boundary))
    else:
        anchor.first_seq, anchor.prev_hash = first_seq, first_prev
        anchor.purged_before, anchor.updated_at = max(as_utc(anchor.purged_before), boundary), utcnow()
    session.flush()
    tenant_id = chain_id if session.get(Tenant, chain_id) is not None else None
    append_events([_purge_event(chain_id, purge, actor, tenant_id=tenant_id)], session=session)
    return purge


@dataclass(slots=True)
class PurgeRound:
    """One retention round: the chains with records past their cutoff, and those whose transaction failed (rolled
    back whole, so nothing of theirs went; the next round retries them)."""

    chains: list[ChainPurge] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)


def purge_expired(db: Database, *, default_days: int, now: datetime | None = None, dry_run: bool = False,
                  actor: str = "system:retention") -> PurgeRound:
    """One retention round over every chain, each in its own transaction."""
    now = now or utcnow()
    with db.session() as session:
        chains = known_chains(session=session)
    done = PurgeRound()
    for chain_id in chains:
        try:
            with db.transaction() as session:
                purge = purge_chain(chain_id, session=session, now=now, default_days=default_days,
                                    dry_run=dry_run, actor=actor)
        except Exception:
            log.warning("audit retention: chain %s not purged this round", chain_id, exc_info=True)
            done.failed.append(chain_id)
            continue
        if purge is not None:
            done.chains.append(purge)
            if not dry_run and purge.skipped is None:
                log.info("audit retention: chain %s: %d record(s), %d partition(s) before %s dropped", chain_id,
                         purge.rows, len(purge.partitions), canonical_timestamp(purge.purged_before))
    return done


def maintenance_once(db: Database, *, default_days: int, purge: bool, now: datetime | None = None) -> None:
    maintain_partitions(db, now=now)
    if purge:
        purge_expired(db, default_days=default_days, now=now)
        purge_expired_responses(db, default_days=default_days, now=now)  # stored responses live as long


async def run_maintenance(db: Database, *, interval_s: float, default_days: int, purge: bool) -> None:
    """The periodic task the app runs (partitions ahead of time, then retention); like the checkpoint task, a
    failed round is logged and retried, and the first round waits one interval."""
    while True:
        await asyncio.sleep(interval_s)
        try:
            await run_in_threadpool(maintenance_once, db, default_days=default_days, purge=purge)
        except Exception:
            log.warning("audit maintenance round failed", exc_info=True)

