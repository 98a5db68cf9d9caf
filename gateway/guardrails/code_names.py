"""People in developer text by the slot a tool or a language gives them: git blame's author, a code literal's name.

Code, logs and tool output carry people where no sentence surrounds them for NER to read:

- ``git blame``'s default output (git-blame(1), "THE DEFAULT FORMAT") writes each line's commit, then in parentheses
  the author's name padded to a column, the author date in ISO form and the line number: ``e4f5a6b (K. Randles
  2024-11-02 16:40:12 +0000 118)``; ``--porcelain`` writes the name on an ``author`` header line that an
  ``author-mail`` line follows. The slot holds what the author configured as ``user.name``: a person's name, or a
  handle or a bot ("jkowalski", "dependabot[bot]"), which the name's shape tells apart (capitalised words of letters).
- A string literal in code that is wholly a greeting to someone (``"Hi André!"``, ``'Dear Sara Bischof,'``), whose
  name is a person's, as is any other literal in the same text that is wholly that name (``greet("André") ==
  "Hi André!"``); and a literal in an argument, assignment or comparison position that is wholly a person's full name
  as names-dataset knows them (a known first name and a known family name: ``make_customer("Sara Bischof", ...)``), or
  written with a middle initial (``== "Advika C. Karnik"``). A key's value (``"birthplace": "Vila Andrade"``,
  ``company="Morgan Stanley"``) is left to the key (``fields``); no literal whose words are English dictionary words
  that no given name list holds is a person's ("Hello World", "Dear Customer"). A literal of several such words is a
  person's too right after a log message's noun for a person (``user "Sayuri Suzuki" updated``, ``Customer 'Ana
  Lima' not found``) or as an exception's message (``KeyError: 'Tanía Ríósdóttir'``).

Each shape is looked for only behind a cheap test: a parenthesis and a time zone offset for git blame, the porcelain
header's own word, a quotation mark for literals.
"""

from __future__ import annotations

import re

from presidio_analyzer import AnalysisExplanation, EntityRecognizer, RecognizerResult

from gateway.guardrails.person_names import known_names
from gateway.guardrails.places import english_and_stop_words

SCORE = 0.8

# A capitalised word of a person's name: letters, maybe joined by an apostrophe or a hyphen ("O'Neil-Smith"); an
# initial with its full stop ("K."); a lower-case particle ("van", "de").
_WORD = r"[^\W\d_](?:[^\W\d_]|['’-](?=[^\W\d_]))*\.?"
_NAME = re.compile(rf"{_WORD}(?: {_WORD}){{0,4}}")
_PARTICLES = frozenset({"de", "del", "la", "le", "da", "do", "dos", "das", "di", "van", "von", "der", "den", "du",
                        "bin", "ibn", "al", "el", "y", "e", "ben", "ter", "zu", "ó", "ní", "nic", "mac"})  # fmt: skip
# A camelCase or PascalCase identifier's inner capital ("GitHub", "CodeBuild"); "McDonald", "MacArthur", "DeShawn"
# keep theirs.
_INNER_CAPITAL = re.compile(r"(?<!^Mc)(?<!^Mac)(?<!^De)(?<!^Di)(?<!^La)(?<!^Le)(?<=[a-z])[A-Z]")

# git blame's default line: "(<name, padded> <yyyy-mm-dd hh:mm:ss +zzzz> <line number>)"; the pre-filter looks for
# the offset and line number after a time.
_BLAME = re.compile(r"\((?P<name>[^\W\d_][^()\n]{0,80}?)[ \t]+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d{4}[ \t]+\d+\)")
_BLAME_HINT = re.compile(r":\d\d [+-]\d{4}[ \t]+\d+\)")
# git blame --porcelain's (and --line-porcelain's) header lines: "author <name>" then "author-mail <<e-mail>>".
_PORCELAIN = re.compile(r"(?m)^author (?P<name>[^\n]{1,80})\n(?=author-mail )")

# A string literal in double or single quotes on one line, without escapes, that opens with a letter other than a-z
# (a name's capital; a literal opened in lower case is none of the shapes here). One pattern per quote, each opened
# by its quote alone: the regex engine skips from one such character to the next, where an alternation of the two
# (or a class of both) is tried at every position of the text (4x slower over tool JSON).
_LITERALS = tuple(re.compile(rf"{quote}(?P<value>[^\W\d_a-z][^{quote}\n\\]{{1,79}}){quote}") for quote in "\"'")
# A literal that greets someone: the greeting, the name, and a closing mark.
_GREETING = re.compile(
    r"(?:Hi|Hello|Hey|Hiya|Dear|Welcome(?: back)?|Thanks|Thank you|Goodbye|Bye|Good (?:morning|afternoon|evening)),? "
    rf"(?P<name>{_WORD}(?: {_WORD}){{0,3}})[ \t]*[!.,?:;]*"
)
# A log message's noun for a person right before the quoted name it reports (``user "Sayuri Suzuki" updated``,
# ``Customer 'Ana Lima' not found``), and a Python traceback's last line, an exception's class and its message
# (``KeyError: 'Tanía Ríósdóttir'``): a name of several words there, none an English word no first-name list holds,
# not every one an English word ("Sales Cloud").
_PERSON_NOUN_BEFORE = re.compile(
    r"(?i:user|customer|client|member|employee|patient|author|owner|assignee|reporter|contact|recipient|sender"
    r"|account|guest|passenger|student|applicant|holder)[ \t]\Z"
)
_EXCEPTION_BEFORE = re.compile(r"(?:Error|Exception|NotFound):[ \t]\Z")
# What may stand before a literal in code (an argument's, an assignment's, a comparison's, a list's or a dict value's
# position) and after it.
_CODE_BEFORE = frozenset("(,=[{:")
_CODE_AFTER = frozenset("),]};\n")
_RETURN = re.compile(r"(?:return|yield|assert)[ \t]*\Z")


def _name_words(name: str) -> list[str] | None:
    """The capitalised words of `name` (particles aside), or None where it is no person's name in shape: a word in
    lower case that is no particle, an identifier's inner capital, all capitals, a lone initial."""
    if _NAME.fullmatch(name) is None:
        return None
    words = []
    for word in name.split(" "):
        if word.casefold() in _PARTICLES and word[0].islower():
            continue
        if not word[0].isupper() or (len(word) > 2 and word.isupper()) or _INNER_CAPITAL.search(word):
            return None
        words.append(word)
    full = [word for word in words if not word.endswith(".")]
    return words if full else None


def _not_a_name(word: str) -> bool:
    """An English word that no first-name list holds ("World", "Team", "Everyone", "Cloud" is a given name)."""
    folded = word.casefold()
    return folded in english_and_stop_words() and not known_names().is_first(word)


def reads_as_author(name: str) -> bool:
    """Whether git's author slot holds a person's name: capitalised words, not every one an English word (a bot's or
    a service's name: "Release Bot", "GitHub Actions"); a single word only where names-dataset knows it."""
    words = _name_words(name.strip())
    if words is None:
        return False
    full = [word for word in words if not word.endswith(".")]
    if len(words) == 1:
        return known_names().is_name(words[0]) and not _not_a_name(words[0])
    return not all(_not_a_name(word) for word in full)


def reads_as_greeted(name: str) -> bool:
    """Whether the name a greeting literal holds is a person's: no word of it an English word that no first-name
    list holds ("Hello World", "Dear Customer", "Hi There", "Welcome back Team")."""
    words = _name_words(name)
    return words is not None and not any(_not_a_name(word) for word in words if not word.endswith("."))


def reads_as_full_name(name: str) -> bool:
    """Whether a code literal is wholly a person's full name: a known first name and a known family name (names-
    dataset), at most a middle initial and particles between ("Sara Bischof", "Ana de la Vega"); or two capitalised
    words, neither an English word, around a middle initial ("Advika C. Karnik")."""
    words = _name_words(name)
    if words is None or not 2 <= len(words) <= 4 or words[0].endswith(".") or words[-1].endswith("."):
        return False
    middle = words[1:-1]
    if any(not (len(word) == 2 and word.endswith(".")) for word in middle):
        return False
    first, last = words[0], words[-1]
    if any(_not_a_name(word) for word in (first, last)):
        return False
    names = known_names()
    return (names.is_first(first) and names.is_last(last)) or len(middle) == 1


def _code_position(text: str, start: int, end: int) -> bool:
    """Whether the literal text[start:end] (its quotes included) stands where code puts a value: after an opening
    bracket, a comma, "=", ":" or a return, and before a closing bracket, a comma, a semicolon or the line's end."""
    before = text[max(0, start - 12) : start].rstrip(" \t")
    after = text[end : end + 4].lstrip(" \t")
    if not (after == "" or after[0] in _CODE_AFTER or after.startswith("\r")):
        return False
    return bool(before) and (before[-1] in _CODE_BEFORE or _RETURN.search(before) is not None)


def _keyed(text: str, start: int) -> bool:
    """Whether the literal at `start` is a key's or a variable's value (after ":" or a lone "="), which the key reads
    (``fields.FieldValueRecognizer``: "birthplace": "Vila Andrade" is a place, company="Morgan Stanley" no one)."""
    before = text[max(0, start - 4) : start].rstrip(" \t")
    return before.endswith(":") or (before.endswith("=") and before[-2:-1] not in ("=", "!", "<", ">"))


def _literal_name(text: str, value: str, outer_start: int, outer_end: int) -> str | None:
    """Why the literal text[outer_start:outer_end] (quotes included), of several words, is a person's name, or None:
    a full name where code puts a value, or a name after a person's noun or an exception's class."""
    if _code_position(text, outer_start, outer_end) and reads_as_full_name(value) and not _keyed(text, outer_start):
        return "full name literal"
    if text[outer_start - 1 : outer_start] not in (" ", "\t"):
        return None
    after_noun = _PERSON_NOUN_BEFORE.search(text, max(0, outer_start - 16), outer_start) is not None
    after_exception = text[outer_start - 2 : outer_start - 1] == ":" and (
        _EXCEPTION_BEFORE.search(text, max(0, outer_start - 24), outer_start) is not None
    )
    if after_noun or after_exception:
        english = english_and_stop_words()
        if reads_as_greeted(value) and not all(word.casefold() in english for word in value.split(" ")):
            return "quoted after a person's noun or an exception"
    return None


def has_code_names(text: str) -> bool:
    """The recognizer's pre-filter: a quotation mark, git blame's time zone offset, or a porcelain author line."""
    if '"' in text or "'" in text or "author-mail" in text:
        return True
    return ") " in text and _BLAME_HINT.search(text) is not None


class CodeNameRecognizer(EntityRecognizer):
    """PERSON: git blame's author, a greeting literal's name, a code literal that is wholly a full name."""

    def __init__(self) -> None:
        super().__init__(supported_entities=["PERSON"], name="CodeNameRecognizer")

    def load(self) -> None:
        pass

    def analyze(self, text: str, entities: list[str], nlp_artifacts: object = None) -> list[RecognizerResult]:
        spans: dict[tuple[int, int], str] = {}
        if ") " in text and _BLAME_HINT.search(text) is not None:
            for match in _BLAME.finditer(text):
                name = match.group("name").rstrip()
                if reads_as_author(name):
                    spans[(match.start("name"), match.start("name") + len(name))] = "git blame author"
        if "author-mail" in text:
            for match in _PORCELAIN.finditer(text):
                name = match.group("name").rstrip()
                if reads_as_author(name):
                    spans[(match.start("name"), match.start("name") + len(name))] = "git blame author"
        if '"' in text or "'" in text:
            spans.update(self._literals(text))
        return [RecognizerResult("PERSON", start, end, SCORE, self._explanation(why))
                for (start, end), why in sorted(spans.items())]  # fmt: skip

    @staticmethod
    def _literals(text: str) -> dict[tuple[int, int], str]:
        spans: dict[tuple[int, int], str] = {}
        literals = []
        for pattern in _LITERALS:
            for match in pattern.finditer(text):
                value = match.group("value")
                if value[0].isupper():
                    literals.append((match.start("value"), value, match.start(), match.end()))
        greeted: set[str] = set()
        for start, value, _, _ in literals:
            greeting = _GREETING.fullmatch(value)
            if greeting is not None and reads_as_greeted(name := greeting.group("name")):
                greeted.add(name)
                spans[(start + greeting.start("name"), start + greeting.start("name") + len(name))] = "greeting"
        for start, value, outer_start, outer_end in literals:
            if value in greeted:
                spans[(start, start + len(value))] = "greeted name"
            elif " " in value and (why := _literal_name(text, value, outer_start, outer_end)) is not None:
                spans[(start, start + len(value))] = why
        return spans

    def _explanation(self, why: str) -> AnalysisExplanation:
        return AnalysisExplanation(recognizer=self.name, original_score=SCORE, textual_explanation=why)
