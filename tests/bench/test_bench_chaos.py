"""The chaos suite's parts that run in seconds: the blackhole proxy on a real TCP echo server, the suite's own
Postgres and Redis stopped and started, and the load generator with the report over a scripted HTTPS server that
answers each request as its id says (200, 503 with and without Retry-After, 500, 429, a whole stream and a cut one).
The scenarios themselves start the real model and run for minutes: ``python -m bench.chaos --quick``."""

from __future__ import annotations

import asyncio
import json
import os
import pwd
import shutil
import socket
import ssl
import tempfile
import threading
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
import redis
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, StreamingResponse

from bench.chaos.load import NO_RESPONSE, LoadGenerator, RequestResult
from bench.chaos.processes import PG_BIN, PostgresServer, RedisServer
from bench.chaos.proxy import BlackholeProxy
from bench.chaos.report import AuditCheck, recovery_seconds, summarise
from gateway.background_server import start_background_server


@pytest.fixture
def echo_port() -> Iterator[int]:
    server = socket.create_server(("127.0.0.1", 0))

    def echo(connection: socket.socket) -> None:
        with connection:
            while data := connection.recv(4096):
                connection.sendall(data)

    def serve() -> None:
        while True:
            try:
                connection, _ = server.accept()
            except OSError:
                return
            threading.Thread(target=echo, args=(connection,), daemon=True).start()

    threading.Thread(target=serve, daemon=True).start()
    yield server.getsockname()[1]
    server.close()


def _connect(port: int) -> socket.socket:
    connection = socket.create_connection(("127.0.0.1", port), timeout=5)
    connection.settimeout(0.5)
    return connection


def test_blackholed_proxy_holds_every_byte_until_restored(echo_port: int) -> None:
    proxy = BlackholeProxy(echo_port)
    proxy.start()
    try:
        open_before = _connect(proxy.port)
        open_before.sendall(b"ping")
        assert open_before.recv(16) == b"ping"

        proxy.blackhole()
        open_before.sendall(b"held")
        with pytest.raises(TimeoutError):
            open_before.recv(16)
        opened_during = _connect(proxy.port)  # accepted, as a silent network path lets the handshake look fine
        opened_during.sendall(b"late")
        with pytest.raises(TimeoutError):
            opened_during.recv(16)

        proxy.restore()
        open_before.settimeout(5)
        opened_during.settimeout(5)
        assert open_before.recv(16) == b"held"
        assert opened_during.recv(16) == b"late"
        open_before.close()
        opened_during.close()
    finally:
        proxy.stop()


def _postgres_runnable() -> bool:
    if not (PG_BIN / "initdb").exists():
        return False
    if os.geteuid() != 0:
        return True
    try:
        pwd.getpwnam("postgres")
    except KeyError:
        return False
    return True


@pytest.mark.skipif(not _postgres_runnable(), reason="no Postgres 15 binaries (or no postgres user to run them)")
def test_the_suites_own_postgres_stops_and_starts() -> None:
    root = Path(tempfile.mkdtemp(prefix="warden-chaos-test-"))  # pytest's tmp_path is not searchable by postgres
    os.chmod(root, 0o755)
    server = PostgresServer(root / "pg")
    server.init()
    try:
        with psycopg.connect(server.dsn) as connection:
            assert connection.execute("SELECT current_database()").fetchone() == ("warden",)
        server.stop()
        assert not server.running()
        with pytest.raises(psycopg.OperationalError):
            psycopg.connect(server.dsn)
        server.start()
        with psycopg.connect(server.dsn) as connection:
            assert connection.execute("SELECT 1").fetchone() == (1,)
    finally:
        server.destroy()
        shutil.rmtree(root, ignore_errors=True)


@pytest.mark.skipif(shutil.which("redis-server") is None, reason="no redis-server")
def test_the_suites_own_redis_stops_and_starts_fresh(tmp_path: Path) -> None:
    server = RedisServer(tmp_path / "redis")
    server.start()
    try:
        client = redis.Redis.from_url(server.url, socket_timeout=2)
        client.set("k", "v")
        server.stop()
        with pytest.raises(redis.ConnectionError):
            client.get("k")
        server.start()
        assert client.get("k") is None  # memory only: a restarted Redis has lost its keys
    finally:
        server.stop()


def _completion() -> dict[str, Any]:
    return {"id": "c", "object": "chat.completion", "created": 0, "model": "m",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "hi"}, "finish_reason": "stop"}]}


def _chunk(text: str) -> str:
    return "data: " + json.dumps({"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m",
                                  "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}]})


def scripted_app() -> FastAPI:
    """Answers by the request id's index modulo 6: 200, 503 + Retry-After, 503 without, 500, 429, a stream (whole
    for index 5, cut after its first chunk for 11)."""
    app = FastAPI()

    def error(status: int, headers: dict[str, str] | None = None) -> JSONResponse:
        return JSONResponse({"error": {"message": "m", "type": "t", "param": None, "code": f"c{status}"}},
                            status_code=status, headers=headers)

    @app.post("/v1/chat/completions")
    async def chat(request: Request) -> Any:
        index = int(request.headers["x-request-id"].rsplit("-", 1)[1])
        kind = index % 6
        if kind == 5:
            async def events() -> AsyncIterator[str]:
                yield _chunk("a") + "\n\n"
                if index >= 6:
                    raise RuntimeError("cut")  # uvicorn drops the connection mid-body
                yield "data: [DONE]\n\n"

            return StreamingResponse(events(), media_type="text/event-stream")
        responses = {0: lambda: JSONResponse(_completion()), 1: lambda: error(503, {"Retry-After": "1"}),
                     2: lambda: error(503), 3: lambda: error(500), 4: lambda: error(429, {"Retry-After": "2"})}
        return responses[kind]()

    return app


def test_load_generator_outcomes_and_the_scenario_report(tmp_path: Path) -> None:
    server = start_background_server(scripted_app(), tmp_path, name="chaos-scripted")
    try:
        generator = LoadGenerator(f"{server.base_url}/v1", "key", "m", ssl.create_default_context(
            cafile=str(server.cert)), timeout_s=10, label="t")

        def make_request(index: int) -> tuple[dict[str, Any], bool]:
            request, _ = generator.default_request(index)
            return request, index % 6 == 5

        async def run() -> tuple[list[RequestResult], RequestResult, RequestResult]:
            try:
                results = await generator.run(50.0, stop=lambda: False, max_requests=12, max_duration_s=30,
                                              make_request=make_request)
                raw_ok = await generator.send_raw(b'{"content": "x\\ud800y"}')  # index 12: a 200
                raw_refused = await generator.send_raw(b"{}")  # index 13: a 503 with Retry-After
                return results, raw_ok, raw_refused
            finally:
                await generator.close()

        results, raw_ok, raw_refused = asyncio.run(run())
    finally:
        server.stop()
    assert raw_ok.completed and raw_ok.status == 200 and raw_ok.reached_client
    assert raw_refused.status == 503 and raw_refused.retry_after and raw_refused.error == "c503"
    by_index = {int(r.request_id.rsplit("-", 1)[1]): r for r in results}
    assert sorted(by_index) == list(range(12))
    assert by_index[5].completed and by_index[5].stream
    assert not by_index[11].completed and by_index[11].reached_client and by_index[11].status == 200
    assert by_index[1].retry_after and not by_index[2].retry_after

    expected = {r.request_id for r in results if r.reached_client}
    assert len(expected) == 12
    lost = by_index[6].request_id
    check = AuditCheck(expected, expected - {lost}, True, "1 chain(s), 11 record(s) checked: ok")
    entry = summarise("scripted", "scripted answers", results, check, recovery_s=None)
    failed = entry["requests"]["failed_by_status"]
    assert entry["requests"]["sent"] == 12 and entry["requests"]["succeeded"] == 3
    assert failed["503"] == 4 and failed["500"] == 2 and failed["429"] == 2
    assert [k for k in failed if k.startswith("200_stream_broken")] and sum(failed.values()) == 9
    assert entry["five_xx_other_than_503"] == 2
    assert entry["responses_503_without_retry_after"] == 2
    assert entry["audit"]["missing_sample"] == [lost]
    assert entry["targets"] == {"zero_audit_rows_lost": False, "zero_500s": False, "every_503_has_retry_after": False,
                                "chain_verifies": True, "recovered_within_10s": False}
    assert entry["p99_ms"]["before"] is not None and entry["p99_ms"]["during"] is None


def test_a_connection_refused_is_no_response_and_owes_no_audit_row() -> None:
    with socket.create_server(("127.0.0.1", 0)) as probe:
        port = probe.getsockname()[1]  # closed on leaving: nothing listens there
    generator = LoadGenerator(f"https://127.0.0.1:{port}/v1", "key", "m", True, timeout_s=5)
    request, _ = generator.default_request(0)

    async def send() -> RequestResult:
        try:
            return await generator.send(request, stream=False)
        finally:
            await generator.close()

    result = asyncio.run(send())
    assert result.status == NO_RESPONSE and not result.reached_client and not result.completed
    assert result.error == "ConnectError"


def _result(sent_s: float, ok: bool) -> RequestResult:
    return RequestResult("r", "after", sent_s, 0.1, 200 if ok else 503, False, True, not ok, ok)


def test_recovery_is_from_the_faults_end_to_the_first_request_after_the_last_failure() -> None:
    assert recovery_seconds([_result(1, False), _result(11, True), _result(12, False), _result(13.5, True),
                             _result(14, True)], fault_end_s=10) == 3.5
    assert recovery_seconds([_result(9, False), _result(10.2, True)], fault_end_s=10) == 0.0
    assert recovery_seconds([_result(10.5, False), _result(10.7, True)], fault_end_s=10) == 0.7
    assert recovery_seconds([_result(11, True), _result(12, False)], fault_end_s=10) is None
    assert recovery_seconds([_result(5, True)], fault_end_s=10) is None
