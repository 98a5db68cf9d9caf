"""A product's name that the NER models read as a person (``NerModel._names_a_thing``): three capitalised words or
more, the first no first name, the others English dictionary words, the last no name; people stay."""

import pytest

from gateway.guardrails import PiiAnalyzer


def people(analyzer: PiiAnalyzer, text: str) -> list[str]:
    found = analyzer.analyze(text, ner_enabled=True)
    return [text[f.start : f.end] for f in found if f.entity_type == "PERSON" and f.score >= 0.5]


@pytest.mark.parametrize(
    ("text", "product"),
    [("Thanks.\n\nVP Engineering | Bluepeak Systems LLC\nAquila Cloud Console", "Aquila Cloud Console"),
     ("The Vectra Cloud Console export is attached; the numbers are in tab 2.", "Vectra Cloud Console"),
     ("Head of Procurement | Zenith Logistics plc\nKeystone Cloud Console", "Keystone Cloud Console")],
)  # fmt: skip
def test_a_product_line_is_no_person(analyzer: PiiAnalyzer, text: str, product: str) -> None:
    assert not any(product in person or person in product for person in people(analyzer, text))


@pytest.mark.parametrize(
    ("text", "person"),
    [("Der Gutachter Augustin Plath kommt am Donnerstag.", "Augustin Plath"),
     ("Tras la entrevista, Mamen Ribera Ribes aceptó la oferta.", "Ribera"),
     ("Much appreciated,\n\nMartin Lewis\nZenith Systems plc", "Martin Lewis"),
     ("-----Original Message-----\nFrom: Bell, Sarah\nSent: 04 March 2025 10:12", "Sarah")],
)  # fmt: skip
def test_people_whose_words_a_dictionary_holds_stay(analyzer: PiiAnalyzer, text: str, person: str) -> None:
    assert any(person in found for found in people(analyzer, text))
