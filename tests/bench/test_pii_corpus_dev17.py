"""The seventeenth dev-side PII corpus (``bench.pii_corpus.dev_seventeenth``, ``--split dev-17``): reproducible (in
any process), dev values only, offsets exact, people at the three cue levels of an e-mail's sign-off and signature
(under a closing word, a signature block, a reply header or quoted signature) in many languages and forms, with the
places, phones, e-mails and streets of the signatures labelled, and titles, companies and team closings as hard
negatives."""

from __future__ import annotations

from collections import Counter

import phonenumbers
import pytest
from pii_corpus_support import assert_spans_exact_and_apart, printed_by_a_process, values

from bench.pii_corpus import dev_seventeenth, generate
from bench.pii_corpus.dev_seventeenth import LEVELS, NEGATIVE_TEXTS, POSITIVE_TEXTS, generate_seventeenth_dev
from bench.pii_corpus.partition import split_of
from bench.pii_corpus.person_names import in_split


@pytest.fixture(scope="module")
def cases() -> list[dict]:
    return [dict(case) for case in generate_seventeenth_dev()]


def test_same_corpus_every_time_other_seed_other_corpus_and_apart_from_dev(cases):
    assert generate_seventeenth_dev(20, 10, seed=7) != generate_seventeenth_dev(20, 10)
    assert [dict(case) for case in generate_seventeenth_dev()] == cases
    assert all(case["id"].startswith("dev-17-") and case["split"] == "dev" for case in cases)
    assert not {case["text"] for case in generate("dev")} & {case["text"] for case in cases}


def test_same_corpus_in_processes_of_other_hash_seeds():
    code = "from bench.pii_corpus.dev_seventeenth import generate_seventeenth_dev as g; print(g(45, 15))"
    assert printed_by_a_process(code, "1") == printed_by_a_process(code, "2")


def test_quotas_and_offsets(cases):
    assert len(cases) == POSITIVE_TEXTS + NEGATIVE_TEXTS
    assert sum(not case["entities"] or case["context"].startswith("negative") for case in cases) >= NEGATIVE_TEXTS
    assert not any(e["type"] == "PERSON" for c in cases if c["context"].startswith("negative") for e in c["entities"])
    counts = Counter(e["type"] for case in cases for e in case["entities"])
    assert counts["PERSON"] >= 280 and counts["LOCATION"] >= 80 and counts["PHONE_NUMBER"] >= 100, counts
    assert counts["EMAIL_ADDRESS"] >= 70 and counts["STREET_ADDRESS"] >= 60, counts
    assert_spans_exact_and_apart(cases)


def test_the_bench_reads_it_as_its_split(cases):
    from bench import guardrails

    assert guardrails.load_corpus(dev_seventeenth.NAME) == cases


def test_values_are_of_the_dev_half(cases):
    assert all(in_split(e["value"], "dev") for e in values(cases, "PERSON"))
    for entity_type in ("LOCATION", "EMAIL_ADDRESS", "STREET_ADDRESS"):
        assert all(split_of(e["value"]) == "dev" for e in values(cases, entity_type)), entity_type
    for phone in values(cases, "PHONE_NUMBER"):  # a phone's split is its E.164 form's, however it is written
        number = phonenumbers.parse(phone["value"], phone["subtype"].split(":")[1])
        assert split_of(phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164)) == "dev"


def test_people_at_every_cue_level_in_many_languages_and_forms(cases):
    people = [e["subtype"].split(":") for e in values(cases, "PERSON")]
    levels = Counter(parts[3] for parts in people)
    assert set(levels) == set(LEVELS) and min(levels.values()) >= 70, levels
    assert len({parts[5] for parts in people}) == 12
    forms = {parts[2].split("+")[0] for parts in people}
    assert {"full", "first", "initial", "double", "nick", "caps", "inverted", "middle"} <= forms
    assert {parts[2].split("+")[1] for parts in people if "+" in parts[2]} == {"prefix", "postnominal"}
    assert len({parts[1] for parts in people}) >= 30  # locales


def test_hard_negatives_are_titles_companies_and_team_closings(cases):
    negatives = Counter(n["kind"] for case in cases for n in case["negatives"])
    assert sum(negatives.values()) >= 300
    assert {"title", "company", "team", "department", "product", "disclaimer", "device"} <= set(negatives)
    teams = [n for c in cases for n in c["negatives"] if n["kind"] == "team"]
    assert len(teams) >= 30
