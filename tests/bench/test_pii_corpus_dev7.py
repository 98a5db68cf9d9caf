"""The seventh dev-side PII corpus (``bench.pii_corpus.dev_seventh``, ``--split dev-7``): reproducible (in any
process), dev values only, offsets exact, checksummed values valid, and made of what it promises (romanised names,
other locales' towns, dates and addresses, record and transcript formats no other split writes, hard negatives)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections import Counter

import phonenumbers
import pytest
from pii_corpus_support import (
    DevCorpusChecks,
    of_context,
    values,
)
from stdnum import ean, iban, luhn

from bench.pii_corpus import dev_seventh
from bench.pii_corpus.dev_seventh import ENTITIES_PER_TYPE, generate_seventh_dev
from bench.pii_corpus.generator import ENTITY_TYPES
from bench.pii_corpus.national_ids import is_valid_id
from bench.pii_corpus.partition import split_of
from bench.pii_corpus.person_names import in_split as name_in_split
from bench.pii_corpus.romanise import romanise


@pytest.fixture(scope="module")
def cases() -> list[dict]:
    return [dict(case) for case in generate_seventh_dev()]


class TestDevSeventh(DevCorpusChecks):
    generate = staticmethod(generate_seventh_dev)
    name = dev_seventh.NAME
    contexts = dev_seventh.CONTEXTS_SEVENTH
    per_type = ENTITIES_PER_TYPE
    # Faker builds some lists from sets; drawn from in their order, each process would make another corpus.
    fresh_process_code = (
        "from bench.pii_corpus.dev_seventh import generate_seventh_dev as g; print(g(entities_per_type=40))"
    )


def test_every_value_is_of_the_dev_half(cases):
    for entity in values(cases, "PERSON"):
        written = " ".join(w[:1].upper() + w[1:] for w in entity["value"].split())  # transcripts write lower case
        assert name_in_split(written, "dev"), entity
    for entity in values(cases, "PHONE_NUMBER"):
        region = entity["subtype"].split(":")[1]
        e164 = phonenumbers.format_number(
            phonenumbers.parse(entity["value"], region), phonenumbers.PhoneNumberFormat.E164
        )
        assert split_of(e164) == "dev", entity
    for entity_type in sorted(set(ENTITY_TYPES) - {"PERSON", "PHONE_NUMBER"}):
        for entity in values(cases, entity_type):
            assert split_of(entity["value"]) == "dev", entity  # case, spacing and line breaks do not change it


def test_checksummed_values_are_valid(cases):
    for entity in values(cases, "CREDIT_CARD"):
        assert luhn.is_valid(re.sub(r"[ -]", "", entity["value"])), entity
    assert all(iban.is_valid(e["value"]) for e in values(cases, "IBAN_CODE"))
    for entity in values(cases, "NATIONAL_ID") + values(cases, "US_SSN"):
        assert is_valid_id(entity["subtype"].split(":")[1], entity["value"]), entity
    for entity in values(cases, "PHONE_NUMBER"):
        region = entity["subtype"].split(":")[1]
        assert phonenumbers.is_valid_number_for_region(phonenumbers.parse(entity["value"], region), region), entity


def test_names_are_romanised_as_passports_write_them():
    assert romanise("Μπακογιάννης", "greek") == "Bakogiannis"
    assert romanise("Ευάγγελος Ρόδης", "greek") == "Evangelos Rodis"
    assert romanise("Анжелика Денисова", "russian") == "Anzhelika Denisova"
    assert romanise("Володимир Гук", "ukrainian") == "Volodymyr Huk"
    assert romanise("Вʼячеслав", "ukrainian") == "Vyacheslav"
    assert romanise("Щерев", "bulgarian") == "Shterev"
    assert romanise("Երևան", "armenian") == "Yerevan"
    assert romanise("Գոռ Քալանթարյան", "armenian") == "Gor Kalantaryan"
    assert romanise("ბათუმი", "georgian") == "Batumi"
    with pytest.raises(ValueError):
        romanise("Kim", "korean")


def test_people_places_dates_and_addresses_are_of_the_new_sources(cases):
    people = values(cases, "PERSON")
    assert all(re.fullmatch(r"[A-Za-z' \n-]+", e["value"]) for e in people)  # Latin letters only
    sources = Counter(e["subtype"].split(":")[1] for e in people)
    assert set(sources) == set(dev_seventh.NAME_LOCALES) and min(sources.values()) >= 15
    shapes = Counter(e["subtype"].split(":")[2] for e in people)
    assert shapes["last-first-patronymic"] >= 5 and shapes["first-patronymic-last"] >= 5
    assert sum(e["subtype"].endswith(":lower") for e in people) >= 20
    broken = [e for c in cases for e in c["entities"] if e["subtype"].endswith(":line-broken")]
    assert len(broken) >= 10 and all("\n" in e["value"] and e["type"] in dev_seventh._WORDED for e in broken)
    towns = Counter(e["subtype"].split(":")[2] for e in values(cases, "LOCATION") if ":town:" in e["subtype"])
    assert set(towns) == set(dev_seventh.TOWN_LISTS)
    countries = {e["value"] for e in values(cases, "LOCATION") if ":country:" in e["subtype"]}
    assert len(countries) >= 30
    addresses = Counter(e["subtype"].split(":")[1] for e in values(cases, "STREET_ADDRESS"))
    assert set(addresses) == set(dev_seventh.ADDRESS_LOCALES)
    forms = Counter(e["subtype"].split(":")[1] for e in values(cases, "DATE_OF_BIRTH"))
    assert set(forms) >= {"voice", "vcard", "ja", "hu", "fi", "id", "da", "no"}
    spoken = [e["value"] for e in values(cases, "DATE_OF_BIRTH") if e["subtype"].startswith("dob:voice")]
    assert spoken and all(re.fullmatch(r"[a-z ]+", value) for value in spoken)


def test_the_formats_are_well_formed(cases):
    for case in of_context(cases, "soap-xml"):
        assert ET.fromstring(case["text"]).tag == "{http://schemas.xmlsoap.org/soap/envelope/}Envelope"
    for case in of_context(cases, "vcard"):
        lines = case["text"].split("\n")
        assert lines[0] == "BEGIN:VCARD" and lines[-1] == "END:VCARD"
        assert all(re.match(r"[A-Za-z][\w;=,-]*:", line) for line in lines)
    for case in of_context(cases, "ics-invite"):
        lines = case["text"].split("\n")
        assert lines[0] == "BEGIN:VCALENDAR" and lines[-1] == "END:VCALENDAR" and "BEGIN:VEVENT" in lines
    for case in of_context(cases, "ldif"):
        lines = case["text"].split("\n")
        assert lines[0].startswith("dn: uid=") and all(re.match(r"[A-Za-z_]\w*: ", line) for line in lines)
    for case in (c for c in cases if c["context"].startswith("semicolon-csv-")):
        header, row = case["text"].split("\n")
        assert header.count(";") == row.count(";")
    for case in of_context(cases, "git-log"):
        assert re.match(r"commit [0-9a-f]{40}\nAuthor: .+ <\S+@acme\.example>\nDate: ", case["text"])
    for case in of_context(cases, "voice-transcript"):  # no punctuation but inside the values
        text = case["text"]
        for entity in sorted(case["entities"] + case["negatives"], key=lambda s: -s["start"]):
            text = text[: entity["start"]] + text[entity["end"] :]
        assert not re.search(r"[.,;?!]", text), case["text"]
    pdf = of_context(cases, "pdf-extract")
    assert all(re.match(r".+ {4}Page \d of \d\n\n", c["text"]) for c in pdf)
    assert sum(bool(re.search(r"[a-z]-\n[a-z]", c["text"])) for c in pdf) >= 10  # hyphenated at a line's end
    senders = [c for c in cases if c["context"].startswith("sms-") and c["entities"]]
    first = [c["entities"][0] for c in senders]
    assert sum(e["type"] == "PERSON" and c["text"][e["end"]] == ":" for c, e in zip(senders, first, strict=True)) >= 20


def test_hard_negatives_of_this_corpus(cases):
    negatives = [n for case in cases for n in case["negatives"]]
    kinds = Counter(n["kind"] for n in negatives)
    assert all(kinds[kind] >= 100 for kind in dev_seventh.EXTRA_KINDS)
    for negative in negatives:
        digits = re.sub(r"[ -]", "", negative["value"])
        assert not (digits.isdigit() and 12 <= len(digits) <= 19 and luhn.is_valid(digits)), negative
    isbns = [n["value"] for n in negatives if n["value"].startswith("ISBN ")]
    assert isbns and all(ean.is_valid(v.removeprefix("ISBN ").replace("-", "")) for v in isbns)
