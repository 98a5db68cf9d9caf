import itertools

from guard_support import OUTPUT_POLICY as POLICY
from guard_support import TOKEN_KEY as KEY
from hypothesis import given, settings
from hypothesis import strategies as st

from gateway.guardrails import OutputRedactor, redact_output_text

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
