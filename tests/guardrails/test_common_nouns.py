"""Common nouns read as people or places (``common_nouns``): a German noun phrase's noun ("Sehr geehrte Damen und
Herren", "In stiller Trauer"), a place that opens with an elided article ("l'âge"); names beside them still found."""

import pytest

from gateway.guardrails import PiiAnalyzer
from gateway.guardrails.common_nouns import is_german_noun, without_common_nouns
from gateway.guardrails.findings import Finding


def noun(text: str, word: str) -> bool:
    start = text.index(word)
    return is_german_noun(text, start, start + len(word))


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("Sehr geehrte Damen und Herren,", "Damen"),
        ("Sehr geehrte Damen und Herren,", "Herren"),
        ("In stiller Trauer\n\nAnna Weber", "Trauer"),
        ("In tiefer Trauer nehmen wir Abschied", "Trauer"),
        ("Sehr geehrter Herr Lappalainen", "Herr"),
        ("Liebe Eltern,\nIhr Kind nimmt an der Klassenfahrt teil.", "Eltern"),  # a salutation opening the line
        ("Liebe Kolleginnen und Kollegen,\nab dem 1. April", "Kolleginnen und Kollegen"),
    ],
)
def test_a_german_noun_phrase_holds_a_noun(text: str, word: str) -> None:
    assert noun(text, word)


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("an die liebe Anna", "Anna"),  # a greeting, and a first name
        ("im schönen Berlin", "Berlin"),  # a place the gazetteer knows
        ("Das sagte Koskinen gestern", "Koskinen"),
        ("Sehr geehrte Frau Müller", "Müller"),
        ("in the Smiths house", "Smiths"),  # English
        ("Auch Oliveira äußerte sich", "Oliveira"),
        ("Liebe Anna,\nwir kommen morgen.", "Anna"),
        ("Wir basteln heute mit der Anna Laternen.", "Anna"),
    ],
)
def test_a_name_is_no_noun_phrase(text: str, word: str) -> None:
    assert not noun(text, word)


def test_a_place_opening_with_an_elided_article_is_dropped() -> None:
    text = "À l'âge de 56 ans, il a quitté L'Aquila."
    age = Finding("LOCATION", text.index("l'âge"), text.index("l'âge") + 5, 0.75, "PlaceRecognizer")
    town = Finding("LOCATION", text.index("L'Aquila"), text.index("L'Aquila") + 8, 0.75, "PlaceRecognizer")
    assert without_common_nouns(text, [age, town]) == [town]
    lower = text.lower()  # typed in lower case, a place is written so too
    assert without_common_nouns(lower, [age]) == [age]


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("Sehr geehrte Damen und Herren,\n\nwir bestätigen den Eingang.", []),
        ("In stiller Trauer\n\nAnna Weber-Krause", ["Anna Weber-Krause"]),
        ("À l'âge de 56 ans, Marianne Poulsen a porté plainte.", ["Marianne Poulsen"]),
    ],
)
def test_the_analyzer_drops_the_nouns_and_keeps_the_names(analyzer: PiiAnalyzer, text: str, names: list[str]) -> None:
    found = {text[f.start : f.end] for f in analyzer.analyze(text)
             if f.entity_type in ("PERSON", "LOCATION") and f.score >= 0.5}  # fmt: skip
    assert found == set(names)  # both NER models may report a name


def test_a_person_right_after_a_german_article_is_a_noun_a_place_is_not() -> None:
    text = "Zum Fest basteln die Kinder Laternen, und wir fahren danach in die Schweiz."
    kinder = Finding("PERSON", text.index("Kinder"), text.index("Kinder") + 6, 0.85, "spacy_ner")
    schweiz = Finding("LOCATION", text.index("Schweiz"), text.index("Schweiz") + 7, 0.85, "spacy_ner")
    assert without_common_nouns(text, [kinder, schweiz]) == [schweiz]
    english = "The band played die Kinder live in Berlin."  # no German stretch: the rule says nothing
    kinder = Finding("PERSON", english.index("Kinder"), english.index("Kinder") + 6, 0.85, "spacy_ner")
    assert without_common_nouns(english, [kinder]) == [kinder]


@pytest.mark.parametrize(
    ("text", "word", "person"),
    [("Ezio meldete einen Wasserschaden in seiner Wohnung in Dotzheim.", "Wohnung", False),
     ("Unsere Gastgeberin hat uns ein kleines Lokal am Hafen empfohlen.", "Lokal", False),
     ("Zum Martinstag basteln die Kinder Laternen mit Haribo-Tüten.", "Kinder Laternen", True)],
)  # fmt: skip
def test_a_word_after_a_german_determiner_is_a_noun(text: str, word: str, person: bool) -> None:
    start = text.index(word)
    assert is_german_noun(text, start, start + len(word), person)


@pytest.mark.parametrize(
    ("text", "word"),
    [("Ich habe mit seiner Anna gesprochen und sie war nicht da.", "Anna"),  # a first name
     ("Wir haben die liebe Schmidt nicht gesehen und sie ist weg.", "Schmidt"),  # a greeting word, no adjective
     ("Sehr geehrte Frau Kollegin,\nwir berichten", "Frau Kollegin"),  # a name's word: one span, not nouns
     ("I met their Kinder Laternen team in Boston.", "Kinder Laternen")],  # English
)  # fmt: skip
def test_a_name_after_a_german_determiner_stays(text: str, word: str) -> None:
    start = text.index(word)
    assert not is_german_noun(text, start, start + len(word), True)


def test_the_second_noun_of_a_salutations_pair_is_a_noun_read_alone():
    text = "Liebe Kolleginnen und Kollegen,\nab dem 1. April verstärkt Frau Nette unser Team."
    start = text.index("Kollegen,")
    assert is_german_noun(text, start, start + len("Kollegen"))
    text = "Liebe Anna und Peter,\nwir kommen am Samstag."  # a first name before "und": people, not nouns
    start = text.index("Peter")
    assert not is_german_noun(text, start, start + len("Peter"), True)


def _person(text: str, span: str, source: str = "name_pairs") -> Finding:
    return Finding("PERSON", text.index(span), text.index(span) + len(span), 0.6, source)


@pytest.mark.parametrize(
    ("text", "span"),
    [
        ("mam: zeg tegen sofia dat ze oma moet bellen", "oma moet"),  # ordinary Dutch words, no given name
        ("bestelling 421 nog steeds niet binnen", "niet binnen"),
        ("mój sąsiad robi grilla", "mój sąsiad"),  # Polish: a stop word and a frequent word
        ("hallo frau jahn, die heizung", "hallo frau"),  # a title ends no name
        ("la chiamo per l'appartamento in via roma", "l'appartamento"),  # an elided article
        ("hoi, ik ben recruiter bij een bedrijf in leusden", "een bedrijf"),  # a stop word, then no surname
        ("hoi, ik ben recruiter", "ik ben"),  # names-dataset's "ben" is a given name: "ik" opens no name
        ("agente: me dice su nombre completo\ncliente: ainoa recio", "completo"),  # a frequent word (wordfreq's)
        ("la via è chiusa per lavori", "lavori"),
        ("o vô se mudou pra santarém e quer", "pra santarém"),  # Portuguese "to", then a town
        ("ok so belford roxo or malang for the long weekend", "belford roxo"),  # a town's name
    ],
)
def test_a_lower_case_person_of_ordinary_words_is_dropped(text: str, span: str) -> None:
    assert without_common_nouns(text, [_person(text, span)]) == []


@pytest.mark.parametrize(
    ("text", "span"),
    [
        ("mam: zeg tegen sofia dat ze belt", "sofia"),
        ("wie komt: rosa blanco en marie", "rosa blanco"),  # "rosa" and "blanco" are words, "rosa" a given name too
        ("will smith is here", "will smith"),  # "will" is a stop word and a common English given name
        ("klient: dagmara wojewódka", "dagmara wojewódka"),
        ("Sehr geehrte Frau Jahn", "Frau Jahn"),  # capitalised: not this rule's
        ("hallo herr ritter, bitte rufen sie an", "herr ritter"),  # frequent words, but a title names the second
        ("bom dia sr. melo, o esquentador avariou", "melo"),
        ("tristan marion\néric peut-être", "éric peut-être"),  # "eric" is a given name without its accent
        ("hallo sofia bachmann, wir suchen", "hallo sofia"),  # "sofia" is a town and a given name
    ],
)
def test_a_lower_case_name_stays(text: str, span: str) -> None:
    person = _person(text, span)
    assert without_common_nouns(text, [person]) == [person]


def test_a_lower_case_person_opening_with_a_stop_word_is_cut_to_the_name_after_it() -> None:
    text = "dzień dobry pani rohde, piec znowu nie działa"  # the Polish title "pani" is a stop word
    (cut,) = without_common_nouns(text, [_person(text, "pani rohde")])
    assert text[cut.start : cut.end] == "rohde" and cut.source == "name_pairs"
    text = "mam: zeg tegen de maria de vries dat ze belt"
    (cut,) = without_common_nouns(text, [_person(text, "de maria de vries")])
    assert text[cut.start : cut.end] == "maria de vries"


@pytest.mark.parametrize(
    "text",
    ["mam: zeg tegen maria dat ze oma moet bellen\nik: ok", "bestelling 4213 nog steeds niet binnen, 214,98 € betaald",
     "mój sąsiad niemiec robi grilla", "hoi cornelis, ik ben recruiter bij een bedrijf in leusden"],
)  # fmt: skip
def test_the_analyzer_reads_no_person_in_ordinary_lower_case_words(analyzer: PiiAnalyzer, text: str) -> None:
    people = {text[f.start : f.end] for f in analyzer.analyze(text) if f.entity_type == "PERSON" and f.score >= 0.5}
    assert not people & {"oma moet", "niet binnen", "mój sąsiad", "ik ben", "een bedrijf"}
