"""Common nouns that the NER models and the gazetteer read as a person or a place, found by their grammar.

- German capitalises every noun, so a capitalised word in German prose is no sign of a name. A noun phrase tells
  one: after a German function word (an article, preposition or adverb: a stop word of spaCy's German list) and a
  lower-case word with an adjective's strong or weak ending (-e, -er, -en, -em, -es), the capitalised word is the
  phrase's noun ("In stiller Trauer", "Sehr geehrte Damen", "mit freundlichen Grüßen"), and so is one joined to it by
  "und" or "oder" ("Damen und Herren"). The rule keeps a known first name (names-dataset: "an die liebe Anna"), a
  place the gazetteer knows ("im schönen Berlin"), a hyphenated word (a double surname), and an adjective that is an
  English word or a greeting ("dear", "liebe", ``name_cues``). A letter's salutation opening a line is such an
  adjective with no function word before it ("Liebe Eltern", "Liebe Kolleginnen und Kollegen": nouns joined by
  "und", "oder" or "sowie" are one phrase's); and a person with a German article right before it, in a stretch that
  reads German (``language.is_german``), is a noun ("basteln die Kinder"; "die Anna" keeps its first name; a place
  takes an article: "aus der Schweiz"). A German determiner (an article, "ein", "kein", a possessive or a
  demonstrative with its ending) right before a word, or an article or determiner and an adjective, in a stretch
  that reads German, makes a noun of a person or a place too ("in seiner Wohnung", "ein kleines Lokal"; spaCy's
  German stop words list "seiner" and "kleines", which the function-word rule does not take for adjectives). A run
  of capitalised words none of which is a known name is nouns alike ("die Kinder Laternen").
- French and Italian elide the article before a vowel ("l'âge", "dell'anno"): a place that opens with an elided
  article and goes on in lower case is a noun phrase, not a name ("À l'âge de 56 ans" reads as "Lage", a town, once
  the apostrophe is folded away); a name goes on capitalised ("L'Aquila"). ``not_names`` reads people so.
- Chat typed in lower case has no capital to tell a name: the name rules read two ordinary words as a first and a
  last name ("oma moet", "niet binnen", "mój sąsiad"). A person typed in lower case is no name when each of its words
  is an ordinary word of one of eight European languages and no common given name (names-dataset's): a stop word of
  spaCy's lists for English, French, Spanish, German, Italian, Portuguese, Dutch or Polish, a word of Faker's
  per-locale word lists, or a frequent word of wordfreq's (``ordinary_words``, ``frequent_words``: "nombre completo",
  "chiusa per lavori"), unless a title names it ("herr ritter", "sr. melo"). Nor is a person typed in lower case
  whose last word is a title ("hallo frau" of "hallo frau jahn"), one that opens with an elided article
  ("l'appartamento"), or one that opens with a stop word that is no common English given name nor a title ("ik ben",
  "een bedrijf"; names-dataset lists "een" and "mila" as given names in other languages, "ben" and "will" in
  English): the words after that stop word stay a person where they are a given name and more ("zeg tegen maria de
  vries") or a family name that is no given name and no ordinary word ("pani rohde": the Polish title is a stop word;
  "mila kowalska"), and are dropped otherwise. Nor is one whose words name a place that opens with no common
  given name ("belford roxo"), or an ordinary word before a place's name that is no given name ("pra santarém").

``without_common_nouns`` drops such people and places, whatever found them (a lower-case person that opens with a
stop word is cut to the name after it).
"""

from __future__ import annotations

import importlib
import re
import unicodedata
from functools import cache

from spacy.lang.de.stop_words import STOP_WORDS as GERMAN_STOP_WORDS
from spacy.lang.en.stop_words import STOP_WORDS as ENGLISH_STOP_WORDS
from spacy.lang.es.stop_words import STOP_WORDS as SPANISH_STOP_WORDS
from spacy.lang.fr.stop_words import STOP_WORDS as FRENCH_STOP_WORDS
from spacy.lang.it.stop_words import STOP_WORDS as ITALIAN_STOP_WORDS
from spacy.lang.nl.stop_words import STOP_WORDS as DUTCH_STOP_WORDS
from spacy.lang.pl.stop_words import STOP_WORDS as POLISH_STOP_WORDS
from spacy.lang.pt.stop_words import STOP_WORDS as PORTUGUESE_STOP_WORDS

from gateway.guardrails.findings import Finding
from gateway.guardrails.frequent_words import frequent_in_any
from gateway.guardrails.language import is_german
from gateway.guardrails.name_cues import CUE_WORDS, TITLE_WORDS
from gateway.guardrails.person_names import known_names
from gateway.guardrails.places import SMALL_TOWN_POPULATION, english_and_stop_words, gazetteer

_ENTITIES = ("PERSON", "LOCATION")
# The two words before a noun: a function word, then an inflected adjective, one space or tab between, on one line.
_PHRASE_BEFORE = re.compile(r"(?<![^\W\d_])([^\W\d_]+)[ \t]+([a-zäöüß]+(?:e|er|en|em|es))[ \t]+\Z")
# A conjunction joining two nouns of one phrase, and the noun before it.
_JOINED_BEFORE = re.compile(r"(?<![^\W\d_])([A-ZÄÖÜ][a-zäöüß]+)[ \t]+(?:und|oder|sowie)[ \t]+\Z")
_LOOK_BEHIND = 48
# An elided article or preposition of French or Italian, then lower case to the span's end ("l'âge", "dell'anno"):
# ``not_names`` reads people so, this module places.
_ELIDED = re.compile(r"(?i:l|d|dell|dall|nell|sull|all|un)['’][a-zà-ÿ][^A-ZÀ-Þ]*\Z")
_CAPITALISED_WORD = re.compile(r"[A-ZÀ-ÞĀ-Ž][a-zß-ÿā-ž]+")
# A German letter's salutation opening a line ("Liebe Eltern", "Sehr geehrte Damen"), and a German article right
# before a word ("basteln die Kinder"): no function word stands before the first, no adjective after the second.
_SALUTATION_BEFORE = re.compile(r"(?:\A|\n)[ \t]*(?:Sehr[ \t]+geehrte[rs]?|Liebe[rs]?|Werte[rs]?)[ \t]+\Z")
_ARTICLE_BEFORE = re.compile(r"(?<![^\W\d_])(?:[Dd](?:er|ie|as|en|em|es)|[Ee]in(?:e[mnrs]?)?)[ \t]+\Z")
# A German determiner: an article, "ein" and "kein", a possessive or a demonstrative, with its ending.
_DETERMINER = (r"(?:[Dd](?:er|ie|as|en|em|es)|(?:[Kk]?[Ee]in|[MmDdSs]ein|[Ii]hr|[Uu]nser|[Ee]u(?:e)?r|[Dd]ies|[Jj]ed"
               r"|[Jj]en|[Ww]elch)(?:e[mnrs]?)?)")  # fmt: skip
_DETERMINER_BEFORE = re.compile(rf"(?<![^\W\d_]){_DETERMINER}[ \t]+(?:([a-zäöüß]+(?:e|er|en|em|es))[ \t]+)?\Z")
_IS_DETERMINER = re.compile(_DETERMINER)
# Nouns of one phrase joined by a conjunction, as a span holds them.
_JOINER = re.compile(r"[ \t]+(?:und|oder|sowie)[ \t]+")
# A lower-case word, an elided article's apostrophe kept with it ("l'appartamento").
_LOWER_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")
# An elided article of French or Italian opening a lower-case word (not "d'", which opens surnames: "d'angelo").
_ELIDED_ARTICLE = re.compile(r"(?:l|dell|dall|nell|sull|all|un)['’][^\W\d_]")
# spaCy's stop words of each of the eight languages, case-folded, by ISO 639-1 code (``frequent_words.LANGUAGES``).
_LANGUAGE_STOP_WORDS: dict[str, frozenset[str]] = {
    code: frozenset(word.casefold() for word in words) for code, words in (
        ("en", ENGLISH_STOP_WORDS), ("fr", FRENCH_STOP_WORDS), ("es", SPANISH_STOP_WORDS), ("de", GERMAN_STOP_WORDS),
        ("it", ITALIAN_STOP_WORDS), ("pt", PORTUGUESE_STOP_WORDS), ("nl", DUTCH_STOP_WORDS), ("pl", POLISH_STOP_WORDS))
}  # fmt: skip
_STOP_WORDS = frozenset().union(*_LANGUAGE_STOP_WORDS.values())
# Faker's word lists of the same languages (Portuguese has none): frequent words, as lorem text writes them.
_WORD_LIST_LOCALES = ("en_US", "fr_FR", "es_ES", "de_DE", "it_IT", "nl_NL", "pl_PL")
_TITLE_BEFORE = re.compile(rf"(?<![^\W\d_])(?:{'|'.join(sorted(map(re.escape, TITLE_WORDS), key=len, reverse=True))})"
                           r"\.?[ \t]+\Z")  # fmt: skip


def _after_adjective(text: str, start: int) -> bool:
    """Whether a German function word and an inflected adjective stand right before `start`."""
    before = _PHRASE_BEFORE.search(text, max(0, start - _LOOK_BEHIND), start)
    if before is None:
        return False
    function_word, adjective = before.group(1).casefold(), before.group(2)
    return (function_word in GERMAN_STOP_WORDS and adjective not in GERMAN_STOP_WORDS
            and adjective not in english_and_stop_words() and adjective not in CUE_WORDS)  # fmt: skip


def _may_be_noun(word: str) -> bool:
    return (_CAPITALISED_WORD.fullmatch(word) is not None and not known_names().is_first(word)
            and word.casefold() not in gazetteer())  # fmt: skip


def _after_salutation_or_article(text: str, start: int, end: int, person: bool) -> bool:
    """Whether a German letter's salutation opens the line right before `start` ("Liebe", "Sehr geehrte"), or, for
    a person, a German article stands right before it in a stretch that reads German (``language.is_german``; a
    place takes one: "aus der Schweiz", "in die Türkei")."""
    if _SALUTATION_BEFORE.search(text, max(0, start - _LOOK_BEHIND), start):
        return True
    return (
        person
        and _ARTICLE_BEFORE.search(text, max(0, start - _LOOK_BEHIND), start) is not None
        and is_german(text[max(0, start - _LOOK_BEHIND) : end + _LOOK_BEHIND])
    )


def _after_determiner(text: str, start: int, end: int) -> bool:
    """Whether a German determiner, perhaps with an inflected adjective after it, stands right before `start` in a
    stretch that reads German ("in seiner Wohnung", "ein kleines Lokal")."""
    before = _DETERMINER_BEFORE.search(text, max(0, start - _LOOK_BEHIND), start)
    if before is None:
        return False
    adjective = before.group(1)
    if adjective is not None and (_IS_DETERMINER.fullmatch(adjective) or adjective in english_and_stop_words()
                                  or adjective in CUE_WORDS):  # fmt: skip
        return False  # "die liebe Anna", "der die": a greeting word or a second determiner is no adjective here
    return is_german(text[max(0, start - _LOOK_BEHIND) : end + _LOOK_BEHIND])


def _noun_words(span: str) -> list[str]:
    """The words of a span that may be one noun each: the parts "und", "oder" and "sowie" join, and, where no word
    is a known name, the span's capitalised words ("Kinder Laternen"; "Frau Kollegin": "Frau" is a name's word)."""
    parts = _JOINER.split(span)
    words = [word for part in parts for word in part.split()]
    if len(words) > len(parts) and not any(known_names().is_name(word) for word in words):
        return words
    return parts


def is_german_noun(text: str, start: int, end: int, person: bool = False) -> bool:
    """Whether the capitalised word at [start, end), or the capitalised words "und", "oder" or "sowie" join there
    ("Kolleginnen und Kollegen"), are the nouns of a German noun phrase (the module's docstring)."""
    words = _noun_words(text[start:end])
    if not all(map(_may_be_noun, words)):  # one word each: "Frau Müller" after "Sehr geehrte" is none
        return False
    if (_after_adjective(text, start) or _after_salutation_or_article(text, start, end, person)
            or _after_determiner(text, start, end)):  # fmt: skip
        return True
    # The second noun of a phrase joined by "und", "oder" or "sowie" ("Kollegen" of "Liebe Kolleginnen und Kollegen",
    # "stiller Trauer und Dankbarkeit"), read alone.
    joined = _JOINED_BEFORE.search(text, max(0, start - _LOOK_BEHIND), start)
    if joined is None or not _may_be_noun(joined.group(1)):
        return False
    return _after_adjective(text, joined.start(1)) or _after_salutation(text, joined.start(1))


def _after_salutation(text: str, start: int) -> bool:
    """Whether a German letter's salutation opens the line right before `start` ("Liebe", "Sehr geehrte")."""
    return _SALUTATION_BEFORE.search(text, max(0, start - _LOOK_BEHIND), start) is not None


def language_stop_words() -> dict[str, frozenset[str]]:
    """spaCy's stop words of each of the eight languages, case-folded, by the language's ISO 639-1 code (the codes of
    ``frequent_words.LANGUAGES``)."""
    return _LANGUAGE_STOP_WORDS


def chat_stop_words() -> frozenset[str]:
    """spaCy's stop words of the eight languages together, case-folded."""
    return _STOP_WORDS


@cache
def european_words() -> frozenset[str]:
    """Stop words of spaCy's English, French, Spanish, German, Italian, Portuguese, Dutch and Polish lists and the
    words of Faker's lorem word lists of those languages (Portuguese has none), case-folded."""
    words = set(_STOP_WORDS)
    for locale in _WORD_LIST_LOCALES:
        provider = importlib.import_module(f"faker.providers.lorem.{locale}").Provider
        words.update(word.casefold() for word in provider.word_list)
    return frozenset(words)


@cache
def ordinary_words() -> frozenset[str]:
    """``european_words`` and the frequent words of those languages (``frequent_words``: wordfreq's, Zipf 4 or
    more), less the common given names (names-dataset's, as written or without diacritics: "rosa", "claire",
    "éric" stay names)."""
    given = known_names().given
    return frozenset(word for word in european_words() | frequent_in_any()
                     if word not in given and _without_diacritics(word) not in given)  # fmt: skip


def _without_diacritics(word: str) -> str:
    return "".join(char for char in unicodedata.normalize("NFD", word) if not unicodedata.combining(char))


def lower_case_person(text: str, finding: Finding) -> Finding | None:
    """A person typed in lower case as it stands, cut to the name after an opening stop word, or None where its words
    are ordinary words, it ends with a title or opens with an elided article (the module's docstring)."""
    words = list(_LOWER_WORD.finditer(text, finding.start, finding.end))
    if not words:
        return finding
    ordinary, names = ordinary_words(), known_names()
    folded = [word.group().casefold() for word in words]
    titled = folded[0] in TITLE_WORDS or _TITLE_BEFORE.search(text, max(0, finding.start - 16), finding.start)
    if (folded[-1] in TITLE_WORDS and len(words) > 1) or _ELIDED_ARTICLE.match(folded[0]):
        return None
    if not titled and all(word in ordinary for word in folded):  # "herr ritter", "sr. melo": a title names them
        return None
    if len(words) > 1 and _names_a_place(folded, ordinary, names.given):
        return None
    first = folded[0]
    if len(words) == 1 or first not in _STOP_WORDS or first in names.given_english or first in TITLE_WORDS:
        return finding
    rest = folded[1:]
    if (len(rest) > 1 and rest[0] in names.given) or (
        len(rest) == 1 and names.is_last(rest[0]) and rest[0] not in names.given and rest[0] not in ordinary
    ):
        return Finding(finding.entity_type, words[1].start(), finding.end, finding.score, finding.source)
    return None


def _names_a_place(folded: list[str], ordinary: frozenset[str], given: frozenset[str]) -> bool:
    """Whether a lower-case person's words are a place's name (``SMALL_TOWN_POPULATION`` people or more) that opens
    with no common given name ("belford roxo", "nowa sól"), or an ordinary word before one that is no given name
    either ("pra santarém": Portuguese "to"; "hallo sofia" stays a greeting and a name)."""
    places = gazetteer()
    if places.get(" ".join(folded), 0) >= SMALL_TOWN_POPULATION and folded[0] not in given:
        return True
    rest = folded[1:]
    return (folded[0] in ordinary and places.get(" ".join(rest), 0) >= SMALL_TOWN_POPULATION
            and not (len(rest) == 1 and rest[0] in given))  # fmt: skip


def without_common_nouns(text: str, findings: list[Finding]) -> list[Finding]:
    """The findings less the people and places that are a German noun phrase's noun or a French noun after an
    elided article, and the people typed in lower case that are ordinary words (the module's docstring)."""
    if not any(f.entity_type in _ENTITIES for f in findings):
        return findings
    capitals = not text.islower()  # in text typed in lower case, a place is written so too ("à l'aquila")
    kept = [f for f in findings if f.entity_type not in _ENTITIES or not (
        (capitals and f.entity_type == "LOCATION" and _ELIDED.match(text, f.start, f.end))
        or is_german_noun(text, f.start, f.end, f.entity_type == "PERSON"))]  # fmt: skip
    lower = [f for f in kept if f.entity_type == "PERSON" and text[f.start : f.end].islower()]
    if not lower:
        return kept
    people = {id(f): lower_case_person(text, f) for f in lower}
    return [person for f in kept if (person := people.get(id(f), f)) is not None]
