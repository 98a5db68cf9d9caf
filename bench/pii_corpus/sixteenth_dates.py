"""Dates as the sixteenth dev-side corpus (``dev_sixteenth``) writes them: numeric day-month-year, month-day-year and
year-month-day with slashes, dashes, dots and two-digit years, ``CCYYMMDD``, named months in seven languages (CLDR's
wide and abbreviated names, through babel), English ordinals, a weekday before the date, Roman-numeral months,
``04-Mar-1990`` and the upper-case ``04 MAR 1990`` of passports and GEDCOM."""

from __future__ import annotations

import datetime as dt
import random
from functools import cache
from typing import Literal

from babel.dates import get_day_names, get_month_names

ROMAN = ("I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII")
ENGLISH_ABBREVIATED = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")

# The forms each language's dates are written in, in prose (a record's template names its own: ISO 8601,
# ``CCYYMMDD``, ...); a form listed twice is drawn twice as often.
FORMS: dict[str, tuple[str, ...]] = {
    "en": ("mdy_slash", "mdy_slash", "mdy_slash", "dmy_slash", "iso", "named", "named", "named_abbr", "ordinal",
           "weekday", "mdy_2y", "dmy_2y", "d_mon_y", "upper", "lower_chat", "roman"),
    "fr": ("dmy_slash", "dmy_slash", "dmy_dot", "named", "named", "named_abbr", "weekday", "dmy_2y", "dmy_dash"),
    "es": ("dmy_slash", "dmy_slash", "dmy_dash", "named", "named", "named_abbr", "weekday", "dmy_2y", "roman"),
    "de": ("dmy_dot", "dmy_dot", "dmy_dot_bare", "named", "named", "named_abbr", "weekday", "dot_2y", "roman"),
    "it": ("dmy_slash", "named", "named", "roman", "weekday", "dmy_dot"),
    "pt": ("dmy_slash", "dmy_slash", "named", "named", "dmy_dash", "weekday"),
    "nl": ("dmy_dash", "dmy_dash", "named", "named", "dmy_slash", "weekday"),
}  # fmt: skip
MACHINE_FORMS = ("iso", "compact", "dmy_slash", "mdy_slash", "dmy_dot", "ymd_slash", "d_mon_y")


@cache
def months(lang: str, width: Literal["abbreviated", "wide"] = "wide") -> tuple[str, ...]:
    names = get_month_names(width, locale=lang)
    return tuple(names[m] for m in range(1, 13))


@cache
def weekdays(lang: str) -> tuple[str, ...]:
    names = get_day_names("wide", locale=lang)
    return tuple(names[d] for d in range(7))  # Monday first, as date.weekday()


def _ordinal(day: int) -> str:
    suffix = "th" if 11 <= day % 100 <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")
    return f"{day}{suffix}"


def _named(date: dt.date, lang: str, rng: random.Random, width: Literal["abbreviated", "wide"] = "wide") -> str:
    d, y = date.day, date.year
    month = months(lang, width)[date.month - 1] if lang != "en" or width == "wide" else (
        ENGLISH_ABBREVIATED[date.month - 1] + rng.choice(("", ".")))  # fmt: skip
    if lang == "en":
        return rng.choice((f"{month} {d}, {y}", f"{d} {month} {y}", f"{month} {d} {y}"))
    if lang == "fr":
        return f"{'1er' if d == 1 else d} {month} {y}"
    if lang in ("es", "pt"):
        return f"{d} de {month} de {y}" if width == "wide" else f"{d} {month} {y}"
    if lang == "de":
        return f"{d}. {month} {y}"
    return f"{d} {month} {y}"


def written(date: dt.date, form: str, lang: str, rng: random.Random) -> str:
    """`date` in `form` (one of ``FORMS[lang]`` or ``MACHINE_FORMS``) as `lang` writes it."""
    d, m, y = date.day, date.month, date.year
    numeric = {
        "mdy_slash": f"{m:02d}/{d:02d}/{y}" if rng.random() < 0.6 else f"{m}/{d}/{y}",
        "dmy_slash": f"{d:02d}/{m:02d}/{y}",
        "iso": date.isoformat(),
        "mdy_2y": f"{m}/{d}/{y % 100:02d}",
        "dmy_2y": f"{d:02d}/{m:02d}/{y % 100:02d}",
        "compact": f"{y}{m:02d}{d:02d}",
        "ymd_slash": f"{y}/{m:02d}/{d:02d}",
        "dmy_dot": f"{d:02d}.{m:02d}.{y}",
        "dmy_dot_bare": f"{d}.{m}.{y}",
        "dot_2y": f"{d:02d}.{m:02d}.{y % 100:02d}",
        "dmy_dash": f"{d:02d}-{m:02d}-{y}",
        "d_mon_y": f"{d:02d}-{ENGLISH_ABBREVIATED[m - 1]}-{y}",
        "upper": f"{d:02d} {ENGLISH_ABBREVIATED[m - 1].upper()} {y}",
    }
    if form in numeric:
        return numeric[form]
    if form == "roman":
        return rng.choice((f"{d}.{ROMAN[m - 1]}.{y}", f"{d} {ROMAN[m - 1]} {y}", f"{d:02d}-{ROMAN[m - 1]}-{y}"))
    if form == "named":
        return _named(date, lang, rng)
    if form == "named_abbr":
        return _named(date, lang, rng, "abbreviated")
    if form == "ordinal":
        month = months("en")[m - 1]
        day = _ordinal(d)
        return rng.choice((f"the {day} of {month} {y}", f"{month} {day}, {y}", f"{day} {month} {y}"))
    if form == "lower_chat":
        return rng.choice((f"{months('en')[m - 1].lower()} {d} {y}", f"{d} {months('en')[m - 1].lower()} {y}"))
    if form == "weekday":
        day = weekdays(lang)[date.weekday()]
        named = _named(date, lang, rng)
        if lang == "en":
            return f"{day}, {named}"
        if lang in ("fr", "it", "nl"):
            return f"{day} {named}"
        return f"{day}, {named}"
    raise ValueError(f"no form {form!r}")
