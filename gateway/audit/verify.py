"""Recompute every chain from the stored rows and name the first broken link of each.

Detects: an edited row (its hash no longer matches), a deleted or reordered row (sequence gap, or prev_hash not
the previous row's hash), and deleted newest rows (the chain head records a later sequence number than the last
row). Rows are read in sequence order in pages, so memory stays flat on long chains. A chain whose oldest records
retention dropped starts at its anchor (``audit_chain_anchors``): the first remaining seq and its predecessor's
hash.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import select
from sqlalchemy.orm import Session

from gateway.audit.chain import GENESIS_HASH, record_hash_of
from gateway.audit.models import AuditChainAnchor, AuditChainHead, AuditRecord


@dataclass(frozen=True, slots=True)
class BrokenLink:
    chain_id: str
    seq: int
    reason: str

    def __str__(self) -> str:
        return f"chain {self.chain_id}: broken at seq {self.seq}: {self.reason}"


@dataclass(slots=True)
class VerifyReport:
    chains: int = 0
    records: int = 0
    broken: list[BrokenLink] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.broken


def _verify_chain(chain_id: str, head: AuditChainHead | None, anchor: AuditChainAnchor | None, *,
                  session: Session) -> tuple[int, BrokenLink | None]:
    expected_seq, expected_prev = (1, GENESIS_HASH) if anchor is None else (int(anchor.first_seq), anchor.prev_hash)
    checked = 0
    rows = session.scalars(
        select(AuditRecord).where(AuditRecord.chain_id == chain_id, AuditRecord.seq >= expected_seq)
        .order_by(AuditRecord.seq).execution_options(yield_per=1000)
    )
    for record in rows:
        checked += 1
        if record.seq != expected_seq:
            return checked, BrokenLink(chain_id, expected_seq, f"record missing (next stored seq is {record.seq})")
        if record.prev_hash != expected_prev:
            return checked, BrokenLink(chain_id, record.seq, "prev_hash does not match the previous record's hash")
        if record_hash_of(record) != record.record_hash:
            return checked, BrokenLink(chain_id, record.seq, "record content does not match its hash (edited)")
        expected_seq, expected_prev = record.seq + 1, record.record_hash
    last_seq = expected_seq - 1
    if head is None:
        return checked, BrokenLink(chain_id, 1, "chain head missing") if checked or anchor else None
    if head.last_seq != last_seq or head.last_hash != expected_prev:
        return checked, BrokenLink(chain_id, last_seq + 1,
                                   f"head says the chain ends at seq {head.last_seq}, rows end at {last_seq}")
    return checked, None


def verify_chains(*, session: Session, chain_id: str | None = None) -> VerifyReport:
    report = VerifyReport()
    heads = {h.chain_id: h for h in session.scalars(select(AuditChainHead))}
    anchors = {a.chain_id: a for a in session.scalars(select(AuditChainAnchor))}
    chain_ids = set(heads) | set(session.scalars(select(AuditRecord.chain_id).distinct()))
    if chain_id is not None:
        chain_ids &= {chain_id}
    for cid in sorted(chain_ids):
        checked, broken = _verify_chain(cid, heads.get(cid), anchors.get(cid), session=session)
        report.chains += 1
        report.records += checked
        if broken is not None:
            report.broken.append(broken)
    return report
