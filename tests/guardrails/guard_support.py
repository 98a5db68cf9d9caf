"""Shared by the output-guardrail tests (imported by module name; tests/ has no packages)."""

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
