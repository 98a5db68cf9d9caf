"""The Helm chart (deploy/helm/warden), rendered and linted offline by Helm's own SDK (helm-python-sdk) for a matrix
of values files, every object validated strictly against the bundled Kubernetes schemas (kubernetes-validate) or the
vendored CRD schemas (tests/deploy/schemas: the published CRDs' OpenAPI schemas with their CEL rules as Python in
crd_rules.py), and the invariants the chart promises: selectors that match, Secret
references that exist, the migration hook, probe and drain timings consistent with Warden's settings, no
credential in plain text, and the renders that must fail."""

from __future__ import annotations

import base64
import json
import math
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import helm_python as helm
import jsonschema
import kubernetes_validate
import pytest
import yaml
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from kubernetes_validate.utils import latest_version

from gateway.cli import SHUTDOWN_CUT_MARGIN_S, build_parser
from gateway.core.engine_settings import EngineSettings
from gateway.core.settings import Settings
from gateway.fairness import AUTHZ_PATH, FAIRNESS_ID_HEADER
from tests.deploy.crd_rules import broken_rules

ROOT = Path(__file__).resolve().parents[2]
CHART_DIR = ROOT / "deploy" / "helm" / "warden"
HERE = Path(__file__).resolve().parent
VALUES_FILES = sorted((HERE / "values").glob("*.yaml"))
RELEASE, NAMESPACE = "warden", "ai"
KUBE_VERSION = latest_version()
CREDENTIAL_NAME = re.compile(r"(?i)(SECRET|PASSWORD|TOKEN|PEPPER|API_KEY|_KEY$)")
URL_WITH_PASSWORD = re.compile(r"[a-z][a-z0-9+.-]*://[^/\s:@]*:[^/\s@]+@", re.IGNORECASE)
# Paths in values that name Secrets the operator creates (the chart references, never creates, them).
EXTERNAL_SECRET_VALUES = [("secrets", "existingSecret"), ("database", "existingSecret"), ("database", "caSecret"),
                          ("redis", "existingSecret"), ("server", "tls", "existingSecret"), ("tests", "apiKeySecret")]


def _crd_schemas() -> dict[tuple[str, str], dict[str, Any]]:
    schemas = {}
    for path in (HERE / "schemas").glob("*.json"):
        schema = json.loads(path.read_text())
        jsonschema.Draft7Validator.check_schema(schema)
        props = schema["properties"]
        schemas[(props["apiVersion"]["const"], props["kind"]["const"])] = schema
    return schemas


CRD_SCHEMAS = _crd_schemas()
# The integer formats the CRDs declare, checked as the API server does (JSON Schema leaves formats to the caller).
CRD_FORMATS = jsonschema.FormatChecker(formats=())
CRD_FORMATS.checks("int32")(lambda n: not isinstance(n, int) or -(2**31) <= n < 2**31)
CRD_FORMATS.checks("int64")(lambda n: not isinstance(n, int) or -(2**63) <= n < 2**63)


def crd_problems(obj: dict[str, Any]) -> list[str]:
    """What the API server would refuse in a custom resource: its schema (strict), its metadata as an ObjectMeta,
    and its CEL rules."""
    schema = CRD_SCHEMAS[(obj["apiVersion"], obj["kind"])]
    validator = jsonschema.Draft7Validator(schema, format_checker=CRD_FORMATS)
    problems = [f"{'.'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(obj)]
    try:  # metadata is an ObjectMeta whatever the kind: checked inside a ConfigMap by the bundled schemas
        kubernetes_validate.validate({"apiVersion": "v1", "kind": "ConfigMap", "metadata": obj["metadata"]},
                                     KUBE_VERSION, strict=True)
    except kubernetes_validate.ValidationError as error:
        problems.append(f"metadata: {error.message}")
    return problems + broken_rules(obj, schema)


@pytest.fixture(scope="module")
def chart() -> Iterator[helm.Chart]:
    with helm.Chart.load(CHART_DIR) as loaded:
        yield loaded


def load_values(path: Path) -> dict[str, Any]:
    return yaml.safe_load(path.read_text()) or {}


def render(chart: helm.Chart, values: dict[str, Any]) -> list[dict[str, Any]]:
    manifests = chart.render(values, name=RELEASE, namespace=NAMESPACE, is_install=True)
    objects = []
    for template, text in sorted(manifests.items()):
        if template.endswith("NOTES.txt"):
            continue
        objects.extend(doc for doc in yaml.safe_load_all(text) if doc)
    return objects


def dig(values: Any, path: tuple[str, ...]) -> Any:
    """The value at ``path`` in nested values; None when absent or empty (an unset Secret name is "")."""
    for key in path:
        values = values.get(key) if isinstance(values, dict) else None
    return None if values in ("", {}, None) else values


def of_kind(objects: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [o for o in objects if o["kind"] == kind]


def one(objects: list[dict[str, Any]], kind: str, component: str | None = "server") -> dict[str, Any]:
    found = [o for o in of_kind(objects, kind)
             if component is None or o["metadata"]["labels"].get("app.kubernetes.io/component", "server") == component]
    assert len(found) == 1, [o["metadata"]["name"] for o in found]
    return found[0]


def server(objects: list[dict[str, Any]]) -> dict[str, Any]:
    return one(objects, "Deployment")


def warden_container(objects: list[dict[str, Any]]) -> dict[str, Any]:
    (container,) = server(objects)["spec"]["template"]["spec"]["containers"]
    return container


def pod_specs(objects: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    for obj in objects:
        if obj["kind"] == "Pod":
            yield obj["spec"]
        elif obj["kind"] in ("Deployment", "StatefulSet", "Job"):
            yield obj["spec"]["template"]["spec"]


@pytest.fixture(scope="module", params=VALUES_FILES, ids=[p.stem for p in VALUES_FILES])
def case(request: pytest.FixtureRequest, chart: helm.Chart) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    values = load_values(request.param)
    return values, render(chart, values)


def test_the_matrix_covers_every_optional_object(chart: helm.Chart) -> None:
    kinds = {o["kind"] for path in VALUES_FILES for o in render(chart, load_values(path))}
    assert {"Deployment", "Service", "PodDisruptionBudget", "Job", "Secret", "ServiceAccount", "InferencePool",
            "HTTPRoute", "SecurityPolicy", "ScaledObject", "HorizontalPodAutoscaler", "ServiceMonitor", "NetworkPolicy",
            "StatefulSet", "Pod"} <= kinds


@pytest.mark.parametrize("values_file", VALUES_FILES, ids=[p.stem for p in VALUES_FILES])
def test_lint_is_clean_and_the_values_match_the_schema(chart: helm.Chart, values_file: Path) -> None:
    values = load_values(values_file)
    report = helm.lint(CHART_DIR, values, strict=True, namespace=NAMESPACE)
    assert report["errors"] == []
    assert [m for m in report["messages"] if m["severity"] >= 2] == []
    chart.validate_schema(chart.merge_values(values))


def test_the_values_schema_refuses_a_misspelt_key(chart: helm.Chart) -> None:
    with pytest.raises(helm.HelmValuesError, match="replicaCont"):
        chart.validate_schema(chart.merge_values({"replicaCont": 2}))


def test_every_object_is_valid_for_its_schema(case: tuple[dict[str, Any], list[dict[str, Any]]]) -> None:
    _, objects = case
    for obj in objects:
        key = (obj["apiVersion"], obj["kind"])
        if key in CRD_SCHEMAS:
            assert crd_problems(obj) == [], key
        else:
            kubernetes_validate.validate(obj, KUBE_VERSION, strict=True)


def test_selectors_and_references_match(case: tuple[dict[str, Any], list[dict[str, Any]]]) -> None:
    values, objects = case
    deployment = server(objects)
    selector = deployment["spec"]["selector"]["matchLabels"]
    pod_labels = deployment["spec"]["template"]["metadata"]["labels"]
    assert selector.items() <= pod_labels.items()
    service = one(objects, "Service")
    assert service["spec"]["selector"] == selector
    container = warden_container(objects)
    assert service["spec"]["ports"][0]["targetPort"] in [p["name"] for p in container["ports"]]
    for pdb in of_kind(objects, "PodDisruptionBudget"):
        assert pdb["spec"]["selector"]["matchLabels"] == selector
    for policy in of_kind(objects, "NetworkPolicy"):
        assert policy["spec"]["podSelector"]["matchLabels"] == selector
        assert [p["port"] for p in policy["spec"]["ingress"][0]["ports"]] == [container["ports"][0]["containerPort"]]
        egress_ports = {p["port"] for rule in policy["spec"]["egress"] for p in rule["ports"]}
        assert egress_ports == {53, dig(values, ("database", "port")) or 5432, dig(values, ("redis", "port")) or 6379} \
            | ({4318} if dig(values, ("tracing", "enabled")) else set()) \
            | ({443} if dig(values, ("admin", "jwksUrl")) else set())
    for monitor in of_kind(objects, "ServiceMonitor"):
        assert monitor["spec"]["selector"]["matchLabels"].items() <= service["metadata"]["labels"].items()
        assert monitor["spec"]["endpoints"][0]["port"] == service["spec"]["ports"][0]["name"]
    for pool in of_kind(objects, "InferencePool"):
        assert pool["spec"]["selector"]["matchLabels"] == selector
        assert pool["spec"]["targetPorts"] == [{"number": container["ports"][0]["containerPort"]}]
        for route in of_kind(objects, "HTTPRoute"):
            (backend,) = route["spec"]["rules"][0]["backendRefs"]
            assert (backend["kind"], backend["name"]) == ("InferencePool", pool["metadata"]["name"])
    for policy in of_kind(objects, "SecurityPolicy"):  # the fairness id's ext_authz (gateway.fairness)
        (route,) = of_kind(objects, "HTTPRoute")
        (target,) = policy["spec"]["targetRefs"]
        assert (target["kind"], target["name"]) == ("HTTPRoute", route["metadata"]["name"])
        ext_auth = policy["spec"]["extAuth"]
        assert ext_auth["failOpen"] is False
        assert {"authorization", "x-api-key"} <= set(ext_auth["headersToExtAuth"])
        (backend,) = ext_auth["http"]["backendRefs"]
        assert (backend["name"], backend["port"]) == (service["metadata"]["name"], service["spec"]["ports"][0]["port"])
        assert ext_auth["http"]["path"] == AUTHZ_PATH
        assert ext_auth["http"]["headersToBackend"] == [FAIRNESS_ID_HEADER]
    for scaler in of_kind(objects, "ScaledObject") + of_kind(objects, "HorizontalPodAutoscaler"):
        target = scaler["spec"]["scaleTargetRef"]
        assert (target["kind"], target["name"]) == ("Deployment", deployment["metadata"]["name"])
        assert "replicas" not in deployment["spec"]  # the autoscaler owns the count
    for obj in of_kind(objects, "ScaledObject"):
        assert "vllm:num_requests_waiting" in obj["spec"]["triggers"][0]["metadata"]["query"]
    if not (values.get("autoscaling", {}).get("keda", {}).get("enabled")
            or values.get("autoscaling", {}).get("hpa", {}).get("enabled")):
        assert deployment["spec"]["replicas"] == values.get("replicaCount", 1)


def secret_references(objects: list[dict[str, Any]]) -> Iterator[tuple[str, str | None]]:
    """(Secret name, key or None for a whole-Secret volume) for every reference in the rendered objects."""
    for spec in pod_specs(objects):
        for container in spec["containers"]:
            for env in container.get("env", []):
                ref = env.get("valueFrom", {}).get("secretKeyRef")
                if ref:
                    yield ref["name"], ref["key"]
        for volume in spec.get("volumes", []):
            if "secret" in volume:
                items = volume["secret"].get("items")
                for item in items or [None]:
                    yield volume["secret"]["secretName"], item["key"] if item else None
    for monitor in of_kind(objects, "ServiceMonitor"):
        credentials = monitor["spec"]["endpoints"][0].get("authorization", {}).get("credentials")
        if credentials:
            yield credentials["name"], credentials["key"]


def test_every_secret_reference_exists(case: tuple[dict[str, Any], list[dict[str, Any]]]) -> None:
    values, objects = case
    rendered = {s["metadata"]["name"]: set(s.get("data", {})) for s in of_kind(objects, "Secret")}
    external = {dig(values, path) for path in EXTERNAL_SECRET_VALUES} - {None}
    references = list(secret_references(objects))
    assert references
    for name, key in references:
        if name in rendered:
            assert key is None or key in rendered[name], (name, key)
        else:
            assert name in external, f"{name} is neither rendered nor declared by the values as existing"


def test_migrations_run_as_a_hook_job_of_the_real_cli(case: tuple[dict[str, Any], list[dict[str, Any]]]) -> None:
    values, objects = case
    job = one(objects, "Job", "migrate")
    annotations = job["metadata"]["annotations"]
    bundled = bool(dig(values, ("postgresql", "bundled", "enabled")))
    hooks = set(annotations["helm.sh/hook"].split(","))
    # Before the new pods start; a bundled trial database only exists after the install's resources do.
    assert hooks == ({"post-install", "pre-upgrade"} if bundled else {"pre-install", "pre-upgrade"})
    assert annotations["helm.sh/hook-weight"] == "0"
    assert "before-hook-creation" in annotations["helm.sh/hook-delete-policy"]
    spec = job["spec"]["template"]["spec"]
    assert spec["restartPolicy"] == "Never" and job["spec"]["backoffLimit"] >= 1
    (container,) = spec["containers"]
    args = container["args"]
    assert args[:3] == ["warden", "db", "upgrade"]
    parsed = build_parser().parse_args(args[1:])
    assert parsed.func.__name__ == "cmd_db_upgrade" and parsed.wait_s > 0
    env_names = {e["name"] for e in container["env"]}
    assert {"WARDEN_DATABASE_URL", "PGPASSWORD"} <= env_names
    assert "WARDEN_SERVER_SECRET" not in env_names  # the Job gets only what migrating needs
    hooked = [o for o in objects if "helm.sh/hook" in o["metadata"].get("annotations", {})]
    assert {o["kind"] for o in hooked} <= {"Job", "Pod"}
    for pod in of_kind(objects, "Pod"):
        assert pod["metadata"]["annotations"]["helm.sh/hook"] == "test"
    # Pods never migrate: only the Job does (the pods' readiness waits for the schema instead). A bundled trial
    # database exists only after the install, and `helm install --wait` runs post-install hooks once the pods are
    # ready: there the pods migrate themselves, under the same advisory lock.
    serve = build_parser().parse_args(warden_container(objects)["args"][1:])
    assert serve.func.__name__ == "cmd_serve" and serve.migrate is bundled


def literal_env(container: dict[str, Any]) -> dict[str, str]:
    return {e["name"]: e["value"] for e in container["env"] if "value" in e}


def test_probes_and_drain_follow_warden_settings(case: tuple[dict[str, Any], list[dict[str, Any]]],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    values, objects = case
    deployment = server(objects)
    assert deployment["spec"]["strategy"]["rollingUpdate"]["maxUnavailable"] == 0
    container = warden_container(objects)
    assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert container["livenessProbe"]["httpGet"]["path"] == "/healthz"
    assert container["startupProbe"]["httpGet"]["path"] == "/healthz"
    scheme = "HTTP" if dig(values, ("server", "tls", "enabled")) is False else "HTTPS"
    for probe in ("readinessProbe", "livenessProbe", "startupProbe"):
        assert container[probe]["httpGet"]["scheme"] == scheme
    assert ("--http" in container["args"]) == (scheme == "HTTP")
    env = literal_env(container)
    for name, value in env.items():  # every literal is a setting Warden reads, with a value it accepts
        monkeypatch.setenv(name, value)
    settings = Settings()
    known = {f"WARDEN_{f.upper()}" for f in Settings.model_fields} | \
            {f"WARDEN_ENGINE_{f.upper()}" for f in EngineSettings.model_fields}
    assert {name for name in env if name.startswith("WARDEN_")} <= known
    pre_stop = container["lifecycle"]["preStop"]["sleep"]["seconds"]
    grace = deployment["spec"]["template"]["spec"]["terminationGracePeriodSeconds"]
    assert grace >= pre_stop + math.ceil(settings.shutdown_grace_s) + SHUTDOWN_CUT_MARGIN_S
    assert settings.shutdown_unready_s <= settings.shutdown_grace_s
    assert settings.engine.tensor_parallel_size == (dig(values, ("engine", "tensorParallelSize")) or 1)
    if settings.engine.device == "cuda":
        assert container["resources"]["limits"]["nvidia.com/gpu"] == settings.engine.tensor_parallel_size
    else:
        assert "nvidia.com/gpu" not in container["resources"].get("limits", {})


def test_no_credential_in_plain_text(case: tuple[dict[str, Any], list[dict[str, Any]]]) -> None:
    _, objects = case
    secret_values = [base64.b64decode(v).decode() for s in of_kind(objects, "Secret") for v in s["data"].values()]
    for spec in pod_specs(objects):
        for container in spec["containers"]:
            for name, value in literal_env(container).items():
                assert not CREDENTIAL_NAME.search(name) or value.startswith("/"), name  # a file path is fine
                assert not URL_WITH_PASSWORD.search(value), name
    for obj in objects:
        if obj["kind"] == "Secret":
            continue
        text = yaml.safe_dump(obj)
        assert not URL_WITH_PASSWORD.search(text), obj["metadata"]["name"]
        for secret in secret_values:
            assert secret not in text, obj["metadata"]["name"]


def test_generated_secrets_are_fresh_well_formed_and_kept_by_lookup(chart: helm.Chart) -> None:
    values = load_values(HERE / "values" / "external-minimal.yaml")
    first, second = (one(render(chart, values), "Secret") for _ in range(2))
    assert first["metadata"]["annotations"]["helm.sh/resource-policy"] == "keep"
    decoded = [{k: base64.b64decode(v) for k, v in s["data"].items()} for s in (first, second)]
    assert decoded[0]["server-secret"] != decoded[1]["server-secret"] and len(decoded[0]["server-secret"]) >= 48
    key = serialization.load_pem_private_key(decoded[0]["export-signing-key"], password=None)
    assert isinstance(key, Ed25519PrivateKey)
    # Offline, lookup finds nothing (hence fresh values above); in a cluster it returns the Secret already there.
    secret_template = next(t["data"] for t in chart.templates if t["name"] == "templates/secret.yaml")
    assert 'lookup "v1" "Secret" .Release.Namespace $name' in secret_template
    assert "get $data .Values.secrets.serverSecretKey | default" in secret_template


BASE = {"database": {"host": "pg.example", "existingSecret": "warden-db"}}


@pytest.mark.parametrize(("overrides", "message"), [
    ({"replicaCount": 2}, "needs Redis"),
    ({"autoscaling": {"keda": {"enabled": True}}}, "needs Redis"),
    ({"autoscaling": {"hpa": {"enabled": True}}}, "needs Redis"),
    ({"redis": {"existingSecret": "r"}, "autoscaling": {"keda": {"enabled": True}, "hpa": {"enabled": True}}},
     "alternatives"),
    ({"server": {"shutdown": {"graceSeconds": 60, "terminationGracePeriodSeconds": 60}}}, "SIGKILL pods mid-drain"),
    ({"server": {"shutdown": {"graceSeconds": 10, "unreadySeconds": 20}}}, "exceeds graceSeconds"),
    ({"database": {"host": "pg.example", "existingSecret": ""}}, "only from a Secret"),
    ({"database": {"host": ""}}, "database.host is required"),
    ({"server": {"extraEnv": {"WARDEN_SERVER_SECRET": "hunter2"}}}, "may carry a credential"),
    ({"engine": {"extraEnv": {"WARDEN_REDIS_URL": "redis://:pw@r:6379/0"}}}, "may carry a credential"),
    ({"server": {"tls": {"enabled": False}}, "inferencePool": {"enabled": True, "httpRoute": {"enabled": False},
                                                              "fairnessId": {"envoyGateway": {"enabled": True}}}},
     "set inferencePool.httpRoute.enabled"),
    ({"inferencePool": {"enabled": True}}, "inferencePool.enabled needs server.tls.enabled=false"),
    ({"server": {"tls": {"enabled": False}}, "inferencePool": {"enabled": True}, "metrics": {"token": True}},
     "inferencePool.enabled needs metrics.token=false"),
])
def test_inconsistent_values_fail_the_render(chart: helm.Chart, overrides: dict[str, Any], message: str) -> None:
    values = chart.merge_values(BASE)
    values = _deep_merge(values, overrides)
    with pytest.raises(helm.HelmError, match=re.escape(message)):
        chart.render(values, name=RELEASE, namespace=NAMESPACE, is_install=True)


def test_the_termination_grace_is_computed_when_unset(chart: helm.Chart) -> None:
    values = _deep_merge(chart.merge_values(BASE), {"server": {"shutdown": {"graceSeconds": 42.5,
                                                                              "preStopSeconds": 7}}})
    deployment = server(render(chart, values))
    assert deployment["spec"]["template"]["spec"]["terminationGracePeriodSeconds"] == \
        7 + 43 + SHUTDOWN_CUT_MARGIN_S + 5


def _deep_merge(base: dict[str, Any], overrides: dict[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in overrides.items():
        merged[key] = _deep_merge(merged.get(key) or {}, value) if isinstance(value, dict) and value else value
    return merged


PRODUCTION = HERE / "values" / "production-gpu-inference-gateway.yaml"


def _rendered(chart: helm.Chart, kind: str) -> dict[str, Any]:
    return one(render(chart, load_values(PRODUCTION)), kind, None)


@pytest.mark.parametrize(("kind", "mutate", "problem"), [
    ("InferencePool", lambda o: o["spec"]["endpointPickerRef"].update(portNumber=9002), "'portNumber' was unexpected"),
    ("InferencePool", lambda o: o["spec"]["targetPorts"].append({"number": 8443}), "port number must be unique"),
    ("InferencePool", lambda o: o["spec"]["endpointPickerRef"].pop("port"), "port is required"),
    ("InferencePool", lambda o: o["spec"]["targetPorts"][0].update(number=70000), "70000 is greater than"),
    ("HTTPRoute", lambda o: o["spec"]["rules"][0]["backendRefs"][0].update(weight=-1), "-1 is less than"),
    ("HTTPRoute", lambda o: o["spec"]["rules"][0]["matches"][0]["path"].update(value="/v1/../admin"),
     "must not contain '/../'"),
    ("HTTPRoute", lambda o: o["spec"]["rules"][0]["timeouts"].update(backendRequest="20m"),
     "backendRequest timeout cannot be longer"),
    ("HTTPRoute", lambda o: o["spec"]["rules"][0].update(sessionPersistence={"type": "Cookie"}),
     "'sessionPersistence' was unexpected"),  # experimental channel only
    ("HTTPRoute", lambda o: o["spec"]["parentRefs"].append(dict(o["spec"]["parentRefs"][0])), "sectionName"),
    ("ScaledObject", lambda o: o["spec"].update(minReplicaCount=9), "minReplicaCount must be less than"),
    ("ScaledObject", lambda o: o["spec"]["triggers"][0]["metadata"].update(threshold=4), "4 is not of type 'string'"),
    ("ScaledObject", lambda o: o["spec"].update(pollingInterval=2**31), "int32"),
    ("ServiceMonitor", lambda o: o["spec"]["endpoints"][0].update(bearerTokenSecretName="x"),
     "'bearerTokenSecretName' was unexpected"),
    ("ServiceMonitor", lambda o: o["metadata"].update(labelz={}), "'labelz' was unexpected"),
    ("SecurityPolicy", lambda o: o["spec"]["extAuth"].update(grpc={"backendRefs": []}), "only one of grpc or http"),
    ("SecurityPolicy", lambda o: o["spec"]["extAuth"]["http"]["backendRefs"][0].pop("port"), "Must have port"),
    ("SecurityPolicy", lambda o: o["spec"]["extAuth"].update(failOpen="no"), "'no' is not of type 'boolean'"),
    ("SecurityPolicy", lambda o: o["spec"].update(targetRef=o["spec"]["targetRefs"][0]), "either targetRef or"),
])
def test_the_vendored_crd_schemas_refuse_what_the_api_server_refuses(chart: helm.Chart, kind: str, mutate: Any,
                                                                     problem: str) -> None:
    obj = _rendered(chart, kind)
    assert crd_problems(obj) == []
    mutate(obj)
    problems = crd_problems(obj)
    assert any(problem in p for p in problems), problems


def test_every_custom_resource_the_chart_renders_has_a_vendored_schema(chart: helm.Chart) -> None:
    def built_in(api_version: str, kind: str) -> bool:
        try:
            kubernetes_validate.validate({"apiVersion": api_version, "kind": kind}, KUBE_VERSION)
        except kubernetes_validate.SchemaNotFoundError:
            return False
        except kubernetes_validate.ValidationError:
            pass
        return True

    rendered = {(o["apiVersion"], o["kind"]) for path in VALUES_FILES for o in render(chart, load_values(path))}
    custom = {key for key in rendered if not built_in(*key)}
    assert custom == {("inference.networking.k8s.io/v1", "InferencePool"),
                      ("gateway.networking.k8s.io/v1", "HTTPRoute"), ("keda.sh/v1alpha1", "ScaledObject"),
                      ("monitoring.coreos.com/v1", "ServiceMonitor"),
                      ("gateway.envoyproxy.io/v1alpha1", "SecurityPolicy")}
    assert custom <= CRD_SCHEMAS.keys()


def test_the_deployment_guide_shows_the_security_policy_the_chart_renders(chart: helm.Chart) -> None:
    guide = (ROOT / "docs" / "deployment.md").read_text()
    (block,) = [b for b in re.findall(r"\n  ```yaml\n(.*?)\n  ```", guide, re.S) if "kind: SecurityPolicy" in b]
    shown = yaml.safe_load("\n".join(line.removeprefix("  ") for line in block.splitlines()))
    rendered = _rendered(chart, "SecurityPolicy")
    assert shown["spec"] == rendered["spec"]
    assert crd_problems(shown) == []
