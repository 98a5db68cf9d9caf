import itertools
import json

import pytest
from guard_support import OUTPUT_POLICY as POLICY
from guard_support import TOKEN_KEY as KEY
from hypothesis import given, settings
from hypothesis import strategies as st

from gateway.guardrails import OutputRedactor, OutputShape, redact_output_text
from policies import PiiAction, PiiRules, Policy

TEXT = (
    "Sure! You can reach the owner at dana.k@example.org or on (415) 555-0132. The card on file is "
    "4111 1111 1111 1111. Do not mention Project Bluebird to anyone. That is all the information I have, goodbye."
)


def stream(redactor: OutputRedactor, chunks: list[str]) -> str:
    return "".join(redactor.feed(chunk) for chunk in chunks) + redactor.flush()


def test_whole_text_redaction(analyzer):
    safe, decisions = redact_output_text(analyzer, POLICY, TEXT, KEY)
    for secret in ["dana.k@example.org", "555-0132", "4111", "Bluebird"]:
        assert secret not in safe
    assert "<EMAIL_ADDRESS>" in safe and "<CREDIT_CARD>" in safe and "<DENIED_CONTENT>" in safe
    assert "<PHONE_NUMBER_" in safe
    assert {row["entity_type"] for row in decisions[0]["entities"]} >= {"EMAIL_ADDRESS", "PHONE_NUMBER"}


def test_every_two_chunk_split_gives_the_whole_text_result(analyzer):
    expected, _ = redact_output_text(analyzer, POLICY, TEXT, KEY)
    for split in range(1, len(TEXT)):
        redactor = OutputRedactor(analyzer, POLICY, KEY, holdback_chars=48, min_emit_chars=1)
        assert stream(redactor, [TEXT[:split], TEXT[split:]]) == expected, split


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(min_value=1, max_value=len(TEXT) - 1), max_size=40, unique=True))
def test_token_by_token_streams_never_leak(analyzer, cuts):
    expected, _ = redact_output_text(analyzer, POLICY, TEXT, KEY)
    bounds = [0, *sorted(cuts), len(TEXT)]
    chunks = [TEXT[a:b] for a, b in itertools.pairwise(bounds)]
    redactor = OutputRedactor(analyzer, POLICY, KEY, holdback_chars=48, min_emit_chars=4)
    emitted = []
    for chunk in chunks:
        emitted.append(redactor.feed(chunk))
        so_far = "".join(emitted)
        assert "dana.k@" not in so_far and "4111 1111" not in so_far
    assert "".join(emitted) + redactor.flush() == expected


def test_hold_back_is_bounded(analyzer):
    redactor = OutputRedactor(analyzer, POLICY, KEY, holdback_chars=64, min_emit_chars=16)
    for _ in range(200):
        redactor.feed("plain words without anything personal in them ")
        assert len(redactor._pending) <= 64 + 16 + len("plain words without anything personal in them ")


ALLOW_ALL = Policy(pii_output=PiiRules(entities={}, default_action=PiiAction.ALLOW, ner_enabled=False))


def test_a_policy_that_never_rewrites_output_holds_nothing_back(analyzer):
    """Output rules that allow every entity and deny nothing cannot change a character: the stream leaves as it
    comes (no hold-back delaying the first token), and the whole text is still analysed once for the audit."""
    redactor = OutputRedactor(analyzer, ALLOW_ALL, KEY)
    pieces = [TEXT[i:i + 3] for i in range(0, len(TEXT), 3)]
    assert [redactor.feed(piece) for piece in pieces] == pieces
    assert not redactor.analyses("more")  # nothing to analyse per chunk: the event loop may feed it
    assert redactor.flush() == ""
    tallied = {entity["entity_type"]: entity for entity in redactor.decisions()[0]["entities"]}
    assert {"EMAIL_ADDRESS", "PHONE_NUMBER", "CREDIT_CARD"} <= set(tallied)
    assert all(entity["action"] == "allow" for entity in tallied.values())
    assert not redactor.rewrote and not redactor.withheld
    whole, decisions = redact_output_text(analyzer, ALLOW_ALL, TEXT, KEY)
    assert whole == TEXT and decisions == redactor.decisions()


def test_a_deny_pattern_alone_keeps_the_hold_back(analyzer):
    policy = Policy(pii_output=PiiRules(entities={}, ner_enabled=False), output_deny_patterns=[r"(?i)bluebird"])
    redactor = OutputRedactor(analyzer, policy, KEY)
    assert redactor.feed("Do not mention Project ") == ""  # held: the next chunk may complete a match
    assert stream(redactor, ["Bluebird to anyone."]).count("Bluebird") == 0


FILLER = "Thanks for reaching out about the delayed shipment, we are looking into it and will update you soon. "
CONTEXT_BOUND = [  # (context words, value): personal data only next to its context, under the default policy
    ("Please call me at ", "5 5 5 2 0 1 4 5 6 7"),  # digit by digit: a phone only with a phone word (0.4 alone)
    ("She was born on ", "March 3, 1987"),  # a date is a date of birth only next to birth context
]


@pytest.mark.parametrize(("context", "value"), CONTEXT_BOUND)
@pytest.mark.parametrize("shape", [OutputShape.TEXT, OutputShape.JSON])
def test_a_cut_between_context_words_and_their_value_changes_nothing(analyzer, context, value, shape):
    """Wherever the hold-back's cut falls, even between "call me at" and the digits, the analyser still reads the
    context: released text stays with it as read-only context, so the stream masks what the whole text masks."""
    policy = Policy.default()
    for pad in range(0, 64, 3):
        prose = FILLER + "x" * pad + " " + context + value + ". " + FILLER
        text = json.dumps({"reply": prose}) if shape is OutputShape.JSON else prose
        whole, _ = redact_output_text(analyzer, policy, text, KEY, shape=shape)
        assert value not in whole
        redactor = OutputRedactor(analyzer, policy, KEY, shape=shape)
        pieces = [text[i : i + 4] for i in range(0, len(text), 4)]
        assert stream(redactor, pieces) == whole, pad
