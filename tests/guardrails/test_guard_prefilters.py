"""Pre-filters and anchors written for the regex engine's fast skip answer exactly as the plain forms they replace."""

import re
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gateway.guardrails import PiiAnalyzer, places, recognizers
from gateway.guardrails.date_traditions import TRADITION_ANCHORS, may_hold_tradition_anchor
from gateway.guardrails.dates import BIRTH_YEAR, MONTH_FIRST_LETTERS, MONTH_NAMES, YEAR
from gateway.guardrails.prefilters import FOLDS_APART, AfterNonWord, PerText, any_regex, any_word, case_partners

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


def test_folds_apart_holds_every_character_ignorecase_pairs_past_its_own_lower_and_upper_case() -> None:
    """Every character whose upper case lower-cases to another character, or whose lower case upper-cases to another,
    and the one that lower-cases to two: what ``case_partners`` adds to every class so no letter's partner is
    missing (an Old Cyrillic "ᲄ" against a context word's "т")."""
    folds_apart = set()
    for char in all_code_points():
        lower, upper = char.lower(), char.upper()
        lowers_to_several = len(lower) > 1
        upper_lowers_elsewhere = len(upper) == 1 and len(upper.lower()) == 1 and upper.lower() != lower != upper
        lower_uppers_elsewhere = len(lower) == 1 and lower != char and lower.upper() != char
        if lowers_to_several or upper_lowers_elsewhere or lower_uppers_elsewhere:
            folds_apart.add(char)
    assert folds_apart == FOLDS_APART


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
@given(st.text(alphabet="019\u0663 .-x\n", max_size=40))
def test_national_id_prefilter_answers_as_the_plain_form(text: str) -> None:
    expected = re.search(r"\d{3}|\d{2}[ .-]\d{2}", text) is not None
    assert (re.search(recognizers._NATIONAL_ID_DIGITS, text) is not None) == expected


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


def plain_context(words: list[str]) -> re.Pattern[str]:
    """A detector's context words as one case-insensitive alternation behind a leading look-behind, the plain form."""
    return re.compile(r"(?:(?<![^\W\d_])|(?-i:(?<=[a-z])(?=[A-Z])))(?:" + "|".join(map(re.escape, words)) + ")",
                      re.IGNORECASE)


def test_every_case_insensitive_partner_of_a_context_words_first_letter_opens_its_regex(analyzer: PiiAnalyzer) -> None:
    """The context regexes open with a case-sensitive class (``case_partners``); it must hold every character that
    ``re.IGNORECASE`` pairs with a word's first letter, or a word written with one would be missed."""
    everything = all_code_points()
    firsts = {word[0] for d in analyzer._detectors for word in getattr(d.recognizer, "context", None) or ()}
    assert firsts
    for letter in firsts:
        assert set(re.findall(re.escape(letter), everything, re.IGNORECASE)) <= set(case_partners(letter)), letter


CONTEXT_WORDS = ["dob", "birth", "ssn", "ssns", "id:", "id ", "kennwort", "ip", "âgé", "d.o.b"]


@settings(max_examples=1500, deadline=None)
@given(st.text(alphabet=[*"dobirthsnDOBIRTHSNpP:. _1éÂâgG", *FOLDS_APART], max_size=40))
def test_context_regex_finds_a_word_where_the_plain_form_does(text: str) -> None:
    expected = plain_context(CONTEXT_WORDS).search(text) is not None
    assert (recognizers._context_regex(CONTEXT_WORDS).search(text) is not None) == expected  # type: ignore[union-attr]


@pytest.mark.parametrize(("text", "found"), [("patientDob", True), ("userBirthDate", True), ("xdob", False),
                                             ("XDOB", False), ("İp 10.0.0.1", True), ("ſsn", True), ("ſſn", True),
                                             ("_dob", True), ("1dob", True), ("ÂGÉ 40", True), ("dateDOB", True)])
def test_context_regex_examples(text: str, found: bool) -> None:
    assert (plain_context(CONTEXT_WORDS).search(text) is not None) == found
    assert (recognizers._context_regex(CONTEXT_WORDS).search(text) is not None) == found  # type: ignore[union-attr]


PLAIN_MONTH_YEAR_ANCHOR = re.compile(rf"(?i:(?<![^\W\d_])(?:{MONTH_NAMES}))"
                                     r"(?:\.?,?(?:\s+(?:del?\s+)?|[-/])\d\d|\d\d(?:\d\d)?)(?![\w'’-]|[.,:/]?\d)")


@settings(max_examples=1500, deadline=None)
@given(st.text(alphabet=[*"mayMAYjunJUNoctOCTşŞ19 ,.-/\nxdel", *FOLDS_APART], max_size=40))
def test_month_year_anchor_matches_where_the_plain_form_does(text: str) -> None:
    spans = [match.span() for match in re.finditer(recognizers._MONTH_YEAR_ANCHOR, text)]
    assert spans == [match.span() for match in PLAIN_MONTH_YEAR_ANCHOR.finditer(text)]


@pytest.mark.parametrize("text", ["born May 84", "03MAY1984", "xmay 84", "MAİ 84", "Şubat 84", "sept. 84",
                                  "Oct-84", "3 de mayo del 84", "maybe 84"])
def test_month_year_anchor_examples(text: str) -> None:
    spans = [match.span() for match in re.finditer(recognizers._MONTH_YEAR_ANCHOR, text)]
    assert spans == [match.span() for match in PLAIN_MONTH_YEAR_ANCHOR.finditer(text)]
    assert bool(spans) == (text not in ("xmay 84", "maybe 84"))


def test_every_case_insensitive_partner_of_a_month_names_first_letter_opens_the_anchor() -> None:
    everything = all_code_points()
    for letter in MONTH_FIRST_LETTERS:
        assert set(re.findall(re.escape(letter), everything, re.IGNORECASE)) <= set(case_partners(letter)), letter


# The plain forms of the place cues: one alternation behind ``(?:^|[^\w])``, tried at every position.
PLAIN_PLACE_CUES = {
    "_CUE_BEFORE": re.compile(r"(?:^|[^\w])(?:" + "|".join(places._CUES) + r")[\s,]+\Z", re.IGNORECASE),
    "_GENITIVE_BEFORE": re.compile(r"(?:^|[^\w])(?:de|da|do|del|di)[\s,]+\Z", re.IGNORECASE),
    "_ANY_NOUN_CUE_BEFORE": re.compile(r"(?:^|[^\w])(?:en|em|de|per|à|au|aux|para|hasta|dans|vers|ab|bis|über"
                                       r"|sa|nasa|niko|tuko|yuko|huko|katika|în)[\s,]+\Z", re.IGNORECASE),
    "_PERSON_CUE_BEFORE": re.compile(r"(?:^|[^\w])(?:to|from|via|von|bei|aus|desde|hacia|depuis|vers)[\s,]+\Z",
                                     re.IGNORECASE),
    "_CAPITALISED_CUE_BEFORE": re.compile(r"(?:^|[^\w])(?:a)[ \t]+\Z"),
}


@pytest.mark.parametrize("name", sorted(PLAIN_PLACE_CUES))
@settings(max_examples=600, deadline=None)
@given(text=st.text(alphabet=[*"atoinfrmdeTOINAÀàüÜ", *" ,\t\n_1-'", *FOLDS_APART], max_size=24),
       start=st.integers(0, 6))
def test_place_cues_match_where_the_plain_forms_do(name: str, text: str, start: int) -> None:
    cue: AfterNonWord = getattr(places, name)
    for pos in (0, min(start, len(text))):
        expected = PLAIN_PLACE_CUES[name].search(text, pos, len(text)) is not None
        assert (cue.search(text, pos, len(text)) is not None) == expected


@pytest.mark.parametrize(("text", "pos", "found"), [("in ", 0, True), ("x in ", 1, True), ("xin ", 1, False),
                                                    ("in ", 1, False), ("fly to, ", 0, True), ("İN ", 0, True),
                                                    ("jusqu'à ", 0, True), ("1in ", 0, False), ("_in ", 0, False)])
def test_place_cue_examples(text: str, pos: int, found: bool) -> None:
    assert (PLAIN_PLACE_CUES["_CUE_BEFORE"].search(text, pos) is not None) == found
    assert (places._CUE_BEFORE.search(text, pos) is not None) == found


def test_a_shared_prefilter_answers_once_per_text_object() -> None:
    """``PerText`` asks its function once for the same string object in a row, and again for an equal string that is
    another object (another request's text) or for another text."""
    asked: list[str] = []

    def prefilter(text: str) -> bool:
        asked.append(text)
        return "(00" in text

    shared = PerText(prefilter)
    text = "(0010,0010) PN [DOE^JANE]"
    assert [shared(text) for _ in range(6)] == [True] * 6
    assert len(asked) == 1
    twin = "".join(list(text))
    assert twin == text and twin is not text
    assert shared(twin) is True and len(asked) == 2
    assert shared("no tag here") is False and len(asked) == 3


def test_detectors_that_share_a_prefilter_share_its_answer() -> None:
    """A record format is one detector of all its entity types (its pre-filter asked once); the birth-word detectors
    hold one ``PerText``; a detector whose pre-filter is its own keeps it as it is."""
    detectors = recognizers.build_detectors()
    by_name: dict[str, list[recognizers.Detector]] = {}
    for detector in detectors:
        by_name.setdefault(detector.recognizer.name, []).append(detector)
    for name in ("DicomRecognizer", "EdifactRecognizer", "GedcomRecognizer", "MachineReadableZoneRecognizer"):
        assert len(by_name[name]) == 1, name
        assert by_name[name][0].entity_types == tuple(by_name[name][0].recognizer.supported_entities), name
    birth = {d.recognizer.name: d.prefilter for d in detectors if d.recognizer.name in (
        "WeakDateOfBirthRecognizer", "SpokenDateOfBirthRecognizer", "CalendarDateOfBirthRecognizer",
        "FarCueDateOfBirthRecognizer")}  # fmt: skip
    assert len(birth) == 4 and len({id(f) for f in birth.values()}) == 1
    assert all(isinstance(f, PerText) for f in birth.values())
    phone = next(d for d in detectors if d.recognizer.name == "PhoneNumberRecognizer")
    assert not isinstance(phone.prefilter, PerText)


# Years, day numbers and the words between them in every spacing, the ordinal's "ika-", a NUL byte, an Arabic-Indic
# digit and Korean's year sign.
TRADITION_PARTS = st.lists(st.sampled_from(["1987", "2003", "19", "20", "87", "3", "3.", " ", "  ", "\n", ". ", "maja",
                                            "gada", "m. ", "년", "ika-", "IKA-", "-", "x", "\x00", "٣", ",", "1"]),
                           max_size=30)  # fmt: skip


@settings(max_examples=1500, deadline=None)
@given(TRADITION_PARTS)
def test_tradition_prefilter_passes_wherever_an_anchor_occurs(parts: list[str]) -> None:
    """The traditions' pre-filter (a year, or the ordinal's anchor) passes every text in which one of their anchors
    occurs: the detector, asked only where it passes, reads the windows it read before."""
    text = "".join(parts)
    if any(re.search(anchor, text) for anchor in TRADITION_ANCHORS):
        assert may_hold_tradition_anchor(text)


@pytest.mark.parametrize(
    ("text", "passes"),
    [("born 3. maja 1987", True), ("1987년 3월 4일", True), ("1985. gada 4. martā", True), ("ika-3 ng Mayo", True),
     ("ticket 4821 of 3 May, build 7", False), ("3 maja 1887", False), ("", False), ("\x00" * 10, False)],
)  # fmt: skip
def test_tradition_prefilter_examples(text: str, passes: bool) -> None:
    assert may_hold_tradition_anchor(text) is passes
    if not passes:  # no anchor either
        assert not any(re.search(anchor, text) for anchor in TRADITION_ANCHORS)


def test_the_traditions_detector_asks_its_prefilter() -> None:
    detector = next(d for d in recognizers.build_detectors() if d.recognizer.name == "TraditionDateOfBirthRecognizer")
    assert detector.prefilter is may_hold_tradition_anchor and not detector.prefilter_is_anchors
