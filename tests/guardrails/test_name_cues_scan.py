"""``name_cues``' cue and sign-off scans find what their plain forms (``_CUE``, ``_SIGN_OFF_LINE``) find in the
lower-cased text: the same matches, in the same order, though each branch is searched apart from the other and from
what the regex engine skips to."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gateway.guardrails import name_cues

# Pieces the texts are made of: whole cue phrases and their prefixes, names, and every kind of character the scans
# tell apart (spaces and tabs in runs, line breaks, a label's colon, apostrophes and hyphens, letters outside ASCII,
# digits, an underscore).
PIECES = [
    "dear", "hi", "mr", "mr.", "m.", "said", "wrote", "a dit", "is on leave", "regards", "best regards", "thanks",
    "kind", "name", "per", "its", "sa", "de", "ana", "lópez", "jo", " ", "  ", "\t", "\n", "\r\n", ":", ",", ".", "!",
    "'", "’", "-", "é", "ß", "ж", "1", "_", '"', "{", "x",
]  # fmt: skip


def plain_cues(lowered: str) -> list[tuple[bool, int, int]]:
    return [(cue.group("before") is not None, *cue.span()) for cue in name_cues._CUE.finditer(lowered)]


def plain_sign_offs(lowered: str) -> list[int]:
    return [line.end() for line in name_cues._SIGN_OFF_LINE.finditer(lowered)]


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=16).map("".join))
def test_cues_are_the_plain_forms_matches(text: str) -> None:
    assert list(name_cues._cue_spans(text)) == plain_cues(text)
    assert name_cues._sign_off_ends(text) == plain_sign_offs(text)


@pytest.mark.parametrize(
    "text",
    [
        "dear ana",  # a cue at the text's start
        "hi\tana said  hi",  # a phrase after a name right where the one before a name ends
        "ana    said",  # a run of spaces before the verb: the match opens where the run does
        "éper ana",  # after a letter outside ASCII: no cue
        "o’dear ana, jo-per ana",  # after an apostrophe or a hyphen: no cue
        "x_hi ana 1hi ana",
        "regards\nana\n  thanks,\r\njo\nbest regards!",  # sign-off lines, the first at the text's start
        "\nthanks\n\nthanks",
        "",
    ],
)
def test_cue_examples(text: str) -> None:
    assert list(name_cues._cue_spans(text)) == plain_cues(text)
    assert name_cues._sign_off_ends(text) == plain_sign_offs(text)


def test_the_examples_hold_cues() -> None:
    assert [before for before, _, _ in name_cues._cue_spans("dear ana said hi")] == [True, False]
    assert plain_cues("éper ana") == []
    assert plain_sign_offs("regards\nana\n  thanks,\r\njo") == [7, 22]
