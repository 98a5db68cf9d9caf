"""PERSON from family names' and patronymics' endings (surnames): names no list holds, in prose, records, PDF text
broken across lines, and call transcripts typed in lower case."""

import pytest

from gateway.guardrails import PiiAnalyzer
from gateway.guardrails.findings import Finding
from gateway.guardrails.surnames import has_surname_ending, suffixed_names


def people(analyzer: PiiAnalyzer, text: str) -> list[str]:
    return [text[f.start : f.end] for f in analyzer.analyze(text) if f.entity_type == "PERSON" and f.score >= 0.5]


@pytest.mark.parametrize(
    "word", ["Tadevosyan", "Hakobyants", "Zhukova", "Andrusenko", "Tkachuk", "Papadopoulou", "Gelashvili",
             "Arkhipovich", "Ivanovna", "Tocheva-Klopova", "Kazlauskienė", "Ríósdóttir", "Konradsson"]
)  # fmt: skip
def test_family_name_endings(word: str) -> None:
    assert has_surname_ending(word)


@pytest.mark.parametrize("word", ["Nova", "Kiev", "Brian", "Lahoda", "Prague", "Person"])
def test_short_stems_and_other_endings_are_not_family_names(word: str) -> None:
    assert not has_surname_ending(word)


@pytest.mark.parametrize(
    ("text", "person"),
    [
        ("Please ring Nairi Ghukasyan back about the claim.", "Nairi Ghukasyan"),
        ("Approved by Zlatomira Dobreva after review.", "Zlatomira Dobreva"),
        ("Nr.;Név;Összeg\n450;Svitozar Hnatiuk;1623,45", "Svitozar Hnatiuk"),  # a CSV cell, no words around it
        ("Sent on behalf of Arpine\nVardanyan. Ref. A-36", "Arpine\nVardanyan"),  # a PDF's line break in the name
        ("Belov Yermolai Prokhorovich will cover the shift.", "Belov Yermolai Prokhorovich"),  # family name first
        ("caller: the account is under gusev leonid prokhorovich", "gusev leonid prokhorovich"),
        ("caller: my name is olena tkachenko thats right\nagent: Thank you", "olena tkachenko"),
    ],
)
def test_names_holding_a_family_names_ending_are_people(analyzer: PiiAnalyzer, text: str, person: str) -> None:
    assert person in people(analyzer, text)


@pytest.mark.parametrize(
    "text",
    [
        "We flew from Rostov Veliky to Moscow on Monday.",  # a place the gazetteer knows
        "The Kremlin Palace opens at nine.",  # an English word in the run
        "Visit Moldova Today for the offer.",  # a place alone, and no first name
        "mean stdev and numpy stdev were logged",  # lower case: no first name and no patronymic
        "caller: the account is under improv theatre",
    ],
)
def test_endings_without_a_name_around_them_are_no_people(text: str) -> None:
    assert suffixed_names(text, frozenset({"the", "and", "were", "we", "from", "to", "on", "for", "is", "under"}),
                          frozenset({"kremlin", "palace", "visit", "today", "offer", "mean", "improv", "theatre",
                                     "account", "caller", "logged", "flew", "opens", "nine", "monday"}),
                          []) == []  # fmt: skip


def test_a_place_inside_a_run_opened_by_a_first_name_does_not_block_it() -> None:
    text = "Sent on behalf of Ruben Tadevosyan today."
    ruben = Finding("LOCATION", text.index("Ruben"), text.index("Ruben") + 5, 0.85, "spacy_ner")
    found = suffixed_names(text, frozenset({"on", "of"}), frozenset({"sent", "behalf", "today"}), [ruben])
    assert [text[f.start : f.end] for f in found] == ["Ruben Tadevosyan"]


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("the account is under pestov leonid bronislavovich", "pestov leonid bronislavovich"),
        ("the account is under leonid bronislavovıch", "leonid bronislavovıch"),  # "ı" is "i" to a case-blind re
        ("caller: pestov leonid bronislavovich, thats it", "pestov leonid bronislavovich"),  # then a comma
    ],
)
def test_lower_case_names_past_the_text_gate(text: str, name: str) -> None:
    found = suffixed_names(text, frozenset({"the", "is", "under", "it"}), frozenset({"account", "caller"}), [])
    assert [text[f.start : f.end] for f in found] == [name]


def test_a_text_with_no_word_so_ending_is_not_read_run_by_run() -> None:
    from gateway.guardrails import surnames

    assert not surnames._may_hold_surname('{"key": "value", "level": "info", "Smith": 1}')
    assert surnames._may_hold_surname("under pestov leonid")
    assert surnames._may_hold_surname("Rogov")  # a stem of three letters, its capital among them
    assert surnames._may_hold_surname("Ruben Tadevosyan")
