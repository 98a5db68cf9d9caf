"""``people``'s scans give their plain patterns' matches: the look-behind pairs (``_CAPITALS_PAIR``, ``_LOWER_PAIR``)
searched as ``prefilters.AfterNone``, the chat lines (``_SPEAKER``, ``_CHAT_MESSAGE``) as ``prefilters.AtLineStarts``;
on random strings from any position, and on the agentic corpus as ``capitals_pairs`` and ``name_pairs`` walk it."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.guardrails import AGENTIC_CORPUS, read_jsonl
from gateway.guardrails import people
from gateway.guardrails.prefilters import AfterNone, AtLineStarts

PAIR_PIECES = [
    "MARIA", "ANNA", "NOWAK", "O'NEIL", "KAYE", "ROŽĖ", "AB", "A", "maria", "anna", "nowak", "b.", "x", "é", "É",
    "Maria", " ", "  ", "\t", "\n", "-", "'", "’", ".", "@", "/", "1", "_", ":",
]  # fmt: skip
PAIRS = {"capitals": people._CAPITALS_PAIR, "lower": people._LOWER_PAIR}


def spans(match: re.Match[str] | None) -> tuple[tuple[int, int], ...] | None:
    return None if match is None else tuple(match.span(group) for group in range(match.re.groups + 1))


@pytest.mark.parametrize("name", sorted(PAIRS))
@settings(max_examples=1500, deadline=None)
@given(text=st.lists(st.sampled_from(PAIR_PIECES), max_size=14).map("".join), data=st.data())
def test_pairs_are_the_look_behinds_matches(name: str, text: str, data: st.DataObject) -> None:
    pair = PAIRS[name]
    assert isinstance(pair, AfterNone)
    stop = data.draw(st.integers(0, len(text)))
    for pos in range(len(text) + 1):
        assert spans(pair.search(text, pos)) == spans(pair.pattern.search(text, pos)), pos
        assert spans(pair.search(text, pos, stop)) == spans(pair.pattern.search(text, pos, stop)), (pos, stop)


CHAT_PIECES = [
    "\n", "\r\n", " ", "\t", "[", "]", "(", ")", "10:42", ":07", "2025-08-28 ", "25/03/2025, ", " PM", " - ", "–",
    "Ana", "Indrė Kazlauskienė", "ate_j", "Bot", ".", ": ", ":", "1", "hi there", "é",
]  # fmt: skip
LINES = {"speaker": people._SPEAKER, "chat message": people._CHAT_MESSAGE}


def groups(match: re.Match[str]) -> tuple[tuple[int, int], ...]:
    return tuple(match.span(group) for group in range(match.re.groups + 1))


@pytest.mark.parametrize("name", sorted(LINES))
@settings(max_examples=1500, deadline=None)
@given(text=st.lists(st.sampled_from(CHAT_PIECES), max_size=20).map("".join))
def test_chat_lines_are_the_line_patterns_matches(name: str, text: str) -> None:
    line = LINES[name]
    assert isinstance(line, AtLineStarts)
    assert list(map(groups, line.finditer(text))) == list(map(groups, line.pattern.finditer(text)))


def walk(search: object, text: str) -> list[tuple[tuple[int, int], ...]]:
    """Every match from each match's start + 1 on, as ``capitals_pairs`` and ``_pairs_in`` walk a text."""
    found, position = [], 0
    while (match := search(text, position)) is not None:  # type: ignore[operator]
        found.append(groups(match))
        position = match.start() + 1
    return found


def test_the_agentic_corpus_gives_the_same_matches() -> None:
    texts = [str(text) for text in read_jsonl(AGENTIC_CORPUS)]
    assert texts
    for text in texts:
        for pair in PAIRS.values():
            assert walk(pair.search, text) == walk(pair.pattern.search, text)
            assert walk(pair.search, text.lower()) == walk(pair.pattern.search, text.lower())
        for line in LINES.values():
            assert list(map(groups, line.finditer(text))) == list(map(groups, line.pattern.finditer(text)))


def test_chat_examples() -> None:
    chat = "[10:42] Indrė Kazlauskienė: sounds good\n10:43:07 - Ana: ok\r\n(9:05 PM) ate_j: pakisabi kay eitan\n"
    assert [match.group(1) for match in people._SPEAKER.finditer(chat)] == ["Indrė Kazlauskienė", "Ana"]
    assert [match.group("message") for match in people._CHAT_MESSAGE.finditer(chat)] \
        == ["sounds good", "ok", "pakisabi kay eitan"]  # fmt: skip


def test_a_line_pattern_opens_with_a_line_start() -> None:
    with pytest.raises(ValueError, match="not a pattern of a line"):
        AtLineStarts(r"[a-z]+")
    assert [match.span() for match in AtLineStarts(r"(?m)^[a-z]+").finditer("ab\n1c\ncd")] == [(0, 2), (6, 8)]
