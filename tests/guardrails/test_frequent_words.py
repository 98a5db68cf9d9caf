"""The frequent-words snapshot (``frequent_words``): what it holds, and that it is what wordfreq gives where wordfreq
is installed (a build-time tool only: ``python -m gateway.guardrails.frequent_words``)."""

import gzip
import importlib.metadata
import json
from pathlib import Path

import pytest

from gateway.guardrails import frequent_words as module
from gateway.guardrails.frequent_words import LANGUAGES, frequent_in_any, frequent_words


def test_the_snapshot_holds_each_languages_frequent_words_and_not_rare_ones() -> None:
    assert {"reading", "nice", "mobile", "split"} <= frequent_words("en")
    assert {"abilene", "bordeaux", "boise", "gdansk"}.isdisjoint(frequent_words("en"))
    assert "datos" in frequent_words("es") and "velha" in frequent_words("pt") and "livre" in frequent_words("pt")
    assert {"pomponio", "witosa", "chełmońskiego"}.isdisjoint(frequent_in_any())
    for language in LANGUAGES:
        words = frequent_words(language)
        assert 5_000 <= len(words) <= 12_000
        assert all(word.isalpha() and word == word.lower() for word in words)


def test_the_snapshot_is_small_and_the_same_bytes_for_the_same_words(tmp_path: Path) -> None:
    assert module.SNAPSHOT.stat().st_size < 400_000
    with gzip.open(module.SNAPSHOT, "rt", encoding="utf-8") as snapshot:
        shipped = json.load(snapshot)
    again = tmp_path / "again.json.gz"
    module.write_snapshot(shipped, again)
    assert again.read_bytes() == module.SNAPSHOT.read_bytes()


def test_the_snapshot_is_wordfreqs_where_wordfreq_is_installed() -> None:
    pytest.importorskip("wordfreq")
    if importlib.metadata.version("wordfreq") != module.WORDFREQ_VERSION:
        pytest.skip("another wordfreq version than the snapshot's")
    with gzip.open(module.SNAPSHOT, "rt", encoding="utf-8") as snapshot:
        shipped = json.load(snapshot)
    assert module.build_snapshot() == shipped
