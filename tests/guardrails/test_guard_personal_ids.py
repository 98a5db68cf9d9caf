"""Personal identity numbers of every stdnum scheme, found next to a label that names them."""

from __future__ import annotations

import json

import pytest

from gateway.guardrails import PiiAnalyzer
from gateway.guardrails.findings import Finding
from gateway.guardrails.personal_id_schemes import (
    SNAPSHOT,
    build_snapshot,
    is_personal,
    labels_of,
    personal_id_schemes,
)
from gateway.guardrails.personal_ids import (
    RECOGNIZER_NAME,
    PersonalIdRecognizer,
    may_hold_personal_id,
    without_phones_in_labelled_ids,
)


def _found(text: str) -> list[str]:
    return [text[r.start : r.end] for r in PersonalIdRecognizer().analyze(text, ["NATIONAL_ID"])]


def test_the_snapshot_is_what_stdnum_holds() -> None:
    assert build_snapshot() == json.loads(SNAPSHOT.read_text(encoding="utf-8"))


def test_the_selection_holds_personal_numbers_and_no_company_or_us_ssn() -> None:
    modules = {module for module, _ in personal_id_schemes()}
    assert {"ro.cnp", "bg.egn", "ee.ik", "lt.asmens", "cl.rut", "gr.amka", "ca.sin", "no.fodselsnummer",
            "se.personnummer", "pl.pesel", "kr.rrn"} <= modules  # fmt: skip
    assert modules.isdisjoint({"us.ssn", "us.ein", "fr.siren", "no.orgnr", "cr.cpj", "nl.brin", "sm.coe", "de.stnr"})


@pytest.mark.parametrize(
    ("title", "personal"),
    [
        ("Isikukood (Estonian Personal ID number).", True),
        ("RUT (Rol Único Tributario, Chilean national tax number).", True),
        ("SIN (Canadian Social Insurance Number).", True),
        ("NIPT, NUIS (Numri i Identifikimit për Personin e Tatueshëm, Albanian tax number).", False),
        ("EIN (U.S. Employer Identification Number).", False),
        ("COE (Codice operatore economico, San Marino national tax number).", False),
    ],
)
def test_a_number_is_personal_by_its_title(title: str, personal: bool) -> None:
    assert is_personal(title) is personal


def test_labels_are_the_names_before_and_inside_the_parenthesis_but_the_description() -> None:
    assert labels_of("EGN (ЕГН, Единен граждански номер, Bulgarian personal identity codes).") == [
        "EGN", "ЕГН", "Единен граждански номер"]  # fmt: skip
    assert labels_of("Asmens kodas (Lithuanian, personal numbers).") == ["Asmens kodas"]
    assert labels_of("RIC No. (Chinese Resident Identity Card Number).") == ["RIC"]
    assert labels_of("CC (Número de Cartão de Cidadão, Portuguese Identity number).") == ["Número de Cartão de Cidadão"]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("CNP: 1800101221144", "1800101221144"),
        ("ЕГН 7523169263, издадена", "7523169263"),
        ("Isikukood 37605030299.", "37605030299"),
        ("asmens kodas 33309240064", "33309240064"),
        ("RUT del cliente: 12.345.678-5", "12.345.678-5"),
        ("AMKA: 01013099997", "01013099997"),
        ("SIN 123-456-782 on file", "123-456-782"),
        ("1800101221144 (CNP)", "1800101221144"),
        ('{"personal_code": "37605030299"}', "37605030299"),
        ("Social Insurance Number: 123 456 782", "123 456 782"),
    ],
)
def test_a_valid_number_next_to_its_name_or_an_identity_label_is_found(text: str, value: str) -> None:
    assert _found(text) == [value]


@pytest.mark.parametrize(
    "text",
    [
        "call me at 7523169263",  # a valid EGN, but no label
        "order 12.345.678-5 shipped",  # a valid RUT, but no label
        "CNP: 1800101221145",  # check digit wrong
        "sin 123-456-782",  # Spanish "sin": an acronym is read as written
        "EGN\n\n\n7523169263",  # the label is on another line
        "EGN is the code; the tracking number given in the courier's reply was 7523169263",  # too far before
        "personal_id='Y1223203P' cc_number='1800101221144'",  # another value between: the label names that one
        "identification number we have, card number: 1800101221144",  # four words between
        "social security number 072 61 4933",  # a US SSN as written (US_SSN's), under a shared label
    ],
)
def test_no_label_or_no_valid_number_is_no_finding(text: str) -> None:
    assert _found(text) == []


def test_an_own_name_asks_only_its_own_scheme() -> None:
    # 123-456-782 is a valid Canadian SIN, no valid Romanian CNP: under "CNP" it is not found.
    assert _found("CNP 123-456-782") == []


def test_a_czech_birth_number_of_nine_digits_is_judged_by_its_year_not_by_its_length_alone() -> None:
    # nine digits are too short for a birth number of 1954 on, and no more than right before
    assert _found("Rodné číslo 540101123") == []
    assert _found("Rodné číslo 530101123") == ["530101123"]


def test_a_length_one_scheme_rejects_is_not_asked_again_and_the_answers_hold() -> None:
    text = "CNP 180010122114, CNP 1800101221145, CNP 1800101221144, CNP 180010122114"  # 12 digits: too short
    assert _found(text) == ["1800101221144"]


def test_the_prefilter_asks_for_digits_and_a_label() -> None:
    assert may_hold_personal_id("CNP 1800101221144")
    assert not may_hold_personal_id("CNP on file")
    assert not may_hold_personal_id("call 1800101221144")


def test_a_phone_number_over_a_labelled_identity_number_is_dropped_and_others_kept() -> None:
    labelled = Finding("NATIONAL_ID", 5, 15, 0.9, RECOGNIZER_NAME)
    same_digits = Finding("PHONE_NUMBER", 5, 15, 0.6, "PhoneNumberRecognizer")
    elsewhere = Finding("PHONE_NUMBER", 30, 40, 0.6, "PhoneNumberRecognizer")
    shaped_id = Finding("NATIONAL_ID", 50, 61, 0.4, "NationalIdRecognizer")
    on_shaped_id = Finding("PHONE_NUMBER", 50, 61, 0.6, "PhoneNumberRecognizer")
    findings = [labelled, same_digits, elsewhere, shaped_id, on_shaped_id]
    assert without_phones_in_labelled_ids(findings) == [labelled, elsewhere, shaped_id, on_shaped_id]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Cod Numeric Personal (CNP): 1800101221144, tel. 0721 234 567", "1800101221144"),
        ("ЕГН на клиента: 7523169263", "7523169263"),
        ("Customer SIN 123 456 782 verified", "123 456 782"),
    ],
)
def test_the_analyzer_reports_a_labelled_number_as_a_national_id_and_no_phone(
    analyzer: PiiAnalyzer, text: str, value: str
) -> None:
    findings = analyzer.analyze(text, ner_enabled=False)
    start = text.index(value)
    assert any(f.entity_type == "NATIONAL_ID" and (f.start, f.end) == (start, start + len(value)) for f in findings)
    assert not any(f.entity_type == "PHONE_NUMBER" and f.start < start + len(value) and start < f.end for f in findings)


def test_of_two_national_ids_on_one_span_one_is_kept() -> None:
    labelled = Finding("NATIONAL_ID", 5, 16, 0.85, RECOGNIZER_NAME)
    shaped_tie = Finding("NATIONAL_ID", 5, 16, 0.85, "NationalIdRecognizer")
    shaped_low = Finding("NATIONAL_ID", 5, 16, 0.4, "NationalIdRecognizer")
    assert without_phones_in_labelled_ids([labelled, shaped_tie]) == [shaped_tie]
    assert without_phones_in_labelled_ids([shaped_low, labelled]) == [labelled]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("henkilötunnus 150305A217C", "150305A217C"),  # born 2005: HETU's century sign A
        ("HETU: 290204A033D, kiitos", "290204A033D"),
        ("personnummer 811228+9874", "811228+9874"),  # a Swedish holder past a hundred: '+'
    ],
)
def test_a_number_with_a_century_sign_is_found(text: str, value: str) -> None:
    assert _found(text) == [value]


@pytest.mark.parametrize("text", ["build 150305A217D done", "henkilötunnus 150305A217D", "ref 811228+9875",
                                  "release 150305A2170 of the firmware"])
def test_a_century_signed_shape_that_fails_its_check_or_has_no_label_is_no_finding(text: str) -> None:
    assert _found(text) == []
