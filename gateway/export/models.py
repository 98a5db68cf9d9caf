from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, DateTime, Index, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from gateway.audit.models import BigIntId
from gateway.core.clock import utcnow
from gateway.core.db import Base


class AuditCheckpoint(Base):
    """A signed statement "chain C reached seq S with head hash H at time T", chained to the chain's previous
    checkpoint (like CloudTrail digest files). Rows deleted from the newest end of a chain, even with its head
    row rewritten to match, contradict the last checkpoint."""

    __tablename__ = "audit_checkpoints"

    id: Mapped[int] = mapped_column(BigIntId, primary_key=True, autoincrement=True)
    chain_id: Mapped[str] = mapped_column(String(64))
    seq: Mapped[int] = mapped_column(BigInteger)
    head_hash: Mapped[str] = mapped_column(String(64))
    prev_checkpoint_hash: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    key_id: Mapped[str] = mapped_column(String(64))
    signature: Mapped[str] = mapped_column(String(128))  # base64 Ed25519 over the canonical statement

    __table_args__ = (
        UniqueConstraint("chain_id", "seq"),
        Index("ix_audit_checkpoints_chain_id_created_at", "chain_id", "created_at"),
    )


class AuditExport(Base):
    """One export: its parameters while it streams, its signed manifest once the last byte is out."""

    __tablename__ = "audit_exports"

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    completed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    tenant_id: Mapped[str | None] = mapped_column(String(36), default=None)  # None: every chain
    requested_by: Mapped[str] = mapped_column(String(200))
    # The tenant-admin's tenant, if one asked: only that tenant-admin (or platform roles) may fetch the manifest.
    requester_tenant_id: Mapped[str | None] = mapped_column(String(36), default=None)
    status: Mapped[str] = mapped_column(String(16), default="streaming")  # streaming | complete | failed
    manifest: Mapped[dict[str, Any] | None] = mapped_column(JSON, default=None)

    __table_args__ = (Index("ix_audit_exports_tenant_id_created_at", "tenant_id", "created_at"),)
