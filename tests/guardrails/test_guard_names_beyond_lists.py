"""Names and places the lists cannot hold: Cyrillic and Greek names in Latin-script text, names after a welcome,
an invitation or an attribution; NER places kept only when written as place names; windows that merge."""

from __future__ import annotations

import pytest

from gateway.guardrails import PiiAnalyzer
from gateway.guardrails.findings import Finding
from gateway.guardrails.people import other_script_names, place_confirmed
from gateway.guardrails.windows import add_window


def people(analyzer: PiiAnalyzer, text: str) -> list[str]:
    return [text[f.start : f.end] for f in analyzer.analyze(text) if f.entity_type == "PERSON" and f.score >= 0.5]


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Nuestra directora, Сніжана Гречко-Жук, espera las cifras.", "Сніжана Гречко-Жук"),
        ("Пешка Пенджакова is on leave until Monday.", "Пешка Пенджакова"),
        ("The invoice went to Γιάννης Οικονόμου last week.", "Γιάννης Οικονόμου"),
    ],
)
def test_a_cyrillic_or_greek_name_in_latin_text_is_a_person(analyzer, text, name):
    assert name in people(analyzer, text)


def test_capitalised_pairs_of_a_text_in_that_script_are_left_to_other_rules():
    assert other_script_names("Добрый день. Новый Год близко, Красная Площадь ждёт.", []) == []
    assert other_script_names("no other script here", []) == []
    taken = [Finding("PERSON", 4, 16, 0.85, "ner")]
    assert other_script_names("Ask Иван Петров later", taken) == []


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Welcome aboard, Thom de Jonge!", "Thom de Jonge"),
        ("Per Sybille, the deadline moved to June.", "Sybille"),
        ("Invite Luc to the review.", "Luc"),
        ("welcome back mariusz nieradzik", "mariusz nieradzik"),
        ("Sara Holst-Hansen joined the call late.", "Sara Holst-Hansen"),
        # chat's and German, French, Spanish forms of a hand-over, a birthday wish and an introduction
        ("ask for toomas at the front desk", "toomas"),
        ("dm wiremu kereama for the keys", "wiremu kereama"),
        ("happy bday oyelaran!! 🎂", "oyelaran"),
        ("hbd ingvild 🎉", "ingvild"),
        ("frag mal radoslava wegen dem zugang", "radoslava"),
        ("hallo, hier ist oyelaran b. adeyemi vom empfang", "oyelaran b. adeyemi"),
        ("Pregúntale a Xiomara por la llave.", "Xiomara"),
    ],
)
def test_welcomes_invitations_and_attributions_point_at_names(analyzer, text, name):
    assert name in people(analyzer, text)


def test_no_name_after_a_welcome_that_names_nobody(analyzer):
    assert people(analyzer, "Welcome to the team channel, everyone. Per the policy, invite the reviewers.") == []


@pytest.mark.parametrize(
    "text",
    [
        "ask for help in the channel",  # a dictionary word after the cue
        "dm me when it's merged",  # a stop word
        "hier ist der link zum doku",
        "frag mal im support nach",
        "happy bday!! 🎂",
    ],
)
def test_new_chat_cues_name_nobody_before_a_word(analyzer, text):
    assert people(analyzer, text) == []


@pytest.mark.parametrize(
    ("text", "span", "kept"),
    [
        ("\tat java.base/java.lang.Thread.run(Thread.java:840)", "java.base/java.lang.Thread.run(Thread.java", False),
        ("El total de las cifras es bajo.", "las cifras", False),
        ("Corrigé dans le commit abc.", "Corrigé", False),
        ("Paris is lovely. Tokyo too.", "Paris", True),
        ("We moved to Lower Saxony last year.", "Lower Saxony", True),
        ("Bitte unterschreibe den Mietvertrag bis Montag.", "Mietvertrag", False),  # a German noun after its article
        ("Wir reisen in die Schweiz.", "Schweiz", True),  # after an article, a name the gazetteer knows
        ("Il a signé le Contrat hier.", "Contrat", False),
    ],
)
def test_ner_places_are_kept_when_written_as_place_names(text, span, kept):
    start = text.index(span)
    assert place_confirmed(text, Finding("LOCATION", start, start + len(span), 0.85, "ner")) is kept


@pytest.mark.parametrize(
    ("text", "span", "kept"),
    [
        ("[HR-2298] Billing query\nPriority: P2", "Billing", False),  # a ticket's title
        ("Yesterday the Help Desk wrote back.", "Help Desk", False),  # a team
        ("The new Data Center near the river opens.", "Data Center", False),
        ("The flight from Reading was late.", "Reading", True),  # English words the gazetteer knows as places
        ("We met in Nice last year.", "Nice", True),
        ("Our depot in Tikkotti is closed.", "Tikkotti", True),  # no dictionary word: left to NER
    ],
)
def test_ner_places_made_of_dictionary_words_need_the_gazetteer(analyzer, text, span, kept):
    start = text.index(span)
    finding = Finding("LOCATION", start, start + len(span), 0.85, "ner")
    assert place_confirmed(text, finding, analyzer.ner.common_words) is kept


def test_windows_widen_to_whitespace_and_merge():
    text = "id 12 and 34 then far away 5678"
    windows: list[tuple[int, int]] = []
    for anchor in ("12", "34", "5678"):
        start = text.index(anchor)
        add_window(windows, text, start, start + len(anchor), 2)
    assert windows == [(0, 17), (22, 31)]  # "34" and "5678" reach into "then" and "away"


@pytest.mark.parametrize(("text", "place"), [("Tennessee is two hours away by train.", "Tennessee"),
                                             ("Tajikistan is where the parts come from.", "Tajikistan"),
                                             ("Reading is fun on a train.", None)])  # fmt: skip
def test_a_country_or_state_opening_a_sentence_is_a_place(analyzer, text, place):
    places = [text[f.start : f.end] for f in analyzer.analyze(text) if f.entity_type == "LOCATION" and f.score >= 0.5]
    assert places == ([place] if place else [])
