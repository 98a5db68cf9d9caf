"""PERSON from the words around a name: a greeting, a title, a verb of speaking, a sign-off, whatever the name is.

A name list only knows the names it holds; the words around a name do not depend on it. Three cues, in English,
French, Spanish, German, Italian, Portuguese and Dutch:

- before a name: a greeting or thanks ("Dear", "Hola", "Hallo", "thx"), a title ("Mr", "Frau", "Mme", "Sra."),
  an introduction ("my name is", "je m'appelle", "hey its"), a hand-over ("forward this to", "reassigned to",
  "spoke with", "ping", "cc");
- after a name: a verb of saying or approving ("said", "wrote", "approved", "dijo", "sagte", "a validé");
- a sign-off line ("Best regards,", "Mit freundlichen Grüßen", "Cordialement,"): the next line, when it holds only
  a name and a word of it is a known name (a company or a city may stand there instead).

The name itself is one to four words of letters (with inner apostrophes or hyphens), initials ("K.") and
lower-case particles between them ("van", "de", "da"), on one line. In cased text it is capitalised; in chat a
name typed in lower case counts only when a word of it is no English dictionary word ("thx ruben", not "thx man").
Stop words of the six languages end a name, so "Dear all" or "ping the server" name nobody.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from gateway.guardrails.findings import Finding

CUED_SCORE = 0.7
LOWER_CASE_CUED_SCORE = 0.6
MAX_NAME_WORDS = 4
MAX_LOWER_CASE_NAME_WORDS = 3
MAX_PARTICLE_LETTERS = 3  # "van", "de", "da", "del", "von", "bin": the lower-case words names hold

_BEFORE = (
    # greetings and thanks
    r"dear|hi|hello|hey|hiya|thanks|thank\s+you|thx|ty|cheers|congrats|"
    r"bonjour|salut|cher|chère|merci|hola|estimad[oa]|querid[oa]|gracias|hallo|liebe[r]?|sehr\s+geehrte[r]?|"
    r"danke|moin|servus|ciao|gentile|car[oa]|grazie|olá|oi|prezad[oa]|obrigad[oa]|beste|bedankt|"
    # titles
    r"mr|mrs|ms|mx|miss|dr|prof|herr|frau|monsieur|madame|mademoiselle|mme|mlle|m\.|señor|señora|señorita|sr|sra|"
    r"srta|don|doña|dott|sig|sig\.ra|dhr|mevr|"
    # introductions
    r"my\s+name\s+is|my\s+name's|name's|i\s+am|i'm|this\s+is|it's|its|je\s+m'appelle|je\s+suis|me\s+llamo|"
    r"soy|ich\s+heiße|ich\s+bin|mi\s+chiamo|sono|meu\s+nome\s+é|chamo-me|ik\s+ben|"
    # hand-overs
    r"(?:forward|forwarded|send|sent|pass|passed|hand|handed|escalate|escalated|assign|assigned|reassign|"
    r"reassigned)(?:\s+(?:this|it|that|them))?\s+(?:over\s+)?to|"
    r"spoke\s+(?:with|to)|speak\s+(?:with|to)|talked\s+(?:with|to)|talk\s+(?:with|to)|met\s+with|meet\s+with|"
    r"ask|asked|tell|told|ping|pinged|cc|attn|"
    r"(?:taken|approved|signed|written|reported|reviewed|requested|created|submitted)\s+by|"
    r"parlé\s+avec|suivi\s+par|transmettre\s+à|hablé\s+con|reenvíalo\s+a|gesprochen\s+mit|habe\s+mit|leite\s+das\s+an"
)
_AFTER = (
    r"said|says|wrote|writes|asked|replied|approved|confirmed|mentioned|agreed|signed|"
    r"a\s+dit|a\s+écrit|a\s+validé|a\s+approuvé|a\s+confirmé|dijo|escribió|aprobó|confirmó|"
    r"sagte|schrieb|hat\s+(?:die|das|den)\s+\w+\s+(?:gestern\s+)?(?:freigegeben|bestätigt)|"
    r"ha\s+detto|ha\s+scritto|ha\s+approvato|disse|escreveu|aprovou|zei|schreef"
)
_SIGN_OFF = (
    r"(?:best|kind|warm|warmest)?\s*regards|best|cheers|thanks|many\s+thanks|thank\s+you|sincerely|yours(?:\s+truly)?|"
    r"(?:mit\s+)?(?:freundlichen|besten|viele|liebe)\s+grüßen?|(?:viele|liebe|beste)\s+grüße|lg|mfg|"
    r"cordialement|bien\s+à\s+vous|(?:bien\s+)?amicalement|salutations(?:\s+distinguées)?|"
    r"(?:un\s+)?saludos?(?:\s+cordiales)?|atentamente|cordiali\s+saluti|saluti|distinti\s+saluti|"
    r"atenciosamente|abraços|cumprimentos|met\s+vriendelijke\s+groet(?:en)?|groeten"
)
_CUE_BEFORE = re.compile(rf"(?<![\w'’-])(?:{_BEFORE})[.,:]?[ \t]+", re.IGNORECASE)
_CUE_AFTER = re.compile(rf"[ \t]+(?:{_AFTER})(?![\w'’-])", re.IGNORECASE)
_SIGN_OFF_AT = re.compile(rf"(?:{_SIGN_OFF})[ \t]*[,!.]?[ \t]*(?:\r?\n|\Z)", re.IGNORECASE)
_SIGN_OFF_LINE = re.compile(rf"^[ \t]*(?:{_SIGN_OFF})[ \t]*[,!.]?[ \t]*\r?\n", re.IGNORECASE | re.MULTILINE)

# A word of a name: letters with inner apostrophes or hyphens ("O'Neill", "Tangney-Deasy", "Марʼяна"), or an
# initial ("K." or, as Irish "Ó", a capital alone). Separated by spaces or tabs only: a name never spans lines.
_WORD = re.compile(r"[^\W\d_]+(?:['’ʼ-][^\W\d_]+)*(?:\.(?=[ \t]))?")
_GAP = re.compile(r"[ \t]+")


@dataclass(frozen=True)
class NameWords:
    """What the cue rules need to know of a word: stop words of the languages read, English dictionary words, and
    known first or last names."""

    stop_words: frozenset[str]
    common_words: frozenset[str]
    is_name: Callable[[str], bool]
    is_first: Callable[[str], bool]

    def is_stop(self, word: str) -> bool:
        return word.casefold() in self.stop_words


def _is_initial(word: str) -> bool:
    return len(word.rstrip(".")) == 1


def _is_particle(word: str) -> bool:
    return word.islower() and len(word) <= MAX_PARTICLE_LETTERS


def _name_after(text: str, start: int, words: NameWords) -> tuple[int, int] | None:
    """The span of the name that begins at `start`, if the words there make one."""
    taken: list[re.Match[str]] = []
    position = start
    while len(taken) < MAX_NAME_WORDS:
        word = _WORD.match(text, position)
        if word is None:
            break
        inner = bool(taken) and (_is_initial(word.group()) or (
            _is_particle(word.group()) and _continues(text, word.end(), capitalised=taken[0].group()[0].isupper())))
        if words.is_stop(word.group().rstrip(".")) and not inner and not (
            not taken and word.group()[0].isupper() and words.is_first(word.group())
        ):
            break  # "Dear all", "ping the server"; but "Hi Dan", "Will Smith" open with a first name
        taken.append(word)
        gap = _GAP.match(text, word.end())
        if gap is None:
            break
        position = gap.end()
    return _valid(text, taken, words)


def _continues(text: str, end: int, capitalised: bool) -> bool:
    """Whether another word of the name follows on the same line, capitalised if the name is (a particle is part of
    a name only before more of it: "Senna de Jonge", not "Anișoara du renouvellement")."""
    gap = _GAP.match(text, end)
    following = None if gap is None else _WORD.match(text, gap.end())
    return following is not None and (following.group()[0].isupper() or not capitalised)


def _name_before(text: str, end: int, words: NameWords) -> tuple[int, int] | None:
    """The span of the name that ends at `end`, if the words there make one."""
    found = list(_WORD.finditer(text, max(0, end - 80), end))
    taken: list[re.Match[str]] = []
    cursor = end
    for word in reversed(found):
        between = text[word.end() : cursor]
        if (taken and not _GAP.fullmatch(between)) or (not taken and word.end() != end):
            break
        if words.is_stop(word.group().rstrip(".")) and not (taken and _is_particle(word.group())):
            break
        taken.insert(0, word)
        cursor = word.start()
        if len(taken) == MAX_NAME_WORDS:
            break
    if taken and taken[-1].group()[0].isupper():  # a capitalised name starts after the last lower-case word
        lowered = [i for i, w in enumerate(taken) if not w.group()[0].isupper() and not _is_particle(w.group())]
        taken = taken[lowered[-1] + 1 :] if lowered else taken
    if taken and taken[0].start() > 0 and text[taken[0].start() - 1] in "'’-":
        return None
    return _valid(text, taken, words)


def _valid(text: str, taken: list[re.Match[str]], words: NameWords) -> tuple[int, int] | None:
    """The span of `taken` when its words read as a name. In a capitalised name, its short lower-case words are
    particles ("Senna de Jonge"); in one typed in lower case, only stop words are ("job van klaarwater" keeps "job")."""
    lower = all(w.group().islower() for w in taken if not _is_initial(w.group()))

    def particle(word: str) -> bool:
        return words.is_stop(word) if lower else _is_particle(word)

    def filler(match: re.Match[str]) -> bool:
        return particle(match.group()) or _is_initial(match.group())

    start, end = 0, len(taken)
    while start < end and filler(taken[start]):
        start += 1  # a name starts with a name, not with a particle or an initial
    while end > start and filler(taken[end - 1]):
        end -= 1  # nor ends with one
    taken = taken[start:end]
    if not lower:  # a capitalised name ends before its first lower-case word that is no particle
        cut = next((i for i, w in enumerate(taken) if not filler(w) and not w.group()[0].isupper()), len(taken))
        taken = taken[:cut]
        while taken and filler(taken[-1]):
            taken = taken[:-1]
    names = [w.group() for w in taken if not filler(w)]
    if not names:
        return None
    if not (lower or all(name[0].isupper() and not name.isupper() for name in names)):
        return None
    if lower and len(names) > MAX_LOWER_CASE_NAME_WORDS:
        return None
    known = any(words.is_name(name) for name in names)
    dictionary = all(name.casefold() in words.common_words for name in names)
    if lower and dictionary and not (len(names) > 1 and words.is_first(names[0]) and words.is_name(names[-1])):
        return None  # "thx man", "ping support"; "hey its anthony pastor here" is a first and a last name
    if not lower and dictionary and not known:
        return None  # "Dear Customer", "Hi Team"
    return taken[0].start(), taken[-1].end()


def cued_names(text: str, words: NameWords, taken: Iterable[Finding]) -> list[Finding]:
    """PERSON spans a cue points at, that no finding in `taken` overlaps. A cue before a name beats a place
    gazetteer ("Dear Florence"); the line after a sign-off does not (a signature often ends with a city)."""
    places = [(f.start, f.end) for f in taken if f.entity_type == "LOCATION"]
    spans = [(f.start, f.end) for f in taken if f.entity_type != "LOCATION"]
    found: list[Finding] = []

    def add(span: tuple[int, int] | None) -> None:
        if span is None or any(start < span[1] and span[0] < end for start, end in spans):
            return
        lower = text[span[0] : span[1]].islower()
        found.append(Finding("PERSON", span[0], span[1], LOWER_CASE_CUED_SCORE if lower else CUED_SCORE,
                             "name_cues"))  # fmt: skip
        spans.append(span)

    for cue in _CUE_BEFORE.finditer(text):
        if not _SIGN_OFF_AT.match(text, cue.start()):  # "Liebe Grüße", "Beste groeten": a closing, not a greeting
            add(_name_after(text, cue.end(), words))
    for cue in _CUE_AFTER.finditer(text):
        add(_name_before(text, cue.start(), words))
    for line in _SIGN_OFF_LINE.finditer(text):
        line_end = text.find("\n", line.end())
        line_end = len(text) if line_end < 0 else line_end
        span = _name_after(text, line.end(), words)
        if span is None or text[span[1] : line_end].strip(" \t\r,"):
            continue  # the name must be the whole next line
        if not any(words.is_name(word) for word in _WORD.findall(text, span[0], span[1])):
            continue  # with no name the list knows, the line is as likely a company's ("Acme GmbH")
        if not any(start <= span[0] and span[1] <= end for start, end in places):
            add(span)  # unless the whole line is a place
    return found
