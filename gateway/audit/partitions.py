"""Postgres partitions of ``audit_records``, so retention drops whole tables instead of deleting rows.

Layout (migration 0003): ``audit_records`` is LIST-partitioned by ``chain_id`` (one table per chain, plus
``audit_records_default`` for a chain whose table does not exist yet), and each chain's table is RANGE-partitioned
by month of ``recorded_at`` (plus a per-chain default). Why this way round and why ``recorded_at``:

- Tenants have different retention periods, so a month shared by every tenant could only ever be dropped at the
  longest retention. Per chain, a month is one table: dropping it is the purge.
- Export and verification read one chain in sequence order: LIST on ``chain_id`` prunes every other tenant's
  tables first, and each leaf carries the parent's (tenant_id, created_at) and (chain_id, created_at) indexes.
- ``recorded_at`` is set by the writer while it holds the chain's head lock, and the writer never lets it go
  backwards within a chain (``gateway.audit.store``), so each month holds a contiguous run of sequence numbers
  and dropping the oldest months leaves a contiguous chain. ``created_at`` (when the request arrived) is not
  monotone in seq: two workers, or a spool replayed after an outage, interleave it.

Unique constraints on a partitioned table must contain the partition keys, so the parent cannot say "(chain_id,
seq) is unique" or "event_id is unique". Every leaf (one chain-month) has both as unique indexes, created here;
across leaves seq ranges are disjoint because recorded_at is monotone in seq, and the writer assigns seq and
checks event ids only under the chain head's row lock (see ``gateway.audit.store``).

Nothing here is on the request path: a record whose partition is missing lands in a default partition, and the
next maintenance round (``ensure_chain_partitions``) moves it into its own table. All of it is a no-op on SQLite.
Table names in the SQL below are built here from hashes and months, never from input (hence the S608 waivers).
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import select, text
from sqlalchemy.orm import Session

from gateway.audit.models import AuditChainHead
from gateway.core.clock import as_utc, utcnow
from gateway.core.db import Database
from gateway.tenants.models import Tenant

log = logging.getLogger(__name__)

PARENT = "audit_records"
TOP_DEFAULT = "audit_records_default"
MAINTENANCE_LOCK = 0x5761_7264  # pg_advisory_xact_lock key: one maintenance round at a time across replicas
LOCK_TIMEOUT = "5s"  # DDL waits this long for a lock, then the round gives up and retries later


def month_start(value: datetime) -> datetime:
    value = as_utc(value)
    return datetime(value.year, value.month, 1, tzinfo=UTC)


def next_month(start: datetime) -> datetime:
    return datetime(start.year + start.month // 12, start.month % 12 + 1, 1, tzinfo=UTC)


def chain_table(chain_id: str) -> str:
    """Hashed, so any chain id makes a valid, fixed-length identifier."""
    return f"{PARENT}_c_{hashlib.sha256(chain_id.encode()).hexdigest()[:16]}"


def month_table(chain: str, start: datetime) -> str:
    return f"{chain}_y{start.year:04d}m{start.month:02d}"


def _literal(value: str) -> str:
    # DDL cannot take bind parameters. standard_conforming_strings is on (the default since Postgres 9.1).
    return "'" + value.replace("'", "''") + "'"


def _ts(value: datetime) -> str:
    return _literal(as_utc(value).isoformat())


@dataclass(frozen=True, slots=True)
class MonthPartition:
    name: str
    start: datetime

    @property
    def end(self) -> datetime:
        return next_month(self.start)


def is_partitioned(session: Session) -> bool:
    if session.get_bind().dialect.name != "postgresql":
        return False
    return session.scalar(text("SELECT relkind FROM pg_class WHERE oid = to_regclass(:t)"), {"t": PARENT}) == "p"


def _exists(name: str, *, session: Session) -> bool:
    return session.scalar(text("SELECT to_regclass(:t) IS NOT NULL"), {"t": name}) is True


def _leaf_indexes(name: str, *, session: Session) -> None:
    """The per-leaf uniqueness the partitioned parent cannot declare."""
    session.execute(text(f"CREATE UNIQUE INDEX IF NOT EXISTS {name}_chain_seq ON {name} (chain_id, seq)"))
    session.execute(text(f"CREATE UNIQUE INDEX IF NOT EXISTS {name}_event ON {name} (event_id)"))


def _lock_chain(chain_id: str, *, session: Session) -> None:
    """Writers lock the head row to append: holding it, no row of this chain can arrive in a default partition
    between our move and our ATTACH (which would then fail its check)."""
    session.execute(select(AuditChainHead.chain_id).where(AuditChainHead.chain_id == chain_id).with_for_update())


def _months_in(table: str, where: str, params: dict[str, object], *, session: Session) -> set[datetime]:
    query = f"SELECT DISTINCT date_trunc('month', recorded_at, 'UTC') FROM {table} WHERE {where}"  # noqa: S608
    rows = session.scalars(text(query), params)
    return {month_start(row) for row in rows}


def month_partitions(chain_id: str, *, session: Session) -> list[MonthPartition]:
    """The chain's month tables, oldest first (their names carry the month: only this module creates them)."""
    chain = chain_table(chain_id)
    names = session.scalars(text("SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid "
                                 "WHERE i.inhparent = to_regclass(:t)"), {"t": chain})
    months = []
    for name in names:
        suffix = name.removeprefix(chain)
        if len(suffix) == 9 and suffix.startswith("_y") and suffix[6] == "m":
            months.append(MonthPartition(name, datetime(int(suffix[2:6]), int(suffix[7:9]), 1, tzinfo=UTC)))
    return sorted(months, key=lambda m: m.start)


def _create_chain_table(chain_id: str, *, session: Session) -> None:
    """The chain's table, built detached, filled with the chain's rows from the top default partition, then
    attached (a CREATE ... PARTITION OF would fail while the default still holds rows of this chain)."""
    chain = chain_table(chain_id)
    session.execute(text(f"CREATE TABLE {chain} (LIKE {PARENT} INCLUDING DEFAULTS) PARTITION BY RANGE (recorded_at)"))
    session.execute(text(f"CREATE TABLE {chain}_default PARTITION OF {chain} DEFAULT"))
    _leaf_indexes(f"{chain}_default", session=session)
    where = "chain_id = :c"
    params: dict[str, object] = {"c": chain_id}
    for start in sorted(_months_in(TOP_DEFAULT, where, params, session=session)):
        _create_month(chain, start, session=session)
    session.execute(text(f"INSERT INTO {chain} SELECT * FROM {TOP_DEFAULT} WHERE {where}"), params)  # noqa: S608
    session.execute(text(f"DELETE FROM {TOP_DEFAULT} WHERE {where}"), params)  # noqa: S608 (few rows: since the last round)
    session.execute(text(f"ALTER TABLE {PARENT} ATTACH PARTITION {chain} FOR VALUES IN ({_literal(chain_id)})"))


def _create_month(chain: str, start: datetime, *, session: Session) -> str:
    """One month of one chain, built detached and filled from the chain's default partition if that caught any
    of its rows, then attached."""
    name, end = month_table(chain, start), next_month(start)
    session.execute(text(f"CREATE TABLE {name} (LIKE {PARENT} INCLUDING DEFAULTS)"))
    _leaf_indexes(name, session=session)
    if _exists(f"{chain}_default", session=session):
        where, params = "recorded_at >= :s AND recorded_at < :e", {"s": start, "e": end}
        session.execute(text(f"INSERT INTO {name} SELECT * FROM {chain}_default WHERE {where}"), params)  # noqa: S608
        session.execute(text(f"DELETE FROM {chain}_default WHERE {where}"), params)  # noqa: S608
    session.execute(text(f"ALTER TABLE {chain} ATTACH PARTITION {name} FOR VALUES FROM ({_ts(start)}) TO ({_ts(end)})"))
    return name


def ensure_chain_partitions(chain_id: str, *, session: Session, now: datetime | None = None) -> list[str]:
    """Create what the chain needs now: its table, this month's and next month's, and a month table for every
    month its default partitions caught rows of. Returns the tables created. Runs in the caller's transaction."""
    if not is_partitioned(session):
        return []
    session.execute(text(f"SET LOCAL lock_timeout = '{LOCK_TIMEOUT}'"))
    session.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": MAINTENANCE_LOCK})
    _lock_chain(chain_id, session=session)
    created: list[str] = []
    chain = chain_table(chain_id)
    if not _exists(chain, session=session):
        _create_chain_table(chain_id, session=session)
        created.append(chain)
    current = month_start(now or utcnow())
    wanted = {current, next_month(current)} | _months_in(f"{chain}_default", "true", {}, session=session)
    existing = {m.start for m in month_partitions(chain_id, session=session)}
    for start in sorted(wanted - existing):
        created.append(_create_month(chain, start, session=session))
    return created


def known_chains(*, session: Session) -> list[str]:
    """Every tenant (a chain from its creation on) and every chain that has records."""
    chains = set(session.scalars(select(Tenant.id))) | set(session.scalars(select(AuditChainHead.chain_id)))
    if is_partitioned(session):
        chains |= set(session.scalars(text(f"SELECT DISTINCT chain_id FROM {TOP_DEFAULT}")))  # noqa: S608
    return sorted(chains)


def maintain_partitions(db: Database, *, now: datetime | None = None) -> list[str]:
    """One round over every chain, each in its own transaction: a chain whose locks are busy is logged and left
    for the next round (its records wait in a default partition meanwhile, nothing is refused)."""
    with db.session() as session:
        if not is_partitioned(session):
            return []
        chains = known_chains(session=session)
    created: list[str] = []
    for chain_id in chains:
        try:
            with db.transaction() as session:
                created += ensure_chain_partitions(chain_id, session=session, now=now)
        except Exception:
            log.warning("audit partitions for chain %s not created this round", chain_id, exc_info=True)
    if created:
        log.info("created %d audit partition(s)", len(created))
    return created
