"""The chart keeps the engine's compiled code where WARDEN_ENGINE_COMPILE_CACHE_DIR points: on the pod's data volume,
or on an existing PersistentVolumeClaim mounted over that directory so new pods start from the cache."""

from __future__ import annotations

from typing import Any

import helm_python as helm

from tests.deploy.test_helm_chart import HERE, chart, load_values, render, warden_container  # noqa: F401 - fixture

CACHE_DIR = "/var/lib/warden/compile-cache"


def _cache_env(objects: list[dict[str, Any]]) -> str:
    env = {e["name"]: e.get("value") for e in warden_container(objects)["env"]}
    return str(env["WARDEN_ENGINE_COMPILE_CACHE_DIR"])


def _pod(objects: list[dict[str, Any]]) -> dict[str, Any]:
    return next(o for o in objects if o["kind"] == "Deployment")["spec"]["template"]["spec"]


def test_without_a_claim_the_cache_is_on_the_data_volume(chart: helm.Chart) -> None:  # noqa: F811
    objects = render(chart, load_values(HERE / "values" / "external-minimal.yaml"))
    assert _cache_env(objects) == CACHE_DIR
    mounts = {m["mountPath"]: m["name"] for m in warden_container(objects)["volumeMounts"]}
    assert mounts["/var/lib/warden"] == "data" and CACHE_DIR not in mounts
    assert "compile-cache" not in {v["name"] for v in _pod(objects)["volumes"]}


def test_an_existing_claim_is_mounted_over_the_cache_directory(chart: helm.Chart) -> None:  # noqa: F811
    objects = render(chart, load_values(HERE / "values" / "hpa-generated-secrets.yaml"))
    assert _cache_env(objects) == CACHE_DIR
    mounts = {m["mountPath"]: m["name"] for m in warden_container(objects)["volumeMounts"]}
    assert mounts[CACHE_DIR] == "compile-cache"
    volumes = {v["name"]: v for v in _pod(objects)["volumes"]}
    assert volumes["compile-cache"]["persistentVolumeClaim"] == {"claimName": "warden-compile-cache"}
