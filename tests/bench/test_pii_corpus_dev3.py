"""The third dev-side PII corpus (``bench.pii_corpus.dev_third``, ``--split dev-3``): reproducible, dev values only,
offsets exact, and made of what it promises (names of under-represented countries, small cities, counties and
exonyms, new date-of-birth shapes, tickets and e-mail threads)."""

from __future__ import annotations

import datetime as dt
import re
from collections import Counter

import pytest

from bench.pii_corpus import dev_third, generate
from bench.pii_corpus.dev_third import ENTITIES_PER_TYPE, generate_third_dev
from bench.pii_corpus.generator import ENTITY_TYPES
from bench.pii_corpus.partition import split_of
from bench.pii_corpus.person_names import in_split as name_in_split
from bench.pii_corpus.world_names import COUNTRIES, world_names


@pytest.fixture(scope="module")
def cases() -> list[dict]:
    return [dict(case) for case in generate_third_dev()]


def values(cases: list[dict], entity_type: str) -> list[dict]:
    return [e for case in cases for e in case["entities"] if e["type"] == entity_type]


def test_same_corpus_every_time_and_apart_from_dev(cases):
    assert [dict(case) for case in generate_third_dev()] == cases
    assert all(case["id"].startswith("dev-3-") and case["split"] == "dev" for case in cases)
    dev_texts = {case["text"] for case in generate("dev")}
    assert not dev_texts & {case["text"] for case in cases}


def test_quota_offsets_and_contexts(cases):
    counts = Counter(e["type"] for case in cases for e in case["entities"])
    assert all(counts[t] >= ENTITIES_PER_TYPE for t in ENTITY_TYPES)
    for case in cases:
        for span in (*case["entities"], *case["negatives"]):
            assert case["text"][span["start"] : span["end"]] == span["value"]
    contexts = {case["context"] for case in cases}
    assert {"ticket-en", "email-thread-en", "email-thread-fr", "transcript", "chat-lower"} <= contexts


def test_every_value_is_of_the_dev_half(cases):
    for entity in values(cases, "PERSON"):
        name = entity["value"].replace(",", "")
        assert name_in_split(name.title() if name.islower() else name, "dev"), entity
    for entity_type in ("LOCATION", "DATE_OF_BIRTH"):
        assert all(split_of(e["value"]) == "dev" for e in values(cases, entity_type)), entity_type


def test_people_come_from_the_countries_it_names(cases):
    origins = Counter(e["subtype"].split(":")[1] for e in values(cases, "PERSON"))
    countries = {country for group in COUNTRIES.values() for country in group}
    assert set(origins) <= countries | set(dev_third.FAKER_LOCALES)
    assert len(set(origins) & countries) >= 25
    names = world_names().names
    assert all(names["last"][country] for country in countries)  # the snapshot holds each country


def test_places_and_dates_of_birth_are_of_the_new_kinds(cases):
    kinds = Counter(e["subtype"].split(":")[1] for e in values(cases, "LOCATION"))
    assert {"small-city", "exonym", "us-county"} <= set(kinds)
    forms = Counter(e["subtype"] for e in values(cases, "DATE_OF_BIRTH"))
    assert {"dob:en:iso-time-z", "dob:en:yyyymmdd", "dob:de:dd.mm.yy", "dob:es:d-de-month-del-y"} <= set(forms)
    for entity in values(cases, "DATE_OF_BIRTH"):
        if entity["subtype"] == "dob:en:yyyymmdd":
            dt.datetime.strptime(entity["value"], "%Y%m%d")  # a real date
        if entity["subtype"].endswith(("dd.mm.yy", "dd/mm/yy", "m/d/yy")):
            assert re.fullmatch(r"\d\d[./]\d\d[./]\d\d", entity["value"])
