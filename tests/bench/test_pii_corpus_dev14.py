"""The fourteenth dev-side PII corpus (``bench.pii_corpus.dev_fourteenth``, ``--split dev-14``): reproducible (in any
process), dev values only, offsets exact, every text Faker's lorem sentences of its locale with one value spliced in
at a word boundary (people and places half opening a sentence, half between two words, with no cue), birth dates
only after a passport's caption, and its hard negatives."""

from __future__ import annotations

import re
from collections import Counter

import pytest
from pii_corpus_support import (
    assert_reproducible_and_apart_from_dev,
    assert_spans_exact_and_apart,
    printed_by_a_process,
    values,
)

from bench.pii_corpus import dev_fourteenth
from bench.pii_corpus.dev_fourteenth import BIRTH_CAPTIONS, ENTITIES_PER_TYPE, LOCALES, generate_fourteenth_dev
from bench.pii_corpus.partition import split_of


@pytest.fixture(scope="module")
def cases() -> list[dict]:
    return [dict(case) for case in generate_fourteenth_dev()]


def test_same_corpus_every_time_other_seed_other_corpus_and_apart_from_dev(cases):
    assert_reproducible_and_apart_from_dev(generate_fourteenth_dev, f"{dev_fourteenth.NAME}-", cases)


def test_same_corpus_in_processes_of_other_hash_seeds():
    code = "from bench.pii_corpus.dev_fourteenth import generate_fourteenth_dev as g; print(g(entities_per_type=40))"
    assert printed_by_a_process(code, "1") == printed_by_a_process(code, "2")


def test_quotas_offsets_and_locales(cases):
    counts = Counter(e["type"] for case in cases for e in case["entities"])
    assert counts == {"PERSON": ENTITIES_PER_TYPE, "LOCATION": ENTITIES_PER_TYPE, "DATE_OF_BIRTH": ENTITIES_PER_TYPE,
                      "PHONE_NUMBER": ENTITIES_PER_TYPE // 4, "EMAIL_ADDRESS": ENTITIES_PER_TYPE // 4}  # fmt: skip
    assert sum(not case["entities"] for case in cases) == ENTITIES_PER_TYPE // 2
    assert_spans_exact_and_apart(cases, gap=1)
    assert {case["context"] for case in cases} == {f"lorem-{locale}" for locale in LOCALES}


def test_the_bench_reads_it_as_its_split(cases):
    from bench import guardrails

    assert guardrails.load_corpus(dev_fourteenth.NAME) == cases


def test_values_are_of_the_dev_half(cases):
    for entity_type in ("PERSON", "LOCATION", "DATE_OF_BIRTH", "PHONE_NUMBER", "EMAIL_ADDRESS"):
        assert all(split_of(e["value"]) == "dev" for e in values(cases, entity_type))


def _opens_a_sentence(text: str, start: int) -> bool:
    return start == 0 or text[:start].endswith(". ")


def test_people_and_places_half_open_a_sentence_half_mid_sentence_with_no_cue(cases):
    for entity_type in ("PERSON", "LOCATION"):
        positions = Counter()
        for case in cases:
            for entity in (e for e in case["entities"] if e["type"] == entity_type):
                position = entity["subtype"].split(":")[-1]
                positions[position] += 1
                before, after = case["text"][: entity["start"]], case["text"][entity["end"] :]
                assert _opens_a_sentence(case["text"], entity["start"]) == (position == "start"), entity
                assert after.startswith(" ") and re.match(r" \w", after), (case["text"], entity)
                if position == "mid":  # between two lorem words
                    assert re.search(r"\w ", before[-2:]), (case["text"], entity)
        assert positions["start"] == positions["mid"] == ENTITIES_PER_TYPE // 2, positions


def test_births_follow_their_locales_passport_caption_and_nothing_else_has_one(cases):
    captions = set(BIRTH_CAPTIONS.values())
    for case in cases:
        locale = case["context"].removeprefix("lorem-")
        births = [e for e in case["entities"] if e["type"] == "DATE_OF_BIRTH"]
        # (German lorem holds the word 'Geburtstag' itself: a caption is the one before a colon)
        assert sum(len(re.findall(re.escape(caption) + " ?:", case["text"])) for caption in captions) == len(births)
        for entity in births:
            assert entity["subtype"].endswith(locale)
            assert re.search(re.escape(BIRTH_CAPTIONS[locale]) + " ?: $", case["text"][: entity["start"]])


def test_hard_negatives(cases):
    negatives = [n for case in cases for n in case["negatives"]]
    kinds = Counter(n["kind"] for n in negatives)
    assert all(kinds[kind] >= 50 for kind in dev_fourteenth.DECOY_KINDS), kinds
    assert all(n["value"][0].isupper() and n["value"][1:].islower() for n in negatives
               if n["kind"] == "capitalised_word")  # fmt: skip
    assert all(n["value"].isdigit() for n in negatives if n["kind"] == "number")
    assert not {n["value"] for n in negatives if n["kind"] == "other_date"} & {
        e["value"] for e in values(cases, "DATE_OF_BIRTH")
    }
