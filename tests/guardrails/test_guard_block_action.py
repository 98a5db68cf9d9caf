"""The `block` action fails closed for every entity type: on input the request is refused (the reason names types,
never values), on output the value is withheld; both with the real analyzer (NER included)."""

import json

import pytest

from gateway.guardrails import SUPPORTED_ENTITIES, InputGuard, PiiAnalyzer, redact_output_text
from policies import InjectionAction, InjectionRules, PiiAction, PiiRules, Policy

KEY = b"k" * 32
# One value of each type, in a sentence of its own (written for this test).
SAMPLES = {
    "PERSON": ("Please ask Zofia Wiśniewska to sign it.", "Zofia Wiśniewska"),
    "LOCATION": ("The team moved to Gdańsk last year.", "Gdańsk"),
    "EMAIL_ADDRESS": ("Write to o.kowalczyk@poczta.example.pl today.", "o.kowalczyk@poczta.example.pl"),
    "PHONE_NUMBER": ("My cell is +48 512 904 377 after six.", "+48 512 904 377"),
    "CREDIT_CARD": ("Charge 2223 0031 2200 3222 for the renewal.", "2223 0031 2200 3222"),
    "IBAN_CODE": ("Refund to PL61 1090 1014 0000 0712 1981 2874 please.", "PL61 1090 1014 0000 0712 1981 2874"),
    "US_SSN": ("Her SSN is 536-22-8141 on the form.", "536-22-8141"),
    "IP_ADDRESS": ("Blocked 203.0.113.77 after five failures.", "203.0.113.77"),
    "STREET_ADDRESS": ("Ship it to 742 Evergreen Terrace by Friday.", "742 Evergreen Terrace"),
    "DATE_OF_BIRTH": ("She was born on 14 March 1987 in a small town.", "14 March 1987"),
    "NATIONAL_ID": ("National Insurance number HJ 12 34 56 C is on file.", "HJ 12 34 56 C"),
    "SECRET": ("deploy with GITLAB_TOKEN=glpat-Qv7rT2xLmN9pWz4KbH8s now", "glpat-Qv7rT2xLmN9pWz4KbH8s"),
}
NO_INJECTION = InjectionRules(action=InjectionAction.OFF)


def blocking(entity_type: str, side: str) -> Policy:
    rules = PiiRules(entities={entity_type: PiiAction.BLOCK}, default_action=PiiAction.ALLOW)
    return Policy(**{side: rules}, injection=NO_INJECTION)


def test_every_supported_type_has_a_sample() -> None:
    assert set(SAMPLES) == set(SUPPORTED_ENTITIES)


@pytest.mark.parametrize("entity_type", sorted(SAMPLES))
def test_input_block_refuses_the_request(guard: InputGuard, entity_type: str) -> None:
    text, value = SAMPLES[entity_type]
    messages = [{"role": "user", "content": text}]
    result = guard.scan_messages_sync("t-block", messages, blocking(entity_type, "pii_input"))
    assert result.blocked, entity_type
    assert result.block_reason == f"request contains personal data the policy blocks: {entity_type}"
    assert value not in json.dumps(result.decisions, ensure_ascii=False)


@pytest.mark.parametrize("entity_type", sorted(SAMPLES))
def test_input_block_of_one_type_lets_the_others_through(guard: InputGuard, entity_type: str) -> None:
    other = next(t for t in sorted(SAMPLES) if t != entity_type and t not in ("PERSON", "LOCATION"))
    text, _ = SAMPLES[other]
    messages = [{"role": "user", "content": text}]
    result = guard.scan_messages_sync("t-block", messages, blocking(entity_type, "pii_input"))
    assert not result.blocked, (entity_type, other)


@pytest.mark.parametrize("entity_type", sorted(SAMPLES))
def test_output_block_withholds_the_value(analyzer: PiiAnalyzer, entity_type: str) -> None:
    text, value = SAMPLES[entity_type]
    safe, decisions = redact_output_text(analyzer, blocking(entity_type, "pii_output"), text, KEY)
    assert value not in safe
    assert f"<{entity_type}>" in safe
    assert value not in json.dumps(decisions, ensure_ascii=False)


def test_a_blocked_type_wins_an_overlap_on_input(guard: InputGuard) -> None:
    """A bare nine-digit SSN beside a phone field is also read as a phone number (PHONE_NUMBER 0.75 over US_SSN 0.55):
    a policy that blocks US_SSN still refuses it, though the higher-scoring PHONE_NUMBER would win the overlap under
    mask."""
    text = '{"phone": "+502 2241 6742", "ssn": "459700367"}'
    result = guard.scan_messages_sync("t-block", [{"role": "user", "content": text}], blocking("US_SSN", "pii_input"))
    assert result.blocked
