"""The place detector's shortcuts find what the full reading finds: the lower-case words passed over before any cue is
looked for (``PlaceRecognizer._names_nothing``), the ASCII word pattern (``places._ASCII_WORD``), the runs of
capitals searched with their look-behind tried after a match (``places._capitals_runs``), the location words before a
name answered from the word before the separators (``places._WordBefore``), the first name before a surname and the
place labels' endings (``_after_first_name``, ``_property_before``)."""

from __future__ import annotations

import random
import re

import pytest

from gateway.guardrails import places
from gateway.guardrails.places import _ASCII_WORD, _CAPS_WORD, _WORD, PlaceRecognizer, _capitals_runs
from gateway.guardrails.prefilters import FOLDS_APART

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


# Each gated test of the word before a name, and its regex searched over the same characters.
_WORDS_BEFORE = {
    "_CUE_WORD_BEFORE": (places._CUE_WORD_BEFORE, places._CUE_BEFORE, 24),
    "_GENITIVE_WORD_BEFORE": (places._GENITIVE_WORD_BEFORE, places._GENITIVE_BEFORE, 24),
    "_ANY_NOUN_CUE_WORD_BEFORE": (places._ANY_NOUN_CUE_WORD_BEFORE, places._ANY_NOUN_CUE_BEFORE, 24),
    "_PERSON_CUE_WORD_BEFORE": (places._PERSON_CUE_WORD_BEFORE, places._PERSON_CUE_BEFORE, 24),
    "_CAPITALISED_CUE_WORD_BEFORE": (places._CAPITALISED_CUE_WORD_BEFORE, places._CAPITALISED_CUE_BEFORE, 24),
    "_GERMAN_ARTICLE_WORD_BEFORE": (places._GERMAN_ARTICLE_WORD_BEFORE, places._GERMAN_ARTICLE_BEFORE, 8),
}
# The words themselves, words ending as they do ("Luis" as "depuis", "main" as "in", "the" as "nahe"), capitalised and
# shouted forms, the case-blind regex's non-ASCII partners of ASCII letters, and the separators each reads.
_BEFORE_POOL = (
    "in", "to", "from", "near", "à", "a", "de", "del", "di", "da", "en", "über", "în", "jusqu'à", "depuis", "nahe",
    "der", "dem", "eines", "luis", "main", "the", "Jonas", "IN", "De", "À", "Der", "A", "ortega", "x", "1", "_",
    *sorted(FOLDS_APART),
)  # fmt: skip
_BEFORE_SEPARATORS = (" ", "  ", "\t", ", ", ",", "\n", "\u00a0", "\u3000", "(", "'", "-", "", " - ")


@pytest.mark.parametrize("name", sorted(_WORDS_BEFORE))
@pytest.mark.parametrize("seed", range(4))
def test_words_before_are_their_regexes(name: str, seed: int) -> None:
    gated, regex, reach = _WORDS_BEFORE[name]
    rng = random.Random(seed)
    found = 0
    for _ in range(1500):
        text = "".join(rng.choice(_BEFORE_POOL) + rng.choice(_BEFORE_SEPARATORS) for _ in range(rng.randrange(1, 6)))
        text += rng.choice(("Berlin", "", "x"))
        for start in {len(text), len(text) - 6, len(text) - 1, rng.randrange(0, len(text) + 1)}:
            if start < 0:
                continue
            expected = regex.search(text, max(0, start - reach), start) is not None
            assert gated.search(text, start) == expected, (text, start)
            found += expected
    assert found


def test_words_before_examples() -> None:
    assert places._CUE_WORD_BEFORE.search("flying in  Lyon", 11)
    assert places._CUE_WORD_BEFORE.search("jusqu'à Lyon", 8)
    assert places._CUE_WORD_BEFORE.search("İN Lyon", 3)  # the case-blind regex reads a text outside ASCII
    assert not places._CUE_WORD_BEFORE.search("Luis Ortega", 5)  # "depuis" ends as "Luis" does
    assert not places._CUE_WORD_BEFORE.search("main Lyon", 5)
    assert not places._CUE_WORD_BEFORE.search("in" + " " * 30 + "Lyon", 32)  # the word before lies past the reach
    assert not places._CAPITALISED_CUE_WORD_BEFORE.search("A Lyon", 2)  # case-sensitive: "a" alone
    assert places._GERMAN_ARTICLE_WORD_BEFORE.search("mit dem Zug", 8)


@pytest.mark.parametrize("seed", range(6))
def test_first_name_before_is_the_look_behind_pattern(recognizer: PlaceRecognizer, seed: int) -> None:
    plain = re.compile(r"(?<![\w.'’-])([A-Z\u00C0-\u024F][a-z\u00DF-\u024F]+)[ ](?:[A-Z]\.[ ])?\Z")
    rng = random.Random(seed)
    pool = ("Luis", "Anna", "K.", "luis", "Ortega", "O'", "x-", "Émile", "1", ".", "Zzyzx")
    for _ in range(1500):
        text = "".join(rng.choice(pool) + rng.choice((" ", "  ", "", "\n")) for _ in range(rng.randrange(1, 5)))
        start = len(text)
        found = plain.search(text, max(0, start - 40), start)
        gated = places._FIRST_NAME_BEFORE.search(text, max(0, start - 40), start)
        assert (None if found is None else found.group(1)) == (None if gated is None else gated.group(1)), text
        expected = found is not None and places.known_names().is_first(found.group(1))
        assert recognizer._after_first_name(text, start) == expected, text


def test_place_labels_are_read_past_their_endings_gate() -> None:
    for label in places._LOCATION_LABELS:
        for spelled in (label, label.upper(), label.capitalize()):
            assert places._property_before(f"{spelled}: Kilkenny", len(spelled) + 2), spelled
            assert places._property_before(f"RM {spelled} Kars", len(spelled) + 4), spelled
    assert not places._property_before("Luis Ortega", 5)


# Travel and residence phrases written as text writes them: any case, a run of spaces, tabs or line breaks between
# their words, glued to a word before or not; a capitalised word, a lower-case one or a number after.
_AFTER_TRAVEL = ("Nideggen", "Ponte Sasso", "Émile", "Łomża", "nideggen", "42", "Anna's", "Ōdate")


def _travel_text(rng: random.Random) -> str:
    parts = []
    for _ in range(rng.randrange(1, 4)):
        phrase = rng.choice(places._TRAVEL_PHRASES)
        phrase = phrase.upper() if rng.random() < 0.15 else phrase.capitalize() if rng.random() < 0.3 else phrase
        phrase = "".join(rng.choice((" ", "  ", "\n", "\t", " \t")) if char == " " else char for char in phrase)
        glue = rng.choice(("", " ", "x", "\n", "this "))
        parts.append(glue + phrase + rng.choice((" ", "  ", "\t", " \t ", "", ",")) + rng.choice(_AFTER_TRAVEL))
    return rng.choice(("", "We ", "In 2020 ")) + " ".join(parts) + rng.choice(("", ".", " soon"))


@pytest.mark.parametrize("seed", range(10))
def test_travel_gate_finds_what_the_scan_finds(recognizer: PlaceRecognizer, seed: int,
                                               monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    """``_TRAVEL_CUE_GATE`` answers no only where ``_TRAVEL_CUE``'s scan finds nothing: with the gate passing every
    text, the same places."""
    rng = random.Random(seed)
    texts = [_travel_text(rng) for _ in range(300)]
    gated = [[(r.start, r.end) for r in recognizer._travelled_to(text, [])] for text in texts]
    monkeypatch.setattr(places, "_TRAVEL_CUE_GATE", re.compile(""))
    scanned = [[(r.start, r.end) for r in recognizer._travelled_to(text, [])] for text in texts]
    assert gated == scanned
    assert sum(map(bool, gated)) > 50


def test_travel_gate_examples(recognizer: PlaceRecognizer) -> None:
    assert places._TRAVEL_CUE_GATE.search("she grew up in  Nideggen")  # two spaces: the gate reads none of the words
    assert places._TRAVEL_CUE_GATE.search("flying\ninto Ponte Sasso")
    assert places._TRAVEL_CUE_GATE.search("Anreise NACH Lobatera")
    assert not places._TRAVEL_CUE_GATE.search("Ticket 1004: Luis Ortega (luis@example.org) was charged twice.")
    assert not places._TRAVEL_CUE_GATE.search("Amara Okafor reports the app crashes in production")
    assert [r.start for r in recognizer._travelled_to("We moved, she grew up in  Nideggen.", [])] == [26]


def test_capitalised_stop_words_and_verbs_are_no_small_places(recognizer: PlaceRecognizer) -> None:
    """A capitalised stop word, or a verb or adjective naming a place under NOUN_MIN_POPULATION, is no place wherever
    it stands, with a location word before it or not (``_judge`` answers before looking for one)."""
    for text in ("charged twice for the March invoice", "we fly to March next week", "Will you come?"):
        assert not [r for r in recognizer.analyze(text, ["LOCATION"]) if text[r.start : r.end] in ("March", "Will")]
    text = "the flight from Split landed"
    assert [text[r.start : r.end] for r in recognizer.analyze(text, ["LOCATION"])] == ["Split"]
