"""The CEL rules (``x-kubernetes-validations``) of the vendored CRD schemas, for the fields the chart renders, as
Python: JSON Schema cannot evaluate CEL, and the API server refuses an object that breaks one.

Each rule is keyed by its place in the object (list items as ``[]``) and its published message. ``broken_rules``
walks a rendered object beside its schema and reports a rule it has no Python equivalent for as broken, so a newly
vendored schema whose rules reach the chart's fields fails the tests until the rule is written here.

Defaults the API server applies before it runs the rules (a parentRef's group and kind, a backendRef's group and
kind) are applied here the same way. A rule on a field that is absent does not run, as in the API server.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

Rule = Callable[[Any], bool]
EXACT_OR_PREFIX = ("Exact", "PathPrefix")
ROUTE_KINDS = ("HTTPRoute", "GRPCRoute", "TCPRoute")
POLICY_TARGET_KINDS = ("Gateway", "ListenerSet", *ROUTE_KINDS)
PATH_CHARACTERS = re.compile(r"^(?:[-A-Za-z0-9/._~!$&'()*+,;=:@]|[%][0-9a-fA-F]{2})+$")
DURATION_PART = re.compile(r"([0-9]{1,5})(h|m|s|ms)")
DURATION_MS = {"h": 3_600_000, "m": 60_000, "s": 1000, "ms": 1}


def _duration_ms(text: str) -> int:
    return sum(int(n) * DURATION_MS[unit] for n, unit in DURATION_PART.findall(text))


def _parent_key(ref: dict[str, Any]) -> tuple[str, str, str, str]:
    return (ref.get("group", "gateway.networking.k8s.io"), ref.get("kind", "Gateway"), ref["name"],
            ref.get("namespace") or "")


def _section_names_consistent(refs: list[dict[str, Any]]) -> bool:
    """The same parent twice: all with a sectionName or none."""
    with_section: dict[tuple[str, str, str, str], set[bool]] = {}
    for ref in refs:
        with_section.setdefault(_parent_key(ref), set()).add(bool(ref.get("sectionName")))
    return all(len(kinds) == 1 for kinds in with_section.values())


def _section_names_unique(refs: list[dict[str, Any]]) -> bool:
    keys = [(*_parent_key(ref), ref.get("sectionName") or "") for ref in refs]
    return len(keys) == len(set(keys))


def _filters(rule: dict[str, Any], *, in_backends: bool) -> Iterator[dict[str, Any]]:
    if in_backends:
        for backend in rule.get("backendRefs", []):
            yield from backend.get("filters", [])
    else:
        yield from rule.get("filters", [])


def _prefix_rewrites(rule: dict[str, Any], kind: str, *, in_backends: bool) -> bool:
    """A ReplacePrefixMatch of ``kind`` (requestRedirect or urlRewrite) needs exactly one PathPrefix match."""
    uses = any(f.get(kind, {}).get("path", {}).get("type") == "ReplacePrefixMatch"
               and "replacePrefixMatch" in f[kind]["path"] for f in _filters(rule, in_backends=in_backends))
    matches = rule.get("matches", [{"path": {"type": "PathPrefix", "value": "/"}}])
    return not uses or (len(matches) == 1 and matches[0].get("path", {}).get("type") == "PathPrefix")


def _exact_or_prefix(check: Callable[[str], bool]) -> Rule:
    return lambda path: path.get("type", "PathPrefix") not in EXACT_OR_PREFIX or check(path.get("value", "/"))


RULES: dict[tuple[str, str, str], Rule] = {
    ("InferencePool", "spec.endpointPickerRef",
     "port is required when kind is 'Service' or unspecified (defaults to 'Service')"):
        lambda ref: ref.get("kind", "Service") != "Service" or "port" in ref,
    ("InferencePool", "spec.targetPorts", "port number must be unique"):
        lambda ports: len({p["number"] for p in ports}) == len(ports),
    ("ScaledObject", "spec", "minReplicaCount must be less than or equal to maxReplicaCount"):
        lambda spec: "minReplicaCount" not in spec or spec["minReplicaCount"] <= spec.get("maxReplicaCount", 100),
    ("HTTPRoute", "spec.parentRefs",
     "sectionName must be specified when parentRefs includes 2 or more references to the same parent"):
        _section_names_consistent,
    ("HTTPRoute", "spec.parentRefs",
     "sectionName must be unique when parentRefs includes 2 or more references to the same parent"):
        _section_names_unique,
    ("HTTPRoute", "spec.rules", "While 16 rules and 64 matches per rule are allowed, the total number of matches "
                                "across all rules in a route must be less than 128"):
        lambda rules: sum(len(r.get("matches", [{}])) for r in rules[:16]) <= 128,
    ("HTTPRoute", "spec.rules[]", "RequestRedirect filter must not be used together with backendRefs"):
        lambda rule: not rule.get("backendRefs") or not any("requestRedirect" in f for f in rule.get("filters", [])),
    ("HTTPRoute", "spec.rules[]", "When using RequestRedirect filter with path.replacePrefixMatch, exactly one "
                                  "PathPrefix match must be specified"):
        lambda rule: _prefix_rewrites(rule, "requestRedirect", in_backends=False),
    ("HTTPRoute", "spec.rules[]", "When using URLRewrite filter with path.replacePrefixMatch, exactly one PathPrefix "
                                  "match must be specified"):
        lambda rule: _prefix_rewrites(rule, "urlRewrite", in_backends=False),
    ("HTTPRoute", "spec.rules[]", "Within backendRefs, when using RequestRedirect filter with "
                                  "path.replacePrefixMatch, exactly one PathPrefix match must be specified"):
        lambda rule: _prefix_rewrites(rule, "requestRedirect", in_backends=True),
    ("HTTPRoute", "spec.rules[]", "Within backendRefs, When using URLRewrite filter with path.replacePrefixMatch, "
                                  "exactly one PathPrefix match must be specified"):
        lambda rule: _prefix_rewrites(rule, "urlRewrite", in_backends=True),
    ("HTTPRoute", "spec.rules[].backendRefs[]", "Must have port for Service reference"):
        lambda ref: ref.get("group", "") != "" or ref.get("kind", "Service") != "Service" or "port" in ref,
    ("HTTPRoute", "spec.rules[].matches[].path",
     "value must be an absolute path and start with '/' when type one of ['Exact', 'PathPrefix']"):
        _exact_or_prefix(lambda value: value.startswith("/")),
    **{("HTTPRoute", "spec.rules[].matches[].path", f"must not contain '{part}' when type one of ['Exact', "
                                                    "'PathPrefix']"):
       _exact_or_prefix(lambda value, part=part: part not in value)
       for part in ("//", "/./", "/../", "%2f", "%2F", "#")},
    **{("HTTPRoute", "spec.rules[].matches[].path", f"must not end with '{end}' when type one of ['Exact', "
                                                    "'PathPrefix']"):
       _exact_or_prefix(lambda value, end=end: not value.endswith(end))
       for end in ("/..", "/.")},
    ("HTTPRoute", "spec.rules[].matches[].path", "type must be one of ['Exact', 'PathPrefix', 'RegularExpression']"):
        lambda path: path.get("type", "PathPrefix") in (*EXACT_OR_PREFIX, "RegularExpression"),
    ("HTTPRoute", "spec.rules[].matches[].path",
     "must only contain valid characters (matching ^(?:[-A-Za-z0-9/._~!$&'()*+,;=:@]|[%][0-9a-fA-F]{2})+$) for types "
     "['Exact', 'PathPrefix']"):
        _exact_or_prefix(lambda value: bool(PATH_CHARACTERS.match(value))),
    ("HTTPRoute", "spec.rules[].timeouts", "backendRequest timeout cannot be longer than request timeout"):
        lambda t: not ("request" in t and "backendRequest" in t and _duration_ms(t["request"]) != 0
                       and _duration_ms(t["backendRequest"]) > _duration_ms(t["request"])),
    ("SecurityPolicy", "spec", "either targetRef or targetRefs must be used"):
        lambda spec: ("targetRef" in spec) != ("targetRefs" in spec) or bool(spec.get("targetSelectors")),
    ("SecurityPolicy", "spec", "this policy can only have a targetRef.group of gateway.networking.k8s.io"):
        lambda spec: "targetRef" not in spec or spec["targetRef"]["group"] == "gateway.networking.k8s.io",
    ("SecurityPolicy", "spec",
     "this policy can only have a targetRef.kind of Gateway/ListenerSet/HTTPRoute/GRPCRoute/TCPRoute"):
        lambda spec: "targetRef" not in spec or spec["targetRef"]["kind"] in POLICY_TARGET_KINDS,
    ("SecurityPolicy", "spec", "this policy can only have a targetRefs[*].group of gateway.networking.k8s.io"):
        lambda spec: all(ref["group"] == "gateway.networking.k8s.io" for ref in spec.get("targetRefs", [])),
    ("SecurityPolicy", "spec",
     "this policy can only have a targetRefs[*].kind of Gateway/ListenerSet/HTTPRoute/GRPCRoute/TCPRoute"):
        lambda spec: all(ref["kind"] in POLICY_TARGET_KINDS for ref in spec.get("targetRefs", [])),
    ("SecurityPolicy", "spec", "mergeType can only be used with xRoute targets"):
        lambda spec: "mergeType" not in spec or all(
            ref["kind"] in ROUTE_KINDS for ref in [*([spec["targetRef"]] if "targetRef" in spec else []),
                                                   *spec.get("targetRefs", []), *spec.get("targetSelectors", [])]),
    ("SecurityPolicy", "spec", "if authorization.rules.principal.jwt is used, jwt must be defined"):
        lambda spec: "jwt" in spec or not any("jwt" in rule.get("principal", {})
                                              for rule in spec.get("authorization", {}).get("rules", [])),
    ("SecurityPolicy", "spec.extAuth", "one of grpc or http must be specified"):
        lambda ext: "grpc" in ext or "http" in ext,
    ("SecurityPolicy", "spec.extAuth", "only one of grpc or http can be specified"):
        lambda ext: ("grpc" in ext) != ("http" in ext),
    ("SecurityPolicy", "spec.extAuth.http", "backendRef or backendRefs needs to be set"):
        lambda http: "backendRef" in http or len(http.get("backendRefs", [])) > 0,
    ("SecurityPolicy", "spec.extAuth.http", "BackendRefs only supports Service, ServiceImport, and Backend kind."):
        lambda http: all(ref.get("kind", "Service") in ("Service", "ServiceImport", "Backend")
                         for ref in http.get("backendRefs", [])),
    ("SecurityPolicy", "spec.extAuth.http",
     "BackendRefs only supports Core, multicluster.x-k8s.io, and gateway.envoyproxy.io groups."):
        lambda http: all(ref.get("group", "") in ("", "multicluster.x-k8s.io", "gateway.envoyproxy.io")
                         for ref in http.get("backendRefs", [])),
    ("SecurityPolicy", "spec.extAuth.http", "only one of path or pathOverride can be specified"):
        lambda http: not ("path" in http and "pathOverride" in http),
    ("SecurityPolicy", "spec.extAuth.http.backendRefs[]", "Must have port for Service reference"):
        lambda ref: ref.get("group", "") != "" or ref.get("kind", "Service") != "Service" or "port" in ref,
}


def broken_rules(obj: dict[str, Any], schema: dict[str, Any]) -> list[str]:
    """'<place>: <message>' for every CEL rule on a field present in ``obj`` that it breaks, or that has no Python
    equivalent here."""
    broken: list[str] = []

    def walk(value: Any, node: dict[str, Any], place: str) -> None:
        for rule in node.get("x-kubernetes-validations", []):
            check = RULES.get((obj["kind"], place, rule["message"]))
            if check is None:
                broken.append(f"{place}: no Python equivalent for CEL rule {rule['rule']!r}")
            elif not check(value):
                broken.append(f"{place}: {rule['message']}")
        if isinstance(value, dict):
            for key, child in value.items():
                if key in node.get("properties", {}):
                    walk(child, node["properties"][key], f"{place}.{key}" if place else key)
        elif isinstance(value, list) and isinstance(node.get("items"), dict):
            for child in value:
                walk(child, node["items"], f"{place}[]")

    walk(obj, schema, "")
    return broken
