"""Names and places by position in structured text: XML elements named for their content, SQL INSERT tuples under
their column list, YAML lists under a plural key, printed forms with dotted leaders; and what is no field value (a
chat speaker's sentence, a team in a person's slot)."""

import pytest

from gateway.guardrails.fields import FieldValueRecognizer


def found(text: str) -> list[tuple[str, str]]:
    return [(r.entity_type, text[r.start : r.end]) for r in FieldValueRecognizer().analyze(text, [])]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("<claim><claimant>Gwenda Etheridge</claimant><id>77</id></claim>", [("PERSON", "Gwenda Etheridge")]),
        ('<ns:contactPerson type="primary">Payr, Makus</ns:contactPerson>', [("PERSON", "Payr, Makus")]),
        ("<employee>Matei</employee>\n<homeTown>Castlemartyr</homeTown>",
         [("PERSON", "Matei"), ("LOCATION", "Castlemartyr")]),
        ("<county> Pike County </county>", [("LOCATION", "Pike County")]),
    ],
)
def test_an_element_named_for_its_content(text: str, expected: list[tuple[str, str]]) -> None:
    assert found(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "<sku>AB-1234-XL</sku><version>1.2.3</version><hash>d41d8cd98f00b204e9800998ecf8427e</hash>",
        "<id>550e8400-e29b-41d4-a716-446655440000</id>",
        "<customer>Acme Holdings</customer>",  # a company
        "<title>Quarterly Report</title>",  # no person or place key
        "<patient>unknown</patient>",
    ],
)
def test_elements_that_name_no_one(text: str) -> None:
    assert found(text) == []


def test_sql_insert_tuples_take_their_column_list_as_keys() -> None:
    text = ("INSERT INTO patients (id, full_name, city, sku) VALUES\n"
            "  (1, 'Gwenda Etheridge', 'Millepini', 'AB-77'),\n"
            "  (2, 'Boucard, Kams', 'Garm Darreh', 'Blue Widget');")  # fmt: skip
    assert found(text) == [("PERSON", "Gwenda Etheridge"), ("LOCATION", "Millepini"), ("PERSON", "Boucard, Kams"),
                           ("LOCATION", "Garm Darreh")]  # fmt: skip


def test_sql_tuples_that_do_not_match_the_column_list_are_skipped() -> None:
    assert found("INSERT INTO t (full_name, city) VALUES ('Ana Lima', 'Porto', 'extra');") == []
    assert found("INSERT INTO t (product, colour) VALUES ('Blue Widget', 'Red');") == []


def test_yaml_list_items_under_a_plural_key() -> None:
    text = "patients:\n  - Naem\n  - Ivo Petrov\ntowns:\n  - Budzów\nversions:\n  - Alpha\n  - 1.2.3\n"
    assert found(text) == [("PERSON", "Naem"), ("PERSON", "Ivo Petrov"), ("LOCATION", "Budzów")]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("PATIENT ......... EDMOND MOLITOR", [("PERSON", "EDMOND MOLITOR")]),
        ("FULL NAME .... WOOLDRIDGE, DILWAR", [("PERSON", "WOOLDRIDGE, DILWAR")]),
        ("PLACE OF BIRTH .... GAZZADA SCHIANNO", [("LOCATION", "GAZZADA SCHIANNO")]),
        ("Patient ...... Edmond Molitor", [("PERSON", "Edmond Molitor")]),
        ("Patient ...... EDMOND MOLITOR", []),  # capitals only in a form printed in capitals
        ("STATUS ......... OPEN", []),
        ("PATIENT ......... N/A", []),
    ],
)
def test_printed_forms_with_dotted_leaders(text: str, expected: list[tuple[str, str]]) -> None:
    assert found(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "[18:18] customer: The session started at ten and then froze",
        "customer: took 34398ms lol",
        "[08:45] customer: took 00:27:29.418 lol",
        "customer: deliver to the back door please",
        "Assigned to: Field Services",
        "Reporter: Night Shift",
        "owner: Claims Unit",
        "Reporter: Claims Unit Tax identifier Z6674981",
    ],
)
def test_a_sentence_or_a_team_is_no_field_value(text: str) -> None:
    assert found(text) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("customer: Maria Lopez", [("PERSON", "Maria Lopez")]),
        ("owner=Mateusz Żółw status=200", [("PERSON", "Mateusz Żółw")]),
        ("Assigned to: John Office", [("PERSON", "John Office")]),  # a known first name: a person
        ("Lieu de naissance : Sakon Nakhon numéro de carte", [("LOCATION", "Sakon Nakhon")]),  # a run-on sentence
    ],
)
def test_names_that_stay_field_values(text: str, expected: list[tuple[str, str]]) -> None:
    assert found(text) == expected
