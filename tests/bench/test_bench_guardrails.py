"""bench.guardrails' scoring of findings on the PII corpus, and its command line's refusals."""

from __future__ import annotations

import sys

import pytest

from bench.pii_corpus.scoring import false_positives, family, misses, score

TEXT = "Maria Wójcik paid with 4111 1111 1111 1111 on order ORD-2024-000123 from Kraków."
CASE = {
    "id": "t-0", "split": "test", "context": "sentence-en", "text": TEXT,
    "entities": [
        {"type": "PERSON", "start": 0, "end": 12, "value": "Maria Wójcik", "subtype": "person:PL:first-last"},
        {"type": "CREDIT_CARD", "start": 23, "end": 42, "value": "4111 1111 1111 1111", "subtype": "card:visa:spaced"},
        {"type": "LOCATION", "start": 73, "end": 79, "value": "Kraków", "subtype": "location:city"},
    ],
    "negatives": [{"kind": "order_id", "start": 52, "end": 67, "value": "ORD-2024-000123"}],
}  # fmt: skip


def test_offsets_of_the_hand_made_case():
    for span in CASE["entities"] + CASE["negatives"]:
        assert TEXT[span["start"] : span["end"]] == span["value"]


def test_recall_precision_and_false_positives():
    findings = [[
        ("PERSON", 0, 5, 0.85),  # overlaps the name: found, but "Wójcik" is left unmasked (not covered)
        ("CREDIT_CARD", 23, 42, 1.0),  # found and covered
        ("PHONE_NUMBER", 73, 79, 0.9),  # on the city but the wrong type: found only under "any type"
        ("US_SSN", 57, 67, 0.6),  # on the order id: a false positive on a hard negative
        ("PERSON", 43, 47, 0.3),  # below the threshold: ignored
        ("URL", 0, 79, 1.0),  # a type no gold type corresponds to: not scored
    ]]  # fmt: skip
    result = score([CASE], findings, threshold=0.5)
    assert result["entities"] == 3
    assert result["recall"] == round(2 / 3, 4)
    assert result["recall_covered"] == round(1 / 3, 4)
    assert result["recall_any_type"] == 1.0
    assert result["precision"] == 0.5  # 2 of the 4 scored findings hit a gold entity of their type
    assert result["precision_any_type"] == 0.75
    assert result["fp_rate_hard_negatives"] == 1.0
    assert result["by_type"]["PERSON"] == {"entities": 1, "recall": 1.0, "recall_covered": 0.0, "precision": 1.0,
                                           "findings": 1}  # fmt: skip
    assert result["by_type"]["LOCATION"]["recall"] == 0.0
    assert result["by_type"]["SECRET"]["recall"] is None  # no SECRET in this corpus
    assert result["recall_by_family"]["person:first-last"] == 1.0
    assert [m["value"] for m in misses([CASE], findings, 0.5)] == ["Kraków"]
    assert [(f["kind"], f["finding"]) for f in false_positives([CASE], findings, 0.5)] == [("order_id", "US_SSN")]


def test_presidio_allowances_location_for_addresses_and_date_time_for_birth_dates():
    case = {**CASE, "entities": [
        {"type": "STREET_ADDRESS", "start": 0, "end": 12, "value": "Maria Wójcik", "subtype": "address:en_US"},
        {"type": "DATE_OF_BIRTH", "start": 23, "end": 42, "value": "4111 1111 1111 1111", "subtype": "dob:%Y"},
    ], "negatives": []}  # fmt: skip
    result = score([case], [[("LOCATION", 0, 12, 0.85), ("DATE_TIME", 23, 42, 0.85)]], threshold=0.0)
    assert result["recall"] == 1.0 and result["precision"] == 1.0
    assert result["by_type"]["DATE_OF_BIRTH"]["findings"] == 1


def test_family_drops_the_country():
    assert family("phone:FR:MOBILE:NATIONAL") == "phone:NATIONAL"
    assert family("person:PL:first-last:lower") == "person:first-last:lower"
    assert family("card:amex:spaced") == "card:amex"
    assert family("iban:DE:print") == "iban:print"


@pytest.mark.parametrize(
    ("argv", "message"),
    [(["--misses", "/tmp/never-written.txt"], "dev-side corpora only"), (["--repeat", "0"], "at least 1"),
     (["--split", "train"], "invalid choice")],
)  # fmt: skip
def test_bad_arguments_are_usage_errors_before_anything_loads(argv, message, monkeypatch, capsys):
    from bench import guardrails

    monkeypatch.setattr(sys, "argv", ["bench.guardrails", *argv])
    with pytest.raises(SystemExit) as exit_info:
        guardrails.main()
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err
