"""Dates of birth as eight more written traditions put them: Romanian, Latvian, Lithuanian, Estonian, Slovenian and
Irish named months and their numeric forms, Korean (``1987년 5월 3일``), Thai numeric dates in the Buddhist era
(year + 543), Persian numeric dates in the Solar Hijri calendar (``1366/02/13``, converted from the Gregorian date),
and the ``03MAY87`` of airline reservation telex."""

from __future__ import annotations

import datetime as dt
import random

MONTHS = {
    "ro": ("ianuarie", "februarie", "martie", "aprilie", "mai", "iunie", "iulie", "august", "septembrie",
           "octombrie", "noiembrie", "decembrie"),
    "lv": ("janvāris", "februāris", "marts", "aprīlis", "maijs", "jūnijs", "jūlijs", "augusts", "septembris",
           "oktobris", "novembris", "decembris"),
    # Lithuanian writes the month in the genitive: "1987 m. gegužės 3 d." (the 3rd day of May of the year 1987)
    "lt": ("sausio", "vasario", "kovo", "balandžio", "gegužės", "birželio", "liepos", "rugpjūčio", "rugsėjo",
           "spalio", "lapkričio", "gruodžio"),
    "et": ("jaanuar", "veebruar", "märts", "aprill", "mai", "juuni", "juuli", "august", "september", "oktoober",
           "november", "detsember"),
    # Slovenian, too: "3. maja 1987"
    "sl": ("januarja", "februarja", "marca", "aprila", "maja", "junija", "julija", "avgusta", "septembra",
           "oktobra", "novembra", "decembra"),
    "ga": ("Eanáir", "Feabhra", "Márta", "Aibreán", "Bealtaine", "Meitheamh", "Iúil", "Lúnasa", "Meán Fómhair",
           "Deireadh Fómhair", "Samhain", "Nollaig"),
}  # fmt: skip
STYLES = (*MONTHS, "ko", "th-be", "fa-jalali", "telex")
_TELEX_MONTHS = ("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC")


def to_jalali(date: dt.date) -> tuple[int, int, int]:
    """(year, month, day) of `date` in the Solar Hijri calendar (the arithmetic 33-year-cycle conversion)."""
    days_before_month = (0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334)
    gy, gm, gd = date.year, date.month, date.day
    gy2 = gy + 1 if gm > 2 else gy
    days = 355666 + 365 * gy + (gy2 + 3) // 4 - (gy2 + 99) // 100 + (gy2 + 399) // 400 + gd + days_before_month[gm - 1]
    jy = -1595 + 33 * (days // 12053)
    days %= 12053
    jy += 4 * (days // 1461)
    days %= 1461
    if days > 365:
        jy += (days - 1) // 365
        days = (days - 1) % 365
    if days < 186:
        return jy, 1 + days // 31, 1 + days % 31
    return jy, 7 + (days - 186) // 30, 1 + (days - 186) % 30


def written(date: dt.date, style: str, rng: random.Random) -> tuple[str, str]:
    """(text, form) of `date` as `style` writes it; the form names the variant (``ro:named-month``)."""
    y, m, d = date.year, date.month, date.day
    if style == "telex":
        return f"{d:02d}{_TELEX_MONTHS[m - 1]}{y % 100:02d}", "telex:ddmmmyy"
    if style == "ko":
        return rng.choice([(f"{y}년 {m}월 {d}일", "ko:hangul"), (f"{y}. {m}. {d}.", "ko:dotted")])
    if style == "th-be":
        year = y + 543
        return rng.choice([(f"{d:02d}/{m:02d}/{year}", "th-be:dd/mm/yyyy"), (f"{d}/{m}/{year}", "th-be:d/m/yyyy")])
    if style == "fa-jalali":
        jy, jm, jd = to_jalali(date)
        return rng.choice([(f"{jy}/{jm:02d}/{jd:02d}", "fa-jalali:y/mm/dd"),
                           (f"{jy}-{jm:02d}-{jd:02d}", "fa-jalali:y-mm-dd")])  # fmt: skip
    month = MONTHS[style][m - 1]
    named = {"ro": f"{d} {month} {y}", "lv": f"{y}. gada {d}. {month}", "lt": f"{y} m. {month} {d} d.",
             "et": f"{d}. {month} {y}", "sl": f"{d}. {month} {y}", "ga": f"{d} {month} {y}"}[style]  # fmt: skip
    numeric = {"ro": f"{d:02d}.{m:02d}.{y}", "lv": f"{d:02d}.{m:02d}.{y}.", "lt": f"{y}.{m:02d}.{d:02d}",
               "et": f"{d:02d}.{m:02d}.{y}", "sl": f"{d}. {m}. {y}", "ga": f"{d:02d}/{m:02d}/{y}"}[style]  # fmt: skip
    return rng.choice([(named, f"{style}:named-month"), (numeric, f"{style}:numeric")])
