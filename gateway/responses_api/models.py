"""Stored responses (the Responses API's ``store``): one row per response a tenant asked to keep.

``conversation`` is what a continuation (``previous_response_id``) replays: the response's whole conversation as
chat messages (its input, itself including any conversation it continued, then its output), kept under the
tenant's audit-content policy: as sent (``full``), as the model saw it after the guardrails (``redacted``), or not at
all (``hashes``: such a response can be read back without its output and cannot be continued). ``body`` is the
response object as returned, its output removed under ``hashes``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, DateTime, ForeignKey, Index, String
from sqlalchemy.orm import Mapped, mapped_column

from gateway.core.clock import utcnow
from gateway.core.db import Base


class StoredResponse(Base):
    __tablename__ = "stored_responses"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    tenant_id: Mapped[str] = mapped_column(ForeignKey("tenants.id", ondelete="RESTRICT"))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    request_id: Mapped[str] = mapped_column(String(128))
    model: Mapped[str] = mapped_column(String(200))
    previous_response_id: Mapped[str | None] = mapped_column(String(128), default=None)
    content_mode: Mapped[str] = mapped_column(String(16))  # the audit-content policy it was stored under
    conversation: Mapped[list[dict[str, Any]] | None] = mapped_column(JSON, default=None)
    body: Mapped[dict[str, Any]] = mapped_column(JSON)

    __table_args__ = (Index("ix_stored_responses_tenant_id_created_at", "tenant_id", "created_at"),)
