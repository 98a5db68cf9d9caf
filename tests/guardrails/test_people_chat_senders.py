"""Chat senders saved as a relation, a role or a contact's kind in a language with no dictionary here (Swahili SMS
threads: "Mimi", "Ofisi", "Benki") are no people; a sender with a name stays one."""

from __future__ import annotations

import pytest

from gateway.guardrails import PiiAnalyzer


def people(analyzer: PiiAnalyzer, text: str) -> list[str]:
    return [text[f.start : f.end] for f in analyzer.analyze(text, ner_enabled=True) if f.entity_type == "PERSON"]


@pytest.mark.parametrize(
    "sender",
    ["Mimi", "Ofisi", "Benki", "Kaka", "Dada", "Baba", "Mke", "Jirani", "Bank", "Banque", "Banco"],
)
def test_a_sender_saved_as_a_relation_or_a_contact_kind_is_no_person(analyzer: PiiAnalyzer, sender: str) -> None:
    text = f"[02/04/2026 20:55] {sender}: nimefika salama\n[02/04/2026 21:02] Mama: sawa\n"
    assert people(analyzer, text) == []


def test_a_sender_with_a_name_stays_a_person(analyzer: PiiAnalyzer) -> None:
    text = "[02/04/2026 20:55] Benki: salio lako\n[02/04/2026 21:02] Wanjiru Kamau: asante sana\n"
    assert people(analyzer, text) == ["Wanjiru Kamau"]


@pytest.mark.parametrize(
    ("text", "street"),
    [
        ("RESIDENCE_ADDR=Rua Amílcar Cabral, Prédio 1, 1.º andar", "Amílcar Cabral"),
        ('residence_addr = "Rua Garrett, n.º 37, 1.º Dto."', "Garrett"),
        ("Home visit at Avenida Deolinda Rodrigues, n.º 22.", "Deolinda Rodrigues"),
        ("Parcel redirected to Rruga Sami Frashëri, Pallati 53, Shk. 6.", "Sami Frashëri"),
        ("home visit at Plot 229, Mtaa wa Kenyatta", "Kenyatta"),
    ],
)
def test_a_street_named_after_a_person_is_no_person(analyzer: PiiAnalyzer, text: str, street: str) -> None:
    assert not any(street in found or found in street for found in people(analyzer, text))


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Ronda Rousey signed the form", "Ronda Rousey"),  # a street type that is a first name too
        ("sent via Maria Rossi yesterday", "Maria Rossi"),  # "via" is an English word
        ("Rua street sign; Dear Ana Lima, thanks", "Ana Lima"),
    ],
)
def test_a_name_after_a_word_that_is_no_street_type_stays(analyzer: PiiAnalyzer, text: str, name: str) -> None:
    assert name in people(analyzer, text)


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Subject: Re: your application\nDate: Fri, 16 Jan 2026 20:33:00 +0000\nMessage-ID: <0fc7@x>", None),
        ("ordered a Rio Declaration", None),  # a declaration named after its place
        ("like the Catalan Opening", None),  # a chess opening
        ("prescribed per the Bessemer process", None),  # an industrial process named after its inventor
        ("Jan Kowalski signed on 16 Jan 2026", "Jan Kowalski"),  # the name stays; the month is no person
    ],
)
def test_a_month_in_a_date_or_a_named_thing_is_no_person(analyzer: PiiAnalyzer, text: str, name: str | None) -> None:
    assert people(analyzer, text) == ([name] if name else [])


@pytest.mark.parametrize(
    ("sender", "message"),
    [
        ("Biuro", "rozmawiałem z nim wczoraj"),  # Polish 'office'
        ("Anya", "hívj fel este"),  # Hungarian 'mother'
        ("Ibu", "transfer ke rekening besok"),  # Indonesian 'mother'
        ("Toimisto", "soita huomenna"),  # Finnish 'office'
        ("Máma", "zavolej mi večer"),  # Czech 'mum'
    ],
)
def test_a_telegram_exports_sender_saved_as_a_relation_is_no_person(analyzer, sender: str, message: str) -> None:
    text = f"{sender}, [09.05.2026 15:30]\n{message}\n\n{sender}, [09.05.2026 16:49]\nok\n"
    assert not any(f.entity_type == "PERSON" and text[f.start : f.end] == sender
                   for f in analyzer.analyze(text, ner_enabled=True) if f.score >= 0.5)  # fmt: skip


def test_a_telegram_sender_with_a_name_stays_a_person(analyzer) -> None:
    text = "Katarzyna Nowak, [09.05.2026 15:30]\nrozmawiałem z nim wczoraj\n"
    assert any(f.entity_type == "PERSON" and "Katarzyna" in text[f.start : f.end]
               for f in analyzer.analyze(text, ner_enabled=True) if f.score >= 0.5)  # fmt: skip
