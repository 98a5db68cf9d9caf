"""Dates as English speech writes them out, in call transcripts and dictation: "november eighth nineteen sixty nine",
"the fifth of march nineteen eighty", "july sixteenth two thousand and one".

The regex is built from the number words themselves (an exact grammar of the ordinals 1-31 and of the years
1900-2029 as they are read aloud), so it matches no other run of words: "march forward", "the first of many".
"""

from __future__ import annotations

import calendar

from presidio_analyzer import Pattern

from gateway.guardrails.dates import month_pattern

_UNITS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
_TEENS = ("ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
          "nineteen")  # fmt: skip
_TENS = ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
_UNIT_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth")
_TEEN_ORDINALS = ("tenth", "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth",
                  "seventeenth", "eighteenth", "nineteenth")  # fmt: skip
_GAP = r"[ \t-]+"  # "twenty first", "twenty-first"


def _words(words: tuple[str, ...]) -> str:
    # The longest first: "seventeenth" before "seventh" is no concern with the closing boundary, but "sixteen" before
    # "six" keeps the engine from backtracking through every shorter word.
    return "(?:" + "|".join(sorted(words, key=len, reverse=True)) + ")"


# The days of a month as ordinals: "first" to "nineteenth", "twentieth", "twenty first" to "twenty ninth",
# "thirtieth", "thirty first". Not in digits: "March 8th, 1985" is a written date's shape (``dates``).
SPOKEN_DAY = (rf"(?:twenty{_GAP}{_words(_UNIT_ORDINALS)}|thirty{_GAP}first|twentieth|thirtieth"
              rf"|{_words(_TEEN_ORDINALS)}|{_words(_UNIT_ORDINALS)})")
# The two digits after a century as they are read: "sixty nine", "eighty", "oh five", "twelve".
_TWO_DIGITS = (rf"(?:{_words(_TENS)}(?:{_GAP}{_words(_UNITS)})?|{_words(_TEENS)}|(?:oh|o|zero){_GAP}{_words(_UNITS)})")
# The years a person alive today is born in, read aloud: "nineteen sixty nine", "nineteen hundred", "two thousand",
# "two thousand (and) seven", "two thousand (and) nineteen", "twenty twelve", and in digits ("1969").
SPOKEN_YEAR = (rf"(?:nineteen{_GAP}(?:{_TWO_DIGITS}|hundred(?:{_GAP}(?:and{_GAP})?(?:{_TWO_DIGITS}|{_words(_UNITS)}))?)"
               rf"|two{_GAP}thousand(?:{_GAP}(?:and{_GAP})?(?:twenty(?:{_GAP}{_words(_UNITS)})?|{_words(_TEENS)}"
               rf"|{_words(_UNITS)}))?"
               rf"|twenty{_GAP}(?:{_words(_TEENS)}|twenty(?:{_GAP}{_words(_UNITS)})?|(?:oh|o){_GAP}{_words(_UNITS)})"
               r"|(?:19|20)\d\d)")
_MONTH = "(?:" + "|".join(name.lower() for name in calendar.month_name if name) + ")"
_END = r"(?![\w-])"

# "november eighth nineteen sixty nine", "november the eighth, nineteen sixty nine", "the fifth of march nineteen
# eighty", "fifth march nineteen eighty". Presidio compiles them case-insensitively.
SPOKEN_DATE_PATTERNS = [
    Pattern("spoken date month day year",
            rf"\b{_MONTH}{_GAP}(?:the{_GAP})?{SPOKEN_DAY},?{_GAP}(?:of{_GAP}|in{_GAP})?{SPOKEN_YEAR}{_END}", 0.3),
    Pattern("spoken date day of month year",
            rf"\b(?:the{_GAP})?{SPOKEN_DAY}{_GAP}(?:of{_GAP})?{_MONTH},?{_GAP}(?:of{_GAP}|in{_GAP})?{SPOKEN_YEAR}{_END}",
            0.3),
]
# Where a spoken date may be: an English month's name (or its first three letters or more) opening a word, with a
# space after it. A month name is in every spoken date, and is rarer than the number words; its windows
# (``recognizers``) reach the day before it ("the fifth of march") and the year after. The first letter is read by a
# case-sensitive class that the regex engine skips to, the rest behind it (``dates.month_pattern``): a leading
# look-behind and an ignore-case alternation are tried at every position.
_ENGLISH_MONTHS = [name.lower() for name in calendar.month_name if name]
_OPENINGS = "".join(sorted({name[0] for name in _ENGLISH_MONTHS} | {name[0].upper() for name in _ENGLISH_MONTHS}))
SPOKEN_DATE_ANCHOR = (rf"[{_OPENINGS}](?<![^\W\d_][\s\S])(?i:{month_pattern(_ENGLISH_MONTHS, first_behind=True)})"
                      r"(?=[ \t,-])")
