"""apply_actions splices tokens into the text itself: the same text Presidio's anonymizer writes for the same spans."""

from __future__ import annotations

import random

import pytest
from presidio_anonymizer import AnonymizerEngine
from presidio_anonymizer.entities import OperatorConfig, RecognizerResult

from gateway.guardrails.findings import Finding, resolve_overlaps
from gateway.guardrails.redaction import apply_actions, pii_token
from policies import PiiAction

KEY = b"k" * 32
TYPES = ("EMAIL_ADDRESS", "PHONE_NUMBER", "PERSON", "CREDIT_CARD")
ACTIONS = (PiiAction.MASK, PiiAction.HASH, PiiAction.ALLOW, PiiAction.BLOCK)


def presidio_rewrite(text: str, decided: list[tuple[Finding, PiiAction]]) -> str:
    """The rewrite through presidio-anonymizer, one pseudo-type per finding so mask and hash can mix."""
    results: list[RecognizerResult] = []
    operators: dict[str, OperatorConfig] = {}
    for finding, action in decided:
        if action not in (PiiAction.MASK, PiiAction.HASH):
            continue
        label = f"{finding.entity_type}#{len(results)}"
        results.append(RecognizerResult(label, finding.start, finding.end, finding.score))
        if action is PiiAction.MASK:
            operators[label] = OperatorConfig("replace", {"new_value": f"<{finding.entity_type}>"})
        else:
            operators[label] = OperatorConfig(
                "custom", {"lambda": lambda value, kind=finding.entity_type: pii_token(KEY, kind, value)})
    if not results:
        return text
    return AnonymizerEngine().anonymize(text, results, operators).text


@pytest.mark.parametrize("seed", range(40))
def test_same_text_as_presidio_anonymizer(seed: int) -> None:
    rng = random.Random(seed)
    alphabet = "abc XYZ 019 @.-\n\u00e9\u4e2d\U0001f600"
    text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 300)))
    findings = []
    for _ in range(rng.randrange(0, 12)):
        if not text:
            break
        start = rng.randrange(len(text))
        end = min(len(text), start + rng.randrange(1, 30))
        findings.append(Finding(rng.choice(TYPES), start, end, rng.random(), "test"))
    kept = resolve_overlaps(findings)  # what decide() hands over: no two overlap
    rng.shuffle(kept)
    decided = [(finding, rng.choice(ACTIONS)) for finding in kept]
    assert apply_actions(text, decided, KEY) == presidio_rewrite(text, decided)


def test_adjacent_spans_and_edges() -> None:
    text = "ab@c.de0123456789"
    decided = [(Finding("PHONE_NUMBER", 7, 17, 0.9, "t"), PiiAction.HASH),
               (Finding("EMAIL_ADDRESS", 0, 7, 1.0, "t"), PiiAction.MASK)]
    rewritten = apply_actions(text, decided, KEY)
    assert rewritten == "<EMAIL_ADDRESS>" + pii_token(KEY, "PHONE_NUMBER", "0123456789")
    assert rewritten == presidio_rewrite(text, decided)


def test_allow_and_block_leave_the_text() -> None:
    text = "call Dana at 415 555 0100"
    decided = [(Finding("PERSON", 5, 9, 0.85, "t"), PiiAction.ALLOW),
               (Finding("PHONE_NUMBER", 13, 25, 0.9, "t"), PiiAction.BLOCK)]
    assert apply_actions(text, decided, KEY) is text


def test_overlapping_spans_are_replaced_once() -> None:
    """Two output deny patterns can match the same value (or one inside the other): one token for the value."""
    text = '{"name": "Eldoria", "population": 5}'
    same = [(Finding("DENIED_CONTENT", 10, 17, 1.0, "t"), PiiAction.MASK),
            (Finding("DENIED_CONTENT", 10, 17, 1.0, "t"), PiiAction.MASK)]
    assert apply_actions(text, same, KEY) == '{"name": "<DENIED_CONTENT>", "population": 5}'
    contained = [(Finding("DENIED_CONTENT", 12, 15, 1.0, "t"), PiiAction.MASK),
                 (Finding("DENIED_CONTENT", 10, 17, 1.0, "t"), PiiAction.MASK)]
    assert apply_actions(text, contained, KEY) == '{"name": "<DENIED_CONTENT>", "population": 5}'
    crossing = [(Finding("PERSON", 10, 14, 1.0, "t"), PiiAction.HASH),
                (Finding("PERSON", 12, 17, 1.0, "t"), PiiAction.HASH)]
    assert apply_actions(text, crossing, KEY) == \
        '{"name": "' + pii_token(KEY, "PERSON", "Eldoria") + '", "population": 5}'
