"""The fairness id for an inference gateway's endpoint picker (gateway.fairness): the ext_authz check answers the
authenticated tenant's id, replaces whatever the client sent, puts every unauthenticated caller in one flow, is the
same on every pod and reveals neither the tenant id nor its cache salt; inside the pod the header is never read, the
engine's fair scheduler keys on the authenticated tenant.

A real app (TestClient) on the session's database; the engine test runs a tiny random Llama in process."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from gateway_support import new_tenant_with_key, tiny_app_settings
from pydantic import SecretStr
from sqlalchemy import func, select

from engine.outputs import RequestOutput
from engine.request import EngineRequest
from gateway.app import create_app
from gateway.audit.models import AuditRecord
from gateway.core.db import Database
from gateway.core.secrets import load_server_secrets
from gateway.core.settings import Settings
from gateway.fairness import AUTHZ_PATH, FAIRNESS_ID_HEADER, UNAUTHENTICATED_FLOW
from gateway.keys.service import issue_key, revoke_key
from gateway.tenants.models import Tenant
from tests.engine.tiny_models import write_tiny_checkpoint


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings, start_engine=False)) as test_client:
        yield test_client


def _flow(client: TestClient, headers: dict[str, str], *, method: str = "POST",
          path: str = "/v1/chat/completions") -> str:
    response = client.request(method, AUTHZ_PATH + path, headers=headers)
    assert response.status_code == 200, response.text  # it sets a header; the pod decides the request's fate
    assert response.headers["cache-control"] == "no-store"
    return response.headers[FAIRNESS_ID_HEADER]


def _audit_count(client: TestClient, db: Database) -> int:
    assert client.app.state.services.audit.flush(10)  # type: ignore[attr-defined]
    with db.session() as session:
        return session.scalar(select(func.count()).select_from(AuditRecord)) or 0


def test_a_valid_key_gets_its_tenants_fairness_id_whatever_the_client_sent(client: TestClient, db: Database,
                                                                           settings: Settings) -> None:
    tenant, issued = new_tenant_with_key(db, settings)
    other, other_key = new_tenant_with_key(db, settings)
    secrets = load_server_secrets(settings)
    mine, theirs = secrets.fairness_id(tenant.id), secrets.fairness_id(other.id)
    assert mine != theirs and re.fullmatch(r"[0-9a-f]{32}", mine)
    forged = {FAIRNESS_ID_HEADER: theirs, "authorization": f"Bearer {issued.api_key}"}
    assert _flow(client, forged) == mine
    assert _flow(client, {"x-api-key": issued.api_key}, path="/v1/messages") == mine  # Anthropic's header
    assert _flow(client, {"x-api-key": other_key.api_key, "authorization": f"Bearer {issued.api_key}"}) == theirs
    for method in ("GET", "HEAD", "PUT", "DELETE"):  # ext_authz forwards the original method and path
        assert _flow(client, {"authorization": f"Bearer {issued.api_key}"}, method=method, path="/v1/models") == mine
    assert _flow(client, {"authorization": f"Bearer {issued.api_key}"}, path="") == mine
    # A second key of the same tenant shares the flow.
    with db.transaction() as session:
        second = issue_key(session.get(Tenant, tenant.id), pepper=secrets.key_pepper, session=session)
    assert _flow(client, {"authorization": f"Bearer {second.api_key}"}) == mine


def test_anything_but_a_valid_key_lands_in_the_one_unauthenticated_flow(client: TestClient, db: Database,
                                                                        settings: Settings) -> None:
    tenant, issued = new_tenant_with_key(db, settings)
    victim = load_server_secrets(settings).fairness_id(tenant.id)
    wrong_secret = re.sub(r"[^_]+$", "x" * 40, issued.api_key)
    with db.transaction() as session:
        _, revoked = new_tenant_with_key(db, settings)
        assert revoke_key(revoked.key_id, session=session)
    before = _audit_count(client, db)
    for headers in ({}, {"authorization": "Bearer nope"}, {"authorization": f"Basic {issued.api_key}"},
                    {"authorization": f"Bearer {wrong_secret}"},  # the victim's key id, a guessed secret
                    {"authorization": f"Bearer {revoked.api_key}"}):
        assert _flow(client, {**headers, FAIRNESS_ID_HEADER: victim}) == UNAUTHENTICATED_FLOW, headers
    # The check is not an API call: no audit record (the request it admits is audited by the pod that serves it).
    assert _audit_count(client, db) == before


def test_every_pod_computes_the_same_id_and_it_reveals_neither_tenant_nor_salt(settings: Settings,
                                                                               tmp_path: Path) -> None:
    one = load_server_secrets(settings)
    other_pod = load_server_secrets(settings.model_copy(update={"data_dir": tmp_path / "other-pod"}))
    another_release = load_server_secrets(settings.model_copy(update={"server_secret": SecretStr("another-secret")}))
    tenant_id = "ten_0123456789abcdef"
    assert one.fairness_id(tenant_id) == other_pod.fairness_id(tenant_id)
    assert one.fairness_id(tenant_id) != another_release.fairness_id(tenant_id)
    assert tenant_id not in one.fairness_id(tenant_id)
    assert one.fairness_id(tenant_id) not in one.cache_salt(tenant_id)


@pytest.fixture(scope="module")
def engine_client(database_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    model = write_tiny_checkpoint(tmp_path_factory.mktemp("fairness-model"))
    settings = tiny_app_settings(database_url, model, tmp_path_factory.mktemp("fairness-data"), "fairness-secret")
    with TestClient(create_app(settings)) as test_client:
        yield test_client


def test_the_pod_schedules_by_the_authenticated_tenant_never_the_header(engine_client: TestClient,
                                                                        db: Database) -> None:
    services = engine_client.app.state.services  # type: ignore[attr-defined]
    settings = services.settings
    tenant, issued = new_tenant_with_key(db, settings)
    other, _ = new_tenant_with_key(db, settings)
    submitted: list[EngineRequest] = []
    engine = services.engine
    generate = engine.generate

    async def recording_generate(request: EngineRequest) -> AsyncIterator[RequestOutput]:
        submitted.append(request)  # what reaches the real engine, which still serves it
        async for output in generate(request):
            yield output

    engine.generate = recording_generate
    try:
        body = {"model": engine.model_name, "messages": [{"role": "user", "content": "hi"}], "max_tokens": 2}
        response = engine_client.post("/v1/chat/completions", json=body, headers={
            "authorization": f"Bearer {issued.api_key}", FAIRNESS_ID_HEADER: other.id,
            "x-gateway-inference-objective": "critical"})
    finally:
        del engine.generate
    assert response.status_code == 200, response.text
    (request,) = submitted
    assert request.tenant == tenant.id
    assert request.cache_salt == services.secrets.cache_salt(tenant.id)
