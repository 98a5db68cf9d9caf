"""Where each character of a structured completion sits, so output redaction can keep the JSON valid.

A masked value (``<EMAIL_ADDRESS>``, ``<PHONE_NUMBER_1a2b3c4d>``) is plain JSON string content, so a finding that
lies inside one string literal can be replaced in place, once widened to whole escape sequences. Anywhere else (a
number, ``true``, a quote, a brace, or across two strings) a replacement would break the document.

The lexer is incremental: a streamed completion is classified chunk by chunk from a saved ``LexState``, and a
scan never commits the state, because the redactor analyses more text than it releases.

Shapes: ``OutputShape.JSON`` is one JSON document (``response_format`` json_object / json_schema);
``OutputShape.TOOL_CALLS`` is free text in which every ``<tool_call>`` is followed by one JSON value (the tool-call
grammar); ``OutputShape.TEXT`` is free text only.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace

from engine.tool_calls import TOOL_CALL_OPEN


class OutputShape(enum.Enum):
    TEXT = "text"
    JSON = "json"
    TOOL_CALLS = "tool_calls"


class CharKind(enum.IntEnum):
    FREE = 0  # free text: redacted as text
    STRING = 1  # content of a JSON string literal (escape sequences included)
    QUOTE = 2  # a string literal's opening or closing quote
    PUNCT = 3  # structure and whitespace between JSON tokens
    WORD = 4  # a number or literal (true, false, null)


_OPENERS = frozenset("{[")
_CLOSERS = frozenset("}]")
_BETWEEN_TOKENS = frozenset(" \t\r\n:,")


@dataclass(frozen=True, slots=True)
class LexState:
    in_json: bool  # False: free text (TOOL_CALLS outside a call)
    back_to_text: bool  # TOOL_CALLS: free text again once the call's value is complete
    depth: int = 0  # open containers
    in_string: bool = False
    escape: int = 0  # -1: just after a backslash; n > 0: hex digits of \uXXXX still to come
    tag_matched: int = 0  # characters of TOOL_CALL_OPEN matched so far in free text
    done: bool = False  # the JSON value is complete; what follows is not content
    in_word: bool = False  # the previous character was part of a number or literal

    @classmethod
    def start(cls, shape: OutputShape) -> LexState:
        return cls(in_json=shape is OutputShape.JSON, back_to_text=shape is OutputShape.TOOL_CALLS)


@dataclass(slots=True)
class Scan:
    """Per character: its kind, the start of its unit (escape sequence or word; itself otherwise) and which
    string literal it belongs to (-1 outside strings)."""

    kinds: list[CharKind]
    unit_start: list[int]
    string_id: list[int]

    @classmethod
    def free(cls, length: int) -> Scan:
        """Free text throughout (``OutputShape.TEXT``)."""
        return cls([CharKind.FREE] * length, list(range(length)), [-1] * length)

    def string_span(self, start: int, end: int) -> tuple[int, int] | None:
        """``[start, end)`` widened to whole escape sequences, if it lies within one string's content; else None."""
        kinds, ids = self.kinds, self.string_id
        if kinds[start] is not CharKind.STRING or kinds[end - 1] is not CharKind.STRING:
            return None
        if ids[start] != ids[end - 1]:
            return None
        last_unit = self.unit_start[end - 1]
        while end < len(kinds) and kinds[end] is CharKind.STRING and self.unit_start[end] == last_unit:
            end += 1
        return self.unit_start[start], end

    def is_free(self, start: int, end: int) -> bool:
        return all(kind is CharKind.FREE for kind in self.kinds[start:end])

    def token_start(self, index: int) -> int:
        """Where the JSON token holding ``index`` begins (cutting there leaves no part of it behind)."""
        return self.unit_start[index] if self.kinds[index] is CharKind.WORD else index

    def safe_cut(self, cut: int) -> int:
        """The nearest cut at or before ``cut`` that does not split an escape sequence or a word."""
        if cut < len(self.kinds) and self.kinds[cut] in (CharKind.STRING, CharKind.WORD):
            return self.unit_start[cut]
        return cut

    def token_boundary_before(self, cut: int) -> int:
        """The last position at or before ``cut`` that follows a JSON punctuation mark or quote (-1: none)."""
        for position in range(min(cut, len(self.kinds)), 0, -1):
            if self.kinds[position - 1] in (CharKind.PUNCT, CharKind.QUOTE):
                return position
        return -1


def scan(state: LexState, text: str) -> tuple[Scan, LexState]:
    """Classify ``text`` starting from ``state``; returns the classification and the state after the text.

    Units that began before ``text`` (an escape or word split by a cut) start at 0: callers never cut inside one."""
    kinds: list[CharKind] = []
    unit_start: list[int] = []
    string_id: list[int] = []
    strings = 0 if state.in_string else -1
    unit = 0
    in_json, depth, in_string, escape = state.in_json, state.depth, state.in_string, state.escape
    tag_matched, done, in_word = state.tag_matched, state.done, state.in_word
    for index, char in enumerate(text):
        kind = CharKind.PUNCT
        owner = -1
        if not in_json:
            kind = CharKind.FREE
            tag_matched = tag_matched + 1 if char == TOOL_CALL_OPEN[tag_matched] else int(char == TOOL_CALL_OPEN[0])
            if tag_matched == len(TOOL_CALL_OPEN):
                in_json, depth, done, in_word, tag_matched = True, 0, False, False, 0
        elif in_string:
            kind, owner = CharKind.STRING, strings
            if escape == -1:  # the character after a backslash: same unit
                escape = 4 if char == "u" else 0
            elif escape > 0:  # a hex digit of \uXXXX: same unit
                escape -= 1
            elif char == "\\":
                escape, unit = -1, index
            elif char == '"':
                kind, in_string = CharKind.QUOTE, False
                done = depth == 0
            else:
                unit = index  # a plain character is a unit of its own
        elif done:
            pass  # after the value: whitespace (the grammar allows nothing else)
        elif char == '"':
            kind, in_string, in_word = CharKind.QUOTE, True, False
            strings += 1
            owner = strings
        elif char in _BETWEEN_TOKENS or char in _OPENERS or char in _CLOSERS:
            done = in_word and depth == 0  # a top-level number or literal ends at the first character after it
            in_word = False
            if char in _OPENERS:
                depth += 1
            elif char in _CLOSERS:
                depth = max(depth - 1, 0)
                done = depth == 0
        else:
            kind = CharKind.WORD
            if not in_word:
                unit, in_word = index, True
        if done and in_json and state.back_to_text and kind is not CharKind.STRING:
            in_json, done = False, False
        kinds.append(kind)
        unit_start.append(unit if kind in (CharKind.STRING, CharKind.WORD) else index)
        string_id.append(owner)
    after = replace(state, in_json=in_json, depth=depth, in_string=in_string, escape=escape,
                    tag_matched=tag_matched, done=done, in_word=in_word)
    return Scan(kinds, unit_start, string_id), after


_SIMPLE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", '"': '"', "\\": "\\", "/": "/"}


def decoded_view(text: str, layout: Scan) -> tuple[str, list[int], list[int]]:
    """``text`` with every complete escape sequence inside a string decoded (``\\u0040`` -> ``@``), and for each
    character of the view the raw span it came from (start, end). Analysis runs on the view, so PII spelled with
    escapes is seen as the client will read it; findings map back to raw spans that cover whole escapes."""
    view: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    index, length = 0, len(text)
    kinds, units = layout.kinds, layout.unit_start
    while index < length:
        if text[index] == "\\" and kinds[index] is CharKind.STRING and units[index] == index:
            stop = index + 1
            while stop < length and kinds[stop] is CharKind.STRING and units[stop] == index:
                stop += 1
            decoded = _decode_escape(text[index:stop])
            if decoded is not None:
                view.append(decoded)
                starts.append(index)
                ends.append(stop)
                index = stop
                continue
        view.append(text[index])
        starts.append(index)
        ends.append(index + 1)
        index += 1
    return "".join(view), starts, ends


def _decode_escape(escape: str) -> str | None:
    """The character a complete JSON escape stands for; None for an incomplete one (the end of a cut-off text)."""
    if len(escape) == 2 and escape[1] in _SIMPLE_ESCAPES:
        return _SIMPLE_ESCAPES[escape[1]]
    if len(escape) == 6 and escape[1] == "u":
        try:
            return chr(int(escape[2:], 16))
        except ValueError:
            return None
    return None
