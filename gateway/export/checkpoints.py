"""Signed checkpoints of every chain head, written periodically, and their check against the stored chains.

Each checkpoint says "chain C had reached seq S with hash H at time T", is signed with the export key, and
names the hash of the chain's previous checkpoint. Deleting the newest records of a chain (and rewriting its
head row to match) then contradicts the last checkpoint; exports carry the latest checkpoints in their
manifests so an auditor can catch it offline too. Several workers may write at once: (chain_id, seq) is unique,
and a lost race is simply skipped until the next round.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool

from gateway.audit.chain import GENESIS_HASH
from gateway.audit.models import AuditChainAnchor, AuditChainHead, AuditRecord
from gateway.core.clock import canonical_timestamp, utcnow
from gateway.core.db import Database
from gateway.export.manifest import checkpoint_statement, signed_bytes, statement_hash
from gateway.export.models import AuditCheckpoint
from gateway.export.signing import Signer, key_id_of, signature_valid

log = logging.getLogger(__name__)


def checkpoint_document(row: AuditCheckpoint) -> dict[str, Any]:
    """The signed statement with its signature, as manifests and the API publish it."""
    statement = checkpoint_statement(chain_id=row.chain_id, seq=row.seq, head_hash=row.head_hash,
                                     prev_checkpoint_hash=row.prev_checkpoint_hash,
                                     created_at=canonical_timestamp(row.created_at), key_id=row.key_id)
    return {**statement, "signature": row.signature}


def _latest(chain_id: str, *, session: Session) -> AuditCheckpoint | None:
    return session.scalar(select(AuditCheckpoint).where(AuditCheckpoint.chain_id == chain_id)
                          .order_by(AuditCheckpoint.seq.desc()).limit(1))


def latest_checkpoints(*, session: Session, chain_id: str | None = None) -> list[AuditCheckpoint]:
    latest = (select(AuditCheckpoint.chain_id, func.max(AuditCheckpoint.seq).label("seq"))
              .group_by(AuditCheckpoint.chain_id))
    if chain_id is not None:
        latest = latest.where(AuditCheckpoint.chain_id == chain_id)
    sub = latest.subquery()
    return list(session.scalars(
        select(AuditCheckpoint).join(sub, (AuditCheckpoint.chain_id == sub.c.chain_id)
                                     & (AuditCheckpoint.seq == sub.c.seq)).order_by(AuditCheckpoint.chain_id)))


def write_checkpoints(signer: Signer, *, session: Session) -> int:
    """Sign the head of every chain that moved since its last checkpoint. Returns how many were written."""
    written = 0
    for head in session.scalars(select(AuditChainHead).order_by(AuditChainHead.chain_id)):
        previous = _latest(head.chain_id, session=session)
        if previous is not None and previous.seq >= head.last_seq:
            continue
        prev_hash = statement_hash(checkpoint_document(previous)) if previous is not None else GENESIS_HASH
        now = utcnow()
        statement = checkpoint_statement(chain_id=head.chain_id, seq=head.last_seq, head_hash=head.last_hash,
                                         prev_checkpoint_hash=prev_hash, created_at=canonical_timestamp(now),
                                         key_id=signer.key_id)
        session.add(AuditCheckpoint(chain_id=head.chain_id, seq=head.last_seq, head_hash=head.last_hash,
                                    prev_checkpoint_hash=prev_hash, created_at=now, key_id=signer.key_id,
                                    signature=signer.sign(signed_bytes(statement))))
        written += 1
    session.flush()
    return written


def checkpoint_once(db: Database, signer: Signer) -> int:
    try:
        with db.transaction() as session:
            return write_checkpoints(signer, session=session)
    except IntegrityError:
        log.debug("another worker wrote the same checkpoint first")
        return 0


async def run_checkpoints(db: Database, signer: Signer, interval_s: float) -> None:
    """The periodic task the app runs; a failed round is logged and retried at the next interval. The first
    round waits one interval, so starting a process (or a test app) costs nothing."""
    while True:
        await asyncio.sleep(interval_s)
        try:
            await run_in_threadpool(checkpoint_once, db, signer)
        except Exception:
            log.warning("audit checkpoint round failed", exc_info=True)


@dataclass(frozen=True, slots=True)
class CheckpointProblem:
    chain_id: str
    seq: int
    reason: str

    def __str__(self) -> str:
        return f"chain {self.chain_id}: checkpoint at seq {self.seq}: {self.reason}"


def _checkpoints(chain_id: str, *, session: Session) -> Iterator[AuditCheckpoint]:
    yield from session.scalars(select(AuditCheckpoint).where(AuditCheckpoint.chain_id == chain_id)
                               .order_by(AuditCheckpoint.seq).execution_options(yield_per=500))


def verify_checkpoints(public_key: Ed25519PublicKey, *, session: Session,
                       chain_id: str | None = None) -> list[CheckpointProblem]:
    """Every checkpoint's signature and link, and that the stored chain still holds what it vouched for."""
    problems: list[CheckpointProblem] = []
    key_id = key_id_of(public_key)
    chain_ids = sorted(set(session.scalars(select(AuditCheckpoint.chain_id).distinct())))
    for cid in chain_ids if chain_id is None else [c for c in chain_ids if c == chain_id]:
        head = session.get(AuditChainHead, cid)
        anchor = session.get(AuditChainAnchor, cid)
        expected_prev = GENESIS_HASH
        for row in _checkpoints(cid, session=session):
            document = checkpoint_document(row)
            if row.key_id != key_id or not signature_valid(public_key, signed_bytes(document), row.signature):
                problems.append(CheckpointProblem(cid, row.seq, "signature does not verify (forged or altered)"))
                break
            if row.prev_checkpoint_hash != expected_prev:
                problems.append(CheckpointProblem(cid, row.seq, "does not follow the previous checkpoint "
                                                                "(a checkpoint was removed or replaced)"))
                break
            expected_prev = statement_hash(document)
            if anchor is not None and row.seq < anchor.first_seq:
                continue  # vouches for records retention has since dropped
            if head is None or head.last_seq < row.seq:
                problems.append(CheckpointProblem(
                    cid, row.seq, f"the chain now ends at seq {0 if head is None else head.last_seq}: "
                                  "newest records were removed"))
                break
            stored = session.scalar(select(AuditRecord.record_hash)
                                    .where(AuditRecord.chain_id == cid, AuditRecord.seq == row.seq))
            if stored != row.head_hash:
                problems.append(CheckpointProblem(cid, row.seq, "the stored record differs from the signed head"
                                                  if stored else "the record it vouches for is missing"))
                break
    return problems
