"""Phone numbers: international forms of every region, national forms of the configured regions, look-alikes."""

import random
import re

import phonenumbers
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from phonenumbers import Leniency, PhoneNumberMatcher

from gateway.guardrails import phones
from gateway.guardrails.phones import (
    _CANDIDATE,
    _DATE_LIKE,
    _DECIMAL,
    _DIGITS_OF_A_RUN,
    _INTERNATIONAL_PREFIX,
    _MIN_DIGITS,
    _RUN_GOES_ON,
    NATIONAL_REGIONS,
    PhoneNumberRecognizer,
    _digits_running_on,
    _is_ipv4,
    _parsed_international,
    _parsed_national,
    _valid_region,
    _written_as_dialled,
    candidate_search_start,
    national_form,
)


@pytest.fixture(scope="module")
def recognizer() -> PhoneNumberRecognizer:
    return PhoneNumberRecognizer()


def found(recognizer: PhoneNumberRecognizer, text: str, threshold: float = 0.5) -> list[str]:
    return [text[r.start : r.end] for r in recognizer.analyze(text, []) if r.score >= threshold]


def test_every_region_in_international_form(recognizer: PhoneNumberRecognizer) -> None:
    """phonenumbers' own example mobile or fixed-line number of every region, written +CC as the region prints it."""
    missed, checked = [], 0
    for region in sorted(phonenumbers.SUPPORTED_REGIONS):
        example = phonenumbers.example_number_for_type(region, phonenumbers.PhoneNumberType.MOBILE) or \
            phonenumbers.example_number(region)
        if example is None:
            continue
        checked += 1
        for form in (phonenumbers.PhoneNumberFormat.INTERNATIONAL, phonenumbers.PhoneNumberFormat.E164):
            number = phonenumbers.format_number(example, form)
            if found(recognizer, f"reach me on {number}.") != [number]:
                missed.append(number)
    assert checked > 200
    assert missed == []


@pytest.mark.parametrize(
    "number",
    ["+33 6 48 21 97 30", "0033 6 48 21 97 30", "+48 512 904 377", "+34 612 38 94 05", "+49 1523 7719054",
     "+55 11 98123-4567", "+91 98201 44567", "+1 (312) 908-4471"],
)  # fmt: skip
def test_international_forms_score_without_context(recognizer: PhoneNumberRecognizer, number: str) -> None:
    assert found(recognizer, f"ok {number} ok") == [number]


@pytest.mark.parametrize(
    "number", ["(312) 908-4471", "312.908.4471", "06 48 21 97 30", "020 3021 4477", "030 84719203", "98201 44567"]
)
def test_national_forms_grouped_as_their_region_writes_them(recognizer: PhoneNumberRecognizer, number: str) -> None:
    assert found(recognizer, f"ring {number} later") == [number]


def test_a_bare_national_run_needs_a_phone_word(recognizer: PhoneNumberRecognizer) -> None:
    """Outside North America's strict plan, a valid run of bare digits scores below the default threshold."""
    text = "ref 0648219730 ok"
    assert found(recognizer, text) == []
    assert found(recognizer, text, threshold=0.4) == ["0648219730"]
    assert found(recognizer, "ref 3129084471 ok") == ["3129084471"]


@pytest.mark.parametrize(
    "text",
    [
        "released 2024-11-05 at 10:42:17",  # a date and a time
        "born 05.11.1987 in Porto",  # a dotted date
        "version 10.4.2.1187 deployed",  # a version
        "part 7731-2209-18 in stock",  # a part number in no region's layout
        "lat 48.858370, lon 2.294481",  # coordinates
        "took 1234567 ms",  # a duration
        "call +33 12 3",  # too short
    ],
)
def test_look_alikes_are_no_phone_numbers(recognizer: PhoneNumberRecognizer, text: str) -> None:
    assert found(recognizer, text) == []


def test_two_numbers_in_one_run_are_two(recognizer: PhoneNumberRecognizer) -> None:
    assert found(recognizer, "call 312 908 4471 312 908 4472") == ["312 908 4471", "312 908 4472"]


def test_iban_digits_are_left_to_the_iban(recognizer: PhoneNumberRecognizer) -> None:
    assert found(recognizer, "IBAN NL91 ABNA 0417 1643 00 and FR14 2004 1010 0505 0001 3M02 606", 0.0) == []


def test_national_regions_are_real_regions() -> None:
    assert set(NATIONAL_REGIONS) <= phonenumbers.SUPPORTED_REGIONS


@pytest.mark.parametrize(
    "text",
    [
        "SSN: 596-11-6181",  # a Japanese "0596-11-6181" without its national prefix
        "social security number 845 30 2474",  # a Spanish number, not in Spain's 845 30 24 74 groups
        "tax id 063-85-8977",  # German 06385 8977, Belgian 063 85 89 77: neither grouped so
        "Blocked 175.85.29.39 after 20 failed logins.",  # an IPv4 address
        "VAT/ID: 8561 7882 5567",  # no Singapore "8561 7882" then a four-digit tail
    ],
)
def test_national_forms_without_their_prefix_or_grouping_are_no_numbers_alone(recognizer: PhoneNumberRecognizer,
                                                                             text: str) -> None:  # fmt: skip
    assert found(recognizer, text) == []


@pytest.mark.parametrize(
    ("text", "number"),
    [
        ("Ruf mich unter 030 1234567 an.", "030 1234567"),  # German, as Germany groups it
        ("appelez le 06 12 34 56 78", "06 12 34 56 78"),
        ("llámame al 612 38 33 01", "612 38 33 01"),  # Spain has no national prefix
        ("call (415) 555-0132 or 415.555.0133", "(415) 555-0132"),
    ],
)
def test_national_forms_in_sentences(recognizer: PhoneNumberRecognizer, text: str, number: str) -> None:
    assert number in found(recognizer, text)


def test_a_national_form_without_its_prefix_still_counts_next_to_a_phone_word(analyzer) -> None:
    text = "phone: 6 12 34 56 78"
    assert [text[f.start : f.end] for f in analyzer.analyze(text, ner_enabled=False)
            if f.entity_type == "PHONE_NUMBER" and f.score >= 0.5] == ["6 12 34 56 78"]  # fmt: skip


def _region_of_valid_number(candidate: str, region: str | None) -> str | None:
    """phonenumbers' public route: the number's region when ``is_valid_number`` holds for it."""
    try:
        number = phonenumbers.parse(candidate, region)
    except phonenumbers.NumberParseException:
        return None
    return phonenumbers.region_code_for_number(number) if phonenumbers.is_valid_number(number) else None


def test_valid_region_agrees_with_phonenumbers() -> None:
    """The region found without validating a shared country code's number twice is phonenumbers' own, valid or not:
    random runs under every calling code, North America's +1 (25 regions) most of all, and national forms."""
    rng = random.Random(34)
    codes = sorted(phonenumbers.COUNTRY_CODE_TO_REGION_CODE)
    valid = 0
    for _ in range(6000):
        digits = "".join(rng.choice("0123456789") for _ in range(rng.randrange(5, 14)))
        kind = rng.random()
        if kind < 0.4:
            candidate, region = f"+{rng.choice(codes)} {digits}", None
        elif kind < 0.7:
            candidate, region = f"+1 {rng.choice('23456789')}{digits[:9]}", None
        else:
            candidate, region = digits, rng.choice((*NATIONAL_REGIONS, "CA", "GG", "IM", "KZ"))
        expected = _region_of_valid_number(candidate, region)
        valid += expected is not None
        assert _valid_region(candidate, region) == expected, (candidate, region)
    assert valid > 500  # valid numbers, not only rejections



def _parse_or_none(candidate: str) -> phonenumbers.PhoneNumber | None:
    try:
        return phonenumbers.parse(candidate, None)
    except phonenumbers.NumberParseException:
        return None


@settings(max_examples=3000, deadline=None)
@given(
    st.sampled_from(sorted(phonenumbers.COUNTRY_CODE_TO_REGION_CODE)),
    st.sampled_from(("", "0", "(0)", "00", "1")),
    st.lists(
        st.tuples(st.text(alphabet="0123456789", min_size=1, max_size=6), st.text(alphabet=" ().-", max_size=2)),
        min_size=1,
        max_size=5,
    ),
    st.sampled_from(("+", "+ ", "+(", "(+")),
)
@example(39, "", [("0612345678", "")], "+")  # Italy's leading zero
@example(44, "(0)", [("20", " "), ("7946", " "), ("0958", "")], "+")  # a national prefix in brackets, stripped
@example(1, "", [("41", "")], "+")  # too short
@example(999, "", [("1234567", "")], "+")  # no country code
def test_a_plain_international_number_parses_as_phonenumbers_parses_it(
    code: int, prefix: str, groups: list[tuple[str, str]], plus: str
) -> None:
    """The shortcut for a '+' and digits joined by spaces, brackets, dots and dashes gives phonenumbers' own parse:
    the same PhoneNumber (country code, national number, Italian leading zeros), or none where parse raises."""
    candidate = f"{plus}{code} {prefix}" + "".join(digits + joint for digits, joint in groups)
    if plus.startswith("("):
        return  # not a '+' first: parsed by phonenumbers itself
    assert _parsed_international(candidate) == _parse_or_none(candidate), candidate


def test_a_number_with_other_characters_is_parsed_by_phonenumbers() -> None:
    """A tab, a slash or a second '+' is no plain international number: phonenumbers parses it ('+1\t415 555 0132'
    is no viable number to it, a tab being no punctuation of a number)."""
    assert _valid_region("+1\t415 555 0132", None) is None
    assert _valid_region("+1 415 555 0132", None) == "US"
    assert _valid_region("+49 030/1234567", None) == _region_of_valid_number("+49 030/1234567", None)


def _parse_in_region_or_none(candidate: str, region: str) -> phonenumbers.PhoneNumber | None:
    try:
        return phonenumbers.parse(candidate, region)
    except phonenumbers.NumberParseException:
        return None


def _parsed_in_region(candidate: str, region: str) -> phonenumbers.PhoneNumber | None:
    form = national_form(candidate)
    return None if form is None else _parsed_national(form, region)


_REGIONS_TO_PARSE_IN = sorted({*NATIONAL_REGIONS, "CA", "GG", "IM", "KZ", "RU", "KR", "HU", "SM", "VA", "CN", "BY"})


@settings(max_examples=3000, deadline=None)
@given(
    st.sampled_from(_REGIONS_TO_PARSE_IN),
    st.sampled_from(("", "0", "(0", "00", "011", "810", "8 10 ", "1 ", "44", "39 0", "7 8", "(")),
    st.lists(
        st.tuples(st.text(alphabet="0123456789", min_size=1, max_size=6),
                  st.sampled_from(("", " ", "-", ".", ") ", " (", "\t", "/", " - ", "  "))),
        min_size=1,
        max_size=5,
    ),
)
@example("GB", "(0", [("20", ") "), ("7946", " "), ("0958", "")])  # a national prefix, stripped
@example("US", "011", [("44", " "), ("20", " "), ("7946", " "), ("0958", "")])  # the region's international prefix
@example("GB", "44", [("20", " "), ("7946", " "), ("0958", "")])  # its own country code without a '+'
@example("IT", "", [("06", " "), ("1234", " "), ("5678", "")])  # Italy's leading zero
@example("DE", "00", [("0", "")])  # too short after the international prefix
@example("FR", "00", [("999", " "), ("1234567", "")])  # no country code after it
def test_a_national_form_parses_in_each_region_as_phonenumbers_parses_it(
    region: str, prefix: str, groups: list[tuple[str, str]]
) -> None:
    """The region-free steps taken once (``national_form``) and the region's after them (``_parsed_national``) give
    ``phonenumbers.parse(candidate, region)``'s own PhoneNumber (extension and Italian leading zeros too), or none
    where it raises."""
    candidate = prefix + "".join(digits + joint for digits, joint in groups)
    expected = _parse_in_region_or_none(candidate, region)
    got = _parsed_in_region(candidate, region)
    assert got == expected, (candidate, region)
    if got is not None and expected is not None:
        assert (got.extension, got.italian_leading_zero, got.number_of_leading_zeros) == (
            expected.extension, expected.italian_leading_zero, expected.number_of_leading_zeros)


def test_a_candidate_with_a_plus_or_a_letter_has_no_national_form() -> None:
    """A '+' or a letter changes what parse reads (a country code, a vanity number's digits): those are parsed by
    phonenumbers itself."""
    assert national_form("415 555 0132") is not None
    assert national_form("+1 415 555 0132") is None
    assert national_form("1-800-FLOWERS") is None
    # dialled from North America (its international prefix 011) and from Germany (00)
    assert _valid_region("011 44 20 7946 0958", "US", national_form("011 44 20 7946 0958")) == "GB"
    assert _valid_region("0044 20 7946 0958", "DE", national_form("0044 20 7946 0958")) == "GB"
    assert _valid_region("0044 20 7946 0958", "US", national_form("0044 20 7946 0958")) is None


def _matcher_reads_all_of(candidate: str, region: str) -> bool:
    """The plain rule: every match of libphonenumber's matcher, one spanning the whole text."""
    return any(match.start == 0 and match.end == len(candidate)
               for match in PhoneNumberMatcher(candidate, region, leniency=Leniency.EXACT_GROUPING))  # fmt: skip


@settings(max_examples=1500, deadline=None)
@given(
    st.sampled_from(_REGIONS_TO_PARSE_IN),
    st.sampled_from(("", "0", "(0", "(", "00", "+", "+1 ", "1 ")),
    st.lists(
        st.tuples(st.text(alphabet="0123456789", min_size=1, max_size=5),
                  st.sampled_from(("", " ", "-", ".", ") ", " (", "/", " / ", " - ", "\t"))),
        min_size=1,
        max_size=5,
    ),
)
@example("US", "(", [("415", ") "), ("555", "-"), ("0132", "")])  # North America's grouping
@example("US", "", [("415", " "), ("5550", " "), ("132", "")])  # valid digits in another grouping
@example("FR", "0", [("6", " "), ("12", " "), ("34", " "), ("56", " "), ("78", "")])
@example("FR", "", [("6", " "), ("12", " "), ("34", " "), ("56", " "), ("78", "")])  # no national prefix
@example("US", "", [("12", "/"), ("31", "/"), ("1999", "")])  # a date
@example("US", "", [("415", " "), ("555", " "), ("0132", "/"), ("415", " "), ("555", " "), ("0199", "")])
def test_a_whole_candidate_is_written_as_dialled_as_the_matcher_reads_it(
    region: str, prefix: str, groups: list[tuple[str, str]]
) -> None:
    """The matcher's first candidate verified whole gives what iterating over all its matches gives: whether one
    spans the whole text."""
    candidate = (prefix + "".join(digits + joint for digits, joint in groups)).rstrip()
    assert _written_as_dialled(candidate, region) == _matcher_reads_all_of(candidate, region), (candidate, region)


def test_written_as_dialled_reads_the_regions_grouping() -> None:
    assert _written_as_dialled("(415) 555-0132", "US")
    assert not _written_as_dialled("415 5550 132", "US")
    assert _written_as_dialled("06 12 34 56 78", "FR")
    assert not _written_as_dialled("6 12 34 56 78", "FR")


_WHOLE_RUN = re.compile(r"(?:[ \t().-]{0,2}[0-9])*")  # the rule as first written: the whole run, however long


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="0123456789 \t().-ab", max_size=80), st.integers(min_value=0, max_value=80))
def test_reading_a_run_up_to_the_least_digits_decides_as_reading_all_of_it(text: str, start: int) -> None:
    start = min(start, len(text))
    whole = sum(c.isdigit() for c in _WHOLE_RUN.match(text, start).group())  # type: ignore[union-attr]
    assert (_digits_running_on(text, start) < _MIN_DIGITS) == (whole < _MIN_DIGITS)


def test_a_text_that_is_one_run_of_digit_groups_is_read_once() -> None:
    # Each candidate used to read the rest of the run to the end of the text: quadratic in its length.
    assert _digits_running_on("1919-19-19 " * 400, 0) == _MIN_DIGITS


def _judge_every_region(recognizer: PhoneNumberRecognizer, candidate: str) -> tuple[float, str] | None:
    """``_judge`` as the plain rule reads: every region parsed and, where valid, its grouping checked."""
    if not _MIN_DIGITS <= sum(map(str.isdigit, candidate)) <= 15 or _DATE_LIKE.search(candidate):
        return None
    if _DECIMAL.fullmatch(candidate) or _is_ipv4(candidate):
        return None
    if _INTERNATIONAL_PREFIX.match(candidate):
        region = _valid_region("+" + candidate[2:] if candidate.startswith("00") else candidate, None)
        if region is not None:
            return recognizer.INTERNATIONAL_SCORE, region
        if candidate.startswith("+"):
            return None
    groups = re.findall(r"[0-9]+", candidate)
    bare_region = None
    for region in NATIONAL_REGIONS:
        if _valid_region(candidate, region) is None:
            continue
        if _written_as_dialled(candidate, region):
            if len(groups) >= 2:
                return recognizer.FORMATTED_SCORE, region
            if region == "US" and len(groups[0]) == 10:
                return recognizer.NANP_BARE_SCORE, region
        bare_region = bare_region or region
    return None if bare_region is None else (recognizer.BARE_SCORE, bare_region)


def _best_of_every_end(recognizer: PhoneNumberRecognizer, text: str, start: int, end: int) -> tuple[float, int] | None:
    """The plain rule for one run: every end judged afresh, the best score kept (the longest of equals); the run's
    own end is none where the run was cut short of a token that goes on ("-6" after "43970")."""
    best = None
    for number_end in recognizer._group_ends(text, start, end):
        if number_end == end and _RUN_GOES_ON.match(text, end) is not None:
            continue
        if number_end < end and _digits_running_on(text, number_end) < _MIN_DIGITS:
            continue
        judged = _judge_every_region(recognizer, text[start:number_end])
        if judged is not None and (best is None or judged[0] > best[0]):
            best = (judged[0], number_end)
    return best


_GROUPED_DIGITS = st.lists(st.tuples(st.text(alphabet="0123456789", min_size=1, max_size=5),
                                     st.sampled_from([" ", "-", ".", " - ", ") ", " ("])), min_size=2, max_size=12)


@settings(max_examples=150, deadline=None)
@given(_GROUPED_DIGITS, st.sampled_from(["", "+", "00", "+1 ", "0"]), st.booleans())
def test_each_run_is_judged_as_the_plain_rule_judges_it(groups: list[tuple[str, str]], prefix: str,
                                                         repeat: bool) -> None:
    """Judgements reused for a repeated number, regions skipped once a bare run has its region, shorter ends skipped
    once the best score is reached: the first finding of a run of digit groups is the one the plain rule finds."""
    recognizer = PhoneNumberRecognizer()
    run = prefix + "".join(digits + joiner for digits, joiner in groups).rstrip(" -.(")
    text = f"call {run}; again {run}" if repeat else f"call {run}"
    candidate = _CANDIDATE.search(text)
    results = recognizer.analyze(text, [])
    if candidate is None:
        assert results == []
        return
    start = candidate.start() + len(candidate.group()) - len(candidate.group().lstrip())
    first = next((r for r in results if r.start == start), None)
    expected = _best_of_every_end(recognizer, text, start, candidate.end())
    if first is not None:
        assert (first.score, first.end) == expected
    elif expected is not None:  # the run is skipped before judging: an IBAN's head, a card number, four-digit groups
        assert text[start] != "+"


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="0123456789 \t\n\u00a0().-+:/a", max_size=60), st.integers(min_value=0, max_value=60))
@example("call 00\n(415) 555 0132", 0)  # the farthest a candidate starts before its six digits: '00', a space, '('
@example("call 00 (01234/567890", 0)  # and after an area code's slash: '00', a space, '(', five digits and '/'
def test_candidates_are_searched_from_a_run_of_six_digits_as_from_anywhere(text: str, position: int) -> None:
    position = min(position, len(text))
    digits = _DIGITS_OF_A_RUN.search(text, position)
    plain = _CANDIDATE.search(text, position)
    from_digits = (None if digits is None
                   else _CANDIDATE.search(text, max(position, candidate_search_start(text, digits.start()))))
    assert (None if plain is None else plain.span()) == (None if from_digits is None else from_digits.span())


def _spans(recognizer: PhoneNumberRecognizer, text: str) -> list[tuple[int, int, float]]:
    return [(r.start, r.end, r.score) for r in recognizer.analyze(text, [])]


def test_judgements_shared_within_a_scan_give_each_text_its_own_findings() -> None:
    """A scan's texts share their candidates' judgements, per set of national regions: a number judged for one
    recognizer's regions is judged afresh for another's, and each text's findings are those it has alone."""
    texts = ["call 06 12 34 56 78 or +1 415 555 0132", "06 12 34 56 78", "tel 415 555 0132", "+1 415 555 0132 x"]
    us_first, french = PhoneNumberRecognizer(), PhoneNumberRecognizer(("FR",))
    alone = [(_spans(us_first, text), _spans(french, text)) for text in texts]
    with phones.judgements_shared():
        shared = [(_spans(us_first, text), _spans(french, text)) for text in texts]
        with phones.judgements_shared():  # an inner block keeps the outer's
            assert phones._scan.judged is not None and len(phones._scan.judged) == 2
    assert shared == alone
    assert phones._scan.judged is None  # nothing outlives the scan


def test_an_analyzers_batch_finds_what_each_text_finds_alone(analyzer) -> None:
    texts = ["Ticket 7: Dana (+1 415 555 0132) asks", "Reply in one line. Ticket 7: Dana (+1 415 555 0132) asks",
             "Reply in one line.Ticket 7: Dana (+1 415 555 0132) asks", "fax 030 1234567, +1 415 555 0132"]
    assert analyzer.analyze_many(texts, ner_enabled=False) == [analyzer.analyze(t, ner_enabled=False) for t in texts]
    assert phones._scan.judged is None


@pytest.mark.parametrize(
    ("text", "number"),
    [
        ("SSR CTCM YY HK1/+44 7400 114680\n", "+44 7400 114680"),  # an airline message's contact after its slash
        ("SSR CTCM YY HK1/+59122183658", "+59122183658"),
    ],
)
def test_an_international_number_after_a_slash(recognizer: PhoneNumberRecognizer, text: str, number: str) -> None:
    assert found(recognizer, text) == [number]


@pytest.mark.parametrize(
    "text",
    [
        "call log: SSN 531-72-9046 on the intake form",  # an SSN's groups near a phone word
        "mobile on file; SSN 531729046 on the intake form",  # a bare run right after its SSN label
        "phone_number event rt=1701045457979 act=blocked",  # a Unix time in milliseconds
        "call scheduled 2016. 4. 11. at the clinic",  # a Korean date, dots and spaces
        "phone follow-up on 5. 10. 2023",  # a Czech date
    ],
)
def test_an_ssn_a_timestamp_or_a_spaced_date_near_a_phone_word_is_no_phone(recognizer: PhoneNumberRecognizer,
                                                                            text: str) -> None:  # fmt: skip
    assert found(recognizer, text, threshold=0.0) == []  # not even a bare run a phone word would lift


@pytest.mark.parametrize(
    "text",
    [
        "<134>1 2026-03-02T10:11:12.529182+00:00 host.acme.example mailer 52466 - - export finished",  # RFC 5424
        "<38>1 2026-07-02T02:57:01Z gw sshd 4257 ID47 - contact the on-call",
        "build 4 2026-11-05T08:00Z",
    ],
)
def test_digits_cut_from_a_timestamp_glued_to_a_letter_are_no_phone(text: str) -> None:
    """A syslog header's version and date ("1 2026-03" of "1 2026-03-02T10:...") are no number, whatever word
    is nearby: the candidate stopped short of a token that goes on with a dash and digits."""
    assert PhoneNumberRecognizer().analyze(text, []) == []


@pytest.mark.parametrize("value", ["489.986.937-12", "390.533.447-05", "40 790 083 151", "36 574 261 809"])
def test_a_national_id_as_its_issuer_prints_it_is_no_phone(value: str) -> None:
    """A CPF's dots and dash, a German IdNr's groups: the id's validator accepts it, and no region's plan decides."""
    assert PhoneNumberRecognizer().analyze(f"contact: {value}", []) == []



@pytest.mark.parametrize(
    ("text", "phone"),
    [("Phone: +38730256828  5038-8589-6539-2752 was declined", "+38730256828"),
     ("3\t+973 3608 4533\t707-14-1645\tPark", "+973 3608 4533")],
)  # fmt: skip
def test_a_phone_listed_before_a_longer_token_in_one_run_stays(text: str, phone: str) -> None:
    assert [text[r.start : r.end] for r in PhoneNumberRecognizer().analyze(text, [])] == [phone]


@pytest.mark.parametrize("value", ["9928351761442", "3162107118085", "234838703541"])
def test_a_json_records_id_is_no_phone_number(recognizer: PhoneNumberRecognizer, value: str) -> None:
    """A Teams export's message "id" is a run of digits that may fit some dialling plan; the same digits under another
    key are still judged."""
    assert found(recognizer, f'  {{"id": "{value}", "createdDateTime": "2026-08-14T01:00"}}', threshold=0.0) == []
    assert found(recognizer, f'{{"mobile": "{value}"}}', threshold=0.0) == [value]


def _rfc3966_examples() -> list[str]:
    """libphonenumber's example mobile and fixed-line number of every region, as RFC 3966 writes it ("tel:+45-...")."""
    uris = []
    for region in sorted(phonenumbers.SUPPORTED_REGIONS):
        for kind in (phonenumbers.PhoneNumberType.MOBILE, phonenumbers.PhoneNumberType.FIXED_LINE):
            example_number = phonenumbers.example_number_for_type(region, kind)
            if example_number is not None:
                uris.append(phonenumbers.format_number(example_number, phonenumbers.PhoneNumberFormat.RFC3966))
    return uris


def test_every_regions_number_in_a_tel_uri_is_found(recognizer: PhoneNumberRecognizer) -> None:
    uris = _rfc3966_examples()
    assert len(uris) > 400
    for uri in uris:
        number = uri.removeprefix("tel:")
        if phones._DATE_LIKE.search(number):
            continue  # digit groups that read as a calendar date ("+82-10-2000-0000") are left out in any form
        for text in (f'<a href="{uri}">call us</a>', f"callback requested on {uri.upper()}", f"sms:{number}"):
            assert found(recognizer, text) == [number], text


@pytest.mark.parametrize("text", ["uri:+45-34-48-64-72", "build 12:+45-34-48-64-72"])
def test_a_plus_after_another_colon_or_a_path_is_no_tel_uri(recognizer: PhoneNumberRecognizer, text: str) -> None:
    assert found(recognizer, text) == []


@pytest.mark.parametrize(
    ("text", "number"),
    [("Tel. 030/1234567", "030/1234567"), ("Mobil: 0450/00 50 40", "0450/00 50 40"),
     ("Móvil: 011/2345-0318", "011/2345-0318"), ("m. 506/234-3517 | e. x@example.com", "506/234-3517")],
)  # fmt: skip
def test_a_national_number_with_a_slash_after_its_area_code(analyzer, text: str, number: str) -> None:
    """German, Austrian, Belgian, Swiss and Argentine numbers are written with a slash after the area code, and so
    were North America's; the analyzer's pre-filter lets a slash join the digits too."""
    assert [text[f.start : f.end] for f in analyzer.analyze(text, ner_enabled=False)
            if f.entity_type == "PHONE_NUMBER" and f.score >= 0.5] == [number]  # fmt: skip


@pytest.mark.parametrize(
    "text", ["Invoice 2019/123456 is due", "on 12/05/2024 at 10:30", "GET /api/v2/1234567", "ratio 1920/1080 px"]
)
def test_a_slash_between_other_digits_makes_no_phone(recognizer: PhoneNumberRecognizer, text: str) -> None:
    assert found(recognizer, text, threshold=0.0) == []


def test_a_vcards_tel_values_are_numbers_with_their_plus(recognizer: PhoneNumberRecognizer) -> None:
    """RFC 6350's TEL property: the number after the colon that ends its parameters, '+' included."""
    card = ("BEGIN:VCARD\nVERSION:3.0\nFN:Jo Bloggs\nTEL;TYPE=CELL:+353-85-012-4176\n"
            "item1.TEL;type=WORK,VOICE:+32 12 34 29 03\nTEL:+6797013882\nNOTE:+45 1234\nEND:VCARD")  # fmt: skip
    assert found(recognizer, card) == ["+353-85-012-4176", "+32 12 34 29 03", "+6797013882"]
    assert found(recognizer, "TEL;TYPE=CELL:+1 555 0100 999") == []  # no valid number


@pytest.mark.parametrize(
    ("text", "number"),
    [("Chat with us on WhatsApp: https://wa.me/59894237047", "59894237047"),
     ("https://api.whatsapp.com/send?phone=34612345678&text=hola", "34612345678"),
     ("whatsapp://send?phone=4915123456789", "4915123456789")],
)  # fmt: skip
def test_a_whatsapp_links_digits_are_an_international_number(recognizer: PhoneNumberRecognizer, text: str,
                                                              number: str) -> None:  # fmt: skip
    assert found(recognizer, text) == [number]


def test_a_whatsapp_links_digits_that_are_no_number_are_none(recognizer: PhoneNumberRecognizer) -> None:
    assert found(recognizer, "https://wa.me/1234567890123", threshold=0.0) == []


@pytest.mark.parametrize(
    "text",
    ["agent: can you read me the reference\ncaller: uh its 146615142\nagent: thanks",
     "caller: uh the case number is #4958496575\nagent: and when did it start",
     "conseiller: votre numéro de dossier\nappelant: euh #7854386310",
     "medewerker: uw ticketnummer\nbeller: eh 8637365186",
     "encomenda #9305733244 ainda não chegou",
     "Bestellnummer: 3129084471"],
)
def test_a_bare_run_a_reference_label_names_is_no_phone(analyzer, text: str) -> None:
    assert [f for f in analyzer.analyze(text, ner_enabled=False) if f.entity_type == "PHONE_NUMBER"] == []


@pytest.mark.parametrize(
    ("text", "number"),
    [("order 4411 shipped, call me on 3129084471", "3129084471"),  # the label names another number
     ("reference noted, your phone number please\ncaller: 3129084471", "3129084471"),  # a phone word after it
     ("votre référence : +33 6 12 34 56 78", "+33 6 12 34 56 78"),  # written as a phone
     ("case number\nplease call 3129084471 tomorrow", "3129084471")],  # the line is no answer to the label
)
def test_a_phone_near_a_reference_label_stays_a_phone(recognizer: PhoneNumberRecognizer, text: str,
                                                      number: str) -> None:  # fmt: skip
    assert found(recognizer, text) == [number]


def test_a_date_written_with_spaces_is_no_bare_phone(recognizer: PhoneNumberRecognizer) -> None:
    assert found(recognizer, "phone 10 7 1964", threshold=0.3) == []


def test_a_calling_verb_after_a_reference_label_gives_the_number_back(recognizer: PhoneNumberRecognizer) -> None:
    assert found(recognizer, "pedido listo, llame al 3129084471") == ["3129084471"]
