"""The Postgres layout of audit_records (migration 0003, gateway.audit.partitions): a table per chain, a table per
month, default partitions that catch what arrives early, and the migration's conversion of a populated table both
ways. Needs Postgres (WARDEN_DATABASE_URL); on SQLite only the migration's no-op round trip runs."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from datetime import timedelta

import pytest
from alembic import command
from gateway_support import fresh_postgres_database, unique_name
from sqlalchemy import func, select, text, update

from gateway.audit.event import AuditEvent
from gateway.audit.models import AuditRecord
from gateway.audit.partitions import (
    TOP_DEFAULT,
    chain_table,
    is_partitioned,
    maintain_partitions,
    month_partitions,
    month_start,
    next_month,
)
from gateway.audit.store import append_events
from gateway.audit.verify import verify_chains
from gateway.core.clock import utcnow
from gateway.core.db import Database
from gateway.core.migrate import alembic_config, upgrade_database
from gateway.tenants.models import Tenant
from gateway.tenants.service import create_tenant

POSTGRES = os.environ.get("WARDEN_DATABASE_URL", "").startswith(("postgresql", "postgres"))
needs_postgres = pytest.mark.skipif(not POSTGRES, reason="needs Postgres (WARDEN_DATABASE_URL)")


def _events(tenant_id: str | None, count: int) -> list[AuditEvent]:
    return [AuditEvent(created_at=utcnow(), request_id=f"req-{i}", endpoint="chat.completions", http_status=200,
                       latency_ms=1.0, overhead_ms=0.1, tenant_id=tenant_id) for i in range(count)]


def _rows_in(db: Database, table: str, chain_id: str) -> int:
    with db.session() as session:
        return int(session.scalar(text(f"SELECT count(*) FROM {table} WHERE chain_id = :c"), {"c": chain_id}))


@pytest.mark.postgres
@needs_postgres
def test_a_new_tenant_gets_its_partitions(db: Database) -> None:
    with db.transaction() as session:
        tenant_id = create_tenant(unique_name("parts"), session=session).id
    with db.session() as session:
        assert is_partitioned(session)
        this_month = month_start(utcnow())
        assert [m.start for m in month_partitions(tenant_id, session=session)] == [this_month, next_month(this_month)]
    with db.transaction() as session:
        append_events(_events(tenant_id, 3), session=session)
    assert _rows_in(db, chain_table(tenant_id), tenant_id) == 3
    assert _rows_in(db, TOP_DEFAULT, tenant_id) == 0


@pytest.mark.postgres
@needs_postgres
def test_records_without_a_partition_land_in_a_default_and_maintenance_moves_them(db: Database) -> None:
    # A tenant made behind the service's back has no partitions: its first writes must still succeed.
    with db.transaction() as session:
        tenant = Tenant(name=unique_name("bare"))
        session.add(tenant)
    with db.transaction() as session:
        append_events(_events(tenant.id, 5), session=session)
    assert _rows_in(db, TOP_DEFAULT, tenant.id) == 5
    created = maintain_partitions(db)
    assert chain_table(tenant.id) in created
    assert _rows_in(db, TOP_DEFAULT, tenant.id) == 0
    assert _rows_in(db, chain_table(tenant.id), tenant.id) == 5

    # A record stamped in a month that has no table yet lands in the chain's default, then gets its month.
    far = month_start(utcnow() + timedelta(days=120))
    with db.transaction() as session:
        session.execute(update(AuditRecord).where(AuditRecord.chain_id == tenant.id, AuditRecord.seq == 5)
                        .values(recorded_at=far))
    assert _rows_in(db, f"{chain_table(tenant.id)}_default", tenant.id) == 1
    maintain_partitions(db)
    assert _rows_in(db, f"{chain_table(tenant.id)}_default", tenant.id) == 0
    with db.session() as session:
        assert far in [m.start for m in month_partitions(tenant.id, session=session)]
        assert verify_chains(session=session, chain_id=tenant.id).ok
    assert maintain_partitions(db) == []  # nothing left to do


@pytest.mark.postgres
@needs_postgres
def test_a_replayed_batch_skips_the_events_already_stored(db: Database) -> None:
    """The lookup of already-stored event ids (one array parameter on Postgres) finds them in any batch size: a
    replay inserts only what is new and the chain stays whole."""
    with db.transaction() as session:
        tenant_id = create_tenant(unique_name("replay"), session=session).id
    first = _events(tenant_id, 300)  # more ids than fit a cached statement's text were they listed one by one
    with db.transaction() as session:
        assert append_events(first[:120], session=session) == 120
    with db.transaction() as session:
        assert append_events(first + _events(tenant_id, 5), session=session) == 185
    assert _rows_in(db, chain_table(tenant_id), tenant_id) == 305
    with db.session() as session:
        assert verify_chains(session=session, chain_id=tenant_id).ok


@pytest.mark.postgres
@needs_postgres
def test_per_partition_uniqueness_still_refuses_a_duplicate(db: Database) -> None:
    with db.transaction() as session:
        tenant_id = create_tenant(unique_name("dup"), session=session).id
    with db.transaction() as session:
        append_events(_events(tenant_id, 2), session=session)
    with db.session() as session:
        row = session.execute(text("SELECT * FROM audit_records WHERE chain_id = :c AND seq = 1"),
                              {"c": tenant_id}).mappings().one()
    columns = [c for c in row if c != "id"]
    insert = text(f"INSERT INTO audit_records ({', '.join(columns)}) "
                  f"VALUES ({', '.join(':' + c for c in columns)})")
    for change in ({"event_id": str(uuid.uuid4())}, {"seq": 99}):  # the same seq, then the same event id
        values = {**row, **change}
        values["decisions"] = '[]'
        values["content"] = None
        with pytest.raises(Exception, match="duplicate key"), db.transaction() as session:
            session.execute(insert, {c: values[c] for c in columns})


def _database(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    base = os.environ.get("WARDEN_DATABASE_URL", "")
    if not POSTGRES:
        yield f"sqlite:///{tmp_path_factory.mktemp('migration') / 'warden.db'}"
        return
    yield from fresh_postgres_database(base, "warden_mig")


@pytest.fixture
def fresh_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    yield from _database(tmp_path_factory)


def _relkind(db: Database) -> str:
    with db.session() as session:
        if db.engine.dialect.name != "postgresql":
            return "r"
        return str(session.scalar(text("SELECT relkind FROM pg_class WHERE oid = to_regclass('audit_records')")))


def _snapshot(db: Database) -> list[tuple[object, ...]]:
    with db.session() as session:
        return [tuple(r) for r in session.execute(
            select(AuditRecord.id, AuditRecord.chain_id, AuditRecord.seq, AuditRecord.record_hash,
                   AuditRecord.recorded_at).order_by(AuditRecord.id))]


def test_migration_converts_a_populated_table_and_back(fresh_url: str) -> None:
    upgrade_database(fresh_url, "0002")
    db = Database(fresh_url)
    try:
        with db.transaction() as session:
            tenant_id = create_tenant("migrated", session=session).id
        with db.transaction() as session:
            append_events(_events(tenant_id, 30) + _events(None, 7), session=session)
        with db.transaction() as session:  # a chain with history: three months back for its first ten records
            session.execute(update(AuditRecord).where(AuditRecord.chain_id == tenant_id, AuditRecord.seq <= 10)
                            .values(recorded_at=utcnow() - timedelta(days=90)))
        before = _snapshot(db)
    finally:
        db.dispose()

    upgrade_database(fresh_url)
    db = Database(fresh_url)
    try:
        assert _snapshot(db) == before
        with db.session() as session:
            assert verify_chains(session=session).ok
            if POSTGRES:
                assert _relkind(db) == "p"
                months = [m.start for m in month_partitions(tenant_id, session=session)]
                assert month_start(utcnow() - timedelta(days=90)) in months and month_start(utcnow()) in months
                assert session.scalar(text(f"SELECT count(*) FROM {TOP_DEFAULT}")) == 0
                assert session.scalar(text(f"SELECT count(*) FROM {chain_table('anonymous')}")) == 7
        with db.transaction() as session:  # the id sequence carries on
            append_events(_events(tenant_id, 1), session=session)
        with db.session() as session:
            assert session.scalar(select(func.max(AuditRecord.id))) == max(r[0] for r in before) + 1
        after_upgrade = _snapshot(db)
    finally:
        db.dispose()

    command.downgrade(alembic_config(fresh_url), "0002")
    db = Database(fresh_url)
    try:
        assert _relkind(db) == "r"
        assert _snapshot(db) == after_upgrade
        with db.session() as session:
            assert verify_chains(session=session).ok
        with db.transaction() as session:
            append_events(_events(tenant_id, 1), session=session)
    finally:
        db.dispose()
    upgrade_database(fresh_url)  # and up again
