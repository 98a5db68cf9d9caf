"""The twenty-fourth dev-side PII corpus (``bench.pii_corpus.dev_twentyfourth``, ``--split dev-24``): reproducible
(in any process), dev values only, offsets exact, capitalised messages with a tenth or so of their lines in capitals,
people in every form messages name them, places, streets, phones and birth dates at every cue level in twelve
languages and code-switching, hard negatives that are none of them, and registered as a blind split."""

from __future__ import annotations

import random
from collections import Counter

import phonenumbers
import pytest
from pii_corpus_support import assert_spans_exact_and_apart, printed_by_a_process, values

from bench.pii_corpus import dev_twentyfourth, generate
from bench.pii_corpus.dev_twentyfourth import (
    LANGUAGES,
    NEGATIVE_TEXTS,
    Filler,
    fold,
    generate_twentyfourth_dev,
)
from bench.pii_corpus.partition import split_of
from bench.pii_corpus.twentyfourth_lines import LINES

TYPES = ("PERSON", "LOCATION", "STREET_ADDRESS", "PHONE_NUMBER", "DATE_OF_BIRTH")


@pytest.fixture(scope="module")
def cases() -> list[dict]:
    return [dict(case) for case in generate_twentyfourth_dev()]


def test_same_corpus_every_time_other_seed_other_corpus_and_apart_from_dev(cases):
    assert generate_twentyfourth_dev(20, 10, seed=7) != generate_twentyfourth_dev(20, 10)
    assert [dict(case) for case in generate_twentyfourth_dev()] == cases
    assert all(case["id"].startswith("dev-24-") and case["split"] == "dev" for case in cases)
    assert not {case["text"] for case in generate("dev")} & {case["text"] for case in cases}


def test_same_corpus_in_processes_of_other_hash_seeds():
    code = "from bench.pii_corpus.dev_twentyfourth import generate_twentyfourth_dev as g; print(g(40, 10))"
    assert printed_by_a_process(code, "1") == printed_by_a_process(code, "2")


def test_sizes_offsets_and_case(cases):
    counts = Counter(e["type"] for case in cases for e in case["entities"])
    assert counts["PERSON"] >= 450 and counts["LOCATION"] >= 200, counts
    assert all(counts[kind] >= 30 for kind in ("STREET_ADDRESS", "PHONE_NUMBER", "DATE_OF_BIRTH")), counts
    assert len(cases) >= 350 and sum(not case["entities"] for case in cases) >= NEGATIVE_TEXTS
    assert sum(len(case["negatives"]) for case in cases) >= 300
    assert_spans_exact_and_apart(cases)
    lines = [line for case in cases for line in case["text"].splitlines() if any(c.isalpha() for c in line)]
    shouted = sum(line.isupper() for line in lines)
    assert 0.04 * len(lines) <= shouted <= 0.25 * len(lines), (shouted, len(lines))


def test_the_bench_reads_it_as_its_split_and_it_is_blind(cases):
    from bench import guardrails
    from bench.pii_corpus.dev_splits import BLIND_SPLITS, SHAPED_SPLITS

    assert guardrails.load_corpus(dev_twentyfourth.NAME) == cases
    assert dev_twentyfourth.NAME in BLIND_SPLITS and dev_twentyfourth.NAME not in SHAPED_SPLITS


def test_values_are_of_the_dev_half(cases):
    for entity_type in TYPES:
        assert all(split_of(e["value"]) == "dev" for e in values(cases, entity_type)), entity_type


def test_every_language_every_cue_level_every_form(cases):
    entities = [e for case in cases for e in case["entities"]]
    cues = Counter(e["subtype"].split(":")[-3] for e in entities)
    assert all(cues[cue] >= 100 for cue in ("cue", "weak", "none")), cues
    assert set(Counter(e["subtype"].split(":")[-2] for e in entities)) == set(LINES)
    for entity_type in ("PERSON", "LOCATION"):
        assert {e["subtype"].split(":")[-2] for e in values(cases, entity_type)} >= set(LANGUAGES), entity_type
    forms = Counter(e["subtype"].split(":")[2].removesuffix("+folded") for e in values(cases, "PERSON"))
    assert forms.most_common(1)[0][0] == "given-only", forms
    assert {"first-last", "title-surname", "initials-surname", "nickname", "word-name", "double-surname"} <= set(forms)
    assert any(e["subtype"].split(":")[2].endswith("+folded") for e in values(cases, "PERSON"))
    kinds = {e["subtype"].split(":")[1] for e in values(cases, "LOCATION")}
    assert {"city", "country", "region", "abbrev", "city+folded"} <= kinds, kinds


def test_phones_are_valid_numbers_of_the_languages_regions(cases):
    for entity in values(cases, "PHONE_NUMBER"):
        region = entity["subtype"].split(":")[1]
        digits = "".join(char for char in entity["value"] if char.isdigit() or char == "+")
        number = phonenumbers.parse(digits, None if digits.startswith("+") else region)
        assert phonenumbers.is_valid_number(number), entity


def test_a_place_is_written_as_the_language_writes_it():
    filler = Filler(random.Random(1), "cs", "forum", "cs")
    countries = {filler.place("T", "a").value for _ in range(400)}
    assert {"Německo", "Francie", "Nizozemsko", "Nemecko", "Nizozemi"} & countries
    assert not {"Germany", "France", "Netherlands"} & countries


def test_a_title_is_outside_the_family_names_span_and_a_shouted_line_shouts_its_values():
    filler = Filler(random.Random(3), "pl", "school", "pl")
    filler.write("Dzień dobry, pani {Sf:a}")
    filler.write(" {G:b} ODDZWOŃ", shout=True)
    title, shouted = filler.out.entities
    text = filler.out.finish()
    assert text[: title["start"]] == "Dzień dobry, pani " and title["value"][0].isupper()
    assert title["subtype"].startswith("person:pl_PL:title-surname") and title["subtype"].endswith(":cue:pl:school")
    assert shouted["value"].isupper() and text[shouted["start"] : shouted["end"]] == shouted["value"]


def test_folding_drops_marks_and_keeps_case():
    assert fold("Kraków") == "Krakow" and fold("Søs Ødegård") == "Sos Odegard" and fold("Łódź") == "Lodz"
    assert fold("Straße") == "Strasse" and fold("Anna") == "Anna"


def test_hard_negatives_of_every_kind_and_no_labelled_value_among_them(cases):
    kinds = Counter(n["kind"] for case in cases for n in case["negatives"])
    assert {"brand", "app", "org", "holiday", "word", "weekday", "month", "order-id", "time", "price"} <= set(kinds)
    for case in cases:
        assert not {e["value"] for e in case["entities"]} & {n["value"] for n in case["negatives"]}, case["text"]
