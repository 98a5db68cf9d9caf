"""The sixteenth dev-side PII corpus (``bench.pii_corpus.dev_sixteenth``, ``--split dev-16``): reproducible (in any
process), dev values only, offsets exact, birth dates in every placement of their cue and in many forms and
languages, and dates that are no birth as hard negatives."""

from __future__ import annotations

import datetime as dt
import random
from collections import Counter

import pytest
from pii_corpus_support import assert_spans_exact_and_apart, printed_by_a_process, values

from bench.pii_corpus import dev_sixteenth, generate
from bench.pii_corpus.dev_sixteenth import BIRTHS, NEGATIVE_TEXTS, PLACEMENTS, generate_sixteenth_dev
from bench.pii_corpus.partition import split_of
from bench.pii_corpus.sixteenth_dates import FORMS, written


@pytest.fixture(scope="module")
def cases() -> list[dict]:
    return [dict(case) for case in generate_sixteenth_dev()]


def test_same_corpus_every_time_other_seed_other_corpus_and_apart_from_dev(cases):
    assert generate_sixteenth_dev(20, 10, seed=7) != generate_sixteenth_dev(20, 10)
    assert [dict(case) for case in generate_sixteenth_dev()] == cases
    assert all(case["id"].startswith("dev-16-") and case["split"] == "dev" for case in cases)
    assert not {case["text"] for case in generate("dev")} & {case["text"] for case in cases}


def test_same_corpus_in_processes_of_other_hash_seeds():
    code = "from bench.pii_corpus.dev_sixteenth import generate_sixteenth_dev as g; print(g(60, 30))"
    assert printed_by_a_process(code, "1") == printed_by_a_process(code, "2")


def test_quotas_and_offsets(cases):
    assert len(cases) == BIRTHS + NEGATIVE_TEXTS
    assert len(values(cases, "DATE_OF_BIRTH")) == BIRTHS
    assert sum(not any(e["type"] == "DATE_OF_BIRTH" for e in case["entities"]) for case in cases) == NEGATIVE_TEXTS
    assert len(values(cases, "PERSON")) + len(values(cases, "PHONE_NUMBER")) >= 50
    assert_spans_exact_and_apart(cases)


def test_the_bench_reads_it_as_its_split(cases):
    from bench import guardrails

    assert guardrails.load_corpus(dev_sixteenth.NAME) == cases


def test_values_are_of_the_dev_half(cases):
    for entity_type in ("PERSON", "LOCATION", "DATE_OF_BIRTH", "PHONE_NUMBER"):
        assert all(split_of(e["value"]) == "dev" for e in values(cases, entity_type))


def test_births_in_every_placement_language_and_many_forms(cases):
    births = [e["subtype"].split(":") for e in values(cases, "DATE_OF_BIRTH")]
    placements = Counter(parts[3] for parts in births)
    assert set(placements) == set(PLACEMENTS) and min(placements.values()) >= 20, placements
    assert {parts[2] for parts in births} == set(FORMS)
    assert len({parts[1] for parts in births}) >= 15


def test_hard_negatives_are_dates_next_to_people(cases):
    negatives = [n for case in cases for n in case["negatives"]]
    assert len(negatives) >= NEGATIVE_TEXTS
    assert all(n["kind"].startswith("other_date:") and any(c.isdigit() for c in n["value"]) for n in negatives)
    assert len(Counter(n["kind"] for n in negatives)) >= 10
    with_people = [c for c in cases if c["negatives"] and any(e["type"] == "PERSON" for e in c["entities"])]
    assert len(with_people) >= 100


def test_date_forms():
    day, rng = dt.date(1990, 3, 4), random.Random(0)
    assert written(day, "dmy_dot", "de", rng) == "04.03.1990"
    assert written(day, "compact", "en", rng) == "19900304"
    assert written(day, "upper", "en", rng) == "04 MAR 1990"
    assert written(day, "named", "es", rng) == "4 de marzo de 1990"
    assert written(day, "named", "de", rng) == "4. März 1990"
    assert written(day, "weekday", "fr", rng) == "dimanche 4 mars 1990"
    assert written(dt.date(1990, 3, 1), "named", "fr", rng) == "1er mars 1990"
    assert written(day, "roman", "it", rng) in ("4.III.1990", "4 III 1990", "04-III-1990")
