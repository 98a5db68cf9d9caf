"""A gateway loads its NER models as it starts (WARDEN_GUARDRAIL_NER_AT_STARTUP, on by default): the first request
whose policy masks names or places finds them loaded instead of waiting for them, and the start-up prints the phase
with its time. Turned off, nothing loads them until a scan needs them; then the first such scans load them once,
on a guard thread, never on the event loop.

Each check runs in a fresh interpreter, as a restarted gateway starts: in this one, other tests have loaded them."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]

# Every construction of the NER models is recorded (with the thread that did it) by wrapping the real class's
# __init__; the app is built from the environment as `warden serve` builds it, less the engine.
_SCRIPT = textwrap.dedent("""
    import asyncio, json, threading
    from fastapi.testclient import TestClient
    from gateway.app import create_app
    from gateway.core.settings import Settings
    from gateway.guardrails import ner
    from gateway.guardrails.warm_up import loaded_ner
    from policies import PiiAction, PiiRules, Policy

    loads = []
    real_init = ner.NerModel.__init__

    def on_event_loop():
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return False
        return True

    # A load after start-up does not finish before a scan of a policy without names has (or a minute has passed):
    # whether that scan waited for the load shows in whether the scans of names were still waiting when it finished.
    plain_finished = threading.Event()

    def recorded_init(self, *args, **kwargs):
        loads.append([threading.current_thread().name, on_event_loop()])
        real_init(self, *args, **kwargs)
        if report.get("started"):  # a load after start-up
            plain_finished.wait(60)

    ner.NerModel.__init__ = recorded_init
    names = Policy(pii_input=PiiRules(entities={"PERSON": PiiAction.MASK, "LOCATION": PiiAction.MASK}))
    report = {}
    with TestClient(create_app(Settings(), start_engine=False)) as client:
        report["started"] = True
        guard = client.app.state.services.input_guard
        report["loads_at_startup"] = list(loads)
        report["shared_models_loaded"] = loaded_ner.cache_info().currsize

        async def first_requests():
            # Two requests of a names policy at once, as a tenant's first burst after a deploy.
            texts = ["Please forward the contract to Joana Ribeiro in Braga.",
                     "Tomasz Nowak from Gdansk joins the call tomorrow."]
            scans = [asyncio.ensure_future(guard.screen_input([{"role": "user", "content": text}], tenant_id="t",
                                                               policy=names)) for text in texts]
            await asyncio.sleep(0.2)  # both are under way
            plain = [{"role": "user", "content": "Mail maria.garcia@example.org about the refund."}]
            await asyncio.wait_for(guard.screen_input(plain, tenant_id="t", policy=Policy()), 120)
            report["plain_finished_while_loading"] = not any(scan.done() for scan in scans)
            plain_finished.set()
            return [result.messages[0]["content"] for result in await asyncio.gather(*scans)]

        report["masked"] = asyncio.run(first_requests())
        report["loads_after_first_requests"] = list(loads)
    print(json.dumps(report))
""")


def _start(tmp_path: Path, **environment: str) -> tuple[dict[str, Any], str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("WARDEN_")}
    env.update(
        {
            "WARDEN_DATA_DIR": str(tmp_path / "data"),
            "WARDEN_DATABASE_URL": f"sqlite:///{tmp_path / 'w.db'}",
            "WARDEN_SERVER_SECRET": "ner-startup-secret",
            "PYTHONPATH": str(ROOT),
            **environment,
        }
    )
    done = subprocess.run([sys.executable, "-c", _SCRIPT], env=env, cwd=tmp_path, capture_output=True, text=True,
                          timeout=600, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    report: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return report, done.stderr


def _all_masked(report: dict[str, Any]) -> None:
    for content, name in zip(report["masked"], ("Joana Ribeiro", "Tomasz Nowak"), strict=True):
        assert name not in content and "<PERSON>" in content, content


def test_a_started_gateway_has_its_ner_models_loaded_before_the_first_request(tmp_path: Path) -> None:
    report, stderr = _start(tmp_path)
    assert len(report["loads_at_startup"]) == 1  # in the app's start-up, once
    assert report["shared_models_loaded"] == 1
    assert report["loads_after_first_requests"] == report["loads_at_startup"]  # the first requests loaded nothing
    _all_masked(report)
    assert "warden: NER models: loading" in stderr
    assert re.search(r"^warden: NER models: loaded in \d+\.\d s$", stderr, re.MULTILINE), stderr[-3000:]


def test_turned_off_the_first_scans_that_need_them_load_them_once_off_the_event_loop(tmp_path: Path) -> None:
    report, stderr = _start(tmp_path, WARDEN_GUARDRAIL_NER_AT_STARTUP="false")
    assert report["loads_at_startup"] == []
    assert report["shared_models_loaded"] == 0
    loads = report["loads_after_first_requests"]
    assert len(loads) == 1, loads  # the two requests' scans loaded them once between them
    thread, on_event_loop = loads[0]
    assert thread.startswith("warden-ner-load") and not on_event_loop, loads
    # The load held no guard thread: a scan that needs no names, sent while it ran, did not wait for it.
    assert report["plain_finished_while_loading"]
    _all_masked(report)
    assert "NER models" not in stderr
