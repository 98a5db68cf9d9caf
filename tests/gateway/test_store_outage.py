"""A database outage is a short, bounded degradation: cached keys and policies bridge it for the stale window,
then every call is a 503 ``store_unavailable`` with Retry-After (public and admin API), never a 500 or a hang, and
the gateway recovers by itself when the database is back.

The outage tests run their own throwaway Postgres (initdb + pg_ctl on a free loopback port), never the shared
server; the blackholed-port tests need no Postgres at all.
"""

from __future__ import annotations

import contextlib
import gc
import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from gateway_support import new_tenant_with_key
from sqlalchemy import create_engine, select, text
from sqlalchemy.exc import OperationalError

from gateway.adminauth.roles import Role
from gateway.adminauth.setup import mint_local_token
from gateway.app import create_app
from gateway.audit.models import AuditRecord
from gateway.core.db import Database, StoreTimeouts
from gateway.core.errors import StoreUnavailable, install_error_handlers
from gateway.core.migrate import upgrade_database
from gateway.core.settings import Settings
from gateway.core.stale_cache import StaleTolerantCache
from gateway.core.store_health import StoreCircuit, is_connection_failure, is_store_unavailable
from gateway.keys.format import format_key, new_key_id, new_secret

PG_BIN_DIRS = sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True)
needs_postgres_binaries = pytest.mark.skipif(
    not any(os.path.exists(f"{d}/initdb") for d in PG_BIN_DIRS), reason="Postgres server binaries (initdb) missing")

CHAT = {"model": "default", "messages": [{"role": "user", "content": "hi"}]}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class ThrowawayPostgres:
    """A Postgres cluster in a temporary directory, owned by this test module: it may be stopped at will."""

    root: Path
    port: int
    bin_dir: Path

    @property
    def url(self) -> str:
        return self.url_of("warden")

    def url_of(self, database: str) -> str:
        return f"postgresql+psycopg://warden@127.0.0.1:{self.port}/{database}"

    def _run(self, *args: str) -> None:
        command = [str(self.bin_dir / args[0]), *args[1:]]
        if os.geteuid() == 0:  # the server refuses to run as root
            command = ["runuser", "-u", "postgres", "--", *command]
        subprocess.run(command, check=True, capture_output=True, timeout=60)

    def init(self) -> None:
        if os.geteuid() == 0:
            shutil.chown(self.root, "postgres")
        self._run("initdb", "-D", str(self.root / "data"), "-A", "trust", "-U", "warden", "--no-sync")

    def start(self) -> None:
        options = (f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off "
                   "-c synchronous_commit=off -c full_page_writes=off")
        self._run("pg_ctl", "-D", str(self.root / "data"), "-o", options, "-l", str(self.root / "log"), "-w",
                  "start")

    def stop(self) -> None:
        self._run("pg_ctl", "-D", str(self.root / "data"), "-m", "fast", "-w", "stop")


@pytest.fixture(scope="module")
def postgres() -> Iterator[ThrowawayPostgres]:
    bin_dir = next(Path(d) for d in PG_BIN_DIRS if os.path.exists(f"{d}/initdb"))
    server = ThrowawayPostgres(Path(tempfile.mkdtemp(prefix="warden-outage-pg-")), free_port(), bin_dir)
    try:
        server.init()
        server.start()
        admin = create_engine(server.url_of("postgres"), isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            conn.execute(text("CREATE DATABASE warden"))
        admin.dispose()
        upgrade_database(server.url)
        yield server
    finally:
        with contextlib.suppress(subprocess.CalledProcessError):  # already stopped
            server.stop()
        shutil.rmtree(server.root, ignore_errors=True)


def outage_settings(database_url: str, data_dir: Path, **overrides: Any) -> Settings:
    values: dict[str, Any] = dict(
        database_url=database_url, data_dir=data_dir, server_secret="outage-test-secret", redis_url=None,
        guardrails=False, metrics=False, audit_flush_interval_s=0.05, audit_checkpoint_interval_s=0,
        audit_maintenance_interval_s=0, key_cache_ttl_s=0.5, policy_cache_ttl_s=0.5, store_stale_window_s=6.0,
        store_retry_after_s=3, db_connect_timeout_s=2.0, db_pool_timeout_s=1.0)
    values.update(overrides)
    return Settings(**values)


def chat(client: TestClient, api_key: str) -> httpx.Response:
    return client.post("/v1/chat/completions", json=CHAT, headers={"authorization": f"Bearer {api_key}"})


def error_code(response: httpx.Response) -> str | None:
    return response.json()["error"]["code"]


def assert_store_unavailable(response: httpx.Response, retry_after: str = "3") -> None:
    assert response.status_code == 503, response.text
    error = response.json()["error"]
    assert set(error) == {"message", "type", "param", "code"}
    assert (error["type"], error["code"]) == ("service_unavailable_error", "store_unavailable")
    assert response.headers["retry-after"] == retry_after
    for leak in ("SELECT", "select", "psycopg", "127.0.0.1", "api_keys"):
        assert leak not in error["message"]


# -- the outage, end to end --------------------------------------------------------------------------------------
@needs_postgres_binaries
def test_a_postgres_outage_is_bridged_then_503_then_recovered(postgres: ThrowawayPostgres, tmp_path: Path) -> None:
    settings = outage_settings(postgres.url, tmp_path / "data")
    setup_db = Database(postgres.url)
    _, used = new_tenant_with_key(setup_db, settings)
    _, never_used = new_tenant_with_key(setup_db, settings)
    setup_db.dispose()
    admin_headers = {"authorization": f"Bearer {mint_local_token(settings, Role.PLATFORM_ADMIN)}"}
    app = create_app(settings, start_engine=False)
    refused_ids: list[str] = []
    with TestClient(app) as client:
        # No engine in this app: engine_unavailable means the key and policy were resolved and the call got past
        # the store to the engine.
        cached_at = time.monotonic()
        fresh = chat(client, used.api_key)
        assert error_code(fresh) == "engine_unavailable"
        assert client.get("/admin/v1/tenants", headers=admin_headers).status_code == 200

        postgres.stop()
        try:
            time.sleep(max(0.0, cached_at + settings.key_cache_ttl_s + 0.1 - time.monotonic()))  # past the TTL
            started = time.monotonic()
            response = chat(client, used.api_key)
            assert error_code(response) == "engine_unavailable", response.text  # served from the stale cache
            assert time.monotonic() - started < 2.0
            stale_id = response.headers["x-request-id"]
            assert app.state.services.db.circuit.is_open  # the store was asked, failed, and the cache answered

            response = chat(client, never_used.api_key)  # never cached: nothing to serve it from
            assert_store_unavailable(response)
            refused_ids.append(response.headers["x-request-id"])

            response = client.get("/admin/v1/tenants", headers=admin_headers)
            assert_store_unavailable(response)
            refused_ids.append(response.headers["x-request-id"])

            # Past TTL + window the cached key is no longer trusted.
            time.sleep(max(0.0, cached_at + settings.key_cache_ttl_s + settings.store_stale_window_s + 0.2
                           - time.monotonic()))
            started = time.monotonic()
            response = chat(client, used.api_key)
            assert_store_unavailable(response)
            assert time.monotonic() - started < 2.0
            refused_ids.append(response.headers["x-request-id"])
            response = client.get("/v1/models", headers={"authorization": f"Bearer {used.api_key}"})
            assert_store_unavailable(response)
            refused_ids.append(response.headers["x-request-id"])
            assert app.state.services.audit.pending_bytes > 0  # the refusals wait in the spool
        finally:
            postgres.start()

        deadline = time.monotonic() + 15.0
        while error_code(response := chat(client, used.api_key)) != "engine_unavailable":
            assert_store_unavailable(response)
            assert time.monotonic() < deadline, "the gateway did not recover after the database came back"
            time.sleep(0.2)
        assert client.get("/admin/v1/tenants", headers=admin_headers).status_code == 200
        assert error_code(chat(client, never_used.api_key)) == "engine_unavailable"
        assert app.state.services.audit.flush(15.0)

    check_db = Database(postgres.url)
    with check_db.session() as session:
        rows = session.execute(select(AuditRecord.request_id, AuditRecord.http_status, AuditRecord.error_type)
                               .where(AuditRecord.request_id.in_(refused_ids))).all()
        decisions = dict(session.execute(select(AuditRecord.request_id, AuditRecord.decisions).where(
            AuditRecord.request_id.in_([stale_id, fresh.headers["x-request-id"]]))).all())
    check_db.dispose()
    assert sorted(rows) == sorted((rid, 503, "service_unavailable_error") for rid in refused_ids)
    # The call answered from the stale key and policy says so in its record; the one before the outage does not.
    stale_marks = [d for d in decisions[stale_id] if d.get("decision") == "stale"]
    assert stale_marks == [{"stage": "auth", "decision": "stale", "reason": "store_unavailable"},
                           {"stage": "policy", "decision": "stale", "reason": "store_unavailable"}]
    assert not [d for d in decisions[fresh.headers["x-request-id"]] if d.get("decision") == "stale"]


@needs_postgres_binaries
def test_a_statement_past_its_budget_is_store_unavailable_without_opening_the_circuit(
        postgres: ThrowawayPostgres) -> None:
    circuit = StoreCircuit()
    db = Database(postgres.url, timeouts=StoreTimeouts(statement_s=0.3), circuit=circuit, retry_after_s=2)
    try:
        started = time.monotonic()
        with pytest.raises(StoreUnavailable) as caught, db.session() as session:
            session.execute(text("SELECT pg_sleep(5)"))
        assert time.monotonic() - started < 3.0
        assert caught.value.headers == {"retry-after": "2"}
        assert not circuit.is_open  # the server answered: it is slow for this statement, not gone
        with db.session() as session:
            assert session.execute(text("SHOW statement_timeout")).scalar_one() == "300ms"
            assert session.execute(text("SHOW lock_timeout")).scalar_one() == "0"  # 0: no limit asked for
    finally:
        db.dispose()


# -- an unreachable (blackholed) database ------------------------------------------------------------------------
@pytest.fixture
def blackhole_port() -> Iterator[int]:
    """A port that completes TCP handshakes into its backlog and then never says a word."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(64)
        yield sock.getsockname()[1]


def test_a_blackholed_database_fails_within_the_connect_timeout_then_fast(blackhole_port: int) -> None:
    circuit = StoreCircuit(probe_interval_s=30.0)
    db = Database(f"postgresql://warden@127.0.0.1:{blackhole_port}/warden", timeouts=StoreTimeouts(connect_s=2.0),
                  circuit=circuit)
    try:
        started = time.monotonic()
        with pytest.raises(StoreUnavailable), db.session() as session:
            session.execute(text("SELECT 1"))
        elapsed = time.monotonic() - started
        assert 1.5 < elapsed < 6.0, elapsed
        assert circuit.is_open
        started = time.monotonic()
        with pytest.raises(StoreUnavailable), db.session() as session:
            session.execute(text("SELECT 1"))
        assert time.monotonic() - started < 0.2  # the circuit answers without waiting on the store again
    finally:
        db.dispose()


@contextlib.contextmanager
def _collector_time() -> Iterator[list[float]]:
    """Wall seconds the garbage collector ran while inside (any thread), in a one-item list filled as it goes."""
    spent = [0.0]
    started: list[float] = []

    def on_collection(phase: str, _info: dict[str, int]) -> None:
        if phase == "start":
            started.append(time.monotonic())
        elif started:
            spent[0] += time.monotonic() - started.pop()

    gc.callbacks.append(on_collection)
    try:
        yield spent
    finally:
        gc.callbacks.remove(on_collection)


# Slow only in its shutdown: the audit writer spends its 10 s close budget trying to drain into the blackhole.
@pytest.mark.slow
def test_the_gateway_answers_503_not_a_hang_when_its_database_is_blackholed(blackhole_port: int,
                                                                           tmp_path: Path) -> None:
    # A long probe interval: no later call here may be the one probe that waits out the connect timeout again (on a
    # loaded machine the first call's aftermath can outlast the default 1 s interval).
    settings = outage_settings(f"postgresql://warden@127.0.0.1:{blackhole_port}/warden", tmp_path / "data",
                               store_probe_interval_s=60.0)
    api_key = format_key(new_key_id(), new_secret())
    admin_headers = {"authorization": f"Bearer {mint_local_token(settings, Role.PLATFORM_ADMIN)}"}
    with TestClient(create_app(settings, start_engine=False)) as client:
        started = time.monotonic()
        assert_store_unavailable(chat(client, api_key))
        assert time.monotonic() - started < 6.0
        with _collector_time() as collecting:
            started = time.monotonic()
            assert_store_unavailable(chat(client, api_key))
            assert_store_unavailable(client.get("/admin/v1/tenants", headers=admin_headers))
            elapsed = time.monotonic() - started
        # The open circuit answers at once: well under the pool timeout (1 s) and the connect timeout (2 s), less the
        # collector's passes, which in the full suite's big process can take most of a second on their own.
        assert elapsed - collecting[0] < 1.0, (elapsed, collecting[0])


# -- the parts, alone --------------------------------------------------------------------------------------------
def test_stale_entries_serve_only_within_ttl_plus_window() -> None:
    now = [0.0]
    cache: StaleTolerantCache[str, str | None] = StaleTolerantCache(ttl_s=5.0, stale_window_s=30.0, max_entries=10,
                                                                    clock=lambda: now[0])
    cache.put("k", "record")
    cache.put("unknown", None)
    now[0] = 4.9
    assert cache.fresh("k") == (True, "record")
    now[0] = 5.0
    assert cache.fresh("k") == (False, None)
    assert cache.stale("k") == (True, "record")
    assert cache.stale("unknown") == (True, None)  # a refusal stays a refusal during an outage
    now[0] = 35.0
    assert cache.stale("k") == (False, None)
    assert len(cache) == 1  # the expired entry is gone, not kept forever
    zero_ttl: StaleTolerantCache[str, int] = StaleTolerantCache(ttl_s=0.0, stale_window_s=30.0, max_entries=10,
                                                                clock=lambda: now[0])
    zero_ttl.put("k", 1)
    assert zero_ttl.fresh("k") == (False, None)
    assert zero_ttl.stale("k") == (True, 1)


def test_the_circuit_probes_once_per_interval_and_closes_when_the_store_answers() -> None:
    now = [100.0]
    circuit = StoreCircuit(probe_interval_s=1.0, clock=lambda: now[0])
    assert circuit.try_acquire()
    circuit.failed()
    assert circuit.is_open and not circuit.try_acquire()
    now[0] += 1.0
    assert circuit.try_acquire()  # one probe...
    assert not circuit.try_acquire()  # ...at a time
    circuit.failed()
    assert not circuit.try_acquire()
    now[0] += 1.0
    assert circuit.try_acquire()
    circuit.release()  # a probe that ran no statement leaves the circuit as it was
    assert circuit.try_acquire()
    circuit.succeeded()
    assert not circuit.is_open and circuit.try_acquire() and circuit.try_acquire()


def test_connection_parameters_keep_what_the_url_sets() -> None:
    timeouts = StoreTimeouts(connect_s=3.0, statement_s=5.0, lock_s=2.5, tcp_s=10.0)
    args = timeouts.postgres_connect_args({"options": "-c search_path=warden", "connect_timeout": "9"})
    assert "connect_timeout" not in args  # the URL's own value stands
    assert args["options"] == "-c search_path=warden -c statement_timeout=5000 -c lock_timeout=2500"
    assert (args["keepalives"], args["tcp_user_timeout"]) == (1, 10_000)
    assert StoreTimeouts(connect_s=1.0).postgres_connect_args({})["connect_timeout"] == 2  # libpq's least
    assert "options" not in StoreTimeouts().postgres_connect_args({})


class _FakeSqlState(Exception):
    def __init__(self, sqlstate: str | None) -> None:
        super().__init__("server said no")
        self.sqlstate = sqlstate


def test_which_database_errors_are_an_outage() -> None:
    def operational(orig: Exception) -> OperationalError:
        return OperationalError("SELECT 1", {}, orig)

    import psycopg

    refused_connection = operational(psycopg.OperationalError("connection refused"))
    assert is_store_unavailable(refused_connection) and is_connection_failure(refused_connection)
    statement_timeout = operational(psycopg.errors.QueryCanceled("canceling statement due to statement timeout"))
    assert is_store_unavailable(statement_timeout) and not is_connection_failure(statement_timeout)
    shutting_down = operational(psycopg.errors.AdminShutdown("terminating connection"))
    assert is_connection_failure(shutting_down)
    sqlite_locked = operational(_FakeSqlState(None))
    assert is_store_unavailable(sqlite_locked) and not is_connection_failure(sqlite_locked)
    assert not is_store_unavailable(ValueError("not a database error"))


def test_an_unconverted_outage_at_the_edge_is_a_503_without_sql_or_values() -> None:
    app = FastAPI()
    install_error_handlers(app, store_retry_after_s=7)

    @app.get("/boom")
    def boom() -> None:
        raise OperationalError("SELECT secret_hash FROM api_keys WHERE id = %(id)s", {"id": "tenant-secret"},
                               _FakeSqlState("08006"))

    response = TestClient(app, raise_server_exceptions=False).get("/boom")
    assert_store_unavailable(response, retry_after="7")
    assert "tenant-secret" not in response.text and "api_keys" not in response.text
