"""The twenty-second dev-side PII corpus (``bench.pii_corpus.dev_twentysecond``, ``--split dev-22``): reproducible
(in any process), dev values only, offsets exact, places at every cue level in eight languages and chat (with the
people and streets beside them), local-language names where the language has one, and hard negatives that are none
of them."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from pii_corpus_support import assert_spans_exact_and_apart, printed_by_a_process, values

from bench.pii_corpus import dev_twentysecond, generate
from bench.pii_corpus.dev_twentysecond import NEGATIVE_TEXTS, Filler, generate_twentysecond_dev
from bench.pii_corpus.partition import split_of
from bench.pii_corpus.twentysecond_lines import LINES, NEGATIVES


@pytest.fixture(scope="module")
def cases() -> list[dict]:
    return [dict(case) for case in generate_twentysecond_dev()]


def test_same_corpus_every_time_other_seed_other_corpus_and_apart_from_dev(cases):
    assert generate_twentysecond_dev(20, 10, seed=7) != generate_twentysecond_dev(20, 10)
    assert [dict(case) for case in generate_twentysecond_dev()] == cases
    assert all(case["id"].startswith("dev-22-") and case["split"] == "dev" for case in cases)
    assert not {case["text"] for case in generate("dev")} & {case["text"] for case in cases}


def test_same_corpus_in_processes_of_other_hash_seeds():
    code = "from bench.pii_corpus.dev_twentysecond import generate_twentysecond_dev as g; print(g(40, 10))"
    assert printed_by_a_process(code, "1") == printed_by_a_process(code, "2")


def test_quotas_and_offsets(cases):
    counts = Counter(e["type"] for case in cases for e in case["entities"])
    assert counts["LOCATION"] >= 300 and counts["PERSON"] >= 80 and counts["STREET_ADDRESS"] >= 50
    assert all("\n" not in e["value"] for e in values(cases, "STREET_ADDRESS"))
    assert sum(not case["entities"] for case in cases) >= NEGATIVE_TEXTS
    assert sum(len(case["negatives"]) for case in cases) >= 300
    assert_spans_exact_and_apart(cases)


def test_the_bench_reads_it_as_its_split(cases):
    from bench import guardrails

    assert guardrails.load_corpus(dev_twentysecond.NAME) == cases


def test_values_are_of_the_dev_half(cases):
    for entity_type in ("PERSON", "LOCATION", "STREET_ADDRESS"):
        assert all(split_of(e["value"]) == "dev" for e in values(cases, entity_type))


def test_places_at_every_cue_level_in_every_language_and_form(cases):
    places = values(cases, "LOCATION")
    cues = Counter(e["subtype"].split(":")[3] for e in places)
    assert all(cues[cue] >= 60 for cue in ("cue", "weak", "none")), cues
    assert set(Counter(e["subtype"].split(":")[4] for e in places)) == set(LINES)
    assert {"city", "country", "us-state"} == {e["subtype"].split(":")[1] for e in places}
    forms = Counter(e["subtype"].split(":")[2] for e in places)
    assert forms["exonym"] >= 30 and forms["lower"] >= 15 and forms["local"] >= 1, forms
    assert all(e["value"].islower() for e in places if ":lower:" in e["subtype"])
    people = Counter(e["subtype"].split(":")[2] for e in values(cases, "PERSON"))
    assert {"first-last", "given-only", "place-surname"} <= set(people)


def test_a_place_is_written_as_the_sentences_language_writes_it():
    filler = Filler(random.Random(1), "de", "news")
    countries = {filler.place("K", "a").value for _ in range(400)}
    assert "Deutschland" in countries or "Frankreich" in countries or "Niederlande" in countries
    assert not {"Germany", "France", "Netherlands"} & countries
    filler = Filler(random.Random(2), "pl", "news")
    assert "Warsaw" not in {filler.place("C", "a").value for _ in range(2000)}


def test_hard_negatives_of_every_kind_and_no_labelled_value_among_them(cases):
    kinds = Counter(n["kind"] for case in cases for n in case["negatives"])
    assert set(NEGATIVES) <= set(kinds), set(NEGATIVES) - set(kinds)
    labelled = {e["value"] for case in cases for e in case["entities"]}
    assert not labelled & {n["value"] for case in cases for n in case["negatives"]}


def test_a_street_named_after_a_city_is_one_street_and_no_place():
    filler = Filler(random.Random(5), "fr", "hr")
    filler.write("Adresse : {R}, {C:c}.")
    street, city = filler.out.entities
    assert street["type"] == "STREET_ADDRESS" and street["subtype"].startswith("street:city-named:fr")
    assert city["type"] == "LOCATION" and city["start"] > street["end"]
