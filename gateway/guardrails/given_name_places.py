"""A place the NER models read that is a common given name and no place: a person.

spaCy's small English model has learned few of the given names of Italian, Portuguese, Polish, Scandinavian or Czech
messages, and reads one alone after a comma, a greeting, a sign-off or a verb as a place ("Abraço, Beatriz",
"Convocati: ..., Alessia, Titti", "Lieferung an ... macht Karim", "Saludos, Mariano"); Warden's model does so too now
and then. A name written alone is a person far more often than a place that no table of places holds: a place that is
one capitalised word, a common given name (names-dataset's, ``person_names.known_names``), and no name the place
gazetteer holds, with or without its diacritics (its cities, countries, US states, CLDR's names and ISO 3166-2's
subdivisions: ``places.gazetteer``, ``places.folded_gazetteer``, ``region_names``) is read as a person. "Sofia",
"Victoria", "Florence" or "Georgia" are places the gazetteer holds, and stay places; the person rules then decide
what the name is (``people.confirmed``). A name right after a preposition of place stays the models' place ("a
week in Brittany", "fra Kerry"; ``PLACE_PREPOSITIONS``, those of the languages the corpus of messages is written in:
English, French, Spanish, German, Italian, Portuguese, Dutch, Polish, Swedish, Danish, Norwegian, Czech), unless
the preposition ends regards sent to someone or a hand-over ("Say hi to Imre", "écrivez à Gaëlle":
``name_cues.regards_cue_before``). A name with a capitalised word right before or after it is part of a longer name
("GERTZ Priska", "Odalis Sotelo"): the models' place there stays theirs, and the name rules read the whole name.
"""

from __future__ import annotations

import re
from functools import cache

from gateway.guardrails.name_cues import regards_cue_before
from gateway.guardrails.person_names import known_names
from gateway.guardrails.places import fold, folded_gazetteer, gazetteer
from gateway.guardrails.region_names import region_names

PLACE_PREPOSITIONS = frozenset({
    "in", "at", "to", "from", "near", "into", "via", "around", "across", "outside", "toward", "towards",  # English
    "à", "a", "en", "au", "aux", "de", "vers", "depuis", "dans", "près",  # French, Spanish, Italian
    "desde", "hacia", "por", "para", "pra", "em", "no", "na", "do", "da", "di", "per",  # Spanish, Portuguese, Italian
    "nach", "aus", "von", "bei", "im", "ins",  # German
    "naar", "uit", "bij", "te",  # Dutch
    "w", "we", "z", "ze", "pod", "v", "ve",  # Polish, Czech ("na" above)
    "i", "från", "till", "på", "fra", "til",  # Swedish, Danish, Norwegian
})  # fmt: skip
# The word right before a span, on its line (looked for in the _REACH characters before it), and right after it.
_REACH = 24
_WORD_BEFORE = re.compile(r"([^\W\d_]+)[ \t]+\Z")
_WORD_AFTER = re.compile(r"[ \t]+([^\W\d_])")
# One word, capitalised and then lower case (an acronym or a word in capitals is no name read alone).
_CAPITALISED_WORD = re.compile(r"[^\W\d_][^\W\d_A-Z]+")


@cache
def _regions() -> frozenset[str]:
    return frozenset(fold(name) for name in region_names())


def is_given_name_not_place(text: str, start: int, end: int) -> bool:
    """Whether `text[start:end]`, which a NER model calls a place, is one capitalised word that is a common given
    name, names no place the gazetteer or the subdivisions' table holds, follows no preposition of place, and stands
    alone (no capitalised word right before or after it)."""
    span = text[start:end]
    if not _CAPITALISED_WORD.fullmatch(span) or not span[0].isupper() or span[1:] != span[1:].lower():
        return False
    folded = span.casefold()
    if folded not in known_names().given or folded in gazetteer():
        return False
    plain = fold(span)
    if plain in folded_gazetteer() or plain in _regions():
        return False
    before = _WORD_BEFORE.search(text, max(0, start - _REACH), start)
    if before is not None and (
        before.group(1)[0].isupper()
        or (before.group(1).casefold() in PLACE_PREPOSITIONS and not regards_cue_before(text, start))
    ):
        return False  # "a week in Brittany"; but "Say hi to Imre", "écrivez à Gaëlle" send regards or hand over
    after = _WORD_AFTER.match(text, end)
    return after is None or not after.group(1).isupper()
