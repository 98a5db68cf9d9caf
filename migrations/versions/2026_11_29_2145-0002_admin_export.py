"""admin API and compliance export: key rotation, legal hold, checkpoints, exports, retention anchors

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TZ = sa.DateTime(timezone=True)
BIG_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    with op.batch_alter_table("api_keys") as batch:
        batch.add_column(sa.Column("replaced_by", sa.String(32), nullable=True))
    with op.batch_alter_table("tenants") as batch:
        batch.add_column(sa.Column("legal_hold", sa.Boolean(), nullable=False, server_default=sa.false()))
    op.create_index("ix_audit_records_chain_id_created_at", "audit_records", ["chain_id", "created_at"])

    op.create_table(
        "audit_checkpoints",
        sa.Column("id", BIG_ID, autoincrement=True, nullable=False),
        sa.Column("chain_id", sa.String(64), nullable=False),
        sa.Column("seq", sa.BigInteger(), nullable=False),
        sa.Column("head_hash", sa.String(64), nullable=False),
        sa.Column("prev_checkpoint_hash", sa.String(64), nullable=False),
        sa.Column("created_at", TZ, nullable=False),
        sa.Column("key_id", sa.String(64), nullable=False),
        sa.Column("signature", sa.String(128), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_audit_checkpoints")),
        sa.UniqueConstraint("chain_id", "seq", name=op.f("uq_audit_checkpoints_chain_id_seq")),
    )
    op.create_index("ix_audit_checkpoints_chain_id_created_at", "audit_checkpoints", ["chain_id", "created_at"])

    op.create_table(
        "audit_exports",
        sa.Column("id", sa.String(36), nullable=False),
        sa.Column("created_at", TZ, nullable=False),
        sa.Column("completed_at", TZ, nullable=True),
        sa.Column("tenant_id", sa.String(36), nullable=True),
        sa.Column("requested_by", sa.String(200), nullable=False),
        sa.Column("requester_tenant_id", sa.String(36), nullable=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("manifest", sa.JSON(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_audit_exports")),
    )
    op.create_index("ix_audit_exports_tenant_id_created_at", "audit_exports", ["tenant_id", "created_at"])

    op.create_table(
        "audit_chain_anchors",
        sa.Column("chain_id", sa.String(64), nullable=False),
        sa.Column("first_seq", sa.BigInteger(), nullable=False),
        sa.Column("prev_hash", sa.String(64), nullable=False),
        sa.Column("purged_before", TZ, nullable=False),
        sa.Column("updated_at", TZ, nullable=False),
        sa.PrimaryKeyConstraint("chain_id", name=op.f("pk_audit_chain_anchors")),
    )


def downgrade() -> None:
    op.drop_table("audit_chain_anchors")
    op.drop_index("ix_audit_exports_tenant_id_created_at", table_name="audit_exports")
    op.drop_table("audit_exports")
    op.drop_index("ix_audit_checkpoints_chain_id_created_at", table_name="audit_checkpoints")
    op.drop_table("audit_checkpoints")
    op.drop_index("ix_audit_records_chain_id_created_at", table_name="audit_records")
    with op.batch_alter_table("tenants") as batch:
        batch.drop_column("legal_hold")
    with op.batch_alter_table("api_keys") as batch:
        batch.drop_column("replaced_by")
