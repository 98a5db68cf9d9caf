"""The twentieth dev-side PII corpus (``bench.pii_corpus.dev_twentieth``, ``--split dev-20``): reproducible (in any
process), dev values only, offsets exact, people and places at every cue level in prose and developer genres, and
hard negatives that are none of them."""

from __future__ import annotations

from collections import Counter

import pytest
from pii_corpus_support import assert_spans_exact_and_apart, printed_by_a_process, values

from bench.pii_corpus import dev_twentieth, generate
from bench.pii_corpus.dev_twentieth import NEGATIVE_TEXTS, Filler, generate_twentieth_dev
from bench.pii_corpus.partition import split_of
from bench.pii_corpus.twentieth_lines import DEV, NEGATIVES, PROSE


@pytest.fixture(scope="module")
def cases() -> list[dict]:
    return [dict(case) for case in generate_twentieth_dev()]


def test_same_corpus_every_time_other_seed_other_corpus_and_apart_from_dev(cases):
    assert generate_twentieth_dev(20, 10, seed=7) != generate_twentieth_dev(20, 10)
    assert [dict(case) for case in generate_twentieth_dev()] == cases
    assert all(case["id"].startswith("dev-20-") and case["split"] == "dev" for case in cases)
    assert not {case["text"] for case in generate("dev")} & {case["text"] for case in cases}


def test_same_corpus_in_processes_of_other_hash_seeds():
    code = "from bench.pii_corpus.dev_twentieth import generate_twentieth_dev as g; print(g(40, 10))"
    assert printed_by_a_process(code, "1") == printed_by_a_process(code, "2")


def test_quotas_and_offsets(cases):
    counts = Counter(e["type"] for case in cases for e in case["entities"])
    assert counts["PERSON"] >= 300 and counts["LOCATION"] >= 150
    assert min(counts["EMAIL_ADDRESS"], counts["PHONE_NUMBER"], counts["STREET_ADDRESS"]) >= 30
    assert counts["IP_ADDRESS"] >= 5  # a log line's client address is labelled too
    assert all("\n" not in e["value"] for e in values(cases, "STREET_ADDRESS"))  # a street on one line
    assert sum(not case["entities"] for case in cases) >= NEGATIVE_TEXTS
    assert sum(len(case["negatives"]) for case in cases) >= 300
    assert_spans_exact_and_apart(cases)


def test_the_bench_reads_it_as_its_split(cases):
    from bench import guardrails

    assert guardrails.load_corpus(dev_twentieth.NAME) == cases


def test_values_are_of_the_dev_half(cases):
    for entity_type in ("PERSON", "LOCATION", "EMAIL_ADDRESS", "PHONE_NUMBER", "STREET_ADDRESS", "IP_ADDRESS"):
        assert all(split_of(e["value"]) == "dev" for e in values(cases, entity_type))


def test_people_and_places_at_every_cue_level_in_every_genre(cases):
    for entity_type in ("PERSON", "LOCATION"):
        cues = Counter(e["subtype"].split(":")[-2] for e in values(cases, entity_type))
        assert all(cues[cue] >= 40 for cue in ("cue", "weak", "none")), (entity_type, cues)
    contexts = {case["context"] for case in cases if case["entities"]}
    assert contexts == {f"prose-{g}" for g in PROSE} | {f"dev-{g}" for g in DEV}
    forms = Counter(e["subtype"].split(":")[2] for e in values(cases, "PERSON"))
    assert {"first-last", "initial", "middle-initial", "double-last", "given-only"} <= set(forms)
    kinds = Counter(e["subtype"].split(":")[1] for e in values(cases, "LOCATION"))
    assert {"city", "country", "us-state"} == set(kinds)


def test_hard_negatives_of_every_kind_and_no_labelled_value_among_them(cases):
    kinds = Counter(n["kind"] for case in cases for n in case["negatives"])
    assert set(NEGATIVES) <= set(kinds)
    assert kinds["handle"] >= 20
    labelled = {e["value"] for case in cases for e in case["entities"]}
    assert not labelled & {n["value"] for case in cases for n in case["negatives"]}


def test_a_later_mention_is_the_last_persons_surname_or_given_name():
    import random

    filler = Filler(random.Random(3), "prose-hr")
    filler.write("Met {P:a} today; {s} and {g} again.")
    first, surname, given = filler.out.entities
    assert first["value"].endswith(surname["value"]) and given["value"] == filler.last.given
    assert surname["subtype"].endswith(":surname-again:ref:prose-hr")
