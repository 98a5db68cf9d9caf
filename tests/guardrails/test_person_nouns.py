"""person_nouns: English nouns whose most frequent WordNet sense is a person ("guest", "assignee"), read from the
shipped snapshot; the snapshot is WordNet's where WordNet's database is installed."""

from pathlib import Path

import pytest

from gateway.guardrails.person_nouns import build_snapshot, person_nouns
from gateway.guardrails.wordnet_nouns import WORDNET_DIR


@pytest.mark.parametrize("noun", ["guest", "customer", "passenger", "assignee", "patient", "host", "user"])
def test_nouns_of_people(noun: str) -> None:
    assert noun in person_nouns()


@pytest.mark.parametrize("noun", ["contact", "holder", "product", "invoice", "city", "order", "Guest", "guests"])
def test_other_nouns_capitals_and_plurals_are_not(noun: str) -> None:
    # "contact" is first an act and "holder" an artifact in WordNet; the snapshot holds lower-case singular lemmas.
    assert noun not in person_nouns()


@pytest.mark.skipif(not (WORDNET_DIR / "index.noun").is_file(), reason="Debian's wordnet-base is not installed")
def test_the_snapshot_is_wordnets() -> None:
    assert build_snapshot(Path(WORDNET_DIR))["nouns"] == sorted(person_nouns())
