"""Input analysis in worker processes (GuardConfig.analysis_processes): the same results as in this process, and a
worker that dies fails its scan closed (503, never forwarded unscanned) while the next scan gets a fresh worker."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import Iterator

import pytest

from bench.overhead_stub import long_prompts
from gateway.core.errors import APIError
from gateway.guardrails import GuardConfig, GuardrailInputError, InputGuard, PiiAnalyzer
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
    conversations = [CONVERSATION, *long_prompts(3, seed=5)]
    for index, messages in enumerate(conversations):
        tenant = f"same-{policy is NER_POLICY}-{index}"
        expected = local.scan_messages_sync(tenant, messages, policy)
        got = pooled.scan_messages_sync(tenant, messages, policy)
        assert got.messages == expected.messages
        assert got.decisions == expected.decisions
        assert got.scanned_chars == expected.scanned_chars > 0
        assert got.messages != [dict(m) for m in messages]  # something was rewritten: the comparison means something


def test_a_dead_worker_fails_the_scan_closed_and_the_next_scan_works(pooled: InputGuard) -> None:
    processes = pooled._processes
    assert processes is not None
    pooled.scan_messages_sync("warm", CONVERSATION, Policy())  # the worker is up
    for pid in processes.worker_pids():
        os.kill(pid, signal.SIGKILL)
    time.sleep(0.2)
    with pytest.raises(GuardrailInputError) as refused:
        pooled.scan_messages_sync("dead", CONVERSATION, Policy())
    assert refused.value.status_code == 503 and refused.value.code == "guardrails_unavailable"
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


def test_a_given_analyzer_cannot_run_in_processes(analyzer: PiiAnalyzer) -> None:
    with pytest.raises(ValueError, match="analysis_processes"):
        InputGuard(SECRET, analyzer=analyzer, config=GuardConfig(analysis_processes=1))
