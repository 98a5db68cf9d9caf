"""The gateway process stays light: ``import gateway.app`` (what ``warden serve`` and each uvicorn worker import)
loads no torch, grammar engine or model library. The engine runs in its own process; pulling torch into the gateway
as well would add seconds to every cold start (the recovery after a gateway crash) and memory to every worker."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("torch", "llguidance", "transformers", "triton", "kernels", "engine.structured", "engine.core.engine_core")


def loaded_after(statement: str) -> set[str]:
    """The modules of ``HEAVY`` that are in ``sys.modules`` after running ``statement`` in a fresh interpreter."""
    probe = f"import json, sys\n{statement}\nprint(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))"
    result = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=120,
                            check=True)
    return set(json.loads(result.stdout.strip().splitlines()[-1]))


def test_gateway_app_imports_no_torch() -> None:
    assert loaded_after("import gateway.app") == set()


def test_the_tool_call_wire_format_is_pure() -> None:
    # the door the gateway's surfaces use; the grammar behind it (engine.structured) is the engine's alone
    assert loaded_after("import engine.tool_calls") == set()


def test_the_probe_sees_torch_when_it_is_loaded() -> None:
    # the check above can fail: the engine's grammar module does load torch
    assert "torch" in loaded_after("import engine.structured.tools")


def test_serve_starts_the_engine_before_its_heavy_imports() -> None:
    # `warden serve` spawns the engine process right after reading its settings: what it has imported by then (the
    # CLI, the engine's spawner) must not hold the spawn back behind the database layer, the web framework or torch
    probe = ("import gateway.cli, gateway.replicas.launch, engine.launch\n"
             "print(json.dumps([m for m in ('sqlalchemy', 'alembic', 'fastapi', 'torch') if m in sys.modules]))")
    result = subprocess.run([sys.executable, "-c", f"import json, sys\n{probe}"], cwd=ROOT, capture_output=True,
                            text=True, timeout=120, check=True)
    assert json.loads(result.stdout.strip().splitlines()[-1]) == []
