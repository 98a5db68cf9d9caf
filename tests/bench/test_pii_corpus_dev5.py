"""The fifth dev-side PII corpus (``bench.pii_corpus.dev_fifth``, ``--split dev-5``): reproducible, dev values only,
offsets exact, and made of what it promises (names off Warden's gazetteer, towns below its cut, other locales' dates
and addresses, contexts no other split writes, hard negatives of the same shapes)."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from bench.pii_corpus import dev_fifth, generate
from bench.pii_corpus.dev_fifth import ENTITIES_PER_TYPE, generate_fifth_dev
from bench.pii_corpus.generator import ENTITY_TYPES
from bench.pii_corpus.partition import split_of
from bench.pii_corpus.person_names import in_split as name_in_split
from bench.pii_corpus.rare_names import COUNTRIES, rare_names
from gateway.guardrails.person_names import known_names
from gateway.guardrails.places import CITY_MIN_POPULATION

HONORIFICS = set(dev_fifth.HONORIFICS)


@pytest.fixture(scope="module")
def cases() -> list[dict]:
    return [dict(case) for case in generate_fifth_dev()]


def values(cases: list[dict], entity_type: str) -> list[dict]:
    return [e for case in cases for e in case["entities"] if e["type"] == entity_type]


def test_same_corpus_every_time_and_apart_from_dev(cases):
    assert [dict(case) for case in generate_fifth_dev()] == cases
    assert all(case["id"].startswith("dev-5-") and case["split"] == "dev" for case in cases)
    assert not {case["text"] for case in generate("dev")} & {case["text"] for case in cases}


def test_quota_offsets_and_contexts(cases):
    counts = Counter(e["type"] for case in cases for e in case["entities"])
    assert all(counts[t] >= ENTITIES_PER_TYPE for t in ENTITY_TYPES)
    for case in cases:
        for span in (*case["entities"], *case["negatives"]):
            assert case["text"][span["start"] : span["end"]] == span["value"]
    assert {case["context"] for case in cases} == {context.name for context in dev_fifth.CONTEXTS_FIFTH}


def _as_written(value: str) -> str:
    """A name as the split rule reads it: without honorific, comma, `+` or line break, in title case if the context
    changed its case."""
    words = [w for w in re.split(r"[\s+,]+", value) if w and w not in HONORIFICS and w.title() not in HONORIFICS]
    name = " ".join(words)
    return name.title() if name.islower() or name.isupper() else name


def test_every_value_is_of_the_dev_half(cases):
    for entity in values(cases, "PERSON"):
        assert name_in_split(_as_written(entity["value"]), "dev"), entity
    for entity_type in ("LOCATION", "DATE_OF_BIRTH", "STREET_ADDRESS"):
        for entity in values(cases, entity_type):
            raw = entity["value"].replace("+", " ")
            assert split_of(raw) == "dev", entity  # case, spacing and line breaks do not change the split


def test_rare_names_are_off_the_gazetteer_and_of_the_dev_half():
    names, listed = rare_names().names, known_names()
    assert set(COUNTRIES) <= set(names["last"])
    drawn = [name for by_country in names.values() for country_names in by_country.values() for name in country_names]
    assert len(drawn) > 5000
    assert not [name for name in drawn if listed.is_name(name)]
    assert all(name_in_split(name, "dev") for name in drawn)


def test_values_are_of_the_new_sources(cases):
    sources = Counter(e["subtype"].split(":")[1] for e in values(cases, "PERSON"))
    assert sum(count for source, count in sources.items() if source.startswith("rare-")) >= 120
    assert set(dev_fifth.NEW_PERSON_LOCALES) <= set(sources)
    towns = [e["value"] for e in values(cases, "LOCATION") if e["subtype"].startswith("location:town-1k-5k")]
    assert len(towns) >= 150
    addresses = Counter(e["subtype"].split(":")[1] for e in values(cases, "STREET_ADDRESS"))
    assert set(addresses) == set(dev_fifth.ADDRESS_LOCALES)
    forms = {e["subtype"].split(":")[1] for e in values(cases, "DATE_OF_BIRTH")}
    assert {"cs", "tr", "sv", "vi", "pt-BR", "it", "nl", "pl", "en-IN", "fil"} <= forms
    assert dev_fifth.TOWN_POPULATION[1] <= CITY_MIN_POPULATION  # below the gazetteer's cut


def test_shapes_the_contexts_promise(cases):
    kinds = Counter(e["subtype"].rsplit(":", 1)[-1] for case in cases for e in case["entities"])
    assert kinds["upper"] >= 30 and kinds["lower"] >= 30 and kinds["plus-encoded"] >= 30
    assert kinds["line-break"] >= 15
    assert all("\n" in e["value"] for case in cases for e in case["entities"] if e["subtype"].endswith("line-break"))
    negatives = Counter(n["kind"] for case in cases for n in case["negatives"])
    assert negatives["other_date"] >= 300 and negatives["team"] >= 150 and negatives["case_number"] >= 150
    sql = [case for case in cases if case["context"] == "sql-insert"]
    assert all(case["text"].startswith("INSERT INTO ") and case["text"].endswith(");") for case in sql)


def test_the_guardrails_bench_reads_it_as_split_dev_5(cases):
    from bench import guardrails

    assert guardrails.load_corpus(dev_fifth.NAME) == cases
