"""audit_quarantine: spooled audit lines the store refused, kept byte for byte beside the chains

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-03
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BIG_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "audit_quarantine",
        sa.Column("id", BIG_ID, autoincrement=True, nullable=False),
        sa.Column("quarantined_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("event_id", sa.String(64), nullable=True),
        sa.Column("chain_id", sa.String(64), nullable=True),
        sa.Column("reason", sa.String(200), nullable=False),
        sa.Column("line", sa.LargeBinary(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_audit_quarantine")),
    )
    op.create_index("ix_audit_quarantine_quarantined_at", "audit_quarantine", ["quarantined_at"])


def downgrade() -> None:
    op.drop_index("ix_audit_quarantine_quarantined_at", table_name="audit_quarantine")
    op.drop_table("audit_quarantine")
