"""Street addresses in scripts whose street type follows the street's name:

- Indian scripts (Devanagari, Bengali, Tamil, Telugu, Kannada, Malayalam, Gujarati, Gurmukhi): a house number, with
  its label where written, then the name and its type: "160/11, नारायण रोड", "मकान नं. 51, हजारिका मार्ग",
  "எண் 144, தணிகைமுருகன் சாலை". The types are those of Faker's providers that write one after a name in these scripts
  (ne_NP's "मार्ग", "रोड", bn_BD's "সড়ক", "লেন") and ``street_locales.INDIC_AFTER_NAME``;
- Cyrillic (Kazakh, Kyrgyz, Mongolian): the name, its type, then the house number and a flat: "Төле би көшесі, 42",
  "Әл-Фараби даңғылы 3, 23-пәтер" (``street_locales.CYRILLIC_AFTER_NAME``).

Each is looked for from its type words, only in text holding a letter of its script: the type is found first, then
the number and the name beside it."""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterator
from functools import cache

from gateway.guardrails import street_locales
from gateway.guardrails.word_trie import alternation

_SP = r"[^\S\r\n]"
# Devanagari to Sinhala: the Brahmic scripts of India and Nepal, their vowel signs and viramas included.
_INDIC = "\u0900-\u0dff"
_INDIC_LETTER = re.compile(f"[{_INDIC}]")
_CYRILLIC_LETTER = re.compile("[\u0400-\u04ff]")
# How far before its type a street's name and its number may start.
_REACH = 80
_YEAR = re.compile(r"(?:19|20)\d\d")
_DIGIT = re.compile(r"\d")


def _indic_provider_types() -> set[str]:
    """The street suffixes of Faker's providers written in an Indian script after the name (ne_NP, bn_BD)."""
    types: set[str] = set()
    for locale in ("ne_NP", "bn_BD"):
        provider = importlib.import_module(f"faker.providers.address.{locale}").Provider
        types.update(word for word in provider.street_suffixes if _INDIC_LETTER.match(word))
    return types


@cache
def _indic() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """(the types, what must stand before one: a house number, its label, the name's one to three words)."""
    types = alternation(frozenset(_indic_provider_types() | street_locales.INDIC_AFTER_NAME), fold=False)
    labels = alternation(street_locales.INDIC_NUMBER_LABELS, fold=False)
    word = f"[{_INDIC}][{_INDIC}'’]*"
    before = re.compile(
        rf"(?P<label>(?:{labels}){_SP}*)?(?<![\w./:-])(?P<number>\d{{1,5}})(?:[/-]\d{{1,4}})?,?{_SP}+"
        rf"(?:{word},?{_SP}+){{1,3}}\Z"
    )
    # The type's end: no letter of the script nor a Latin one runs on (a Japanese particle may: "रोडに").
    return re.compile(rf"(?<![{_INDIC}])(?:{types})(?![{_INDIC}A-Za-z])"), before


@cache
def _cyrillic() -> re.Pattern[str]:
    """A type with the house number and the flat after it."""
    types = alternation(street_locales.CYRILLIC_AFTER_NAME)
    flat = alternation(street_locales.CYRILLIC_FLAT_AFTER)
    return re.compile(
        rf"(?<=[^\S\r\n])(?i:{types})(?!\w),?{_SP}+(?P<number>\d{{1,5}})[^\W\d_]?"
        rf"(?P<flat>,{_SP}*\d{{1,4}}-?{_SP}*(?i:{flat}))?(?![\w.,/-]*\d)"
    )


def _is_cyrillic_word_char(char: str) -> bool:
    return "\u0400" <= char <= "\u04ff" or char in "-'’"


def _cyrillic_name_start(text: str, type_start: int) -> int | None:
    """Where the name before a type starts: its furthest capitalised word of the up to three Cyrillic words before
    the type ("Бөгенбай батыр даңғылы", not "адресу"; a Japanese particle glued before it is no part of it:
    "住所はӘуезов"); None where none is capitalised. Walked back character by character, so a long run of words
    costs no more than the three."""
    start, position = None, type_start
    for _ in range(3):
        end = position
        while end > 0 and text[end - 1] in " \t":
            end -= 1
        begin = end
        while begin > 0 and _is_cyrillic_word_char(text[begin - 1]) and end - begin < _REACH:
            begin -= 1
        while begin < end and text[begin] in "-'’":  # a quote before the name ("ADDR1='Достық") is none of it
            begin += 1
        if begin == end or end == position or not text[begin].isalpha():
            break
        if text[begin].isupper():
            start = begin
        position = begin
    return start


def after_name_spans(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) of each street address whose type follows its name, in the scripts above."""
    if _INDIC_LETTER.search(text):
        types, before = _indic()
        for match in types.finditer(text):
            reach = max(0, match.start() - _REACH)
            if _DIGIT.search(text, reach, match.start()) is None:
                continue  # no house number within reach: the type is a word of the sentence
            lead = before.search(text, reach, match.start())
            # A bare year before words is a date in the sentence ("2019 में नई सड़क": the new road in 2019).
            if lead is not None and not (_YEAR.fullmatch(lead.group("number")) and not lead.group("label")):
                yield lead.start(), match.end()
    if _CYRILLIC_LETTER.search(text):
        for match in _cyrillic().finditer(text):
            if _YEAR.fullmatch(match.group("number")) and not match.group("flat"):
                continue  # "Абай даңғылы 2019 жылы": a year, not a house
            start = _cyrillic_name_start(text, match.start())
            if start is not None:
                yield start, match.end()
