"""A found person's name words where they recur alone, names in capitals a text repeats, and given names listed
beside a found one (``recurring_names``)."""

from __future__ import annotations

import pytest

from gateway.guardrails import PiiAnalyzer
from gateway.guardrails.findings import Finding
from gateway.guardrails.recurring_names import with_recurring_names


def spans(analyzer: PiiAnalyzer, text: str, entity: str) -> list[str]:
    return [text[f.start : f.end] for f in analyzer.analyze(text, ner_enabled=True)
            if f.entity_type == entity and f.score >= 0.5]  # fmt: skip


def person(text: str, name: str, score: float = 0.85) -> Finding:
    start = text.index(name)
    return Finding("PERSON", start, start + len(name), score, "spacy_ner")


def added(text: str, findings: list[Finding]) -> list[str]:
    return [text[f.start : f.end] for f in with_recurring_names(text, findings) if f.source == "recurring_names"]


@pytest.mark.parametrize(
    ("text", "name", "recurring"),
    [
        ("Ida Pawlos-Citko, 33, filed a complaint. Pawlos-Citko added that the inquiry went on.",
         "Ida Pawlos-Citko", ["Pawlos-Citko"]),
        ("Present: J. Rohleder-Plath\n\n1. Rohleder-Plath's report was received and noted.",
         "J. Rohleder-Plath", ["Rohleder-Plath"]),
        ("State v. Rörricht-Hartmann\nNo. 4:23-cr-20151\n\nThe respondent, Alan RÖRRICHT-HARTMANN, appeared.",
         "Alan RÖRRICHT-HARTMANN", ["Rörricht-Hartmann"]),
    ],
)  # fmt: skip
def test_a_family_name_alone_before_or_after_the_full_name(text: str, name: str, recurring: list[str]) -> None:
    assert added(text, [person(text, name)]) == recurring


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Mr Tom Baker opened the shop. The baker said Baker would stay.", "Tom Baker"),  # written in lower case too
        ("Paris Hilton arrived. She stayed in Paris for a week.", "Paris Hilton"),  # the place found is kept
        ("Mark Hollis wrote it. Mark the date in the calendar.", "Mark Hollis"),  # a verb at a sentence's start
        ("Ana Franklin called. Send it to 45 Franklin Street.", "Ana Franklin"),  # a street's name
        ("Lisa Meyer works at Meyer GmbH now.", "Lisa Meyer"),  # a company's
        ("Anna Lopes wrote to lopes.anna@mail.example.com.", "Anna Lopes"),  # an e-mail address's words
    ],
)  # fmt: skip
def test_what_a_recurring_word_is_not(text: str, name: str) -> None:
    findings = [person(text, name)]
    if "Paris" in text:
        at = text.rindex("Paris")
        findings.append(Finding("LOCATION", at, at + 5, 0.85, "PlaceRecognizer"))
    if "@" in text:
        at = text.index("lopes.anna")
        findings.append(Finding("EMAIL_ADDRESS", at, len(text) - 1, 1.0, "EmailRecognizer"))
    assert added(text, findings) == []


def test_a_place_ner_read_on_a_recurring_family_name_yields_to_the_person() -> None:
    text = "« Nous n'étions pas prévenus », a déclaré Kati Koskinen. L'avocat de Koskinen a fait appel."
    at = text.rindex("Koskinen")
    place = Finding("LOCATION", at, at + 8, 0.85, "spacy_ner_continental")
    result = with_recurring_names(text, [person(text, "Kati Koskinen"), place])
    assert place not in result
    assert [text[f.start : f.end] for f in result if f.source == "recurring_names"] == ["Koskinen"]


@pytest.mark.parametrize(
    ("text", "pair"),
    [
        ("HOELEN, Sofia, passed away peacefully. The family of Hoelen thank the staff of the hospice.",
         "HOELEN, Sofia"),
        ("People v. Aalts\nNo. CV-2023-468890\n\nDefendant CHARLOTTE AALTS, residing in town, appeared.",
         "CHARLOTTE AALTS"),
        ("Present: S. Botticelli (chair)\n\n1. Botticelli's report was received and noted.", "S. Botticelli"),
    ],
)  # fmt: skip
def test_a_name_the_text_repeats_by_its_family_name(text: str, pair: str) -> None:
    text += "\nClerk: Maria Lopez."  # the rules read texts where a person is found
    assert pair in added(text, [person(text, "Maria Lopez")])


@pytest.mark.parametrize(
    "text",
    [
        "THIS SHARE PURCHASE AGREEMENT is made BETWEEN the parties. The Purchase Price shall be paid.",
        "Present: U.S. Army delegates. Army rules apply.",
    ],
)
def test_capitals_and_initials_that_are_no_name(text: str) -> None:
    text += "\nClerk: Maria Lopez."
    assert added(text, [person(text, "Maria Lopez")]) == []


@pytest.mark.parametrize(
    ("text", "found", "listed"),
    [
        ("Survived by the children Patryk and Elżbieta.", "Patryk", ["Elżbieta"]),
        ("In Liebe: Lawrence und Sara\nUnter dem Aktenzeichen 4.", "Lawrence", ["Sara"]),
        ("De la part de Senna, Lisa et Lucas.", "Lisa", ["Lucas", "Senna"]),
    ],
)
def test_given_names_listed_beside_a_found_one(text: str, found: str, listed: list[str]) -> None:
    assert sorted(added(text, [person(text, found)])) == sorted(listed)


def test_a_firm_of_two_given_names_is_no_list() -> None:
    text = "The product was Ben & Jerry's ice cream."
    assert added(text, [person(text, "Jerry")]) == []


@pytest.mark.parametrize(
    ("text", "family"),
    [
        ("BERLIN (dpa) – Eckehard Bolzmann (65) kündigte Widerstand an. Bolzmann kündigte weitere Schritte an.",
         "Bolzmann"),
        ("Minutes of the Board meeting\n\nPresent: M. Adler; L. Konečný\n\n1. Adler's report was received.",
         "Adler"),
    ],
)  # fmt: skip
def test_the_analyzer_reads_the_repeats(analyzer: PiiAnalyzer, text: str, family: str) -> None:
    people = [f for f in analyzer.analyze(text, ner_enabled=True) if f.entity_type == "PERSON" and f.score >= 0.5]
    first, second = text.index(family), text.rindex(family)
    for at in (first, second):
        assert any(f.start <= at and at + len(family) <= f.end for f in people)


def test_a_ner_place_inside_a_cued_person_gives_way() -> None:
    text = "I've drafted a reply to Wuraola about it."
    cued = Finding("PERSON", 24, 31, 0.7, "name_cues")
    assert with_recurring_names(text, [Finding("LOCATION", 24, 31, 0.85, "spacy_ner"), cued]) == [cued]


def test_a_gazetteer_place_stays_beside_a_cued_person() -> None:
    text = "Presso buono intorno sera dottore Carbonia seguito."
    cued = Finding("PERSON", 34, 42, 0.7, "name_cues")
    place = Finding("LOCATION", 34, 42, 0.7, "PlaceRecognizer")
    assert place in with_recurring_names(text, [cued, place])
