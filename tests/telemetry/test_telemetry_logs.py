"""Logs: every secret and personal datum scrubbed before any handler writes it; JSON lines carry the request,
tenant and trace ids of the request being served."""

from __future__ import annotations

import io
import json
import logging

import pytest
from telemetry_support import foreign_root_handlers, server_loggers_at_info

from gateway.telemetry.context import request_id_var, tenant_id_var
from gateway.telemetry.logs import JsonFormatter, RedactionFilter, configure_logging, scrubbed_record
from gateway.telemetry.redaction import REDACTED, redact, redact_value
from gateway.telemetry.tracing import Tracing

WARDEN_KEY = "wdn_AbCdEfGh12345678_" + "s" * 40

LEAKS = [
    (f"auth with {WARDEN_KEY} failed", WARDEN_KEY),
    ("Authorization: Bearer sk-live-abcdefghijklmnop1234", "abcdefghijklmnop1234"),
    ("openai key sk-proj-ABCDEFGHIJKLMNOPQRSTUV", "ABCDEFGHIJKLMNOPQRSTUV"),
    ("aws AKIAIOSFODNN7EXAMPLE here", "AKIAIOSFODNN7EXAMPLE"),
    ("jwt eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhZG1pbiJ9.c2lnbmF0dXJl", "eyJzdWIiOiJhZG1pbiJ9"),
    ("dsn postgresql://warden:hunter2@db:5432/warden", "hunter2"),
    ('config {"client_secret": "xyz123abc"}', "xyz123abc"),
    ("password=correct-horse api_key=k3y-value", "correct-horse"),
    ("password=correct-horse api_key=k3y-value", "k3y-value"),
    ("mail jane.doe@example.org now", "jane.doe@example.org"),
    ("call +1 (415) 555-2671 today", "555-2671"),
    ("card 4111 1111 1111 1111 charged", "4111 1111 1111 1111"),
    ("ssn 123-45-6789", "123-45-6789"),
    ("client 203.0.113.77 connected", "203.0.113.77"),
    ("iban GB82 WEST 1234 5698 7654 32", "WEST 1234 5698"),
    ("-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBg\n-----END PRIVATE KEY-----", "MIIEvQIBADANBg"),
]


@pytest.mark.parametrize(("text", "secret"), LEAKS)
def test_redact_removes_secrets_and_pii(text: str, secret: str) -> None:
    assert secret not in redact(text)


def test_redact_keeps_operational_text() -> None:
    text = "req_0123456789abcdef: max_tokens=64 prompt_tokens=12 took 123.456 ms, status 200, 3 choices"
    assert redact(text) == text
    assert redact("card 4111 1111 1111 1112") != "card [CARD]"  # fails the Luhn check: not called a card


def test_redact_value_by_name_and_recursively() -> None:
    value = {"api_key": "abc", "max_tokens": 5, "nested": {"Authorization": "Basic x", "note": "a@b.io"},
             "list": ["x@y.com", 3]}
    assert redact_value("extra", value) == {"api_key": REDACTED, "max_tokens": 5,
                                            "nested": {"Authorization": REDACTED, "note": "[EMAIL]"},
                                            "list": ["[EMAIL]", 3]}


def _json_logger(stream: io.StringIO) -> logging.Logger:
    logger = logging.getLogger("warden.test.telemetry")
    logger.handlers.clear()
    logger.propagate = False
    handler = logging.StreamHandler(stream)
    handler.addFilter(RedactionFilter())
    handler.setFormatter(JsonFormatter())
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    return logger


def test_json_lines_carry_request_tenant_and_trace_ids_and_no_secrets() -> None:
    stream = io.StringIO()
    logger = _json_logger(stream)
    tracing = Tracing.create(exporter="memory")
    tokens = request_id_var.set("req_abc"), tenant_id_var.set("tenant-1")
    started = tracing.start_request_span("POST /v1/chat/completions", [], {})
    assert started is not None
    try:
        logger.info("key %s from %s", WARDEN_KEY, "bob@example.com", extra={"api_key": "raw", "tokens_out": 7})
        try:
            raise ValueError(f"bad key {WARDEN_KEY}")
        except ValueError:
            logger.exception("failed for jane@example.com")
    finally:
        Tracing.end_request_span(started, 200)
        request_id_var.reset(tokens[0])
        tenant_id_var.reset(tokens[1])
        tracing.shutdown()
    first, second = (json.loads(line) for line in stream.getvalue().splitlines())
    span = tracing.exporter.get_finished_spans()[0]
    assert first["request_id"] == "req_abc" and first["tenant_id"] == "tenant-1"
    assert first["trace_id"] == format(span.context.trace_id, "032x")
    assert first["level"] == "info" and first["api_key"] == REDACTED and first["tokens_out"] == 7
    assert "[EMAIL]" in first["message"]
    assert "ValueError" in second["exception"]
    output = stream.getvalue()
    for secret in ("s" * 40, "bob@example.com", "jane@example.com", "raw"):
        assert secret not in output


def test_a_scrubbed_record_is_written_as_made_and_any_other_scrubbed_once() -> None:
    stream = io.StringIO()
    logger = _json_logger(stream)
    # Its maker scrubbed what it put in (the access line scrubs the path): the handler writes it as it is.
    logger.handle(scrubbed_record(logger, logging.INFO, "GET /v1/x [EMAIL] 200", {"path": "/v1/x/[EMAIL]",
                                                                                     "status": 200}))
    logger.info("mail %s", "bob@example.com")
    made, other = (json.loads(line) for line in stream.getvalue().splitlines())
    assert made["message"] == "GET /v1/x [EMAIL] 200" and (made["path"], made["status"]) == ("/v1/x/[EMAIL]", 200)
    assert other["message"] == "mail [EMAIL]"


def test_lines_outside_a_request_have_no_request_fields() -> None:
    stream = io.StringIO()
    _json_logger(stream).warning("idle")
    entry = json.loads(stream.getvalue())
    assert "request_id" not in entry and "tenant_id" not in entry and "trace_id" not in entry


def test_configure_logging_installs_one_redacting_root_handler() -> None:
    root = logging.getLogger()
    before = list(root.handlers)
    foreign = foreign_root_handlers()
    stream = io.StringIO()
    with server_loggers_at_info():
        try:
            configure_logging("json", "INFO", stream=stream)
            configure_logging("json", "INFO", stream=stream)  # idempotent: app factories call it per app
            ours = [h for h in root.handlers if h not in before]
            assert len(ours) == 1
            logging.getLogger("uvicorn.error").info("connection from %s", "198.51.100.7:5555")
            logging.getLogger("uvicorn.access").info('%s - "GET /healthz HTTP/1.1" 200', "198.51.100.7:5555")
            logging.getLogger("some.lib").info("token=abcdef123456")
            lines = [json.loads(line) for line in stream.getvalue().splitlines()]
            # uvicorn's access line goes nowhere: the gateway writes its own (gateway.telemetry.access_log)
            assert [line["logger"] for line in lines] == ["uvicorn.error", "some.lib"]
            assert "198.51.100.7" not in stream.getvalue() and "abcdef123456" not in stream.getvalue()
        finally:
            configure_logging("none")
            assert foreign_root_handlers() == foreign


def test_the_listen_address_line_is_verbatim_and_nothing_else_is() -> None:
    root = logging.getLogger()
    before = list(root.handlers)
    server = logging.getLogger("uvicorn.error")
    server_level = server.level
    server.setLevel(logging.INFO)
    stream = io.StringIO()
    try:
        configure_logging("json", "INFO", stream=stream)
        server.info("Uvicorn running on %s://%s:%d (Press CTRL+C to quit)", "https", "10.0.0.5", 8443)
        server.info("connection from %s", "203.0.113.9")  # the same logger, any other line: scrubbed
        logging.getLogger("gateway.app").info("Uvicorn running on https://203.0.113.10:8443 token=abcdef123456")
        lines = [json.loads(line)["message"] for line in stream.getvalue().splitlines()]
        assert lines[0] == "Uvicorn running on https://10.0.0.5:8443 (Press CTRL+C to quit)"
        assert "203.0.113.9" not in lines[1]
        assert "203.0.113.10" not in lines[2] and "abcdef123456" not in lines[2]  # only uvicorn's own line
    finally:
        configure_logging("none")
        server.setLevel(server_level)
        assert root.handlers == before
