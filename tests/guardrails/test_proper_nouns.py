"""proper_nouns: the one-word English nouns WordNet writes capitalised in every sense ("samuel", "jensen"), read from
the shipped snapshot; the snapshot is WordNet's where WordNet's database is installed."""

from pathlib import Path

import pytest

from gateway.guardrails.proper_nouns import build_snapshot, proper_nouns
from gateway.guardrails.wordnet_nouns import WORDNET_DIR


@pytest.mark.parametrize("noun", ["samuel", "esther", "tristan", "jensen"])
def test_proper_nouns_are_written_capitalised_only(noun: str) -> None:
    assert noun in proper_nouns()


@pytest.mark.parametrize("noun", ["coffee", "mark", "grace", "rose", "henry"])  # "henry" is a unit, too
def test_a_noun_with_a_lower_case_sense_is_not(noun: str) -> None:
    assert noun not in proper_nouns()


@pytest.mark.skipif(not (WORDNET_DIR / "data.noun").is_file(), reason="Debian's wordnet-base is not installed")
def test_the_snapshot_is_wordnets() -> None:
    assert build_snapshot(Path(WORDNET_DIR))["nouns"] == sorted(proper_nouns())
