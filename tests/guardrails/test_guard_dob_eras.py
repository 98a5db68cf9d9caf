"""Dates of birth in the Japanese imperial eras' and the Minguo calendar's years (``era_dates``), glued to Japanese
words as a chat writes them, and the era dates that are no birth date or no day of their era."""

import pytest

from gateway.guardrails import PiiAnalyzer
from gateway.guardrails.era_dates import JAPANESE_ERAS, EraDateOfBirthRecognizer, gregorian_year


def dates_of_birth(analyzer: PiiAnalyzer, text: str) -> list[str]:
    return [text[f.start : f.end] for f in analyzer.analyze(text, ner_enabled=False)
            if f.entity_type == "DATE_OF_BIRTH" and f.score >= 0.5]  # fmt: skip


@pytest.mark.parametrize(
    ("text", "date"),
    [
        ("08:42\t総務\t生年月日は昭和51年9月17日です", "昭和51年9月17日"),  # a label glued before it
        ("15:47\t営業部\t昭和51年7月27日生まれです", "昭和51年7月27日"),  # "born" glued after it
        ("履歴書: 平成元年10月16日生（満37歳）", "平成元年10月16日"),  # an era's first year, "元年"
        ("born 昭和18年7月12日 per the ID scan", "昭和18年7月12日"),
        ("|dob|平成15年7月19日|", "平成15年7月19日"),
        ("record['birthdate'] = '大正14年2月3日'", "大正14年2月3日"),
        ("生年月日：令和2年 5月 1日", "令和2年 5月 1日"),
        ("DOB: ㍼62年4月3日", "㍼62年4月3日"),  # the era's square character, read as its two kanji
        ("出生日期：民國76年4月3日", "民國76年4月3日"),  # Minguo 76: 1987
        ("date of birth S62.04.03", "S62.04.03"),  # JIS X 0301's letter for Shōwa
        ("DOB H3/4/3", "H3/4/3"),
    ],
)
def test_era_dates_next_to_birth_words(analyzer: PiiAnalyzer, text: str, date: str) -> None:
    assert dates_of_birth(analyzer, text) == [date]


@pytest.mark.parametrize(
    "text",
    [
        "17:19\t営業部\t締め切りは平成31年2月4日です",  # a deadline
        "22:28\t総務\t令和7年4月11日に更新しました",
        "生年月日は昭和70年1月1日です",  # Shōwa ended in its 64th year
        "生年月日は平成3年2月30日です",  # no such day
        "生年月日は明治20年1月1日です",  # 1887: no birth year of a person alive
        "part S62.04.03 shipped",  # the Latin form without a birth word
        "DOB checked; release H3.4.3.1 tagged",  # inside a longer dotted number
    ],
)
def test_era_dates_that_are_no_birth_date(analyzer: PiiAnalyzer, text: str) -> None:
    assert dates_of_birth(analyzer, text) == []


def test_eras_are_unicodes_square_era_names_in_order() -> None:
    assert [(kanji, letter) for kanji, letter, _, _ in JAPANESE_ERAS] == [
        ("明治", "M"), ("大正", "T"), ("昭和", "S"), ("平成", "H"), ("令和", "R")]  # fmt: skip
    shouwa = JAPANESE_ERAS[2]
    assert gregorian_year(shouwa[2], shouwa[3], 62) == 1987
    assert gregorian_year(shouwa[2], shouwa[3], 64) == 1989  # its last year is Heisei's first
    assert gregorian_year(shouwa[2], shouwa[3], 65) is None


def test_text_without_a_year_kanji_or_birth_word_is_not_read() -> None:
    recognizer = EraDateOfBirthRecognizer()
    assert recognizer.analyze("release S62.04.03 and H3/4/3", ["DATE_OF_BIRTH"]) == []
