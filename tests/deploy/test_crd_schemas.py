"""The vendored CRD schemas (tests/deploy/schemas): the conversion from a CRD's OpenAPI schema is strict where the API
server is, every vendored file is named in the README with its source and commit, and the CEL rules' Python
equivalents (crd_rules.py) refuse what the rules refuse."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from tests.deploy.crd_rules import RULES, broken_rules
from tests.deploy.crd_to_json_schema import convert_crd

SCHEMAS = Path(__file__).resolve().parent / "schemas"

WIDGET_CRD: dict[str, Any] = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "spec": {"group": "example.com", "names": {"kind": "Widget"}, "versions": [
        {"name": "v1", "served": True, "schema": {"openAPIV3Schema": {
            "type": "object", "description": "A widget.",
            "properties": {
                "apiVersion": {"type": "string"}, "kind": {"type": "string"}, "metadata": {"type": "object"},
                "spec": {"type": "object", "required": ["size"], "properties": {
                    "size": {"x-kubernetes-int-or-string": True},
                    "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                    "tags": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"},
                    "note": {"type": "string", "nullable": True},
                    "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": True,
                             "properties": {"known": {"type": "string"}}},
                }},
            }}}},
        {"name": "v0", "served": False, "schema": {"openAPIV3Schema": {"type": "object"}}},
    ]},
}


@pytest.fixture(scope="module")
def widget() -> jsonschema.Draft7Validator:
    schemas = convert_crd(WIDGET_CRD)
    assert list(schemas) == ["widget-v1.json"]  # versions no longer served are left out
    jsonschema.Draft7Validator.check_schema(schemas["widget-v1.json"])
    return jsonschema.Draft7Validator(schemas["widget-v1.json"])


def _widget(**spec: Any) -> dict[str, Any]:
    return {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": spec}


@pytest.mark.parametrize(("obj", "valid"), [
    (_widget(size=3), True),
    (_widget(size="50%"), True),
    (_widget(size=1.5), False),
    (_widget(size=3, colour="red"), False),  # unknown field: strict
    ({**_widget(size=3), "status": {}}, False),
    (_widget(size=3, labels={"any": "key"}), True),  # a map keeps its free keys
    (_widget(size=3, tags=["a", "a"]), False),
    (_widget(size=3, note=None), True),
    (_widget(size=3, free={"known": "x", "anything": {"else": 1}}), True),
    ({**_widget(size=3), "apiVersion": "example.com/v2"}, False),
    ({**_widget(size=3), "kind": "Gadget"}, False),
    ({"apiVersion": "example.com/v1", "metadata": {}}, False),
])
def test_the_conversion_is_strict_where_the_api_server_is(widget: jsonschema.Draft7Validator, obj: dict[str, Any],
                                                          valid: bool) -> None:
    assert widget.is_valid(obj) is valid, list(widget.iter_errors(obj))


def test_descriptions_are_dropped_and_cel_rules_kept() -> None:
    crd = json.loads(json.dumps(WIDGET_CRD))
    crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["x-kubernetes-validations"] = [
        {"rule": "self.size != 0", "message": "no"}]
    schema = convert_crd(crd)["widget-v1.json"]
    assert "description" not in json.dumps(schema)
    assert schema["properties"]["spec"]["x-kubernetes-validations"] == [{"rule": "self.size != 0", "message": "no"}]


def test_every_vendored_schema_is_named_in_the_readme_with_its_source_and_commit() -> None:
    readme = (SCHEMAS / "README.md").read_text()
    rows = [line for line in readme.splitlines() if line.startswith("| `")]
    named = {name for row in rows for name in re.findall(r"`([\w.-]+\.json)`", row.split("|")[1])}
    assert named == {path.name for path in SCHEMAS.glob("*.json")}
    for row in rows:
        assert re.search(r"`[0-9a-f]{40}`", row) and "Apache-2.0" in row and "https://github.com/" in row, row
    for path in SCHEMAS.glob("*.json"):
        schema = json.loads(path.read_text())
        jsonschema.Draft7Validator.check_schema(schema)
        assert schema["additionalProperties"] is False and schema["properties"]["spec"]["additionalProperties"] is False


def test_every_cel_rule_equivalent_names_a_rule_of_the_vendored_schemas() -> None:
    published = set()
    kinds = {json.loads(p.read_text())["properties"]["kind"]["const"]: json.loads(p.read_text())
             for p in SCHEMAS.glob("*-v1*.json")}

    def walk(kind: str, node: dict[str, Any], place: str) -> None:
        for rule in node.get("x-kubernetes-validations", []):
            published.add((kind, place, rule["message"]))
        for key, child in node.get("properties", {}).items():
            walk(kind, child, f"{place}.{key}" if place else key)
        if isinstance(node.get("items"), dict):
            walk(kind, node["items"], f"{place}[]")

    for kind, schema in kinds.items():
        walk(kind, schema, "")
    assert RULES.keys() <= published, RULES.keys() - published  # a message changed upstream: review the rule


def test_an_unknown_cel_rule_on_a_rendered_field_is_reported() -> None:
    schema = {"properties": {"spec": {"properties": {"n": {"type": "integer"}},
                                      "x-kubernetes-validations": [{"rule": "self.n > 0", "message": "positive"}]}}}
    assert broken_rules({"kind": "Widget", "spec": {"n": 1}}, schema) == [
        "spec: no Python equivalent for CEL rule 'self.n > 0'"]
    assert broken_rules({"kind": "Widget"}, schema) == []  # a rule on an absent field does not run
