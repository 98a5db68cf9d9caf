"""PERSON where a person found in a text is named again in it by one word of the name, or beside it.

News, minutes, court records and obituaries name a person in full once and then by the family name alone ("Ida
Pawlos-Citko, 33, filed a complaint. ... Pawlos-Citko added ...", "Present: G. Tacchini ... Tacchini's report was
received", "State v. Kowalski ... The respondent, Alan KOWALSKI"). A name alone is hard to tell from a word; the full
mention in the same text settles it. The rules, run after every other person rule (``people.more_people``) on a
text where a person is found (a text about people; the others cost no scan):

- ``recurring_words``: each word of a person found with two words or more (an initial counts: "J. Rohleder-Plath")
  is the same person where it stands alone elsewhere in the text, before or after the full mention, written as a
  name: as in the mention, in capitals or capitalised, optionally with a possessive "'s". Not a word of two letters,
  a stop word of the languages the gateway reads, a calendar word or a title ("Mr", "Dr", "Frau"); not a word some
  other finding holds there (an e-mail address, a street, a place the gazetteer found: "Paris Hilton ... in Paris"),
  nor one a legal form or a street type follows ("Baker Ltd", "Franklin Street"). A word the text also writes in
  lower case is no name there ("Mr Baker ... the baker"); one that is an English verb, adjective or adverb
  ("Young", "Mark", "Grant") is none at the start of a sentence either, where every word is capitalised.
- ``paired_recurring``: a family name in capitals beside a known first name ("Defendant CHARLOTTE AALTS", "HOELEN,
  Sofia, passed away"), or a capitalised word after an initial ("Present: S. Botticelli (chair)"), is a person when
  the text also writes the word alone elsewhere ("People v. Aalts", "The family of Hoelen thank ...",
  "Botticelli's report"): a name the text repeats by its family name. Then ``recurring_words`` takes the repeats.
- ``coordinated_given_names``: a known first name (names-dataset, ``person_names``) joined by a comma, "and", "und",
  "et", "y" or "e" to a one-word person found is a person too, as in a list of relatives ("Survived by Patryk
  and Elżbieta", "In Liebe: Lawrence und Sara"); the list is followed both ways from each person.

A clause's subject ``people.subject_names`` found ("Abiye reports better sleep") is the person wherever the text
writes the word: a place a NER model, or the gazetteer with no location word before it, read there gives way
("I reviewed Abiye today"), and so does one inside a longer person ("Sathvik Handa ... Handa told reporters").

A place a NER model read inside a person a cue points at (``name_cues``: "I've drafted a reply to Wuraola", "meneer
van Evelingen") gives way to the person.

A place one of the NER models read where these rules find a person (a family name or a given name NER took for a
town: "L'avocat de Koskinen", "Lawrence und Sara") yields to the person; a place the gazetteer found does not, unless
it is the known first name of a pair ("HOELEN, Sofia").
"""

from __future__ import annotations

import functools
import re

from spacy.lang.de.stop_words import STOP_WORDS as DE
from spacy.lang.en.stop_words import STOP_WORDS as EN

from gateway.guardrails.dates import calendar_words
from gateway.guardrails.findings import Finding
from gateway.guardrails.legal_forms import LEGAL_FORMS
from gateway.guardrails.name_cues import CUE_WORDS
from gateway.guardrails.ner import CONTINENTAL_NER_SOURCE, LOWER_LETTERS, NER_SOURCE, UPPER_LETTERS, starts_sentence
from gateway.guardrails.person_names import KnownNames, known_names
from gateway.guardrails.places import SCORE as PLACE_SCORE
from gateway.guardrails.places import english_words
from gateway.guardrails.span_index import SpanIndex

RECURRING_SCORE = 0.6
PAIRED_SCORE = 0.6
COORDINATED_SCORE = 0.6
SOURCE = "recurring_names"
_GAZETTEER_SOURCE = "PlaceRecognizer"  # ``places.PlaceRecognizer``'s findings
SUBJECT_SOURCE = "subject_names"  # ``people.subject_names``' persons: a place inside one gives way to it
CUED_SOURCE = "name_cues"  # ``name_cues.cued_names``' persons: a place inside one gives way to it
MIN_LETTERS = 3  # "Li", "Wu": two letters are as often a code, a unit or a word's part
_NER_SOURCES = frozenset({NER_SOURCE, CONTINENTAL_NER_SOURCE})
_CALENDAR_WORDS = calendar_words()
# English and German stop words are never names here: German capitalises some in running text ("Sie", "Ihr"), and
# English writes "Will", "May" at a sentence's start. French, Spanish, Italian and Portuguese ones that are also
# given names ("Sara", "Mie", "Mila") are names where the text never writes them in lower case, as a text in their
# own language would (``_written_lower``, asked of every word these rules take).
_NEVER_NAMES = frozenset(word.casefold() for words in (EN, DE) for word in words)
# A person's name word: letters, inner hyphens and apostrophes ("Rohleder-Plath", "O'Brien").
_NAME_WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")
_GLUED = re.compile(r"[\w'’-]")
# Words after a name that make it a company's, a street's or a building's ("Baker Ltd", "Franklin Street"): legal
# forms (``legal_forms``) and common street and institution words. A street or a company is mostly found as such and
# its span skipped; these catch the rest.
_AFTER_WORDS = LEGAL_FORMS | frozenset({
    "street", "st", "road", "rd", "avenue", "ave", "lane", "drive", "boulevard", "blvd", "way", "place", "court",
    "square", "strasse", "straße", "weg", "platz", "allee", "gasse", "calle", "rue", "avenida", "hall", "house",
    "park", "bridge", "school", "college", "university", "hospital", "group", "foundation", "institute", "&",
})  # fmt: skip
_CAPITALISED = rf"[{UPPER_LETTERS}][{LOWER_LETTERS}]+(?:['’-][{UPPER_LETTERS}]?[{LOWER_LETTERS}]+)?"
_CAPITALS = rf"[{UPPER_LETTERS}]{{3,}}(?:['’-][{UPPER_LETTERS}]{{2,}})?"
# Not "&", which joins the names of firms and brands ("Ben & Jerry's", "Marks & Spencer") more often than relatives.
_SEPARATOR = r"(?:[ \t]*[,;][ \t]*|[ \t]+(?:and|und|et|y|e)[ \t]+)"
_NEXT_ITEM = re.compile(rf"{_SEPARATOR}(?P<word>{_CAPITALISED})(?![\w'’-])")
_PREVIOUS_ITEM = re.compile(rf"(?P<word>{_CAPITALISED}){_SEPARATOR}\Z")
# A family name in capitals or a capitalised word after an initial: one pattern that opens with a capital (what
# stands before it is checked in Python, not by a look-behind tried at every position).
_PAIRED = re.compile(
    rf"[{UPPER_LETTERS}](?:\.[ \t]?(?P<after_initial>{_CAPITALISED})"
    rf"|(?P<capitals>[{UPPER_LETTERS}]{{2,}}(?:['’-][{UPPER_LETTERS}]{{2,}})?))(?![\w'’-])"
)
_GIVEN_AFTER = re.compile(rf",?[ \t]+(?P<word>{_CAPITALISED}|{_CAPITALS})(?![\w'’-])")
_GIVEN_BEFORE = re.compile(rf"(?P<word>{_CAPITALISED}|{_CAPITALS})[ \t]+\Z")
_LOOK_BACK = 40  # characters searched before a word for the item or given name before it


def with_recurring_names(text: str, findings: list[Finding]) -> list[Finding]:
    """`findings` with the persons these rules add, less the NER places a person added here takes over."""
    taken = [f for f in findings if f.score >= 0.5]
    if not any(f.entity_type == "PERSON" for f in taken):
        return findings  # a text about people has a person found: the others cost no scan
    cued = [f for f in taken if f.source == CUED_SOURCE and f.entity_type == "PERSON"]
    if cued:
        findings = [f for f in findings if not _cued_over_place(f, cued)]
        taken = [f for f in findings if f.score >= 0.5]
    subjects = [f for f in taken if f.source == SUBJECT_SOURCE]
    if subjects:
        findings = _subjects_over_places(text, findings, subjects)
        taken = [f for f in findings if f.score >= 0.5]
    names = known_names()
    paired = paired_recurring(text, names, taken)
    found = [*paired, *recurring_words(text, [*taken, *paired])]
    found.extend(coordinated_given_names(text, names, [*taken, *found]))
    if not found:
        return findings
    return [f for f in findings if not _taken_over(f, found, paired)] + found


def _subjects_over_places(text: str, findings: list[Finding], subjects: list[Finding]) -> list[Finding]:
    """A clause's subject a verb makes a person of (``people.subject_names``: "Abiye reports better sleep") is that
    person wherever the text writes the word: a place that a NER model read, or the gazetteer found with no location
    word before it, where the word stands ("I reviewed Abiye today", "Sathvik Handa said") gives way; standing alone,
    it is the person."""
    words = {text[s.start : s.end] for s in subjects}
    people = [f for f in findings if f.entity_type == "PERSON"]
    kept: list[Finding] = []
    for finding in findings:
        if finding.entity_type == "LOCATION" and text[finding.start : finding.end] in words and (
            finding.source in _NER_SOURCES or (finding.source == _GAZETTEER_SOURCE and finding.score == PLACE_SCORE)
        ):
            if not any(p.start <= finding.start and finding.end <= p.end for p in [*people, *kept]
                       if p.entity_type == "PERSON"):  # fmt: skip
                kept.append(Finding("PERSON", finding.start, finding.end, RECURRING_SCORE, SOURCE))
            continue
        kept.append(finding)
    return kept


def _cued_over_place(finding: Finding, cued: list[Finding]) -> bool:
    """Whether `finding` is a place a NER model read inside a person a cue points at ("I've drafted a reply to
    Wuraola", "meneer van Evelingen"): the cue says who. A place the gazetteer knows stays beside it (a title or a
    signature's label before a town in word salad: "dottore Carbonia")."""
    if finding.entity_type != "LOCATION" or finding.source not in _NER_SOURCES:
        return False
    return any(c.start <= finding.start and finding.end <= c.end for c in cued)


def _taken_over(finding: Finding, found: list[Finding], paired: list[Finding]) -> bool:
    """Whether a place lies inside a person found here, and NER read it (or it is a pair's first name)."""
    if finding.entity_type != "LOCATION":
        return False
    holders = found if finding.source in _NER_SOURCES else paired
    return any(h.start <= finding.start and finding.end <= h.end for h in holders)


def _blocking(taken: list[Finding], *, places: bool, people: bool = True) -> SpanIndex:
    """The spans a new person may not overlap: every finding's but the NER models' places (a name NER took for a
    town), no place at all when `places` is false, and no person when `people` is false."""
    return SpanIndex((f.start, f.end) for f in taken
                     if (f.entity_type != "LOCATION" or (places and f.source not in _NER_SOURCES))
                     and (people or f.entity_type != "PERSON"))  # fmt: skip


def _title(word: str) -> str:
    """The word capitalised part by part ("RÖRRICHT-HARTMANN" -> "Rörricht-Hartmann", "O'BRIEN" -> "O'Brien")."""
    if word.isalpha():
        return word[0] + word[1:].lower() if word[0].isupper() else word[0].upper() + word[1:].lower()
    return re.sub(r"[^\W\d_]+", lambda m: m.group()[0].upper() + m.group()[1:].lower(), word)


def _may_recur(word: str) -> bool:
    """Whether a word of a name may be looked for alone: three letters or more, written with a capital, and no English
    or German stop word, calendar word or title."""
    folded = word.casefold()
    return (len(word) >= MIN_LETTERS and word[0].isupper() and folded not in _NEVER_NAMES
            and folded not in _CALENDAR_WORDS and folded not in CUE_WORDS)  # fmt: skip


def _written_lower(text: str, word: str) -> bool:
    """Whether the text writes the word in lower case somewhere, as a word."""
    lower = word.lower()
    start = text.find(lower)
    while start >= 0:
        end = start + len(lower)
        if (start == 0 or not text[start - 1].isalpha()) and (end == len(text) or not text[end].isalpha()):
            return True
        start = text.find(lower, start + 1)
    return False


def _stands_alone(text: str, start: int, end: int) -> bool:
    """Whether text[start:end] is a whole word: no letter, digit, hyphen or apostrophe glued before it, none after it
    but a possessive "'s" or a lone apostrophe, and no '@', '.' or '/' of an address or path around it."""
    if start > 0:
        before = text[start - 1]
        if _GLUED.match(before) or before in "@/\\":
            return False
        if before == "." and start > 1 and not text[start - 2].isspace():
            return False  # "mail.ochoa", "J.Ochoa": a host name's or a login's word
    if end == len(text):
        return True
    after = text[end]
    following = text[end + 1 : end + 2]
    if after in "'’":
        return following in ("s", "") or not following.isalnum()
    if after in "@/\\" or (after == "." and following.isalnum()):
        return False
    return not (after.isalnum() or after in "_-")


def _followed_by_form_or_street(text: str, end: int) -> bool:
    if text[end : end + 1] not in (" ", "\t"):
        return False
    following = text[end + 1 : end + 2]
    if following == "&":
        return True
    match = _NAME_WORD.match(text, end + 1)
    return match is not None and match.group().casefold() in _AFTER_WORDS


@functools.cache
def _sentence_case_words() -> frozenset[str]:
    """English verbs, adjectives and adverbs (``places.english_words``): capitalised at a sentence's start as a
    matter of course ("Young people ...", "Mark the date")."""
    words = english_words()
    return words.verbs | words.modifiers


def _is_sentence_case_word(word: str) -> bool:
    return word.casefold() in _sentence_case_words()


def _occurrences(text: str, form: str, *, common: bool) -> list[tuple[int, int]]:
    """Where `form` stands alone in the text as a name may (``_stands_alone``); for a verb, adjective or adverb
    (`common`), not at the start of a sentence."""
    spans = []
    start = text.find(form)
    while start >= 0:
        end = start + len(form)
        if (_stands_alone(text, start, end) and not (common and starts_sentence(text, start))
                and not _followed_by_form_or_street(text, end)):  # fmt: skip
            spans.append((start, end))
        start = text.find(form, end)
    return spans


def recurring_words(text: str, taken: list[Finding]) -> list[Finding]:
    """Each word of a person found with two words or more, where it stands alone elsewhere in the text."""
    forms: dict[str, str] = {}  # a form to look for -> the word as the name writes it
    for finding in taken:
        if finding.entity_type != "PERSON":
            continue
        span = text[finding.start : finding.end]
        if "\n" in span:
            continue
        words = _NAME_WORD.findall(span)
        if len(words) < 2:
            continue
        for word in words:
            if _may_recur(word):
                for form in (word, word.upper(), _title(word)):
                    forms.setdefault(form, word)
    if not forms:
        return []
    index = _blocking(taken, places=True)
    found: list[Finding] = []
    for form, word in forms.items():
        if _written_lower(text, word):
            continue
        for start, end in _occurrences(text, form, common=_is_sentence_case_word(word)):
            if not index.overlaps(start, end):
                found.append(Finding("PERSON", start, end, RECURRING_SCORE, SOURCE))
                index.add(start, end)
    return found


def paired_recurring(text: str, names: KnownNames, taken: list[Finding]) -> list[Finding]:
    """Family names in capitals beside a known first name, and capitalised words after an initial, that the text
    also writes alone elsewhere."""
    index: SpanIndex | None = None
    found: list[Finding] = []
    for match in _PAIRED.finditer(text):
        start, end = match.span()
        if start > 0 and (_GLUED.match(text[start - 1]) or text[start - 1] == "."):
            continue  # inside a word, or an abbreviation's last letter ("U.S. Army")
        word = match.group("after_initial") or match.group()
        title = _title(word) if match.group("after_initial") is None else word
        if title not in text or not _may_recur(word):
            continue  # most words in capitals are codes the text never writes capitalised ("HTTP", "SKU")
        if _is_sentence_case_word(word) or _written_lower(text, word):
            continue  # "SHARE PURCHASE AGREEMENT ... the Purchase Price": a title's words, not a name
        word_start = match.start("after_initial") if match.group("after_initial") else start
        if not any(at != word_start for at, _ in _occurrences(text, title, common=False)):
            continue
        if match.group("after_initial") is not None:
            span = (start, end)
        else:
            given_span = _given_beside(text, start, end, names)
            if given_span is None:
                continue
            span = (min(start, given_span[0]), max(end, given_span[1]))
        if index is None:
            # A pair may hold a word another rule took alone ("M. Adler": "Adler"): the pair is the name to repeat.
            index = _blocking(taken, places=False, people=False)
        if index.overlaps(*span) or any(f.entity_type == "PERSON" and f.start <= span[0] and span[1] <= f.end
                                         for f in taken):  # fmt: skip
            continue
        found.append(Finding("PERSON", *span, PAIRED_SCORE, SOURCE))
        index.add(*span)
    return found


def _given_beside(text: str, start: int, end: int, names: KnownNames) -> tuple[int, int] | None:
    """The span of a known first name right after the word at [start, end) (after a comma or a space: "HOELEN,
    Sofia") or right before it ("CHARLOTTE AALTS", "Ashley SMITH")."""
    for given in (_GIVEN_AFTER.match(text, end), _GIVEN_BEFORE.search(text, max(0, start - _LOOK_BACK), start)):
        if given is None:
            continue
        word = given.group("word")
        if given.start() > 0 and given.end() <= start and _GLUED.match(text[given.start() - 1]):
            continue
        if (names.is_first(word) and _may_recur(word) and not _is_sentence_case_word(word)
                and not _written_lower(text, word)):  # fmt: skip
            return given.span("word")
    return None


def coordinated_given_names(text: str, names: KnownNames, taken: list[Finding]) -> list[Finding]:
    """Known first names joined to a one-word person by a comma or a conjunction, followed along the list."""
    queue = [(f.start, f.end) for f in taken if f.entity_type == "PERSON" and names.is_first(text[f.start : f.end])]
    if not queue:
        return []
    index = _blocking(taken, places=True)
    found: list[Finding] = []
    while queue:
        start, end = queue.pop()
        candidates = []
        after = _NEXT_ITEM.match(text, end)
        if after is not None:
            candidates.append(after.span("word"))
        before = _PREVIOUS_ITEM.search(text, max(0, start - _LOOK_BACK), start)
        if before is not None and not (before.start() > 0 and _GLUED.match(text[before.start() - 1])):
            candidates.append(before.span("word"))
        for word_start, word_end in candidates:
            word = text[word_start:word_end]
            if (not names.is_first(word) or not _may_recur(word) or _written_lower(text, word)
                    or index.overlaps(word_start, word_end)):  # fmt: skip
                continue
            found.append(Finding("PERSON", word_start, word_end, COORDINATED_SCORE, SOURCE))
            index.add(word_start, word_end)
            queue.append((word_start, word_end))
    return found
