"""The twenty-third dev-side PII corpus (``bench.pii_corpus.dev_twentythird``, ``--split dev-23``): reproducible (in
any process), dev values only, offsets exact, everything lower case, people, places, streets, phones and birth dates
at every cue level in eight languages and code-switching chat, and hard negatives that are none of them."""

from __future__ import annotations

import random
from collections import Counter

import phonenumbers
import pytest
from pii_corpus_support import assert_spans_exact_and_apart, printed_by_a_process, values

from bench.pii_corpus import dev_twentythird, generate
from bench.pii_corpus.dev_twentythird import LANGUAGES, NEGATIVE_TEXTS, Filler, generate_twentythird_dev
from bench.pii_corpus.partition import split_of
from bench.pii_corpus.twentythird_lines import LINES

TYPES = ("PERSON", "LOCATION", "STREET_ADDRESS", "PHONE_NUMBER", "DATE_OF_BIRTH")


@pytest.fixture(scope="module")
def cases() -> list[dict]:
    return [dict(case) for case in generate_twentythird_dev()]


def test_same_corpus_every_time_other_seed_other_corpus_and_apart_from_dev(cases):
    assert generate_twentythird_dev(20, 10, seed=7) != generate_twentythird_dev(20, 10)
    assert [dict(case) for case in generate_twentythird_dev()] == cases
    assert all(case["id"].startswith("dev-23-") and case["split"] == "dev" for case in cases)
    assert not {case["text"] for case in generate("dev")} & {case["text"] for case in cases}


def test_same_corpus_in_processes_of_other_hash_seeds():
    code = "from bench.pii_corpus.dev_twentythird import generate_twentythird_dev as g; print(g(40, 10))"
    assert printed_by_a_process(code, "1") == printed_by_a_process(code, "2")


def test_quotas_offsets_and_lower_case(cases):
    counts = Counter(e["type"] for case in cases for e in case["entities"])
    assert counts["PERSON"] >= 250 and counts["LOCATION"] >= 200 and counts["STREET_ADDRESS"] >= 100, counts
    assert counts["PHONE_NUMBER"] >= 50 and counts["DATE_OF_BIRTH"] >= 50, counts
    assert sum(not case["entities"] for case in cases) >= NEGATIVE_TEXTS
    assert sum(len(case["negatives"]) for case in cases) >= 300
    assert all(case["text"] == case["text"].lower() for case in cases)
    assert_spans_exact_and_apart(cases)


def test_the_bench_reads_it_as_its_split(cases):
    from bench import guardrails

    assert guardrails.load_corpus(dev_twentythird.NAME) == cases


def test_values_are_of_the_dev_half(cases):
    for entity_type in TYPES:
        assert all(split_of(e["value"]) == "dev" for e in values(cases, entity_type)), entity_type


def test_every_language_every_cue_level_every_form(cases):
    entities = [e for case in cases for e in case["entities"]]
    cues = Counter(e["subtype"].split(":")[-3] for e in entities)
    assert all(cues[cue] >= 150 for cue in ("cue", "weak", "none")), cues
    assert set(Counter(e["subtype"].split(":")[-2] for e in entities)) == set(LINES)
    for entity_type in TYPES:
        assert {e["subtype"].split(":")[-2] for e in values(cases, entity_type)} >= set(LANGUAGES), entity_type
    people = Counter(e["subtype"].split(":")[2] for e in values(cases, "PERSON"))
    assert {"first-last", "given-only", "title-surname"} <= set(people)
    assert {"city", "country", "region"} == {e["subtype"].split(":")[1] for e in values(cases, "LOCATION")}


def test_phones_are_valid_numbers_of_the_languages_regions(cases):
    for entity in values(cases, "PHONE_NUMBER"):
        region = entity["subtype"].split(":")[1]
        digits = "".join(char for char in entity["value"] if char.isdigit() or char == "+")
        number = phonenumbers.parse(digits, None if digits.startswith("+") else region)
        assert phonenumbers.is_valid_number(number), entity


def test_a_place_is_written_as_the_language_writes_it_in_lower_case():
    filler = Filler(random.Random(1), "de", "trip", "de")
    countries = {filler.place("K", "a").value for _ in range(400)}
    assert {"deutschland", "frankreich", "niederlande"} & countries
    assert not {"germany", "france", "netherlands"} & countries


def test_a_title_is_outside_the_family_names_span():
    filler = Filler(random.Random(3), "pl", "landlord", "pl")
    filler.write("dzień dobry pani {S:a}")
    (entity,) = filler.out.entities
    assert filler.out.finish()[: entity["start"]] == "dzień dobry pani "
    assert entity["subtype"].startswith("person:pl_PL:title-surname:cue:pl:")


def test_hard_negatives_of_every_kind_and_no_labelled_value_among_them(cases):
    kinds = Counter(n["kind"] for case in cases for n in case["negatives"])
    assert {"word", "slang", "brand", "food", "holiday", "demonym", "street", "weekday", "month", "language",
            "order-id", "time", "price"} <= set(kinds), kinds  # fmt: skip
    # A word may be a name in one text and a decoy in another ("noël"), never both in one text.
    for case in cases:
        assert not {e["value"] for e in case["entities"]} & {n["value"] for n in case["negatives"]}, case["text"]
