"""Values glued to the words of scripts written without spaces between words.

Japanese and Chinese write no space between words, Thai, Lao, Khmer and Burmese none inside a phrase, and Korean
glues its particles to the word before them: a value written in such text touches letters on both sides
("メールはaisha@example.brに送って", "SSNは315-57-9538と", "번호는+82 10-1234-5678입니다"). Those letters are word
characters to the detectors' patterns, so a value's word boundary never holds there and every structured type is
missed. The detectors of the structured types read a second view of such text in which each letter of those
scripts is a space: same length, so a finding's span is the raw text's span. Only text where such a letter touches a
character a value can open or close with pays for that view: elsewhere every value already has its word boundaries.
"""

import re
from collections.abc import Sequence

from gateway.guardrails import budget
from gateway.guardrails.findings import Finding
from gateway.guardrails.recognizers import Detector, run_detector

# Thai, Lao, Burmese, Khmer, Hangul Jamo, Hiragana, Katakana (and its phonetic extensions), Hangul compatibility
# Jamo, CJK extension A, CJK unified ideographs, Hangul syllables, CJK compatibility ideographs, and the
# supplementary ideograph planes.
_UNSPACED_LETTER = re.compile(
    "[\u0e00-\u0eff\u1000-\u109f\u1100-\u11ff\u1780-\u17ff\u3040-\u30ff\u3130-\u318f\u31f0-\u31ff\u3400-\u4dbf"
    "\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\U00020000-\U0003134f]"
)
# What a value of the types below can open or close with, other than a letter of those scripts: a letter or digit of
# any other script (the reader view has folded full-width forms to ASCII) or an ASCII sign ("+", "(", ":", "="), but
# none of a sentence's stops ("연락주세요." ends a Korean sentence with an ASCII full stop).
_VALUE_EDGE = rf"(?:[^\W{_UNSPACED_LETTER.pattern[1:-1]}]|[\x21-\x7e](?<![\w!,.;?]))"
# A letter of those scripts right beside such a character: where a value may be glued. Written to open with the letter
# (the regex engine skips to it), then the character before or after it read around it.
_GLUED_JOINT = re.compile(rf"{_UNSPACED_LETTER.pattern}(?:(?<={_VALUE_EDGE}.)|(?={_VALUE_EDGE}))", re.DOTALL)
# The types whose values are written in Latin letters, digits and signs whatever the text's language: the only ones
# the spaced view can show (names, places, streets and dates in these scripts are their own detectors' work).
GLUED_TYPES = frozenset({"EMAIL_ADDRESS", "PHONE_NUMBER", "CREDIT_CARD", "IBAN_CODE", "US_SSN", "IP_ADDRESS",
                         "NATIONAL_ID", "SECRET"})  # fmt: skip


def spaced_view(text: str) -> str | None:
    """The text with each letter of an unspaced script turned into a space, or None where it holds none."""
    if text.isascii() or _UNSPACED_LETTER.search(text) is None:
        return None
    return _UNSPACED_LETTER.sub(" ", text)


def glued_findings(text: str, findings: Sequence[Finding], detectors: Sequence[Detector]) -> list[Finding]:
    """The structured values the spaced view of ``text`` shows that no finding of a structured type already covers.
    None where no letter of those scripts touches a value's character (``_GLUED_JOINT``): a value there stands apart
    from them (by a space, or the scripts' own punctuation) and is the first pass's to find."""
    if text.isascii() or _GLUED_JOINT.search(text) is None:
        return []
    spaced = spaced_view(text)
    if spaced is None:
        return []
    found = [f for f in findings if f.entity_type in GLUED_TYPES]
    more: list[Finding] = []
    for detector in detectors:
        entities = tuple(entity for entity in detector.entity_types if entity in GLUED_TYPES)
        if not entities:
            continue
        budget.check()
        more += [f for f in run_detector(detector, spaced, entities) if not any(f.overlaps(other) for other in found)]
    return more
