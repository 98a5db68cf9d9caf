"""Dates of birth with the month named as CLDR's locales write a date (``cldr_dates``), birth words of those
languages before numeric dates, and the birth-date fields of the X12 DMG segment and SWIFT field 50F; with the dates
beside them that are no birth date."""

import pytest

from gateway.guardrails import PiiAnalyzer
from gateway.guardrails.cldr_dates import CldrDateOfBirthRecognizer, build_snapshot, read_snapshot


def dates_of_birth(analyzer: PiiAnalyzer, text: str) -> list[str]:
    return [text[f.start : f.end] for f in analyzer.analyze(text, ner_enabled=False)
            if f.entity_type == "DATE_OF_BIRTH" and f.score >= 0.5]  # fmt: skip


@pytest.mark.parametrize(
    ("text", "date"),
    [
        ("I was born on 18 Φεβρουαρίου 1973", "18 Φεβρουαρίου 1973"),  # Greek genitive (CLDR "format" context)
        ('birth_date: "21 ΟΚΤΩΒΡΊΟΥ 1967"', "21 ΟΚΤΩΒΡΊΟΥ 1967"),
        ("Her date of birth is 15 בדצמבר 1986", "15 בדצמבר 1986"),  # Hebrew "d בMMMM y"
        ('dob: "11 септември 1951 г."', "11 септември 1951 г."),  # Bulgarian, with its "г."
        ("DateOfBirth=21 листопада 1994 р.", "21 листопада 1994 р."),  # Ukrainian genitive and "р."
        ("Birth date 28. март 1968.", "28. март 1968."),  # Serbian Cyrillic, closed by a full stop
        ("em sinh ngày 14 tháng 5 năm 1996", "14 tháng 5 năm 1996"),  # Vietnamese "d MMMM 'năm' y"
        ('birth_date: "1986ko apirilaren 28a"', "1986ko apirilaren 28a"),  # Basque "y('e')'ko' MMMM'ren' d('a')"
        ("date of birth: 2001eko urtarrilaren 3a", "2001eko urtarrilaren 3a"),
        ("dateOfBirth: 7 de febrer de 1965", "7 de febrer de 1965"),  # Catalan
        ("born on 29 d'octubre de 1979", "29 d'octubre de 1979"),  # Catalan's "d’" typed as an ASCII apostrophe
        ("date_of_birth: 27 de decembro de 2000", "27 de decembro de 2000"),  # Galician
        ("birthDate: 9 ta' Novembru 1973", "9 ta' Novembru 1973"),  # Maltese "d 'ta'’ MMMM y"
        ("Dáta breithe: 5 Feabhra 1990", "5 Feabhra 1990"),  # Irish
        ("BornOn = 6. júní 1958", "6. júní 1958"),  # Icelandic
        ("sünniaeg 14. jaanuar 1983", "14. jaanuar 1983"),  # Estonian
        ("DOB: 3 MAYIS 1990", "3 MAYIS 1990"),  # Turkish's dotless "ı" in capitals
        # Mongolian "y 'оны' MMMM'ын' d" with the month by its number ("10-р сар"), whose "р" beside the digits the
        # reader view reads as a Latin "p"
        ("echo '1957 оны 10-р сарын 24' >> ~/notes/birthdate.txt", "1957 оны 10-р сарын 24"),
        ("born 1984 оны 3-р сарын 23 per the ID scan", "1984 оны 3-р сарын 23"),
        # Kazakh "y 'ж'. d MMMM" with its "ж." written out, and in the day-first order with the year's word last
        ("patient DOB 1990 жылғы 27 қаңтар", "1990 жылғы 27 қаңтар"),
        ("born 1945 ж. 10 тамыз", "1945 ж. 10 тамыз"),
        ("DOB: 3 сәуір 1987 ж.", "3 сәуір 1987 ж."),
        # Armenian "y թ. MMMM d" written day first, the year and its "թ." last
        ("DOB confirmed as 14 մայիսի 2002 թ.", "14 մայիսի 2002 թ."),
        ("date_born: 5 դեկտեմբերի 1970 թ.", "5 դեկտեմբերի 1970 թ."),
        ("Дата рождения: 13 июля 1955 года", "13 июля 1955 года"),  # Russian "г." written out
    ],
)
def test_dates_with_a_cldr_month_next_to_birth_words(analyzer: PiiAnalyzer, text: str, date: str) -> None:
    assert dates_of_birth(analyzer, text) == [date]


@pytest.mark.parametrize(
    "text",
    [
        'valid_from: "9 de juliol de 2016"',
        "expires_on: 26 Φεβρουαρίου 2031",
        "[18:40] nikos: προθεσμία 21 Φεβρουαρίου 2023",
        'validFrom: "29 март 2017 г."',
        "הפגישה ב 15 בדצמבר 2024",
        "hạn chót 14 tháng 5 năm 2026",
        "renewal: 2022 жылғы 21 ақпан",
        "|created|16 հունիսի 2017 թ.|",
        "2026 оны 3-р сарын 23 хүртэл",
    ],
)
def test_cldr_dates_without_a_birth_word_are_no_dates_of_birth(analyzer: PiiAnalyzer, text: str) -> None:
    assert dates_of_birth(analyzer, text) == []


@pytest.mark.parametrize(
    ("text", "date"),
    [
        ("[15:49] mimi: роден съм на 05.06.1968", "05.06.1968"),  # Bulgarian
        ("дата на раждане 14.02.1965", "14.02.1965"),
        ("[07:36] dana.l: נולדתי ב 13.9.1984", "13.9.1984"),  # Hebrew
        ("תאריך לידה 22.1.1959", "22.1.1959"),
        ("an: ngày sinh của bé là 21/08/1989", "21/08/1989"),  # Vietnamese
        ("Датум рођења: 24.07.1999", "24.07.1999"),  # Serbian
        ("Дата народження: 12.08.1985", "12.08.1985"),  # Ukrainian
        ("jaiotze data: 1944/09/28", "1944/09/28"),  # Basque
        ("დაბადების თარიღი: 11.06.1986", "11.06.1986"),  # Georgian
        ("जन्म तिथि: 21/10/1997", "21/10/1997"),  # Hindi
    ],
)
def test_numeric_dates_after_birth_words_of_more_languages(analyzer: PiiAnalyzer, text: str, date: str) -> None:
    assert dates_of_birth(analyzer, text) == [date]


@pytest.mark.parametrize(
    ("text", "date"),
    [
        ("NM1*IL*1*DOE*JANE~\nN4*Boston*MA*02110~\nDMG*D8*19881011*F~\nSE*20*0001~", "19881011"),
        ("NM1|IL|1|DOE|JANE~DMG|D8|19770315|M~", "19770315"),  # another element separator
        (":50F:/4754979711\n1/ACME COMERCIO LTDA\n4/19851106\n5/BR/SAO PAULO\n:57A:RZRHMXMM", "19851106"),
    ],
)
def test_birth_dates_of_record_standards(analyzer: PiiAnalyzer, text: str, date: str) -> None:
    assert dates_of_birth(analyzer, text) == [date]


@pytest.mark.parametrize(
    "text",
    [
        "DTP*348*D8*20240101~\nREF*0F*19881011~",  # a benefit date, and eight digits in another segment
        "DMG*RD8*19881011-19891011~",  # a range: no birth date's format
        ":50F:/4754979711\n1/ACME COMERCIO LTDA\n6/BR/BANK/19851106\n:57A:RZRHMXMM",  # line 6: a customer number
        ":50K:/4754979711\nACME\n4/19851106",  # option K has no numbered lines
        ":50F:/4754979711\n1/ACME\n:59:/1\n4/19851106",  # line 4 of the next field
        "order 19851106 shipped",
    ],
)
def test_eight_digits_outside_a_birth_field_are_no_date_of_birth(analyzer: PiiAnalyzer, text: str) -> None:
    assert dates_of_birth(analyzer, text) == []


def test_month_names_are_cldrs_in_both_contexts_and_widths() -> None:
    names = set(read_snapshot()["orders"]["dMy"]["names"])
    assert {"lipca", "lipiec", "lip"} <= names  # Polish genitive, nominative and abbreviation
    assert {"φεβρουαρίου", "φεβρουάριος"} <= names
    assert {"gegužės", "gegužė"} <= set().union(*(set(entry["names"]) for entry in read_snapshot()["orders"].values()))


def test_a_year_alone_or_a_word_that_is_no_month_is_no_date() -> None:
    recognizer = CldrDateOfBirthRecognizer()
    for text in ("the 3 best 2019 cars", "in 1990 to 2000", "12 Marzipan 1990", "5 Mayo Clinic 1990"):
        assert recognizer.analyze(text, ["DATE_OF_BIRTH"]) == [], text


@pytest.mark.slow
def test_the_snapshot_is_what_babel_reads() -> None:
    assert build_snapshot() == read_snapshot()
