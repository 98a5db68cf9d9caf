"""mcp_servers: global records (tenant_id NULL), registered by a platform admin for every tenant

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-03
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("mcp_servers") as batch:
        batch.alter_column("tenant_id", existing_type=sa.String(36), nullable=True)
    # NULLs are distinct in the per-tenant unique indexes, so global records get their own.
    op.create_index("uq_mcp_servers_global_name_version", "mcp_servers", ["name", "version"], unique=True,
                    sqlite_where=sa.text("tenant_id IS NULL"), postgresql_where=sa.text("tenant_id IS NULL"))
    op.create_index("uq_mcp_servers_global_one_current", "mcp_servers", ["name"], unique=True,
                    sqlite_where=sa.text("tenant_id IS NULL AND is_current"),
                    postgresql_where=sa.text("tenant_id IS NULL AND is_current"))


def downgrade() -> None:
    # Global records cannot live in the old schema: they go (their history with them).
    op.execute(sa.text("DELETE FROM mcp_servers WHERE tenant_id IS NULL"))
    op.drop_index("uq_mcp_servers_global_one_current", table_name="mcp_servers")
    op.drop_index("uq_mcp_servers_global_name_version", table_name="mcp_servers")
    with op.batch_alter_table("mcp_servers") as batch:
        batch.alter_column("tenant_id", existing_type=sa.String(36), nullable=False)
