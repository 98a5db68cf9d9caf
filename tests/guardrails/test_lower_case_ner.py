"""People and places NER reads in chat typed in lower case once its names are capitalised (``lower_case_ner``):
which words are shown capitalised, which of NER's people and places are kept, and what the analyzer finds with it."""

from __future__ import annotations

import pytest

from gateway.guardrails import PiiAnalyzer
from gateway.guardrails.findings import Finding
from gateway.guardrails.lower_case_ner import SOURCE, LowerCaseView, lower_case_view


def test_given_names_are_capitalised_ordinary_words_are_not() -> None:
    text = "dis à anouk de rappeler, elle rentre lundi"
    view = lower_case_view(text)
    assert view is not None
    assert view.text == "dis à Anouk de rappeler, elle rentre lundi"
    assert len(view.text) == len(text)
    assert [text[start:end] for start, end in view.names] == ["anouk"]


@pytest.mark.parametrize("text", ["que graça esse vídeo", "de roos in de tuin bloeit weer"])
def test_a_given_name_that_is_a_frequent_word_of_the_texts_language_is_not_capitalised(text: str) -> None:
    assert lower_case_view(text) is None  # Portuguese 'graça' (grace, fun), Dutch 'roos' (rose)


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("ok so stefan hug, then the deck", "ok so Stefan hug, then the deck"),  # frequent in German, not English
        ("sra. graça ligou ontem", "sra. Graça ligou ontem"),  # a title names her
        ("a graça ferreira ligou ontem", "a Graça Ferreira ligou ontem"),  # a family name follows
    ],
)
def test_a_given_name_that_is_a_frequent_word_elsewhere_or_beside_a_cue_is_capitalised(text: str, shown: str) -> None:
    view = lower_case_view(text)
    assert view is not None and view.text == shown


def test_a_family_name_after_a_given_name_is_capitalised_too() -> None:
    view = lower_case_view("ok ill send anita kowalski round tomorrow")
    assert view is not None and view.text == "ok ill send Anita Kowalski round tomorrow"


@pytest.mark.parametrize(
    "text",
    [
        "Maman: dis à claude de rappeler",  # capitals: the text is not typed in lower case
        "the rose garden will open in june",  # given names that are words first
        "on se retrouve lundi au monoprix",  # a weekday
        "sur mon passeport c'est 28 jui 1961",  # a month's abbreviation
        "can we talk thu?",  # a weekday's
        "",
    ],
)
def test_no_view_without_a_candidate_name(text: str) -> None:
    assert lower_case_view(text) is None


def test_a_dump_of_many_names_is_left_to_the_name_rules() -> None:
    assert lower_case_view(" ".join(["claude", "marie", "anita", "carmelo"] * 11)) is None


def test_only_a_person_that_is_exactly_a_run_of_the_capitalised_names_is_kept() -> None:
    text = "ok ill send anita kowalski round, ask claude"
    view = lower_case_view(text)
    assert isinstance(view, LowerCaseView)
    start = text.index("anita")
    full = Finding("PERSON", start, start + len("anita kowalski"), 0.85, "spacy_ner")
    longer = Finding("PERSON", start, start + len("anita kowalski round"), 0.85, "spacy_ner")
    claude = Finding("PERSON", text.index("claude"), len(text), 0.85, "spacy_ner")
    place = Finding("LOCATION", text.index("claude"), len(text), 0.85, "spacy_ner")
    kept = view.read([full, longer, place], [])
    assert [(f.start, f.end, f.source) for f in kept] == [(full.start, full.end, SOURCE)]
    street = Finding("STREET_ADDRESS", claude.start, claude.end, 0.9, "StreetAddressRecognizer")
    assert view.read([claude], [street]) == []  # another finding holds it


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("maman: dis à claude de rappeler mamie\nmoi: ok", "claude"),
        ("mam: zeg tegen marie dat ze oma moet bellen", "marie"),
        ("proprietario: domani le mando mirko vasari", "mirko"),
    ],
)
def test_the_analyzer_finds_a_given_name_in_its_sentence(analyzer: PiiAnalyzer, text: str, name: str) -> None:
    people = [text[f.start : f.end] for f in analyzer.analyze(text) if f.entity_type == "PERSON" and f.score >= 0.5]
    assert name in people


def test_the_view_finds_a_given_name_no_chat_rule_takes(analyzer: PiiAnalyzer) -> None:
    # 'à claude' and 'tegen marie' are the chat rules' addressees now; a name as an object of 'mandare' is NER's only.
    text = "proprietario: domani le mando mirko vasari"
    people = [(text[f.start : f.end], f.source) for f in analyzer.analyze(text)
              if f.entity_type == "PERSON" and f.score >= 0.5]  # fmt: skip
    assert ("mirko", SOURCE) in people


@pytest.mark.parametrize("text", ["on se retrouve lundi au monoprix", "the rose garden will open in june, mark it"])
def test_the_analyzer_finds_no_person_in_ordinary_words(analyzer: PiiAnalyzer, text: str) -> None:
    assert not [f for f in analyzer.analyze(text) if f.entity_type == "PERSON" and f.score >= 0.5]


def test_a_places_name_is_capitalised_word_by_word() -> None:
    text = "eu: ok ela volta de mogi mirim quinta-feira"
    view = lower_case_view(text)
    assert view is not None and view.text == "eu: ok ela volta de Mogi Mirim quinta-feira"
    assert [text[start:end] for start, end in view.places] == ["mogi mirim"]


@pytest.mark.parametrize("text", ["that was nice, we should split the bill and take a bath", "the reading list"])
def test_a_place_that_is_an_ordinary_word_is_not_capitalised(text: str) -> None:
    assert lower_case_view(text) is None  # "nice", "split", "bath", "reading": words first


def test_only_a_place_ner_calls_exactly_a_capitalised_places_name_is_kept() -> None:
    text = "eu: ok ela volta de mogi mirim quinta-feira"
    view = lower_case_view(text)
    assert view is not None
    start = text.index("mogi")
    town = Finding("LOCATION", start, start + len("mogi mirim"), 0.85, "spacy_ner")
    part = Finding("LOCATION", start, start + len("mogi"), 0.85, "spacy_ner")
    person = Finding("PERSON", start, start + len("mogi mirim"), 0.85, "spacy_ner")  # a place's name is no person
    assert [(f.entity_type, f.start, f.end, f.source) for f in view.read([town, part, person], [])] == [
        ("LOCATION", town.start, town.end, SOURCE)
    ]


@pytest.mark.parametrize(
    ("text", "place", "source"),
    [
        # 'volta de' points places' own lower-case rule at the town; no word points at 'dülmen': the view finds it
        ("eu: ok ela volta de mogi mirim quinta-feira", "mogi mirim", "PlaceRecognizer"),
        ("dülmen war der hammer, sarah kommt", "dülmen", SOURCE),
    ],
)
def test_the_analyzer_finds_a_town_in_its_sentence(analyzer: PiiAnalyzer, text: str, place: str, source: str) -> None:
    places = [(text[f.start : f.end], f.source) for f in analyzer.analyze(text)
              if f.entity_type == "LOCATION" and f.score >= 0.5]  # fmt: skip
    assert (place, source) in places


def test_a_line_in_capitals_is_shown_in_lower_case_with_its_names_capitalised() -> None:
    text = "Noted, thanks.\nDET ER OLIVIA, NYT NUMMER KOMMER\nSee you Friday"
    view = lower_case_view(text)
    assert view is not None and len(view.text) == len(text)
    assert view.text == "Noted, thanks.\ndet er Olivia, nyt nummer kommer\nSee you Friday"
    line = text.index("DET")
    assert view.lines == ((line, line + len("DET ER OLIVIA, NYT NUMMER KOMMER")),)
    assert [text[start:end] for start, end in view.names] == ["OLIVIA"]
    assert view.recased() == view.lines


@pytest.mark.parametrize(
    "text",
    [
        "Noted.\nURGENT: SERVER DOWN AGAIN",  # no candidate on the line in capitals
        "Meet OLIVIA at NYC HQ",  # capitals inside a line of lower case
        "See you\nOLIVIA!",  # a line of fewer letters than a message has
    ],
)
def test_no_view_for_a_text_without_a_candidate_on_a_line_in_capitals(text: str) -> None:
    assert lower_case_view(text) is None


def test_only_the_findings_on_the_lines_in_capitals_are_the_views() -> None:
    text = "Anna wrote:\nTHANKS JENNIFER, SEE YOU SOON"
    view = lower_case_view(text)
    assert view is not None
    start = text.index("JENNIFER")
    on_line = Finding("PERSON", start, start + len("JENNIFER"), 0.85, "spacy_ner")
    typed = Finding("PERSON", 0, len("Anna"), 0.85, "spacy_ner")
    assert view.split([on_line, typed]) == ([on_line], [typed])
    whole = lower_case_view("dis à anouk de rappeler")
    assert whole is not None and whole.split([typed]) == ([typed], []) and whole.recased() == ((0, len(whole.text)),)


@pytest.mark.parametrize(
    ("text", "name"),
    [("Noted.\nDET ER OLIVIA, NYT NUMMER KOMMER", "OLIVIA"), ("Hey\nTHANKS JENNIFER, SEE YOU SOON", "JENNIFER")],
)
def test_the_analyzer_finds_a_given_name_on_a_line_in_capitals(analyzer: PiiAnalyzer, text: str, name: str) -> None:
    people = [text[f.start : f.end] for f in analyzer.analyze(text) if f.entity_type == "PERSON" and f.score >= 0.5]
    assert name in people


def test_a_line_in_capitals_of_ordinary_words_holds_no_person(analyzer: PiiAnalyzer) -> None:
    text = "Hi all\nREMINDER: THE TEAMS CALL MOVES TO THURSDAY, BRING YOUR CHARGER"
    assert not [f for f in analyzer.analyze(text) if f.entity_type == "PERSON" and f.score >= 0.5]


def test_a_given_name_the_word_filter_holds_is_capitalised_on_a_line_in_capitals() -> None:
    text = "ESTHER RING MIG DIREKT"
    view = lower_case_view(text)
    assert view is not None and view.text == "Esther ring mig direkt"


@pytest.mark.parametrize("text", ["MALIN RING MEG MED EN GANG", "THE ROSE GARDEN WILL OPEN IN JUNE"])
def test_a_stop_word_or_frequent_word_on_a_line_in_capitals_is_not_capitalised(text: str) -> None:
    view = lower_case_view(text)  # Scandinavian 'med' (with) is a stop word; 'rose' and 'june' are words
    assert view is None or all(text[start:end] not in ("MED", "ROSE", "JUNE") for start, end in view.names)


def test_a_given_name_wordnet_writes_only_capitalised_is_capitalised_a_dictionary_noun_is_not() -> None:
    # the English dictionary (a lower-case lemma index) holds "fatima" as it holds "amber": WordNet writes only the
    # first capitalised ("proper_nouns"); "amber" and "holly" are nouns in lower case too
    view = lower_case_view("remind me to pick up fatima at the station")
    assert view is not None and view.text == "remind me to pick up Fatima at the station"
    assert lower_case_view("pass me the amber bottle and the holly wreath") is None


def test_a_middle_initial_between_a_given_and_a_family_name_is_capitalised_with_them() -> None:
    text = "dillon g moore obituary"
    view = lower_case_view(text)
    assert view is not None and view.text == "Dillon G Moore obituary"
    dotted = lower_case_view("with fatima b. moore tomorrow")
    assert dotted is not None and dotted.text == "with Fatima B. Moore tomorrow"
    assert lower_case_view("ask anna b ok then") is None  # no family name after the letter


def test_a_run_with_a_middle_initial_is_a_person_whatever_the_models_read() -> None:
    text = "mia cugina fatima f moore vive qui"
    view = lower_case_view(text)
    assert view is not None
    start = text.index("fatima")
    place = Finding("LOCATION", text.index("moore"), text.index("moore") + 5, 0.85, "spacy_ner")
    assert [(f.entity_type, f.start, f.end) for f in view.read([place], [])] == [
        ("PERSON", start, start + len("fatima f moore"))
    ]
    plain = lower_case_view("mia cugina fatima moore vive qui")
    assert plain is not None and plain.read([], []) == []  # no initial: the models decide


def test_a_place_the_models_read_on_a_given_name_is_a_person_unless_the_name_is_a_frequent_word() -> None:
    text = "wir haben yasin gestern getroffen"
    view = lower_case_view(text)
    assert view is not None
    start = text.index("yasin")
    read = view.read([Finding("LOCATION", start, start + 5, 0.85, "spacy_ner_continental")], [])
    assert [(f.entity_type, f.start, f.end, f.source) for f in read] == [("PERSON", start, start + 5, SOURCE)]
    granny = "maman: dis à claude de rappeler mamie"  # French "granny", a frequent word
    view = lower_case_view(granny)
    assert view is not None
    at = granny.index("mamie")
    assert view.read([Finding("LOCATION", at, at + 5, 0.85, "spacy_ner")], []) == []


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("this is thom malone calling about my daughter aaliyah she was born 14 january 1981", "aaliyah"),
        ("mia cugina elisabetta f carrara vive in molise", "elisabetta f carrara"),
    ],
)
def test_the_analyzer_finds_a_lower_case_given_name_and_an_initialled_name(
    analyzer: PiiAnalyzer, text: str, name: str
) -> None:
    people = [text[f.start : f.end] for f in analyzer.analyze(text) if f.entity_type == "PERSON" and f.score >= 0.5]
    assert name in people


def test_an_english_dictionary_word_is_a_given_name_in_a_text_of_another_language() -> None:
    # French 'qui vient', German 'wer kommt': no English is written, so the English dictionary's "marguerite" and
    # "edda" are the names they are; in English text "marguerite" stays the flower, and a state stays a place
    french = lower_case_view("qui vient samedi ? marguerite et paul")
    assert french is not None and french.text == "qui vient samedi ? Marguerite et paul"
    german = lower_case_view("wer kommt samstag edda und theo")
    assert german is not None and german.text == "wer kommt samstag Edda und Theo"
    assert lower_case_view("we picked a marguerite in the garden") is None
    spanish = lower_case_view("vuelos gandia virginia baratos")
    assert spanish is not None and "Virginia" not in spanish.text


def test_a_family_name_after_a_title_is_capitalised_an_ordinary_word_is_not() -> None:
    view = lower_case_view("dear mrs matthews thank you for your letter")
    assert view is not None and view.text == "dear mrs Matthews thank you for your letter"
    assert lower_case_view("dear mr president thank you for your letter") is None


def test_a_person_the_models_read_on_a_capitalised_place_is_the_place() -> None:
    text = "quel temps fait il à le creusot demain"
    view = lower_case_view(text)
    assert view is not None and view.text == "quel temps fait il à Le Creusot demain"
    start, end = text.index("le creusot"), text.index(" demain")
    for read_start in (start, text.index("à")):  # the place's span, or it after a lower-case word ("à Le Creusot")
        person = Finding("PERSON", read_start, end, 0.85, "spacy_ner_continental")
        assert [(f.entity_type, f.start, f.end) for f in view.read([person], [])] == [("LOCATION", start, end)]
    named = "benedicte dupont bebington"  # a person's names before the town: no place alone, no person run
    view = lower_case_view(named)
    assert view is not None
    assert view.read([Finding("PERSON", 0, len(named), 0.85, "spacy_ner_continental")], []) == []
