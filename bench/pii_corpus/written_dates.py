"""Dates as thirteen more languages write them, for the ninth dev-side corpus (``dev_ninth``): Icelandic, Maltese,
Basque, Catalan, Galician, Swahili, Afrikaans and Vietnamese in Latin letters, Greek, Hebrew, and Ukrainian,
Bulgarian and Serbian in Cyrillic, each with its named month (declined where the language declines it) and its
numeric form; and the machine forms of payment and enrolment records (ISO 8601, ``CCYYMMDD``)."""

from __future__ import annotations

import datetime as dt
import random

MONTHS = {
    "is": ("janúar", "febrúar", "mars", "apríl", "maí", "júní", "júlí", "ágúst", "september", "október",
           "nóvember", "desember"),
    "mt": ("Jannar", "Frar", "Marzu", "April", "Mejju", "Ġunju", "Lulju", "Awwissu", "Settembru", "Ottubru",
           "Novembru", "Diċembru"),
    # Basque puts the month in the genitive before the day: "1987ko maiatzaren 3a"
    "eu": ("urtarrilaren", "otsailaren", "martxoaren", "apirilaren", "maiatzaren", "ekainaren", "uztailaren",
           "abuztuaren", "irailaren", "urriaren", "azaroaren", "abenduaren"),
    "ca": ("gener", "febrer", "març", "abril", "maig", "juny", "juliol", "agost", "setembre", "octubre", "novembre",
           "desembre"),
    "gl": ("xaneiro", "febreiro", "marzo", "abril", "maio", "xuño", "xullo", "agosto", "setembro", "outubro",
           "novembro", "decembro"),
    "sw": ("Januari", "Februari", "Machi", "Aprili", "Mei", "Juni", "Julai", "Agosti", "Septemba", "Oktoba",
           "Novemba", "Desemba"),
    "af": ("Januarie", "Februarie", "Maart", "April", "Mei", "Junie", "Julie", "Augustus", "September", "Oktober",
           "November", "Desember"),
    # Greek and Ukrainian write the month in the genitive after the day.
    "el": ("Ιανουαρίου", "Φεβρουαρίου", "Μαρτίου", "Απριλίου", "Μαΐου", "Ιουνίου", "Ιουλίου", "Αυγούστου",
           "Σεπτεμβρίου", "Οκτωβρίου", "Νοεμβρίου", "Δεκεμβρίου"),
    "he": ("ינואר", "פברואר", "מרץ", "אפריל", "מאי", "יוני", "יולי", "אוגוסט", "ספטמבר", "אוקטובר", "נובמבר",
           "דצמבר"),
    "uk": ("січня", "лютого", "березня", "квітня", "травня", "червня", "липня", "серпня", "вересня", "жовтня",
           "листопада", "грудня"),
    "bg": ("януари", "февруари", "март", "април", "май", "юни", "юли", "август", "септември", "октомври",
           "ноември", "декември"),
    "sr": ("јануар", "фебруар", "март", "април", "мај", "јун", "јул", "август", "септембар", "октобар", "новембар",
           "децембар"),
}  # fmt: skip
STYLES = (*MONTHS, "vi")
MACHINE_STYLES = ("iso", "ccyymmdd")


def _named(date: dt.date, style: str) -> str:
    y, m, d = date.year, date.month, date.day
    month = MONTHS[style][m - 1]
    if style == "is":
        return f"{d}. {month} {y}"
    if style == "mt":
        return f"{d} ta' {month} {y}"
    if style == "eu":
        return f"{y}ko {month} {d}a"
    if style in ("ca", "gl"):
        # Catalan elides "de" before a vowel: "3 d'abril de 1987"
        of = "d'" if style == "ca" and month[0] in "ao" else "de "
        return f"{d} {of}{month} de {y}"
    if style == "he":
        return f"{d} ב{month} {y}"
    if style == "uk":
        return f"{d} {month} {y} р."
    if style == "bg":
        return f"{d} {month} {y} г."
    if style == "sr":
        return f"{d}. {month} {y}."
    return f"{d} {month} {y}"  # sw, af, el


def _numeric(date: dt.date, style: str) -> str:
    y, m, d = date.year, date.month, date.day
    if style == "eu":
        return f"{y}/{m:02d}/{d:02d}"
    if style in ("is", "uk", "bg", "sr"):
        return f"{d:02d}.{m:02d}.{y}" + ("." if style == "sr" else "")
    if style == "he":
        return f"{d}.{m}.{y}"
    return f"{d:02d}/{m:02d}/{y}"


def written(date: dt.date, style: str, rng: random.Random) -> tuple[str, str]:
    """(text, form) of `date` as `style` (a language of ``STYLES`` or a ``MACHINE_STYLES`` form) writes it; the form
    names the variant (``eu:named-month``)."""
    y, m, d = date.year, date.month, date.day
    if style == "iso":
        return f"{y}-{m:02d}-{d:02d}", "iso:yyyy-mm-dd"
    if style == "ccyymmdd":
        return f"{y}{m:02d}{d:02d}", "ccyymmdd"
    if style == "vi":
        return rng.choice([(f"{d} tháng {m} năm {y}", "vi:named-month"), (f"{d:02d}/{m:02d}/{y}", "vi:numeric")])
    if rng.random() < 0.65:
        return _named(date, style), f"{style}:named-month"
    return _numeric(date, style), f"{style}:numeric"
