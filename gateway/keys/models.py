from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, ForeignKey, Index, String
from sqlalchemy.orm import Mapped, mapped_column

from gateway.core.clock import utcnow
from gateway.core.db import Base


class ApiKey(Base):
    __tablename__ = "api_keys"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)  # the public key id
    tenant_id: Mapped[str] = mapped_column(ForeignKey("tenants.id", ondelete="RESTRICT"))
    secret_hash: Mapped[str] = mapped_column(String(64))  # hex HMAC-SHA256(pepper, key id : secret)
    label: Mapped[str | None] = mapped_column(String(200), default=None)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    expires_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    last_used_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    # Rotation: the key that replaces this one (this one stays valid until its expires_at, the grace period).
    replaced_by: Mapped[str | None] = mapped_column(String(32), default=None)

    __table_args__ = (Index("ix_api_keys_tenant_id_created_at", "tenant_id", "created_at"),)
