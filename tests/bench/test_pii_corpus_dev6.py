"""The sixth dev-side PII corpus (``bench.pii_corpus.dev_sixth``, ``--split dev-6``): reproducible, dev values only,
offsets exact, and made of what it promises (names, places, dates and addresses from sources no other split draws,
record formats and chat in eight languages no other split writes, hard negatives beside them)."""

from __future__ import annotations

import ast
import json
import re
from collections import Counter

import phonenumbers
import pytest
from pii_corpus_support import (
    DevCorpusChecks,
    of_context,
    values,
)

from bench.pii_corpus import dev_sixth
from bench.pii_corpus.dev_sixth import ENTITIES_PER_TYPE, generate_sixth_dev, romanise_hangul
from bench.pii_corpus.generator import ENTITY_TYPES
from bench.pii_corpus.partition import split_of
from bench.pii_corpus.person_names import in_split as name_in_split
from bench.pii_corpus.phrases_dev_sixth import EXTRA_KINDS


@pytest.fixture(scope="module")
def cases() -> list[dict]:
    return [dict(case) for case in generate_sixth_dev()]


class TestDevSixth(DevCorpusChecks):
    generate = staticmethod(generate_sixth_dev)
    name = dev_sixth.NAME
    contexts = dev_sixth.CONTEXTS_SIXTH
    per_type = ENTITIES_PER_TYPE
    # Faker builds it_IT's towns from a set: unsorted, each process would draw other Italian towns.
    fresh_process_code = "from bench.pii_corpus.dev_sixth import _places; print(_places())"


def _as_written(value: str) -> str:
    """A name as the split rule reads it: without the record formats' separators and titles, or bin/bint, every word
    capitalised (whatever case the context wrote it in)."""
    words = [w for w in re.split(r"[\s,^/@.]+", value) if w and w.upper() not in dev_sixth.TITLES]
    words = [w for w in words if w not in ("bin", "bint")]
    return " ".join("-".join(p[:1].upper() + p[1:].lower() for p in w.split("-")) for w in words)


def test_every_value_is_of_the_dev_half(cases):
    for entity in values(cases, "PERSON"):
        assert name_in_split(_as_written(entity["value"]), "dev"), entity
    for entity in values(cases, "PHONE_NUMBER"):
        region = entity["subtype"].split(":")[1]
        e164 = phonenumbers.format_number(
            phonenumbers.parse(entity["value"], region), phonenumbers.PhoneNumberFormat.E164
        )
        assert split_of(e164) == "dev", entity
    for entity_type in sorted(set(ENTITY_TYPES) - {"PERSON", "PHONE_NUMBER"}):
        for entity in values(cases, entity_type):
            assert split_of(entity["value"]) == "dev", entity  # case and spacing do not change the split


def test_korean_names_are_romanised_syllable_by_syllable():
    assert romanise_hangul("민준") == "Min-jun"
    assert romanise_hangul("영수") == "Yeong-su"
    assert romanise_hangul("서연") == "Seo-yeon"
    assert romanise_hangul("지훈") == "Ji-hun"
    with pytest.raises(ValueError):
        romanise_hangul("Kim")


def test_people_come_from_the_new_sources_in_the_new_shapes(cases):
    people = values(cases, "PERSON")
    sources = Counter(e["subtype"].split(":")[1].split("-")[0] for e in people)
    assert sources["zh_TW"] >= 25 and sources["ko_KR"] >= 20 and sources["arabic"] >= 20
    shapes = Counter(e["subtype"].split(":")[2] for e in people)
    for shape in ("two-initials", "first-last-initial", "hyphenated-surname", "upper-last-comma-first",
                  "patronymic", "family-first", "upper-family-first"):  # fmt: skip
        assert shapes[shape] >= 5, shape
    assert any(re.fullmatch(r"[A-Z]\. [A-Z]\. \S+", e["value"]) for e in people)
    assert sum(" bin " in e["value"] or " bint " in e["value"] for e in people) >= 5
    assert sum(e["subtype"].endswith(":lower") for e in people) >= 5
    assert sum(e["value"].isupper() for e in people) >= 30


def test_places_dates_and_addresses_are_of_the_new_sources(cases):
    places = Counter(e["subtype"].split(":")[1] for e in values(cases, "LOCATION"))
    assert places["city"] >= 100 and places["region"] >= 40 and places["country-other-language"] >= 30
    countries = {e["value"] for e in values(cases, "LOCATION") if e["subtype"].startswith("location:country")}
    assert countries & {"Frankreich", "Allemagne", "Alemania", "Germania", "Niemcy", "Duitsland", "Alemanha",
                        "Spanien", "Espagne", "Spagna", "Hiszpania", "Spanje", "Espanha", "Brasilien", "Brésil",
                        "Schweden", "Suède", "Suecia", "Svezia", "Szwecja", "Zweden", "Suécia"}  # fmt: skip
    addresses = Counter(e["subtype"].split(":")[1] for e in values(cases, "STREET_ADDRESS"))
    assert set(addresses) == set(dev_sixth.ADDRESS_LOCALES)
    forms = Counter(e["subtype"].split(":", 1)[1] for e in values(cases, "DATE_OF_BIRTH"))
    for form in ("hl7:yyyymmdd", "iso", "en:dth-of-month-y", "en:weekday-month-d-y", "pl:d-genitive-y-r",
                 "de:weekday-d.-month-y"):  # fmt: skip
        assert forms[form] >= 1, form
    assert {form.split(":")[0] for form in forms} >= {"en", "es", "fr", "de", "it", "pt", "nl", "pl", "hl7"}


def test_the_record_formats_are_well_formed(cases):
    for case in of_context(cases, "hl7"):
        segments = case["text"].split("\n")
        assert segments[0].startswith("MSH|^~\\&|") and segments[1].startswith("PID|1||")
        assert all(segment[:3] in ("MSH", "PID", "NTE", "PV1") for segment in segments)
    assert all("^" in e["value"] for c in of_context(cases, "hl7") for e in c["entities"] if e["type"] == "PERSON")
    assert all("/" in e["value"] for c in of_context(cases, "itinerary") for e in c["entities"]
               if e["type"] == "PERSON")  # fmt: skip
    for case in of_context(cases, "fhir-json"):
        assert json.loads(case["text"])["resourceType"] == "Patient"
    for case in of_context(cases, "jsonl-nested"):
        for line in case["text"].split("\n"):
            event = json.loads(line)
            (outer,) = set(event) - {"ts", "event"}
            (inner,) = event[outer].values()
            assert isinstance(inner, dict) and len(inner) == 2  # the value, and whether it was verified
    for case in of_context(cases, "crm-tsv"):
        header, row = case["text"].split("\n")
        assert header.count("\t") == row.count("\t")
    python = [c for c in of_context(cases, "code-literal") if not c["text"].startswith("const ")]
    assert python and all(ast.parse(case["text"]) for case in python)
    quoted = of_context(cases, "email-quoted")
    assert sum("\n> " in c["text"] for c in quoted) >= 30 and sum("\n>> " in c["text"] for c in quoted) >= 10
    labels = [e for c in of_context(cases, "shipping-label") for e in c["entities"]
              if e["type"] in ("PERSON", "LOCATION", "STREET_ADDRESS")]  # fmt: skip
    assert labels and all(e["value"] == e["value"].upper() for e in labels)  # "7ª" has no capital
    for case in of_context(cases, "bank-statement"):  # each value a line's words say what it is
        lines = [line for line in case["text"].split("\n") if re.match(r"\d\d [A-Z]{3}  ", line)]
        assert all(re.match(r"\d\d [A-Z]{3}  [A-Z -]+ \S", line) for line in lines)
        booked = [e for e in case["entities"] if any(e["value"] in line for line in lines)]
        assert all(e["type"] in ("IBAN_CODE", "CREDIT_CARD", "LOCATION", "PHONE_NUMBER") for e in booked), case
    routes = [c for c in of_context(cases, "itinerary") if " FROM " in c["text"]]
    assert routes and all(
        sum(e["type"] == "LOCATION" for e in c["entities"]) == 2 * c["text"].count(" FROM ") for c in routes
    )


def test_chat_is_in_eight_languages_with_mentions(cases):
    chats = [c for c in cases if c["context"].startswith("slack-")]
    assert {c["context"] for c in chats} == {f"slack-{lang}" for lang in dev_sixth.CHAT_LANGS}
    assert all(re.match(r"#[\w-]+\n\[\d\d:\d\d\] ", c["text"]) for c in chats)
    mentioned = [e for c in chats for e in c["entities"] if e["type"] == "PERSON" and c["text"][e["start"] - 1] == "@"]
    assert len(mentioned) >= 10


def test_hard_negatives_of_this_corpus(cases):
    negatives = Counter(n["kind"] for case in cases for n in case["negatives"])
    assert all(negatives[kind] >= 100 for kind in EXTRA_KINDS)
    companies = {n["value"] for case in cases for n in case["negatives"] if n["kind"] == "company"}
    assert "Johnson Controls" in companies or "Johnson & Johnson" in companies
    assert any(value.endswith(dev_sixth.COMPANY_SUFFIXES) for value in companies)
