"""Output redaction of structured completions: what is released is valid JSON (or a prefix of it, when a finding
could not be rewritten in place and the rest was withheld), never PII, and a stream gives the whole-text result."""

import itertools
import json

import pytest
from guard_support import OUTPUT_POLICY as POLICY
from guard_support import TOKEN_KEY as KEY
from hypothesis import given, settings
from hypothesis import strategies as st

from gateway.guardrails import OutputRedactor, OutputShape, PiiAnalyzer, redact_output_text
from gateway.guardrails.json_lexer import CharKind, LexState, scan
from policies import Policy

CONTACT = json.dumps({
    "note": "Write to dana.k@example.org\nor call (415) 555-0132 about \"Project Bluebird\" \u00e9t\u00e9",
    "card": "4111 1111 1111 1111",
    "tags": ["ok", "reach dana.k@example.org"],
    "count": 3,
    "active": True,
}, ensure_ascii=True)
SECRETS = ["dana.k", "555-0132", "4111 1111", "Bluebird", "Blue\\u0062ird"]
# A phone number written as a JSON number cannot be masked in place.
NUMBER_PHONE = '{"city": "Santoram", "population_millions": 4155550132, "mayor": "dana.k@example.org"}'
# PII spelled with JSON escapes: the client decodes "\u0040" to "@", so the redactor must read it that way too.
ESCAPED = ('{"contact": "dana.k\\u0040example.org", "note": "about \\"Project Blue\\u0062ird\\" \\ud83d\\ude00",'
           ' "phone": "(415)\\u0020555-0132"}')


def _redact(analyzer: PiiAnalyzer, text: str,
            shape: OutputShape = OutputShape.JSON) -> tuple[str, list[dict[str, object]]]:
    return redact_output_text(analyzer, POLICY, text, KEY, shape=shape)


def _stream(analyzer: PiiAnalyzer, text: str, chunks: list[str], shape: OutputShape = OutputShape.JSON,
            holdback: int = 48) -> tuple[str, OutputRedactor]:
    redactor = OutputRedactor(analyzer, POLICY, KEY, shape=shape, holdback_chars=holdback, min_emit_chars=4)
    emitted = []
    for chunk in chunks:
        emitted.append(redactor.feed(chunk))
        for secret in SECRETS:
            assert secret not in "".join(emitted)
    return "".join(emitted) + redactor.flush(), redactor


# -- the lexer -----------------------------------------------------------------------------------------------------
def test_lexer_classifies_strings_escapes_words_and_punctuation() -> None:
    text = '{"a": "x\\u00e9\\n", "n": -12.5e3, "b": [true, null]} '
    layout, after = scan(LexState.start(OutputShape.JSON), text)
    kinds = "".join("FSQPW"[kind] for kind in layout.kinds)
    assert kinds == "PQSQPPQSSSSSSSSSQPPQSQPPWWWWWWWPPQSQPPPWWWWPPWWWWPPP"
    escape = text.index("\\u")
    assert layout.unit_start[escape: escape + 6] == [escape] * 6
    assert layout.string_span(escape + 2, escape + 3) == (escape, escape + 6)  # widened to the whole \u00e9
    assert layout.string_span(1, 8) is None  # a key's quote and a value: two strings
    number = text.index("-12")
    assert layout.token_start(number + 3) == number and layout.safe_cut(number + 2) == number
    assert after.done and after.depth == 0


def test_lexer_in_tool_calls_switches_between_text_and_json() -> None:
    text = 'Sure. <tool_call>[{"name": "f", "arguments": {"q": "x"}}]</tool_call> done'
    layout, after = scan(LexState.start(OutputShape.TOOL_CALLS), text)
    json_start, json_end = text.index("["), text.index("]") + 1
    assert all(kind is CharKind.FREE for kind in layout.kinds[:json_start])
    assert all(kind is not CharKind.FREE for kind in layout.kinds[json_start:json_end])
    assert all(kind is CharKind.FREE for kind in layout.kinds[json_end:])
    assert not after.in_json


ESCAPED_CALL = 'x <tool_call>[{"name": "f", "arguments": {"p": "\\"q\\\\"}}]</tool_call>'


@settings(max_examples=80, deadline=None)
@given(st.sampled_from([CONTACT, NUMBER_PHONE, ESCAPED_CALL]),
       st.lists(st.integers(min_value=1, max_value=80), max_size=6, unique=True))
def test_lexing_in_pieces_equals_lexing_at_once(text: str, cuts: list[int]) -> None:
    shape = OutputShape.TOOL_CALLS if text.startswith("x") else OutputShape.JSON
    whole, _ = scan(LexState.start(shape), text)
    state, kinds = LexState.start(shape), []
    bounds = [0, *sorted(c for c in cuts if c < len(text)), len(text)]
    for a, b in itertools.pairwise(bounds):
        piece, state = scan(state, text[a:b])
        kinds.extend(piece.kinds)
    assert kinds == whole.kinds


# -- redaction -------------------------------------------------------------------------------------------------------
def test_pii_in_string_values_is_rewritten_and_the_json_stays_valid(analyzer: PiiAnalyzer) -> None:
    safe, decisions = _redact(analyzer, CONTACT)
    value = json.loads(safe)
    for secret in SECRETS:
        assert secret not in safe
    assert value["note"].startswith("Write to <EMAIL_ADDRESS>\nor call <PHONE_NUMBER_")
    assert value["card"] == "<CREDIT_CARD>" and value["tags"] == ["ok", "reach <EMAIL_ADDRESS>"]
    assert value["count"] == 3 and value["active"] is True
    assert '<DENIED_CONTENT>' in value["note"] and value["note"].endswith("\u00e9t\u00e9")
    assert not any(d.get("decision") == "withheld" for d in decisions)
    # The audit names the policy's action ("block" is carried out on output by withholding the value).
    actions = {row["entity_type"]: row["action"] for row in decisions[0]["entities"]}  # type: ignore[union-attr]
    assert actions == {"CREDIT_CARD": "block", "EMAIL_ADDRESS": "mask", "PHONE_NUMBER": "hash",
                       "DENIED_CONTENT": "mask"}


def test_pii_outside_a_string_is_withheld_with_everything_after_it(analyzer: PiiAnalyzer) -> None:
    safe, decisions = _redact(analyzer, NUMBER_PHONE)
    assert safe == '{"city": "Santoram", "population_millions": '
    assert "4155550132"[:3] not in safe.split(":")[-1]  # no part of the number
    withheld = [d for d in decisions if d.get("decision") == "withheld"]
    assert withheld == [{"kind": "pii", "side": "output", "decision": "withheld",
                         "reason": "outside a JSON string value", "entity_types": ["PHONE_NUMBER"]}]
    # As free text the same number is masked in place (which is what broke JSON outputs).
    assert "<PHONE_NUMBER_" in _redact(analyzer, NUMBER_PHONE, OutputShape.TEXT)[0]


def test_escaped_pii_is_read_as_the_client_reads_it(analyzer: PiiAnalyzer) -> None:
    value = json.loads(ESCAPED)
    assert value["contact"] == "dana.k@example.org" and "Project Bluebird" in value["note"]  # what a client sees
    safe, _ = _redact(analyzer, ESCAPED)
    redacted = json.loads(safe)
    assert redacted["contact"] == "<EMAIL_ADDRESS>"
    assert redacted["note"] == 'about "<DENIED_CONTENT>" \U0001F600' and redacted["phone"].startswith("<PHONE_NUMBER_")
    # Free text is not decoded (no JSON there), which is why structured outputs say they are JSON.
    assert "dana.k" in _redact(analyzer, ESCAPED, OutputShape.TEXT)[0]


def test_a_finding_across_two_strings_is_withheld(analyzer: PiiAnalyzer) -> None:
    text = '{"a": ["call (415) 555-", "0132"], "b": "ok"}'
    redactor = OutputRedactor(analyzer, Policy(output_deny_patterns=[r'555-", "0132']), KEY,
                              shape=OutputShape.JSON)
    redactor.feed_quietly(text)
    assert redactor.flush() == '{"a": ["call (415) ' and redactor.withheld


def test_tool_call_arguments_and_surrounding_text_are_redacted(analyzer: PiiAnalyzer) -> None:
    text = ('Noted, dana.k@example.org. <tool_call>[{"name": "send", "arguments": {"to": "dana.k@example.org", '
            '"n": 2}}]</tool_call>')
    safe, _ = _redact(analyzer, text, OutputShape.TOOL_CALLS)
    assert safe.startswith("Noted, <EMAIL_ADDRESS>. <tool_call>")
    call = json.loads(safe[safe.index("[") : safe.rindex("]") + 1])
    assert call == [{"name": "send", "arguments": {"to": "<EMAIL_ADDRESS>", "n": 2}}]


@pytest.mark.parametrize("text", [CONTACT, NUMBER_PHONE, ESCAPED])
def test_every_two_chunk_split_gives_the_whole_text_result(analyzer: PiiAnalyzer, text: str) -> None:
    expected, _ = _redact(analyzer, text)
    for split in range(1, len(text)):
        released, redactor = _stream(analyzer, text, [text[:split], text[split:]])
        assert released == expected, split
        assert redactor.withheld == (text is NUMBER_PHONE)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([CONTACT, NUMBER_PHONE, ESCAPED]), st.lists(st.integers(min_value=1, max_value=200), max_size=50,
                                                          unique=True))
def test_token_by_token_streams_never_leak_and_match_the_whole_text(analyzer: PiiAnalyzer, text: str,
                                                                    cuts: list[int]) -> None:
    expected, _ = _redact(analyzer, text)
    bounds = [0, *sorted(c for c in cuts if c < len(text)), len(text)]
    released, _ = _stream(analyzer, text, [text[a:b] for a, b in itertools.pairwise(bounds)])
    assert released == expected


def test_minified_json_is_released_before_the_end(analyzer: PiiAnalyzer) -> None:
    """No spaces to cut at: cuts fall after JSON punctuation instead, so a stream still flows."""
    text = json.dumps([{"id": i, "name": f"item{i}"} for i in range(40)], separators=(",", ":"))
    redactor = OutputRedactor(analyzer, POLICY, KEY, shape=OutputShape.JSON, holdback_chars=48,
                              min_emit_chars=16)
    early = "".join(redactor.feed(text[i : i + 7]) for i in range(0, len(text), 7))
    assert len(early) > len(text) // 2
    assert early + redactor.flush() == text
