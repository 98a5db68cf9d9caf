"""Pre-filters and anchors written for the regex engine's fast skip answer exactly as the plain forms they replace."""

import re
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gateway.guardrails import recognizers
from gateway.guardrails.dates import BIRTH_YEAR, YEAR
from gateway.guardrails.prefilters import FOLDS_APART, any_regex, any_word

# The plain forms: one alternation each, look-behinds first.
PLAIN_YEAR_ANCHOR = re.compile(rf"(?<!\w){YEAR}-[01]\d-[0-3]\d(?!\w)|(?<![\w/.]){YEAR}([/.])[01]?\d\1[0-3]?\d(?![\w/.])"
                               rf"|(?<=[/.\-\s,]){YEAR}(?![\w-])")  # fmt: skip
PLAIN_IBAN_HEAD = re.compile(r"\b[A-Za-z]{2}\d{2}")
PLAIN_CREDENTIAL_WORDS = re.compile("|".join(recognizers._CREDENTIAL_WORDS), re.IGNORECASE)

DIGITS_AND_SEPARATORS = "0129a:Ff./- ,\n\t"


def all_code_points() -> str:
    return "".join(chr(point) for point in range(sys.maxunicode + 1) if not 0xD800 <= point <= 0xDFFF)


def test_every_case_insensitive_partner_of_a_credential_letter_lowers_to_it_or_is_searched_by_regex() -> None:
    """``any_word`` is exact where ``str.lower`` pairs characters as ``re.IGNORECASE`` does; the characters where it
    does not, for any letter of the words, are all in FOLDS_APART."""
    everything = all_code_points()
    letters = sorted(set("".join(recognizers._CREDENTIAL_WORDS)))
    for letter in letters:
        partners = set(re.findall(re.escape(letter), everything, re.IGNORECASE))
        lowering_to_it = {char for char in partners if char.lower() == letter}
        assert partners - lowering_to_it <= FOLDS_APART, letter
    lowered_onto_letters = {char for char in everything if char.lower() in letters}
    for char in lowered_onto_letters:
        assert re.fullmatch(re.escape(char.lower()), char, re.IGNORECASE), char


def test_any_word_refuses_words_not_in_lower_case() -> None:
    with pytest.raises(ValueError, match="lower case"):
        any_word(["Key"])


@settings(max_examples=600, deadline=None)
@given(st.text(alphabet=st.sampled_from([*"keyKEYsecretSECRETclé CLÉ ñÑüÜ -_", *FOLDS_APART, "İ", "ẞ"]), max_size=40))
def test_credential_words_are_found_as_the_case_insensitive_regex_finds_them(text: str) -> None:
    assert any_word(recognizers._CREDENTIAL_WORDS)(text) == (PLAIN_CREDENTIAL_WORDS.search(text) is not None)


@pytest.mark.parametrize("text", ["API_KEY=x", "the ſecret", "Contraseña: x", "KENNWORT", "no word here", "clef"])
def test_credential_words_examples(text: str) -> None:
    assert any_word(recognizers._CREDENTIAL_WORDS)(text) == (PLAIN_CREDENTIAL_WORDS.search(text) is not None)


@settings(max_examples=800, deadline=None)
@given(st.text(alphabet=DIGITS_AND_SEPARATORS, max_size=60))
def test_year_anchor_matches_where_the_plain_form_does(text: str) -> None:
    spans = [match.span() for match in re.finditer(recognizers._YEAR_ANCHOR, text)]
    assert spans == [match.span() for match in PLAIN_YEAR_ANCHOR.finditer(text)]


@settings(max_examples=800, deadline=None)
@given(st.text(alphabet="0129aFx:. \n", max_size=60))
def test_ip_prefilter_answers_as_the_anchor(text: str) -> None:
    expected = re.search(recognizers._IP_ANCHOR, text) is not None
    assert any_regex(recognizers._IP_ANCHOR_PARTS)(text) == expected


@settings(max_examples=800, deadline=None)
@given(st.text(alphabet="dDoOtT@[(<>)] .\n_x", max_size=40))
def test_obfuscation_prefilter_answers_as_the_anchor(text: str) -> None:
    expected = re.search(recognizers._OBFUSCATION_ANCHOR, text) is not None
    assert any_regex(recognizers._OBFUSCATION_ANCHOR_PARTS)(text) == expected


@settings(max_examples=800, deadline=None)
@given(st.text(alphabet="abDE19_ -.é٣", max_size=30))
def test_iban_prefilter_answers_as_the_plain_form(text: str) -> None:
    expected = PLAIN_IBAN_HEAD.search(text) is not None
    assert (re.search(recognizers._IBAN_HEAD_ANCHOR, text) is not None) == expected


PLAIN_WEAK_DATE_ANCHOR = re.compile(
    rf"(?<!\w){BIRTH_YEAR}-[01]\d-[0-3]\dT\d|(?<![\w.+-]){BIRTH_YEAR}[01]\d[0-3]\d(?![\w-]|\.\d)"
    r"|(?<![\w./:-])[0-3]?\d([/.-])[0-3]?\d\1\d\d(?![\w/:-]|\.\d)|\s['’]\d\d(?![\w'’])"
)


@settings(max_examples=1500, deadline=None)
@given(st.text(alphabet="0123589٣-/.:+T '’\na_", max_size=60))
def test_weak_date_anchor_matches_where_the_plain_form_does(text: str) -> None:
    spans = [match.span() for match in re.finditer(recognizers._WEAK_DATE_ANCHOR, text)]
    assert spans == [match.span() for match in PLAIN_WEAK_DATE_ANCHOR.finditer(text)]


@pytest.mark.parametrize("text", ["born 1984-05-03T10", "DOB 19840503.", "dob 04/03/85", "born in '85", "2001/3/4",
                                  " 12-12-12 ", "x19840503", "٣/4/85"])
def test_weak_date_anchor_examples(text: str) -> None:
    spans = [match.span() for match in re.finditer(recognizers._WEAK_DATE_ANCHOR, text)]
    assert spans == [match.span() for match in PLAIN_WEAK_DATE_ANCHOR.finditer(text)]
    assert bool(spans) == (text not in ("x19840503", "2001/3/4"))
