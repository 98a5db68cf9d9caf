"""PERSON from a name written family name first with a comma: "SHINOHARA, Toshihide", "Stepanova, Igor".

Indexes, directories, rosters and records invert a name so that it sorts by the family name, and mark the inversion
with a comma; forms often print the family name in capitals ("HORI, Saika"). The pair rules (``people.name_pairs``)
read two names side by side and stop at the comma, and a comma between two capitalised words is as often a list or a
place ("Lima, Peru", "Monday, June"): so the family name must be a known last name (names-dataset, ``person_names``)
and the given name a known first name, neither a stop word, an English dictionary, calendar or field word, and the
family name no place the gazetteer knows. One more given name or an initial may follow the first
("KAWAKAMI, Tomoki S."). The name ends where a cased letter stops, so a Japanese honorific glued to it
("HORI, Saikaさん") is no part of it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from gateway.guardrails.dates import calendar_words
from gateway.guardrails.findings import Finding
from gateway.guardrails.ner import LOWER_LETTERS, UPPER_LETTERS
from gateway.guardrails.person_names import KnownNames
from gateway.guardrails.places import gazetteer
from gateway.guardrails.span_index import SpanIndex

INVERTED_SCORE = 0.6
_CALENDAR_WORDS = calendar_words()
_FIELD_WORDS = frozenset({"id", "ip", "iban", "token", "url", "uuid", "sku", "ssn", "dob", "api", "vat", "email"})
_CAPITALS = rf"[{UPPER_LETTERS}]{{2,}}(?:['’-][{UPPER_LETTERS}]{{2,}})?"
_CAPITALISED = rf"[{UPPER_LETTERS}][{LOWER_LETTERS}]+(?:['’-][{UPPER_LETTERS}][{LOWER_LETTERS}]+)?"
_CASED = rf"{UPPER_LETTERS}{LOWER_LETTERS}"
_CASED_CHARS = "".join(char for char in map(chr, range(0x0530)) if char.isupper() or char.islower())
# Where no cased letter is glued on: a Japanese or Korean word may be ("担当はSOVICHA, Chhoungさん").
_INVERTED = re.compile(
    rf"(?<![{_CASED}\d_.'’-])(?P<family>{_CAPITALS}|{_CAPITALISED}),[ \t](?P<given>{_CAPITALISED})"
    rf"(?:[ \t](?P<more>{_CAPITALISED}|[{UPPER_LETTERS}]\.))?(?![{_CASED}\d'’-])"
)


# The pattern opens with a look-behind, which the regex engine tries at every position: it is matched only where a
# family name can start, at the head of the run of cased letters, apostrophes and hyphens before a comma and a space
# or tab (the look-behind fails anywhere inside such a run).
_COMMA = re.compile(r",[ \t]")
_FAMILY_CHARS = frozenset(f"{_CASED_CHARS}'’-")


def has_inverted_name(text: str) -> bool:
    """The pre-filter: a comma and a space, which every inverted name holds."""
    return ", " in text


def inverted_names(text: str, taken: Iterable[Finding], stop_words: frozenset[str], common_words: frozenset[str],
                   names: KnownNames) -> list[Finding]:  # fmt: skip
    """Family-name-first names with a comma that no finding in `taken` but a place overlaps."""
    if not has_inverted_name(text):
        return []
    spans = SpanIndex((f.start, f.end) for f in taken if f.entity_type != "LOCATION")
    places = gazetteer()

    def ordinary(word: str) -> bool:
        folded = word.casefold()
        return folded in stop_words or folded in common_words or folded in _CALENDAR_WORDS or folded in _FIELD_WORDS

    found: list[Finding] = []
    for match in _matches(text):
        family, given, more = match.group("family"), match.group("given"), match.group("more")
        family_name = family.title() if family.isupper() else family
        if ordinary(family) or ordinary(given) or not names.is_last(family_name) or not names.is_first(given):
            continue
        if family.casefold() in places:
            continue  # "Lima, Maria": a place, then a name
        end = match.end() if more is None or more.endswith(".") or names.is_name(more) else match.end("given")
        if not spans.overlaps(match.start(), end):
            found.append(Finding("PERSON", match.start(), end, INVERTED_SCORE, "inverted_names"))
            spans.add(match.start(), end)
    return found


def _matches(text: str) -> Iterable[re.Match[str]]:
    """``_INVERTED.finditer(text)``'s matches, the pattern tried only where one can start (``_FAMILY_CHARS``)."""
    resume = 0  # as finditer, no match starts inside the one before
    for comma in _COMMA.finditer(text):
        start = comma.start()
        while start > resume and text[start - 1] in _FAMILY_CHARS:  # past `resume` the look-behind fails
            start -= 1
        if start == comma.start():
            continue
        match = _INVERTED.match(text, start)
        if match is not None:
            resume = match.end()
            yield match
