"""Shared by the output-guardrail tests (imported by module name; tests/ has no packages)."""

from gateway.guardrails import OutputRedactor, OutputShape, PiiAnalyzer, redact_output_text
from policies import PiiAction, PiiRules, Policy

TOKEN_KEY = b"k" * 32
# Mask, hash and block on output, plus a deny-pattern: every rewrite path of the output redactor.
OUTPUT_POLICY = Policy(
    pii_output=PiiRules(
        entities={"EMAIL_ADDRESS": PiiAction.MASK, "PHONE_NUMBER": PiiAction.HASH, "CREDIT_CARD": PiiAction.BLOCK},
        ner_enabled=False,
    ),
    output_deny_patterns=[r"(?i)project\s+bluebird"],
)


def assert_streamed_output_equals_whole(analyzer: PiiAnalyzer, text: str, expected: str,
                                        secrets: tuple[str, ...]) -> None:
    """OUTPUT_POLICY's redaction of ``text`` is ``expected`` whole, in two chunks cut anywhere, and in 3-character
    pieces (token-sized), where no piece released so far may show any of ``secrets``."""
    whole, _ = redact_output_text(analyzer, OUTPUT_POLICY, text, TOKEN_KEY, shape=OutputShape.TEXT)
    assert whole == expected
    for cut in range(len(text) + 1):
        redactor = OutputRedactor(analyzer, OUTPUT_POLICY, TOKEN_KEY, holdback_chars=48, min_emit_chars=4)
        assert redactor.feed(text[:cut]) + redactor.feed(text[cut:]) + redactor.flush() == whole
    redactor = OutputRedactor(analyzer, OUTPUT_POLICY, TOKEN_KEY, holdback_chars=48, min_emit_chars=4)
    released = ""
    for i in range(0, len(text), 3):
        released += redactor.feed(text[i : i + 3])
        assert not any(secret in released for secret in secrets), released
    assert released + redactor.flush() == whole
