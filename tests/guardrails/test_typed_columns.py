"""Columns typed by their values (``fields._value_columns``): delimited blocks whose header names no person or place
column in a language the keys hold, or that have no header, and the JSON objects of a label and its value."""

import pytest

from gateway.guardrails.fields import FieldValueRecognizer


def found(text: str) -> set[tuple[str, str]]:
    return {(r.entity_type, text[r.start : r.end]) for r in FieldValueRecognizer().analyze(text, [])}


def test_a_header_in_another_language_given_names_surnames_and_towns() -> None:
    text = ("Etunimi;Sukunimi;Kotikunta;Puhelin\n"
            "Matti;Virtanen;Tampere;040 1234567\n"
            "Anna;Korhonen;Oulu;050 7654321\n"
            "Jukka;Nieminen;Turku;044 1112223")  # fmt: skip
    assert found(text) >= {("PERSON", "Matti"), ("PERSON", "Virtanen"), ("PERSON", "Anna"), ("PERSON", "Korhonen"),
                           ("LOCATION", "Tampere"), ("LOCATION", "Oulu"), ("LOCATION", "Turku")}  # fmt: skip
    assert not {value for _, value in found(text)} & {"Etunimi", "Sukunimi", "Kotikunta", "Puhelin"}


def test_rows_with_no_header_surname_first_and_a_particle() -> None:
    text = "Müller;Stefan;Hauptstraße 5;Hamburg;offen\nvan Dijk;Sanne;Kerkstraat 12;Rotterdam;open"
    assert found(text) >= {("PERSON", "Müller"), ("PERSON", "Stefan"), ("PERSON", "van Dijk"), ("PERSON", "Sanne"),
                           ("LOCATION", "Hamburg"), ("LOCATION", "Rotterdam")}  # fmt: skip


def test_a_pipe_delimited_export_and_a_full_name_column() -> None:
    text = "12|María García|Sevilla|activo\n13|José Martínez|Valencia|baja\n14|Lucía Fernández|Bilbao|activo"
    assert found(text) >= {("PERSON", "María García"), ("PERSON", "José Martínez"), ("LOCATION", "Sevilla"),
                           ("LOCATION", "Bilbao")}  # fmt: skip


def test_a_named_column_makes_its_neighbour_of_one_word_names_the_other_part() -> None:
    text = "nom,prénom,ville,pays\nOkonkwo,Chidubem,Lyon,France\nNakamura,Haruto,Lille,France"
    assert found(text) >= {("PERSON", "Okonkwo"), ("PERSON", "Chidubem"), ("PERSON", "Haruto")}


def test_given_names_that_are_also_places_stay_people() -> None:
    text = "Förnamn;Efternamn;Ort;Land\nCarolina;Lindqvist;Malmö;Sweden\nVictoria;Berg;Uppsala;Sweden"
    kinds = dict((value, kind) for kind, value in found(text))
    assert kinds["Carolina"] == kinds["Victoria"] == "PERSON" and kinds["Malmö"] == "LOCATION"
    assert "Förnamn" not in kinds and "Efternamn" not in kinds  # the header's words, in the name lists as typed


@pytest.mark.parametrize(
    "text",
    [
        "plan,status,team,tag\nPlatinum,Completed,Blue Squad,VIP\nStarter,Suspended,Growth Pod,Beta",
        "permission;gender;day\nGrant;Female;Monday\nDeny;Male;Friday",
        "Kundennr;Kunde;Stadt;Heimat\n3;Acme Holdings GmbH;Zürich;Albania",  # a single row's places are no name pair
        "We met Anna, Paul, and Maria in town.\nThen we left, ate, and slept, early.",  # prose with commas
        "| Name | Role | Office |\n|---|---|---|\n| Anna Berg | Engineer | Oslo |",  # a table of pipes: its reader's
    ],
)
def test_blocks_whose_values_are_no_people(text: str) -> None:
    assert not {value for kind, value in found(text) if kind == "PERSON" and value != "Anna Berg"}


def test_a_label_and_its_value() -> None:
    text = (
        '[{"label": "Contact", "value": "K. Adeyemi"}, {"name": "city", "value": "Leeds"}, '
        '{"label": "Tier", "value": "Gold"}]'
    )
    assert found(text) == {("PERSON", "K. Adeyemi"), ("LOCATION", "Leeds")}


@pytest.mark.parametrize(
    "text",
    [
        '{"sku": "TB-30L", "name": "Trail Blazer", "price": "89.00", "priceCurrency": "EUR"}',
        '{"items": [{"name": "Harbor Lantern", "qty": 2}]}',
        "Name:          PaymentIntent\nOwner:         CustomerAccount",
    ],
)
def test_a_products_name_and_a_class_name_are_no_persons(text: str) -> None:
    assert not {value for kind, value in found(text) if kind == "PERSON"}


def test_a_name_beside_no_product_property_and_names_with_inner_capitals_stay() -> None:
    text = '{"name": "Grace Baker", "age": 34}\nowner: McDonald\nlead: DeShawn'
    assert found(text) >= {("PERSON", "Grace Baker"), ("PERSON", "McDonald"), ("PERSON", "DeShawn")}
