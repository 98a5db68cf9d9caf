from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from gateway.core.clock import utcnow
from gateway.core.db import Base

# SQLite only auto-increments an INTEGER PRIMARY KEY.
BigIntId = BigInteger().with_variant(Integer, "sqlite")


class AuditRecord(Base):
    __tablename__ = "audit_records"

    id: Mapped[int] = mapped_column(BigIntId, primary_key=True, autoincrement=True)
    event_id: Mapped[str] = mapped_column(String(36), unique=True)  # idempotency key for spool replays
    # The hash chain: a tenant's id, or ANONYMOUS_CHAIN for callers that could not be tied to a tenant.
    chain_id: Mapped[str] = mapped_column(String(64))
    seq: Mapped[int] = mapped_column(BigInteger)
    prev_hash: Mapped[str] = mapped_column(String(64))
    record_hash: Mapped[str] = mapped_column(String(64))

    tenant_id: Mapped[str | None] = mapped_column(ForeignKey("tenants.id", ondelete="RESTRICT"), default=None)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))  # when the request arrived
    recorded_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)  # not hashed
    request_id: Mapped[str] = mapped_column(String(64))
    key_id: Mapped[str | None] = mapped_column(String(32), default=None)
    endpoint: Mapped[str] = mapped_column(String(64))
    model: Mapped[str | None] = mapped_column(String(200), default=None)
    http_status: Mapped[int] = mapped_column(Integer)
    error_type: Mapped[str | None] = mapped_column(String(64), default=None)
    finish_reason: Mapped[str | None] = mapped_column(String(32), default=None)
    prompt_tokens: Mapped[int] = mapped_column(Integer, default=0)
    completion_tokens: Mapped[int] = mapped_column(Integer, default=0)
    cached_tokens: Mapped[int] = mapped_column(Integer, default=0)
    latency_ms: Mapped[float] = mapped_column(Float)
    overhead_ms: Mapped[float] = mapped_column(Float)
    policy_version: Mapped[int | None] = mapped_column(Integer, default=None)
    decisions: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    content: Mapped[dict[str, Any] | None] = mapped_column(JSON, default=None)

    __table_args__ = (
        UniqueConstraint("chain_id", "seq"),
        Index("ix_audit_records_tenant_id_created_at", "tenant_id", "created_at"),
        Index("ix_audit_records_chain_id_created_at", "chain_id", "created_at"),  # export of every chain by time
    )


class AuditChainHead(Base):
    """The last link of each chain. Writers lock this row to append; verification compares against it, so
    deleting the newest records is detected too."""

    __tablename__ = "audit_chain_heads"

    chain_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    last_seq: Mapped[int] = mapped_column(BigInteger, default=0)
    last_hash: Mapped[str] = mapped_column(String(64))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class AuditChainAnchor(Base):
    """Where a chain starts after retention dropped its oldest records: verification begins at ``first_seq``
    and trusts ``prev_hash`` as that record's predecessor (signed checkpoints vouch for the dropped part)."""

    __tablename__ = "audit_chain_anchors"

    chain_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    first_seq: Mapped[int] = mapped_column(BigInteger)
    prev_hash: Mapped[str] = mapped_column(String(64))
    purged_before: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class AuditQuarantine(Base):
    """Spooled audit lines the store refused (a value no backend accepts, a line that is not an event): kept
    byte for byte so nothing is lost, and set aside so they never block the records behind them. ``reason`` is an
    exception class and SQLSTATE, never the refused values."""

    __tablename__ = "audit_quarantine"

    id: Mapped[int] = mapped_column(BigIntId, primary_key=True, autoincrement=True)
    quarantined_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    event_id: Mapped[str | None] = mapped_column(String(64), default=None)
    chain_id: Mapped[str | None] = mapped_column(String(64), default=None)
    reason: Mapped[str] = mapped_column(String(200))
    line: Mapped[bytes] = mapped_column(LargeBinary)

    __table_args__ = (Index("ix_audit_quarantine_quarantined_at", "quarantined_at"),)
