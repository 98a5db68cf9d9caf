"""LiteLLM's proxy as the gateway-overhead benchmark's comparison: installed into its own virtualenv from a hash
lock (``bench/requirements-litellm.lock``; its dependencies conflict with nothing of Warden's because they never
meet), configured in front of an OpenAI-compatible upstream, served over HTTPS with the same certificate.

LiteLLM's virtual keys, budgets and spend logs need its Prisma database client, whose engine binaries download from
binaries.prisma.sh at first start — a host these machines cannot reach — so the proxy runs as LiteLLM documents for
no database: one master key, no per-key limits. That is LiteLLM's lightest request path; the ``presidio`` variant
adds its Presidio guardrail (``mode: pre_call``, Presidio over HTTP, see ``bench.presidio_service``).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from bench.tool_venv import ensure_tool

REPO = Path(__file__).resolve().parent.parent
VENV = REPO / "bench" / ".venv-litellm"
LOCK = REPO / "bench" / "requirements-litellm.lock"
GUARDRAIL_NAME = "presidio-pii"


def ensure_installed(venv: Path = VENV) -> Path:
    """The ``litellm`` executable, installing the locked proxy first if the virtualenv lacks it (~1 min)."""
    return ensure_tool(venv, LOCK, "litellm", label="LiteLLM's proxy")


def write_config(path: Path, *, model: str, upstream_base: str, master_key: str,
                 presidio_base: str | None) -> Path:
    """A proxy config: ``model`` routed to the OpenAI-compatible ``upstream_base`` (``http://host:port/v1``), and
    with ``presidio_base`` the Presidio guardrail on every request. JSON is YAML, which LiteLLM reads."""
    config: dict[str, object] = {
        "model_list": [{"model_name": model,
                        "litellm_params": {"model": f"openai/{model}", "api_base": upstream_base,
                                           "api_key": "unused-by-the-upstream"}}],
        "general_settings": {"master_key": master_key},
        "litellm_settings": {"telemetry": False},
    }
    if presidio_base is not None:
        config["guardrails"] = [{"guardrail_name": GUARDRAIL_NAME,
                                 "litellm_params": {"guardrail": "presidio", "mode": "pre_call", "default_on": True,
                                                    "presidio_analyzer_api_base": presidio_base,
                                                    "presidio_anonymizer_api_base": presidio_base}}]
    path.write_text(json.dumps(config, indent=2), encoding="utf-8")
    return path


def start(executable: Path, config: Path, *, port: int, cert: Path, key: Path, log: Path) -> subprocess.Popen:
    """One uvicorn worker, as Warden runs in the benchmark; the model cost map from the package (no fetch)."""
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "LITELLM_LOG": "ERROR",
           "LITELLM_DONT_SHOW_FEEDBACK_BOX": "true", "DISABLE_SCHEMA_UPDATE": "true"}
    env.pop("DATABASE_URL", None)
    command = [str(executable), "--config", str(config), "--host", "127.0.0.1", "--port", str(port),
               "--num_workers", "1", "--ssl_certfile_path", str(cert), "--ssl_keyfile_path", str(key)]
    return subprocess.Popen(command, env=env, stdout=log.open("ab"), stderr=subprocess.STDOUT,
                            start_new_session=True)
