"""A given name alone as a clause's subject, right before its verb (``people.subject_names``), and the places read on
the same word that give way to it (``recurring_names``)."""

from __future__ import annotations

import pytest

from gateway.guardrails import PiiAnalyzer
from gateway.guardrails.findings import Finding
from gateway.guardrails.people import subject_names
from gateway.guardrails.recurring_names import with_recurring_names

_COMMON = frozenset({"review", "deploy", "games", "site", "build", "rose"})


def subjects(text: str, taken: list[Finding] | None = None) -> list[str]:
    return [text[f.start : f.end] for f in subject_names(text, _COMMON, taken or [])]


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("We will review this after the holiday.\n\nPrakosa rolled back the deploy at 14:19.", "Prakosa"),
        ("Done.\nСања rolled back the deploy at 14:19.", "Сања"),
        ("Done.\n\nΤιμολέων rolled back the deploy at 14:19.", "Τιμολέων"),
        ("I saw her today; Abiye reports better sleep since the dose change.", "Abiye"),
        ("Kamil will read at the assembly.", "Kamil"),
        ("Llegamos a Lisse para comer. Benjamín conducía.", "Benjamín"),
        ("De Valongo apanhámos o comboio. A Bianca esperava-nos na estação.", "Bianca"),
        ("Gestern Abend kam der Anruf. Jürgen hatte alles vorbereitet.", "Jürgen"),  # a German irregular past
        ("Anouk heeft gisteren de klant gebeld.", "Anouk"),  # a Dutch auxiliary
        ("Danach war es still. Jürgen wartete am Bahnhof.", "Jürgen"),  # a German weak past
    ],
)  # fmt: skip
def test_a_given_name_before_its_clause_verb(text: str, name: str) -> None:
    assert subjects(text) == [name]


def test_a_conjunction_opens_a_clause() -> None:
    assert subjects("Amado conducía, y Isidora iba durmiendo.") == ["Amado", "Isidora"]


def test_a_word_of_a_person_found_is_that_person_before_a_verb() -> None:
    text = "Sathvik Handa said the talks went well. Handa told reporters she would not run."
    taken = [Finding("PERSON", 0, 13, 0.85, "spacy_ner")]
    assert subjects(text, taken) == ["Handa"]
    assert subjects(text) == []  # 'Handa' is a town the gazetteer knows: alone, no person


@pytest.mark.parametrize(
    "text",
    [
        "Paris hosted the games.",  # a place, in the NER's vocabulary
        "Jenkins failed the build.",  # a tool named as a surname is, no first name
        "Kafka consumers lagged.",  # no verb
        "A Mercedes rolled down the hill.",  # an article before an English verb: a thing
        "Sofia announced a new tram line.",  # the gazetteer's capital, in the vocabulary
        "Prakosa rolling back the deploy.",  # a gerund is no finite verb
        "The deploy rolled back.",  # a stop word
        "[17:42] customer: Config had a token committed.",  # a word cut short ('configuration')
        "Thanks for the note.\n\nKindest regards,\nThe Events Team",  # an adjective's superlative
        "Minutes. P. Pereira presented the figures.",  # an initial's period ends no sentence
        "Telefonisch unter 06 12 24 00 27. Geboren am 21.10.1954.",  # 'am': a German stop word, no English verb
        "Zimny interes wszyscy za wierzyć płyn zatoka.",  # '-es' off a stem no sibilant ends: no English verb
        "Done. Rose era la prima.",  # a Romance verb after an English dictionary word ('rose')
        "Done. Rose hatte recht.",  # a German verb after an English dictionary word ('rose')
        "Ciao. Anna grande amica.",  # a Romance adjective's '-nde' is no German past
        "Bitte leite das an Arben weiter.",  # a German imperative's '-te'
    ],
)
def test_no_subject(text: str) -> None:
    assert subjects(text) == []


def test_places_on_the_subjects_word_give_way() -> None:
    text = "I reviewed Abiye today; Abiye reports better sleep."
    first, second = text.index("Abiye"), text.rindex("Abiye")
    place = Finding("LOCATION", first, first + 5, 0.85, "spacy_ner")
    subject = Finding("PERSON", second, second + 5, 0.6, "subject_names")
    result = with_recurring_names(text, [place, subject])
    assert place not in result
    assert sorted((f.entity_type, f.start) for f in result) == [("PERSON", first), ("PERSON", second)]


def test_a_cued_place_stays() -> None:
    text = "We flew to Handa. Handa told reporters she would not run."
    first = text.index("Handa")
    place = Finding("LOCATION", first, first + 5, 0.75, "PlaceRecognizer")  # a location word before it
    subject = Finding("PERSON", text.rindex("Handa"), text.rindex("Handa") + 5, 0.6, "subject_names")
    assert place in with_recurring_names(text, [place, subject])


def test_the_analyzer_reads_subjects(analyzer: PiiAnalyzer) -> None:
    text = "I reviewed Abiye today; Abiye reports better sleep since the dose change."
    found = [(f.entity_type, text[f.start : f.end]) for f in analyzer.analyze(text, ner_enabled=True) if f.score >= 0.5]
    assert found.count(("PERSON", "Abiye")) == 2
    assert ("LOCATION", "Abiye") not in found
