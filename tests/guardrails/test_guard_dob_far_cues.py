"""Dates of birth under wording the context window misses: Roman-numeral months, a number of years before the date
(CLDR's duration-year units) that is the person's age, a life span in brackets after a name, being born said as
coming into the world, "born" before an aside that the date's preposition closes, and a question the date answers
(``dates``, the blind split dev-16's first misses); and the dates beside the same words that are no birth."""

import datetime

import pytest

from gateway.guardrails import PiiAnalyzer
from gateway.guardrails.dates import FarCueDateOfBirthRecognizer, opens_a_life_span, states_an_age

THIS_YEAR = datetime.date.today().year


def dates_of_birth(analyzer: PiiAnalyzer, text: str) -> list[str]:
    return [text[f.start : f.end] for f in analyzer.analyze(text, ner_enabled=False)
            if f.entity_type == "DATE_OF_BIRTH" and f.score >= 0.5]  # fmt: skip


@pytest.mark.parametrize(
    ("text", "value"),
    [("Geburtsdatum: 05-X-1946", "05-X-1946"),
     ("Marieluise Losekann wurde am 18.VII.1987 in Eilbek geboren.", "18.VII.1987"),
     ("Patientin Cordula Reising, geb. am 21 IV 1984, stellt sich vor.", "21 IV 1984"),
     ("Data di nascita: 4. III. 1990", "4. III. 1990")],
)
def test_a_month_in_roman_numerals_next_to_a_birth_word(analyzer: PiiAnalyzer, text: str, value: str) -> None:
    assert dates_of_birth(analyzer, text) == [value]


def test_roman_numerals_are_read_in_upper_case_only(analyzer: PiiAnalyzer) -> None:
    assert dates_of_birth(analyzer, "born on 3 x 1990 and 5 iv 1990") == []


@pytest.mark.parametrize(
    ("text", "value"),
    [(f"William Laporte, {THIS_YEAR - 1940} ans (14-03-1940), hospitalisé.", "14-03-1940"),
     (f"Isidoro Gomila, de {THIS_YEAR - 1974 - 1} años (23 de enero de 1974), ingresa.", "23 de enero de 1974"),
     (f"Istvan Scheel, {THIS_YEAR - 1949 - 1} Jahre (26.12.1949), Aufnahme.", "26.12.1949"),
     (f"Tiziano Sommaruga, {THIS_YEAR - 1959} anni (01/08/1959), ricoverata.", "01/08/1959"),
     (f"Ward, {THIS_YEAR - 1990} (03/04/1990), admitted.", "03/04/1990"),
     (f"Age: {THIS_YEAR - 1962} (Sunday, 11 November 1962)", "11 November 1962")],
)
def test_the_persons_age_in_years_before_the_date(analyzer: PiiAnalyzer, text: str, value: str) -> None:
    assert dates_of_birth(analyzer, text) == [value]


@pytest.mark.parametrize(
    "text",
    ["The loan runs 30 years (01/03/2024).",  # a term, not an age: 2024 + 30 is no year of now
     "Warranty: 2 years (01/03/1990) expired.",
     "Room 35 (03/04/1990) reserved",  # a bare number that closes no apposition
     f"Ward, {THIS_YEAR - 1990 + 7} (03/04/1990), admitted."],  # a number that is not the years since the date
)
def test_a_number_of_years_that_is_no_age(analyzer: PiiAnalyzer, text: str) -> None:
    assert dates_of_birth(analyzer, text) == []


def test_states_an_age_with_a_unit_only_when_it_fits_the_year() -> None:
    text = f"{THIS_YEAR - 1980} ans (12/12/1980)"
    assert states_an_age(text, text.index("12/"), len(text) - 1)
    text = f"{THIS_YEAR - 1980 + 5} ans (12/12/1980)"
    assert not states_an_age(text, text.index("12/"), len(text) - 1)


@pytest.mark.parametrize(
    ("text", "value"),
    [("Kimberly Skinner (04-Oct-1952 – ) is a poet and translator.", "04-Oct-1952"),
     ("Haroldo Sureda (11 de julio de 1982 – 15/03/2006)", "11 de julio de 1982"),
     ("Guillaume Gilbert (14/07/1952 - lundi 3 décembre 2018), cultivateur.", "14/07/1952")],
)
def test_a_life_span_after_a_name(analyzer: PiiAnalyzer, text: str, value: str) -> None:
    assert dates_of_birth(analyzer, text) == [value]


@pytest.mark.parametrize(
    "text",
    ["Invoice (01/03/2024 – 31/03/2024) paid.",  # a billing period: days apart, not a life
     f"Contract (01/03/{THIS_YEAR - 1} – ) open.",  # open since last year: no one of age
     "Total: (01/03/1990 – 31/03/2024)"],  # no name before the bracket
)
def test_spans_that_are_no_life(text: str) -> None:
    start = text.index("(") + 1
    assert not opens_a_life_span(text, start, start + 10)


@pytest.mark.parametrize(
    ("text", "value"),
    [("She came into the world on November 22 1970, a stormy night.", "November 22 1970"),
     ("Mohamed Pieper kam am 14.6.1939 in Prenzlau zur Welt.", "14.6.1939"),
     ("Vino al mundo el 30 de enero de 2003 en Zafra.", "30 de enero de 2003"),
     ("Il a vu le jour le 3 mars 1961 à Lyon.", "3 mars 1961"),
     ("#71590 is still open\nnací el 22/8/1984\nrebased", "22/8/1984"),  # "to be born" in the first person
     ("Eu nasci em 3/5/1961 no Porto.", "3/5/1961"),
     ("Dante nacque il 3 marzo 1965 a Firenze.", "3 marzo 1965"),  # and in the narrative past
     ("Il naquit le 3 mars 1961.", "3 mars 1961")],
)
def test_coming_into_the_world_and_being_born(analyzer: PiiAnalyzer, text: str, value: str) -> None:
    assert dates_of_birth(analyzer, text) == [value]


@pytest.mark.parametrize(
    ("text", "value"),
    [("Jessica Barnes was born, after a difficult labour that lasted most of the night at the old county hospital, "
      "on 8/23/1974.", "8/23/1974"),
     ("Born, as his mother never tired of reminding the whole family at every gathering, on 30/12/1954, Sheila "
      "Graham was the youngest of four.", "30/12/1954"),
     ("Thomas Navarro est né, d'après l'acte dressé par la mairie quelques jours plus tard, le jeudi 15 juin 1989.",
      "15 juin 1989"),
     ("Nazario Tovar nació, según consta en el registro civil de la parroquia, el 03/12/61.", "03/12/61"),
     ("agent: can you confirm when you were born please?\nuser: sure, it's 05/21/1932", "05/21/1932"),
     ("What's the patient's birthday?\n> 6 february 1940", "6 february 1940"),
     ("conseiller : pouvez-vous me donner votre date de naissance ?\nclient : oui c'est le 10 juillet 1959",
      "10 juillet 1959")],
)
def test_a_birth_word_far_from_its_date(analyzer: PiiAnalyzer, text: str, value: str) -> None:
    assert dates_of_birth(analyzer, text) == [value]


@pytest.mark.parametrize(
    "text",
    ["She was born in Lyon, and later, on 3 May 1980, she married.",  # no comma right after "born"
     "He was born, raised and schooled in Ohio, then hired in 1999, on 3 May 2001.",  # another date between
     "Did you update the birth date? Yes, on 12/03/2024.",  # an answer's date too recent for a person of age
     "When were you born? I started here on 3 May 2001 anyway.",  # the answer goes on past the date
     "Is the birthday party on Saturday?\nNo, it moved to 3 May 1999 which was a Monday."],
)
def test_far_birth_words_that_name_another_date(text: str) -> None:
    found = FarCueDateOfBirthRecognizer().analyze(text, ["DATE_OF_BIRTH"])
    assert [text[r.start : r.end] for r in found] == []


@pytest.mark.parametrize(
    ("text", "value"),
    [("Birth certificate issued 20/03/2014 by the registry office.", "20/03/2014"),
     ("Janet Leon's birthday party is on 30-Oct-2024 at the bowling alley.", "30-Oct-2024"),
     ("Geburtstagsfeier am 4.5.2021 im Garten.", "4.5.2021")],
)
def test_a_day_named_after_a_birth_word_that_is_another_events(analyzer: PiiAnalyzer, text: str, value: str) -> None:
    assert value not in dates_of_birth(analyzer, text)


@pytest.mark.parametrize(
    ("text", "value"),
    [("Date of birth of the third party: 03/05/1961", "03/05/1961"),  # a party alone is no birthday's
     ("DOB 3 May 1961, issued 4 May 2021", "3 May 1961"),
     ("geb_datum=30-03-1947", "30-03-1947")],
)
def test_birth_dates_beside_those_words(analyzer: PiiAnalyzer, text: str, value: str) -> None:
    assert dates_of_birth(analyzer, text) == [value]


def test_naci_without_its_accent_only_before_its_preposition(analyzer: PiiAnalyzer) -> None:
    assert dates_of_birth(analyzer, "Registro Nacional el 3/5/1961 abierto.") == []
    assert dates_of_birth(analyzer, "naci el 3/5/1961") == ["3/5/1961"]


@pytest.mark.parametrize(
    ("text", "value"),
    [("agent: date of birth\ncustomer: 9 may 1976", "9 may 1976"),
     ("agent: und ihr geburtsdatum bitte\nkunde: äh 11.10.87\nagent: danke", "11.10.87"),
     ("konsultant: w celu weryfikacji data urodzenia\ndzwoniący: eee 30 stycznia 1999", "30 stycznia 1999"),
     ("agente: su fecha de nacimiento\nllamante: eh el 24/06/1964\nagente: y un teléfono", "24/06/1964"),
     ("agent: can you confirm the date of birth\ncaller: 10 7 1964", "10 7 1964"),  # spaced: an answer's only
     ("medewerker: en uw geboortedatum\nklant: 2 april 2003", "2 april 2003")],
)
def test_a_date_answering_a_birth_label_on_the_line_above(analyzer: PiiAnalyzer, text: str, value: str) -> None:
    assert dates_of_birth(analyzer, text) == [value]


@pytest.mark.parametrize(
    "text",
    ["agent: when can you come in\ncustomer: 12/05/1990",  # no birth word above
     "agent: birthday party date\ncustomer: 12/05/1990",  # the birth word does not end the line
     f"agent: date of birth\ncustomer: 12/05/{THIS_YEAR - 3}",  # no person of age
     "agent: date of birth\ncustomer: 12/05/1990 is when we moved",  # the answer goes on past the date
     "agent: date of birth\ncustomer: i think we met on 12/05/1990",  # the date does not open the answer
     "agent: c'est nécessaire\nclient: 12/05/1990",  # "né" opens other words
     "agent: date of birth\n\nroom 10 7 1964"],  # a spaced run is read only as the answer
)
def test_a_date_under_a_line_that_asks_no_birth_date(text: str) -> None:
    found = FarCueDateOfBirthRecognizer().analyze(text, ["DATE_OF_BIRTH"])
    assert [text[r.start : r.end] for r in found] == []


def test_spaced_dates_are_read_in_answers_only(analyzer: PiiAnalyzer) -> None:
    assert dates_of_birth(analyzer, "born 10 7 1964, room 12 3 1990") == []


@pytest.mark.parametrize(
    ("text", "value"),
    [("dob 5 6 1961 and my name is aleksander", "5 6 1961"),  # a spaced date right after the birth word
     ("geburtsdatum: 10 7 1964", "10 7 1964"),
     ("pacjent ur. 22/09/1995, wizyta czwartek", "22/09/1995")],  # Polish "ur.": born
)
def test_a_date_right_after_a_birth_word_written_with_spaces_or_after_ur(analyzer: PiiAnalyzer, text: str,
                                                                          value: str) -> None:  # fmt: skip
    assert dates_of_birth(analyzer, text) == [value]


@pytest.mark.parametrize("text", ["dob 5 6 2020 baby", "see you at the tour. 22/09/1995 was fun", "Your. 22/09/1995"])
def test_no_person_of_age_or_ur_inside_a_word(analyzer: PiiAnalyzer, text: str) -> None:
    assert dates_of_birth(analyzer, text) == []
