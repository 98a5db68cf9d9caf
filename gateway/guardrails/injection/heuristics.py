"""Phrase rules for the classic injection moves. Each rule has a name (recorded in audit) and a score.

A case-insensitive alternation is tried at every position of the text, so each rule also lists words one of which
every match of it holds (``Rule.needs``). In ASCII text, where ignoring case is plain ASCII lower-casing, a rule none
of whose words is in the lower-cased text cannot match and is not run: a few substring tests instead of six scans.
Other text runs every rule (the regex engine's case-insensitive matching also pairs "ſ" with "s", "K" with "k").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_TARGET = r"(?:instructions?|rules?|directions?|guidelines?|prompts?|directives?|guardrails?|constraints?|context)"


@dataclass(frozen=True, slots=True)
class Rule:
    name: str
    pattern: re.Pattern[str]
    score: float
    needs: tuple[str, ...]  # lower-case words, one of which every match holds


RULES: tuple[Rule, ...] = tuple(
    Rule(name, re.compile(pattern, re.IGNORECASE), score, needs)
    for name, pattern, score, needs in (
        (
            "override_previous_instructions",
            rf"\b(?:ignore|disregard|forget|override|bypass|skip|drop|abandon)\b[^.\n]{{0,40}}\b"
            rf"(?:previous|prior|above|earlier|preceding|original|initial|system|all|your)\b[^.\n]{{0,20}}{_TARGET}",
            0.95,
            ("ignore", "disregard", "forget", "override", "bypass", "skip", "drop", "abandon"),
        ),
        (
            "reveal_system_prompt",
            r"\b(?:reveal|print|repeat|show|output|display|leak|tell me|what (?:is|are))\b[^.\n]{0,30}"
            r"\b(?:system prompt|initial (?:prompt|instructions)|hidden (?:prompt|instructions)|"
            r"(?:your|the) (?:instructions|prompt) (?:verbatim|word for word))",
            0.9,
            ("system prompt", "initial prompt", "initial instructions", "hidden prompt", "hidden instructions",
             "verbatim", "word for word"),
        ),
        (
            "unrestricted_persona",
            r"\b(?:you are now|from now on,? you are|act as|pretend (?:to be|you are)|roleplay as)\b[^.\n]{0,40}"
            r"\b(?:dan|jailbroken|unrestricted|unfiltered|uncensored|without (?:any )?(?:restrictions|limits|rules|"
            r"filters)|no (?:restrictions|rules|limits|content policy))",
            0.95,
            ("you are now", "from now on", "act as", "pretend to be", "pretend you are", "roleplay as"),
        ),
        ("developer_mode", r"\b(?:developer|god|debug|sudo|admin) mode\b[^.\n]{0,20}\b(?:enabled|on|activated)\b", 0.9,
         (" mode",)),
        (
            "fake_system_delimiter",
            r"(?:<\|?/?(?:system|im_start|im_end)\|?>|\[/?(?:system|inst)\]|^#{2,}\s*(?:new )?system|"
            r"\bend of (?:user )?input\b[^.\n]{0,20}\bnew instructions)",
            0.85,
            ("<", "[", "##", "end of"),
        ),
        (
            "new_instructions",
            r"\b(?:new|updated|real|actual|important) (?:instructions|task|orders)\s*[:\-]",
            0.75,
            ("instructions", "task", "orders"),
        ),
    )
)


def match_rules(text: str) -> list[Rule]:
    if not text.isascii():
        return [rule for rule in RULES if rule.pattern.search(text)]
    lowered = text.lower()
    return [rule for rule in RULES if any(word in lowered for word in rule.needs) and rule.pattern.search(text)]
