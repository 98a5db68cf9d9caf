"""The place detector's shortcuts find what the full reading finds: the lower-case words passed over before any cue is
looked for (``PlaceRecognizer._names_nothing``), the ASCII word pattern (``places._ASCII_WORD``) and the runs of
capitals searched with their look-behind tried after a match (``places._capitals_runs``)."""

from __future__ import annotations

import random
import re

import pytest

from gateway.guardrails.places import _ASCII_WORD, _CAPS_WORD, _WORD, PlaceRecognizer, _capitals_runs

# Words that open gazetteer names or are ones, in lower case and capitalised, with cues, connectors, chat words,
# English words and the separators the rules read (line breaks, commas, colons, a postal code).
_POOL = (
    "the", "a", "on", "in", "at", "of", "to", "from", "near", "visit", "based", "flying", "low", "high", "normal",
    "mobile", "log", "new", "york", "san", "diego", "de", "la", "paz", "rio", "janeiro", "hague", "turkey", "china",
    "japan", "chad", "nice", "split", "reading", "bath", "georgia", "lol", "ok", "office", "city", "march", "mars",
    "vara", "sur", "st", "saint", "louis", "el", "salvador", "north", "dakota", "sofia", "bulgaria", "anna", "berg",
    "chen", "ortega", "luis", "dana", "amara", "mei", "jonas", "lyon", "france", "paris", "order", "customer",
)  # fmt: skip
_SEPARATORS = (" ", " ", " ", " ", ", ", ".\n", "\n", ": ", " 75001 ", " - ", "\n\n")


def _text(rng: random.Random) -> str:
    parts = []
    for _ in range(rng.randrange(1, 30)):
        word = rng.choice(_POOL)
        shape = rng.random()
        word = word.capitalize() if shape < 0.4 else word.upper() if shape < 0.5 else word
        parts.append(word + rng.choice(_SEPARATORS))
    return "".join(parts)


@pytest.fixture(scope="module")
def recognizer() -> PlaceRecognizer:
    return PlaceRecognizer()


def test_common_lower_case_words_are_passed_over(recognizer: PlaceRecognizer) -> None:
    assert recognizer._names_nothing("the", "customer")
    assert recognizer._names_nothing("on", "")
    assert recognizer._names_nothing("low", "priority")
    assert recognizer._names_nothing("mobile", "app")
    # A name of two words that the pair opens, a capitalised word, a place that is no common word: read in full.
    assert not recognizer._names_nothing("the", "hague")
    assert not recognizer._names_nothing("new", "york")
    assert not recognizer._names_nothing("The", "customer")
    assert not recognizer._names_nothing("japan", "")


@pytest.mark.parametrize("seed", range(40))
def test_passing_over_finds_the_same_places(recognizer: PlaceRecognizer, seed: int,
                                            monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    rng = random.Random(seed)
    texts = [_text(rng) for _ in range(60)]
    gated = [[(r.start, r.end, r.score) for r in recognizer.analyze(text, ["LOCATION"])] for text in texts]
    monkeypatch.setattr(recognizer, "_names_nothing", lambda word, following: False)
    full = [[(r.start, r.end, r.score) for r in recognizer.analyze(text, ["LOCATION"])] for text in texts]
    assert gated == full
    assert any(gated)


@pytest.mark.parametrize("seed", range(10))
def test_ascii_words_are_the_word_patterns(seed: int) -> None:
    rng = random.Random(seed)
    alphabet = "abcXYZ '’.-_09\n\té"
    for _ in range(300):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 40)))
        if text.isascii():
            assert [m.span() for m in _ASCII_WORD.finditer(text)] == [m.span() for m in _WORD.finditer(text)]


@pytest.mark.parametrize("seed", range(10))
def test_capitals_runs_are_the_look_behind_patterns(seed: int) -> None:
    plain = re.compile(rf"(?<![\w'’-]){_CAPS_WORD}(?:[ \t]+{_CAPS_WORD})*(?![\w'’-])")
    rng = random.Random(seed)
    alphabet = "ABCÉĂ abc'’-_9\n\t"
    for _ in range(300):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 40)))
        assert [m.span() for m in _capitals_runs(text)] == [m.span() for m in plain.finditer(text)]
