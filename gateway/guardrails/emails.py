"""Presidio's e-mail recognizer with the same matches at a fraction of the cost.

Presidio runs its e-mail regex with ``finditer``, which tries a match at every position of the text: at each one it
reads the longest run of local-part characters and backtracks through it looking for an '@'. Every match holds an
'@', and its local part is a run of those characters that ends at that '@', so the first match at or after a position
starts no earlier than where the run before the next '@' begins, and a match starting in that run holds that '@'.
Trying a match at each position of the run, and at no other, finds the very match ``finditer`` finds next, with the
same pattern and flags (the ``regex`` module's, as Presidio compiles it), or else tells that no match holds that '@'
(then the next '@' is read the same way), while skipping the text between them. One difference: in a row of a
pipe-delimited block the run stops at the '|' that ends the cell before the address (``_pipe_row``). A domain's
validity (tldextract, offline) is kept per matched address: a conversation names the same few addresses again and
again.
"""

from __future__ import annotations

from functools import lru_cache

import regex
import tldextract
from presidio_analyzer import AnalysisExplanation, EntityRecognizer, RecognizerResult
from presidio_analyzer.predefined_recognizers import EmailRecognizer

# The characters of the pattern's local part (``EmailRecognizer.PATTERNS``): a run of them ends at the '@'.
_LOCAL_CHAR = regex.compile(r"[!#$%&'*+\-/=?^_`{|}~\.\w]")
_VALIDATED_ADDRESSES = 4096


@lru_cache(maxsize=_VALIDATED_ADDRESSES)
def _has_public_suffix(address: str) -> bool:
    """``EmailRecognizer.validate_result``: whether tldextract reads a registered domain in the address."""
    return tldextract.extract(address).fqdn != ""


def _match_holding(pattern: regex.Pattern[str], text: str, start: int, at: int) -> regex.Match[str] | None:
    """The first match that starts in ``text[start:at]``, the local-part run before the '@' at ``at``.

    A local part holds no '@', so only a match starting there can hold this '@'; a search from ``start`` would read
    on through all the text after it to the next address, at every position of it (a '@' of a handle or a price
    before 2 KB of prose cost the whole prose), only to find what a later '@' finds by itself.
    """
    for begin in range(start, at):
        if (match := pattern.match(text, begin)) is not None:
            return match
    return None


def _line(text: str, at: int) -> tuple[int, int]:
    """The (start, end) of the line holding position `at`."""
    end = text.find("\n", at)
    return text.rfind("\n", 0, at) + 1, len(text) if end < 0 else end


def _pipe_row(text: str, at: int) -> bool:
    """Whether the '@' at `at` stands in a row of a pipe-delimited block (``name|surname|e-mail|phone``): a '|' after
    it on its line (no domain holds one), or a line beside it with as many '|' as its own. RFC 5322 allows '|' in a
    local part, but where '|' separates cells it ends the cell before the address."""
    start, end = _line(text, at)
    if text.find("|", at, end) >= 0:
        return True
    pipes = text.count("|", start, end)
    if start > 0 and text.count("|", *_line(text, start - 1)) == pipes:
        return True
    return end < len(text) and text.count("|", *_line(text, end + 1)) == pipes


class AnchoredEmailRecognizer(EmailRecognizer):
    """``EmailRecognizer``'s findings (spans, scores, name), each searched for from the local part before an '@'."""

    def __init__(self) -> None:
        super().__init__(name=EmailRecognizer.__name__)
        (pattern,) = self.patterns
        self._pattern = pattern
        self._compiled = regex.compile(pattern.regex, flags=self.global_regex_flags)

    def validate_result(self, pattern_text: str) -> bool:
        return _has_public_suffix(pattern_text)

    def analyze(self, text: str, entities: list[str], nlp_artifacts: object = None,
                regex_flags: int | None = None) -> list[RecognizerResult]:  # fmt: skip
        results: list[RecognizerResult] = []
        position = 0  # where Presidio's finditer would try its next match
        while (at := text.find("@", position)) != -1:
            start = at
            while start > position and _LOCAL_CHAR.match(text, start - 1):
                start -= 1
            if "|" in text[start:at] and _pipe_row(text, at):
                start = text.rindex("|", start, at) + 1  # "Marino|Marín|mmarin@...": the cell's '|' ends it
            # Most runs are an address's local part, which matches from the run's start: no call to make for it.
            match = self._compiled.match(text, start) or _match_holding(self._compiled, text, start + 1, at)
            if match is None:
                position = at + 1  # no address holds this '@': the next one holds a later '@'
                continue
            position = match.end()
            if self.validate_result(match.group()):  # an invalid domain scores 0: Presidio drops it
                results.append(self._result(match.start(), match.end()))
        return results

    def _result(self, start: int, end: int) -> RecognizerResult:
        """What Presidio reports for a validated match: the pattern's name, the maximum score."""
        explanation = AnalysisExplanation(self.name, self._pattern.score, pattern_name=self._pattern.name,
                                          pattern=self._pattern.regex, validation_result=True,
                                          regex_flags=self.global_regex_flags)  # fmt: skip
        explanation.score = EntityRecognizer.MAX_SCORE
        return RecognizerResult(self.supported_entities[0], start, end, EntityRecognizer.MAX_SCORE, explanation,
                                recognition_metadata={RecognizerResult.RECOGNIZER_NAME_KEY: self.name,
                                                      RecognizerResult.RECOGNIZER_IDENTIFIER_KEY: self.id})  # fmt: skip
