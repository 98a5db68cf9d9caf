"""PERSON in record formats: HL7 v2 name fields (XPN), airline tickets' FAMILY/GIVEN, and the name properties of
calendar, contact and directory entries."""

import pytest

from gateway.guardrails.analyzer import PiiAnalyzer
from gateway.guardrails.record_names import RecordNameRecognizer


def names(text: str) -> list[str]:
    return [text[r.start : r.end] for r in RecordNameRecognizer().analyze(text, ["PERSON"])]


def test_hl7_patient_mother_and_alias_names_are_people() -> None:
    text = (
        "MSH|^~\\&|LAB|NORTH CLINIC|EHR|NC|202311020915||ADT^A04|MSG1|P|2.5\r"
        "PID|1||552019^^^NC^MR||WOJCIK-BRANDT^HALINA^M^^^^L|OSTROWSKA^ZOFIA|19580311|F|NOWAK^H~HB^^\r"
        "NK1|1|WOJCIK^PAWEL|SPO\n"
    )
    assert names(text) == ["WOJCIK-BRANDT^HALINA^M", "OSTROWSKA^ZOFIA", "NOWAK^H", "HB", "WOJCIK^PAWEL"]


def test_hl7_fields_that_are_no_names_stay_out() -> None:
    # PID-3 is an identifier, PID-7 a date; an empty PID-5 and a name of carets alone are nothing.
    assert names("PID|1||552019^^^NC^MR||^^^|||M|||Hafenstr. 4^^Kiel\n") == []
    assert names("OBX|1|ST|NAME^Display||SMITH^JOHN|\n") == []  # not a name segment


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("PASSENGER: OKAFOR/CHIDI MR\nSEAT 14C", "OKAFOR/CHIDI"),
        ("Name on ticket: NWOSU/K MRS", "NWOSU/K"),  # an initial, but a titled pair
        ("pax ODUYA/ADAEZE, seat 3A", "ODUYA/ADAEZE"),  # no title: the given side is a known first name
        ("BOOKED: LINDQVIST/ANNA MARIA MS", "LINDQVIST/ANNA MARIA"),
        # a reservation's name element: the passenger count before the family name, and a title glued on
        (".NBORRKQ 211321\nE576AB\n1HERAWATI/RINI MS\nFP CC", "HERAWATI/RINI"),
        ("1.1DLEZZ/EUNJUMS\n", "DLEZZ/EUNJU"),
        ("NAME OKAFOR/CHIDIMR\nSEAT 3A", "OKAFOR/CHIDI"),
    ],
)
def test_ticket_names_are_people_without_their_title(text: str, name: str) -> None:
    assert names(text) == [name]


@pytest.mark.parametrize(
    "text",
    [
        "Enter your VAT/ID and DNI/NIE below",  # short codes, no title
        "Position: LONG/SHORT, access READ/WRITE, sex MALE/FEMALE",  # words that are last names, no first name after
        "see /usr/LIB/PYTHON and A/B testing",
        "TCP/UDP ports",
        "VISA/MC: 4615 3730 5171 4000",  # card brands
        "SSR DOCS YY HK1/P////20APR98/F//\nSSR CTCM YY HK1/NI\n2FA/MFA",  # codes after a segment's status count
    ],
)
def test_pairs_of_codes_and_words_are_no_ticket_names(text: str) -> None:
    assert names(text) == []


def test_a_ticket_name_is_a_person_and_no_secret(analyzer: PiiAnalyzer) -> None:
    text = "E-TICKET\nPASSENGER: OKAFOR/CHIDI MR\nFARE: FLEX"
    found = {(f.entity_type, text[f.start : f.end]) for f in analyzer.analyze(text) if f.score >= 0.5}
    assert ("PERSON", "OKAFOR/CHIDI") in found
    assert not any(entity == "SECRET" for entity, _ in found)


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("ATTENDEE;ROLE=REQ-PARTICIPANT;CN=Lusine Harutyun:mailto:lh@acme.example\n", "Lusine Harutyun"),
        ('ORGANIZER;CN="Oyelaran Adebisi":mailto:oa@acme.example\n', "Oyelaran Adebisi"),
        ("BEGIN:VCARD\nVERSION:3.0\nFN:Wiremu Tamihana\nEND:VCARD\n", "Wiremu Tamihana"),
        ("BEGIN:VCARD\nN:Tamihana;Wiremu;;;\nEND:VCARD\n", "Tamihana;Wiremu"),
        ("dn: uid=kt,ou=People,dc=acme\ndisplayName: Kahurangi Tuhoe\n", "Kahurangi Tuhoe"),
        ("memberOf: cn=Kahurangi Tuhoe,ou=People,dc=acme,dc=example", "Kahurangi Tuhoe"),
        ("WEBVTT\n\n00:09:59.664 --> 00:10:08.135\n<v Milù Cabdilahi>freeze starts Monday</v>\n", "Milù Cabdilahi"),
        ("00:00:01.000 --> 00:00:02.000\n<v.loud Esme>Stop!</v>\n", "Esme"),
    ],
)
def test_name_properties_of_calendar_contact_and_directory_entries(text: str, name: str) -> None:
    assert name in names(text)


@pytest.mark.parametrize(
    "text",
    [
        "ATTENDEE;CN=Conference Room:mailto:room@acme.example\n",  # a room
        "ATTENDEE;CN=Billing Team:mailto:billing@acme.example\n",  # a team
        "subject=CN=www.acme.example, O=Acme",  # a host
        "memberOf: cn=Domain Users,ou=Groups,dc=acme,dc=example",  # a group of ordinary words
        "cn: svc-backup\ndisplayName: Room 4B\n",  # a service account, a room number
        "SUMMARY:Site visit\nDESCRIPTION:see the Claim notes\n",  # other properties
        "00:00:01.000 --> 00:00:02.000\n<v Speaker 2>ok</v>\n<v Support Team>hi</v>\n",  # numbered speakers, a team
    ],
)
def test_properties_holding_no_person_stay_out(text: str) -> None:
    assert names(text) == []
