"""``fields._fields`` finds what ``_FIELD.finditer`` finds in the lower-cased text, trying ``_FIELD`` only where
``_FIELD_LEAD`` says a key may start: every key opens with one of ``_key_heads``."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gateway.guardrails import fields


def every_key() -> list[str]:
    """Each person and place key the key patterns spell (each optional joiner written every way)."""
    name_words = ["name", "names", "nom", "nombre", "vorname", "nachname"]
    owners = ["", *fields._NAME_OWNERS]
    keys = [owner + joiner + word for owner, joiner, word in itertools.product(owners, ["", " ", "_", ".", "-"],
                                                                               name_words)]  # fmt: skip
    for word in fields._PERSON_WORDS:
        keys += [word.replace("[ _-]?", joiner) for joiner in ("", " ", "_", "-")]
    keys += fields._ROLE_KEYS
    keys += [place.replace(" ", joiner) for place in fields._PLACES for joiner in ("_", "-", "", " ")]
    return sorted(set(keys))


def test_every_key_is_one_and_opens_with_a_head() -> None:
    for key in every_key():
        assert fields._column_kind(key) is not None, key
        assert fields._FIELD_LEAD.match(f" {key}") is not None, key


def test_a_head_is_what_its_key_opens_with() -> None:
    assert fields._literal_head("assigned[ _-]?to") == "assigned"
    assert fields._literal_head("names?") == "name"
    assert {"name", "_name", " nom", "tech", "birth", "full"} <= fields._key_heads()
    assert "names" not in fields._key_heads()  # "name" opens it


PIECES = [
    "name", "full_name", "user", "user.", "first", "city", "tech lead", "approved_by", "customer", "birth place",
    "x", "é", "ж", "1", "_", "-", ".", "...", ":", "=", "=>", " ", "  ", "\t", "\n", '"', "'", "[", "]", "{", ",",
    "ana lópez", "bob", "<", ">",
]  # fmt: skip


def plain(lowered: str) -> list[tuple[tuple[int, int], dict[str, str | None]]]:
    return [(match.span(), match.groupdict()) for match in fields._FIELD.finditer(lowered)]


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=14).map("".join))
def test_fields_are_the_plain_forms_matches(text: str) -> None:
    assert [(match.span(), match.groupdict()) for match in fields._fields(text)] == plain(text)


@pytest.mark.parametrize(
    "text",
    [
        "name: ana lópez",  # a key at the text's start
        "user.first_name: ana, city=bob",  # a path before the key
        "éuser.name: ana",  # a letter outside ASCII opens the path's run
        "xname: ana",  # no key inside a word
        'customer.name "ana lópez" full name: bob',  # a spaced value after a path
        "a.b.name: ana",
        "city ....... bob",
        "",
    ],
)
def test_field_examples(text: str) -> None:
    assert [(match.span(), match.groupdict()) for match in fields._fields(text)] == plain(text)


def test_the_examples_hold_fields() -> None:
    assert [match.span() for match in fields._fields("user.first_name: ana, city=bob")] == [(0, 20), (22, 30)]
    assert plain("xname: ana") == []


LINE_PIECES = [
    "\n", "\r\n", " ", "  ", "\t", "- ", "-", "name", "city", "a_b", "x.y", ",", ";", '"', "'", "\\n", "é", "1",
]  # fmt: skip
LINE_PATTERNS = {
    "yaml item": (fields._YAML_ITEM, fields._YAML_ITEM_LINES),
    "aligned": (fields._ALIGNED, fields._ALIGNED_LINES),
    **{f"csv header {d}": (fields._CSV_HEADERS[d], fields._CSV_HEADER_LINES[d]) for d in fields._CSV_HEADERS},
}


@pytest.mark.parametrize("name", sorted(LINE_PATTERNS))
@settings(max_examples=800, deadline=None)
@given(text=st.lists(st.sampled_from(LINE_PIECES), max_size=20).map("".join))
def test_line_patterns_match_where_they_do_at_every_position(name: str, text: str) -> None:
    pattern, lines = LINE_PATTERNS[name]
    found = [(match.span(), match.groupdict()) for match in lines.finditer(text)]
    assert found == [(match.span(), match.groupdict()) for match in pattern.finditer(text)]


def test_line_pattern_examples() -> None:
    text = "name,city,x\nana,bob,1\n  - ana\n\n- bob\nname   Ana López\n"
    for pattern, lines in LINE_PATTERNS.values():
        found = [match.span() for match in lines.finditer(text)]
        assert found == [match.span() for match in pattern.finditer(text)]
    assert [m.group("value") for m in fields._YAML_ITEM_LINES.finditer(text)] \
        == ["ana", "bob"]  # fmt: skip
