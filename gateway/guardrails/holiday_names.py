"""Holiday names ("Noël", "Fronleichnam", "Toussaint", "Jour de Noël", "Tag der Deutschen Einheit", "Washington's
Birthday"): the NER models read them as a person or a place, and a holiday is neither.

The names are those of the ``holidays`` package (vacanza/holidays, MIT licence): every country's and subdivision's
holidays of every category it keeps (public, bank, optional, religious, ...), in each language it translates them to,
over the years ``YEARS``, with the "(observed)", "(estimé)", "(ponte)" of a moved or estimated day cut off. Building
them takes a minute, so ``python -m gateway.guardrails.holiday_names`` reads the package once and writes
gateway/guardrails/data/holiday_names.json (read at run time by ``names_a_holiday``); the package is a test extra
pinned in pyproject.toml (0.86: the last release before its python-dateutil<3 cap, which the lock's 4.0 fails).

``names_a_holiday`` holds a PERSON or LOCATION finding for a holiday's when a holiday's name written in the text
(compared word by word, case-folded) covers it ("an Fronleichnam", "pour Noël", "Fête de la Toussaint"), or when a
person is a holiday's name after words none of which is a common given name or a greeting ("Bonne Toussaint", "buon
natale"; "Allen Toussaint" and "Moin Silvester" stay people; a place that ends in a feast's name is a town named after
its saint, "Sesto San Giovanni"). A holiday's name that is a name as well stays one where the writer says so:

- a place the gazetteer knows that is exactly the holiday's name ("Natal", Christmas in Portuguese and a city of
  900,000 people; "Corpus Christi", "Saint-Étienne"): such a place is kept unless a longer holiday's name covers it
  ("Dia de Natal");
- a person that is exactly a one-word holiday's name after a title or a greeting ("Mme Toussaint", "Bonjour Noël");
- a holiday's name that a particle and a capitalised word go on from: a longer name ("Sant Joan d'Alacant", a town).
"""

from __future__ import annotations

import json
import re
import warnings
from functools import cache
from pathlib import Path

from gateway.guardrails.findings import Finding
from gateway.guardrails.name_cues import CUE_WORDS, TITLE_WORDS
from gateway.guardrails.person_names import known_names
from gateway.guardrails.places import gazetteer

SNAPSHOT = Path(__file__).parent / "data" / "holiday_names.json"
YEARS = range(2023, 2028)  # five years: every yearly holiday, and the moving feasts' names in both their forms
MAX_WORDS = 6  # longer names ("Anniversario della istituzione dello Stato della Città del Vaticano") are never prose
_WORD = re.compile(r"[^\W_]+")
_QUALIFIER = re.compile(r"[ \t]*\([^()]*\)[ \t]*\Z")  # "(observed)", "(estimé)", "(ponte)", "(from 2024)"
_NAME_GOES_ON = re.compile(r"[ \t]*(?:[dl]['’]|(?:de|del|di|da|do|dos|das)[ \t]+)[A-ZÀ-Þ]")
_REACH = 80  # characters either side of a finding searched for a holiday's name that covers it
# Greetings that stand before a person's name (``name_cues``), not before a holiday's ("Bonjour Noël", "Joyeux Noël").
_GREETINGS = frozenset({"hi", "hello", "hey", "dear", "bonjour", "salut", "cher", "chère", "hola", "querido",
                        "querida", "estimado", "estimada", "hallo", "liebe", "lieber", "moin", "servus", "ciao",
                        "caro", "cara", "gentile", "olá", "oi", "prezado", "prezada", "beste", "thanks", "thank",
                        "merci", "gracias", "danke", "grazie", "obrigado", "obrigada",
                        "bedankt"}) & CUE_WORDS  # fmt: skip
_PERSON_CUES = _GREETINGS | TITLE_WORDS


def build_names() -> list[str]:
    """Every holiday's name the ``holidays`` package gives, qualifier cut off, sorted (the snapshot's)."""
    import holidays

    names: set[str] = set()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "available only from ... to ...": the years outside are empty
        for code in holidays.list_supported_countries():
            kind = type(holidays.country_holidays(code))
            for subdivision in (None, *kind.subdivisions):
                for language in kind.supported_languages or (None,):
                    days = holidays.country_holidays(code, subdiv=subdivision, years=YEARS, language=language,
                                                     categories=kind.supported_categories)  # fmt: skip
                    for day in days.values():
                        names.update(_QUALIFIER.sub("", name).strip() for name in day.split("; "))
    names.discard("")
    return sorted(names)


def build_snapshot() -> dict[str, object]:
    import holidays

    return {"source": f"holidays {holidays.__version__}", "years": [YEARS.start, YEARS.stop - 1],
            "names": build_names()}  # fmt: skip


def read_names() -> list[str]:
    return json.loads(SNAPSHOT.read_text(encoding="utf-8"))["names"]


class _Holidays:
    """The snapshot's names as tuples of case-folded words, and each run of a name's words -> the names it is in,
    with where in them it starts: a finding's words look up the holidays that may cover it at once."""

    def __init__(self, names: list[str]) -> None:
        self.names: frozenset[tuple[str, ...]] = frozenset(
            words for name in names if 0 < len(words := tuple(_WORD.findall(name.casefold()))) <= MAX_WORDS
        )
        self.runs: dict[tuple[str, ...], list[tuple[tuple[str, ...], int]]] = {}
        for name in self.names:
            for first in range(len(name)):
                for last in range(first + 1, len(name) + 1):
                    self.runs.setdefault(name[first:last], []).append((name, first))


@cache
def _holidays() -> _Holidays:
    return _Holidays(read_names())


def load() -> None:
    """Reads the snapshot and indexes it (~30 ms): the warm-up's, not a request's."""
    _holidays()


def _covering(text: str, start: int, end: int, words: list[re.Match[str]], table: _Holidays) -> tuple[int, int] | None:
    """The longest holiday's name written in the text that covers the finding's `words` at [start, end), or else the
    longest one inside them ending at their end."""
    folded = tuple(word.group().casefold() for word in words)
    best: tuple[int, int] | None = None
    candidates = table.runs.get(folded)
    if candidates:
        before = list(_WORD.finditer(text, max(0, start - _REACH), start))
        after = list(_WORD.finditer(text, end, min(len(text), end + _REACH)))
        for name, first in candidates:
            opening, closing = name[:first], name[first + len(folded) :]
            if len(opening) > len(before) or len(closing) > len(after):
                continue
            if opening and tuple(m.group().casefold() for m in before[-len(opening) :]) != opening:
                continue
            if closing and tuple(m.group().casefold() for m in after[: len(closing)]) != closing:
                continue
            span = (
                before[-len(opening)].start() if opening else start,
                after[len(closing) - 1].end() if closing else end,
            )
            if best is None or span[1] - span[0] > best[1] - best[0]:
                best = span
        if best is not None:
            return best
    for first in range(1, len(folded)):
        if folded[first:] in table.names:
            return words[first].start(), end
    return None


def names_a_holiday(text: str, finding: Finding) -> bool:
    """Whether a PERSON or LOCATION finding is (in) a holiday's name written in the text (the module's rules)."""
    words = list(_WORD.finditer(text, finding.start, finding.end))
    if not words:
        return False
    covering = _covering(text, finding.start, finding.end, words, _holidays())
    if covering is None:
        return False
    holiday_start, holiday_end = covering
    if _NAME_GOES_ON.match(text, holiday_end):
        return False  # the holiday's words open a longer name: "Sant Joan d'Alacant", a town
    if holiday_start > finding.start:  # the finding runs on before the holiday's name: "Bonne Toussaint"
        if finding.entity_type == "LOCATION":
            return False  # a place named after a saint: "Sesto San Giovanni" ("San Giovanni" is a feast)
        before = _WORD.findall(text, finding.start, holiday_start)
        # a common given name opens a person ("Allen Toussaint"), and a greeting greets one ("Moin Silvester");
        # names-dataset's long tail of first names holds a wish's words too ("buon natale", "Feliz Navidad")
        return not any(word.casefold() in known_names().given or word.casefold() in _PERSON_CUES for word in before)
    if (holiday_start, holiday_end) != (finding.start, finding.end):
        return True  # a longer holiday's name covers it: "Jour de Noël", "Dia de Natal"
    if finding.entity_type == "LOCATION":
        # "Natal", "Corpus Christi": the place as often as the feast (the gazetteer's keys: folded words, one space)
        return " ".join(word.group().casefold() for word in words) not in gazetteer()
    if len(words) == 1:
        before = _WORD.findall(text, max(0, finding.start - 24), finding.start)
        return not (before and before[-1].casefold() in _PERSON_CUES)  # "Mme Toussaint", "Bonjour Noël"
    return True


if __name__ == "__main__":
    SNAPSHOT.write_text(json.dumps(build_snapshot(), ensure_ascii=False, indent=0) + "\n", encoding="utf-8")
