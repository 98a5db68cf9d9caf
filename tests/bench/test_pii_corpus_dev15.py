"""The fifteenth dev-side PII corpus (``bench.pii_corpus.dev_fifteenth``, ``--split dev-15``): reproducible (in any
process), dev values only, offsets exact, every text lower-case chat of one of nine messaging genres, people,
places and birth dates a third each with a cue, a weak cue and none, some texts code-switching into French, Spanish
or German, and its hard negatives."""

from __future__ import annotations

from collections import Counter

import pytest
from pii_corpus_support import (
    assert_reproducible_and_apart_from_dev,
    assert_spans_exact_and_apart,
    printed_by_a_process,
    values,
)

from bench.pii_corpus import dev_fifteenth
from bench.pii_corpus.dev_fifteenth import CUES, ENTITIES_PER_TYPE, PLATFORMS, generate_fifteenth_dev
from bench.pii_corpus.partition import split_of
from bench.pii_corpus.person_names import OTHER_CASED_LOCALES, ROMANISED_LOCALES


@pytest.fixture(scope="module")
def cases() -> list[dict]:
    return [dict(case) for case in generate_fifteenth_dev()]


def test_same_corpus_every_time_other_seed_other_corpus_and_apart_from_dev(cases):
    assert_reproducible_and_apart_from_dev(generate_fifteenth_dev, f"{dev_fifteenth.NAME}-", cases)


def test_same_corpus_in_processes_of_other_hash_seeds():
    code = "from bench.pii_corpus.dev_fifteenth import generate_fifteenth_dev as g; print(g(entities_per_type=40))"
    assert printed_by_a_process(code, "1") == printed_by_a_process(code, "2")


def test_quotas_offsets_and_platforms(cases):
    counts = Counter(e["type"] for case in cases for e in case["entities"])
    assert counts == {"PERSON": ENTITIES_PER_TYPE, "LOCATION": ENTITIES_PER_TYPE, "DATE_OF_BIRTH": ENTITIES_PER_TYPE,
                      "PHONE_NUMBER": ENTITIES_PER_TYPE // 5, "EMAIL_ADDRESS": ENTITIES_PER_TYPE // 5}  # fmt: skip
    assert sum(not case["entities"] for case in cases) == ENTITIES_PER_TYPE // 2
    assert_spans_exact_and_apart(cases, gap=1)
    assert {case["context"] for case in cases} == {f"chat-{platform}" for platform in PLATFORMS}


def test_every_text_is_lower_case(cases):
    assert all(case["text"] == case["text"].lower() for case in cases)


def test_the_bench_reads_it_as_its_split(cases):
    from bench import guardrails

    assert guardrails.load_corpus(dev_fifteenth.NAME) == cases


def test_values_are_of_the_dev_half(cases):
    for entity_type in ("PERSON", "LOCATION", "DATE_OF_BIRTH", "PHONE_NUMBER", "EMAIL_ADDRESS"):
        assert all(split_of(e["value"]) == "dev" for e in values(cases, entity_type))


def test_cue_levels_a_third_each_and_some_lines_code_switch(cases):
    for entity_type in ("PERSON", "LOCATION", "DATE_OF_BIRTH"):
        found = values(cases, entity_type)
        cues = Counter(e["subtype"].split(":")[-2] for e in found)
        assert set(cues) == set(CUES) and max(cues.values()) - min(cues.values()) <= 1, cues
        langs = Counter(e["subtype"].split(":")[-1] for e in found)
        assert set(langs) == {"en", "fr", "es", "de"} and langs["en"] > sum(langs.values()) / 2, langs


def test_people_of_many_scripts_and_name_forms(cases):
    people = values(cases, "PERSON")
    locales = Counter(e["subtype"].split(":")[1] for e in people)
    forms = Counter(e["subtype"].split(":")[2] for e in people)
    assert len(locales) >= 30 and set(locales) & set(OTHER_CASED_LOCALES) and set(locales) & set(ROMANISED_LOCALES)
    assert forms["first-last"] > len(people) / 2 and forms["first-only"] >= 20 and forms["double-last"] >= 5
    places = Counter(e["subtype"].split(":")[1] for e in values(cases, "LOCATION"))
    assert all(places[kind] >= 30 for kind in ("city", "country", "us-state")), places


def test_hard_negatives(cases):
    negatives = [n for case in cases for n in case["negatives"]]
    kinds = Counter(n["kind"] for n in negatives)
    assert all(kinds[kind] >= 50 for kind in dev_fifteenth.DECOY_KINDS), kinds
    assert all(n["value"].isalpha() for n in negatives if n["kind"] == "name_word")
    assert not {n["value"] for n in negatives if n["kind"] == "other_date"} & {
        e["value"] for e in values(cases, "DATE_OF_BIRTH")
    }
