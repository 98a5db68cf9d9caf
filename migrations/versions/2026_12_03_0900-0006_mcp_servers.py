"""mcp_servers: the versioned registry of each tenant's upstream MCP servers (credentials sealed)

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-03
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "mcp_servers",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("tenant_id", sa.String(36), nullable=False),
        sa.Column("name", sa.String(32), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("url", sa.String(2048), nullable=False),
        sa.Column("credentials", sa.LargeBinary(), nullable=True),
        sa.Column("timeout_s", sa.Float(), nullable=False),
        sa.Column("allow_private_network", sa.Boolean(), nullable=False),
        sa.Column("deleted", sa.Boolean(), nullable=False),
        sa.Column("is_current", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("created_by", sa.String(200), nullable=False),
        sa.ForeignKeyConstraint(["tenant_id"], ["tenants.id"], name=op.f("fk_mcp_servers_tenant_id_tenants"),
                                ondelete="RESTRICT"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_mcp_servers")),
        sa.UniqueConstraint("tenant_id", "name", "version", name=op.f("uq_mcp_servers_tenant_id_name_version")),
    )
    op.create_index("ix_mcp_servers_tenant_id_is_current", "mcp_servers", ["tenant_id", "is_current"])
    op.create_index("uq_mcp_servers_one_current", "mcp_servers", ["tenant_id", "name"], unique=True,
                    sqlite_where=sa.text("is_current"), postgresql_where=sa.text("is_current"))


def downgrade() -> None:
    op.drop_index("uq_mcp_servers_one_current", table_name="mcp_servers")
    op.drop_index("ix_mcp_servers_tenant_id_is_current", table_name="mcp_servers")
    op.drop_table("mcp_servers")
