"""Several Warden "pods" on loopback: three real ``warden serve --no-migrate`` processes, each with its own engine (a
tiny random Llama, in the pod's process, no standby engine: about 1.2 GB of memory per pod), one Postgres database
and one Redis, behind a small round-robin router that, like an endpoint picker, only sends to pods whose /readyz
says ready.

What the Kubernetes chart relies on, proven with real processes:

- the pods never migrate: they start on an empty database and stay unready (``schema``) until ``warden db upgrade``
  (the chart's hook Job) has run; four upgrades started at once (a Job, its retries) apply the migrations once,
  under the advisory lock (tests/deploy/test_migration_lock.py tests the lock itself);
- a tenant's requests-per-minute limit is exact across the pods (Redis): calls sent to all three at once admit the
  limit, not once per pod, and every call, admitted or refused, is one audit record;
- a key revoked is refused by every pod within the key cache's TTL;
- every pod answers an inference gateway's fairness-id check with the tenant's one flow, never the client's claim;
- a tenant's audit chain stays one valid chain with the three pods writing to it at once, verified in the database
  and through a signed export;
- a pod SIGKILLed mid-load leaves the others serving; restarted on its data directory (a container restart keeps
  the pod's emptyDir) it replays its spool, so no record is lost: every call it answered, and the stream it was cut
  in (its provisional record), are in the chain, and the chains verify;
- on SIGTERM a pod's readiness flips before it stops accepting connections (the Gateway API Inference Extension's
  endpoint picker and the Service endpoints stop routing to it while it still answers).

Needs Postgres and Redis (WARDEN_DATABASE_URL, WARDEN_REDIS_URL).
"""

from __future__ import annotations

import functools
import itertools
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import httpx
import psutil
import pytest
from alembic.script import ScriptDirectory
from gateway_support import fresh_postgres_database, new_tenant_with_key
from sqlalchemy import func, select, text

from gateway.adminauth.roles import Role
from gateway.adminauth.setup import mint_local_token
from gateway.audit.models import AuditRecord
from gateway.audit.verify import verify_chains
from gateway.background_server import free_port
from gateway.core.db import Database
from gateway.core.migrate import alembic_config
from gateway.core.settings import Settings
from gateway.export.signing import load_or_create_signer, load_public_key
from gateway.export.verify import verify_export
from gateway.fairness import AUTHZ_PATH, FAIRNESS_ID_HEADER, UNAUTHENTICATED_FLOW
from gateway.keys.service import revoke_key
from gateway.policystore.service import publish_policy
from tests.engine.tiny_models import write_tiny_checkpoint

BASE_URL = os.environ.get("WARDEN_DATABASE_URL", "")
REDIS_URL = os.environ.get("WARDEN_REDIS_URL", "")
pytestmark = [
    pytest.mark.slow, pytest.mark.postgres, pytest.mark.redis, pytest.mark.timeout(900),
    pytest.mark.skipif(not BASE_URL.startswith(("postgresql", "postgres")) or not REDIS_URL,
                       reason="needs Postgres and Redis"),
]
SECRET = "multi-pod-shared-server-secret"
UNREADY_S = 3.0
GRACE_S = 5.0
RPM = 4
POD_NAMES = ("pod-a", "pod-b", "pod-c")
CONCURRENT_UPGRADES = 4
CHAIN_CALLS = 12  # per tenant, spread over the three pods
POD_MEMORY_BOUND_MB = 2048  # one tiny engine and its gateway (~1.2 GB); a second engine (a standby) would exceed it
KEY_CACHE_TTL_S = 1.0
ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Pod:
    name: str
    process: subprocess.Popen[bytes]
    base_url: str
    data_dir: Path
    port: int

    def readyz(self) -> tuple[int, str] | None:
        try:
            response = httpx.get(f"{self.base_url}/readyz", timeout=2)
        except httpx.HTTPError:
            return None
        return response.status_code, response.json().get("reason", "")

    def settings(self, database_url: str) -> Settings:
        return Settings(database_url=database_url, data_dir=self.data_dir, server_secret=SECRET, _env_file=None)


@dataclass
class Cluster:
    pods: list[Pod]
    database_url: str
    db: Database
    start: Callable[[str], Pod]  # (re)starts the named pod on its data directory

    def pod(self, name: str) -> Pod:
        (pod,) = [p for p in self.pods if p.name == name]
        return pod

    def restart(self, name: str) -> Pod:
        """The container restarting in the same pod: a new process, the same data directory."""
        index = self.pods.index(self.pod(name))
        self.pods[index] = pod = self.start(name)
        _until(lambda: pod.readyz() == (200, "ready") or pod.process.poll() is not None, 240, f"{name} to restart")
        assert pod.process.poll() is None, f"{name} exited after its restart"
        return pod


class Router:
    """Round robin over the pods that say ready, asked per request (what an endpoint picker or a Service's
    endpoints do, much simplified)."""

    def __init__(self, pods: list[Pod]) -> None:
        self.pods = pods
        self._turn = itertools.count()
        self._lock = threading.Lock()

    def pick(self) -> Pod:
        ready = [pod for pod in self.pods if pod.readyz() == (200, "ready")]
        assert ready, "no pod is ready"
        with self._lock:
            return ready[next(self._turn) % len(ready)]


def _until(condition: Callable[[], bool], timeout_s: float, what: str) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


def _chat(pod: Pod, api_key: str, *, request_id: str, max_tokens: int = 2) -> httpx.Response:
    body = {"model": "tiny", "messages": [{"role": "user", "content": "hello"}], "max_tokens": max_tokens,
            "temperature": 0, "ignore_eos": True}
    return httpx.post(f"{pod.base_url}/v1/chat/completions", json=body, timeout=120,
                      headers={"authorization": f"Bearer {api_key}", "x-request-id": request_id})


def _accepts_connections(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(1.0)
        return probe.connect_ex(("127.0.0.1", port)) == 0


def _audit_rows(db: Database, tenant_id: str) -> list[AuditRecord]:
    with db.session() as session:
        return list(session.scalars(select(AuditRecord).where(AuditRecord.chain_id == tenant_id)
                                    .order_by(AuditRecord.seq)))


def _wait_for_audit_rows(db: Database, tenant_id: str, count: int) -> list[AuditRecord]:
    def stored() -> int:
        with db.session() as session:
            return session.scalar(select(func.count()).select_from(AuditRecord)
                                  .where(AuditRecord.chain_id == tenant_id)) or 0
    _until(lambda: stored() >= count, 30, f"{count} audit rows")
    return _audit_rows(db, tenant_id)


def _start_pod(name: str, root: Path, model: Path, database_url: str, export_key: Path) -> Pod:
    data_dir = root / name  # each pod's emptyDir
    env = {k: v for k, v in os.environ.items() if not k.startswith("WARDEN_")}
    env.update({
        "WARDEN_ENGINE_PROFILE": "exact",  # float32 eager: the fast default compiles for minutes
        "WARDEN_DATABASE_URL": database_url, "WARDEN_REDIS_URL": REDIS_URL, "WARDEN_SERVER_SECRET": SECRET,
        "WARDEN_DATA_DIR": str(data_dir), "WARDEN_EXPORT_SIGNING_KEY": str(export_key),
        "WARDEN_MODEL": str(model), "WARDEN_ENGINE_SERVED_MODEL_NAME": "tiny", "WARDEN_ENGINE_IN_PROCESS": "true",
        "WARDEN_ENGINE_STANDBY": "false",  # one engine per pod: three pods hold three models, not six
        "WARDEN_ENGINE_NUM_THREADS": "1", "WARDEN_ENGINE_KV_CACHE_MEMORY_MB": "16", "WARDEN_GUARDRAILS": "false",
        "WARDEN_KEY_CACHE_TTL_S": str(KEY_CACHE_TTL_S), "WARDEN_POLICY_CACHE_TTL_S": "0",
        "WARDEN_AUDIT_FLUSH_INTERVAL_S": "0.05", "WARDEN_AUDIT_CHECKPOINT_INTERVAL_S": "0",
        "WARDEN_AUDIT_MAINTENANCE_INTERVAL_S": "0",
        "WARDEN_SHUTDOWN_UNREADY_S": str(UNREADY_S), "WARDEN_SHUTDOWN_GRACE_S": str(GRACE_S),
        "WARDEN_LOG_FORMAT": "json", "WARDEN_LOG_LEVEL": "WARNING",
    })
    port = free_port()
    log = (root / f"{name}.log").open("ab")  # a restarted pod appends to its predecessor's log
    process = subprocess.Popen([sys.executable, "-m", "gateway.cli", "serve", "--no-migrate", "--http", "--port",
                                str(port), "--log-level", "warning"], env=env, cwd=ROOT, stdout=log,
                               stderr=subprocess.STDOUT, start_new_session=True)
    log.close()
    return Pod(name, process, f"http://127.0.0.1:{port}", data_dir, port)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    root = tmp_path_factory.mktemp("pods")
    model = write_tiny_checkpoint(root / "model")
    export_key = root / "export-signing-key.pem"  # the chart's shared Secret
    load_or_create_signer(export_key)
    for database_url in fresh_postgres_database(BASE_URL, "warden_pods"):
        pods = [_start_pod(name, root, model, database_url, export_key) for name in POD_NAMES]
        db = Database(database_url)
        try:
            # An empty database: the pods come up but stay out of rotation; they never migrate it themselves.
            for pod in pods:
                _until(lambda pod=pod: pod.readyz() is not None or pod.process.poll() is not None, 240,
                       f"{pod.name} to answer")
                assert pod.process.poll() is None, (root / f"{pod.name}.log").read_text()[-3000:]
                assert pod.readyz() == (503, "schema")
            _upgrade_concurrently(database_url)  # the chart's hook Job, retried while a run still holds the lock
            for pod in pods:
                _until(lambda pod=pod: pod.readyz() == (200, "ready"), 30, f"{pod.name} to turn ready")
            resident = {pod.name: round(_resident_mb(pod.process.pid)) for pod in pods}
            assert max(resident.values()) < POD_MEMORY_BOUND_MB, resident
            yield Cluster(pods, database_url, db,
                          functools.partial(_start_pod, root=root, model=model, database_url=database_url,
                                            export_key=export_key))
        finally:
            for pod in pods:
                if pod.process.poll() is None:
                    os.killpg(pod.process.pid, signal.SIGKILL)
                pod.process.wait(30)
            db.dispose()


def _resident_mb(pid: int) -> float:
    """The resident memory of a pod: its process and every process it started."""
    process = psutil.Process(pid)
    return sum(p.memory_info().rss for p in [process, *process.children(recursive=True)]) / 2**20


def _upgrade_concurrently(database_url: str) -> None:
    """``warden db upgrade`` CONCURRENT_UPGRADES times at once: each exits 0 and the schema is at head once (a run
    that applied a migration another had applied would fail on the tables it creates)."""
    env = {**os.environ, "WARDEN_DATABASE_URL": database_url, "WARDEN_LOG_FORMAT": "none"}
    runs = [subprocess.Popen([sys.executable, "-m", "gateway.cli", "db", "upgrade", "--wait-s", "10"], env=env,
                             cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for _ in range(CONCURRENT_UPGRADES)]
    errors = [run.communicate(timeout=300)[1] for run in runs]
    assert [run.returncode for run in runs] == [0] * CONCURRENT_UPGRADES, [e[-2000:] for e in errors]
    head = ScriptDirectory.from_config(alembic_config(database_url)).get_current_head()
    db = Database(database_url)
    try:
        with db.session() as session:
            assert session.execute(text("SELECT version_num FROM alembic_version")).scalars().all() == [head]
    finally:
        db.dispose()


def _tenant(cluster: Cluster, policy: dict[str, object] | None = None) -> tuple[str, str]:
    """A new tenant (with ``policy`` active) and an API key for it: its id and the key."""
    tenant, issued = new_tenant_with_key(cluster.db, cluster.pods[0].settings(cluster.database_url))
    if policy is not None:
        with cluster.db.transaction() as session:
            publish_policy(tenant.id, policy, session=session)
    return tenant.id, issued.api_key


def test_a_tenants_rate_limit_is_exact_across_the_pods(cluster: Cluster) -> None:
    tenant_id, api_key = _tenant(cluster, {"rate_limits": {"requests_per_minute": RPM}})
    # Three times the limit, sent to the three pods at once: a per-pod limiter would admit it three times.
    calls = [(cluster.pods[i % len(cluster.pods)], f"req_rl_{i}") for i in range(3 * RPM)]
    first = time.monotonic()
    with ThreadPoolExecutor(len(calls)) as pool:
        responses = list(pool.map(lambda call: _chat(call[0], api_key, request_id=call[1]), calls))
    elapsed = time.monotonic() - first
    statuses = [r.status_code for r in responses]
    assert set(statuses) <= {200, 429}, statuses
    # The bucket refills one request every 60/RPM s: what the run's length allows on top of the limit.
    refilled = int(elapsed / (60 / RPM))
    assert RPM <= statuses.count(200) <= RPM + refilled, (elapsed, statuses)
    for response in responses:
        if response.status_code == 429:
            assert response.json()["error"]["type"] == "requests"
            assert response.json()["error"]["code"] == "rate_limit_exceeded"
            assert int(response.headers["retry-after"]) >= 1
            assert response.headers["x-ratelimit-limit-requests"] == str(RPM)
    # Counted: every call, admitted or refused, on any pod, is one record in the tenant's chain.
    rows = _wait_for_audit_rows(cluster.db, tenant_id, len(calls))
    sent = {request_id: response.status_code for (_, request_id), response in zip(calls, responses, strict=True)}
    assert {r.request_id: r.http_status for r in rows} == sent


def test_a_revoked_key_is_refused_by_every_pod_within_the_cache_ttl(cluster: Cluster) -> None:
    _, issued = new_tenant_with_key(cluster.db, cluster.pods[0].settings(cluster.database_url))

    def models(pod: Pod) -> int:
        return httpx.get(f"{pod.base_url}/v1/models", headers={"authorization": f"Bearer {issued.api_key}"},
                         timeout=10).status_code

    assert [models(pod) for pod in cluster.pods] == [200] * len(POD_NAMES)  # now cached by each
    with cluster.db.transaction() as session:
        assert revoke_key(issued.key_id, session=session)
    revoked = time.monotonic()
    for pod in cluster.pods:
        _until(lambda pod=pod: models(pod) == 401, KEY_CACHE_TTL_S + 5, f"{pod.name} to refuse the revoked key")
    assert time.monotonic() - revoked < KEY_CACHE_TTL_S + 2.0  # the TTL, plus polling on a loaded machine


def test_every_pod_gives_a_tenant_the_same_fairness_id(cluster: Cluster) -> None:
    """What an inference gateway's ext_authz asks before the endpoint picker runs (gateway.fairness): any pod it
    reaches answers the tenant's one flow, whatever the client claims."""
    _, api_key = _tenant(cluster)
    other_flow = "a-flow-the-client-made-up"

    def flow(pod: Pod, headers: dict[str, str]) -> str:
        response = httpx.post(f"{pod.base_url}{AUTHZ_PATH}/v1/chat/completions", timeout=10,
                              headers={FAIRNESS_ID_HEADER: other_flow, **headers})
        assert response.status_code == 200, response.text
        return response.headers[FAIRNESS_ID_HEADER]

    flows = {flow(pod, {"authorization": f"Bearer {api_key}"}) for pod in cluster.pods}
    assert len(flows) == 1 and flows.isdisjoint({other_flow, UNAUTHENTICATED_FLOW})
    assert {flow(pod, {}) for pod in cluster.pods} == {UNAUTHENTICATED_FLOW}


def test_one_audit_chain_per_tenant_with_three_pods_writing(cluster: Cluster) -> None:
    tenants = [_tenant(cluster) for _ in range(2)]
    router = Router(cluster.pods)
    calls = [(tenant_id, api_key, f"req_chain_{n}_{i}") for n, (tenant_id, api_key) in enumerate(tenants)
             for i in range(CHAIN_CALLS)]
    served_by: dict[str, str] = {}

    def call(item: tuple[str, str, str]) -> int:
        _, api_key, request_id = item
        pod = router.pick()
        served_by[request_id] = pod.name
        return _chat(pod, api_key, request_id=request_id).status_code

    with ThreadPoolExecutor(9) as pool:  # the three pods append to both chains at once
        assert list(pool.map(call, calls)) == [200] * len(calls)
    assert set(served_by.values()) == set(POD_NAMES)
    for tenant_id, _ in tenants:
        rows = _wait_for_audit_rows(cluster.db, tenant_id, CHAIN_CALLS)
        assert [r.seq for r in rows] == list(range(1, CHAIN_CALLS + 1))  # one chain: no fork, gap or duplicate
        with cluster.db.session() as session:
            report = verify_chains(session=session, chain_id=tenant_id)
        assert report.ok and report.chains == 1 and report.records == CHAIN_CALLS, report.broken

    # The compliance export through one pod covers what all three wrote and verifies offline.
    pod_a = cluster.pod("pod-a")
    token = mint_local_token(pod_a.settings(cluster.database_url), Role.AUDITOR)
    headers = {"authorization": f"Bearer {token}"}
    tenant_id = tenants[0][0]
    with httpx.Client(base_url=pod_a.base_url, headers=headers, timeout=60) as admin:
        export = admin.get("/admin/v1/audit/export", params={"tenant": tenant_id})
        assert export.status_code == 200, export.text
        manifest = admin.get(f"/admin/v1/audit/exports/{export.headers['x-warden-export-id']}/manifest").json()
        public_key = load_public_key(admin.get("/admin/v1/audit/public-key").json()["public_key_pem"].encode())
    exported = Path(pod_a.data_dir) / "export.jsonl"
    exported.write_bytes(export.content)
    result = verify_export(exported, manifest, public_key)
    assert result.ok and result.rows == CHAIN_CALLS, result.problems


def test_a_pod_killed_mid_load_leaves_the_others_serving_and_loses_no_record(cluster: Cluster) -> None:
    tenant_id, api_key = _tenant(cluster)
    pod_a, pod_b = cluster.pod("pod-a"), cluster.pod("pod-b")
    chunks: list[str] = []
    failure: list[BaseException] = []
    answered: list[str] = []  # request ids pod B answered in full before it died
    killed = threading.Event()

    def stream_on_b() -> None:
        body = {"model": "tiny", "messages": [{"role": "user", "content": "a long story"}], "max_tokens": 400,
                "temperature": 0, "ignore_eos": True, "stream": True}
        try:
            with httpx.stream("POST", f"{pod_b.base_url}/v1/chat/completions", json=body, timeout=120,
                              headers={"authorization": f"Bearer {api_key}", "x-request-id": "req_cut_stream"}
                              ) as response:
                for line in response.iter_lines():
                    if line.startswith("data: "):
                        chunks.append(line)
        except httpx.HTTPError as exc:
            failure.append(exc)

    def load_on_b(worker: int) -> None:
        for i in itertools.count():
            if killed.is_set():
                return
            request_id = f"req_load_{worker}_{i}"
            try:
                if _chat(pod_b, api_key, request_id=request_id).status_code == 200:
                    answered.append(request_id)
            except httpx.HTTPError:
                return

    # The load first, the stream once pod B has answered some of it: started together on a loaded machine, the
    # 400-token stream could finish before the fourth answer, and the kill would cut nothing.
    loads = [threading.Thread(target=load_on_b, args=(w,), daemon=True) for w in range(2)]
    for thread in loads:
        thread.start()
    _until(lambda: len(answered) >= 4, 60, "the load on pod B")
    stream = threading.Thread(target=stream_on_b, daemon=True)
    stream.start()
    threads = [stream, *loads]
    _until(lambda: len(chunks) >= 3, 60, "the stream on pod B")
    os.killpg(pod_b.process.pid, signal.SIGKILL)
    killed.set()
    pod_b.process.wait(30)
    for thread in threads:
        thread.join(30)
        assert not thread.is_alive()
    assert "data: [DONE]" not in chunks  # the stream was cut, not finished
    assert failure, "the client of the killed pod saw its stream end cleanly"

    # The router now finds only pods A and C ready; every call is served, by both.
    router = Router(cluster.pods)
    assert pod_b.readyz() is None and pod_a.readyz() == (200, "ready") == cluster.pod("pod-c").readyz()
    picked = [router.pick() for _ in range(4)]
    assert {pod.name for pod in picked} == {"pod-a", "pod-c"}
    statuses = [_chat(pod, api_key, request_id=f"req_after_kill_{i}").status_code for i, pod in enumerate(picked)]
    assert statuses == [200] * 4

    # Pod B's container restarts in the same pod: it adopts its dead predecessor's spool and journal.
    cluster.restart("pod-b")
    expected = {*answered, "req_cut_stream", *(f"req_after_kill_{i}" for i in range(4))}
    _until(lambda: expected <= {r.request_id for r in _audit_rows(cluster.db, tenant_id)}, 60,
           "every answered call's record")
    rows = {r.request_id: r for r in _audit_rows(cluster.db, tenant_id)}
    cut = rows["req_cut_stream"]  # its provisional record: the client saw a 200, the record says interrupted
    assert (cut.http_status, cut.finish_reason) == (200, "interrupted")
    with cluster.db.session() as session:
        report = verify_chains(session=session)
    assert report.ok, report.broken


def test_sigterm_flips_readiness_before_the_pod_stops_accepting(cluster: Cluster) -> None:
    pod = cluster.pod("pod-a")
    assert pod.readyz() == (200, "ready")
    pod.process.send_signal(signal.SIGTERM)
    signalled = time.monotonic()
    unready_at: float | None = None
    closed_at: float | None = None
    while closed_at is None:
        now = time.monotonic() - signalled
        assert now < GRACE_S + 10, "the pod never stopped accepting connections"
        if not _accepts_connections(pod.port):
            closed_at = now
        elif unready_at is None and pod.readyz() == (503, "draining"):
            unready_at = now
        time.sleep(0.05)
    assert unready_at is not None, "the pod stopped accepting before /readyz said not ready"
    # Not ready at once; still accepting (and answering not ready) for WARDEN_SHUTDOWN_UNREADY_S, so whoever
    # routes to it notices before its connections are refused.
    assert unready_at < 1.0, unready_at
    assert closed_at >= UNREADY_S - 0.5, closed_at
    pod.process.wait(GRACE_S + 60)
    # A clean stop: uvicorn, once shut down, re-raises the SIGTERM it handled, as a signal's default action.
    assert pod.process.returncode in (0, -signal.SIGTERM)
