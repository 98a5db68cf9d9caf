from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import Boolean, DateTime, Index, String
from sqlalchemy.orm import Mapped, mapped_column

from gateway.core.clock import utcnow
from gateway.core.db import Base


def new_tenant_id() -> str:
    return str(uuid.uuid4())


class Tenant(Base):
    __tablename__ = "tenants"

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_tenant_id)
    name: Mapped[str] = mapped_column(String(200), unique=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    disabled_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    # While set, retention never purges this tenant's audit records (litigation, investigation).
    legal_hold: Mapped[bool] = mapped_column(Boolean, default=False)

    __table_args__ = (Index("ix_tenants_created_at", "created_at"),)
