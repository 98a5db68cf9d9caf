"""The serving process's garbage collector (gateway.core.gc_tuning): ``app_from_env`` (what ``warden serve`` runs)
freezes the start-up heap and raises the young threshold once started, and applies ``switch_interval_ms``; an app
built by ``create_app`` alone (tests, embedding) leaves the process's collector and switch interval as they were;
cycles made after the freeze are still collected.

Each check runs in a fresh interpreter: the collector's settings are process-wide."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from gateway.core.gc_tuning import YOUNG_THRESHOLD

REPO = Path(__file__).resolve().parents[2]

_SCRIPT = textwrap.dedent("""
    import gc, json, sys, weakref
    from fastapi.testclient import TestClient
    import gateway.app
    from gateway.app import app_from_env, create_app
    from gateway.core.settings import Settings

    result = {}

    def without_engine(settings, **options):  # app_from_env's app, less the engine it would start
        result["factory_options"] = options
        return create_app(settings, start_engine=False, **options)

    gateway.app.create_app = without_engine

    default = gc.get_threshold()
    with TestClient(create_app(Settings(), start_engine=False)):
        result["plain"] = [gc.get_threshold() == default, gc.get_freeze_count(), sys.getswitchinterval()]
    with TestClient(app_from_env()) as client:
        result["served"] = [gc.get_threshold()[0], gc.get_freeze_count(), client.get("/healthz").status_code]
        result["served_switch_interval"] = sys.getswitchinterval()

        class Node:
            pass

        a, b = Node(), Node()
        a.other, b.other = b, a  # a cycle only the collector can free
        gone = weakref.ref(a)
        del a, b
        gc.collect()
        result["cycle_collected"] = gone() is None
    print(json.dumps(result))
""")


def test_served_app_freezes_its_startup_heap_and_plain_apps_leave_the_collector_alone(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("WARDEN_")}
    env.update({"WARDEN_DATA_DIR": str(tmp_path), "WARDEN_GUARDRAILS": "false", "PYTHONPATH": str(REPO),
                "WARDEN_SWITCH_INTERVAL_MS": "1"})
    done = subprocess.run([sys.executable, "-c", _SCRIPT], env=env, cwd=tmp_path, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["plain"] == [True, 0, 0.005]  # Python's default switch interval, whatever the setting says
    assert result["factory_options"] == {"tune_gc": True}
    threshold, frozen, _status = result["served"]
    assert threshold == YOUNG_THRESHOLD
    assert frozen > 10_000  # the modules, the app and its clients: far more than a request makes
    assert result["cycle_collected"]
    assert result["served_switch_interval"] == 0.001
