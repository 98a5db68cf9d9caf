"""A "Name:" label after a noun of a thing ("Item Name:", "FILE NAME:") and a word of code after a label
("Name: PaymentIntent") point at no person (``name_cues``); a person's labels and names still do."""

import pytest

from gateway.guardrails import PiiAnalyzer


def people(analyzer: PiiAnalyzer, text: str) -> list[str]:
    return [text[f.start : f.end] for f in analyzer.analyze(text) if f.entity_type == "PERSON" and f.score >= 0.5]


@pytest.mark.parametrize(
    "text",
    [
        "Bank Account: BG88LYSA860479OARB2G4O\nItem Name: ThinkPad X1 Carbon\nPayment due within 30 days.",
        "SHIP TO:\nSANGINETO 38274\nITEM NAME: Cortana\nPRICE: $7,649.04",
        "Name:          PaymentIntent\nVersion:       3\n",
        "Name:          OrderLineItem\nVersion:       3\n",
    ],
)
def test_things_a_label_names_are_no_people(analyzer: PiiAnalyzer, text: str) -> None:
    assert people(analyzer, text) == []


@pytest.mark.parametrize(
    ("text", "person"),
    [
        ("Shipped On: June 6th, 2024\nCustomer Name: Mateo Ruiz\nInvoice: 4411", "Mateo Ruiz"),
        ("Name:          Lena McDonald\nVersion:       3\n", "Lena McDonald"),
        ("SHIP TO:\nSANGINETO 38274\nCONTACT NAME: Cortana\nPRICE: $7,649.04", "Cortana"),
    ],
)
def test_people_a_label_names_are_still_found(analyzer: PiiAnalyzer, text: str, person: str) -> None:
    assert person in people(analyzer, text)
