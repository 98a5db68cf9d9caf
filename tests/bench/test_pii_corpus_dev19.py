"""The nineteenth dev-side PII corpus (``bench.pii_corpus.dev_nineteenth``, ``--split dev-19``): reproducible (in any
process), dev values only, offsets exact, phones valid per phonenumbers in many regions, types and written forms,
national ids valid per python-stdnum in every scheme's printed variants, and hard negatives that are neither."""

from __future__ import annotations

import random
from collections import Counter

import phonenumbers
import pytest
from pii_corpus_support import assert_spans_exact_and_apart, printed_by_a_process, values
from stdnum import luhn

from bench.pii_corpus import dev_nineteenth, generate
from bench.pii_corpus.dev_nineteenth import ID_TEXTS, NEGATIVE_TEXTS, PHONE_TEXTS, SCHEMES, generate_nineteenth_dev
from bench.pii_corpus.national_ids import is_valid_id
from bench.pii_corpus.nineteenth_values import (
    FORMS,
    NEGATIVE_KINDS,
    TYPES,
    is_valid_phone_text,
    negative,
    written_phone,
)
from bench.pii_corpus.partition import split_of


@pytest.fixture(scope="module")
def cases() -> list[dict]:
    return [dict(case) for case in generate_nineteenth_dev()]


def test_same_corpus_every_time_other_seed_other_corpus_and_apart_from_dev(cases):
    assert generate_nineteenth_dev(20, 20, 5, 10, seed=7) != generate_nineteenth_dev(20, 20, 5, 10)
    assert [dict(case) for case in generate_nineteenth_dev()] == cases
    assert all(case["id"].startswith("dev-19-") and case["split"] == "dev" for case in cases)
    assert not {case["text"] for case in generate("dev")} & {case["text"] for case in cases}


def test_same_corpus_in_processes_of_other_hash_seeds():
    code = "from bench.pii_corpus.dev_nineteenth import generate_nineteenth_dev as g; print(g(40, 40, 10, 30))"
    assert printed_by_a_process(code, "1") == printed_by_a_process(code, "2")


def test_quotas_and_offsets(cases):
    counts = Counter(e["type"] for case in cases for e in case["entities"])
    assert counts["PHONE_NUMBER"] >= PHONE_TEXTS + 40 and counts["NATIONAL_ID"] == ID_TEXTS
    assert counts["IBAN_CODE"] >= 50 and counts["CREDIT_CARD"] >= 50
    assert sum(not case["entities"] for case in cases) == NEGATIVE_TEXTS
    assert sum(len(case["negatives"]) for case in cases) >= 400
    assert_spans_exact_and_apart(cases)


def test_the_bench_reads_it_as_its_split(cases):
    from bench import guardrails

    assert guardrails.load_corpus(dev_nineteenth.NAME) == cases


def test_values_are_of_the_dev_half(cases):
    for entity_type in ("PERSON", "PHONE_NUMBER", "NATIONAL_ID", "IBAN_CODE", "CREDIT_CARD", "EMAIL_ADDRESS"):
        assert all(split_of(e["value"]) == "dev" for e in values(cases, entity_type))


def test_phones_are_valid_in_many_regions_types_forms_and_every_cue(cases):
    phones = values(cases, "PHONE_NUMBER")
    for entity in phones:
        region, _, form = entity["subtype"].split(":")[1:4]
        assert is_valid_phone_text(entity["value"], region, form), entity
    parts = [e["subtype"].split(":") for e in phones]
    assert len({p[1] for p in parts}) >= 100
    assert {p[2] for p in parts} == set(TYPES)
    assert {p[3] for p in parts} == set(FORMS)
    assert {p[5] for p in parts} == {"a", "b", "c"}
    assert len({p[4] for p in parts}) == len(dev_nineteenth.LANGS)


def test_ids_are_valid_in_every_scheme_and_several_printings(cases):
    ids = values(cases, "NATIONAL_ID")
    for entity in ids:
        scheme = entity["subtype"].split(":")[1]
        assert is_valid_id(scheme, "".join(c for c in entity["value"] if c.isalnum()).upper()), entity
    parts = [e["subtype"].split(":") for e in ids]
    assert {p[1] for p in parts} == set(SCHEMES)
    assert len({(p[1], p[2]) for p in parts}) >= 30
    assert {p[4] for p in parts} == {"a", "b", "c"}
    assert all(p[5] == "chat" for p in parts if p[2] == "lower")


def test_hard_negatives_are_no_phone_nor_card(cases):
    negatives = [n for case in cases for n in case["negatives"]]
    assert {n["kind"] for n in negatives} == set(NEGATIVE_KINDS)
    for n in negatives:
        digits = "".join(c for c in n["value"] if c.isdigit())
        if n["kind"] not in ("isbn", "ean"):
            assert len(digits) < 13 or not luhn.is_valid(digits), n
        if n["kind"] == "invalid_phone":
            assert not phonenumbers.is_valid_number(phonenumbers.parse(n["value"], None)), n


def test_written_forms_and_bad_check_digits():
    number = phonenumbers.parse("+49 30 1234567", None)
    assert written_phone(number, "intl_paren_zero") == "+49 (0)30 1234567"
    assert written_phone(number, "intl_00") == "0049 30 1234567"
    assert written_phone(number, "national_slash") == "030/1234567"
    assert written_phone(number, "wa_digits") == "49301234567"
    rng = random.Random(3)
    for _ in range(50):
        bad = negative(rng, "bad_check")
        compact = "".join(c for c in bad if c.isalnum()).upper()
        assert not any(is_valid_id(scheme, compact) for scheme in SCHEMES if scheme != "in.pan"), bad
