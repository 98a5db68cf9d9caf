"""Scans rewritten for the regex engine's speed (#34) answer exactly as the plain forms they replace: the card, SSN and
spelled-digits pre-filters' chains written out step by step, the credential key's words as one alternation, and a
phone number's type test reading fixed lines and mobiles first."""

import re

import phonenumbers
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from phonenumbers import PhoneMetadata, PhoneNumberType
from phonenumbers.phonenumberutil import _number_type_helper

from gateway.guardrails import credentials, phones, recognizers
from gateway.guardrails.credentials import CREDENTIAL_WORDS, LOGIN_WORDS

# The plain forms, as the pre-filters and the key's scan were written before.
PLAIN_CARD_DIGITS = re.compile(r"\d(?:[ -]?\d){11,}")
PLAIN_SSN_DIGITS = re.compile(r"\d{3}[- .]?\d{2}[- .]?\d{4}")
PLAIN_SPELLED_DIGITS = re.compile(rf"\d(?:{recognizers._DIGIT_SEP}\d){{9}}")
PLAIN_KEYED = re.compile(
    rf"(?:(?P<password>{LOGIN_WORDS})|{CREDENTIAL_WORDS})(?:[ _-]?(?:key|id|value))?[A-Za-z0-9_.-]*"
    r"[\"']?\s*(?P<separator>:=|=>|[:=]|\s+is)\s*(?:[\"'](?P<quoted>[^\"'\r\n]{4,256})[\"']"
    r"|(?P<bare>[^\s\"'`,;(){}\[\]<>]{4,256}))"
)

# Digits (an Arabic-Indic one too: ``\d`` is any decimal digit), the chains' separators and what breaks a chain.
DIGITS = st.text(alphabet="0123456789٣ -.\t/|*_a+,\n", max_size=60)
CARD_CHAINS = st.lists(st.sampled_from(["4111", "1", "41", "9", " ", "-", "  ", "--", "a", "4 1", "٣"]), max_size=30)


@settings(max_examples=1500, deadline=None)
@given(DIGITS)
def test_card_chain_occurs_where_the_plain_form_does(text: str) -> None:
    assert (re.search(recognizers._CARD_DIGITS, text) is not None) == (PLAIN_CARD_DIGITS.search(text) is not None)


@settings(max_examples=1500, deadline=None)
@given(CARD_CHAINS)
def test_card_chain_occurs_where_the_plain_form_does_in_grouped_runs(parts: list[str]) -> None:
    text = "".join(parts)
    assert (re.search(recognizers._CARD_DIGITS, text) is not None) == (PLAIN_CARD_DIGITS.search(text) is not None)


@pytest.mark.parametrize(
    "text",
    ["4111 1111 1111 1111", "x41111111111 1", "1 4111-1111-111", "12 345 678 901", "4 1 1 1 1 1 1 1 1 1 1",
     "4 1 1 1 1 1 1 1 1 1 1 1", "+1 415 555 1663 and 12", "1--2222222222222", "٣٣٣٣ ٣٣٣٣ ٣٣٣٣"],
)  # fmt: skip
def test_card_chain_examples(text: str) -> None:
    assert (re.search(recognizers._CARD_DIGITS, text) is not None) == (PLAIN_CARD_DIGITS.search(text) is not None)


@settings(max_examples=1500, deadline=None)
@given(DIGITS)
def test_ssn_chain_matches_where_the_plain_form_does(text: str) -> None:
    found = re.search(recognizers._SSN_DIGITS, text)
    plain = PLAIN_SSN_DIGITS.search(text)
    assert (found and found.span()) == (plain and plain.span())


@settings(max_examples=1500, deadline=None)
@given(DIGITS)
def test_spelled_digits_match_where_the_plain_form_does(text: str) -> None:
    found = recognizers.SPELLED_DIGITS.search(text)
    plain = PLAIN_SPELLED_DIGITS.search(text)
    assert (found and found.span()) == (plain and plain.span())


def _keyed(pattern: re.Pattern[str], text: str, password: bool) -> list[tuple[object, ...]]:
    return [
        (match.span(), match.group("separator"), match.group("quoted"), match.group("bare"),
         (match.group("password") is not None) if password else
         credentials._LOGIN_WORD.fullmatch(match.group("word")) is not None)
        for match in pattern.finditer(text)
    ]  # fmt: skip


KEY_PIECES = ["password", "passwd", "pass", "passport", "passenger", "pwd", "passcode", "mot de passe", "kennwort",
              "contraseña", "passwort", "secret", "token", "api_key", "apikey", "private key", "client-secret",
              "credentials", "auth key", "bearer", "dsn", "connection string", "conn_string", "_id", "value", " is ",
              "=", ":", ":=", "=>", '"', "'", " ", "\n", "hunter22", "abc", "x9Kq2", ",", "$"]  # fmt: skip


@settings(max_examples=2000, deadline=None)
@given(st.lists(st.sampled_from(KEY_PIECES), max_size=14))
def test_credential_keys_match_where_the_plain_form_does_with_the_same_password_reading(parts: list[str]) -> None:
    text = "".join(parts)
    assert _keyed(credentials._KEYED, text, password=False) == _keyed(PLAIN_KEYED, text, password=True)


def test_credential_key_example_reads_a_password_and_a_token() -> None:
    text = "password=hunter22 api_key: 'x9Kq2abcdefgh' passport: AB123456"
    assert _keyed(credentials._KEYED, text, password=False) == _keyed(PLAIN_KEYED, text, password=True)
    assert [row[-1] for row in _keyed(credentials._KEYED, text, password=False)] == [True, False]


# Every region's metadata, and national numbers of the lengths they take.
REGIONS = sorted(phonenumbers.SUPPORTED_REGIONS)
NATIONAL_NUMBERS = st.text(alphabet="0123456789", min_size=4, max_size=13)


@settings(max_examples=3000, deadline=None)
@given(st.sampled_from(REGIONS), NATIONAL_NUMBERS)
def test_a_number_has_a_type_where_phonenumbers_gives_it_one(region: str, national: str) -> None:
    metadata = PhoneMetadata.metadata_for_region(region)
    assert metadata is not None
    assert phones._has_type(national, metadata) == (_number_type_helper(national, metadata) != PhoneNumberType.UNKNOWN)


@pytest.mark.parametrize(
    "number",
    ["+1 415 555 1663", "+1 212 555 0100", "+44 20 7946 0958", "+33 1 23 45 67 89", "+49 30 1234567", "+1 800 555 0199",
     "+1 900 555 0199", "+44 7700 900123", "+7 495 123 45 67", "+800 1234 5678", "+1 264 497 1234", "+39 06 1234 5678"],
)  # fmt: skip
def test_valid_for_region_as_phonenumbers_tells(number: str) -> None:
    parsed = phonenumbers.parse(number, None)
    assert parsed.country_code is not None
    for region in [*phonenumbers.region_codes_for_country_code(parsed.country_code), "US", "GB", "001"]:
        assert phones._valid_for_region(parsed, region) == phonenumbers.is_valid_number_for_region(parsed, region)


@settings(max_examples=1500, deadline=None)
@given(st.sampled_from(["1", "7", "44", "33", "49", "61", "91", "800", "979"]), NATIONAL_NUMBERS)
def test_a_parsed_numbers_region_is_the_one_phonenumbers_reads(code: str, national: str) -> None:
    candidate = f"+{code} {national}"
    try:
        parsed = phonenumbers.parse(candidate, None)
    except phonenumbers.NumberParseException:
        parsed = None
    expected = None
    if parsed is not None and phonenumbers.is_valid_number(parsed):
        expected = phonenumbers.region_code_for_number(parsed)
    assert phones._valid_region(candidate, None) == expected
