"""WARDEN_GUARDRAIL_ANALYSIS_PROCESSES reaches the guardrails: the app's input guard scans in worker processes, and
the app's shutdown stops them (no orphaned workers after a gateway stops). The fork server they are forked from is
the process's own, shared with the audit drain, and lives as long as the process: it is not a worker."""

from __future__ import annotations

import asyncio
import contextlib
import os

import psutil
from fastapi.testclient import TestClient

from gateway.app import create_app
from gateway.core import forkserver
from gateway.core.settings import Settings
from gateway.openai.guardrails_adapter import GuardrailsInput
from policies import PiiAction, PiiRules, Policy

MESSAGES = [{"role": "user", "content": "Mail maria.garcia@example.org about the refund."}]
MASK_EMAIL = Policy(pii_input=PiiRules(entities={"EMAIL_ADDRESS": PiiAction.MASK}))


def _live_children() -> set[int]:
    """Live child processes, less multiprocessing's resource tracker and fork server (each serves this process until
    it exits)."""
    pids = set()
    for child in psutil.Process(os.getpid()).children(recursive=True):
        with contextlib.suppress(psutil.NoSuchProcess):
            if (child.status() != psutil.STATUS_ZOMBIE and child.pid != forkserver.server_pid()
                    and "resource_tracker" not in " ".join(child.cmdline())):
                pids.add(child.pid)
    return pids


def test_the_setting_scans_in_worker_processes_that_stop_with_the_app(settings: Settings) -> None:
    settings = settings.model_copy(update={"guardrail_analysis_processes": 1})
    before = _live_children()
    with TestClient(create_app(settings, start_engine=False)) as client:
        guard = client.app.state.services.input_guard  # type: ignore[attr-defined]
        assert isinstance(guard, GuardrailsInput)
        screened = asyncio.run(guard.screen_input(MESSAGES, tenant_id="processes-setting", policy=MASK_EMAIL))
        content = screened.messages[0]["content"]
        assert "maria.garcia@example.org" not in content and "<EMAIL_ADDRESS>" in content
        workers = _live_children() - before
        assert workers, "no guardrails worker process was started"
    for pid in workers:
        with contextlib.suppress(psutil.NoSuchProcess):
            psutil.Process(pid).wait(timeout=10)
    assert not (workers & _live_children())
