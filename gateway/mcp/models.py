"""The registry of upstream MCP servers: one row per version of a server record, a tenant's own or a global one.

A registration, each update and the deletion each write a new version; the newest version is the one in force
(``is_current``), and a deleted server's newest version says ``deleted``. Credentials are stored sealed
(``gateway.mcp.credentials``), never in clear. A global record (``tenant_id`` NULL) is registered by a platform
admin and offered to every tenant whose tool policy allows it; a tenant's own record of the same name shadows it
for that tenant.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, DateTime, Float, ForeignKey, Index, Integer, LargeBinary, String, UniqueConstraint, text
from sqlalchemy.orm import Mapped, mapped_column

from gateway.core.clock import utcnow
from gateway.core.db import Base


class McpServer(Base):
    __tablename__ = "mcp_servers"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    # None: a global record, offered to every tenant.
    tenant_id: Mapped[str | None] = mapped_column(ForeignKey("tenants.id", ondelete="RESTRICT"), nullable=True)
    name: Mapped[str] = mapped_column(String(32))
    version: Mapped[int] = mapped_column(Integer)
    url: Mapped[str] = mapped_column(String(2048))
    # AES-GCM sealed JSON of the headers sent upstream (e.g. Authorization); None: no credentials.
    credentials: Mapped[bytes | None] = mapped_column(LargeBinary, default=None)
    timeout_s: Mapped[float] = mapped_column(Float)
    # Loopback, link-local and private targets are refused unless a platform admin set this on the record.
    allow_private_network: Mapped[bool] = mapped_column(Boolean, default=False)
    deleted: Mapped[bool] = mapped_column(Boolean, default=False)
    is_current: Mapped[bool] = mapped_column(Boolean, default=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    created_by: Mapped[str] = mapped_column(String(200))

    __table_args__ = (
        UniqueConstraint("tenant_id", "name", "version"),
        Index("ix_mcp_servers_tenant_id_is_current", "tenant_id", "is_current"),
        # At most one version in force per (tenant, name), enforced by the database on both backends.
        Index("uq_mcp_servers_one_current", "tenant_id", "name", unique=True,
              sqlite_where=text("is_current"), postgresql_where=text("is_current")),
        # NULLs are distinct in the two indexes above, so global records get their own: one version number per
        # name, and at most one version in force per name.
        Index("uq_mcp_servers_global_name_version", "name", "version", unique=True,
              sqlite_where=text("tenant_id IS NULL"), postgresql_where=text("tenant_id IS NULL")),
        Index("uq_mcp_servers_global_one_current", "name", unique=True,
              sqlite_where=text("tenant_id IS NULL AND is_current"),
              postgresql_where=text("tenant_id IS NULL AND is_current")),
    )
