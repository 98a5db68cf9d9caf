"""The streamed output's hold-back under pattern-only policies: only from where an entity may still be open.

The rules in ``gateway.guardrails.open_tail`` must describe every prefix of everything the pattern detectors can
match, or the start of a value leaves before the value is recognised. These tests check that on every finding of the
benchmark's PII test set and agentic corpus plus the obfuscations the corpora lack (spelled and bracketed e-mail
markers, digit-by-digit numbers, look-alike characters, invisible padding), at every prefix length; and that
streams cut into token-sized pieces redact exactly as the whole text does.
"""

import itertools
import json
import random
import statistics
from pathlib import Path

import pytest
from guard_support import TOKEN_KEY as KEY
from hypothesis import given, settings
from hypothesis import strategies as st

from gateway.guardrails import OutputRedactor, OutputShape, PiiAnalyzer, redact_output_text
from gateway.guardrails.analyzer import NER_ENTITIES
from gateway.guardrails.ner import WINDOW_MARGIN
from gateway.guardrails.open_tail import open_entity_start
from policies import PiiAction, PiiRules, Policy

DATA = Path(__file__).resolve().parents[2] / "bench" / "data"
CYR_A, CYR_E, CYR_ZE, EN_DASH = "\u0430", "\u0415", "\u0417", "\u2013"
# What the corpora do not hold, each with at least one finding (checked below, so none can pass vacuously).
TRICKY = [
    "write to dana dot k at example dot org today",
    "write to dana [at] example [dot] org today",
    "write to dana(at)example(dot)org today",
    "write to dana {at} example.co.uk today",
    "write to dana [ at ] mail [ dot ] example [ dot ] com today",
    "write to dana @ example.org today",
    "write to dana@example[.]org today",
    "write to dana@example dot org today",
    "reach me at dana dot k at example dot org dot Then we talk",
    "card 4 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 on file",
    "card 4-1-1-1-1-1-1-1-1-1-1-1-1-1-1-1 on file",
    "card 4\u200b 1 1 1 1 1 1 1 1 1 1 1 1 1 1\u00ad 1 on file",
    "please call me at 4 1 5 5 5 5 0 1 3 2 tonight",
    "phone +4 4 2 0 7 9 4 6 0 9 5 8 is mine",
    "call +1 (415) 555-0132 ext. 12 or +44 20 7946 0958",
    "call (415) 555 0132 or 415.555.0199, or 415 555 0132 415 555 0199 415 555 0111",
    f"contact: d{CYR_A}na.k@ex{CYR_A}mple.org today",
    f"IBAN D{CYR_E}89 3704 0044 0532 0130 00 please",
    f"card {CYR_ZE}782 822463 10005 on file",
    f"card {EN_DASH.join(['4111'] + ['1111'] * 3)} on file",
    "card \u096a\u0967\u0967\u0967 \u0967\u0967\u0967\u0967 \u0967\u0967\u0967\u0967 \u0967\u0967\u0967\u0967 on file",
    "card \uff14\uff11\uff11\uff11 \uff11\uff11\uff11\uff11 \uff11\uff11\uff11\uff11 \uff11\uff11\uff11\uff11 ok",
    "mail \uff44\uff41\uff4e\uff41\uff20\uff45\uff58\uff41\uff4d\uff50\uff4c\uff45\uff0e\uff4f\uff52\uff47 ok",
    f"ship to 12 M{CYR_A}in Street please",
    "ship to 1200 N. Lake Shore Drive, Apt 4B by Friday",
    "she was born on 3rd March 1990 in Leeds",
    "she was born on Sept. 3, 1990 in Leeds",
    "born 1990-03-15, DOB 03/15/1990 and 15.03.1990",
    "hosts fe80::1ff:fe23:4567:890a and ::ffff:192.0.2.1 and 10.0.0.1/24 today",
    "SSN 536-22-1234 and 536 22 1234 on the form",
]


def _corpus() -> list[str]:
    texts = [json.loads(line)["text"] for line in (DATA / "pii_testset.jsonl").read_text().splitlines()]
    texts += [json.loads(line) for line in (DATA / "agentic_corpus.jsonl").read_text().splitlines()]
    return texts + TRICKY


@pytest.fixture(scope="module")
def corpus() -> list[str]:
    return _corpus()


@pytest.mark.parametrize(
    ("text", "held"),
    [
        ("Here is a summary of the review", "review"),
        ("Here is a summary of the review ", "review "),
        ("Done. ", "Done. "),
        ("Done, thanks; ", ""),
        ("write to dana.k@exam", "dana.k@exam"),
        ("write to dana dot k at example dot or", "dana dot k at example dot or"),
        ("write to dana [a", "dana [a"),
        ("call (", "call ("),  # "call (at) ..." could follow
        ("number: (", "("),
        ("call (415) 555-01", "(415) 555-01"),
        ("card 4111 1111 1111 1111.", "4111 1111 1111 1111."),
        ("card 4111 1111 1111 1111. Thanks for", "for"),
        ("born March 3rd, 19", "March 3rd, 19"),
        ("you may want", "want"),
        ("ship to 123 Main Str", "123 Main Str"),
        ("ship to 454 Lincoln St.", "454 Lincoln St."),  # USPS's abbreviation, its dot: the street may go on
        ("IBAN GB82 WEST 1234", "GB82 WEST 1234"),
        ("host fe80::1ff:fe23", "fe80::1ff:fe23"),
        ("There are 3 ways to do this and", "and"),
        (f"mail d\u200b{CYR_A}na", f"d\u200b{CYR_A}na"),
    ],
)
def test_prose_holds_back_the_word_being_written_and_values_from_their_start(text: str, held: str) -> None:
    assert text[open_entity_start(text) :] == held


def test_a_search_from_inside_a_word_still_finds_the_word_start() -> None:
    """The window's cut may fall inside a value: the search from there must not skip the value's rest."""
    text = "x" * 10 + " --dana.k@example.or"
    assert open_entity_start(text, 14) == 14


def test_every_prefix_of_every_finding_is_held_from_the_finding_start(analyzer: PiiAnalyzer, corpus: list[str]):
    """At every length of a value being written, the open tail starts at (or before) the value's first character,
    for every finding (any type, any score) of the pattern detectors over the corpora."""
    checked = 0
    for text in corpus:
        findings = [f for f in analyzer.analyze(text, ner_enabled=False) if f.end - f.start <= 96]
        if text in TRICKY:
            assert findings, f"no finding in {text!r}: it tests nothing"
        for finding in findings:
            checked += 1
            for end in range(finding.start + 1, finding.end + 1):
                held_from = open_entity_start(text[:end], finding.start)
                assert held_from == finding.start, (finding, text[finding.start : end])
    assert checked > 1300  # the corpora hold ~1,400 pattern findings: the walk must cover them, not a handful


NAME_MASKING = Policy(pii_output=PiiRules(entities={**Policy.default().pii_output.entities,
                                                 "PERSON": PiiAction.MASK, "LOCATION": PiiAction.MASK}))


# Names and places for the structured-output streams under NAME_MASKING.
NAMED = [
    "Maria Gonzalez from the Boston office confirmed the order",
    "I spoke with Dr. Ahmed Haddad and Tomasz Nguyen yesterday in Krakow",
    "Send it to Amara; she moved from Lagos to Berlin last spring",
]
MASK_EVERYTHING = Policy(pii_output=PiiRules(entities={}, default_action=PiiAction.HASH, ner_enabled=False))


def stream_in_pieces(redactor: OutputRedactor, text: str, rng: random.Random) -> tuple[str, int]:
    """``text`` fed in pieces of 1-6 characters (as tokens arrive), then flushed: what left, and how much had been
    fed when the first text left."""
    released, fed, first = [], 0, len(text)
    while fed < len(text):
        piece = text[fed : fed + rng.randint(1, 6)]
        fed += len(piece)
        released.append(redactor.feed(piece))
        first = fed if released[-1] and first == len(text) else first
    return "".join(released) + redactor.flush(), first


@pytest.mark.parametrize("policy", [Policy.default(), MASK_EVERYTHING], ids=["default", "hash_everything"])
def test_streams_redact_exactly_as_the_whole_text(analyzer: PiiAnalyzer, corpus: list[str], policy: Policy) -> None:
    """Every corpus text streamed in pieces of 1-6 characters (as tokens arrive) gives the whole text's redaction,
    and the first content leaves after the first word or two instead of a 96-character window."""
    rng = random.Random(7)
    first_release = []
    for text in corpus:
        whole, _ = redact_output_text(analyzer, policy, text, KEY)
        redactor = OutputRedactor(analyzer, policy, KEY)
        streamed, first = stream_in_pieces(redactor, text, rng)
        first_release.append(first)
        assert streamed == whole, text[:80]
    assert statistics.median(first_release) <= 16


@pytest.mark.parametrize("names", [False, True], ids=["default", "name_masking"])
def test_structured_output_streams_redact_exactly_as_the_whole(analyzer: PiiAnalyzer, names: bool) -> None:
    policy = NAME_MASKING if names else Policy.default()
    for value in TRICKY + (NAMED if names else []):
        text = json.dumps({"reply": value, "notes": ["see " + value[::-1], value]})
        whole, _ = redact_output_text(analyzer, policy, text, KEY, shape=OutputShape.JSON)
        assert value not in NAMED or whole.count("<PERSON>") + whole.count("<LOCATION>") >= 3, whole
        for size in (1, 3, 5):
            redactor = OutputRedactor(analyzer, policy, KEY, shape=OutputShape.JSON)
            pieces = [text[i : i + size] for i in range(0, len(text), size)]
            assert "".join(redactor.feed(piece) for piece in pieces) + redactor.flush() == whole, value


SUMMARY = ("is", "the", "summary", "you", "asked", "for", "about", "the", "shipment")


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_the_first_word_leaves_at_once_then_pieces_of_min_emit_or_after_the_interval(analyzer: PiiAnalyzer) -> None:
    clock = FakeClock()
    redactor = OutputRedactor(analyzer, Policy.default(), KEY, min_emit_chars=32, min_emit_interval_s=0.05,
                              clock=clock)
    assert redactor.feed("Sure") == ""  # the word may be the start of an address
    assert redactor.feed("! Here") == "Sure!"
    # Tokens faster than the interval: nothing leaves until 32 characters can.
    pieces = [redactor.feed(word + " ") for word in SUMMARY]
    released = [piece for piece in pieces if piece]
    assert released and all(len(piece) >= 32 for piece in released)
    # Slower tokens (a CPU's): whatever can leave does, once the interval has passed.
    for word in SUMMARY:
        clock.now += 0.06
        assert redactor.feed(word + " ")
    assert not redactor.analyses("x")  # right after a release, one more character waits for the interval


def test_a_release_reads_the_open_tail_once(analyzer: PiiAnalyzer, monkeypatch: pytest.MonkeyPatch) -> None:
    """analyses() and the plan that follows ask the same question of the same text: the second is the memo's."""
    from gateway.guardrails import output

    asked: list[tuple[str, int]] = []

    def counting(text: str, begin: int) -> int:
        asked.append((text, begin))
        return open_entity_start(text, begin)

    monkeypatch.setattr(output, "open_entity_start", counting)
    redactor = OutputRedactor(analyzer, Policy.default(), KEY, min_emit_chars=1, min_emit_interval_s=0.0)
    released = []
    for piece in ("Sure! Here ", "is the ", "summary you ", "asked for. "):
        asked.clear()
        released.append(redactor.feed(piece))
        assert len(asked) == 1
    assert all(released)


def test_name_masking_holds_the_context_ner_could_still_read(analyzer: PiiAnalyzer) -> None:
    """NER reads WINDOW_MARGIN characters around a candidate word: a policy that masks names holds that much back
    behind the word being written, not the whole 96-character window."""
    redactor = OutputRedactor(analyzer, NAME_MASKING, KEY, holdback_chars=96, min_emit_interval_s=0.0)
    released = [redactor.feed(word + " ") for word in SUMMARY * 3]
    assert released[8] and "".join(released).startswith("is the summary")
    assert WINDOW_MARGIN <= redactor.pending_chars < 96


def test_name_masking_streams_redact_exactly_as_the_whole_text(analyzer: PiiAnalyzer, corpus: list[str]) -> None:
    """Every corpus text with a name or place, streamed in pieces of 1-6 characters with a release wherever one can
    follow a piece, gives the whole text's redaction under a policy that masks names (with a margin of 0, 138 of
    the corpora's 460 texts differed and 6 names leaked; 20: 1 and 1); the first content leaves after ~50
    characters instead of 128."""
    texts = [text for text in corpus if any(f.entity_type in NER_ENTITIES for f in analyzer.analyze(text))]
    assert len(texts) > 50
    rng = random.Random(11)
    first_release = []
    for text in texts:
        whole, _ = redact_output_text(analyzer, NAME_MASKING, text, KEY)
        redactor = OutputRedactor(analyzer, NAME_MASKING, KEY, min_emit_interval_s=0.0)
        streamed, first = stream_in_pieces(redactor, text, rng)
        first_release.append(first)
        assert streamed == whole, text[:80]
    assert statistics.median(first_release) <= 64


class SlowAnalyzer:
    """The real analyzer, as if each pass took `cost_s` of the fake clock."""

    def __init__(self, analyzer: PiiAnalyzer, clock: FakeClock, cost_s: float) -> None:
        self._analyzer, self._clock, self._cost_s = analyzer, clock, cost_s

    def analyze(self, text: str, *, ner_enabled: bool = True) -> list:
        self._clock.now += self._cost_s
        return self._analyzer.analyze(text, ner_enabled=ner_enabled)


def test_paced_releases_spend_at_most_a_tenth_of_the_stream_analysing(analyzer: PiiAnalyzer) -> None:
    """Analyses of 20 ms (NER on a slow CPU) stretch the 50 ms interval to 200 ms: tokens every 60 ms release
    every fourth token, not every one."""
    clock = FakeClock()
    redactor = OutputRedactor(SlowAnalyzer(analyzer, clock, 0.02), NAME_MASKING, KEY, min_emit_chars=10_000,
                              min_emit_interval_s=0.05, clock=clock)
    releases = []
    for word in SUMMARY * 4:
        clock.now += 0.06
        releases.append(clock.now if redactor.feed(word + " ") else None)
    times = [t for t in releases if t is not None]
    assert len(times) >= 3
    assert all(later - earlier >= 0.2 for earlier, later in itertools.pairwise(times))


def test_a_long_digit_run_is_still_bounded_by_the_window(analyzer: PiiAnalyzer) -> None:
    """An open value longer than the window does not hold the stream forever: the window is the most ever held."""
    redactor = OutputRedactor(analyzer, Policy.default(), KEY, holdback_chars=96, min_emit_chars=32)
    for chunk in itertools.repeat("1234 ", 200):
        redactor.feed(chunk)
        assert redactor.pending_chars <= 96 + 32 + len(chunk)


# Pieces of values and of the prose around them: random texts built from these hold half-written and glued values,
# markers without addresses, look-alikes and invisible characters in every arrangement.
FRAGMENTS = [
    " ", " ", " ", "\n", ",", ".", "-", "/", "+", "(", ")", "[", "]", "{", "}", "::", "@", "\u200b", CYR_A, EN_DASH,
    "\uff14", "\u0967", "dana", "dot", "at", "example", "org", "co", "uk", "k", "the", "me", "call", "card", "born",
    "on", "ship", "to", "Then", "4111", "1", "2", "3", "5", "7", "9", "415", "555", "0132", "12", "ext", "x", "GB82",
    "WEST", "1234", "Main", "Street", "N.", "Apt", "4B", "March", "1990", "fe80", "SSN", "078", "05", "1120",
]


@settings(max_examples=150, deadline=None)
@given(
    fragments=st.lists(st.sampled_from(FRAGMENTS), min_size=3, max_size=60),
    sizes=st.lists(st.integers(min_value=1, max_value=6), min_size=1, max_size=8),
    shape=st.sampled_from([OutputShape.TEXT, OutputShape.JSON]),
    policy=st.sampled_from([Policy.default(), MASK_EVERYTHING]),
)
def test_random_texts_stream_exactly_as_the_whole(analyzer: PiiAnalyzer, fragments: list[str], sizes: list[int],
                                                  shape: OutputShape, policy: Policy) -> None:
    text = "".join(fragments)
    if shape is OutputShape.JSON:
        text = json.dumps({"reply": text, "notes": [text[::-1]]}, ensure_ascii=len(fragments) % 2 == 0)
    whole, _ = redact_output_text(analyzer, policy, text, KEY, shape=shape)
    redactor = OutputRedactor(analyzer, policy, KEY, shape=shape)
    released, fed = [], 0
    for size in itertools.cycle(sizes):
        if fed >= len(text):
            break
        released.append(redactor.feed(text[fed : fed + size]))
        fed += size
    assert "".join(released) + redactor.flush() == whole
