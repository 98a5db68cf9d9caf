"""Schema fuzzing of the HTTP edge: schemathesis over the OpenAPI of the public (/v1) and admin (/admin/v1) APIs.

    python -m bench.fuzz [--examples 500] [--timeout 120] [--only PREFIX] [--no-allow-nul]

The app runs in-process (ASGI) on a throwaway database (a new Postgres database beside WARDEN_DATABASE_URL's, or a
temporary SQLite file without one) with the real engine and guardrails. Every operation gets ``--examples`` cases
in each generation mode (positive: bodies and parameters the schema allows; negative: ones it forbids), derandomized.
/v1 calls carry a real tenant key and name the served model (``steered_document``); positive ones ask for at most
``STEERED_MAX_TOKENS`` tokens and the tenant's policy refuses more than ``MAX_TOKENS_CAP``, so a case costs a few
decode steps. Admin calls carry a platform-admin token; tenant- and key-scoped routes get half of their cases on a
real tenant and key, so the fuzzer reaches the handlers and not only their 404s. Each response must pass:

- ``not_a_server_error``: no 5xx (a 503 included: the engine and the store are up for the whole run);
- a per-call timeout: no hangs;
- ``openai_error_shape``: every 4xx/5xx body is ``{"error": {"message", "type", "param", "code"}}`` (on
  ``/v1/messages`` Anthropic's ``{"type": "error", "error": {"type", "message"}}``, as its OpenAPI entry states);
- ``negative_data_rejection``: a request the schema forbids is refused, never served (a silently ignored field);
- ``response_schema_conformance``: a 2xx body matches its documented response model.

Then explicit cases (``POISONED_REQUESTS``) put a NUL byte or a lone surrogate into each kind of string field,
path and query parameter, and into bodies nested deeper than the standard library parses: each must be a 400 in
the error shape.

The test suite runs the same code at a small example count (tests/gateway/test_fuzz_api.py); this entry point is
the larger run of the chaos bench and writes bench/results/fuzz.json.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import json
import os
import platform
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

import requests
import schemathesis
from hypothesis import HealthCheck, Phase, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from hypothesis.errors import Unsatisfiable
from pydantic import SecretStr
from schemathesis.checks import not_a_server_error
from schemathesis.core import NotSet
from schemathesis.core.failures import FailureGroup
from schemathesis.python import asgi
from schemathesis.specs.openapi.checks import negative_data_rejection, response_schema_conformance
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from bench.provenance import write_results
from gateway.adminauth.roles import Role
from gateway.adminauth.setup import mint_local_token
from gateway.core.db import Database, normalize_database_url
from gateway.core.migrate import upgrade_database
from gateway.core.secrets import load_server_secrets
from gateway.core.settings import Settings
from gateway.keys.service import issue_key
from gateway.policystore.service import publish_policy
from gateway.tenants.service import create_tenant

RESULTS = Path(__file__).parent / "results" / "fuzz.json"
ERROR_FIELDS = frozenset({"message", "type", "param", "code"})
ANTHROPIC_PATHS = frozenset({"/v1/messages"})  # refusals in Anthropic's error shape (docs/api.md)
# The /v1 tenant's policy cap: a larger max_tokens is a 400, so no case decodes more per choice. 16 because
# /v1/completions defaults to 16 (as OpenAI does), and a request that leaves the default must still be served.
MAX_TOKENS_CAP = 16
STEERED_MAX_TOKENS = 4
MODES = (schemathesis.GenerationMode.POSITIVE, schemathesis.GenerationMode.NEGATIVE)
NUL, LONE_SURROGATE = "\u0000", "\ud800"


@schemathesis.check
def openai_error_shape(ctx: schemathesis.CheckContext, response: schemathesis.Response,
                       case: schemathesis.Case) -> bool | None:
    """Every error body is OpenAI's: {"error": {"message", "type", "param", "code"}}, message and type non-empty
    strings, param and code strings or null."""
    if response.status_code < 400:
        return None
    try:
        body = json.loads(response.content)
    except ValueError:
        raise AssertionError(f"a {response.status_code} whose body is not JSON: {response.content[:200]!r}") from None
    if case.path in ANTHROPIC_PATHS:
        return anthropic_error_shape(response.status_code, body)
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(body, dict) or set(body) != {"error"} or not isinstance(error, dict) \
            or set(error) != ERROR_FIELDS:
        raise AssertionError(f"a {response.status_code} not in OpenAI's error shape: {str(body)[:300]}")
    for name in ("message", "type"):
        if not isinstance(error[name], str) or not error[name]:
            raise AssertionError(f"error.{name} must be a non-empty string: {error!r}")
    for name in ("param", "code"):
        if error[name] is not None and not isinstance(error[name], str):
            raise AssertionError(f"error.{name} must be a string or null: {error!r}")
    return True


def anthropic_error_shape(status: int, body: Any) -> bool:
    """Anthropic's error body: {"type": "error", "error": {"type", "message"}} (and the request id), both strings
    non-empty."""
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(body, dict) or body.get("type") != "error" or not set(body) <= {"type", "error", "request_id"} \
            or not isinstance(error, dict) or set(error) != {"type", "message"}:
        raise AssertionError(f"a {status} not in Anthropic's error shape: {str(body)[:300]}")
    if not all(isinstance(error[name], str) and error[name] for name in ("type", "message")):
        raise AssertionError(f"error.type and error.message must be non-empty strings: {error!r}")
    return True


CHECKS = [not_a_server_error, openai_error_shape, negative_data_rejection, response_schema_conformance]


def steered_document(openapi: dict[str, Any], served_model: str) -> dict[str, Any]:
    """The app's OpenAPI with each /v1 body's ``model`` pinned to the served model: a random name is a 404 before
    anything else runs, so almost no case would reach the engine. Negative cases still send other values and types
    there, which the gateway refuses as it should. (Nothing the gateway accepts is narrowed here: a negative case
    built on a narrowed field would be "accepted invalid input" that is in fact valid.)"""
    document = copy.deepcopy(openapi)
    for path, item in document["paths"].items():
        if not path.startswith("/v1/"):
            continue
        for operation in item.values():
            body = operation.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
            if body and "model" in body.get("properties", {}):
                body["properties"]["model"] = {"type": "string", "const": served_model}
    return document


def shorten(case: Any) -> None:
    """A positive /v1 case asks for at most ``STEERED_MAX_TOKENS`` tokens per choice (still a valid request): a
    fuzzed length costs that many decode steps on a CPU. The tenant's policy caps what negative cases ask for."""
    if not case.path.startswith("/v1/") or not isinstance(case.body, dict):
        return
    for name in ("max_tokens", "max_completion_tokens"):
        value = case.body.get(name)
        if isinstance(value, int) and not isinstance(value, bool) and value > STEERED_MAX_TOKENS:
            case.body[name] = STEERED_MAX_TOKENS
    if case.body.get("max_tokens") is None and case.body.get("max_completion_tokens") is None:
        case.body["max_tokens"] = STEERED_MAX_TOKENS


def load_schema(app: Any, served_model: str, *, allow_nul: bool) -> Any:
    """The schemathesis schema of ``app``, calls going to it in-process. ``allow_nul``: generated strings may hold
    NUL bytes (``POISONED_REQUESTS`` covers them explicitly either way)."""
    config = schemathesis.Config.from_dict({"generation": {"allow-x00": allow_nul}})
    schema = schemathesis.openapi.from_dict(steered_document(app.openapi(), served_model), config=config)
    schema.app = app
    return schema


@dataclass
class Principals:
    """Who calls: the /v1 tenant's key, a platform-admin token, and the tenant and key that the admin routes'
    path parameters are pinned to for half of their cases (a different tenant: the fuzzer may suspend it)."""

    v1_headers: dict[str, str]
    admin_headers: dict[str, str]
    pinned: dict[str, str]

    def headers_for(self, path: str) -> dict[str, str]:
        return self.v1_headers if path.startswith("/v1/") else self.admin_headers


def create_principals(db: Database, settings: Settings) -> Principals:
    pepper = load_server_secrets(settings).key_pepper
    suffix = uuid.uuid4().hex[:8]
    with db.transaction() as session:
        caller = create_tenant(f"fuzz-v1-{suffix}", session=session)
        publish_policy(caller.id, {"max_tokens_cap": MAX_TOKENS_CAP}, session=session)
        caller_key = issue_key(caller, pepper=pepper, session=session)
        target = create_tenant(f"fuzz-admin-{suffix}", session=session)
        target_key = issue_key(target, pepper=pepper, session=session)
    token = mint_local_token(settings, Role.PLATFORM_ADMIN, subject="fuzz:platform-admin")
    return Principals(v1_headers={"Authorization": f"Bearer {caller_key.api_key}"},
                      admin_headers={"Authorization": f"Bearer {token}"},
                      pinned={"tenant_id": target.id, "key_id": target_key.key_id})


@dataclass
class FailureReport:
    check: str
    status: int | None
    message: str
    request: str  # method, path and body, as sent


@dataclass
class OperationReport:
    operation: str
    cases: int = 0
    statuses: Counter[int] = field(default_factory=Counter)
    failures: list[FailureReport] = field(default_factory=list)
    seconds: float = 0.0

    def as_json(self) -> dict[str, Any]:
        return {**asdict(self), "statuses": {str(k): v for k, v in sorted(self.statuses.items())}}


def _sent(case: Any) -> str:
    body = "" if isinstance(case.body, NotSet) else json.dumps(case.body, default=repr)[:4000]  # enough to replay
    return f"{case.method} {case.formatted_path} {case.query or ''} {body}".strip()


def run_case(case: Any, headers: dict[str, str], timeout_s: float, report: OperationReport) -> None:
    """Send one case and check its response; failures are collected, not raised, so one run counts them all."""
    report.cases += 1
    try:
        response = case.call(headers=headers, timeout=timeout_s)
    except requests.exceptions.Timeout:
        report.failures.append(FailureReport("hang", None, f"no response within {timeout_s} s", _sent(case)))
        return
    report.statuses[response.status_code] += 1
    try:
        case.validate_response(response, checks=CHECKS, headers=headers)
    except FailureGroup as group:
        for failure in group.exceptions:
            report.failures.append(FailureReport(getattr(failure, "title", type(failure).__name__),
                                                 response.status_code, str(getattr(failure, "message", failure))[:500],
                                                 _sent(case)))


def _run_examples(strategy: Any, examples: int, *, positive: bool, headers: dict[str, str], timeout_s: float,
                  report: OperationReport) -> None:
    @hypothesis_settings(max_examples=examples, derandomize=True, deadline=None, database=None,
                         phases=[Phase.explicit, Phase.generate], suppress_health_check=list(HealthCheck))
    @given(case=strategy)
    def run(case: Any) -> None:
        if positive:
            shorten(case)
        run_case(case, headers, timeout_s, report)

    try:
        run()
    except Unsatisfiable:
        # An operation without parameters or body has no input to break: nothing to do in negative mode.
        if positive:
            raise


def fuzz_operation(operation: Any, principals: Principals, *, examples: int, timeout_s: float) -> OperationReport:
    """``examples`` cases per generation mode, derandomized (the same cases on every run of the same code)."""
    report = OperationReport(operation.label)
    headers = principals.headers_for(operation.path)
    names = {parameter.name for parameter in operation.path_parameters}
    pinned = {name: value for name, value in principals.pinned.items() if name in names}
    started = time.perf_counter()
    for mode in MODES:
        strategy = operation.as_strategy(generation_mode=mode)
        if pinned:
            strategy = st.one_of(strategy, operation.as_strategy(generation_mode=mode, path_parameters=pinned))
        _run_examples(strategy, examples, positive=mode is schemathesis.GenerationMode.POSITIVE, headers=headers,
                      timeout_s=timeout_s, report=report)
    report.seconds = round(time.perf_counter() - started, 2)
    return report


def operations(schema: Any, prefix: str = "") -> list[Any]:
    return [result.ok() for result in schema.get_all_operations() if result.ok().path.startswith(prefix)]


# -- explicit cases: a NUL byte or a lone surrogate in each kind of string the edge accepts ------------------------
@dataclass(frozen=True)
class Poisoned:
    name: str
    method: str
    path: str  # {tenant_id} and {key_id} are filled with the pinned tenant and key
    body: Any = None
    raw: str | None = None  # the body as JSON text, for shapes json.dumps cannot write (nesting past its depth)

    def url(self, pinned: dict[str, str]) -> str:
        return self.path.format(**{k: quote(v) for k, v in pinned.items()})


def _chat(**fields: Any) -> dict[str, Any]:
    return {"model": "{model}", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 1, **fields}


def _poisoned_requests() -> list[Poisoned]:
    cases: list[Poisoned] = []
    for label, bad in (("nul", f"a{NUL}b"), ("surrogate", f"a{LONE_SURROGATE}b")):
        cases += [
            Poisoned(f"chat-model-{label}", "POST", "/v1/chat/completions", _chat(model=bad)),
            Poisoned(f"chat-content-{label}", "POST", "/v1/chat/completions",
                     _chat(messages=[{"role": "user", "content": bad}])),
            Poisoned(f"chat-content-part-{label}", "POST", "/v1/chat/completions",
                     _chat(messages=[{"role": "user", "content": [{"type": "text", "text": bad}]}])),
            Poisoned(f"chat-stop-{label}", "POST", "/v1/chat/completions", _chat(stop=[bad])),
            Poisoned(f"chat-user-{label}", "POST", "/v1/chat/completions", _chat(user=bad)),
            Poisoned(f"chat-metadata-{label}", "POST", "/v1/chat/completions", _chat(metadata={"k": bad})),
            Poisoned(f"chat-metadata-key-{label}", "POST", "/v1/chat/completions", _chat(metadata={bad: "v"})),
            Poisoned(f"completion-prompt-{label}", "POST", "/v1/completions",
                     {"model": "{model}", "prompt": bad, "max_tokens": 1}),
            Poisoned(f"tenant-name-{label}", "POST", "/admin/v1/tenants", {"name": bad}),
            Poisoned(f"tenant-rename-{label}", "PATCH", "/admin/v1/tenants/{tenant_id}", {"name": bad}),
            Poisoned(f"key-label-{label}", "POST", "/admin/v1/tenants/{tenant_id}/keys", {"label": bad}),
            Poisoned(f"policy-document-{label}", "PUT", "/admin/v1/tenants/{tenant_id}/policy",
                     {"allowed_models": [bad]}),
            Poisoned(f"public-prefix-{label}", "POST", "/admin/v1/tenants/{tenant_id}/public-prefixes",
                     {"text": bad}),
        ]
    # Nested deeper than the standard library parses (the edge's check) but holding a NUL escape: still a 400.
    for depth in (900, 5_000):
        nested = '{"a":' * depth + '"\\u0000"' + "}" * depth
        for label, path, body in (("chat", "/v1/chat/completions", _chat()),
                                  ("responses", "/v1/responses", {"model": "{model}", "input": "hi"})):
            cases.append(Poisoned(f"{label}-deep-{depth}-nul", "POST", path,
                                  raw=json.dumps(body)[:-1] + f', "metadata": {nested}}}'))
    # A URL carries bytes: percent-decoding turns an encoded surrogate into U+FFFD, but a NUL arrives as a NUL.
    encoded = quote(f"a{NUL}b", safe="")
    cases += [
        Poisoned("path-tenant-nul", "GET", f"/admin/v1/tenants/{encoded}"),
        Poisoned("path-key-nul", "POST", f"/admin/v1/tenants/{{tenant_id}}/keys/{encoded}/revoke"),
        Poisoned("query-tenant-nul", "GET", f"/admin/v1/audit/export?tenant={encoded}"),
    ]
    return cases


POISONED_REQUESTS = _poisoned_requests()


def send_poisoned(app: Any, case: Poisoned, principals: Principals, served_model: str,
                  timeout_s: float) -> requests.Response:
    """Sends the case's body as JSON text with ASCII escapes, so a lone surrogate travels as ``\\ud800``: valid
    JSON syntax that no UTF-8 text can hold, exactly what a hostile client can send."""
    body = case.raw if case.raw is not None else None if case.body is None else json.dumps(case.body)
    body = None if body is None else body.replace("{model}", served_model)
    headers = {**principals.headers_for(case.path), "content-type": "application/json"}
    with asgi.get_client(app) as client:
        return client.request(case.method, case.url(principals.pinned), data=body, headers=headers,
                              timeout=timeout_s)


def poisoned_failure(response: requests.Response) -> str | None:
    """None when the response is the expected refusal: a 400 in OpenAI's error shape."""
    if response.status_code != 400:
        return f"answered {response.status_code}, not 400: {response.text[:200]}"
    try:
        error = response.json()["error"]
    except (ValueError, KeyError, TypeError):
        return f"a 400 not in OpenAI's error shape: {response.text[:200]}"
    if not isinstance(error, dict) or set(error) != ERROR_FIELDS:
        return f"a 400 not in OpenAI's error shape: {response.text[:200]}"
    return None


# -- the bench entry point ---------------------------------------------------------------------------------------
@contextlib.contextmanager
def throwaway_database(workdir: Path) -> Iterator[str]:
    """A new, migrated database: beside WARDEN_DATABASE_URL's on its Postgres server (dropped afterwards), or a
    SQLite file in ``workdir``."""
    base = os.environ.get("WARDEN_DATABASE_URL", "")
    if not base.startswith(("postgresql", "postgres")):
        url = f"sqlite:///{workdir / 'fuzz.db'}"
        upgrade_database(url)
        yield url
        return
    server = make_url(normalize_database_url(base))
    name = f"warden_fuzz_{uuid.uuid4().hex[:10]}"
    admin = create_engine(server, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        url = server.set(database=name).render_as_string(hide_password=False)
        upgrade_database(url)
        yield url
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.fuzz", description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=500, help="cases per operation and generation mode")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds a call may take before it is a hang")
    parser.add_argument("--only", default="", help="fuzz only the operations whose path starts with this")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--allow-nul", action=argparse.BooleanOptionalAction, default=True,
                        help="generated strings may hold NUL bytes")
    args = parser.parse_args(argv)
    if args.examples < 1 or args.timeout <= 0:
        parser.error("--examples and --timeout must be positive")

    from gateway.app import create_app

    with tempfile.TemporaryDirectory(prefix="warden-fuzz-") as workdir, throwaway_database(Path(workdir)) as url:
        settings = Settings(database_url=url, data_dir=Path(workdir) / "data", server_secret=SecretStr("fuzz-secret"),
                            redis_url=None, engine_in_process=True, key_cache_ttl_s=0.0, policy_cache_ttl_s=0.0,
                            audit_flush_interval_s=0.05, log_format="none", _env_file=None)  # type: ignore[call-arg]
        db = Database(url)
        try:
            principals = create_principals(db, settings)
            app = create_app(settings)
            with asgi.get_client(app):  # type: ignore[arg-type]  # starts the app (and its engine) once
                served = app.state.services.engine.model_name
            schema = load_schema(app, served, allow_nul=args.allow_nul)
            started = time.perf_counter()
            reports = []
            for operation in operations(schema, args.only):
                report = fuzz_operation(operation, principals, examples=args.examples, timeout_s=args.timeout)
                reports.append(report)
                print(f"{report.operation:70s} {report.cases:6d} cases {len(report.failures):4d} failures "
                      f"{report.seconds:8.1f} s  {dict(sorted(report.statuses.items()))}", flush=True)
            poisoned = []
            for case in POISONED_REQUESTS:
                if not case.path.startswith(args.only):
                    continue
                response = send_poisoned(app, case, principals, served, args.timeout)
                poisoned.append({"case": case.name, "status": response.status_code,
                                 "failure": poisoned_failure(response)})
            elapsed = time.perf_counter() - started
        finally:
            asgi.shutdown_lifespans()
            db.dispose()

    failures = sum(len(r.failures) for r in reports)
    poisoned_failures = [p for p in poisoned if p["failure"]]
    summary = {
        "schemathesis": schemathesis.__version__, "python": platform.python_version(), "machine": platform.machine(),
        "examples_per_mode": args.examples, "timeout_s": args.timeout, "allow_nul": args.allow_nul,
        "database": make_url(url).get_backend_name(), "seconds": round(elapsed, 1),
        "cases": sum(r.cases for r in reports), "failures": failures,
        "server_errors": sum(v for r in reports for k, v in r.statuses.items() if k >= 500),
        "hangs": sum(1 for r in reports for f in r.failures if f.check == "hang"),
        "poisoned_cases": len(poisoned), "poisoned_failures": len(poisoned_failures),
        "operations": [r.as_json() for r in reports], "poisoned": poisoned,
    }
    write_results(args.out, summary)
    print(f"\n{summary['cases']} cases, {failures} failures ({summary['server_errors']} 5xx, "
          f"{summary['hangs']} hangs), "
          f"poisoned strings: {len(poisoned) - len(poisoned_failures)}/{len(poisoned)} refused with a 400, "
          f"{elapsed:.0f} s -> {args.out}")
    for report in reports:
        for failure in report.failures[:5]:
            print(f"  {report.operation}: [{failure.check}] {failure.status} {failure.message[:160]!r}\n"
                  f"      {failure.request[:300]}")
    for p in poisoned_failures:
        print(f"  poisoned {p['case']}: {p['failure']}")
    return 0 if failures == 0 and not poisoned_failures else 1


if __name__ == "__main__":
    raise SystemExit(main())
