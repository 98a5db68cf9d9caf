"""initial schema: tenants, api_keys, policies, audit_records, audit_chain_heads

Revision ID: 0001
Revises:
Create Date: 2025-11-29
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TZ = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "tenants",
        sa.Column("id", sa.String(36), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("created_at", TZ, nullable=False),
        sa.Column("disabled_at", TZ, nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tenants")),
        sa.UniqueConstraint("name", name=op.f("uq_tenants_name")),
    )
    op.create_index("ix_tenants_created_at", "tenants", ["created_at"])

    op.create_table(
        "api_keys",
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("tenant_id", sa.String(36), nullable=False),
        sa.Column("secret_hash", sa.String(64), nullable=False),
        sa.Column("label", sa.String(200), nullable=True),
        sa.Column("created_at", TZ, nullable=False),
        sa.Column("expires_at", TZ, nullable=True),
        sa.Column("revoked_at", TZ, nullable=True),
        sa.Column("last_used_at", TZ, nullable=True),
        sa.ForeignKeyConstraint(["tenant_id"], ["tenants.id"], name=op.f("fk_api_keys_tenant_id_tenants"),
                                ondelete="RESTRICT"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_api_keys")),
    )
    op.create_index("ix_api_keys_tenant_id_created_at", "api_keys", ["tenant_id", "created_at"])

    op.create_table(
        "policies",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("tenant_id", sa.String(36), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("schema_version", sa.Integer(), nullable=False),
        sa.Column("document", sa.JSON(), nullable=False),
        sa.Column("is_active", sa.Boolean(), nullable=False),
        sa.Column("created_at", TZ, nullable=False),
        sa.ForeignKeyConstraint(["tenant_id"], ["tenants.id"], name=op.f("fk_policies_tenant_id_tenants"),
                                ondelete="RESTRICT"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_policies")),
        sa.UniqueConstraint("tenant_id", "version", name=op.f("uq_policies_tenant_id_version")),
    )
    op.create_index("ix_policies_tenant_id_created_at", "policies", ["tenant_id", "created_at"])
    op.create_index("uq_policies_one_active_per_tenant", "policies", ["tenant_id"], unique=True,
                    sqlite_where=sa.text("is_active"), postgresql_where=sa.text("is_active"))

    op.create_table(
        "audit_chain_heads",
        sa.Column("chain_id", sa.String(64), nullable=False),
        sa.Column("last_seq", sa.BigInteger(), nullable=False),
        sa.Column("last_hash", sa.String(64), nullable=False),
        sa.Column("updated_at", TZ, nullable=False),
        sa.PrimaryKeyConstraint("chain_id", name=op.f("pk_audit_chain_heads")),
    )

    op.create_table(
        "audit_records",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=True, nullable=False),
        sa.Column("event_id", sa.String(36), nullable=False),
        sa.Column("chain_id", sa.String(64), nullable=False),
        sa.Column("seq", sa.BigInteger(), nullable=False),
        sa.Column("prev_hash", sa.String(64), nullable=False),
        sa.Column("record_hash", sa.String(64), nullable=False),
        sa.Column("tenant_id", sa.String(36), nullable=True),
        sa.Column("created_at", TZ, nullable=False),
        sa.Column("recorded_at", TZ, nullable=False),
        sa.Column("request_id", sa.String(64), nullable=False),
        sa.Column("key_id", sa.String(32), nullable=True),
        sa.Column("endpoint", sa.String(64), nullable=False),
        sa.Column("model", sa.String(200), nullable=True),
        sa.Column("http_status", sa.Integer(), nullable=False),
        sa.Column("error_type", sa.String(64), nullable=True),
        sa.Column("finish_reason", sa.String(32), nullable=True),
        sa.Column("prompt_tokens", sa.Integer(), nullable=False),
        sa.Column("completion_tokens", sa.Integer(), nullable=False),
        sa.Column("cached_tokens", sa.Integer(), nullable=False),
        sa.Column("latency_ms", sa.Float(), nullable=False),
        sa.Column("overhead_ms", sa.Float(), nullable=False),
        sa.Column("policy_version", sa.Integer(), nullable=True),
        sa.Column("decisions", sa.JSON(), nullable=False),
        sa.Column("content", sa.JSON(), nullable=True),
        sa.ForeignKeyConstraint(["tenant_id"], ["tenants.id"], name=op.f("fk_audit_records_tenant_id_tenants"),
                                ondelete="RESTRICT"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_audit_records")),
        sa.UniqueConstraint("chain_id", "seq", name=op.f("uq_audit_records_chain_id_seq")),
        sa.UniqueConstraint("event_id", name=op.f("uq_audit_records_event_id")),
    )
    op.create_index("ix_audit_records_tenant_id_created_at", "audit_records", ["tenant_id", "created_at"])


def downgrade() -> None:
    op.drop_table("audit_records")
    op.drop_table("audit_chain_heads")
    op.drop_index("uq_policies_one_active_per_tenant", table_name="policies")
    op.drop_table("policies")
    op.drop_table("api_keys")
    op.drop_table("tenants")
