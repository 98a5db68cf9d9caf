"""Kinds of miss that follow from how the detectors read text, each with the look-alikes that must stay clean: a date
beside a person's age, a town under the gazetteer's floor after a verb of residence or origin, a name after a
signature's or a form's label, an e-mail's recipient header, a form's capitals, and a signature's one-word name."""

import pytest

from gateway.guardrails import PiiAnalyzer


def found(analyzer: PiiAnalyzer, text: str, entity_type: str) -> list[str]:
    # The person rules run where NER runs: PERSON is read with it on, as the policy's mask of names does.
    ner = entity_type == "PERSON"
    return [text[f.start : f.end] for f in analyzer.analyze(text, ner_enabled=ner)
            if f.entity_type == entity_type and f.score >= 0.5]  # fmt: skip


# --- a date beside an age ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [("Patient, 42 years old, seen on 03/05/1981.", "03/05/1981"),
     ("A 42-year-old man (03/05/1981) was admitted.", "03/05/1981"),
     ("Mr Lee (42 y/o), 3-May-84", "3-May-84"),
     ("Mme Dupont, âgée de 42 ans, 3 mai 1981.", "3 mai 1981"),
     ("Paciente de 42 años de edad, 3/5/81.", "3/5/81"),
     ("Herr Braun, 42 Jahre alt, 03.05.1981.", "03.05.1981"),
     ("Herr Braun, 42-jährig, 03.05.1981.", "03.05.1981"),
     ("Paziente, età 42 anni, 03/05/1981.", "03/05/1981"),
     ("De patiënt is 42 jaar oud, 03-05-1981.", "03-05-1981")],
)  # fmt: skip
def test_a_date_beside_a_persons_age_is_a_date_of_birth(analyzer: PiiAnalyzer, text: str, value: str) -> None:
    assert found(analyzer, text, "DATE_OF_BIRTH") == [value]


@pytest.mark.parametrize(
    "text",
    ["The invoice was managed on 03/05/1981.",  # "aged" inside "managed": no age word
     "Usage: 03/05/1981 is the release date.",
     "Message: deployed 3-May-84 per the log.",
     "The answer is 03/05/1981.",  # "ans" inside "answer"
     "La sociedad abrió el 3/5/81.",  # "edad" inside "sociedad"
     "Build 3-May-84, 42 files changed."],
)  # fmt: skip
def test_a_date_beside_words_that_only_contain_an_age_word_is_none(analyzer: PiiAnalyzer, text: str) -> None:
    assert found(analyzer, text, "DATE_OF_BIRTH") == []


# --- a town after a verb of residence or origin ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "place"),
    [("She lives in Hallstatt now.", "Hallstatt"),
     ("He is from Bibury.", "Bibury"),
     ("My mother was born in Ponte Sasso.", "Ponte Sasso"),
     ("Er stammt aus Wolfsgrub.", "Wolfsgrub"),
     ("Sie ist wohnhaft in Kleinwalsertal.", "Kleinwalsertal"),
     ("Soy de Frigiliana.", "Frigiliana"),
     ("J'habite à Riquewihr.", "Riquewihr"),
     ("Il est originaire de Lourmarin.", "Lourmarin")],
)  # fmt: skip
def test_a_town_after_a_verb_of_residence_or_origin_is_a_place(analyzer: PiiAnalyzer, text: str, place: str) -> None:
    assert place in found(analyzer, text, "LOCATION")


@pytest.mark.parametrize(
    "text",
    ["The e-mail is from Okafor about the invoice.",  # a known surname: a message comes from a person as often
     "The message was from Sarah.",
     "It was from Monday to Friday.",
     "She is from Finance.",
     "He lives in London with Anna and Ahmed.",
     "The build is from CI."],
)  # fmt: skip
def test_what_a_message_or_a_span_of_time_is_from_is_no_place(analyzer: PiiAnalyzer, text: str) -> None:
    flagged = found(analyzer, text, "LOCATION")
    assert not [place for place in flagged if place not in ("London",)]


# --- names after a label, a header or a sign-off -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "name"),
    [("Signed: Thaddeus Wojciechowski", "Thaddeus Wojciechowski"),
     ("Firmado: Itzel Xochitl", "Itzel Xochitl"),
     ("gez. Grzegorz Wójcik", "Grzegorz Wójcik"),
     ("From: Ops Team\nTo: Tunradee Krittayanukoon\nSubject: Venue", "Tunradee Krittayanukoon"),
     ("NAME: XIOMARA QUISPE", "XIOMARA QUISPE"),
     ("Nom : AMÉLIE DUPONT", "AMÉLIE DUPONT"),
     ("Thanks,\nGunngeir\nNorthwind Ltd", "Gunngeir")],
)  # fmt: skip
def test_a_name_after_a_label_header_or_sign_off_is_a_person(analyzer: PiiAnalyzer, text: str, name: str) -> None:
    assert name in found(analyzer, text, "PERSON")


@pytest.mark.parametrize(
    "text",
    ["To: Facilities Desk\nSubject: Forms",
     "To: All Staff\nSubject: Holiday",
     "Cc: Service Desk\nSubject: Outage",
     "Name: IBAN SWIFT",
     "NAME: ORDER TOTAL",
     "Thanks,\nSupport",
     "The signature is valid.",
     "Signed off by the Release Manager."],
)  # fmt: skip
def test_a_desk_a_field_or_a_word_after_a_cue_is_no_person(analyzer: PiiAnalyzer, text: str) -> None:
    assert found(analyzer, text, "PERSON") == []


# --- first-level regions -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "place"),
    [("He moved to Bavaria last year.", "Bavaria"),
     ("Sie wohnt in Bayern.", "Bayern"),
     ("Elle habite en Bavière.", "Bavière"),
     ("We opened an office in Lombardia.", "Lombardia"),
     ("Our warehouse in Saskatchewan is full.", "Saskatchewan"),
     ("Vive en Andalucía.", "Andalucía")],
)  # fmt: skip
def test_a_countrys_state_province_or_land_is_a_place(analyzer: PiiAnalyzer, text: str, place: str) -> None:
    assert place in found(analyzer, text, "LOCATION")


@pytest.mark.parametrize(
    ("text", "word"),
    [("The Plateau of the curve is near.", "Plateau"),  # regions named like an English noun need a location word
     ("Acre is a unit of area.", "Acre"),
     ("Karen Guerrero approved it.", "Guerrero")],  # and named like a person too
)  # fmt: skip
def test_a_region_named_like_a_word_or_a_person_needs_a_location_word(analyzer: PiiAnalyzer, text: str,
                                                                      word: str) -> None:  # fmt: skip
    assert word not in found(analyzer, text, "LOCATION")


def test_the_region_snapshot_holds_iso_and_translated_names() -> None:
    from gateway.guardrails.region_names import region_names

    names = set(region_names())
    assert {"Bayern", "Bavaria", "Bavière", "Andalucía", "Quebec", "Lombardia"} <= names
    assert not [name for name in names if any(mark in name for mark in ",()[]/")]


@pytest.mark.parametrize(
    "text",
    ["Dear Sirs,\nPlease find the claim attached.",
     "The case was handled by Field Services overnight.",
     "Escalated to Claims Unit.",
     "Forwarded to Records Office."],
)  # fmt: skip
def test_a_plural_dictionary_word_or_a_team_after_a_cue_is_no_person(analyzer: PiiAnalyzer, text: str) -> None:
    assert found(analyzer, text, "PERSON") == []


# --- a date set with spaces after its periods ----------------------------------------------------------------------


@pytest.mark.parametrize(("text", "value"), [("Geboren am 4. 3. 1985 in Brno.", "4. 3. 1985"),
                                             ("DOB: 27. 4. 1957", "27. 4. 1957")])
def test_a_date_with_a_space_after_each_period_is_a_date_of_birth_with_a_birth_word(
    analyzer: PiiAnalyzer, text: str, value: str
) -> None:
    assert found(analyzer, text, "DATE_OF_BIRTH") == [value]


@pytest.mark.parametrize("text", ["See sections 3. 4. 2021 of the plan.", "Kapitel 1. 2. 2020 wurde überarbeitet.",
                                  "Items 1. 2. 3. 4. 1999 and more."])
def test_a_spaced_date_without_a_birth_word_is_none(analyzer: PiiAnalyzer, text: str) -> None:
    assert found(analyzer, text, "DATE_OF_BIRTH") == []
