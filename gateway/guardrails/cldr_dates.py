"""DATE_OF_BIRTH with its month named, as CLDR writes a date in each of its locales: "18 Φεβρουαρίου 1973", "15
בדצמבר 1986", "11 септември 1951 г.", "25 грудня 1952 р.", "14 tháng 5 năm 1996", "1986ko apirilaren 28a", "3 ta'
Marzu 1944", "27 de decembro de 2000", "6. júní 1958", "12 lipca 1990".

Nothing here is typed in: the month names are CLDR's (Babel's locale data) for every locale, wide and abbreviated, in
both contexts ("format", the genitive that a date writes: Polish "lipca", Greek "Φεβρουαρίου", Ukrainian "грудня";
"stand-alone": "lipiec"), and each locale's order of day, month and year and the words and marks around them are
read from its date patterns: the medium, long and full formats, the year-month-day skeletons, and the day-month
skeleton inside the year-month one (Vietnamese "d MMMM" in "MMMM 'năm' y": "14 tháng 5 năm 1996"). The locales that
share an order share one regex: its month names are all of theirs, and between two parts any of their literals may
stand ("de", "del", "ב", "ta'", "'ren'", "m."; a full stop or a comma may be left out), so a Catalan date written with
Galician's "de" before its year reads too.

A date alone scores below the default threshold (``dates.DateOfBirthRecognizer``'s 0.3): a birth word beside it makes
it a date of birth, as the other shapes. Reading every locale's data takes Babel seconds, so ``python -m
gateway.guardrails.cldr_dates`` reads it once into gateway/guardrails/data/dob_months.json, which the gateway reads.
"""

from __future__ import annotations

import bisect
import json
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from presidio_analyzer import AnalysisExplanation, EntityRecognizer, RecognizerResult

from gateway.guardrails.dates import AGE_BOOST, DateOfBirthRecognizer, after_birth_sign, states_an_age
from gateway.guardrails.name_cues import phrase_pattern
from gateway.guardrails.normalize import reader_view

if TYPE_CHECKING:
    from babel import Locale

SNAPSHOT = Path(__file__).parent / "data" / "dob_months.json"
# The patterns a locale writes a whole date in: its medium, long and full formats, and its year-month-day skeletons
# (the formats a UI picks for "a date with its month named").
_FORMAT_WIDTHS: tuple[Literal["medium", "long", "full"], ...] = ("medium", "long", "full")
_SKELETONS = ("yMMMd", "yMMMMd")
# A day-month skeleton put into the year-month one of the same width: the date the two write together.
_DAY_INTO_YEAR = (("MMMd", "yMMM"), ("MMMMd", "yMMMM"))
_WIDTHS = ("wide", "abbreviated")  # "narrow" is one letter: any word's initial
_CONTEXTS = ("format", "stand-alone")
_SHORTEST_NAME = 2
_FIELD = re.compile(r"'(?:[^']|'')*'|([A-Za-z])\1*|.", re.DOTALL)


def _fields(pattern: str) -> list[tuple[str, str]] | None:
    """The pattern's day, named month and year fields and the literal text between them, weekday and all, as
    (field letter or "", text); None when it is no such date (a numeric month, a two-digit year, an era)."""
    tokens: list[tuple[str, str]] = []
    for match in _FIELD.finditer(pattern):
        token = match.group()
        if match.group(1) is None:  # a literal: quoted ('' is an apostrophe) or a mark
            text = token[1:-1].replace("''", "'") if token.startswith("'") and len(token) > 1 else token
            tokens.append(("", text.replace("''", "'")))
            continue
        letter = match.group(1)
        if letter == "E" or letter == "c":
            tokens.append(("E", token))
        elif letter == "d" and len(token) <= 2:
            tokens.append(("d", token))
        elif letter in "ML" and len(token) in (3, 4):
            tokens.append(("M", token))
        elif letter == "y" and len(token) != 2:
            tokens.append(("y", token))
        else:
            return None
    fields = [index for index, (kind, _) in enumerate(tokens) if kind in ("d", "M", "y")]
    if sorted(tokens[index][0] for index in fields) != ["M", "d", "y"]:
        return None
    # The weekday and the literal text that joins it to the date ("EEEE, ", ", EEEE") are no part of a birth date.
    after = tokens[fields[-1] + 1:]
    weekday_after = next((index for index, (kind, _) in enumerate(after) if kind == "E"), len(after))
    return tokens[fields[0]:fields[-1] + 1] + after[:weekday_after]


def _shape(pattern: str) -> tuple[str, list[str], str] | None:
    """The order of a date pattern's parts ("dMy"), the literal text in each gap between them, and after the last."""
    tokens = _fields(pattern)
    if tokens is None:
        return None
    order, gaps, current = "", [], ""
    for kind, text in tokens:
        if kind in ("d", "M", "y"):
            if order:
                gaps.append(current)
            order, current = order + kind, ""
        elif kind == "":
            current += text
    return order, gaps, current


def _locale_patterns(locale: Locale) -> list[str]:
    from babel.dates import get_date_format

    patterns = [get_date_format(width, locale=locale).pattern for width in _FORMAT_WIDTHS]
    skeletons = locale.datetime_skeletons
    patterns.extend(skeletons[key].pattern for key in _SKELETONS if key in skeletons)
    for day, year in _DAY_INTO_YEAR:
        if day in skeletons and year in skeletons:
            day_pattern, year_pattern = skeletons[day].pattern, skeletons[year].pattern
            month = re.search(r"(?<![A-Za-z])[ML]{3,4}(?![A-Za-z])", year_pattern)
            if month is not None:
                patterns.append(year_pattern[:month.start()] + day_pattern + year_pattern[month.end():])
    return patterns


def _plain(name: str) -> str:
    return "".join(char for char in unicodedata.normalize("NFKD", name) if not unicodedata.combining(char))


def _month_names(locale: Locale) -> set[str]:
    names = set()
    for context in _CONTEXTS:
        for width in _WIDTHS:
            try:
                table = locale.months[context][width]
            except KeyError:
                continue
            for name in table.values():
                folded = " ".join(name.lower().replace("’", "'").split())
                # Without its diacritics, and Turkish's dotless "ı" as the "i" that "I" lowers to ("MAYIS").
                plain = _plain(folded).replace("ı", "i")
                for form in (folded, folded.rstrip("."), plain, plain.rstrip(".")):
                    if len(form) >= _SHORTEST_NAME and any(char.isalpha() for char in form):
                        names.add(form)
    return names


# A year-first pattern's word for "year" right after its year (Armenian "y թ. MMMM d", Kazakh "y 'ж'. d MMMM",
# Mongolian "y 'оны' MMMM'ын' d", Lithuanian "y 'm'. MMMM d 'd'."): a word of letters, apart from the year.
_YEAR_WORD = re.compile(r"\s+((?:[^\W\d_]+\.?)+)\s+")


def _day_first(gaps: list[str]) -> tuple[str, list[str], str] | None:
    """The day-first order that a year-first pattern with a word for "year" is also written in, the year and its word
    last: Armenian "14 մայիսի 2002 թ.", Kazakh "3 сәуір 1987 ж." (the order CLDR gave Armenian before it wrote the
    year first), as Russian "3 мая 1987 г." does; None for a year-first pattern whose year has no word."""
    year_word = _YEAR_WORD.fullmatch(re.sub(r"\s+", " ", gaps[0]))
    return None if year_word is None else ("dMy", [" ", " "], " " + year_word.group(1))


def build_snapshot() -> dict[str, object]:
    """For each order of day, named month and year that some locale writes: the month names of those locales, the
    literals in each gap and after the last part."""
    import babel
    from babel import Locale, localedata

    names_of: dict[str, set[str]] = {}
    gaps_of: dict[str, tuple[set[str], set[str]]] = {}
    tails_of: dict[str, set[str]] = {}
    for identifier in sorted(localedata.locale_identifiers()):
        locale = Locale.parse(identifier)
        names = _month_names(locale)
        shapes = [shape for pattern in _locale_patterns(locale) if (shape := _shape(pattern)) is not None]
        shapes += [day_first for order, gaps, _ in shapes
                   if order.startswith("y") and (day_first := _day_first(gaps)) is not None]  # fmt: skip
        for order, gaps, tail in shapes:
            names_of.setdefault(order, set()).update(names)
            for index, gap in enumerate(gaps):
                gaps_of.setdefault(order, (set(), set()))[index].add(re.sub(r"\s+", " ", gap))
            # A comma after the year is the sentence's, not the date's.
            tails_of.setdefault(order, set()).add(re.sub(r"[\s,]+\Z", "", re.sub(r"\s+", " ", tail)))
    return {"source": f"babel {babel.__version__} (CLDR), {len(localedata.locale_identifiers())} locales",
            "orders": {order: {"names": sorted(names_of[order]), "gaps": [sorted(gap) for gap in gaps_of[order]],
                               "tail": sorted(tails_of[order])} for order in sorted(names_of)}}  # fmt: skip


def write_snapshot(built: dict[str, object]) -> None:
    SNAPSHOT.write_text(json.dumps(built, ensure_ascii=False, indent=0) + "\n", encoding="utf-8")


def read_snapshot() -> dict:
    return json.loads(SNAPSHOT.read_text(encoding="utf-8"))


@cache
def _orders() -> dict[str, dict[str, list]]:
    """The snapshot's orders, each month name also as the reader view reads it (``normalize.reader_view``): a name
    whose word holds a digit has its look-alike letters read as Latin there (Mongolian "10-р сар" as "10-p сар"),
    and so has a name glued to its day by a dash (Kyrgyz "11-сентябрь" as "11-ceнтя6pь")."""
    orders = read_snapshot()["orders"]
    for entry in orders.values():
        entry["names"] = sorted({form for name in entry["names"]
                                 for form in (name, reader_view(name).text, reader_view(f"1-{name}").text[2:])})
    return orders


def _literal(text: str, *, closing: bool = False) -> str:
    """A regex for a literal of a date pattern: a space as any run of whitespace (or none, after the last part), a
    full stop or a comma as one that may be left out, either apostrophe for one, a part in brackets as one that may be
    left out (Basque "y('e')'ko'": "2001eko", "1986ko"), and a word of one or two letters and a full stop as the
    abbreviation it is, which may be written out ("ж." for Kazakh "жылғы", "г." for Russian "года", "m." for
    Lithuanian "metų")."""
    parts = []
    for match in re.finditer(r"\(([^()]*)\)|(?<![^\W\d_])([^\W\d_]{1,2})\.(?=\s|\Z)|\s+|.", text):
        piece = match.group()
        if match.group(1) is not None:
            parts.append(f"(?:{_literal(match.group(1))})?")
        elif match.group(2) is not None:
            parts.append(re.escape(match.group(2)) + r"[^\W\d_]*\.?")
        elif piece.isspace():
            parts.append(r"\s*" if closing else r"\s+")
        elif piece in ".,":
            parts.append(re.escape(piece) + "?")
        elif piece in "'’":
            parts.append("['’]")
        else:
            parts.append(re.escape(piece))
    return "".join(parts)


def _alternatives(literals: list[str], *, closing: bool = False) -> str:
    regexes = sorted({_literal(literal, closing=closing) for literal in literals}, key=len, reverse=True)
    return "(?:" + "|".join(regexes) + ")"


_DAY = r"(?:0?[1-9]|[12]\d|3[01])"
_YEAR = r"(?:19|20)\d\d"
_PART = {"d": _DAY, "y": _YEAR}
_BEFORE = {"d": r"(?<![\w.])", "y": r"(?<![\w.])"}
_AFTER = {"d": r"(?!\d)", "y": r"(?!\d)"}


def order_regex(order: str, entry: dict[str, list]) -> str:
    """The regex of the dates written in one order: each part, and between two any gap's literal of that order."""
    months = f"(?:{phrase_pattern(entry['names'])})"
    regex = ""
    for index, part in enumerate(order):
        if index:
            regex += _alternatives(entry["gaps"][index - 1])
        regex += months if part == "M" else _BEFORE[part] * (index == 0) + _PART[part] + _AFTER[part]
    tails = [tail for tail in entry["tail"] if tail]
    if tails:
        regex += f"(?:{_alternatives(tails, closing=True)}(?![^\\W\\d_]))?"
    # A month name that ends the date ends its word ("1987. gada 3. maijs").
    return regex + (r"(?![^\W\d_])" if order.endswith("M") else "")


_WORD = re.compile(r"[^\W\d_]+")


@dataclass(frozen=True, slots=True)
class _Order:
    """An order's month names by their longest, first and last words, and the letters a date of that order writes
    right against the month's name: Hebrew "ב" before it ("בדצמבר"), Basque "ren" after it ("apirilaren")."""

    by_longest: dict[str, tuple[str, ...]]
    by_first: dict[str, tuple[str, ...]]
    by_last: dict[str, tuple[str, ...]]
    glued_before: tuple[str, ...]
    glued_after: tuple[str, ...]

    def names_in(self, word: str) -> set[str]:
        """The names that a word of a text is, or holds glued to such letters."""
        names = set(self.by_longest.get(word, ()))
        for glued in self.glued_before:
            if word.startswith(glued):
                names.update(self.by_first.get(word[len(glued):], ()))
        for glued in self.glued_after:
            if word.endswith(glued):
                names.update(self.by_last.get(word[:-len(glued)], ()))
        return names


@cache
def _indexed() -> dict[str, _Order]:
    indexed = {}
    for order, entry in _orders().items():
        month = order.index("M")
        before = entry["gaps"][month - 1] if month else []
        after = entry["gaps"][month] if month < len(order) - 1 else []
        by_longest: dict[str, list[str]] = {}
        by_first: dict[str, list[str]] = {}
        by_last: dict[str, list[str]] = {}
        for name in entry["names"]:
            words = _WORD.findall(name)
            by_longest.setdefault(max(words, key=len), []).append(name)
            by_first.setdefault(words[0], []).append(name)
            by_last.setdefault(words[-1], []).append(name)
        indexed[order] = _Order(
            {word: tuple(names) for word, names in by_longest.items()},
            {word: tuple(names) for word, names in by_first.items()},
            {word: tuple(names) for word, names in by_last.items()},
            tuple({match.group() for gap in before if (match := re.search(r"[^\W\d_]+\Z", gap))}),
            tuple({match.group() for gap in after if (match := re.match(r"[^\W\d_]+", gap))}),
        )
    return indexed


@lru_cache(maxsize=512)
def _compiled(order: str, names: tuple[str, ...]) -> re.Pattern[str]:
    """The regex of an order's dates with one of `names` for their month, read over lower-case text. Built for the
    names a text's words can be (a month's name in a few languages) rather than once for every name: a regex of
    thousands of names of every script takes the engine about a second to compile, one of a few a millisecond."""
    return re.compile(order_regex(order, {**_orders()[order], "names": list(names)}))


def _lower_same_length(text: str) -> str:
    lowered = text.lower()
    if len(lowered) == len(text):
        return lowered
    # A few letters lower to two ("İ"): those stay as they are, so the offsets stand.
    return "".join(char.lower() if len(char.lower()) == 1 else char for char in text)


class CldrDateOfBirthRecognizer(EntityRecognizer):
    """A date with its month named in any CLDR locale's way; 0.3 alone (``dates.DateOfBirthRecognizer``'s shapes),
    raised by a birth word beside it (its context words are that recognizer's), a person's age stated beside it or the
    birth sign before it ("* 4. marts 1941")."""

    SCORE = 0.3

    def __init__(self, read_elsewhere: Sequence[EntityRecognizer] = ()) -> None:
        """`read_elsewhere`: the recognizers of the date shapes read already (``dates``, ``date_traditions``); a date
        one of them reports ("4 March 1985", "1979년 11월 23일") is theirs, not reported twice."""
        super().__init__(supported_entities=["DATE_OF_BIRTH"], name="CldrDateOfBirthRecognizer",
                         context=DateOfBirthRecognizer.CONTEXT)  # fmt: skip
        self.read_elsewhere = tuple(read_elsewhere)

    def load(self) -> None:  # the regexes are compiled on first use
        pass

    def analyze(self, text: str, entities: list[str], nlp_artifacts: object = None) -> list[RecognizerResult]:
        lowered = _lower_same_length(text)
        words = set(_WORD.findall(lowered))
        candidates = {order: set().union(*(index.names_in(word) for word in words))
                      for order, index in _indexed().items()}  # fmt: skip
        results = []
        for order, names in candidates.items():
            if not names:
                continue
            for match in _compiled(order, tuple(sorted(names))).finditer(lowered):
                raised = states_an_age(text, *match.span()) or after_birth_sign(text, *match.span())
                score = self.SCORE + (AGE_BOOST if raised else 0.0)
                explanation = AnalysisExplanation(self.name, score, pattern_name=f"date cldr {order}")
                results.append(RecognizerResult("DATE_OF_BIRTH", match.start(), match.end(), score, explanation))
        if not results or not self.read_elsewhere:
            return results
        # The other recognizers read the same text once (not once per date: a long text of dates is read in one
        # window), and a date one of them reports is theirs.
        theirs = sorted((other.start, other.end) for recognizer in self.read_elsewhere
                        for other in recognizer.analyze(text, ["DATE_OF_BIRTH"], None))  # fmt: skip
        starts = [start for start, _ in theirs]
        return [result for result in results if not _overlapped(theirs, starts, result.start, result.end)]


def _overlapped(spans: list[tuple[int, int]], starts: list[int], start: int, end: int) -> bool:
    """Whether any of `spans` (sorted, with `starts` their starts) overlaps [start, end); spans are a date long, so
    only those starting up to a date's length before it can reach it."""
    first = bisect.bisect_left(starts, start - _LONGEST_DATE)
    last = bisect.bisect_left(starts, end)
    return any(other_end > start for _, other_end in spans[first:last])


_LONGEST_DATE = 80


# Where such a date has its year: four digits standing apart from other digits and from a dotted, dashed or slashed
# number or a clock time (a log's "2026-07-02T02:57" is none), with the month's words around it. A dash after the
# year and a letter after the dash is a date's own ("1971-ж., 11-сентябрь": CLDR's Kyrgyz "y-'ж'., d-MMMM").
CLDR_DATE_ANCHOR = r"(?:19|20)(?<![\w./:-]\d\d)\d\d(?![\d/:]|[.-]\d)"


if __name__ == "__main__":
    write_snapshot(build_snapshot())
    counts = ", ".join(f"{order} {len(entry['names'])} names" for order, entry in _orders().items())
    print(f"wrote {SNAPSHOT}: {counts}")
