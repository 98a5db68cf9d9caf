"""The fourth dev-side PII corpus (``bench.pii_corpus.dev_fourth``, ``--split dev-4``): reproducible, dev values only,
offsets exact, and made of what it promises (lists of names, family-name-first orders, keys that do not name the
type, small towns, new date-of-birth forms beside other dates that are hard negatives)."""

from __future__ import annotations

from collections import Counter

import pytest

from bench.pii_corpus import dev_fourth, generate
from bench.pii_corpus.dev_fourth import ENTITIES_PER_TYPE, generate_fourth_dev
from bench.pii_corpus.generator import ENTITY_TYPES
from bench.pii_corpus.partition import split_of
from bench.pii_corpus.person_names import in_split as name_in_split

PARTICLES = {"van", "von", "de", "da", "del", "der", "den", "di", "du", "dos", "das", "la", "le", "ter", "y"}


@pytest.fixture(scope="module")
def cases() -> list[dict]:
    return [dict(case) for case in generate_fourth_dev()]


def values(cases: list[dict], entity_type: str) -> list[dict]:
    return [e for case in cases for e in case["entities"] if e["type"] == entity_type]


def test_same_corpus_every_time_and_apart_from_dev(cases):
    assert [dict(case) for case in generate_fourth_dev()] == cases
    assert all(case["id"].startswith("dev-4-") and case["split"] == "dev" for case in cases)
    assert not {case["text"] for case in generate("dev")} & {case["text"] for case in cases}


def test_quota_offsets_and_contexts(cases):
    counts = Counter(e["type"] for case in cases for e in case["entities"])
    assert all(counts[t] >= ENTITIES_PER_TYPE for t in ENTITY_TYPES)
    for case in cases:
        for span in (*case["entities"], *case["negatives"]):
            assert case["text"][span["start"] : span["end"]] == span["value"]
    contexts = {case["context"] for case in cases}
    assert {"attendees-en", "mail-headers", "greeting-es", "json-keys", "csv-semicolon", "chat-lower-caps"} <= contexts


def test_every_value_is_of_the_dev_half(cases):
    for entity in values(cases, "PERSON"):
        words = entity["value"].replace(",", "").replace(".", "").split()
        if entity["value"].islower():  # chat: the capitalised words decide the split; particles ("van") do not
            words = [word.title() if word not in PARTICLES else word for word in words]
        # An upper-case family name ("DUPONT Marie") decides its split as the name is written in title case.
        name = " ".join(word.title() if word.isupper() and len(word) > 1 else word for word in words)
        assert name_in_split(name, "dev"), entity
    for entity_type in ("LOCATION", "DATE_OF_BIRTH"):
        assert all(split_of(e["value"]) == "dev" for e in values(cases, entity_type)), entity_type


def test_lists_name_several_people_and_dates_sit_beside_other_dates(cases):
    listed = [case for case in cases if case["context"].startswith(("attendees", "mail-headers", "greeting"))]
    assert sum(len([e for e in case["entities"] if e["type"] == "PERSON"]) >= 2 for case in listed) >= 60
    kinds = Counter(e["subtype"].split(":")[-1] for e in values(cases, "PERSON"))
    assert {"family-first", "upper-family-first", "last-comma-first", "initial-last", "first-only"} <= set(kinds)
    assert Counter(e["subtype"] for e in values(cases, "LOCATION"))["location:town"] >= 80
    other_dates = [n for case in cases for n in case["negatives"] if n["kind"] == "other_date"]
    assert len(other_dates) >= 200
    born = [case for case in cases if values([case], "DATE_OF_BIRTH") and any(
        n["kind"] == "other_date" for n in case["negatives"])]  # fmt: skip
    assert len(born) >= 50
    assert set(dev_fourth.KEYS) == {"PERSON", "LOCATION", "DATE_OF_BIRTH"}
