"""The thirteenth dev-side PII corpus (``bench.pii_corpus.dev_thirteenth``, ``--split dev-13``): reproducible (in any
process), dev values only, offsets exact, each genre written as it promises (datelines, captions, obituary heads,
death notices' ``*`` and ``†``, minutes' lists, letters' closing lines), people mentioned again by the surname, by
initials, in capitals and by the given name, AP state abbreviations and birth date styles, and the genres' hard
negatives (other dates, scores, docket numbers, ages, page references, shirt numbers)."""

from __future__ import annotations

import re
from collections import Counter

import pytest
from pii_corpus_support import DevCorpusChecks, of_context, values

from bench.pii_corpus import dev_thirteenth, thirteenth_values
from bench.pii_corpus.dev_thirteenth import ENTITIES_PER_TYPE, generate_thirteenth_dev
from bench.pii_corpus.partition import split_of


@pytest.fixture(scope="module")
def cases() -> list[dict]:
    return [dict(case) for case in generate_thirteenth_dev()]


class TestDevThirteenth(DevCorpusChecks):
    generate = staticmethod(generate_thirteenth_dev)
    name = dev_thirteenth.NAME
    contexts = dev_thirteenth.CONTEXTS_THIRTEENTH
    per_type = ENTITIES_PER_TYPE
    fresh_process_code = (
        "from bench.pii_corpus.dev_thirteenth import generate_thirteenth_dev as g; print(g(entities_per_type=40))"
    )


def _mention(entity: dict) -> str:
    """How a person is mentioned: full, surname, upper, surname-upper, surname-first, initial, given, dateline."""
    return entity["subtype"].split(":")[3] if entity["subtype"].count(":") >= 3 else "full"


def test_people_are_of_the_dev_half_and_mentioned_in_every_form(cases):
    people = values(cases, "PERSON")
    mentions = Counter(_mention(e) for e in people)
    for form in ("full", "surname", "upper", "surname-upper", "surname-first", "initial", "given"):
        assert mentions[form] >= 10, mentions
    for entity in people:
        form, value = _mention(entity), entity["value"]
        if form in ("full", "surname", "given"):
            assert split_of(value) == "dev", entity
        if form == "surname-first":
            surname, given = value.split(", ")
            assert (surname.isupper() and split_of(f"{given} {surname.title()}") == "dev") or not surname.isascii()
        elif form == "initial":
            assert re.fullmatch(r"\w\. \S+", value), entity
    assert any(re.search(r"\w-\w", e["value"]) for e in people if ":hyphenated:" in e["subtype"])


def test_a_full_mention_comes_before_the_surname_alone(cases):
    again = 0
    for case in cases:
        for entity in (e for e in case["entities"] if e["type"] == "PERSON" and _mention(e) == "surname"):
            if case["context"] == "court-record":
                continue  # the caption names the party by the surname first
            again += 1
            assert any(
                other["start"] < entity["start"] and entity["value"].casefold() in other["value"].casefold()
                for other in case["entities"]
                if other["type"] == "PERSON" and other is not entity
            )
    assert again >= 100
    possessive = sum(case["text"][e["end"] :].startswith("'s") for case in cases for e in case["entities"]
                     if e["type"] == "PERSON")  # fmt: skip
    assert possessive >= 10


def test_places_births_and_values_of_the_new_forms(cases):
    places = values(cases, "LOCATION")
    ap = [e["value"] for e in places if e["subtype"] == "location:us-ap"]
    assert len(ap) >= 30
    assert all(value.split(", ")[1] in thirteenth_values.AP_STATES.values() for value in ap)
    assert all(split_of(e["value"]) == "dev" for e in places if not e["subtype"].endswith(":dateline"))
    datelines = [(case, e) for case in cases for e in case["entities"] if e["subtype"].endswith(":dateline")]
    assert len(datelines) >= 20 and all(e["start"] == 0 and e["value"].split(",")[0].isupper() for _, e in datelines)
    styles = Counter(e["subtype"].removeprefix("dob:") for e in values(cases, "DATE_OF_BIRTH"))
    assert set(styles) == {s for styles in thirteenth_values.DATE_STYLES.values() for s in styles}
    assert all(split_of(e["value"]) == "dev" for e in values(cases, "DATE_OF_BIRTH"))


def test_the_genres_are_written_as_they_promise(cases):
    for case in of_context(cases, "court-record"):
        assert case["text"].split("\n")[0].isupper() and "\nNo. " in case["text"]
        assert case["text"].endswith("SO ORDERED.")
    for case in of_context(cases, "death-notice-de"):
        assert "† " in case["text"]
        for entity in (e for e in case["entities"] if e["type"] == "DATE_OF_BIRTH"):
            assert case["text"][: entity["start"]].endswith("* ")
    for case in of_context(cases, "death-notice-fr"):
        assert case["text"].startswith("On nous prie d'annoncer le décès") and ", survenu le " in case["text"]
    for case in of_context(cases, "minutes"):
        assert re.search(r"\nPresent: \w\. ", case["text"]), case["text"]
    for case in of_context(cases, "letter-en") + of_context(cases, "letter-de"):
        assert case["text"].startswith(("Dear ", "Sehr geehrte "))
    for name in ("news-wire-en", "news-wire-de", "news-wire-fr", "news-wire-es"):
        for case in of_context(cases, name):
            dateline = case["entities"][0]  # a report opens with its dateline: the place, the day, the agency
            assert dateline["start"] == 0 and dateline["subtype"].endswith(":dateline"), case
            assert re.match(r"(, [\w.]+ [\w.]+)? \(\w[\w ]*\) [—–-] ", case["text"][dateline["end"] :]), case


def test_hard_negatives_of_this_corpus(cases):
    negatives = [n for case in cases for n in case["negatives"]]
    kinds = Counter(n["kind"] for n in negatives)
    assert all(kinds[kind] >= 100 for kind in dev_thirteenth.EXTRA_KINDS), kinds
    births = {e["value"] for e in values(cases, "DATE_OF_BIRTH")}
    assert not {n["value"] for n in negatives if n["kind"] == "other_date"} & births
    assert all(re.fullmatch(r"\d[-–:]\d", n["value"]) for n in negatives if n["kind"] == "score")
    assert all(n["value"].isdigit() and 2 <= int(n["value"]) <= 99 for n in negatives if n["kind"] == "jersey")
