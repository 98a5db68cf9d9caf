"""The gateway's access log: one JSON line per HTTP request from ``warden.access`` (method, path without its query
string, status, duration, overhead, request and tenant ids), secrets and personal data in the path scrubbed;
uvicorn's own access line off; ``WARDEN_ACCESS_LOG=false`` or a server log level above info turns it off."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from telemetry_support import foreign_root_handlers, new_key, server_loggers_at_info

from gateway.app import create_app
from gateway.core.middleware import REQUEST_ID_HEADER
from gateway.core.settings import Settings
from gateway.telemetry.access_log import ACCESS_LOGGER
from gateway.telemetry.logs import configure_logging

CHAT = {"model": "smollm2-135m-instruct", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 4}


@pytest.fixture
def log_stream() -> Iterator[io.StringIO]:
    """What the app's JSON handler writes (the app installs it on the root logger when it is built), with the server's
    log level at info (a uvicorn started earlier in this process may have raised it)."""
    stream = io.StringIO()
    root = logging.getLogger()
    foreign, level = foreign_root_handlers(), root.level
    with server_loggers_at_info():
        yield stream
        configure_logging("none")
    root.setLevel(level)
    assert foreign_root_handlers() == foreign


def _serve(settings: Settings, stream: io.StringIO) -> TestClient:
    settings.log_format = "json"
    app = create_app(settings, start_engine=False)
    for handler in logging.getLogger().handlers:
        if getattr(handler, "_warden_handler", False) and isinstance(handler, logging.StreamHandler):
            handler.setStream(stream)
    return TestClient(app)


def _access_lines(stream: io.StringIO) -> list[dict[str, Any]]:
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    return [line for line in lines if line["logger"] == ACCESS_LOGGER]


def test_one_access_line_per_request_with_its_ids_and_timings(telemetry_settings: Settings,
                                                               log_stream: io.StringIO) -> None:
    issued = new_key(telemetry_settings)
    with _serve(telemetry_settings, log_stream) as client:
        called = client.post("/v1/chat/completions", json=CHAT, headers={"Authorization": f"Bearer {issued.api_key}"})
        assert called.status_code == 503  # no engine
        missing = client.get("/v1/files/jane.doe@example.org?api_key=sk-live-abcdefghijklmnop1234")
        assert missing.status_code in (401, 404)
    call, other = _access_lines(log_stream)
    assert call["message"] == "POST /v1/chat/completions 503"
    assert (call["method"], call["path"], call["status"], call["level"]) == ("POST", "/v1/chat/completions", 503,
                                                                             "info")
    assert call["request_id"] == called.headers[REQUEST_ID_HEADER]
    assert call["tenant_id"] == issued.tenant_id
    assert 0 <= call["overhead_ms"] <= call["duration_ms"]
    assert other["request_id"] == missing.headers[REQUEST_ID_HEADER] and "tenant_id" not in other
    assert other["path"] == "/v1/files/[EMAIL]" and other["status"] == missing.status_code
    written = log_stream.getvalue()
    assert "jane.doe@example.org" not in written and "abcdefghijklmnop1234" not in written  # query string: never


def test_access_log_off(telemetry_settings: Settings, log_stream: io.StringIO) -> None:
    telemetry_settings.access_log = False
    with _serve(telemetry_settings, log_stream) as client:
        assert client.get("/v1/models").status_code == 401
    assert _access_lines(log_stream) == []


def test_uvicorn_writes_no_access_line_of_its_own(log_stream: io.StringIO) -> None:
    configure_logging("json", "INFO", stream=log_stream)
    # uvicorn writes its access line only when its logger has a handler somewhere up the tree (hasHandlers()).
    assert not logging.getLogger("uvicorn.access").hasHandlers()
    assert logging.getLogger("uvicorn.error").hasHandlers()


def test_a_server_log_level_above_info_writes_no_access_line(telemetry_settings: Settings,
                                                              log_stream: io.StringIO) -> None:
    server_access = logging.getLogger("uvicorn.access")
    with _serve(telemetry_settings, log_stream) as client:
        server_access.setLevel(logging.WARNING)  # what uvicorn does with --log-level warning (the fixture restores it)
        assert client.get("/v1/models").status_code == 401
        server_access.setLevel(logging.INFO)
        assert client.get("/v1/models").status_code == 401
    assert len(_access_lines(log_stream)) == 1
