"""Scrubs secrets and personal data out of log text before it is written anywhere.

Logs are operational data: they go to collectors, tickets and laptops, so nothing that authenticates or
identifies a person may reach them. The patterns here are deliberately broad (a false positive costs a
``[REDACTED]`` in a log line; a false negative leaks a key): API keys of our own and of well-known providers,
bearer tokens and JWTs, ``name=value`` pairs whose name says secret, credentials inside URLs, e-mail
addresses, phone numbers, card numbers (Luhn-checked), US SSNs, IBANs and IP addresses.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

REDACTED = "[REDACTED]"

# Field names whose values are secrets wherever they appear (structured extras, ``name=value`` text).
SENSITIVE_NAMES = ("password", "passwd", "secret", "token", "api_key", "apikey", "api-key", "authorization",
                   "cookie", "pepper", "private_key", "client_secret", "access_key", "credential")
# A name is sensitive when it ends in one of them: "access_token" is, "max_tokens" and "token_id" are not.
_SENSITIVE_SUFFIX = "(?:" + "|".join(re.escape(n) for n in SENSITIVE_NAMES) + ")"
_SENSITIVE_NAME = re.compile(r"[\w-]*" + _SENSITIVE_SUFFIX, re.IGNORECASE)


def _luhn_ok(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def _card(match: re.Match[str]) -> str:
    digits = re.sub(r"\D", "", match.group(0))
    return "[CARD]" if 13 <= len(digits) <= 19 and _luhn_ok(digits) else match.group(0)


Replacement = str | Callable[[re.Match[str]], str]

# Order matters: whole credentials first (a JWT contains dots an e-mail pattern might half-match), then
# name=value pairs, then personal data.
_RULES: tuple[tuple[re.Pattern[str], Replacement], ...] = (
    (re.compile(r"\bwdn_[A-Za-z0-9]+_[A-Za-z0-9]+"), "wdn_" + REDACTED),
    (re.compile(r"\b(?:sk|pk|rk)-[A-Za-z0-9_-]{16,}"), REDACTED),  # OpenAI/Stripe-style keys
    (re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"), REDACTED),  # AWS access key ids
    (re.compile(r"\b(?:ghp|gho|ghs|github_pat|xox[abpr])_[A-Za-z0-9_]{16,}"), REDACTED),
    (re.compile(r"\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*"), "[JWT]"),
    (re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?-----END [A-Z ]*PRIVATE KEY-----", re.DOTALL), REDACTED),
    (re.compile(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{6,}"), lambda m: f"{m.group(1)} {REDACTED}"),
    (re.compile(r"(?i)([a-z][a-z0-9+.-]*://[^\s:/@]+:)[^\s@/]+@"), lambda m: f"{m.group(1)}{REDACTED}@"),
    (re.compile(r"(?i)(?<![\w-])([\"']?[\w-]*" + _SENSITIVE_SUFFIX + r"[\"']?\s*[:=]\s*[\"']?)([^\s\"',;&}]+)"),
     lambda m: f"{m.group(1)}{REDACTED}"),
    (re.compile(r"\b[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}\b"), "[EMAIL]"),
    (re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?\b"), "[IBAN]"),
    (re.compile(r"\b(?:\d[ -]?){12,18}\d\b"), _card),
    (re.compile(r"\b\d{3}-\d{2}-\d{4}\b"), "[SSN]"),
    (re.compile(r"(?<![\w.])\+?\d{1,3}[ .-]?\(?\d{2,4}\)?[ .-]?\d{3,4}[ .-]?\d{3,4}\b"), "[PHONE]"),
    (re.compile(r"\b(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)\b"), "[IP]"),
    (re.compile(r"(?i)\b(?:[0-9a-f]{1,4}:){7}[0-9a-f]{1,4}\b"), "[IP]"),
)


def redact(text: str) -> str:
    for pattern, replacement in _RULES:
        text = pattern.sub(replacement, text)
    return text


def redact_value(name: str, value: Any) -> Any:
    """A structured field: secrets by name are dropped whole; strings are scrubbed; containers recursively."""
    if _SENSITIVE_NAME.fullmatch(name):
        return REDACTED
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, Mapping):
        return {str(k): redact_value(str(k), v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redact_value(name, v) for v in value]
    return value
