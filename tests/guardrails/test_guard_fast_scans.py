"""Scans rewritten for the regex engine's speed (#34) answer exactly as the plain forms they replace: the card, SSN and
spelled-digits pre-filters' chains written out step by step (the card, IBAN and SSN ones asked after one search for
any of them), the credential key's words as one alternation, a phone number's type test reading fixed lines and
mobiles first, a value's column asked of a text that may have one only, and the birth words' stems looked for from a
rare letter."""

import re

import phonenumbers
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from phonenumbers import PhoneMetadata, PhoneNumberType
from phonenumbers.phonenumberutil import _extract_country_code, _number_type_helper

from gateway.guardrails import columns, credentials, dates, phones, recognizers
from gateway.guardrails.credentials import CREDENTIAL_WORDS, LOGIN_WORDS
from gateway.guardrails.fixed_columns import fixed_width_header
from gateway.guardrails.sql_values import column_at, may_hold_inserts

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


PLAIN_IBAN_HEAD = re.compile(r"\b[A-Za-z]{2}\d{2}")
# Digits in every spacing, a country code's letters before them, a NUL byte and an Arabic-Indic digit.
CHAIN_PARTS = st.lists(st.sampled_from(["4111", "1", "41", "123", "9", " ", "-", ".", "  ", "--", "DE", "gb", "x",
                                        "_", "\x00", "\n", "٣", "4 1", "12-34"]), max_size=40)  # fmt: skip


@pytest.fixture(scope="module")
def chain_prefilters() -> dict[str, object]:
    detectors = recognizers.build_detectors()
    return {d.entity_type: d.prefilter for d in detectors
            if d.recognizer.name in ("CardRecognizer", "IbanCodeRecognizer", "_SsnRecognizer")}  # fmt: skip


def answers_as_the_plain_forms(prefilters: dict[str, object], text: str) -> None:
    assert prefilters["CREDIT_CARD"](text) == (PLAIN_CARD_DIGITS.search(text) is not None)  # type: ignore[operator]
    assert prefilters["IBAN_CODE"](text) == (PLAIN_IBAN_HEAD.search(text) is not None)  # type: ignore[operator]
    assert prefilters["US_SSN"](text) == (PLAIN_SSN_DIGITS.search(text) is not None)  # type: ignore[operator]


@settings(max_examples=1500, deadline=None)
@given(CHAIN_PARTS)
def test_card_iban_and_ssn_prefilters_asked_after_any_chain_answer_as_the_plain_forms(
    chain_prefilters: dict[str, object], parts: list[str]
) -> None:
    """The three pre-filters ask first whether any of their chains occurs (one search, answered once per text): each
    still answers as its plain form, in texts with one chain, several or none."""
    text = "".join(parts)
    answers_as_the_plain_forms(chain_prefilters, text)
    assert (re.search(recognizers._ANY_DIGIT_CHAIN, text) is not None) == any(
        re.search(chain, text) is not None
        for chain in (recognizers._CARD_DIGITS, recognizers._IBAN_HEAD_ANCHOR, recognizers._SSN_DIGITS)
    )


@pytest.mark.parametrize(
    "text",
    ["", "4111 1111 1111 1111", "DE89 3704", "x DE89", "078-05-1120", "078051120", "12 34 56 78 90 1",
     "4111\x001111 1111 1111", "GB\x0012", "٣٣٣-٣٣-٣٣٣٣", "1" * 8 + " ab" * 40_000 + " DE12", "7 " * 100_000],
)  # fmt: skip
def test_card_iban_and_ssn_prefilter_examples(chain_prefilters: dict[str, object], text: str) -> None:
    answers_as_the_plain_forms(chain_prefilters, text)


def test_the_three_chain_prefilters_ask_one_search_of_a_text() -> None:
    """A text the three pre-filters are asked of in turn is searched for any chain once."""
    card, iban, ssn = recognizers._digit_chains((recognizers._CARD_DIGITS, recognizers._IBAN_HEAD_ANCHOR,
                                                 recognizers._SSN_DIGITS))  # fmt: skip
    shared = {id(cell.cell_contents) for f in (card, iban, ssn) for cell in f.__closure__ or ()
              if isinstance(cell.cell_contents, recognizers.PerText)}  # fmt: skip
    assert len(shared) == 1
    text = "call 415 555 0132, ref DE4"
    assert (card(text), iban(text), ssn(text)) == (False, False, False)


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


def test_a_country_code_is_read_as_phonenumbers_reads_it() -> None:
    # Every string of up to four digits (every code is one to three), then longer runs behind each of their prefixes.
    prefixes = ["", *(f"{n:0{size}d}" for size in range(1, 5) for n in range(10**size))]
    for digits in [*prefixes, *(prefix + "4155550132" for prefix in prefixes[:1111])]:
        assert phones._country_code(digits) == _extract_country_code(digits), digits


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


# A value's column: the plain forms, as ``columns.header_cell`` and ``columns.column_name`` were written before the
# per-text gates (every delimiter in the line walked up its block; every value's text searched for an INSERT's shape).
def plain_header_cell(text: str, start: int, end: int | None = None) -> tuple[int, int] | None:
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", start)
    line = text[line_start : len(text) if line_end < 0 else line_end]
    if "|" in line and (cell := columns._table_header(text, line_start, line, start, end)) is not None:
        return cell
    for delimiter in columns._ROW_DELIMITERS:
        cell = columns._csv_header(text, line_start, line, start, end, delimiter) if delimiter in line else None
        if cell is not None:
            return cell
    return fixed_width_header(text, start, end)


def plain_column_name(text: str, position: int) -> str | None:
    cell = plain_header_cell(text, position)
    if cell is not None:
        return text[cell[0] : cell[1]].lower()
    line_start = text.rfind("\n", 0, position) + 1
    line_end = text.find("\n", position)
    line = text[line_start : len(text) if line_end < 0 else line_end]
    if "(" in line and may_hold_inserts(text):
        return column_at(text, position)
    if not columns._LIST_ITEM.match(line):
        return None
    key = columns.list_key(text, line_start)
    return key.strip().lower() if key is not None else None


# Pieces of tables, delimited blocks (header names, quoted cells, each delimiter), fixed-width reports' rules, YAML
# lists, INSERTs and prose (a colon, an e-mail's '@', a phone's '+': characters no header holds).
COLUMN_PIECES = ["dob", "Date of birth", "ssn", "Nr. (PESEL)", "N°", "id", "ref", '"', "'", ",", ";", "\t", "|", " ",
                 "\n", "\n", "\n", "\r", "---", "===", "-", "- ", "  - ", ":", "birth_dates:", "1987-10-14",
                 "a@b.org", "+1 415 555 0100", "Ticket 7:", "INSERT INTO t (id, dob) VALUES (", "'x'", ")", "1",
                 "| --- |", "|:---:|", "----+----", "Jonas Berg", "é"]  # fmt: skip


@settings(max_examples=2500, deadline=None)
@given(st.lists(st.sampled_from(COLUMN_PIECES), max_size=16))
def test_a_values_column_is_the_one_the_plain_form_names(parts: list[str]) -> None:
    text = "".join(parts)
    for position in range(len(text)):
        assert columns.column_name(text, position) == plain_column_name(text, position)
        for end in (None, position + 1, position + 3, len(text)):
            assert columns.header_cell(text, position, end) == plain_header_cell(text, position, end)


@pytest.mark.parametrize(
    "text",
    ["id,dob,status\n7,1987-10-14,ok", "ref;dob\nA1;1987-10-14", "| Name | Email |\n|---|---|\n| J | a@b.org |",
     "birth_dates:\n  - 1987-10-14", "INSERT INTO t (id, dob) VALUES (1, '1987-10-14');",
     "Name      DOB\n--------  ----------\nJ Berg    1987-10-14",
     "Name      DOB\n========  ==========\nJ Berg    1987-10-14",
     "Ticket 1: Jonas Berg (a@b.org, +1 415 555 0100)\n"
     "Ticket 2: Dana (d@b.org, +1 415 555 0101)"],
)  # fmt: skip
def test_column_examples_as_the_plain_form_names_them(text: str) -> None:
    names = [columns.column_name(text, position) for position in range(len(text))]
    assert names == [plain_column_name(text, position) for position in range(len(text))]
    assert any(names) == ("Ticket" not in text)  # every block here names some value's column, the tickets none


ASCII_BIRTH_STEMS = sorted(stem for stem in dates._BIRTH_STEMS if stem.isascii())
# Each stem whole, cut at either end, its words apart; whitespace runs; letters and the stems' punctuation.
STEM_PIECES = {piece for stem in ASCII_BIRTH_STEMS for piece in (stem, stem[1:], stem[:-1], *stem.split(" "))}
BIRTH_PIECES = sorted(STEM_PIECES | {" ", "  ", "\n", "\t ", "a", "b", "o", "n", "y", "z", "-", ".", "'", "/", "_"})


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(BIRTH_PIECES), max_size=8))
def test_birth_stem_scans_find_a_stem_where_the_trie_does(parts: list[str]) -> None:
    text = "".join(parts)
    assert dates._has_ascii_birth_stem(text) == (dates._ASCII_BIRTH_STEM.search(text) is not None)


@pytest.mark.parametrize("stem", ASCII_BIRTH_STEMS)
def test_each_birth_stem_is_found_as_the_trie_finds_it(stem: str) -> None:
    for text in (stem, f"x {stem}.", stem.replace(" ", " \n\t"), stem[1:], stem[:-1], stem.upper().lower()[::-1]):
        assert dates._has_ascii_birth_stem(text) == (dates._ASCII_BIRTH_STEM.search(text) is not None)
    assert dates._has_ascii_birth_stem(f"see {stem} here")


def _spans_and_groups(matches: object) -> list[tuple[object, ...]]:
    return [(m.span(), m.groupdict()) for m in matches]  # type: ignore[attr-defined]


@settings(max_examples=2000, deadline=None)
@given(st.lists(st.sampled_from([*KEY_PIECES, "PASSWORD", "Token", "x"]), max_size=14))
def test_credential_keys_tried_at_their_openings_match_as_the_scan_does(parts: list[str]) -> None:
    lowered = "".join(parts).lower()
    assert _spans_and_groups(credentials._keyed_matches(lowered)) == _spans_and_groups(
        credentials._KEYED.finditer(lowered)
    )


def test_credential_word_openings_are_each_branchs_leading_letters() -> None:
    assert credentials._literal_openings(r"api[ _-]?key|credentials?|pass(?!eng|ag)(?:word)?|passcode|dsn") == (
        "api",
        "credential",
        "dsn",
        "pass",
    )
    with pytest.raises(ValueError, match="no letter"):
        credentials._literal_openings(r"token|[Pp]ass")


# Issuer-prefixed tokens' and PEM lines' scans, and the random token's, against their plain regexes.
TOKEN_PIECES = ["sk_live_", "rk_test_", "k_live_", "sk_tes", "abcdEFGH12345678", "A" * 64, "a+/b" * 16, "\n", " ",
                "-----", "x", "=", "\t"]  # fmt: skip
PLAIN_STRIPE = re.compile(r"[sr]k_(?:live|test)_[A-Za-z0-9]{16,}")
PLAIN_PEM_LINE = re.compile(r"(?m)^[A-Za-z0-9+/]{64}$")


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(TOKEN_PIECES), max_size=12))
def test_prefixed_token_scans_match_as_their_plain_regexes(parts: list[str]) -> None:
    text = "".join(parts)
    scans = {name: pattern for name, pattern, _ in credentials._PREFIXED}
    assert [m.span() for m in scans["stripe key"].finditer(text)] == [m.span() for m in PLAIN_STRIPE.finditer(text)]
    assert [m.span() for m in scans["pem body line"].finditer(text)] == [
        m.span() for m in PLAIN_PEM_LINE.finditer(text)
    ]
    if credentials._RANDOM_TOKEN.search(text) is not None:
        assert credentials._may_hold_random_token(text)


def test_a_random_token_is_looked_for_only_in_a_text_with_a_word_that_long() -> None:
    assert credentials._may_hold_random_token("key: " + "aB3" * 11)
    assert not credentials._may_hold_random_token("a customer sees a timeout when exporting the quarterly report")


def test_a_finding_at_the_maximum_score_is_not_looked_at_for_context(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[tuple[int, int]] = []
    plain = recognizers.has_context

    def counted(context: re.Pattern[str], text: str, start: int, end: int, own_sentence: bool = False) -> bool:
        asked.append((start, end))
        return plain(context, text, start, end, own_sentence)

    monkeypatch.setattr(recognizers, "has_context", counted)
    detectors = {d.recognizer.name: d for d in recognizers.build_detectors()}
    email = recognizers.run_detector(detectors["EmailRecognizer"], "e-mail: dana.k@example.org")
    assert [(f.score, asked) for f in email] == [(1.0, [])]
    phone = recognizers.run_detector(detectors["PhoneNumberRecognizer"], "phone: 415 555 0132")
    assert phone and phone[0].score < 1.0 and asked == [(phone[0].start, phone[0].end)]


OBFUSCATION_PIECES = ["dot", "DoT", "dOt", "dots", "do t", "(at)", "[ dot ]", "{.}", "<@>", " @", "@ ", "@", "a", "d",
                      "o", "t", " ", "\n", "(", ")", "x_dot", "dot_", "DOTcom"]  # fmt: skip


@settings(max_examples=2000, deadline=None)
@given(st.lists(st.sampled_from(OBFUSCATION_PIECES), max_size=10))
def test_obfuscation_prefilter_answers_as_its_anchors_regexes(parts: list[str]) -> None:
    text = "".join(parts)
    plain = any(re.search(part, text) is not None for part in recognizers._OBFUSCATION_ANCHOR_PARTS)
    assert recognizers._may_hold_obfuscation(text) == plain


def test_obfuscation_prefilter_finds_a_spelled_dot_in_any_case() -> None:
    assert recognizers._may_hold_obfuscation("dana at example DoT org")
    assert not recognizers._may_hold_obfuscation("dana at example dotted org")
