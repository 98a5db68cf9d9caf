"""The PII evaluation corpus: reproducible, splits disjoint, every labelled value valid per its own library, every
offset exact, every hard negative failing the check that would make it PII."""

from __future__ import annotations

import base64
import datetime as dt
import ipaddress
import itertools
import json
import re
import subprocess
import sys
import unicodedata
import uuid
from collections import Counter
from pathlib import Path

import phonenumbers
import pytest
from cryptography.hazmat.primitives.serialization import load_pem_private_key
from faker import Faker
from stdnum import iban, luhn

from bench.pii_corpus import ENTITIES_PER_TYPE, ENTITY_TYPES, generate
from bench.pii_corpus.cards import NETWORKS
from bench.pii_corpus.contexts import CONTEXTS
from bench.pii_corpus.credentials import github_token_checksum_ok
from bench.pii_corpus.dates import MONTHS
from bench.pii_corpus.decoys import is_phone_anywhere
from bench.pii_corpus.national_ids import is_valid_id
from bench.pii_corpus.partition import normalise
from bench.pii_corpus.people import _places
from bench.pii_corpus.person_names import PERSON_LOCALES

DATA = Path(__file__).resolve().parents[2] / "bench" / "data"


@pytest.fixture(scope="module")
def corpus() -> dict[str, list[dict]]:
    return {split: generate(split) for split in ("dev", "test")}


def entities(cases: list[dict], entity_type: str | None = None) -> list[dict]:
    return [e for case in cases for e in case["entities"] if entity_type in (None, e["type"])]


def test_same_seed_same_corpus_other_seed_other_corpus():
    first = generate("dev", seed=5, entities_per_type=30)
    assert first == generate("dev", seed=5, entities_per_type=30)
    assert first != generate("dev", seed=6, entities_per_type=30)


def test_unknown_split_is_refused():
    with pytest.raises(ValueError, match="split"):
        generate("train")


def test_every_type_has_its_quota_and_every_context_appears(corpus):
    for split, cases in corpus.items():
        counts = Counter(e["type"] for e in entities(cases))
        assert set(counts) == set(ENTITY_TYPES)
        assert min(counts.values()) >= ENTITIES_PER_TYPE >= 300, (split, counts)
        assert {case["context"] for case in cases} == {context.name for context in CONTEXTS}
        assert sum(len(case["negatives"]) for case in cases) >= 1000
        assert all(case["split"] == split for case in cases)
        assert len({case["id"] for case in cases}) == len(cases)


def test_splits_share_no_value(corpus):
    dev = {normalise(e["value"]) for e in entities(corpus["dev"])}
    test = {normalise(e["value"]) for e in entities(corpus["test"])}
    assert not dev & test
    # Names are disjoint word by word: no first or last name of a dev PERSON is in a test PERSON. Particles ("van",
    # "de", "da"), written in lower case inside names, are shared by many names and decide nothing; so is one that
    # opens a Flemish surname capitalised before another particle ("Van den Bergh").
    people = entities(corpus["dev"] + corpus["test"], "PERSON")
    cased = [re.split(r"[ \-]", e["value"]) for e in people if e["value"] != e["value"].lower()]
    particles = {word for words in cased for word in words if word[:1].islower()}
    particles |= {word.lower() for words in cased for word, following in itertools.pairwise(words)
                  if len(word) <= 3 and following.lower() in particles}  # fmt: skip
    parts = {split: {normalise(p) for e in entities(cases, "PERSON") for p in re.split(r"[ \-]", e["value"])
                     if len(p) > 2 and p.lower() not in particles} for split, cases in corpus.items()}  # fmt: skip
    assert not parts["dev"] & parts["test"]


def test_offsets_are_exact_and_spans_do_not_overlap(corpus):
    for case in corpus["dev"] + corpus["test"]:
        spans = []
        for span in case["entities"] + case["negatives"]:
            assert case["text"][span["start"] : span["end"]] == span["value"], (case["id"], span)
            spans.append((span["start"], span["end"]))
        spans.sort()
        assert all(end <= next_start for (_, end), (next_start, _) in itertools.pairwise(spans)), case["id"]


def test_values_sit_at_the_start_and_at_the_end_of_texts(corpus):
    cases = corpus["test"]
    assert sum(any(e["start"] == 0 for e in case["entities"]) for case in cases) >= 100
    assert sum(any(e["end"] == len(case["text"]) for e in case["entities"]) for case in cases) >= 100


def test_cards_are_luhn_valid_and_in_their_network_ranges(corpus):
    for entity in entities(corpus["dev"] + corpus["test"], "CREDIT_CARD"):
        digits = re.sub(r"[ -]", "", entity["value"])
        _, network, style = entity["subtype"].split(":")
        assert luhn.is_valid(digits) and 12 <= len(digits) <= 19, entity
        ranges, lengths = NETWORKS[network]
        assert len(digits) in lengths, entity
        assert any(low <= int(digits[: len(str(low))]) <= high for low, high in ranges), entity
        assert (style == "plain") == (entity["value"] == digits)


def test_ibans_and_national_ids_are_valid_per_stdnum(corpus):
    cases = corpus["dev"] + corpus["test"]
    assert all(iban.is_valid(e["value"]) for e in entities(cases, "IBAN_CODE"))
    assert len({e["subtype"].split(":")[1] for e in entities(cases, "IBAN_CODE")}) >= 70  # countries
    schemes = Counter()
    for entity in entities(cases, "NATIONAL_ID") + entities(cases, "US_SSN"):
        scheme = entity["subtype"].split(":")[1]
        schemes[scheme] += 1
        assert is_valid_id(scheme, entity["value"]), entity
    assert set(schemes) >= {"gb.nino", "de.idnr", "fr.nir", "es.dni", "es.nie", "it.codicefiscale", "br.cpf",
                            "in.pan", "in.aadhaar", "us.itin", "us.ssn"}  # fmt: skip


def test_phones_are_valid_numbers_of_their_region(corpus):
    regions = set()
    for entity in entities(corpus["dev"] + corpus["test"], "PHONE_NUMBER"):
        _, region, _, style = entity["subtype"].split(":")
        number = phonenumbers.parse(entity["value"], region)
        assert phonenumbers.is_valid_number_for_region(number, region), entity
        assert entity["value"].startswith("+") == (style != "NATIONAL")
        regions.add(region)
    assert len(regions) >= 150


def test_ip_addresses_parse(corpus):
    versions = Counter(ipaddress.ip_address(e["value"]).version for e in entities(corpus["test"], "IP_ADDRESS"))
    assert versions[4] >= 100 and versions[6] >= 100


def test_emails_have_one_at_and_an_encodable_domain(corpus):
    idn = 0
    for entity in entities(corpus["dev"] + corpus["test"], "EMAIL_ADDRESS"):
        local, domain = entity["value"].split("@")
        assert local and "." in domain and " " not in entity["value"]
        assert domain.encode("idna")
        idn += not domain.isascii()
    assert idn >= 20


def test_dates_of_birth_are_real_dates(corpus):
    for entity in entities(corpus["dev"] + corpus["test"], "DATE_OF_BIRTH"):
        form = entity["subtype"].removeprefix("dob:")
        if form.startswith("%"):
            assert 1935 <= dt.datetime.strptime(entity["value"], form).year <= 2007, entity
        else:
            lang = form.split(":")[0]
            assert any(month.lower()[:3] in entity["value"].lower() for month in MONTHS[lang]), entity
            assert 1935 <= int(re.findall(r"\d{4}", entity["value"])[-1]) <= 2007


def _faker_name_words(locale: str) -> set[str]:
    """Every word of every name list Faker's person provider of `locale` holds (first_names, unisex_last_names,
    last_romanized_names, ...)."""
    provider = next(p for p in Faker(locale).get_providers() if p.__module__.startswith("faker.providers.person"))
    words = set()
    for attribute in dir(provider):
        if attribute.endswith("_names") and attribute != "language_names":
            for value in getattr(provider, attribute):
                words.update(normalise(word) for word in re.split(r"[ \-]", value))
    return words


def test_names_and_places_come_from_the_data_packages(corpus):
    # PERSON values are Faker's names of the locale their subtype names (the detector's own list is names-dataset's).
    people = entities(corpus["test"], "PERSON")
    locales = Counter(e["subtype"].split(":")[1] for e in people)
    assert set(locales) <= set(PERSON_LOCALES) and len(locales) >= 40
    for locale in locales:
        known = _faker_name_words(locale)
        for entity in (e for e in people if e["subtype"].split(":")[1] == locale):
            parts = [p for p in re.split(r"[ \-]", entity["value"]) if p and not re.fullmatch(r"\w\.", p)]
            # Icelandic surnames are patronymics Faker derives from a first name ("Hagbarðsdóttir"), one or two of
            # them ("Krakisson-Geirmundsson").
            icelandic = locale == "is_IS"
            assert all(normalise(p) in known for i, p in enumerate(parts)
                       if not (icelandic and i > 0 and p.endswith(("son", "dóttir")))), entity  # fmt: skip
    scripts = Counter(unicodedata.name(c).split()[0] for e in people for c in e["value"] if c.isalpha())
    assert {"LATIN", "CYRILLIC", "GREEK"} <= set(scripts)
    diacritics = sum(not e["value"].isascii() for e in people)
    assert diacritics >= 60
    cities, countries, states = _places()
    known_places = {normalise(p) for p in (*cities, *countries, *states)}
    assert all(normalise(e["value"]) in known_places for e in entities(corpus["test"], "LOCATION"))
    assert all(any(c.isdigit() for c in e["value"]) for e in entities(corpus["test"], "STREET_ADDRESS"))


SECRET_SHAPES = {
    "secret:aws-access-key-id": r"(AKIA|ASIA)[A-Z2-7]{16}",
    "secret:aws-secret-access-key": r"[A-Za-z0-9/+]{40}",
    "secret:github": r"gh[pousr]_[A-Za-z0-9]{36}",
    "secret:github-fine-grained": r"github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59}",
    "secret:gitlab": r"glpat-[A-Za-z0-9_\-]{20}",
    "secret:slack": r"xoxb-\d{10,14}-\d{10,14}-[A-Za-z0-9]{24}|xoxp-\d{10,14}-\d{10,14}-\d{10,14}-[0-9a-f]{32}",
    "secret:jwt": r"[A-Za-z0-9_\-]+\.[A-Za-z0-9_\-]+\.[A-Za-z0-9_\-]{43}",
    "secret:generic": r"[A-Za-z0-9]{32,48}",
}


def test_secrets_are_shaped_as_their_issuers_shape_them(corpus):
    subtypes = Counter()
    for entity in entities(corpus["dev"] + corpus["test"], "SECRET"):
        value, subtype = entity["value"], entity["subtype"]
        subtypes[subtype] += 1
        if subtype.startswith("secret:pem-"):
            assert load_pem_private_key(value.encode(), password=None), entity
            continue
        assert re.fullmatch(SECRET_SHAPES[subtype], value), entity
        if subtype == "secret:github":
            assert github_token_checksum_ok(value)
        if subtype == "secret:jwt":
            header = json.loads(base64.urlsafe_b64decode(value.split(".")[0] + "=="))
            assert header == {"alg": "HS256", "typ": "JWT"}
    assert len(subtypes) == 11 and min(subtypes.values()) >= 20


def test_hard_negatives_fail_the_checks_that_would_make_them_pii(corpus):
    kinds = Counter()
    for negative in [n for case in corpus["dev"] + corpus["test"] for n in case["negatives"]]:
        value, kind = negative["value"], negative["kind"]
        kinds[kind] += 1
        digits = re.sub(r"[ \-]", "", value)
        assert not (digits.isdigit() and 12 <= len(digits) <= 19 and luhn.is_valid(digits)), negative
        assert not iban.is_valid(value)
        with pytest.raises(ValueError):
            ipaddress.ip_address(value.removeprefix("v"))
        if kind == "sku":
            assert not luhn.is_valid(digits)
        elif kind == "part_number":
            assert not is_phone_anywhere(value)
        elif kind == "uuid":
            assert str(uuid.UUID(value)) == value
        elif kind == "hash":
            assert re.fullmatch(r"[0-9a-f]{7}|[0-9a-f]{40}|[0-9a-f]{64}", value)
    assert len(kinds) == 10 and min(kinds.values()) >= 100


def test_committed_jsonl_is_what_the_generator_writes(corpus):
    for split, cases in corpus.items():
        lines = (DATA / f"pii_corpus_{split}.jsonl").read_text(encoding="utf-8").splitlines()
        assert [json.loads(line) for line in lines] == cases


def test_cli_writes_a_split_and_rejects_bad_arguments(tmp_path):
    out = tmp_path / "dev.jsonl"
    run = [sys.executable, "-m", "bench.pii_corpus", "--split", "dev", "--out", str(out), "--per-type", "3"]
    done = subprocess.run(run, capture_output=True, text=True, check=True, cwd=DATA.parents[1])
    assert "hard negatives" in done.stdout
    cases = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert cases == generate("dev", entities_per_type=3)
    bad = subprocess.run([sys.executable, "-m", "bench.pii_corpus", "--split", "train", "--out", str(out)],
                         capture_output=True, text=True, cwd=DATA.parents[1])  # fmt: skip
    assert bad.returncode == 2 and "invalid choice" in bad.stderr
