"""People and places in business text: what NER calls a person that no name looks like (sign-offs, column
headers, months, phrases with ordinary words), names that stand where a table, an HTML element or a chat export
puts them, places that are words of a name or a date, and dates of birth in the less common formats."""

import pytest

from gateway.guardrails import PiiAnalyzer
from gateway.guardrails.columns import column_name, in_table_header
from gateway.guardrails.dates import calendar_words
from gateway.guardrails.findings import Finding
from gateway.guardrails.people import confirmed


def found(analyzer: PiiAnalyzer, text: str, entity_type: str) -> list[str]:
    return [text[f.start : f.end] for f in analyzer.analyze(text, ner_enabled=True)
            if f.entity_type == entity_type and f.score >= 0.5]  # fmt: skip


def ner_person(text: str, span: str) -> Finding:
    start = text.index(span)
    return Finding("PERSON", start, start + len(span), 0.85, "spacy_ner")


@pytest.mark.parametrize(
    ("text", "span"),
    [
        ("Beste Grüße\nMikuláš Vítek", "Beste Grüße"),  # a sign-off
        ("| Request Id | Payout Iban | Status |", "Payout Iban"),  # a column header
        ("| Trace Id | Status |", "Trace Id"),
        ("Le dossier est suivi par Imre Tóth depuis Janvier.", "Janvier"),  # a month alone
        ("Il travaille depuis Gardêz le Vendredi.", "Gardêz le Vendredi"),  # a weekday after a particle
        ("Notre agence de Luena ferme en Août.", "Notre agence de Luena"),  # an ordinary lower-case word inside
    ],
)
def test_ner_people_no_name_looks_like_are_dropped(text: str, span: str) -> None:
    assert not confirmed(text, ner_person(text, span))


@pytest.mark.parametrize(
    ("text", "span"),
    [
        ("Maria della Rosa approved the change.", "Maria della Rosa"),  # a long particle
        ("Ludwig van Beethoven wrote it.", "Ludwig van Beethoven"),
        ("I met April Jones at the desk.", "April Jones"),  # a month as a first name, not alone
    ],
)
def test_names_with_particles_and_calendar_first_names_stay_people(text: str, span: str) -> None:
    assert confirmed(text, ner_person(text, span))


def test_month_and_weekday_names_of_the_languages_read() -> None:
    words = calendar_words()
    assert {"january", "janvier", "januar", "enero", "vendredi", "viernes", "freitag", "août", "aout"} <= words


def test_table_headers_name_no_one(analyzer: PiiAnalyzer) -> None:
    text = "| Contact | Customer Name | Invoice |\n|---|---|---|\n| Ana | Wangari P. Mwendwa | F-1 |"
    assert in_table_header(text, text.index("Customer")) and not in_table_header(text, text.index("Wangari"))
    people = found(analyzer, text, "PERSON")
    assert "Wangari P. Mwendwa" in people
    assert not [p for p in people if p in ("Contact", "Customer Name", "Invoice")]
    assert not [p for p in found(analyzer, text, "LOCATION") if p in ("Contact", "Customer Name", "Invoice")]


@pytest.mark.parametrize(
    ("text", "person"),
    [
        ("| Sku | Full Name | Status |\n|---|---|---|\n| 12-33 | Moraa | Done |", "Moraa"),
        ("Name | Status\n--- | ---\nΓεώργιος Λεβέντης | ok", "Γεώργιος Λεβέντης"),
        ('<div>\n  <span class="customer_name">Тимофій L. Гайдабура</span>\n</div>', "Тимофій L. Гайдабура"),
        ('<td itemprop="name">Asali Sayyid</td>', "Asali Sayyid"),
        ("[13:43] Indrė: Can we move this?", "Indrė"),
        ("10:05 Gunnólfur Hervinsson: sounds good, merging now", "Gunnólfur Hervinsson"),
    ],
)
def test_names_where_tables_elements_and_chat_exports_put_them(analyzer: PiiAnalyzer, text: str, person: str) -> None:
    assert person in found(analyzer, text, "PERSON")


@pytest.mark.parametrize("text", ["[17:46] Bot: deploy finished", "10:42 Support Agent: hello", "at 10:42 Error: x"])
def test_bots_roles_and_log_labels_are_no_speakers(analyzer: PiiAnalyzer, text: str) -> None:
    assert found(analyzer, text, "PERSON") == []


def test_a_place_that_is_a_word_of_a_name_or_a_date_is_no_place(analyzer: PiiAnalyzer) -> None:
    text = 'name: "Sofía Orellana"\ndate_of_birth: "26 October 1973"'
    assert found(analyzer, text, "LOCATION") == []
    assert "Sofía Orellana" in found(analyzer, text, "PERSON")


def test_a_place_ner_reads_into_a_person_stays_a_place(analyzer: PiiAnalyzer) -> None:
    assert "Kokstad" in found(analyzer, "Der Flughafen Kokstad ist gesperrt.", "LOCATION")


def test_a_lower_case_word_after_the_genitive_de_is_no_place(analyzer: PiiAnalyzer) -> None:
    assert found(analyzer, "Fecha de nacimiento del titular: 1949-09-17", "LOCATION") == []


@pytest.mark.parametrize(
    ("text", "date"),
    [
        ("DOB: 1985/03/04", "1985/03/04"),
        ("record updated birth_date=1972/02/10 status=500", "1972/02/10"),
        ("born 04-Mar-1985 in a small town", "04-Mar-1985"),
        ("date of birth 4th of March 1985.", "4th of March 1985"),
        ("DOB Mar. 4, 1985", "Mar. 4, 1985"),
        ("born March 27th, 1943", "March 27th, 1943"),
    ],
)
def test_less_common_date_of_birth_formats(analyzer: PiiAnalyzer, text: str, date: str) -> None:
    assert found(analyzer, text, "DATE_OF_BIRTH") == [date]


def test_a_markdown_column_named_for_birth_is_birth_context(analyzer: PiiAnalyzer) -> None:
    text = "| Sku | Date Of Birth | Status |\n|---|---|---|\n| 12-33 | Mar 11 1944 | Done |\n| 1 | 1971-03-01 | Open |"
    assert column_name(text, text.index("Mar 11")) == "date of birth"
    assert found(analyzer, text, "DATE_OF_BIRTH") == ["Mar 11 1944", "1971-03-01"]
    plain = "| Sku | Shipped | Status |\n|---|---|---|\n| 12-33 | 1971-03-01 | Done |"
    assert found(analyzer, plain, "DATE_OF_BIRTH") == []


@pytest.mark.parametrize(
    ("text", "person"),
    [
        ("The PR was merged by Pattamon Methavorakul-Kittakun after CI went green.", "Pattamon Methavorakul-Kittakun"),
        ("The Q3 Board Pack was drafted by Toluwanimi and reviewed by Legal.", "Toluwanimi"),
    ],
)
def test_by_phrases_point_at_people_and_departments_are_none(analyzer: PiiAnalyzer, text: str, person: str) -> None:
    people = found(analyzer, text, "PERSON")
    assert person in people
    assert not [p for p in people if p.startswith("Legal")]
