"""audit_records partitioned on Postgres: LIST by chain, then RANGE by month of recorded_at (SQLite: unchanged)

Retention then drops one chain's expired months as whole tables (gateway.audit.retention); the layout and why it
is chain-first and keyed on recorded_at are explained in gateway/audit/partitions.py. This migration converts a
populated table: it builds the partitioned table beside it, with a table for every chain and every month that
has rows, copies the rows in one INSERT ... SELECT, and drops the old table. Downgrade copies them back into a
plain table. The partition naming below is frozen here on purpose; it matches gateway.audit.partitions.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30
"""
import hashlib
from collections.abc import Sequence
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TZ = sa.DateTime(timezone=True)
COLUMNS = ("id", "event_id", "chain_id", "seq", "prev_hash", "record_hash", "tenant_id", "created_at", "recorded_at",
           "request_id", "key_id", "endpoint", "model", "http_status", "error_type", "finish_reason", "prompt_tokens",
           "completion_tokens", "cached_tokens", "latency_ms", "overhead_ms", "policy_version", "decisions", "content")
COLUMN_LIST = ", ".join(COLUMNS)

CREATE_PARENT = """
CREATE TABLE audit_records (
    id BIGINT NOT NULL DEFAULT nextval('audit_records_id_seq'),
    event_id VARCHAR(36) NOT NULL,
    chain_id VARCHAR(64) NOT NULL,
    seq BIGINT NOT NULL,
    prev_hash VARCHAR(64) NOT NULL,
    record_hash VARCHAR(64) NOT NULL,
    tenant_id VARCHAR(36) CONSTRAINT fk_audit_records_tenant_id_tenants REFERENCES tenants (id) ON DELETE RESTRICT,
    created_at TIMESTAMP WITH TIME ZONE NOT NULL,
    recorded_at TIMESTAMP WITH TIME ZONE NOT NULL,
    request_id VARCHAR(64) NOT NULL,
    key_id VARCHAR(32),
    endpoint VARCHAR(64) NOT NULL,
    model VARCHAR(200),
    http_status INTEGER NOT NULL,
    error_type VARCHAR(64),
    finish_reason VARCHAR(32),
    prompt_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    cached_tokens INTEGER NOT NULL,
    latency_ms FLOAT NOT NULL,
    overhead_ms FLOAT NOT NULL,
    policy_version INTEGER,
    decisions JSON NOT NULL,
    content JSON
) PARTITION BY LIST (chain_id)
"""


def _month(value: datetime) -> datetime:
    value = value.astimezone(UTC)
    return datetime(value.year, value.month, 1, tzinfo=UTC)


def _next(start: datetime) -> datetime:
    return datetime(start.year + start.month // 12, start.month % 12 + 1, 1, tzinfo=UTC)


def _quote(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def _leaf(name: str, partition_of: str, bound: str) -> None:
    op.execute(f"CREATE TABLE {name} PARTITION OF {partition_of} {bound}")
    # Unique per leaf: the parent cannot declare (chain_id, seq) or event_id unique without the partition keys.
    op.execute(f"CREATE UNIQUE INDEX {name}_chain_seq ON {name} (chain_id, seq)")
    op.execute(f"CREATE UNIQUE INDEX {name}_event ON {name} (event_id)")


def _upgrade_postgres() -> None:
    bind = op.get_bind()
    op.execute("ALTER TABLE audit_records RENAME TO audit_records_0002")
    op.execute("ALTER TABLE audit_records_0002 DROP CONSTRAINT fk_audit_records_tenant_id_tenants")
    op.execute("ALTER SEQUENCE audit_records_id_seq OWNED BY NONE")  # survives the old table
    op.drop_index("ix_audit_records_tenant_id_created_at", table_name="audit_records_0002")
    op.drop_index("ix_audit_records_chain_id_created_at", table_name="audit_records_0002")
    for constraint in ("uq_audit_records_chain_id_seq", "uq_audit_records_event_id", "pk_audit_records"):
        op.execute(f"ALTER TABLE audit_records_0002 DROP CONSTRAINT {constraint}")

    op.execute(CREATE_PARENT)
    op.execute("ALTER SEQUENCE audit_records_id_seq OWNED BY audit_records.id")
    op.create_index("ix_audit_records_tenant_id_created_at", "audit_records", ["tenant_id", "created_at"])
    op.create_index("ix_audit_records_chain_id_created_at", "audit_records", ["chain_id", "created_at"])
    _leaf("audit_records_default", "audit_records", "DEFAULT")

    now_month = _month(datetime.now(UTC))
    chains = {row[0] for row in bind.execute(sa.text(
        "SELECT id FROM tenants UNION SELECT chain_id FROM audit_chain_heads "
        "UNION SELECT DISTINCT chain_id FROM audit_records_0002"))}
    months_with_rows: dict[str, set[datetime]] = {}
    for chain_id, month in bind.execute(sa.text(
            "SELECT DISTINCT chain_id, date_trunc('month', recorded_at, 'UTC') FROM audit_records_0002")):
        months_with_rows.setdefault(chain_id, set()).add(_month(month))
    for chain_id in sorted(chains):
        chain = f"audit_records_c_{hashlib.sha256(chain_id.encode()).hexdigest()[:16]}"
        op.execute(f"CREATE TABLE {chain} PARTITION OF audit_records FOR VALUES IN ({_quote(chain_id)}) "
                   "PARTITION BY RANGE (recorded_at)")
        _leaf(f"{chain}_default", chain, "DEFAULT")
        for start in sorted(months_with_rows.get(chain_id, set()) | {now_month, _next(now_month)}):
            _leaf(f"{chain}_y{start.year:04d}m{start.month:02d}", chain,
                  f"FOR VALUES FROM ({_quote(start.isoformat())}) TO ({_quote(_next(start).isoformat())})")

    op.execute(f"INSERT INTO audit_records ({COLUMN_LIST}) SELECT {COLUMN_LIST} FROM audit_records_0002")  # noqa: S608
    op.execute("DROP TABLE audit_records_0002")


def _downgrade_postgres() -> None:
    op.execute("ALTER TABLE audit_records RENAME TO audit_records_0003")
    op.execute("ALTER SEQUENCE audit_records_id_seq OWNED BY NONE")
    op.drop_index("ix_audit_records_tenant_id_created_at", table_name="audit_records_0003")
    op.drop_index("ix_audit_records_chain_id_created_at", table_name="audit_records_0003")
    op.execute("ALTER TABLE audit_records_0003 DROP CONSTRAINT fk_audit_records_tenant_id_tenants")
    op.create_table(
        "audit_records",
        sa.Column("id", sa.BigInteger(), server_default=sa.text("nextval('audit_records_id_seq')"), nullable=False),
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
        sa.ForeignKeyConstraint(["tenant_id"], ["tenants.id"], name="fk_audit_records_tenant_id_tenants",
                                ondelete="RESTRICT"),
        sa.PrimaryKeyConstraint("id", name="pk_audit_records"),
        sa.UniqueConstraint("chain_id", "seq", name="uq_audit_records_chain_id_seq"),
        sa.UniqueConstraint("event_id", name="uq_audit_records_event_id"),
    )
    op.execute("ALTER SEQUENCE audit_records_id_seq OWNED BY audit_records.id")
    op.execute(f"INSERT INTO audit_records ({COLUMN_LIST}) SELECT {COLUMN_LIST} FROM audit_records_0003 ORDER BY id")  # noqa: S608
    op.execute("DROP TABLE audit_records_0003")  # and every partition with it
    op.create_index("ix_audit_records_tenant_id_created_at", "audit_records", ["tenant_id", "created_at"])
    op.create_index("ix_audit_records_chain_id_created_at", "audit_records", ["chain_id", "created_at"])


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        _upgrade_postgres()
    # SQLite (the embedded default) keeps a plain table: retention deletes its few rows (gateway.audit.retention).


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        _downgrade_postgres()
