"""The ninth dev-side PII corpus (``bench.pii_corpus.dev_ninth``, ``--split dev-9``): reproducible (in any
process), dev values only, offsets exact, checksummed values valid, and made of what it promises (names of countries
no other split names and names in scripts without capitals, regions and seventeen languages' country names, thirteen
more languages' dates, addresses in their own scripts and ten more forms, payment, enrolment, subtitle, config,
schema-language and syslog formats no other split writes, hard negatives)."""

from __future__ import annotations

import configparser
import datetime as dt
import re
import tomllib
import xml.dom.minidom
from collections import Counter

import phonenumbers
import pytest
from faker.providers.person.vi_VN import Provider as VietnameseNames
from pii_corpus_support import (
    DevCorpusChecks,
    of_context,
    values,
)
from stdnum import iban, lei, luhn

from bench.pii_corpus import dev_eighth, dev_ninth, written_dates
from bench.pii_corpus.dev_ninth import ENTITIES_PER_TYPE, generate_ninth_dev
from bench.pii_corpus.far_names import COUNTRIES as FAR_COUNTRIES
from bench.pii_corpus.generator import ENTITY_TYPES
from bench.pii_corpus.national_ids import is_valid_id
from bench.pii_corpus.ninth_names import COUNTRIES, ninth_names
from bench.pii_corpus.partition import split_of
from bench.pii_corpus.person_names import in_split as name_in_split
from bench.pii_corpus.person_names import is_written_name
from bench.pii_corpus.world_names import COUNTRIES as WORLD_COUNTRIES


@pytest.fixture(scope="module")
def cases() -> list[dict]:
    return [dict(case) for case in generate_ninth_dev()]


class TestDevNinth(DevCorpusChecks):
    generate = staticmethod(generate_ninth_dev)
    name = dev_ninth.NAME
    contexts = dev_ninth.CONTEXTS_NINTH
    per_type = ENTITIES_PER_TYPE
    # Faker and pycountry build some tables from sets; drawn from in their order, each process would make another
    # corpus.
    fresh_process_code = (
        "from bench.pii_corpus.dev_ninth import generate_ninth_dev as g; print(g(entities_per_type=40))"
    )


def _as_written(value: str) -> str:
    """A name as its source writes it: X12's ``LAST*FIRST`` and SWIFT's capitals put back."""
    return " ".join(word[:1].upper() + word[1:].lower() for word in re.split(r"[ *]", value))


def test_every_value_is_of_the_dev_half(cases):
    for entity in values(cases, "PERSON"):
        if entity["subtype"].endswith(":script"):
            assert split_of(entity["value"]) == "dev", entity
        else:
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


def test_dates_are_written_as_each_language_writes_them():
    date, rng = dt.date(1987, 4, 3), _Named()
    expected = {"is": "3. apríl 1987", "mt": "3 ta' April 1987", "eu": "1987ko apirilaren 3a",
                "ca": "3 d'abril de 1987", "gl": "3 de abril de 1987", "sw": "3 Aprili 1987", "af": "3 April 1987",
                "el": "3 Απριλίου 1987", "he": "3 באפריל 1987", "uk": "3 квітня 1987 р.", "bg": "3 април 1987 г.",
                "sr": "3. април 1987."}  # fmt: skip
    assert {style: written_dates.written(date, style, rng)[0] for style in expected} == expected
    assert written_dates.written(dt.date(1987, 5, 3), "ca", rng)[0] == "3 de maig de 1987"
    assert written_dates.written(date, "iso", rng)[0] == "1987-04-03"
    assert written_dates.written(date, "ccyymmdd", rng)[0] == "19870403"


class _Named:
    """An rng that always picks the named-month form (and the first of a choice)."""

    def random(self) -> float:
        return 0.0

    def choice(self, options: list) -> object:
        return options[0]


def _date_of(value: str, form: str) -> dt.date:
    """The Gregorian date a dev-9 date of birth writes (its form says how)."""
    style = form.split(":")[0]
    if style == "iso":
        return dt.date.fromisoformat(value)
    if style == "ccyymmdd":
        return dt.datetime.strptime(value, "%Y%m%d").date()
    numbers = [int(n) for n in re.findall(r"\d+", value)]
    if form.endswith("named-month"):
        month = next(i for i, name in enumerate(written_dates.MONTHS.get(style, ()), 1) if name in value) \
            if style != "vi" else numbers[1]  # fmt: skip
        day, year = (numbers[1], numbers[0]) if style == "eu" else (numbers[0], numbers[-1])
        return dt.date(year, month, day)
    if style == "eu":
        return dt.date(numbers[0], numbers[1], numbers[2])
    return dt.date(numbers[2], numbers[1], numbers[0])


def test_people_places_dates_and_addresses_are_of_the_new_sources(cases):
    people = values(cases, "PERSON")
    sources = Counter(e["subtype"].split(":")[1] for e in people)
    drawn = {c for group in COUNTRIES.values() for c in group}
    assert set(sources) == drawn | set(dev_ninth.SCRIPT_LOCALES)
    assert all(sum(sources[c] for c in group) >= 10 for group in COUNTRIES.values())  # each group drawn alike
    assert all(sources[locale] >= 5 for locale in dev_ninth.SCRIPT_LOCALES)
    assert not drawn & {c for groups in (WORLD_COUNTRIES, FAR_COUNTRIES) for group in groups.values() for c in group}
    assert sum(":two-surnames" in e["subtype"] for e in people) >= 10
    scripts = [e["value"] for e in people if e["subtype"].endswith(":script")]
    assert len(scripts) >= 50 and not any(any(c.isupper() or c.islower() for c in v) for v in scripts)
    x12 = [e["value"] for e in people if e["subtype"].endswith(":x12")]
    assert len(x12) >= 10 and all(re.fullmatch(r"[^\W\d_]+(?: [^\W\d_]+)*\*[^\W\d_]+", v) for v in x12)
    assert sum(e["subtype"].endswith(":upper") for e in people) >= 10
    kinds = Counter(e["subtype"].split(":")[1] for e in values(cases, "LOCATION"))
    assert kinds["region"] >= 60 and kinds["country"] >= 60
    regions = {e["subtype"].split(":")[2] for e in values(cases, "LOCATION") if ":region:" in e["subtype"]}
    assert regions == set(dev_ninth.REGION_COUNTRIES)
    languages = {e["subtype"].split(":")[2] for e in values(cases, "LOCATION") if ":country:" in e["subtype"]}
    assert languages == set(dev_ninth.COUNTRY_LANGUAGES)
    forms = Counter(e["subtype"].split(":")[1] for e in values(cases, "STREET_ADDRESS"))
    assert set(forms) == set(dev_ninth.SCRIPT_ADDRESSES) | set(dev_ninth.ADDRESS_FORMS)
    # Vietnamese streets carry a full name, family name first, without Faker's titles ("Chị", "Bác")
    surnames = set(VietnameseNames.last_names)
    for entity in (e for e in values(cases, "STREET_ADDRESS") if e["subtype"] == "address:vi"):
        street = re.split(r" (?:đường|phố) ", entity["value"])[1].split()
        assert len(street) >= 3 and street[0] in surnames, entity
    births = values(cases, "DATE_OF_BIRTH")
    styles = {e["subtype"].split(":")[1] for e in births}
    assert styles == set(written_dates.STYLES) | set(written_dates.MACHINE_STYLES)
    for entity in births:
        born = _date_of(entity["value"], entity["subtype"].removeprefix("dob:"))
        assert dt.date(1936, 1, 1) <= born < dt.date(2006, 1, 1), entity


def test_the_ninth_names_snapshot_holds_latin_names_of_the_dev_half():
    names = ninth_names().names
    for kind in ("first_female", "first_male", "last"):
        for country in (c for group in COUNTRIES.values() for c in group):
            listed = names[kind][country]
            assert len(listed) >= 50, (kind, country)
            assert all(is_written_name(n) and name_in_split(n, "dev") and " " not in n for n in listed)
            assert all(all(ord(c) < 0x0250 for c in n) for n in listed)


_SEGMENT = re.compile(r"(ISA|ST|BGN|INS|REF|NM1|PER|N3|N4|DMG|MSG|SE)(\*[^~]*)?~")


def test_the_formats_are_well_formed(cases):
    for case in of_context(cases, "iso20022-xml"):
        root = xml.dom.minidom.parseString(case["text"]).documentElement
        assert root.tagName == "CdtTrfTxInf"
        texts = [node.firstChild.data for node in root.getElementsByTagName("*")
                 if node.firstChild is not None and node.firstChild.nodeType == node.TEXT_NODE]  # fmt: skip
        for span in case["entities"] + case["negatives"]:
            assert any(span["value"] in text for text in texts), span
    for case in of_context(cases, "toml-config"):
        parsed = tomllib.loads(case["text"])
        leaves = [str(v) for table in parsed.values() if isinstance(table, dict) for v in _leaves(table)]
        assert sorted(leaves) == sorted(s["value"] for s in case["entities"] + case["negatives"])
    for case in of_context(cases, "ini-config"):
        parser = configparser.ConfigParser(interpolation=None)
        parser.read_string(case["text"])
        found = [value for section in parser.sections() for value in parser[section].values()]
        assert sorted(found) == sorted(s["value"] for s in case["entities"] + case["negatives"])
    for case in of_context(cases, "edi-x12"):
        lines = case["text"].split("\n")
        assert all(_SEGMENT.fullmatch(line) for line in lines), case["text"]
        assert lines[0].startswith("ISA*") and lines[-1].startswith("SE*")
    for case in of_context(cases, "swift-mt103"):
        text = case["text"]
        assert re.match(r"\{1:F01[A-Z]{8}AXXX\d{10}\}\{2:I103[A-Z]{8}XXXXN\}\{3:\{108:[A-Z]{3}\d{6}\}\}\{4:\n", text)
        assert text.endswith("\n-}") and ":23B:CRED\n" in text and ":50F:/" in text and "\n:59:/" in text
    for case in of_context(cases, "srt-subtitles"):
        cues = case["text"].rstrip("\n").split("\n\n")
        for number, cue in enumerate(cues, 1):
            first, stamps, *said = cue.split("\n")
            assert first == str(number) and said
            assert re.fullmatch(r"\d\d:\d\d:\d\d,\d{3} --> \d\d:\d\d:\d\d,\d{3}", stamps)
    for case in of_context(cases, "syslog-5424"):
        for line in case["text"].split("\n"):
            assert re.match(r"<\d{1,3}>1 \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+\d\d:\d\d \S+ \S+ \d+ \S+ "
                            r"(-|\[meta@32473 \w+=\"[^\"]*\" seq=\"\d+\"\]) ", line), line  # fmt: skip
    for case in of_context(cases, "graphql-mutation") + of_context(cases, "protobuf-text"):
        assert case["text"].count("{") == case["text"].count("}")
    for name in ("chat-vi", "chat-el", "chat-he", "chat-bg"):
        for case in of_context(cases, name):
            assert all(re.match(r"\[\d\d:\d\d\] [\w.]+: ", line) for line in case["text"].split("\n"))


def _leaves(table: dict) -> list:
    return [leaf for value in table.values() for leaf in (_leaves(value) if isinstance(value, dict) else [value])]


def test_hard_negatives_of_this_corpus(cases):
    negatives = [n for case in cases for n in case["negatives"]]
    kinds = Counter(n["kind"] for n in negatives)
    assert all(kinds[kind] >= 100 for kind in dev_ninth.EXTRA_KINDS)
    for negative in negatives:
        digits = re.sub(r"[ -]", "", negative["value"])
        assert not (digits.isdigit() and 12 <= len(digits) <= 19 and luhn.is_valid(digits)), negative
    leis = [
        n["value"] for n in negatives if n["kind"] == "other_id" and re.fullmatch(r"\d{4}00[A-Z0-9]{14}", n["value"])
    ]
    assert leis and all(lei.is_valid(v) for v in leis)
    assert not {n["value"] for n in negatives if n["kind"] == "person_named"} & set(dev_ninth.PLACE_NAMED)
    # none of dev-8's: these are new names
    assert not (set(dev_ninth.PERSON_NAMED) | set(dev_ninth.PLACE_NAMED)) & (set(dev_eighth.PERSON_NAMED)
                                                                            | set(dev_eighth.PLACE_NAMED))  # fmt: skip
