"""PERSON from the shape of a name or of a list of names, where neither a cue nor a known first-and-last pair is.

- ``listed_names``: the other items of a list one of whose items is a person ("Attendees: Ana Lima, D. Vives;
  Székely Csaba", "Cc: Milka Finke, KUSCH Clemens", "Dear Raamiz Barraq and Florina Popa,"). A list of names holds
  names: an item that reads as one (capitalised words, initials, particles; no stop word, calendar word or field
  word; not only dictionary words unless one is a known name; not a place the gazetteer knows) is a person too,
  whatever the name list holds. Items are cut at commas, semicolons, "and"/"et"/"y"/"und"/"e"/"&" on one line; a
  label before the first ("Attendees:", "Teilnehmende:") or a greeting ("Dear", "Hola") is not part of it.
- ``shaped_names``: names written in forms the pair rules (``people.name_pairs``) do not read: an initial before a
  known last name ("D. Vives"), a family name in capitals before a known first name ("DUPONT Marie", "NOËL
  Mohammed", as French, Spanish and Italian forms write it), none of the words an English dictionary word or a stop
  word; and a nickname in quotes between a given name and a family name ('Robert "Bob" Hooper', 'Ine “Kenny” De
  Ryck'), one of the given name and the nickname a known first name.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from gateway.guardrails.dates import calendar_words
from gateway.guardrails.findings import Finding
from gateway.guardrails.name_cues import CUE_WORDS, MAX_PARTICLE_LETTERS
from gateway.guardrails.ner import LOWER_LETTERS, UPPER_LETTERS
from gateway.guardrails.person_names import KnownNames
from gateway.guardrails.places import english_words, gazetteer

LISTED_SCORE = 0.6
SHAPED_SCORE = 0.6
MAX_ITEM_WORDS = 4
_CALENDAR_WORDS = calendar_words()
# Where one item of a list ends and the next begins, on one line.
# People write a space after a list's comma; a CSV row ("2000,Rust'avi,Obianuju Anyanwu") is no list but columns.
_SEPARATOR = re.compile(r"[ \t]*[,;][ \t]+|[ \t]+(?:and|et|y|und|e|&)[ \t]+")
# A label that opens a list ("Attendees: ", "Participants : ", "Cc: "): the items start after its colon.
_LABEL = re.compile(r"[^\W\d_][\w .'’-]{0,30}?[ \t]*:[ \t]*")
_APOSTROPHES = str.maketrans(dict.fromkeys("’‘ʼ`´′", "'"))  # as the gazetteer writes them
_MAX_ABBREVIATION_LETTERS = 4  # "Dr.", "Prof.", "Sra.", "Hno.": a longer word with a full stop ends a sentence
_ITEM_WORD = re.compile(r"[^\W\d_]+(?:['’ʼ.-][^\W\d_]+)*\.?")
_FIELD_WORDS = frozenset({"id", "ip", "iban", "token", "url", "uuid", "sku", "ssn", "dob", "api", "vat", "email",
                          "e-mail", "cc", "bcc", "to", "from", "subject", "notes", "n/a", "tbd"})  # fmt: skip


def _is_initial(word: str) -> bool:
    return len(word) == 2 and word[1] == "." and word[0].isupper()


def _reads_as_name(item: str, stop_words: frozenset[str], common_words: frozenset[str],
                   names: KnownNames) -> bool:  # fmt: skip
    """Whether a list item is written as a person's name: up to four words, each capitalised (a family name may be
    in capitals beside a capitalised word), an initial, or a short lower-case particle between them."""
    words = item.split()
    if not words or len(words) > MAX_ITEM_WORDS or any(not _ITEM_WORD.fullmatch(word) for word in words):
        return False
    if any(len(word) > _MAX_ABBREVIATION_LETTERS + 1 and word.endswith(".") for word in words[:-1]):
        return False  # a sentence ends inside the item ("Offenbach. Balkon"); "Prof. Dr. Weber" is abbreviations
    letters = words[0].replace(".", "")
    if len(words) == 1 and len(letters) <= 4 and sum(char.isupper() for char in letters) >= 2 \
            and not letters.isupper():  # fmt: skip
        return False  # a degree after a name ("PhD", "M.Sc", "BSc"): two capitals in four letters, not all capitals
    core = [word for word in words if not _is_initial(word)]
    if not core or not core[-1][0].isupper() or not words[0][0].isupper():
        return False
    folded = [word.casefold().rstrip(".") for word in core]
    if any(word in _FIELD_WORDS or word in _CALENDAR_WORDS or word in CUE_WORDS for word in folded):
        return False
    for word in core[1:-1]:
        if word.islower() and len(word) > MAX_PARTICLE_LETTERS:
            return False  # "l'équipe Achats", "the Platform team": a phrase, not a name
    capitalised = [word for word in core if word[0].isupper()]
    if all(word.isupper() for word in capitalised) and not (len(capitalised) == 1 and len(words) > 1):
        return False  # an acronym or a code ("IBAN", "QBR"); "D. VIVES" still has its initial
    if any(word.casefold() in stop_words for word in capitalised):
        return False
    if all(word.casefold() in common_words for word in capitalised) and not any(
        names.is_name(word) for word in capitalised
    ):
        return False  # "Finance", "Legal Ops"
    key = " ".join(folded).translate(_APOSTROPHES)
    return key not in gazetteer() or any(names.is_first(word) for word in capitalised)


def listed_names(text: str, people: Iterable[Finding], taken: Iterable[Finding], stop_words: frozenset[str],
                 common_words: frozenset[str], names: KnownNames) -> list[Finding]:  # fmt: skip
    """The items of each list that holds one of `people`, that read as names and that no finding in `taken`
    (which holds `people`) overlaps, places aside."""
    anchors = sorted({(f.start, f.end) for f in people})
    if not anchors:
        return []
    # A place NER or the gazetteer read inside a list of people is a name read as a place ("Ó. Jaimes", "Csaba"):
    # the list wins, as a cue does (``name_cues``). An item that is all a place the gazetteer knows is no name.
    spans = [(f.start, f.end) for f in taken if f.entity_type != "LOCATION"]
    found: list[Finding] = []
    lines_done: set[int] = set()
    for anchor_start, _ in anchors:
        line_start = text.rfind("\n", 0, anchor_start) + 1
        if line_start in lines_done:
            continue
        lines_done.add(line_start)
        line_end = text.find("\n", anchor_start)
        line_end = len(text) if line_end < 0 else line_end
        items = _items(text, line_start, line_end)
        if len(items) < 2:
            continue
        holds_person = [any(start < end_ and start_ < end for start_, end_ in anchors) for start, end in items]
        if not any(holds_person):
            continue
        for index, (start, end) in enumerate(items):
            if holds_person[index] or not _next_to_person(index, items, holds_person, text, stop_words,
                                                              common_words, names):  # fmt: skip
                continue
            if any(start < other_end and other_start < end for other_start, other_end in spans):
                continue
            found.append(Finding("PERSON", start, end, LISTED_SCORE, "listed_names"))
            spans.append((start, end))
    return found


def _items(text: str, line_start: int, line_end: int) -> list[tuple[int, int]]:
    """The (start, end) of each item of the line, stripped, the first without a label or greeting before it."""
    position = line_start
    label = _LABEL.match(text, line_start, line_end)
    if label is not None:
        position = label.end()
    items = []
    while position <= line_end:
        separator = _SEPARATOR.search(text, position, line_end)
        end = separator.start() if separator else line_end
        start = position
        while start < end and text[start] in " \t":
            start += 1
        stop = end
        while stop > start and text[stop - 1] in " \t.,:!?":
            stop -= 1
        if stop > start:
            items.append((start, stop))
        if separator is None:
            break
        position = separator.end()
    if items:  # a greeting before the first name: "Dear Ana", "Hola Sofía"
        start, end = items[0]
        first = _ITEM_WORD.match(text, start, end)
        if first is not None and first.group().casefold() in CUE_WORDS:
            rest = first.end()
            while rest < end and text[rest] in " \t":
                rest += 1
            items[0] = (rest, end)
    return items


def _next_to_person(index: int, items: list[tuple[int, int]], holds_person: list[bool], text: str,
                    stop_words: frozenset[str], common_words: frozenset[str], names: KnownNames) -> bool:  # fmt: skip
    """Whether item `index` reads as a name and a run of name-like items joins it to an item holding a person."""

    def name_like(i: int) -> bool:
        start, end = items[i]
        return holds_person[i] or _reads_as_name(text[start:end], stop_words, common_words, names)

    if not name_like(index):
        return False
    for step in (-1, 1):
        i = index + step
        while 0 <= i < len(items) and name_like(i):
            if holds_person[i]:
                return True
            i += step
    return False


# An initial and a capitalised word, or a word in capitals and a capitalised word: one pattern, one scan, that opens
# with a capital (a lookbehind first, tried at every position, made it five times slower); what stands before the
# match is checked in Python.
_CAPITALISED = rf"[{UPPER_LETTERS}][{LOWER_LETTERS}]+(?:['’-][{UPPER_LETTERS}]?[{LOWER_LETTERS}]+)?"
_SHAPED = re.compile(
    rf"[{UPPER_LETTERS}](?:\.[ \t]+(?P<last>{_CAPITALISED})|(?P<capitals>[{UPPER_LETTERS}]{{2,}}"
    rf"(?:['’-][{UPPER_LETTERS}]{{2,}})?)[ \t]+(?P<first>{_CAPITALISED}))(?![\w'’-])"
)
_NOT_BEFORE = re.compile(r"[\w.'’-]")


# A nickname in quotes between a given name and a family name ('Robert "Bob" Hooper', 'Ine “Kenny” De Ryck'): found
# from its quotes (few positions of a text), the given name before them checked after.
_OPENING_QUOTES = ('"', "“", "‘", "«", "'")
_NICKNAME = re.compile(
    rf"[\"“‘«'](?P<nick>{_CAPITALISED})[\"”’»'][ \t]+(?P<last>{_CAPITALISED})"
    rf"(?:[ \t]+(?P<more>{_CAPITALISED}))?(?![\w'’-])"
)
_GIVEN_BEFORE = re.compile(rf"(?<![\w.'’-])(?P<first>{_CAPITALISED})\Z")  # searched up to the space


def _nicknamed(text: str, names: KnownNames, ordinary: Callable[[str], bool],
               stop: Callable[[str], bool]) -> list[tuple[int, int]]:  # fmt: skip
    """The spans of names written with a nickname in quotes: a given name, the nickname (one of them a known first
    name), a family name (two words where the first is a particle's length: "De Ryck"); the given name no stop
    word, the family name no stop, dictionary or calendar word unless a known name (where both given name and
    nickname are known first names, no stop word)."""
    found = []
    for match in _NICKNAME.finditer(text):
        if not match.start() or text[match.start() - 1] not in " \t":
            continue  # a space between the given name and the quotes
        given = _GIVEN_BEFORE.search(text, max(0, match.start() - 40), match.start() - 1)
        if given is None:
            continue
        first, last, more = given.group("first"), match.group("last"), match.group("more")
        end = match.end("more") if more is not None and len(last) <= MAX_PARTICLE_LETTERS else match.end("last")
        family = [last, more] if end == match.end("more") else [last]
        nick = match.group("nick")
        if stop(first) or not (names.is_first(first) or names.is_first(nick)):
            continue
        # Two known first names around the quotes make the layout; the family name may then be a word too ("Hooper").
        named = names.is_first(first) and names.is_first(nick)
        if all(names.is_name(word) or not (stop(word) if named else ordinary(word)) for word in family):
            found.append((given.start(), end))
    return found


def _noun_given_name(word: str, names: KnownNames, stop_words: frozenset[str]) -> bool:
    """Whether a capitalised word the dictionary holds as a noun alone is a common given name of the English-speaking
    countries ("NIQUILLE Robert": WordNet lists "robert"); not a verb's or a modifier's ("Mark", "Will", "Grant")."""
    folded = word.casefold()
    english = english_words()
    return (folded in names.given_english and folded not in stop_words and folded not in english.verbs
            and folded not in english.modifiers and folded not in _CALENDAR_WORDS)  # fmt: skip


def shaped_names(text: str, taken: Iterable[Finding], stop_words: frozenset[str], common_words: frozenset[str],
                 names: KnownNames) -> list[Finding]:  # fmt: skip
    """Initial + known last name, family name in capitals + known first name, that no finding in `taken` but a
    place overlaps (NER reads a family-first name as a place: "DUPONT Younes")."""
    spans = [(f.start, f.end) for f in taken if f.entity_type != "LOCATION"]
    found: list[Finding] = []

    def ordinary(word: str) -> bool:
        folded = word.casefold()
        return folded in stop_words or folded in common_words or folded in _CALENDAR_WORDS or folded in _FIELD_WORDS

    def accept(match: re.Match[str]) -> bool:
        last = match.group("last")
        if last is not None:
            return names.is_last(last) and not ordinary(last)
        capitals, first = match.group()[0] + match.group("capitals"), match.group("first")
        # Five capitals or more, or a known last name: most acronyms are shorter ("AWS", "NASA").
        return (names.is_first(first) and (not ordinary(first) or _noun_given_name(first, names, stop_words))
                and not ordinary(capitals)
                and (len(capitals) >= 5 or names.is_last(capitals.title())))  # fmt: skip

    if any(quote in text for quote in _OPENING_QUOTES):
        # A person found inside the name (NER's "Nanna" of 'Nanna "Selma" Andersen') is part of it.
        people = {(f.start, f.end) for f in taken if f.entity_type == "PERSON"}
        for nicknamed in _nicknamed(text, names, ordinary, lambda word: word.casefold() in stop_words):
            if not any(nicknamed[0] < end and start < nicknamed[1]
                       and not ((start, end) in people and nicknamed[0] <= start and end <= nicknamed[1])
                       for start, end in spans):  # fmt: skip
                found.append(Finding("PERSON", *nicknamed, SHAPED_SCORE, "shaped_names"))
                spans.append(nicknamed)
    position = 0
    while (match := _SHAPED.search(text, position)) is not None:
        position = match.start() + 1
        if match.start() and _NOT_BEFORE.match(text, match.start() - 1):
            continue
        if accept(match) and not any(match.start() < end and start < match.end() for start, end in spans):
            found.append(Finding("PERSON", match.start(), match.end(), SHAPED_SCORE, "shaped_names"))
            spans.append(match.span())
            position = match.end()
    return found
