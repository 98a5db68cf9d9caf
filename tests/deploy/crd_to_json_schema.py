"""Turns a CustomResourceDefinition's published OpenAPI v3 schemas into JSON Schema (draft 7) files, one per served
version, named ``<kind>-<version>.json`` (lower case), for validating rendered chart objects offline.

Run from the repository root, once per vendored CRD:
    .venv/bin/python tests/deploy/crd_to_json_schema.py <crd.yaml> --out tests/deploy/schemas

What changes, and why (the API server's own rules, so JSON Schema refuses what ``kubectl apply --validate=strict``
refuses):

- ``apiVersion`` and ``kind`` become constants and required, so each file names the one resource it describes.
- Every object schema with ``properties`` and neither ``additionalProperties`` nor
  ``x-kubernetes-preserve-unknown-fields: true`` gets ``additionalProperties: false``: the API server reports an
  unknown field there (strict field validation); a map (``additionalProperties`` given) is left as it is.
- ``x-kubernetes-int-or-string`` without an ``anyOf`` becomes ``anyOf: [integer, string]``; ``nullable`` adds
  ``null`` to the type; ``x-kubernetes-list-type: set`` becomes ``uniqueItems``.
- ``description`` and ``example`` text is dropped (size; it is in the CRD). The other ``x-kubernetes-*`` keywords
  stay, ignored by JSON Schema: ``x-kubernetes-validations`` holds CEL rules that JSON Schema cannot evaluate.
- ``metadata`` stays ``type: object`` as in the CRD: the API server checks it as an ObjectMeta, which the tests do
  with the bundled Kubernetes schemas.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import yaml

DROPPED = {"description", "example"}
SCHEMA_MAPS = {"properties", "patternProperties", "definitions"}  # keyword -> {name: schema}
SCHEMA_LISTS = {"allOf", "anyOf", "oneOf"}
SCHEMA_VALUES = {"items", "additionalProperties", "not"}


def convert_node(node: dict[str, Any]) -> dict[str, Any]:
    """One OpenAPI v3 schema node (and everything below it) as strict JSON Schema."""
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in DROPPED:
            continue
        if key in SCHEMA_MAPS:
            out[key] = {name: convert_node(child) for name, child in value.items()}
        elif key in SCHEMA_LISTS:
            out[key] = [convert_node(child) for child in value]
        elif key in SCHEMA_VALUES and isinstance(value, dict):
            out[key] = convert_node(value)
        else:
            out[key] = value
    if out.get("x-kubernetes-int-or-string") and "anyOf" not in out and "type" not in out:
        out["anyOf"] = [{"type": "integer"}, {"type": "string"}]
    if out.pop("nullable", False) and "type" in out:
        out["type"] = [out["type"], "null"]
    if out.get("x-kubernetes-list-type") == "set":
        out["uniqueItems"] = True
    if "properties" in out and "additionalProperties" not in out \
            and not out.get("x-kubernetes-preserve-unknown-fields"):
        out["additionalProperties"] = False
    return out


def convert_crd(crd: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """{file name: JSON Schema} for every served version of ``crd``."""
    group, kind = crd["spec"]["group"], crd["spec"]["names"]["kind"]
    schemas = {}
    for version in crd["spec"]["versions"]:
        if not version.get("served", True):
            continue
        schema = convert_node(version["schema"]["openAPIV3Schema"])
        properties = schema.setdefault("properties", {})
        properties["apiVersion"] = {"const": f"{group}/{version['name']}"}
        properties["kind"] = {"const": kind}
        schema["required"] = ["apiVersion", "kind", *[r for r in schema.get("required", [])
                                                      if r not in ("apiVersion", "kind")]]
        schemas[f"{kind.lower()}-{version['name']}.json"] = {
            "$schema": "http://json-schema.org/draft-07/schema#",
            "title": f"{kind} {group}/{version['name']}",
            **schema,
        }
    return schemas


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("crd", type=Path, nargs="+", help="a CustomResourceDefinition YAML file")
    parser.add_argument("--out", type=Path, required=True, help="the folder the JSON Schema files go to")
    args = parser.parse_args()
    for path in args.crd:
        for name, schema in convert_crd(yaml.safe_load(path.read_text())).items():
            (args.out / name).write_text(json.dumps(schema, indent=1, sort_keys=True) + "\n")
            print(args.out / name)


if __name__ == "__main__":
    main()
