"""Phrase rules for the classic injection moves. Each rule has a name (recorded in audit) and a score."""

from __future__ import annotations

import re
from dataclasses import dataclass

_TARGET = r"(?:instructions?|rules?|directions?|guidelines?|prompts?|directives?|guardrails?|constraints?|context)"


@dataclass(frozen=True, slots=True)
class Rule:
    name: str
    pattern: re.Pattern[str]
    score: float


RULES: tuple[Rule, ...] = tuple(
    Rule(name, re.compile(pattern, re.IGNORECASE), score)
    for name, pattern, score in (
        (
            "override_previous_instructions",
            rf"\b(?:ignore|disregard|forget|override|bypass|skip|drop|abandon)\b[^.\n]{{0,40}}\b"
            rf"(?:previous|prior|above|earlier|preceding|original|initial|system|all|your)\b[^.\n]{{0,20}}{_TARGET}",
            0.95,
        ),
        (
            "reveal_system_prompt",
            r"\b(?:reveal|print|repeat|show|output|display|leak|tell me|what (?:is|are))\b[^.\n]{0,30}"
            r"\b(?:system prompt|initial (?:prompt|instructions)|hidden (?:prompt|instructions)|"
            r"(?:your|the) (?:instructions|prompt) (?:verbatim|word for word))",
            0.9,
        ),
        (
            "unrestricted_persona",
            r"\b(?:you are now|from now on,? you are|act as|pretend (?:to be|you are)|roleplay as)\b[^.\n]{0,40}"
            r"\b(?:dan|jailbroken|unrestricted|unfiltered|uncensored|without (?:any )?(?:restrictions|limits|rules|"
            r"filters)|no (?:restrictions|rules|limits|content policy))",
            0.95,
        ),
        ("developer_mode", r"\b(?:developer|god|debug|sudo|admin) mode\b[^.\n]{0,20}\b(?:enabled|on|activated)\b", 0.9),
        (
            "fake_system_delimiter",
            r"(?:<\|?/?(?:system|im_start|im_end)\|?>|\[/?(?:system|inst)\]|^#{2,}\s*(?:new )?system|"
            r"\bend of (?:user )?input\b[^.\n]{0,20}\bnew instructions)",
            0.85,
        ),
        (
            "new_instructions",
            r"\b(?:new|updated|real|actual|important) (?:instructions|task|orders)\s*[:\-]",
            0.75,
        ),
    )
)


def match_rules(text: str) -> list[Rule]:
    return [rule for rule in RULES if rule.pattern.search(text)]
