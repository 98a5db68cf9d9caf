"""The eighteenth dev-side PII corpus (``bench.pii_corpus.dev_eighteenth``, ``--split dev-18``): reproducible (in any
process), dev values only, offsets exact, people and places in French, Spanish, German, Italian, Portuguese and Dutch
prose under three cue levels, and hard negatives of those languages."""

from __future__ import annotations

from collections import Counter

import pytest
from pii_corpus_support import assert_spans_exact_and_apart, printed_by_a_process, values

from bench.pii_corpus import dev_eighteenth, generate
from bench.pii_corpus.dev_eighteenth import LANGUAGES, NEGATIVE_TEXTS, POSITIVE_TEXTS, generate_eighteenth_dev
from bench.pii_corpus.partition import split_of


@pytest.fixture(scope="module")
def cases() -> list[dict]:
    return [dict(case) for case in generate_eighteenth_dev()]


def test_same_corpus_every_time_other_seed_other_corpus_and_apart_from_dev(cases):
    assert generate_eighteenth_dev(20, 10, seed=7) != generate_eighteenth_dev(20, 10)
    assert [dict(case) for case in generate_eighteenth_dev()] == cases
    assert all(case["id"].startswith("dev-18-") and case["split"] == "dev" for case in cases)
    assert not {case["text"] for case in generate("dev")} & {case["text"] for case in cases}


def test_same_corpus_in_processes_of_other_hash_seeds():
    code = "from bench.pii_corpus.dev_eighteenth import generate_eighteenth_dev as g; print(g(60, 30))"
    assert printed_by_a_process(code, "1") == printed_by_a_process(code, "2")


def test_quotas_and_offsets(cases):
    assert len(cases) == POSITIVE_TEXTS + NEGATIVE_TEXTS
    assert len(values(cases, "PERSON")) >= 300
    assert len(values(cases, "LOCATION")) >= 200
    assert len(values(cases, "DATE_OF_BIRTH")) >= 50
    assert len(values(cases, "STREET_ADDRESS")) >= 50
    assert sum(not case["entities"] for case in cases) == NEGATIVE_TEXTS
    assert_spans_exact_and_apart(cases)


def test_the_bench_reads_it_as_its_split(cases):
    from bench import guardrails

    assert guardrails.load_corpus(dev_eighteenth.NAME) == cases


def test_values_are_of_the_dev_half(cases):
    for entity_type in ("PERSON", "LOCATION", "DATE_OF_BIRTH", "STREET_ADDRESS"):
        assert all(split_of(e["value"]) == "dev" for e in values(cases, entity_type) if "given" not in e["subtype"]
                   and "surname" not in e["subtype"])  # fmt: skip


def test_every_language_cue_level_and_person_form(cases):
    named = [e["subtype"].split(":") for t in ("PERSON", "LOCATION") for e in values(cases, t)]
    assert {parts[1] for parts in named} == set(LANGUAGES)
    levels = Counter(parts[3] for parts in named)
    assert set(levels) == {"a", "b", "c"} and min(levels.values()) >= 150, levels
    forms = Counter(e["subtype"].split(":")[2].split("-")[0] for e in values(cases, "PERSON"))
    assert set(forms) == {"full", "surname", "given"} and min(forms.values()) >= 40, forms
    kinds = Counter(e["subtype"].split(":")[2] for e in values(cases, "LOCATION"))
    assert set(kinds) == {"city", "foreign_city", "region", "country"}, kinds


def test_hard_negatives_of_many_kinds(cases):
    negatives = Counter(n["kind"] for case in cases for n in case["negatives"])
    assert sum(negatives.values()) >= 350
    assert {"noun", "org", "brand", "month", "weekday", "holiday", "demonym", "saint", "namelike", "other_date"} <= set(
        negatives
    )
