"""Names after a cue that no list helps with (``name_cues``): a given name the English dictionary holds only as a
proper noun, typed in lower case ("happy bday teresa"), a sign-off's next line of two capitalised words no list
knows ("Cheers,\\nPattapon Chaisatit"), and a known first name after a verb of meeting ("I met Inger"). Ordinary
words, dates, places, a team and a company in the same places name nobody."""

import pytest

from gateway.guardrails.findings import Finding
from gateway.guardrails.name_cues import NameWords, cued_names
from gateway.guardrails.people import _STOP_WORDS
from gateway.guardrails.person_names import known_names

# Dictionary words of the tests: the lemma index holds given names that WordNet lists as proper nouns ("teresa").
_COMMON = frozenset(
    {"teresa", "inger", "man", "june", "nato", "widgets", "consulting", "support", "card", "ticket", "plan"}
)


def named(text: str, taken: list[Finding] | None = None) -> list[str]:
    names = known_names()
    words = NameWords(_STOP_WORDS, _COMMON, names.is_name, names.is_first)
    return [text[f.start : f.end] for f in cued_names(text, words, taken or [])]


@pytest.mark.parametrize(
    ("text", "person"),
    [
        ("happy bday teresa!! / only 6,844.31 eur!", "teresa"),
        ("thx inger", "inger"),
    ],
)
def test_a_proper_noun_given_name_in_lower_case_after_a_cue_is_a_person(text: str, person: str) -> None:
    assert named(text) == [person]


@pytest.mark.parametrize(
    "text",
    [
        "thx man",  # a lower-case noun of the dictionary
        "due per june",  # a month, though June is a given name
        "mi chiamo sono nato il 14 giugno 1950",  # Italian's "born": a frequent word, no English given name
    ],
)
def test_ordinary_words_dates_and_other_languages_words_after_a_cue_name_nobody(text: str) -> None:
    assert named(text) == []


@pytest.mark.parametrize(
    ("text", "person"),
    [
        ("Cheers,\nPattapon Chaisatit\nCoords: -4.5688, -75.8034", "Pattapon Chaisatit"),
        ("Viele Grüße\nNutkrita Kittakun\nCard: 4781 7392 7031 2709 023", "Nutkrita Kittakun"),
    ],
)
def test_two_unlisted_words_after_a_sign_off_are_a_person(text: str, person: str) -> None:
    assert named(text) == [person]


@pytest.mark.parametrize(
    "text",
    [
        "Cheers,\nAcme Widgets",  # a dictionary word
        "Cheers,\nNorthwind Support",  # a team's head noun
        "Cheers,\nQWERTZ GLOBEX",  # capitals: an acronym's, a company's
        "Cheers,\nQx Chaisatit",  # a word of two letters no list knows
        "Cheers,\nPattapon Chaisatit Kittakun",  # three words no list knows
    ],
)
def test_a_company_or_a_team_after_a_sign_off_names_nobody(text: str) -> None:
    assert named(text) == []


def _place(text: str, place: str) -> Finding:
    return Finding("LOCATION", text.index(place), text.index(place) + len(place), 0.75, "PlaceRecognizer")


@pytest.mark.parametrize(
    ("text", "person"),
    [
        ("I met Inger at the conference and we talked about a pilot.", "Inger"),
        ("I saw Kemal Aydın yesterday.", "Kemal Aydın"),
    ],
)
def test_a_known_first_name_after_a_verb_of_meeting_is_a_person(text: str, person: str) -> None:
    assert named(text) == [person]


def test_a_person_named_like_a_place_after_a_verb_of_meeting_is_a_person() -> None:
    text = "I met Paris Hilton once."
    assert named(text, [_place(text, "Paris")]) == ["Paris Hilton"]


@pytest.mark.parametrize(
    "text",
    [
        "The results met expectations.",  # a noun, no first name
        "Let's meet Monday at ten.",  # a weekday
        "We visited Acme Labs in spring.",  # a company
    ],
)
def test_things_and_dates_after_a_verb_of_meeting_name_nobody(text: str) -> None:
    assert named(text) == []


def test_a_place_after_a_verb_of_meeting_names_nobody() -> None:
    text = "We visited Sofia last year."
    assert named(text, [_place(text, "Sofia")]) == []


@pytest.mark.parametrize(
    "text",
    [
        "Mit freundlichen Grüßen\nBased in Spain\nRequest Id: eb30bc22",  # a signature's line of where, not who
        "Talk soon,\nBased in North Carolina",
        "Thanks,\nHead of IT",
    ],
)
def test_an_english_stop_word_ends_a_capitalised_name(text: str) -> None:
    assert named(text) == []


@pytest.mark.parametrize(
    ("text", "person"),
    [
        ("Best regards,\nMaria do Carmo", "Maria do Carmo"),
        ("Dear Anna ten Brink,", "Anna ten Brink"),
        ("Cheers,\nSenna de Jonge", "Senna de Jonge"),
    ],
)
def test_a_names_particles_stay_in_it(text: str, person: str) -> None:
    assert named(text) == [person]


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("miss changleng so much", "changleng"),
        ("blocked it again and miss wujiaqu so much", "wujiaqu"),
    ],
)
def test_a_place_after_miss_in_lower_case_is_the_verbs(text: str, place: str) -> None:
    assert named(text, [_place(text, place)]) == []


def test_a_title_that_is_a_verb_names_a_person_who_is_no_place() -> None:
    assert named("thx miss teresa") == ["miss teresa"]
    text = "Dear Miss Florence,"
    assert named(text, [_place(text, "Florence")]) == ["Miss Florence"]


@pytest.mark.parametrize(
    ("text", "person"),
    [
        ("ping devops later", "devops"),  # a frequent English word no name list knows runs the sentence on
        ("thx ana again", "ana"),
        ("hey its anthony pastor here", "anthony pastor"),  # "pastor" is a surname the list knows
        ("job van klaarwater said so", "job van klaarwater"),
    ],
)
def test_a_lower_case_name_ends_before_a_frequent_english_word_no_name_list_knows(text: str, person: str) -> None:
    assert named(text) == [person]


@pytest.mark.parametrize(
    "text",
    [
        "dob on the ticket says 27/11/1944, wrong lol",  # the subject of "says" is "the ticket", not "dob"
        "pin of the card says 0000",
    ],
)
def test_an_english_stop_word_ends_a_lower_case_name_before_a_verb_of_speaking(text: str) -> None:
    assert named(text) == []


@pytest.mark.parametrize(
    ("text", "person"),
    [
        ("Pour la facture, adressez-vous à Γκίκας K. Κακοσαίος.", "Γκίκας K. Κακοσαίος"),
        ("Please reach out to Anon P. Phusilarungrueng.", "Anon P. Phusilarungrueng"),
    ],
)
def test_a_name_with_a_middle_initial_after_a_hand_over_is_a_person_the_list_does_not_know(
    text: str, person: str
) -> None:
    assert named(text) == [person]


@pytest.mark.parametrize(
    "text",
    [
        "Bitte wende dich an Plan B. Danke",  # a dictionary word before the letter
        "Please reach out to Frobnitz K. for it.",  # no name after the initial
        "Please reach out to Frobnitz.",  # one word no list knows
    ],
)
def test_an_unknown_word_after_a_hand_over_without_a_name_s_shape_names_nobody(text: str) -> None:
    assert named(text) == []
