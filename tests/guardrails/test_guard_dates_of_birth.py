"""Dates of birth in English, French, Spanish and German, with birth words in those languages and in field keys."""

import calendar
import re

import pytest

from gateway.guardrails import PiiAnalyzer
from gateway.guardrails.dates import DateOfBirthRecognizer, has_birth_word, month_names, month_pattern


@pytest.mark.parametrize(
    ("text", "date"),
    [
        ("Elle est née le 3 février 1991 à Nantes.", "3 février 1991"),
        ("nacido el 7 de octubre de 1979, según el DNI", "7 de octubre de 1979"),
        ("geboren am 21. März 1968 in Graz", "21. März 1968"),
        ('{"date_of_birth": "1983-11-02"}', "1983-11-02"),
        ("patient_birthdate=02/11/1983", "02/11/1983"),
        ("my bday is Aug 9 2001 lol", "Aug 9 2001"),
    ],
)
def test_dates_next_to_birth_words(analyzer: PiiAnalyzer, text: str, date: str) -> None:
    found = [
        text[f.start : f.end]
        for f in analyzer.analyze(text, ner_enabled=False)
        if f.entity_type == "DATE_OF_BIRTH" and f.score >= 0.5
    ]
    assert found == [date]


@pytest.mark.parametrize("text", ["released on 3 février 1991", "invoice due 2024-11-02", "el 7 de octubre de 1979"])
def test_dates_without_birth_words_stay_below_the_threshold(analyzer: PiiAnalyzer, text: str) -> None:
    findings = analyzer.analyze(text, ner_enabled=False)
    assert not [f for f in findings if f.entity_type == "DATE_OF_BIRTH" and f.score >= 0.5]


def test_month_names_come_from_the_calendar_and_fakers_locales() -> None:
    names = month_names()
    assert {"january", "september"} <= set(names)  # the standard library's English names
    assert {"janvier", "février", "fevrier", "märz", "marz", "maerz", "gennaio", "outubro", "maart"} <= set(names)
    assert month_names(locales=()) == tuple(sorted(name.lower() for name in calendar.month_name if name))


@pytest.mark.parametrize(
    ("text", "date"),
    [
        ("born Sept. 14, 1972 in Leeds", "Sept. 14, 1972"),  # an abbreviation longer than calendar's own "Sep"
        ("née le 1er janv. 1950 à Lyon", "1er janv. 1950"),
        ("geboren am 3. Maerz 1961", "3. Maerz 1961"),  # umlaut written out
        ("nato il 12 settembre 1984 a Bari", "12 settembre 1984"),  # Italian, from Faker's it_IT provider
        ("DOB: 4 DECEMBER 1990", "4 DECEMBER 1990"),
    ],
)
def test_month_names_abbreviated_unaccented_and_in_other_languages(analyzer: PiiAnalyzer, text: str,
                                                                   date: str) -> None:  # fmt: skip
    found = [text[f.start : f.end] for f in analyzer.analyze(text, ner_enabled=False)
             if f.entity_type == "DATE_OF_BIRTH" and f.score >= 0.5]  # fmt: skip
    assert found == [date]


def test_a_word_that_only_starts_like_a_month_is_no_month() -> None:
    pattern = re.compile(rf"\b(?:{month_pattern(['september'])})\b", re.IGNORECASE)
    assert [m.group() for m in pattern.finditer("se sep sept septembers september")] == ["sep", "sept", "september"]


@pytest.mark.parametrize("text", ["d.o.b 03/04/1990", "cumpleaños: 12/03/1985", "Jahrgang 12.03.1985",
                                  "data de nascimento 12/03/1985", "anniversaire le 12/03/1985"])  # fmt: skip
def test_birth_words_of_more_forms_and_languages(analyzer, text):
    assert any(f.entity_type == "DATE_OF_BIRTH" and f.score >= 0.5 for f in analyzer.analyze(text)), text


@pytest.mark.parametrize(
    ("text", "date"),
    [
        ('{"birth_date": "1954-09-27T00:00:00Z"}', "1954-09-27T00:00:00Z"),  # an export's ISO date with its time
        ("Born: 19880412", "19880412"),  # a compact ISO date
        ("Member since 2019, born 19590329.", "19590329"),  # at a sentence's end
        ("dob=01/29/97 status=404", "01/29/97"),  # two-digit years
        ("Geburtstag laut Antrag: 17.01.98", "17.01.98"),
        ("Née le 02/08/76 (voir pièce jointe)", "02/08/76"),
        ("Nacida el 26 de julio del 2002, según el libro", "26 de julio del 2002"),  # Latin America's "del"
    ],
)
def test_more_shapes_of_a_date_next_to_birth_words(analyzer: PiiAnalyzer, text: str, date: str) -> None:
    found = [
        text[f.start : f.end]
        for f in analyzer.analyze(text, ner_enabled=False)
        if f.entity_type == "DATE_OF_BIRTH" and f.score >= 0.5
    ]
    assert found == [date]


@pytest.mark.parametrize(
    "text",
    [
        "2026-01-27T19:49:04Z INFO born-again worker restarted",  # a log's own timestamp: no year of birth
        "dob lookup for build 20260127 failed",  # eight digits with a year no adult is born in
        "birth of release 1.10.12.04 and 12.05.25.3",  # versions: dotted numbers longer than a date
        "order 19880412 shipped",  # a compact date shape without birth words
        "ship on 12/05/25",
    ],
)
def test_look_alikes_of_the_new_shapes_stay_below_the_threshold(analyzer: PiiAnalyzer, text: str) -> None:
    findings = analyzer.analyze(text, ner_enabled=False)
    assert not [f for f in findings if f.entity_type == "DATE_OF_BIRTH" and f.score >= 0.5]


def test_every_birth_word_opens_the_search_for_the_weak_shapes() -> None:
    # The weak shapes are looked for only where a birth word stands: a context word the stems miss would lose them.
    # Dotted abbreviations are context words only: as substrings no stem can hold them ('b.' in 'web.', Polish 'ur.'
    # in 'your.', 'tour.').
    for word in DateOfBirthRecognizer.CONTEXT:
        if word not in ("b.", "ur."):
            assert has_birth_word(f"Her {word.upper()} 19850304"), word
    assert not has_birth_word("Invoice 19850304 paid on 04/03/85")


@pytest.mark.parametrize(
    "text",
    [
        '{"dateOfBirth": "1991-07-14"}',  # camelCase keys, a prefix of the key naming the birth
        '{"fechaNacimiento": "14/07/1991"}',
        "dataNascimento=14/07/1991",
        "dateNaissance: 14/07/1991",
        "DDN : 14/07/1991",  # French forms' "date de naissance"
        "F. nac.: 14/07/91",
        "Né(e) le 14 juillet 1991 à Lyon",
        "Geboortedatum: 14 juli 1991",  # Dutch
        "Verjaardag: 14-07-1991",
        "Il compleanno di Marco è il 14 luglio 1991",  # Italian
        "Aniversário: 14/07/1991",  # Portuguese
        "mi cumple es el 14 de julio de 1991",  # Spanish, colloquial
    ],
)
def test_birth_words_as_field_names_abbreviations_and_more_languages(analyzer: PiiAnalyzer, text: str) -> None:
    assert any(f.entity_type == "DATE_OF_BIRTH" and f.score >= 0.5 for f in analyzer.analyze(text)), text


def test_cumple_as_complies_is_no_birth_word(analyzer: PiiAnalyzer) -> None:
    text = "El proveedor cumple con el plazo del 14 de julio de 2024."  # "cumple" alone is "complies"
    assert not [f for f in analyzer.analyze(text) if f.entity_type == "DATE_OF_BIRTH" and f.score >= 0.5]


@pytest.mark.parametrize(
    ("text", "date"),
    [
        ("Fecha de nacimiento: 1º de mayo de 1984", "1º de mayo de 1984"),  # Spanish and Portuguese ordinals
        ("Data de nascimento: 1.º de maio de 1984", "1.º de maio de 1984"),
        ("He was born on May the 3rd, 1984.", "May the 3rd, 1984"),  # English "month the day"
    ],
)
def test_ordinal_days_as_each_language_writes_them(analyzer: PiiAnalyzer, text: str, date: str) -> None:
    start = text.index(date)
    assert any(f.entity_type == "DATE_OF_BIRTH" and f.score >= 0.5 and f.start <= start + 1 and f.end >= start
               + len(date) - 1 for f in analyzer.analyze(text)), text  # fmt: skip


def birth_dates(analyzer: PiiAnalyzer, text: str) -> list[str]:
    return [text[f.start : f.end] for f in analyzer.analyze(text, ner_enabled=False)
            if f.entity_type == "DATE_OF_BIRTH" and f.score >= 0.5]  # fmt: skip


@pytest.mark.parametrize(
    ("text", "dates"),
    [
        # a code's or an IBAN's last letter before a full stop is no "b." (born)
        (
            "Her national insurance number KEKFD2029B. The minutes were approved 31 August 2025. D.o.b. 12/14/29.",
            ["12/14/29"],
        ),
        ("IBAN DE89370400440532013000 ref B. 12/03/1985", []),
        ("Ref XK-44B. 03/04/1990 shipment", []),
        # "b." in lower case, or capitalised in brackets, is born
        ("Maria Lopez, b. 12/05/1980, Madrid", ["12/05/1980"]),
        ("Eleanor Price (B. 3/4/41) wrote it.", ["3/4/41"]),
    ],
)
def test_b_dot_is_born_in_lower_case_or_in_brackets(analyzer: PiiAnalyzer, text: str, dates: list[str]) -> None:
    assert birth_dates(analyzer, text) == dates
