"""PII leak test through the HTTPS API: a tenant whose policy masks every entity type on input and output, with
audit content ``redacted``, sends every positive case of the PII corpus' held-out `test` split
(bench/data/pii_corpus_test.jsonl, 1,930 cases, 4,800 labelled values of 12 types; its sentences are phrased unlike
the `dev` split's, on which the detectors are tuned). A value leaks where its raw text
(as a whole: not glued to a letter or digit on either side) reaches the prompt the engine received, the tenant's
audit export (JSONL and CSV, parsed, so escaped non-ASCII text is read as what it stands for) or a log line.

Real parts: the live HTTPS server, the database of the gateway tests (Postgres when WARDEN_DATABASE_URL is set),
the guardrails with spaCy NER, and a real in-process engine serving a tiny random Llama with SmolLM2's tokenizer and
chat template (what the engine receives and how the gateway masks does not depend on the weights; the real 135M
model would only make the 80 requests slower). The engine is observed, not replaced: a tap decodes each request's
prompt token ids before handing it on.

What must hold: no value of any type in a log line; no leak at all for the types whose detectors are at the issue's
bar (``MUST_NOT_LEAK``). For the others the measured leak count of this split is a ceiling (``LEAK_CEILING``): a
detector change that leaks more fails here, and one that leaks less shows up in the printed table, whose figures then
replace the ceiling.
"""

from __future__ import annotations

import csv
import io
import json
import logging
import re
import ssl
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from gateway_support import new_tenant_with_key, tiny_app_settings
from live_server import LiveServer, start_live_server

from engine.outputs import RequestOutput
from engine.request import EngineRequest
from gateway.adminauth.roles import Role
from gateway.adminauth.setup import mint_local_token
from gateway.core.db import Database
from gateway.policystore.service import publish_policy
from tests.engine.tiny_models import write_tiny_checkpoint

pytestmark = pytest.mark.slow

CORPUS = Path(__file__).resolve().parents[2] / "bench" / "data" / "pii_corpus_test.jsonl"
BATCH_CHARS = 4_000  # characters of corpus text per request (one user message per case)
MASK_ALL = {"entities": {}, "default_action": "mask"}
POLICY = {"pii_input": MASK_ALL, "pii_output": MASK_ALL, "audit_content": "redacted"}

# Types whose detectors are at the bar on this split: not one raw value may get through.
MUST_NOT_LEAK = frozenset({"EMAIL_ADDRESS", "CREDIT_CARD", "IBAN_CODE", "IP_ADDRESS", "SECRET", "US_SSN"})
# The other types' measured leaks on this split (of 400 values each; 91 of 4,800 in all), with a margin of two for
# the NER-found types: a ceiling, never a target. The engine prompt and both exports leak the same values; the logs
# none.
LEAK_CEILING = {"PERSON": 41, "LOCATION": 29, "STREET_ADDRESS": 3, "DATE_OF_BIRTH": 13, "NATIONAL_ID": 4,
                "PHONE_NUMBER": 5}  # fmt: skip


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


class PromptTap:
    """The real engine, with every request's prompt (its token ids decoded) kept as the engine received it."""

    def __init__(self, engine: Any) -> None:
        self._engine = engine
        self.prompts: dict[str, str] = {}  # engine request id -> decoded prompt

    def generate(self, request: EngineRequest) -> AsyncIterator[RequestOutput]:
        self.prompts[request.request_id] = self._engine.tokenizer.decode(request.prompt_token_ids,
                                                                         skip_special_tokens=False)
        return self._engine.generate(request)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._engine, name)


def _batches(cases: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    batches: list[list[dict[str, Any]]] = [[]]
    size = 0
    for case in cases:
        if batches[-1] and size + len(case["text"]) > BATCH_CHARS:
            batches.append([])
            size = 0
        batches[-1].append(case)
        size += len(case["text"])
    return batches


def _strings(value: Any) -> Iterator[str]:
    """Every string inside a parsed JSON value, keys included."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _appears(value: str, text: str) -> bool:
    return value in text and re.search(rf"(?<![^\W_]){re.escape(value)}(?![^\W_])", text) is not None


def _leaked(batch: list[dict[str, Any]], text: str) -> list[dict[str, Any]]:
    return [entity for case in batch for entity in case["entities"] if _appears(entity["value"], text)]


def _jsonl_texts(body: str) -> dict[str, str]:
    """request id -> all text of its audit record(s) in a JSONL export."""
    texts: dict[str, list[str]] = {}
    for line in body.splitlines():
        if line.strip():
            record = json.loads(line)
            texts.setdefault(str(record.get("request_id")), []).extend(_strings(record))
    return {request_id: "\n".join(parts) for request_id, parts in texts.items()}


def _csv_texts(body: str) -> dict[str, str]:
    """request id -> all text of its audit record(s) in a CSV export (JSON cells parsed)."""
    texts: dict[str, list[str]] = {}
    for row in csv.DictReader(io.StringIO(body)):
        parts = texts.setdefault(row["request_id"], [])
        for column, cell in row.items():
            parts.append(cell or "")
            if column in ("decisions", "content") and cell:
                parts.extend(_strings(json.loads(cell)))
    return {request_id: "\n".join(parts) for request_id, parts in texts.items()}


def _log_text(lines: str) -> str:
    parts = []
    for line in lines.splitlines():
        parts.append(line)
        try:
            parts.extend(_strings(json.loads(line)))
        except ValueError:
            continue
    return "\n".join(parts)


@pytest.fixture(scope="module")
def server(database_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    model = write_tiny_checkpoint(tmp_path_factory.mktemp("leak-model"), max_position_embeddings=8192)
    settings = tiny_app_settings(database_url, model, tmp_path_factory.mktemp("leak-data"), "leak-test-secret",
                                 guardrails=True, log_format="json", log_level="INFO")
    live = start_live_server(settings)
    yield live
    live.stop()


def test_a_mask_all_tenant_leaks_no_pii_of_the_test_split(server: LiveServer, db: Database) -> None:
    cases = [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines()]
    cases = [case for case in cases if case["entities"]]
    assert len(cases) > 1_500 and all(case["split"] == "test" for case in cases)
    tap = PromptTap(server.services.engine)
    server.services.engine = tap
    log_stream = io.StringIO()
    handlers = [h for h in logging.getLogger().handlers if isinstance(h, logging.StreamHandler)
                and getattr(h, "_warden_handler", False)]  # fmt: skip
    assert handlers, "the app installs its JSON log handler on the root logger"
    previous = [h.setStream(log_stream) for h in handlers]

    tenant, issued = new_tenant_with_key(db, server.settings)
    with db.transaction() as session:
        publish_policy(tenant.id, POLICY, session=session)
    batches = _batches(cases)
    verify = ssl.create_default_context(cafile=str(server.cert))
    try:
        with httpx.Client(base_url=server.base_url, verify=verify, timeout=300) as client:
            model = client.get("/v1/models", headers=auth(issued.api_key)).json()["data"][0]["id"]
            for index, batch in enumerate(batches):
                response = client.post(
                    "/v1/chat/completions",
                    headers={**auth(issued.api_key), "x-request-id": f"leak-{index:04d}"},
                    json={"model": model, "max_tokens": 2, "temperature": 0,
                          "messages": [{"role": "user", "content": case["text"]} for case in batch]},
                )
                assert response.status_code == 200, response.text[:500]
            assert server.services.audit.flush(60)
            admin = auth(mint_local_token(server.settings, Role.PLATFORM_ADMIN, subject="test:leaks"))
            exports = {}
            for fmt in ("jsonl", "csv"):
                response = client.get("/admin/v1/audit/export", params={"tenant": tenant.id, "format": fmt},
                                      headers=admin)
                assert response.status_code == 200, response.text[:500]
                exports[fmt] = response.text
    finally:
        for handler, stream in zip(handlers, previous, strict=True):
            handler.setStream(stream)
        server.services.engine = tap._engine

    jsonl, csv_rows = _jsonl_texts(exports["jsonl"]), _csv_texts(exports["csv"])
    assert len(tap.prompts) == len(batches)
    prompts = list(tap.prompts.values())  # requests were sent one after another: in batch order
    log_text = _log_text(log_stream.getvalue())
    assert log_text, "the server logged nothing while serving: the log check would be empty"
    places = {"engine prompt": lambda i: prompts[i], "audit JSONL": lambda i: jsonl[f"leak-{i:04d}"],
              "audit CSV": lambda i: csv_rows[f"leak-{i:04d}"], "logs": lambda i: log_text}  # fmt: skip
    leaks: dict[str, Counter[str]] = {place: Counter() for place in places}
    examples: dict[str, list[str]] = {}
    for index, batch in enumerate(batches):
        for place, text_of in places.items():
            for entity in _leaked(batch, text_of(index)):
                leaks[place][entity["type"]] += 1
                examples.setdefault(entity["type"], []).append(entity["subtype"])
    totals = Counter(entity["type"] for case in cases for entity in case["entities"])
    per_type = Counter({kind: max(counts[kind] for counts in leaks.values()) for kind in totals})
    print(f"\nleaks on the test split ({len(cases)} cases, {len(batches)} requests; worst place per type):")
    for kind in sorted(totals):
        print(f"  {kind:<16}{per_type[kind]:>5} of {totals[kind]:>4}"
              f"  ({per_type[kind] / totals[kind]:.3f})  " + ", ".join(f"{p}: {c[kind]}" for p, c in leaks.items()))
    print(f"  all             {sum(per_type.values()):>5} of {sum(totals.values()):>4}")

    assert not sum(leaks["logs"].values()), f"PII in the logs: {leaks['logs']}"
    assert not {kind: per_type[kind] for kind in MUST_NOT_LEAK if per_type[kind]}, \
        {kind: examples[kind][:10] for kind in MUST_NOT_LEAK if kind in examples}
    over = {kind: per_type[kind] for kind, ceiling in LEAK_CEILING.items() if per_type[kind] > ceiling}
    assert not over, f"more leaks than measured before: {over}"
