"""The English NER model's people in German windows: kept only where Warden's model, which reads every German window
and was trained on German, also calls the words a person, or a title or a romanised spelling makes a name of them
(``ner._unconfirmed_in_continental``, which reads French and Spanish windows too). German capitalises every noun, and
the English model reads nouns as names."""

from __future__ import annotations

import pytest

from gateway.guardrails.ner import NER_SOURCE, _unconfirmed_in_continental, is_german


@pytest.mark.parametrize(
    "text",
    [
        "Letzten Sommer waren wir in Oregon.",
        "Das Bett steht im Zimmer, und die Maus wohnt unter dem Schrank.",
        "Ich habe die Rechnung noch nicht bekommen, aber sie ist unterwegs.",
    ],
)
def test_german_prose_is_german(text):
    assert is_german(text)


@pytest.mark.parametrize(
    "text",
    [
        "We received your request and will handle it before Friday.",
        "Nous avons reçu votre demande et nous allons la traiter avant vendredi.",
        "Creo que el informe llegará mañana, pero todavía no estoy seguro.",
        "We hebben het pakket gisteren naar het kantoor gestuurd.",
        '{"user": "Maria Garcia", "city": "Lyon"}',
        "",
    ],
)
def test_other_languages_code_and_nothing_are_not_german(text):
    assert not is_german(text)


def _people(analyzer, text: str) -> list[tuple[str, str]]:
    return [(text[f.start : f.end], f.source) for f in analyzer.analyze(text) if f.entity_type == "PERSON"]


@pytest.mark.parametrize(
    "text",
    [
        "Letzten Sommer waren wir in Oregon.",  # the English model: 'Letzten Sommer'
        "Das Bett steht im Zimmer, und die Maus wohnt unter dem Schrank.",  # 'Zimmer'
        "Der Schlüssel liegt unter dem Stein neben der Tür.",  # 'Stein'
    ],
)
def test_a_german_noun_the_english_model_calls_a_person_is_none(analyzer, text):
    assert _people(analyzer, text) == []


def test_a_title_closing_the_english_models_span_makes_no_name_of_it(analyzer):
    text = "Brief weg finden hören denken Tür nur. Kasachstan Frau Mensch Klasse weg helfen. Jetzt ist er unter uns."
    assert [span for span, source in _people(analyzer, text) if source == NER_SOURCE] == []  # 'Kasachstan Frau'


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Gestern hat Herr Berg die Rechnung bezahlt.", "Herr Berg"),  # a title before the noun
        ("Hab mit Kim Ha-yun telefoniert.", "Kim Ha-yun"),  # romanised: lower case after the hyphen
        ("Ich nehme HSU Hsiu-hsia mit rein, sie kümmert sich um die Verlängerung.", "HSU Hsiu-hsia"),
        ("Hab mit I-ching Chen telefoniert, sie kümmert sich darum.", "Chen"),  # romanised before the span
        ("Anwesend: M. Hussein sowie das Team Einkauf.", "M. Hussein"),  # an initial
        ("Nach dem Essen ging Jürgen Baumann an die Arbeit.", "Jürgen Baumann"),  # both models
        ("Fünf er Licht dich Winter sonst. Weit gleich Teresa Kohl wenn Arbeit verstecken.", "Teresa Kohl"),
    ],
)
def test_names_in_german_the_english_model_finds_are_kept(analyzer, text, name):
    assert name in [span for span, _ in _people(analyzer, text)]


def test_the_rule_reads_only_german_windows_the_second_model_read():
    window = "Letzten Sommer waren wir in Oregon."
    assert _unconfirmed_in_continental(window, 0, 14, [])
    assert not _unconfirmed_in_continental(window, 0, 14, None)  # the second model did not read the window
    assert not _unconfirmed_in_continental(window, 0, 14, [(0, 7)])  # it calls an overlapping stretch a person
    english = "Last summer Field Services went to Oregon."
    assert not _unconfirmed_in_continental(english, 12, 26, [])


def test_english_text_keeps_the_english_models_people(analyzer):
    assert ("Maria Garcia", NER_SOURCE) in _people(analyzer, "Please ask Maria Garcia to retry the upload.")


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("Estimada Sra. Montero:\nHemos recibido su reclamación sobre la factura.", "Estimada Sra"),
        ("Cher confrère,\nJe vous adresse une patiente pour un avis cardiologique.", "Cher"),
        ("Día 3: Badajoz. Tapas con Xaver, un chico que conocimos en el albergue.", "Tapas"),
    ],
)
def test_french_and_spanish_words_the_english_model_calls_a_person_are_none(analyzer, text, word):
    assert (word, NER_SOURCE) not in _people(analyzer, text)


def test_french_and_spanish_given_names_are_kept_where_warden_model_agrees():
    window = "Salimos al amanecer y llegamos para comer. Arsenio conducía, y nadie iba durmiendo."
    start = window.index("Arsenio")
    assert not _unconfirmed_in_continental(window, start, start + 7, [(start, start + 7)])
    # No list of given names decides alone (the corpus draws its people from Faker's tables).
    assert _unconfirmed_in_continental(window, start, start + 7, [])
    words = "Estimada Sra. Montero:\nHemos recibido su reclamación sobre la factura."
    assert _unconfirmed_in_continental(words, 0, 12, [])


def test_a_known_first_and_last_name_pair_keeps_the_english_models_person():
    window = "Salimos al amanecer y llegamos para comer. Teresa Kohl conducía, y nadie iba durmiendo."
    start = window.index("Teresa")
    assert not _unconfirmed_in_continental(window, start, start + len("Teresa Kohl"), [])
    nouns = "Fünf er Licht dich Winter sonst. Weit gleich Glück Jahr Berg wenn Arbeit verstecken."
    start = nouns.index("Glück")
    assert _unconfirmed_in_continental(nouns, start, start + len("Glück Jahr Berg"), [])
