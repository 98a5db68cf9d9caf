"""WARDEN_ENGINE_REPLICAS=2 through the whole gateway: the official `openai` client (over the in-process app) is
served by two engines, a tenant's chats under one system prompt stay on one replica and hit its prefix cache, the
metrics sum both replicas and count the live ones, and a dead replica leaves /healthz degraded (still 200) while
its tenants move.

A real app (TestClient), two real in-process engines serving a tiny random Llama with SmolLM2's tokenizer and chat
template, guardrails off.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import openai
import pytest
from fastapi.testclient import TestClient
from gateway_support import SUPPORT_SYSTEM_PROMPT as SYSTEM
from gateway_support import new_tenant_with_key, tiny_app_settings
from prometheus_client.parser import text_string_to_metric_families

from gateway.app import create_app
from gateway.core.db import Database
from gateway.core.engine_settings import EngineSettings
from gateway.core.settings import Settings
from gateway.replicas import ReplicaPool
from tests.engine.tiny_models import write_tiny_checkpoint

QUESTIONS = ["How do I reset my password?", "Where is my invoice?", "Can I change my plan?"]


@pytest.fixture(scope="module")
def app_settings(database_url: str, tmp_path_factory: pytest.TempPathFactory) -> Settings:
    model = write_tiny_checkpoint(tmp_path_factory.mktemp("tiny-replicas-model"))
    return tiny_app_settings(database_url, model, tmp_path_factory.mktemp("replicas-data"), "replicas-test-secret",
                             engine=EngineSettings(replicas=2, _env_file=None))


@pytest.fixture(scope="module")
def client(app_settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(app_settings)) as test_client:
        yield test_client


@pytest.fixture(scope="module")
def pool(client: TestClient) -> ReplicaPool:
    engine = client.app.state.services.engine  # type: ignore[attr-defined]
    assert isinstance(engine, ReplicaPool) and len(engine.replicas) == 2
    return engine


def openai_client(client: TestClient, api_key: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{client.base_url}/v1", api_key=api_key, http_client=client, max_retries=0)


def ask(oai: openai.OpenAI, model: str, question: str) -> openai.types.chat.ChatCompletion:
    return oai.chat.completions.create(model=model, max_tokens=4, temperature=0, messages=[
        {"role": "system", "content": SYSTEM}, {"role": "user", "content": question}])


def served_by(pool: ReplicaPool, call) -> int:  # type: ignore[no-untyped-def]
    before = list(pool.routed)
    call()
    (replica,) = [i for i, (a, b) in enumerate(zip(before, pool.routed, strict=True)) if a != b]
    return replica


def metric(client: TestClient, name: str) -> float:
    families = text_string_to_metric_families(client.get("/metrics").text)
    return sum(s.value for f in families for s in f.samples if s.name == name)


def test_a_tenant_stays_on_one_replica_and_hits_its_cache(client: TestClient, pool: ReplicaPool, db: Database,
                                                          app_settings: Settings) -> None:
    health = client.get("/healthz")
    assert health.status_code == 200
    assert health.json()["status"] == "ok"
    assert health.json()["engine_replicas"] == {"live": 2, "total": 2, "restarts": 0, "standby": False}
    assert metric(client, "warden:engine_replicas_alive") == 2
    _, key = new_tenant_with_key(db, app_settings)
    oai = openai_client(client, key.api_key)
    replicas: set[int] = set()
    answers: list[openai.types.chat.ChatCompletion] = []
    for question in QUESTIONS:
        replicas.add(served_by(pool, lambda q=question: answers.append(ask(oai, pool.model_name, q))))
    assert len(replicas) == 1
    system_tokens = len(pool.tokenizer.encode(pool.tokenizer.apply_chat_template(
        [{"role": "system", "content": SYSTEM}], add_generation_prompt=False)))
    for answer in answers[1:]:
        assert answer.usage is not None and answer.usage.prompt_tokens_details is not None
        assert answer.usage.prompt_tokens_details.cached_tokens >= system_tokens // 16 * 16
    # streamed too, on the same replica
    chunks: list[openai.types.chat.ChatCompletionChunk] = []
    assert served_by(pool, lambda: chunks.extend(oai.chat.completions.create(
        model=pool.model_name, max_tokens=4, temperature=0, stream=True, stream_options={"include_usage": True},
        messages=[{"role": "system", "content": SYSTEM}, {"role": "user", "content": "Hi"}]))) in replicas
    usage = chunks[-1].usage
    assert usage is not None and usage.completion_tokens == 4 and usage.prompt_tokens_details is not None
    assert usage.prompt_tokens_details.cached_tokens >= system_tokens // 16 * 16
    assert pool.in_flight == [0, 0]


def test_metrics_sum_the_replicas(client: TestClient, pool: ReplicaPool, db: Database,
                                  app_settings: Settings) -> None:
    seen: set[int] = set()
    for _ in range(20):  # tenants until both replicas have served one
        _, key = new_tenant_with_key(db, app_settings)
        seen.add(served_by(pool, lambda k=key.api_key: ask(openai_client(client, k), pool.model_name, "Hello")))
        if seen == {0, 1}:
            break
    assert seen == {0, 1}
    deadline = time.monotonic() + 30  # generous: on a loaded machine the idle snapshots come late
    while time.monotonic() < deadline:  # each engine sends its snapshot once idle
        per_replica = pool.replica_stats()
        total = sum(s.prompt_tokens for s in per_replica if s is not None)
        if all(s is not None and s.num_requests_running == 0 for s in per_replica) and \
                metric(client, "warden:prompt_tokens_total") == total:
            break
        time.sleep(0.1)
    assert all(s is not None and s.prompt_tokens > 0 for s in per_replica)
    assert metric(client, "warden:prompt_tokens_total") == total


def test_a_dead_replica_degrades_health_moves_its_tenants_and_comes_back(client: TestClient, pool: ReplicaPool,
                                                                        db: Database, app_settings: Settings) -> None:
    _, key = new_tenant_with_key(db, app_settings)
    oai = openai_client(client, key.api_key)
    home = served_by(pool, lambda: ask(oai, pool.model_name, QUESTIONS[0]))
    client.portal.call(pool.replicas[home].shutdown)  # type: ignore[union-attr]
    health = client.get("/healthz")  # the supervisor waits a second before restarting: this sees it dead
    assert health.status_code == 200
    assert health.json()["status"] == "degraded"
    assert health.json()["engine_replicas"] == {"live": 1, "total": 2, "restarts": 0, "standby": False}
    assert metric(client, "warden:engine_replicas_alive") == 1
    assert served_by(pool, lambda: ask(oai, pool.model_name, QUESTIONS[1])) == 1 - home
    _wait_for_health(client, "ok", restarts=1)
    assert metric(client, "warden:engine_replica_restarts_total") == 1
    assert ask(oai, pool.model_name, QUESTIONS[2])  # both replicas serve again
    for replica in list(pool.replicas):
        client.portal.call(replica.shutdown)  # type: ignore[union-attr]
    assert client.get("/healthz").status_code == 503
    assert metric(client, "warden:engine_replicas_alive") == 0
    with pytest.raises(openai.InternalServerError) as refused:
        ask(oai, pool.model_name, QUESTIONS[2])
    assert refused.value.status_code == 503
    _wait_for_health(client, "ok", restarts=3)  # and the pool brings both back


def _wait_for_health(client: TestClient, status: str, *, restarts: int, timeout_s: float = 60.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        body = client.get("/healthz").json()
        if body["status"] == status and body["engine_replicas"]["restarts"] == restarts:
            return
        time.sleep(0.2)
    raise AssertionError(f"/healthz did not reach {status!r} with {restarts} restarts: {body}")
