"""Input analysis in worker processes (GuardConfig.analysis_processes): the same results as in this process, and a
worker that dies fails its scan closed (503, never forwarded unscanned), and so do the scans of the next second; then
a scan gets a fresh worker."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import time
from collections.abc import Iterator

import pytest

from gateway.core.errors import APIError
from gateway.guardrails import GuardConfig, GuardrailInputError, InputGuard, PiiAnalyzer
from gateway.guardrails.processes import RESPAWN_BACKOFF_S, AnalysisProcesses, Readiness
from gateway.openai.guardrails_adapter import GuardrailsInput
from policies import InjectionAction, InjectionRules, PiiAction, PiiRules, Policy

SECRET = b"test-server-secret"
NER_POLICY = Policy(pii_input=PiiRules(entities={"PERSON": PiiAction.MASK, "LOCATION": PiiAction.HASH,
                                                 "EMAIL_ADDRESS": PiiAction.MASK, "PHONE_NUMBER": PiiAction.HASH}),
                    injection=InjectionRules(action=InjectionAction.FLAG))
CONVERSATION = [
    {"role": "system", "content": "You are a support assistant for Acme in Lisbon."},
    {"role": "user", "content": "Hi, I'm Maria Garcia from Porto; mail maria.garcia@example.org or call"},
    {"role": "user", "content": " (415) 555-0132. My card is 4111 1111 1111 1111 and I was born on 4 March 1985."},
]




def ticket_prompt(seed: int) -> list[dict[str, str]]:
    """A ~2 KB user message of support tickets, some naming a customer with an e-mail address and a phone."""
    names = ["Dana Kowalski", "Luis Ortega", "Mei Chen", "Amara Okafor"]
    lines = []
    for i in range(seed * 20, seed * 20 + 20):
        name = names[i % len(names)]
        if i % 2:
            lines.append(f"Ticket {1000 + i}: a customer in Denver cannot log in after the reset. Priority low.")
        else:
            lines.append(f"Ticket {1000 + i}: {name} ({name.split()[0].lower()}@example.org, +1 415 555 {1000 + i}) "
                         "was charged twice for the March invoice. Priority high.")
    return [{"role": "system", "content": "You are a support assistant."},
            {"role": "user", "content": "\n".join(lines)[:2048]}]


@pytest.fixture(scope="module")
def pooled() -> Iterator[InputGuard]:
    guard = InputGuard(SECRET, config=GuardConfig(analysis_processes=1))
    yield guard
    guard.close()


def in_process(analyzer: PiiAnalyzer) -> InputGuard:
    return InputGuard(SECRET, analyzer=analyzer)


@pytest.mark.parametrize("policy", [Policy(), NER_POLICY], ids=["default", "ner"])
def test_same_result_as_in_process(pooled: InputGuard, analyzer: PiiAnalyzer, policy: Policy) -> None:
    local = in_process(analyzer)
    conversations = [CONVERSATION, *(ticket_prompt(seed) for seed in range(3))]
    for index, messages in enumerate(conversations):
        tenant = f"same-{policy is NER_POLICY}-{index}"
        expected = local.scan_messages_sync(tenant, messages, policy)
        got = pooled.scan_messages_sync(tenant, messages, policy)
        assert got.messages == expected.messages
        assert got.decisions == expected.decisions
        assert got.scanned_chars == expected.scanned_chars > 0
        assert got.messages != [dict(m) for m in messages]  # something was rewritten: the comparison means something


def test_a_dead_worker_fails_the_scan_closed_and_a_scan_after_the_backoff_works(pooled: InputGuard) -> None:
    processes = pooled._processes
    assert processes is not None
    pooled.scan_messages_sync("warm", CONVERSATION, Policy())  # the worker is up
    for pid in processes.worker_pids():
        os.kill(pid, signal.SIGKILL)
    time.sleep(0.2)
    with pytest.raises(GuardrailInputError) as refused:
        pooled.scan_messages_sync("dead", CONVERSATION, Policy())
    assert refused.value.status_code == 503 and refused.value.code == "guardrails_unavailable"
    with pytest.raises(GuardrailInputError, match="restarting"):  # within the backoff: no new worker yet
        pooled.scan_messages_sync("dead", CONVERSATION, Policy())
    time.sleep(RESPAWN_BACKOFF_S)
    result = pooled.scan_messages_sync("dead", CONVERSATION, Policy())  # not cached: scanned by a fresh worker
    assert "<EMAIL_ADDRESS>" in result.messages[1]["content"] and result.scanned_chars > 0


def test_the_api_answers_a_dead_worker_with_503_and_retry_after(pooled: InputGuard) -> None:
    processes = pooled._processes
    assert processes is not None
    pooled.scan_messages_sync("warm-api", CONVERSATION, Policy())
    for pid in processes.worker_pids():
        os.kill(pid, signal.SIGKILL)
    time.sleep(0.2)
    with pytest.raises(APIError) as refused:
        asyncio.run(GuardrailsInput(pooled).screen_input(CONVERSATION, tenant_id="dead-api", policy=Policy()))
    error = refused.value
    assert error.status == 503 and error.type == "service_unavailable_error"
    assert error.headers == {"retry-after": "1"} and error.code == "guardrails_unavailable"
    assert "maria" not in error.message.lower()
    time.sleep(RESPAWN_BACKOFF_S)
    assert pooled.scan_messages_sync("after-api", CONVERSATION, Policy()).scanned_chars > 0


def test_a_given_analyzer_cannot_run_in_processes(analyzer: PiiAnalyzer) -> None:
    with pytest.raises(ValueError, match="analysis_processes"):
        InputGuard(SECRET, analyzer=analyzer, config=GuardConfig(analysis_processes=1))


def test_start_up_waits_for_the_workers_and_says_how_long(capfd: pytest.CaptureFixture[str]) -> None:
    guard = InputGuard(SECRET, config=GuardConfig(analysis_processes=2))
    try:
        assert guard._processes is not None
        readiness = guard._processes.wait_ready(timeout_s=0)  # no waiting now: ready once the guard is built
        assert (readiness.workers, readiness.ready, readiness.failed) == (2, 2, 0)
        lines = capfd.readouterr().err.splitlines()
        assert "warden: analysis processes: starting 2" in lines
        (ready_line,) = [line for line in lines if line.startswith("warden: analysis processes: ")
                         and "starting" not in line]  # fmt: skip
        # Whether the workers came built depends on what this interpreter's fork server preloaded when it first
        # started (another test may have started it): test_guard_processes_forkserver checks that in a fresh one.
        assert re.fullmatch(r"warden: analysis processes: 2 ready in \d+\.\d s \((forked with the analyzer built"
                            r"|[12] built their own analyzer)\)", ready_line), ready_line
    finally:
        guard.close()


def test_workers_not_ready_within_the_wait_are_reported_and_a_scan_waits_for_them(analyzer: PiiAnalyzer) -> None:
    processes = AnalysisProcesses(1)
    try:
        early = processes.wait_ready(timeout_s=0)  # just started: its worker is still being forked
        assert (early.workers, early.ready, early.failed) == (1, 0, 0)
        assert early.describe().startswith("0 of 1 ready after ")
        assert early.describe().endswith("(0 failed to start): a scan waits for its worker, and a scan whose worker "
                                         "failed is refused with 503")
        texts = [message["content"] for message in CONVERSATION]
        assert processes.analyze_many(texts, ner_enabled=False) == analyzer.analyze_many(texts, ner_enabled=False)
        late = processes.wait_ready(timeout_s=0)
        assert late.ready == 1 and late.seconds >= early.seconds
    finally:
        processes.shutdown()


def test_readiness_says_which_workers_built_their_own_analyzer() -> None:
    assert Readiness(2, 2, 1, 0, 3.04).describe() == "2 ready in 3.0 s (1 built their own analyzer)"
    assert Readiness(2, 2, 2, 0, 0.25).describe() == "2 ready in 0.2 s (forked with the analyzer built)"
    assert Readiness(2, 1, 1, 1, 0.5).describe().startswith("1 of 2 ready after 0.5 s (1 failed to start)")
