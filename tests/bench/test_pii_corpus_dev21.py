"""The twenty-first dev-side PII corpus (``bench.pii_corpus.dev_twentyfirst``, ``--split dev-21``): reproducible (in
any process), dev values only, offsets exact, people and places at every key level in every layout, and hard
negatives that are none of them."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from pii_corpus_support import assert_spans_exact_and_apart, printed_by_a_process, values

from bench.pii_corpus import dev_twentyfirst, generate
from bench.pii_corpus.dev_twentyfirst import NEGATIVE_TEXTS, Filler, generate_twentyfirst_dev
from bench.pii_corpus.partition import split_of
from bench.pii_corpus.twentyfirst_layouts import LAYOUTS, NEGATIVE_LAYOUTS, NEGATIVES, Layout


@pytest.fixture(scope="module")
def cases() -> list[dict]:
    return [dict(case) for case in generate_twentyfirst_dev()]


def test_same_corpus_every_time_other_seed_other_corpus_and_apart_from_dev(cases):
    assert generate_twentyfirst_dev(20, 10, seed=7) != generate_twentyfirst_dev(20, 10)
    assert [dict(case) for case in generate_twentyfirst_dev()] == cases
    assert all(case["id"].startswith("dev-21-") and case["split"] == "dev" for case in cases)
    assert not {case["text"] for case in generate("dev")} & {case["text"] for case in cases}


def test_same_corpus_in_processes_of_other_hash_seeds():
    code = "from bench.pii_corpus.dev_twentyfirst import generate_twentyfirst_dev as g; print(g(40, 10))"
    assert printed_by_a_process(code, "1") == printed_by_a_process(code, "2")


def test_quotas_and_offsets(cases):
    counts = Counter(e["type"] for case in cases for e in case["entities"])
    assert counts["PERSON"] >= 300 and counts["LOCATION"] >= 150
    assert min(counts["EMAIL_ADDRESS"], counts["PHONE_NUMBER"], counts["STREET_ADDRESS"]) >= 40
    assert all("\n" not in e["value"] for e in values(cases, "STREET_ADDRESS"))  # a street on one line
    assert sum(not case["entities"] for case in cases) >= NEGATIVE_TEXTS
    assert sum(len(case["negatives"]) for case in cases) >= 300
    assert_spans_exact_and_apart(cases)


def test_the_bench_reads_it_as_its_split(cases):
    from bench import guardrails

    assert guardrails.load_corpus(dev_twentyfirst.NAME) == cases


def test_values_are_of_the_dev_half(cases):
    for entity_type in ("PERSON", "LOCATION", "EMAIL_ADDRESS", "PHONE_NUMBER", "STREET_ADDRESS"):
        assert all(split_of(e["value"]) == "dev" for e in values(cases, entity_type))


def test_people_and_places_at_every_key_level_in_every_layout(cases):
    for entity_type in ("PERSON", "LOCATION"):
        keys = Counter(e["subtype"].split(":")[3 if entity_type == "PERSON" else 2] for e in values(cases, entity_type))
        assert all(keys[key] >= 40 for key in ("key", "vague", "none")), (entity_type, keys)
    assert {case["context"] for case in cases} == {layout.name for layout in (*LAYOUTS, *NEGATIVE_LAYOUTS)}
    forms = Counter(e["subtype"].split(":")[2] for e in values(cases, "PERSON"))
    assert {"first-last", "initial", "middle-initial", "double-last", "upper-surname-first", "capitals",
            "surname-comma-given", "given-field", "surname-field"} <= set(forms)  # fmt: skip
    kinds = Counter(e["subtype"].split(":")[1] for e in values(cases, "LOCATION"))
    assert {"city", "country", "us-state"} == set(kinds)


def test_hard_negatives_of_every_kind_and_no_labelled_value_among_them(cases):
    kinds = Counter(n["kind"] for case in cases for n in case["negatives"])
    assert set(NEGATIVES) | {"handle"} == set(kinds)
    assert kinds["handle"] >= 20
    labelled = {e["value"] for case in cases for e in case["entities"]}
    assert not labelled & {n["value"] for case in cases for n in case["negatives"]}
    assert all(not case["entities"] for case in cases if case["context"].startswith("neg-"))


def test_a_given_name_and_a_surname_field_write_one_person_and_a_third_field_a_new_one():
    filler = Filler(random.Random(3), Layout("t", "de", row=""))
    filler.write("⟨S:a⟩;⟨F:a⟩;⟨F:c⟩")
    surname, given, other = filler.out.entities
    assert surname["subtype"].split(":")[2] == "surname-field" and given["subtype"].split(":")[2] == "given-field"
    assert other["subtype"].endswith(":given-field:none:t")
    assert filler.last is not None and filler.last.given == other["value"]
