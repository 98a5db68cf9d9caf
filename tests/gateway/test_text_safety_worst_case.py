"""The edge's text check on bodies built to hurt it: nested past the standard library's depth, long keys nested
deep over a wide object, a path as long as the body. Each NUL or lone surrogate is still found and refused with a
400 in the API's own shape, audited, and the parameter it names stays short."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from gateway_support import new_tenant_with_key
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from gateway.app import create_app
from gateway.audit.models import AuditRecord
from gateway.core.db import Database
from gateway.core.middleware import REQUEST_ID_HEADER
from gateway.core.settings import Settings
from gateway.core.text_safety import MAX_PARAM_CHARS, UNSAFE_CHARACTERS, unsafe_body_param, unsafe_path

TEXT = st.text(alphabet=st.sampled_from(["a", "b", "\x00", "\ud800", "\udfff", "\U0001f600"]), max_size=4)
JSON = st.recursive(
    st.none() | st.integers() | TEXT,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(TEXT, children, max_size=4),
    max_leaves=30,
)


def _plain_rule(value: Any, path: str = "") -> str | None:
    """The first unsafe string or key in document order, its path spelled as the edge spells it."""
    if isinstance(value, str):
        return (path or "$") if UNSAFE_CHARACTERS.search(value) else None
    if isinstance(value, dict):
        for key, item in value.items():
            escaped = UNSAFE_CHARACTERS.sub(lambda m: f"\\u{ord(m.group()):04x}", key)
            if escaped != key:
                return f"{path}.{escaped}" if path else escaped
            found = _plain_rule(item, f"{path}.{key}" if path else key)
            if found is not None:
                return found
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found = _plain_rule(item, f"{path}[{index}]")
            if found is not None:
                return found
    return None


@settings(max_examples=300, deadline=None)
@given(JSON)
def test_the_first_unsafe_string_or_key_is_named_as_the_plain_rule_names_it(value: Any) -> None:
    expected = _plain_rule(value)
    if expected is not None and len(expected) > MAX_PARAM_CHARS:
        expected = expected[:MAX_PARAM_CHARS] + "..."
    assert unsafe_path(value) == expected


def _nested(depth: int, leaf: str) -> str:
    return '{"a":' * depth + leaf + "}" * depth


@pytest.mark.parametrize("depth", [900, 5_000, 100_000])
def test_a_nul_nested_at_any_depth_is_found(depth: int) -> None:
    param = unsafe_body_param(_nested(depth, '"\\u0000"').encode())
    assert param is not None and len(param) <= MAX_PARAM_CHARS + 3
    assert unsafe_body_param(_nested(depth, '"fine"').encode()) is None


def test_long_keys_nested_over_a_wide_object_name_a_short_param() -> None:
    value: Any = {**{f"i{i}": i for i in range(5_000)}, "z": "\x00"}
    for _ in range(200):
        value = {"k" * 2_000: value}
    param = unsafe_body_param(json.dumps(value).encode())
    assert param == ("k" * 2_000)[:MAX_PARAM_CHARS] + "..."


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings, start_engine=False)) as test_client:
        yield test_client


@pytest.mark.parametrize("path", ["/v1/chat/completions", "/v1/messages", "/v1/responses"])
@pytest.mark.parametrize("depth", [900, 5_000])
def test_a_deep_body_holding_a_nul_is_a_400_in_the_apis_shape_and_audited(client: TestClient, db: Database,
                                                                          settings: Settings, path: str,
                                                                          depth: int) -> None:
    _, issued = new_tenant_with_key(db, settings)
    body = f'{{"model": "m", "max_tokens": 4, "x": {_nested(depth, chr(34) + chr(92) + "u0000" + chr(34))}}}'
    response = client.post(path, content=body.encode(), headers={"content-type": "application/json",
                                                                   "authorization": f"Bearer {issued.api_key}"})
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    if path == "/v1/messages":
        assert response.json()["type"] == "error" and error["type"] == "invalid_request_error"
    else:
        assert error["code"] == "invalid_text" and len(error["param"]) <= MAX_PARAM_CHARS + 3
    assert client.app.state.services.audit.flush(10)  # type: ignore[attr-defined]
    with db.session() as session:
        (row,) = session.scalars(select(AuditRecord).where(
            AuditRecord.request_id == response.headers[REQUEST_ID_HEADER]))
    assert row.http_status == 400
