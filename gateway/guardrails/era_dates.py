"""DATE_OF_BIRTH written in a calendar that counts years from an era: the Japanese imperial eras ("昭和62年4月3日",
"平成元年10月16日", and JIS X 0301's Latin form "S62.04.03") and the Minguo calendar of Taiwan ("民國76年4月3日").

The Japanese era names are Unicode's: each era since 1868 has a "SQUARE ERA NAME" character whose compatibility form
is the era's two kanji (U+337E MEIZI is 明治) and whose name's first letter is the era's letter in JIS X 0301's dates
("M", "T", "S", "H", "R"). The year each era's first year is in is the calendar's definition (CLDR's supplemental
calendarData, which Babel does not ship): an era year is read as a Gregorian year, and a date that falls outside its
era (昭和70年) or on no day of its month is none. An era's first year is written "元年" as well as "1年".

Japanese writes no space between words, so a date stands glued to the words around it ("生年月日は昭和51年9月17日です",
"昭和51年7月27日生まれです"): a birth label glued before the date or "生" (born) right after it is the date's own birth
word, which the context words, read where no letter comes before them, do not see there.
"""

from __future__ import annotations

import calendar
import re
import unicodedata

from presidio_analyzer import AnalysisExplanation, EntityRecognizer, RecognizerResult

from gateway.guardrails.dates import DateOfBirthRecognizer, has_birth_word

# The Gregorian year of each era's first year, by the era's Unicode name (the last word of "SQUARE ERA NAME ...").
_ERA_STARTS = {"MEIZI": 1868, "TAISYOU": 1912, "SYOUWA": 1926, "HEISEI": 1989, "REIWA": 2019}
_SQUARE_ERA_NAMES = "\u337e\u337d\u337c\u337b\u32ff"  # Meiji, Taishō, Shōwa, Heisei, Reiwa, in order


def _japanese_eras() -> list[tuple[str, str, int, int | None]]:
    """Each era as (kanji, JIS X 0301 letter, first year, last year or None for the current one)."""
    eras: list[tuple[str, str, int, int | None]] = []
    for char in _SQUARE_ERA_NAMES:
        name = unicodedata.name(char).rsplit(" ", 1)[1]
        start = _ERA_STARTS[name]
        if eras:  # an era ends in the year the next one starts
            kanji, letter, first, _ = eras[-1]
            eras[-1] = (kanji, letter, first, start)
        eras.append((unicodedata.normalize("NFKC", char), name[0], start, None))
    return eras


JAPANESE_ERAS = _japanese_eras()
# The Minguo calendar counts from the Republic of China's founding, 1912 its first year, in traditional and in
# simplified characters.
MINGUO_ERAS = [("民國", "", 1912, None), ("民国", "", 1912, None)]
_FIRST_YEAR_OF_BY_KANJI = {kanji: (first, last) for kanji, _, first, last in (*JAPANESE_ERAS, *MINGUO_ERAS)}
_FIRST_YEAR_OF_BY_LETTER = {letter: (first, last) for _, letter, first, last in JAPANESE_ERAS}
_EARLIEST_BIRTH_YEAR = 1900  # as ``dates.YEAR``: years of people alive
_LATEST_YEAR = 2099

_M = r"(?:0?[1-9]|1[0-2])"
_D = r"(?:0?[1-9]|[12]\d|3[01])"
_KANJI_DATE = re.compile(
    rf"({'|'.join(_FIRST_YEAR_OF_BY_KANJI)})\s?(元|\d{{1,2}})\s?年\s?({_M})\s?月\s?({_D})\s?日"
)
# JIS X 0301: the era's letter, then the era year, month and day, each of two digits, joined by full stops
# ("H01.01.08"); also written unpadded and with slashes or dashes ("S62.4.3", "H3/4/3").
_JIS_DATE = re.compile(
    rf"(?<![\w.+/-])([{''.join(_FIRST_YEAR_OF_BY_LETTER)}])(\d{{1,2}})([./-])({_M})\3({_D})(?![\w/-]|\.\d)"
)
# A birth label written right before the date on its line ("生年月日は", "生年月日：", "出生日期"), and "生" (born)
# right after it ("昭和51年7月27日生まれ", "…日生").
_LABEL_REACH = 12
_LABEL_BEFORE = re.compile(r"(?:生年月日|誕生日|出生)[^\n\d]{0,6}\Z")
_BORN_AFTER = re.compile(r"\s?生")
CUE_BOOST = 0.35  # as a birth word beside a date adds (``recognizers.CONTEXT_BOOST``)


def gregorian_year(first: int, last: int | None, era_year: int) -> int | None:
    """The Gregorian year of an era's `era_year`, or None where the era had no such year or it is no birth year."""
    year = first + era_year - 1
    if era_year < 1 or (last is not None and year > last) or not _EARLIEST_BIRTH_YEAR <= year <= _LATEST_YEAR:
        return None
    return year


def _is_day(year: int, month: int, day: int) -> bool:
    return day <= calendar.monthrange(year, month)[1]


def has_era_date(text: str) -> bool:
    """Whether an era date may stand in the text: a kanji one's "年", or a JIS X 0301 one where a birth word stands
    (alone, "S62.4.3" is as likely a part number)."""
    return "年" in text or (has_birth_word(text) and _JIS_DATE.search(text) is not None)


class EraDateOfBirthRecognizer(EntityRecognizer):
    """A date in an era's years that is a real day of its era; 0.3 alone, as the Gregorian shapes, raised by a birth
    word glued to it or a birth word beside it (the context words of ``dates.DateOfBirthRecognizer``)."""

    SCORE = 0.3
    JIS_SCORE = 0.2  # as the weak Gregorian shapes: with a birth word only

    def __init__(self) -> None:
        super().__init__(supported_entities=["DATE_OF_BIRTH"], name="EraDateOfBirthRecognizer",
                         context=DateOfBirthRecognizer.CONTEXT)  # fmt: skip

    def load(self) -> None:  # nothing to load: two regexes
        pass

    def analyze(self, text: str, entities: list[str], nlp_artifacts: object = None) -> list[RecognizerResult]:
        results = []
        if "年" in text:
            for match in _KANJI_DATE.finditer(text):
                first, last = _FIRST_YEAR_OF_BY_KANJI[match.group(1)]
                era_year = 1 if match.group(2) == "元" else int(match.group(2))
                if self._is_date(first, last, era_year, match.group(3), match.group(4)):
                    score = self.SCORE + (CUE_BOOST if _glued_cue(text, match.start(), match.end()) else 0.0)
                    results.append(self._result(match, score, "date japanese era"))
        if has_birth_word(text):
            for match in _JIS_DATE.finditer(text):
                first, last = _FIRST_YEAR_OF_BY_LETTER[match.group(1)]
                if self._is_date(first, last, int(match.group(2)), match.group(4), match.group(5)):
                    results.append(self._result(match, self.JIS_SCORE, "date JIS X 0301"))
        return results

    @staticmethod
    def _is_date(first: int, last: int | None, era_year: int, month: str, day: str) -> bool:
        year = gregorian_year(first, last, era_year)
        return year is not None and _is_day(year, int(month), int(day))

    def _result(self, match: re.Match[str], score: float, pattern_name: str) -> RecognizerResult:
        explanation = AnalysisExplanation(self.name, score, pattern_name=pattern_name)
        return RecognizerResult("DATE_OF_BIRTH", match.start(), match.end(), score, explanation)


def _glued_cue(text: str, start: int, end: int) -> bool:
    return (_LABEL_BEFORE.search(text, max(0, start - _LABEL_REACH), start) is not None
            or _BORN_AFTER.match(text, end) is not None)
