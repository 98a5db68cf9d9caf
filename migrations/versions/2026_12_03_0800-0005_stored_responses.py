"""stored_responses: the Responses API's stored responses, per tenant (store, previous_response_id, GET, DELETE)

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-03
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "stored_responses",
        sa.Column("id", sa.String(64), nullable=False),
        sa.Column("tenant_id", sa.String(36), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("request_id", sa.String(128), nullable=False),
        sa.Column("model", sa.String(200), nullable=False),
        sa.Column("previous_response_id", sa.String(128), nullable=True),
        sa.Column("content_mode", sa.String(16), nullable=False),
        sa.Column("conversation", sa.JSON(), nullable=True),
        sa.Column("body", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(["tenant_id"], ["tenants.id"], name=op.f("fk_stored_responses_tenant_id_tenants"),
                                ondelete="RESTRICT"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_stored_responses")),
    )
    op.create_index("ix_stored_responses_tenant_id_created_at", "stored_responses", ["tenant_id", "created_at"])


def downgrade() -> None:
    op.drop_index("ix_stored_responses_tenant_id_created_at", table_name="stored_responses")
    op.drop_table("stored_responses")
