"""``/healthz`` and ``/readyz`` are unauthenticated: while the audit store refuses the records, they say so in a word,
with counts, and carry no tenant data (tenant, key and request ids, prompt text) and no database error text; a
record the store refused is counted in ``/readyz`` and the metrics."""

from __future__ import annotations

import time
import uuid
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from gateway_support import new_tenant_with_key
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy.engine import make_url

from bench.chaos.proxy import BlackholeProxy
from gateway.app import create_app
from gateway.core.db import Database
from gateway.core.settings import Settings

pytestmark = pytest.mark.timeout(120)
HEALTH_KEYS = {"status", "reason", "engine", "audit", "audit_pending_bytes"}
REASONS = {None, "engine_unavailable", "engine_replica_down", "audit_store_unavailable"}


@pytest.mark.postgres
def test_health_bodies_say_the_store_failed_in_a_word_and_carry_no_tenant_data(database_url: str,
                                                                               tmp_path: Path) -> None:
    if not database_url.startswith("postgresql"):
        pytest.skip("needs Postgres (WARDEN_DATABASE_URL): the store is made unreachable behind a proxy")
    upstream = make_url(database_url)
    proxy = BlackholeProxy(upstream.port or 5432)
    proxy.start()
    settings = Settings(
        database_url=upstream.set(host="127.0.0.1", port=proxy.port).render_as_string(hide_password=False),
        data_dir=tmp_path / "data", server_secret="health-test-secret", redis_url=None, guardrails=False,
        metrics=False, audit_flush_interval_s=0.05, audit_checkpoint_interval_s=0, audit_maintenance_interval_s=0,
        key_cache_ttl_s=30.0, policy_cache_ttl_s=30.0, db_connect_timeout_s=2.0, db_pool_timeout_s=1.0)
    setup = Database(database_url)
    tenant, issued = new_tenant_with_key(setup, settings)
    setup.dispose()
    marker = f"prompt-marker-{uuid.uuid4().hex}"
    chat = {"model": "default", "messages": [{"role": "user", "content": marker}]}
    headers = {"authorization": f"Bearer {issued.api_key}"}
    request_ids: list[str] = []
    try:
        with TestClient(create_app(settings, start_engine=False)) as client:
            # No engine in this app: each call is authenticated (the key cached), refused 503 and audited.
            request_ids.append(client.post("/v1/chat/completions", json=chat, headers=headers)
                               .headers["x-request-id"])
            proxy.stop()  # the store is gone: connections refused
            deadline = time.monotonic() + 30
            while True:
                request_ids.append(client.post("/v1/chat/completions", json=chat, headers=headers)
                                   .headers["x-request-id"])
                health = client.get("/healthz")
                if health.json()["audit"] == "store_unavailable":
                    break
                assert time.monotonic() < deadline, health.json()
                time.sleep(0.2)
            ready = client.get("/readyz")
            body = health.json()
            assert set(body) == HEALTH_KEYS and body["reason"] in REASONS
            assert body["audit_pending_bytes"] > 0  # the records wait in the spool
            for response in (health, ready):
                text = response.text
                for private in (str(tenant.id), issued.key_id, marker, *request_ids, "psycopg", "INSERT",
                                "127.0.0.1", str(proxy.port)):
                    assert private not in text, f"{response.url.path} carries {private!r}: {text}"
    finally:
        proxy.stop()  # a no-op once stopped


def test_a_quarantined_record_is_counted_in_readyz_and_the_metrics(settings: Settings) -> None:
    """What the store refuses is set aside, and an operator sees it without reading logs: ``audit_quarantined`` in
    ``/readyz`` and ``warden:audit_quarantined_total`` in ``/metrics`` (the line itself: the admin API)."""
    app = create_app(settings.model_copy(update={"metrics": True, "guardrails": False}), start_engine=False)
    with TestClient(app) as client:
        audit = app.state.services.audit
        audit._spool.append(b"this is not an audit event\n")  # as a torn or foreign line would sit in the spool
        audit._wake.set()
        assert audit.flush(15)
        assert client.get("/readyz").json()["audit_quarantined"] == 1
        families = text_string_to_metric_families(client.get("/metrics").text)
        assert sum(s.value for f in families for s in f.samples if s.name == "warden:audit_quarantined_total") == 1
