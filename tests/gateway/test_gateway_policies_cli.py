"""Stored policies (versioned, one active per tenant) and the `warden` CLI against a real database."""

from __future__ import annotations

from pathlib import Path

import pytest
from gateway_support import unique_name
from pydantic import ValidationError
from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError

from gateway.audit.models import AuditRecord
from gateway.cli import main
from gateway.core.db import Database
from gateway.core.settings import Settings
from gateway.policystore.models import TenantPolicy
from gateway.policystore.service import load_active_policy, publish_policy
from gateway.tenants.service import create_tenant
from policies import AuditContent, Policy


def test_policy_versions_and_single_active(db: Database) -> None:
    with db.transaction() as session:
        tenant = create_tenant(unique_name(), session=session)
        assert load_active_policy(tenant.id, session=session).version is None  # default policy
        publish_policy(tenant.id, {"max_tokens_cap": 10}, session=session)
        publish_policy(tenant.id, {"max_tokens_cap": 20, "audit_content": "hashes"}, session=session)
    with db.session() as session:
        active = load_active_policy(tenant.id, session=session)
        assert active.version == 2 and active.policy.max_tokens_cap == 20
        assert active.policy.audit_content is AuditContent.HASHES
        versions = session.scalars(select(TenantPolicy.version).where(TenantPolicy.tenant_id == tenant.id))
        assert sorted(versions) == [1, 2]
    with pytest.raises(ValidationError), db.transaction() as session:
        publish_policy(tenant.id, {"max_token_cap": 5}, session=session)  # typo'd field: rejected
    with pytest.raises(IntegrityError), db.transaction() as session:  # the database enforces one active version
        session.execute(update(TenantPolicy).where(TenantPolicy.tenant_id == tenant.id).values(is_active=True))
    assert Policy.default().audit_content is AuditContent.REDACTED


@pytest.fixture
def cli_env(monkeypatch: pytest.MonkeyPatch, settings: Settings) -> Settings:
    monkeypatch.setenv("WARDEN_DATABASE_URL", settings.database_url)
    monkeypatch.setenv("WARDEN_DATA_DIR", str(settings.data_dir))
    monkeypatch.setenv("WARDEN_SERVER_SECRET", "test-server-secret")
    return settings


def test_cli_tenant_key_policy_and_audit_verify(cli_env: Settings, db: Database, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    name = unique_name()
    assert main(["db", "upgrade"]) == 0
    assert "latest" in capsys.readouterr().out
    assert main(["tenant", "create", name]) == 0
    tenant_id = capsys.readouterr().out.split()[0]
    assert main(["tenant", "create", name]) == 1  # duplicate

    assert main(["key", "issue", name]) == 0
    api_key = capsys.readouterr().out.strip()
    assert api_key.startswith("wdn_")
    key_id = api_key.split("_")[1]
    assert main(["key", "issue", "no-such-tenant"]) == 1
    assert main(["key", "revoke", key_id]) == 0
    assert main(["key", "revoke", key_id]) == 1

    policy_file = tmp_path / "policy.json"
    policy_file.write_text('{"max_tokens_cap": 8}')
    assert main(["policy", "set", tenant_id, str(policy_file)]) == 0
    policy_file.write_text('{"nonsense": 1}')
    assert main(["policy", "set", tenant_id, str(policy_file)]) == 1

    capsys.readouterr()
    assert main(["audit", "verify", "--tenant", name]) == 0
    assert "ok" in capsys.readouterr().out


def test_cli_audit_verify_names_the_broken_link(cli_env: Settings, db: Database,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    from test_gateway_audit import _append, _event

    with db.transaction() as session:
        tenant = create_tenant(unique_name(), session=session)
    _append(db, [_event(tenant.id, i) for i in range(3)])
    with db.transaction() as session:
        session.execute(update(AuditRecord).where(AuditRecord.chain_id == tenant.id, AuditRecord.seq == 2)
                        .values(http_status=500))
    assert main(["audit", "verify", "--tenant", tenant.id]) == 2
    out = capsys.readouterr().out
    assert f"chain {tenant.id}: broken at seq 2" in out and "TAMPERED" in out


def test_cli_reports_a_missing_schema(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("WARDEN_DATABASE_URL", f"sqlite:///{tmp_path / 'empty.db'}")
    assert main(["tenant", "list"]) == 1
    assert "warden db upgrade" in capsys.readouterr().err
