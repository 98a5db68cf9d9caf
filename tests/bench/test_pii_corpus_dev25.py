"""The twenty-fifth dev-side PII corpus (``bench.pii_corpus.dev_twentyfifth``, ``--split dev-25``): reproducible
(in any process), dev values only, offsets exact, everything in lower case, people in the forms lower-case speech and
typing name them (in full most often) from names-dataset's names of many countries, places of every kind, streets,
phones and birth dates at every cue level in seven languages and code-switching, hard negatives that are none of them,
and registered as a blind split."""

from __future__ import annotations

import random
from collections import Counter

import phonenumbers
import pytest
from pii_corpus_support import assert_spans_exact_and_apart, printed_by_a_process, values

from bench.pii_corpus import dev_twentyfifth, generate
from bench.pii_corpus.dev_twentyfifth import LANGUAGES, NEGATIVE_TEXTS, Filler, fold, generate_twentyfifth_dev, lower
from bench.pii_corpus.partition import split_of
from bench.pii_corpus.person_names import in_split
from bench.pii_corpus.twentyfifth_lines import LINES
from bench.pii_corpus.twentyfifth_names import COUNTRIES, twentyfifth_names

TYPES = ("PERSON", "LOCATION", "STREET_ADDRESS", "PHONE_NUMBER", "DATE_OF_BIRTH")


@pytest.fixture(scope="module")
def cases() -> list[dict]:
    return [dict(case) for case in generate_twentyfifth_dev()]


def test_same_corpus_every_time_other_seed_other_corpus_and_apart_from_dev(cases):
    assert generate_twentyfifth_dev(20, 10, seed=7) != generate_twentyfifth_dev(20, 10)
    assert [dict(case) for case in generate_twentyfifth_dev()] == cases
    assert all(case["id"].startswith("dev-25-") and case["split"] == "dev" for case in cases)
    assert not {case["text"] for case in generate("dev")} & {case["text"] for case in cases}


def test_same_corpus_in_processes_of_other_hash_seeds():
    code = "from bench.pii_corpus.dev_twentyfifth import generate_twentyfifth_dev as g; print(g(40, 10))"
    assert printed_by_a_process(code, "1") == printed_by_a_process(code, "2")


def test_sizes_offsets_and_lower_case(cases):
    counts = Counter(e["type"] for case in cases for e in case["entities"])
    assert counts["PERSON"] >= 400 and counts["LOCATION"] >= 250, counts
    assert all(counts[kind] >= 30 for kind in ("STREET_ADDRESS", "PHONE_NUMBER", "DATE_OF_BIRTH")), counts
    assert len(cases) >= 400 and sum(not case["entities"] for case in cases) >= NEGATIVE_TEXTS
    assert sum(len(case["negatives"]) for case in cases) >= 300
    assert_spans_exact_and_apart(cases)
    assert all(lower(case["text"]) == case["text"] for case in cases)


def test_the_bench_reads_it_as_its_split_and_it_is_blind(cases):
    from bench import guardrails
    from bench.pii_corpus.dev_splits import BLIND_SPLITS, SHAPED_SPLITS

    assert guardrails.load_corpus(dev_twentyfifth.NAME) == cases
    assert dev_twentyfifth.NAME in BLIND_SPLITS and dev_twentyfifth.NAME not in SHAPED_SPLITS


def test_values_are_of_the_dev_half(cases):
    for entity_type in TYPES:
        assert all(split_of(e["value"]) == "dev" for e in values(cases, entity_type)), entity_type


def test_every_language_every_cue_level_every_form(cases):
    entities = [e for case in cases for e in case["entities"]]
    cues = Counter(e["subtype"].split(":")[-3] for e in entities)
    assert all(cues[cue] >= 200 for cue in ("cue", "weak", "none")), cues
    assert set(Counter(e["subtype"].split(":")[-2] for e in entities)) == set(LINES)
    for entity_type in ("PERSON", "LOCATION"):
        assert {e["subtype"].split(":")[-2] for e in values(cases, entity_type)} >= set(LANGUAGES), entity_type
    forms = Counter(e["subtype"].split(":")[2].removesuffix("+folded") for e in values(cases, "PERSON"))
    assert forms.most_common(1)[0][0] == "first-last", forms
    assert {"first-only", "middle-initial", "double-last", "title-surname"} <= set(forms)
    assert any(e["subtype"].split(":")[2].endswith("+folded") for e in values(cases, "PERSON"))
    countries = {e["subtype"].split(":")[1] for e in values(cases, "PERSON")}
    assert len(countries) >= 25 and set(COUNTRIES["elsewhere"]) & countries, countries
    kinds = {e["subtype"].split(":")[1] for e in values(cases, "LOCATION")}
    assert {"city", "city-multiword", "country", "us-state", "region", "city+folded"} <= kinds, kinds


def test_names_are_names_datasets_of_the_dev_half():
    names = twentyfifth_names()
    assert set(names) == {"first_female", "first_male", "last"}
    for by_country in names.values():
        assert set(by_country) == {country for group in COUNTRIES.values() for country in group}
        assert all(listed and all(in_split(name, "dev") for name in listed) for listed in by_country.values())
    assert "Marie" in names["first_female"]["FR"] or split_of("Marie") == "test"


def test_phones_are_valid_numbers_of_the_languages_regions(cases):
    for entity in values(cases, "PHONE_NUMBER"):
        region = entity["subtype"].split(":")[1]
        digits = "".join(char for char in entity["value"] if char.isdigit() or char == "+")
        number = phonenumbers.parse(digits, None if digits.startswith("+") else region)
        assert phonenumbers.is_valid_number(number), entity


def test_a_place_is_written_as_the_language_writes_it_in_lower_case():
    filler = Filler(random.Random(1), "de", "chat", "de")
    countries = {filler.place("T", "a").value for _ in range(400)}
    assert {"deutschland", "frankreich", "österreich", "schweiz", "spanien", "italien"} & countries
    assert not {"germany", "france", "Deutschland"} & countries
    states = {filler.place("U", "a").value for _ in range(400)}
    assert "kalifornien" in states or split_of("kalifornien") == "test"


def test_a_title_is_outside_the_family_names_span():
    filler = Filler(random.Random(3), "fr", "dm", "fr")
    filler.write("vous pouvez joindre monsieur {S:a} au {H:a}")
    surname = filler.out.entities[0]
    text = filler.out.finish()
    assert text[: surname["start"]] == "vous pouvez joindre monsieur " and surname["value"].islower()
    assert surname["subtype"].split(":")[2] == "title-surname" and surname["subtype"].endswith(":cue:fr:dm")


def test_lower_case_and_folding_as_a_phone_keyboard_types():
    assert lower("İbrahim Öztürk") == "ibrahim öztürk" and fold("kraków łódź") == "krakow lodz"
    assert fold("jürgen straße") == "jurgen strasse" and fold("anna") == "anna"


def test_hard_negatives_of_every_kind_and_no_labelled_value_among_them(cases):
    kinds = Counter(n["kind"] for case in cases for n in case["negatives"])
    expected = {"song", "film", "app", "brand", "team", "word", "holiday", "weekday", "month", "order-id", "time",
                "price"}  # fmt: skip
    assert expected <= set(kinds), kinds
    for case in cases:
        assert not {e["value"] for e in case["entities"]} & {n["value"] for n in case["negatives"]}, case["text"]


def test_the_names_snapshot_is_what_names_dataset_gives():
    pytest.importorskip("names_dataset")
    from bench.pii_corpus import twentyfifth_names

    assert twentyfifth_names.extract() == twentyfifth_names.twentyfifth_names()
