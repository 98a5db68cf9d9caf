"""Names by the shape of a list or of the name itself (``name_lists``), dates of birth apart from the other dates
around them, and the columns of semicolon-separated exports and role keys (``columns``, ``fields``)."""

from __future__ import annotations

import pytest

from gateway.guardrails import PiiAnalyzer


def spans(analyzer: PiiAnalyzer, text: str, entity: str) -> list[str]:
    return [text[f.start : f.end] for f in analyzer.analyze(text, ner_enabled=True)
            if f.entity_type == entity and f.score >= 0.5]  # fmt: skip


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("Kick-off - 21/08\nAttendees: Székely Csaba; D. Vives\nNotes: none", ["Székely Csaba", "D. Vives"]),
        ("To: Fan Yan\nCc: Raquel Vasconcelos, Sofia Ahmadi, KUSCH Clemens\nSubject: Forms",
         ["Raquel Vasconcelos", "Sofia Ahmadi", "KUSCH Clemens"]),
        ("Teilnehmende: Matteo Lopes und Nozibusiso Nhlanhlampofu\nNotizen: keine",
         ["Matteo Lopes", "Nozibusiso Nhlanhlampofu"]),
    ],
)  # fmt: skip
def test_every_name_of_a_list_that_holds_a_person(analyzer: PiiAnalyzer, text: str, names: list[str]) -> None:
    assert set(names) <= set(spans(analyzer, text, "PERSON"))


@pytest.mark.parametrize(
    ("text", "not_a_person"),
    [
        ("Invite Maria Lopez, Finance and Legal to the Q3 review.", "Finance"),
        ("Thanks Maria, Paris was great and London too.", "Paris"),
        ("id,when,place,contact,status\n2000,7h 25m,Rust’avi,Obianuju Anyanwu,ok", "Rust’avi"),  # columns, no list
        ("Participants : Elisabeth Monnet, OSTINELLI Raimondo\nNotes:\nRAS", "Raimondo\nNotes"),
        # a sentence ends inside an item: a town, then the next sentence's noun
        ("Helle Wohnung in der Lindenallee 3, Wetzlar. Garten, Keller. Kontakt: Jonas Brenner.", "Wetzlar. Garten"),
        ("Best,\nIngrid Solheim, PhD", "PhD"),  # a degree after the name
        ("Cheers,\nTomás Ferreyra, M.Sc.", "M.Sc"),
    ],
)
def test_what_a_list_holds_besides_names(analyzer: PiiAnalyzer, text: str, not_a_person: str) -> None:
    assert not_a_person not in spans(analyzer, text, "PERSON")


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Poder notarial otorgado a DUPONT Younes.", "DUPONT Younes"),
        ("The slides were checked by D. Vives on Monday.", "D. Vives"),
        ("can you dedupe these?\nNIQUILLE Robert - South Dakota", "NIQUILLE Robert"),  # WordNet lists "robert"
    ],
)
def test_initials_and_family_names_in_capitals(analyzer: PiiAnalyzer, text: str, name: str) -> None:
    assert name in spans(analyzer, text, "PERSON")


def test_acronyms_before_a_first_name_are_no_family_name(analyzer: PiiAnalyzer) -> None:
    assert not [name for name in spans(analyzer, "The AWS Summit was good; ask the API team.", "PERSON")]


@pytest.mark.parametrize("text", ["Set the OAUTH Grant type first.", "Only HTTPS Will work here."])
def test_a_given_name_that_is_a_verb_after_capitals_is_no_name(analyzer: PiiAnalyzer, text: str) -> None:
    assert not spans(analyzer, text, "PERSON")


@pytest.mark.parametrize(
    ("text", "date"),
    [
        ("dob_raw: Jul 6, '49", "Jul 6, '49"),
        ("Born on Oct 6, '42 according to the Registration Form.", "Oct 6, '42"),
        ('{"d_o_b": "15-Nov-1966"}', "15-Nov-1966"),
        ("fecha_nac: 27/2/1974", "27/2/1974"),
        ("Geb. am 3.4.1985 - Angaben geprüft.", "3.4.1985"),
        ("ref;d_o_b;order;token\nR5745;20-Jan-1955;SO328311316;BmO1Hs8BlKAduGdnR6YNdqwY4e1z\n", "20-Jan-1955"),
    ],
)
def test_dates_of_birth_in_short_forms_keys_and_semicolon_columns(analyzer: PiiAnalyzer, text: str,
                                                                  date: str) -> None:  # fmt: skip
    assert spans(analyzer, text, "DATE_OF_BIRTH") == [date]


@pytest.mark.parametrize(
    "text",
    [
        "Né le 3 mars 1987. Facture du 9 janvier 2021.",
        "DOB - 6th December 1987 Contract starts on 21st January 2022.",
        "born Aug 10, '87 so yes I'm old\ndeadline is 02 November 2021 fyi",
        "Born on Oct 6, '87 according to the Form. Invoice dated Jul 29, '24.",
    ],
)
def test_the_other_dates_beside_a_date_of_birth_are_not_one(analyzer: PiiAnalyzer, text: str) -> None:
    found = spans(analyzer, text, "DATE_OF_BIRTH")
    assert len(found) == 1 and "87" in found[0]


@pytest.mark.parametrize(
    ("text", "entity", "value"),
    [
        ("ref;mobile;total;requestedBy\nR6780;+678 29531;£3715.46;Gloria Okafor\n", "PERSON", "Gloria Okafor"),
        ('{"approver": "Eva", "venue": "Plaine Magnien"}', "PERSON", "Eva"),
        ('{"approver": "Eva", "venue": "Plaine Magnien"}', "LOCATION", "Plaine Magnien"),
        ("- id: 1\n  pob: Warners Bay\n  on_call: Obianuju Onwuka\n", "LOCATION", "Warners Bay"),
        ("- id: 1\n  pob: Warners Bay\n  on_call: Obianuju Onwuka\n", "PERSON", "Obianuju Onwuka"),
        ("ref;city;iban;status\nR2778;Crikvenica;TR27;ok\n", "LOCATION", "Crikvenica"),
    ],
)
def test_role_keys_and_semicolon_columns(analyzer: PiiAnalyzer, text: str, entity: str, value: str) -> None:
    assert value in spans(analyzer, text, entity)


def test_a_greeting_opening_a_text_is_no_place(analyzer: PiiAnalyzer) -> None:
    text = "Hola Sofía, Manuel Cabañas,\n\nla tarjeta fue rechazada."
    assert "Hola" not in spans(analyzer, text, "LOCATION")


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Booking reference under the name Giulia Scalera.", "Giulia Scalera"),
        ("Reserva a nombre de Shi Gang.", "Shi Gang"),
    ],
)
def test_a_booking_in_someones_name(analyzer: PiiAnalyzer, text: str, name: str) -> None:
    assert name in spans(analyzer, text, "PERSON")


def test_a_month_in_a_date_is_no_place(analyzer: PiiAnalyzer) -> None:
    assert not spans(analyzer, "Passport expires 2nd October 2017.", "LOCATION")


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("She grew up in Nideggen and still speaks the dialect.", "Nideggen"),
        ("Driving down to Jiangtai after the Workshop.", "Jiangtai"),
        ("We relocated to Szczytna in May.", "Szczytna"),
    ],
)
def test_towns_a_verb_of_travel_points_at(analyzer: PiiAnalyzer, text: str, place: str) -> None:
    assert place in spans(analyzer, text, "LOCATION")


@pytest.mark.parametrize("text", ["We moved to Kubernetes last year.", "Flying to AWS re:Invent in Las Vegas.",
                                  "The build landed in Production on Friday."])
def test_what_a_verb_of_travel_points_at_besides_places(analyzer: PiiAnalyzer, text: str) -> None:
    assert not {"Kubernetes", "AWS", "Production"} & set(spans(analyzer, text, "LOCATION"))
