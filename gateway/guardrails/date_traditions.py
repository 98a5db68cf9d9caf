"""DATE_OF_BIRTH in the date traditions whose years, words or layout differ from the Gregorian forms ``dates`` reads:
Korean, the Thai Buddhist era, the Persian Solar Hijri calendar, Lithuanian and Latvian year-first dates, the
IATA passenger-document element of airline telex, and the date-of-birth fields of ANSI X12 and SWIFT MT messages.

Each shape is written from its tradition's own rules, not from examples: the Korean and Baltic layouts are CLDR's
date patterns for "ko" ("y년 MMMM d일", "y. M. d."), "lt" ("y 'm'. MMMM d 'd'.") and "lv" ("y. 'gada' d. MMMM");
the Buddhist-era and Solar Hijri years are the Gregorian years of birth (``dates.BIRTH_YEAR``'s 1900-2009) moved by
each calendar's offset; the telex date is the fifth field of an SSR DOCS element, whose layout IATA fixes; the X12 and
SWIFT dates are read by their place in a segment or a field's line, never by their digits alone.
"""

from __future__ import annotations

import calendar
import re

from presidio_analyzer import EntityRecognizer, Pattern, RecognizerResult

from gateway.guardrails.dates import DAY_WORD_YEAR, INFLECTED_DATE, YEAR

_M = r"(?:0?[1-9]|1[0-2])"
_D = r"(?:0?[1-9]|[12]\d|3[01])"
# A Buddhist-era year (BE = CE + 543) of a person born 1900-2009: 2443-2552.
BUDDHIST_BIRTH_YEAR = r"(?:244[3-9]|24[5-9]\d|25[0-4]\d|255[0-2])"
# A Solar Hijri year (SH = CE - 621, the year starting at the March equinox) of a person born 1921-2010: 1300-1389.
# Years before 1300 SH (1921) are left out: they are 4-digit numbers of any kind far more often than births.
SOLAR_HIJRI_BIRTH_YEAR = r"(?:13[0-8]\d)"
# A word of a month's name in any script (Lithuanian "gegužės", Latvian "jūlijs", capitals on a receipt): the Baltic
# layouts are read by their literals ("m." and "d.", "gada"), which no other language's date sets around a word.
_MONTH_WORD = r"[^\W\d_]{3,12}"

TRADITION_PATTERNS = [
    # Korean, as CLDR's long pattern writes it, each part followed by its word for year, month and day: "1987년 5월
    # 3일", also without the spaces.
    Pattern("date y년 m월 d일", rf"(?<!\d){YEAR}\s?년\s?{_M}\s?월\s?{_D}\s?일", 0.3),
    # Korean's medium pattern, each part closed by a full stop and a space: "1987. 5. 3.". The closing full stop is
    # part of it: "2004. 4. 23" without it is a list or a version.
    Pattern("date y. m. d.", rf"(?<![\w.]){YEAR}\.[ \u00a0]{_M}\.[ \u00a0]{_D}\.(?!\d)", 0.3),
    # Lithuanian: "1987 m. gegužės 3 d." (the month in the genitive), and in capitals.
    Pattern("date y m. month d d.", rf"(?<![\w.]){YEAR}\s?m\.\s+{_MONTH_WORD}\s+{_D}\s?d\.", 0.3),
    # Latvian: "1987. gada 3. maijs".
    Pattern("date y. gada d. month", rf"(?<![\w.]){YEAR}\.\s+gada\s+{_D}\.\s+{_MONTH_WORD}(?![^\W\d_])", 0.3),
    # Filipino, the day as its ordinal ("ika-" before the number) and "ng" (of) before the month: "ika-14 ng Oktubre
    # 1944", "ika-3 ng Abril, 1987".
    Pattern("date ika-d ng month y", rf"(?<![\w-])ika-{_D}\s+ng\s+{_MONTH_WORD},?\s+{YEAR}(?!\d)", 0.3),
    # A day-first date whose month is in another case than its name, or in a language ``dates``' shapes do not read
    # (``dates.INFLECTED_MONTH_LOCALES``): "3. maja 1987", "12 lipca 1990", "16 februarie 1987".
    Pattern("date d month y inflected", INFLECTED_DATE, 0.3),
]  # fmt: skip
# Where the shapes above are: a year's last two digits and the word or full stop after them, a day, a word and a
# year (``dates.DAY_WORD_YEAR``), and the Filipino ordinal's "ika-" and digit (read behind the dash the engine skips
# to).
TRADITION_ANCHORS = (r"(?:19|20)\d\d(?:\s?년|\.[ \u00a0]\d|\s?[mM]\.\s|\.\s+(?i:gada)\s)", DAY_WORD_YEAR,
                     r"-\d(?<=[iI][kK][aA]-\d)")
# A year of 19xx or 20xx, which the first two anchors hold: searched for first (the regex engine skips to a "1" or a
# "2"), so a text with none (most prompts) is never searched for the day-word-year shape, which is tried from every
# digit of a text; the Filipino ordinal's anchor holds none and is searched for as it is.
_YEAR_IN_ANCHOR = re.compile(r"(?:19|20)\d\d")
_ORDINAL_ANCHOR = re.compile(TRADITION_ANCHORS[2])


def may_hold_tradition_anchor(text: str) -> bool:
    """Whether one of ``TRADITION_ANCHORS`` may occur (true wherever one does): a year, or the ordinal's anchor."""
    return _YEAR_IN_ANCHOR.search(text) is not None or _ORDINAL_ANCHOR.search(text) is not None

# Not inside a longer number, dotted, dashed or a clock time ("12:19/1/2536"); after a label's colon it may stand
# ("DOB:19/1/2536").
_NOT_AFTER_NUMBER = r"(?<![\w./-])(?<!\d:)"
# Calendars whose year alone says little: a birth date only next to a birth word, like ``dates.WEAK_PATTERNS``.
CALENDAR_PATTERNS = [
    # Thai, day first with the Buddhist-era year: "03/05/2530", "3/5/2530".
    Pattern("date d/m/yyyy BE", rf"{_NOT_AFTER_NUMBER}{_D}([/.-]){_M}\1{BUDDHIST_BIRTH_YEAR}(?![\w/:-]|\.\d)", 0.2),
    # Persian, year first in the Solar Hijri calendar: "1366/02/13", "1366-02-13".
    Pattern("date yyyy/mm/dd SH",
            rf"{_NOT_AFTER_NUMBER}{SOLAR_HIJRI_BIRTH_YEAR}([/.-]){_M}\1{_D}(?![\w/:-]|\.\d)", 0.2),
]  # fmt: skip
# Where they are: a Buddhist-era year after a separator, and a Solar Hijri year opening a dated triple. Each is led
# by its year's first digit, which the regex engine skips to, with the separator read behind it.
CALENDAR_ANCHORS = (r"2(?<=[/.-]2)(?:4[4-9]|5[0-5])\d(?![\w/:-]|\.\d)",
                    r"1(?<![\w./-]1)(?<!\d:1)3[0-8]\d([/.-])[01]?\d\1[0-3]?\d(?![\w/:-]|\.\d)")


# The element of a passenger record that holds a traveller's passport data (IATA's SSR DOCS): after the airline
# and the status ("YY HK1"), the document type, issuing country, document number, nationality, date of birth,
# gender, expiry date and names, each field closed by a "/" and left empty where unknown ("P////20APR98/F//").
_MONTH_ABBREVIATIONS = "|".join(name.upper() for name in calendar.month_abbr if name)
# Each field is bounded (a passport number or a country is far shorter), so a long line of other text is never read
# again from each "DOCS" in it.
_DOCS = re.compile(rf"\bDOCS\b[^/\n]{{0,24}}/(?:[^/\n]{{0,40}}/){{4}}"
                   rf"(\d\d(?:{_MONTH_ABBREVIATIONS})\d\d(?:\d\d)?)(?=/)")
DOCS_SCORE = 0.85  # the field's place names it: no birth word is written beside it


def has_docs_element(text: str) -> bool:
    return "DOCS" in text


class TelexDocsRecognizer(EntityRecognizer):
    """The date of birth of an SSR DOCS element: "SSR DOCS YY HK1/P/GBR/123456789/GBR/03MAY87/M/12JUL29/DOE/JOHN"."""

    def __init__(self) -> None:
        super().__init__(supported_entities=["DATE_OF_BIRTH"], name="TelexDocsRecognizer")

    def load(self) -> None:  # nothing to load: one regex
        pass

    def analyze(self, text: str, entities: list[str], nlp_artifacts: object = None) -> list[RecognizerResult]:
        return [RecognizerResult("DATE_OF_BIRTH", match.start(1), match.end(1), DOCS_SCORE)
                for match in _DOCS.finditer(text)]  # fmt: skip


# Dates of birth that a record standard puts in a place of their own, as eight digits (CCYYMMDD) with no word beside
# them. ANSI X12's DMG segment (Demographic Information, in the 834, 837, 270/271 and 276/277 transactions) holds a
# person's birth date in DMG02, in the format DMG01 names: "D8" is CCYYMMDD ("DMG*D8*19881011*F~"). The element
# separator is whatever the interchange header chose ("*" most often, "|" or "^" too): read as the character after
# "DMG". SWIFT MT field 50F (ordering customer, option F) writes the customer's details as numbered lines after the
# party identifier, and line code 4 is the date of birth, YYYYMMDD ("4/19851106"; 5 is the place of birth).
_CCYYMMDD = r"(?:19|20)\d\d(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])"
_X12_DMG = re.compile(rf"(?<![A-Za-z0-9])DMG([^\w\s])D8\1({_CCYYMMDD})(?!\d)")
_SWIFT_50F = re.compile(r"(?:^|\n):50F:")
# The field ends where the next one's tag opens a line (":57A:", ":59:").
_SWIFT_NEXT_FIELD = re.compile(r"\n:\d\d[A-Z]?:")
_SWIFT_BIRTH_LINE = re.compile(rf"^4/({_CCYYMMDD})[ \t\r]*$", re.MULTILINE)
RECORD_SCORE = 0.85  # the element's place names it, as the telex element's does
# HL7 v2's PID segment (Patient Identification) holds the patient's date and time of birth in its field 7 (PID-7, a
# TS or DTM: YYYYMMDD, with the hour, minutes, seconds and a zone after it where known), counted after the segment id
# with the field separator "|" between fields, as ``record_names`` counts the name fields 5, 6 and 9:
# "PID|1||9737063^^^GHH^MR||DOE^JANE||19690817|F". A segment opens its line (segments end in "\r", or a line break
# in a pasted message); a component separator "^" may follow the date ("19690817^D": HL7 2.3's TS, its precision).
_HL7_PID_BIRTH = re.compile(rf"(?:^|(?<=[\r\n]))PID\|(?:[^|\r\n]*\|){{6}}"
                            rf"({_CCYYMMDD}(?:[0-2]\d(?:[0-5]\d(?:[0-5]\d(?:\.\d{{1,4}})?)?)?)?(?:[+-]\d{{4}})?)"
                            r"(?=[|^\r\n]|\Z)")


def has_record_birth_field(text: str) -> bool:
    return "DMG" in text or ":50F:" in text or "PID|" in text


class RecordDateOfBirthRecognizer(EntityRecognizer):
    """The birth date of an X12 DMG segment ("DMG*D8*19881011*F~"), of a SWIFT field 50F's line 4 ("4/19851106") and
    of an HL7 v2 PID segment's field 7 ("PID|1||9737063^^^GHH^MR||||19690817|U")."""

    def __init__(self) -> None:
        super().__init__(supported_entities=["DATE_OF_BIRTH"], name="RecordDateOfBirthRecognizer")

    def load(self) -> None:  # nothing to load: a few regexes
        pass

    def analyze(self, text: str, entities: list[str], nlp_artifacts: object = None) -> list[RecognizerResult]:
        spans = [match.span(2) for match in _X12_DMG.finditer(text)] if "DMG" in text else []
        if "PID|" in text:
            spans.extend(match.span(1) for match in _HL7_PID_BIRTH.finditer(text))
        for field in _SWIFT_50F.finditer(text):
            following = _SWIFT_NEXT_FIELD.search(text, field.end())
            end = following.start() if following is not None else len(text)
            spans.extend(match.span(1) for match in _SWIFT_BIRTH_LINE.finditer(text, field.end(), end))
        return [RecognizerResult("DATE_OF_BIRTH", start, end, RECORD_SCORE) for start, end in spans]
