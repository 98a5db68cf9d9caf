"""The eighth dev-side PII corpus (``bench.pii_corpus.dev_eighth``, ``--split dev-8``): reproducible (in any
process), dev values only, offsets exact, checksummed values valid, and made of what it promises (names of countries
no other split names, regions and other languages' country names, eight more date traditions, ten address forms,
record and chat formats no other split writes, hard negatives)."""

from __future__ import annotations

import datetime as dt
import json
import re
from collections import Counter
from html.parser import HTMLParser

import phonenumbers
import pytest
import yaml
from pii_corpus_support import (
    DevCorpusChecks,
    of_context,
    values,
)
from stdnum import iban, luhn

from bench.pii_corpus import calendars, dev_eighth
from bench.pii_corpus.dev_eighth import ENTITIES_PER_TYPE, generate_eighth_dev
from bench.pii_corpus.far_names import COUNTRIES, far_names
from bench.pii_corpus.generator import ENTITY_TYPES
from bench.pii_corpus.national_ids import is_valid_id
from bench.pii_corpus.partition import split_of
from bench.pii_corpus.person_names import in_split as name_in_split
from bench.pii_corpus.world_names import COUNTRIES as WORLD_COUNTRIES


@pytest.fixture(scope="module")
def cases() -> list[dict]:
    return [dict(case) for case in generate_eighth_dev()]


class TestDevEighth(DevCorpusChecks):
    generate = staticmethod(generate_eighth_dev)
    name = dev_eighth.NAME
    contexts = dev_eighth.CONTEXTS_EIGHTH
    per_type = ENTITIES_PER_TYPE
    # Faker and pycountry build some tables from sets; drawn from in their order, each process would make another
    # corpus.
    fresh_process_code = (
        "from bench.pii_corpus.dev_eighth import generate_eighth_dev as g; print(g(entities_per_type=40))"
    )


def _as_written(value: str) -> str:
    """A name as its source writes it: telex's ``SURNAME/FIRST`` and chat's lower case put back."""
    return " ".join(word[:1].upper() + word[1:].lower() for word in re.split(r"[ /]", value))


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
            assert split_of(entity["value"]) == "dev", entity  # case does not change it


def test_checksummed_values_are_valid(cases):
    for entity in values(cases, "CREDIT_CARD"):
        assert luhn.is_valid(re.sub(r"[ -]", "", entity["value"])), entity
    assert all(iban.is_valid(e["value"]) for e in values(cases, "IBAN_CODE"))
    for entity in values(cases, "NATIONAL_ID") + values(cases, "US_SSN"):
        assert is_valid_id(entity["subtype"].split(":")[1], entity["value"]), entity
    for entity in values(cases, "PHONE_NUMBER"):
        region = entity["subtype"].split(":")[1]
        assert phonenumbers.is_valid_number_for_region(phonenumbers.parse(entity["value"], region), region), entity


def test_persian_dates_are_the_solar_hijri_days_of_the_gregorian_ones():
    assert calendars.to_jalali(dt.date(2024, 3, 20)) == (1403, 1, 1)  # Nowruz
    assert calendars.to_jalali(dt.date(1979, 2, 11)) == (1357, 11, 22)
    assert calendars.to_jalali(dt.date(2000, 1, 1)) == (1378, 10, 11)
    assert calendars.to_jalali(dt.date(1987, 9, 22)) == (1366, 6, 31)  # the last day of a 31-day month


def test_people_places_dates_and_addresses_are_of_the_new_sources(cases):
    people = values(cases, "PERSON")
    countries = Counter(e["subtype"].split(":")[1] for e in people)
    drawn = {c for group in COUNTRIES.values() for c in group}
    assert set(countries) == drawn and min(countries.values()) >= 5
    assert not drawn & {c for group in WORLD_COUNTRIES.values() for c in group}  # none of dev-3's countries
    shapes = Counter(e["subtype"].split(":")[2] for e in people)
    assert shapes["family-first"] >= 10
    for entity in (e for e in people if ":family-first" in e["subtype"] and ":telex" not in e["subtype"]):
        last = entity["value"].split()[0]
        assert last.lower() in {n.lower() for n in far_names().names["last"][entity["subtype"].split(":")[1]]}
    telex = [e for e in people if e["subtype"].endswith(":telex")]
    assert len(telex) >= 10 and all(re.fullmatch(r"[^\W\d_]+/[^\W\d_]+", e["value"]) for e in telex)
    assert sum(e["value"].isupper() for e in telex) >= 0.9 * len(telex)
    assert sum(e["subtype"].endswith(":lower") for e in people) >= 10
    kinds = Counter(e["subtype"].split(":")[1] for e in values(cases, "LOCATION"))
    assert kinds["region"] >= 80 and kinds["country"] >= 80
    regions = {e["subtype"].split(":")[2] for e in values(cases, "LOCATION") if ":region:" in e["subtype"]}
    assert regions == set(dev_eighth.REGION_COUNTRIES)
    forms = Counter(e["subtype"].split(":")[1] for e in values(cases, "STREET_ADDRESS"))
    assert set(forms) == set(dev_eighth.ADDRESS_FORMS)
    styles = {e["subtype"].split(":")[1] for e in values(cases, "DATE_OF_BIRTH")}
    assert styles == set(calendars.STYLES)
    telex_dates = [e["value"] for e in values(cases, "DATE_OF_BIRTH") if e["subtype"].startswith("dob:telex")]
    assert telex_dates and all(re.fullmatch(r"\d{2}[A-Z]{3}\d{2}", v) for v in telex_dates)
    for entity in values(cases, "DATE_OF_BIRTH"):
        if entity["subtype"].startswith("dob:th-be"):
            assert 2479 <= int(entity["value"].rsplit("/", 1)[1]) <= 2549  # 1936-2006 in the Buddhist era


class _Inputs(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.values: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "input":
            self.values.append(dict(attrs)["value"] or "")


def test_the_formats_are_well_formed(cases):
    for case in of_context(cases, "slack-export"):
        messages = json.loads(case["text"])
        assert all(m["type"] == "message" and re.fullmatch(r"\d+\.\d{6}", m["ts"]) for m in messages)
        names = {m["user_profile"]["real_name"] for m in messages if "user_profile" in m}
        assert names == {e["value"] for e in case["entities"] if e["type"] == "PERSON"}
    for case in of_context(cases, "k8s-manifest"):
        manifest = yaml.safe_load(case["text"])
        env = manifest["spec"]["template"]["spec"]["containers"][0]["env"]
        assert [e["value"] for e in env] == [s["value"] for s in sorted(case["entities"] + case["negatives"],
                                                                        key=lambda s: s["start"])]  # fmt: skip
    for case in of_context(cases, "html-form"):
        parser = _Inputs()
        parser.feed(case["text"])
        spans = sorted(case["entities"] + case["negatives"], key=lambda s: s["start"])
        assert parser.values == [s["value"] for s in spans]
    for case in of_context(cases, "meeting-vtt"):
        assert case["text"].startswith("WEBVTT\n\n")
        assert all(re.fullmatch(r"\d\d:\d\d:\d\d\.\d{3} --> \d\d:\d\d:\d\d\.\d{3}", line)
                   for line in case["text"].split("\n")[2::3])  # fmt: skip
    for case in of_context(cases, "cef-event"):
        assert re.match(r"CEF:0\|Acme\|EdgeGuard\|4\.\d\|\d+\|[^|]+\|\d\|rt=\d+ ", case["text"])
    for case in of_context(cases, "airline-telex") + of_context(cases, "ocr-receipt"):
        words = case["text"]
        for span in sorted(case["entities"] + case["negatives"], key=lambda s: -s["start"]):
            words = words[: span["start"]] + words[span["end"] :]
        assert words == words.upper(), case["text"]  # printed in capitals, but for what a value keeps
    for case in of_context(cases, "github-issue"):
        assert case["text"].startswith("### ") and case["text"].count("```") in (0, 2)


def test_hard_negatives_of_this_corpus(cases):
    negatives = [n for case in cases for n in case["negatives"]]
    kinds = Counter(n["kind"] for n in negatives)
    assert all(kinds[kind] >= 100 for kind in dev_eighth.EXTRA_KINDS)
    for negative in negatives:
        digits = re.sub(r"[ -]", "", negative["value"])
        assert not (digits.isdigit() and 12 <= len(digits) <= 19 and luhn.is_valid(digits)), negative
    arns = [n["value"] for n in negatives if n["value"].startswith("arn:aws:")]
    assert arns and all(not luhn.is_valid(v.split(":")[4]) for v in arns)
    assert not {n["value"] for n in negatives if n["kind"] == "person_named"} & set(dev_eighth.PLACE_NAMED)
