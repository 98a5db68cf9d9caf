"""record_nouns: the plural of a noun whose most frequent WordNet sense names data, people or business ("records",
"invoices", "customers") after a place keeps the place; a thing named after a place ("Brussels sprouts") is none."""

from pathlib import Path

import pytest

from gateway.guardrails.record_nouns import WORDNET_DIR, build_snapshot, is_record_plural, record_nouns


@pytest.mark.parametrize("word", ["records", "invoices", "customers", "users", "accounts", "companies", "sales"])
def test_data_people_and_business_are_record_plurals(word: str) -> None:
    assert is_record_plural(word)


@pytest.mark.parametrize(
    "word",
    ["sprouts", "terriers", "hats", "envelopes", "potatoes", "cheeses", "drills",  # things, foods, animals
     "record", "invoice", "data", "is"],  # no plural in -s
)  # fmt: skip
def test_things_and_singulars_are_not(word: str) -> None:
    assert not is_record_plural(word)


@pytest.mark.skipif(not (WORDNET_DIR / "index.noun").is_file(), reason="Debian's wordnet-base is not installed")
def test_the_snapshot_is_wordnets() -> None:
    assert build_snapshot(Path(WORDNET_DIR))["nouns"] == sorted(record_nouns())
