"""Dates as the tenth dev-side corpus's languages write them (``dev_tenth``): Russian, Kazakh and Mongolian in
Cyrillic, Georgian, Armenian, Tamil and Hindi in their scripts, Hungarian year first, Finnish with the month in the
partitive, Filipino and Malay month names, Japanese era years (``昭和62年4月3日``), Arabic with Eastern Arabic digits,
and the ``YYMMDD`` of a passport's machine-readable zone. No other split writes these month names or forms."""

from __future__ import annotations

import datetime as dt
import random

MONTHS = {
    # Russian writes the month in the genitive after the day: "3 апреля 1987 г."
    "ru": ("января", "февраля", "марта", "апреля", "мая", "июня", "июля", "августа", "сентября", "октября",
           "ноября", "декабря"),
    "kk": ("қаңтар", "ақпан", "наурыз", "сәуір", "мамыр", "маусым", "шілде", "тамыз", "қыркүйек", "қазан",
           "қараша", "желтоқсан"),
    "ka": ("იანვარი", "თებერვალი", "მარტი", "აპრილი", "მაისი", "ივნისი", "ივლისი", "აგვისტო", "სექტემბერი",
           "ოქტომბერი", "ნოემბერი", "დეკემბერი"),
    # Armenian, too: "3 ապրիլի 1987 թ."
    "hy": ("հունվարի", "փետրվարի", "մարտի", "ապրիլի", "մայիսի", "հունիսի", "հուլիսի", "օգոստոսի", "սեպտեմբերի",
           "հոկտեմբերի", "նոյեմբերի", "դեկտեմբերի"),
    "ta": ("ஜனவரி", "பிப்ரவரி", "மார்ச்", "ஏப்ரல்", "மே", "ஜூன்", "ஜூலை", "ஆகஸ்ட்", "செப்டம்பர்", "அக்டோபர்",
           "நவம்பர்", "டிசம்பர்"),
    "hi": ("जनवरी", "फ़रवरी", "मार्च", "अप्रैल", "मई", "जून", "जुलाई", "अगस्त", "सितंबर", "अक्टूबर", "नवंबर",
           "दिसंबर"),
    "hu": ("január", "február", "március", "április", "május", "június", "július", "augusztus", "szeptember",
           "október", "november", "december"),
    # Finnish puts the month in the partitive: "3. huhtikuuta 1987"
    "fi": ("tammikuuta", "helmikuuta", "maaliskuuta", "huhtikuuta", "toukokuuta", "kesäkuuta", "heinäkuuta",
           "elokuuta", "syyskuuta", "lokakuuta", "marraskuuta", "joulukuuta"),
    "fil": ("Enero", "Pebrero", "Marso", "Abril", "Mayo", "Hunyo", "Hulyo", "Agosto", "Setyembre", "Oktubre",
            "Nobyembre", "Disyembre"),
    "ms": ("Januari", "Februari", "Mac", "April", "Mei", "Jun", "Julai", "Ogos", "September", "Oktober", "November",
           "Disember"),
    "ar": ("يناير", "فبراير", "مارس", "أبريل", "مايو", "يونيو", "يوليو", "أغسطس", "سبتمبر", "أكتوبر", "نوفمبر",
           "ديسمبر"),
}  # fmt: skip
STYLES = (*MONTHS, "mn", "ja-era")
MACHINE_STYLES = ("mrz",)
# Japan's eras since 1926, newest first: (name, first day). Births are of Shōwa and Heisei; other dates (2015-2025)
# reach into Reiwa.
ERAS = (("令和", dt.date(2019, 5, 1)), ("平成", dt.date(1989, 1, 8)), ("昭和", dt.date(1926, 12, 25)))
_EASTERN_DIGITS = str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩")


def japanese_era(date: dt.date) -> str:
    """``昭和62年4月3日``: the era, its year (the first is 元年), the month and the day."""
    name, first = next((name, first) for name, first in ERAS if date >= first)
    year = date.year - first.year + 1
    return f"{name}{'元' if year == 1 else year}年{date.month}月{date.day}日"


def written(date: dt.date, style: str, rng: random.Random) -> tuple[str, str]:
    """(text, form) of `date` as `style` (of ``STYLES`` or ``MACHINE_STYLES``) writes it; the form names the
    variant (``hu:named-month``)."""
    y, m, d = date.year, date.month, date.day
    month = MONTHS.get(style, ("",) * 12)[m - 1]
    forms: dict[str, list[str]] = {
        "ru": [f"{d} {month} {y} г.", f"{d} {month} {y} года"],
        "kk": [f"{y} жылғы {d} {month}"],
        "ka": [f"{y} წლის {d} {month}", f"{d} {month}, {y}"],
        "hy": [f"{d} {month} {y} թ."],
        "ta": [f"{d} {month} {y}"],
        "hi": [f"{d} {month} {y}"],
        "hu": [f"{y}. {month} {d}.", f"{y}. {month} {d:02d}."],
        "fi": [f"{d}. {month} {y}"],
        "fil": [f"{month} {d}, {y}", f"ika-{d} ng {month} {y}"],
        "ms": [f"{d} {month} {y}"],
        "ar": [f"{d} {month} {y}".translate(_EASTERN_DIGITS)],
    }
    if style == "mrz":
        return f"{y % 100:02d}{m:02d}{d:02d}", "mrz:yymmdd"
    if style == "ja-era":
        return japanese_era(date), "ja-era:named-era"
    if style == "mn":
        return f"{y} оны {m}-р сарын {d}", "mn:month-number"
    if style == "hu" and rng.random() < 0.3:
        return f"{y}.{m:02d}.{d:02d}.", "hu:numeric"
    if style == "ar" and rng.random() < 0.3:
        return f"{d:02d}/{m:02d}/{y}".translate(_EASTERN_DIGITS), "ar:numeric-eastern-digits"
    return rng.choice(forms[style]), f"{style}:named-month"
