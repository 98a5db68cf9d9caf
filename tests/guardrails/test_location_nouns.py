"""location_nouns: English nouns whose most frequent WordNet sense is a place ("oakland", "area"), read from the
shipped snapshot; the snapshot is WordNet's where WordNet's database is installed."""

from pathlib import Path

import pytest

from gateway.guardrails.location_nouns import build_snapshot, location_nouns
from gateway.guardrails.wordnet_nouns import WORDNET_DIR


@pytest.mark.parametrize("noun", ["oakland", "abilene", "tuscaloosa", "montana", "area"])
def test_nouns_of_places(noun: str) -> None:
    assert noun in location_nouns()


@pytest.mark.parametrize("noun", ["plato", "gillette", "cognac", "reading", "Oakland", "areas"])
def test_people_things_capitals_and_plurals_are_not(noun: str) -> None:
    assert noun not in location_nouns()


@pytest.mark.skipif(not (WORDNET_DIR / "index.noun").is_file(), reason="Debian's wordnet-base is not installed")
def test_the_snapshot_is_wordnets() -> None:
    assert build_snapshot(Path(WORDNET_DIR))["nouns"] == sorted(location_nouns())
