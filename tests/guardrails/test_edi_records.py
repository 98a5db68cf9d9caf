"""UN/EDIFACT segments (``gateway.guardrails.edi_records``): NAD party names, streets and towns, DTM+329 birth dates,
LOC+180 places of birth; the release character and a service string advice's separators. The segments follow the
shapes of the standard's PAXLST (passenger list) and IFTMIN (instruction) messages."""

from gateway.guardrails.analyzer import PiiAnalyzer
from gateway.guardrails.edi_records import edifact_values, has_edifact, x12_places

PAXLST = """UNA:+.? '
UNB+UNOA:4+AIRLINE1+USCSAPIS+240607:1200+000000001++USADHS'
UNH+PAX001+PAXLST:D:02B:UN:IATA+API01'
BGM+250'
NAD+FL+++DOE:JOHN:WILLIAM+123 E MAIN ST+NEW YORK+NY+10001+USA'
ATT+2++M'
DTM+329:560415'
LOC+178+JFK'
LOC+180+USA:::BROOKLYN'
NAT+2+USA'
UNT+10+PAX001'
UNZ+1+000000001'"""


def values(text: str) -> list[tuple[str, str]]:
    return [(entity, text[start:end]) for entity, start, end in edifact_values(text)]


def test_passenger_list() -> None:
    assert values(PAXLST) == [
        ("PERSON", "DOE"), ("PERSON", "JOHN"), ("PERSON", "WILLIAM"), ("STREET_ADDRESS", "123 E MAIN ST"),
        ("LOCATION", "NEW YORK"), ("DATE_OF_BIRTH", "560415"), ("LOCATION", "BROOKLYN")]  # fmt: skip


def test_released_characters_stay_in_the_value() -> None:
    text = "NAD+CN+++O?'Brien:Mary?+Ann+12 Quay St?: Unit 4+Cork'\nDTM+329:19610312:102'"
    assert values(text) == [("PERSON", "O?'Brien"), ("PERSON", "Mary?+Ann"), ("STREET_ADDRESS", "12 Quay St?: Unit 4"),
                            ("LOCATION", "Cork"), ("DATE_OF_BIRTH", "19610312")]  # fmt: skip


def test_other_qualifiers_and_organisations_are_left() -> None:
    text = (
        "DTM+137:202406071200:203'DTM+2:20240610:102'LOC+178+JFK'LOC+5+:::PARIS'"
        "NAD+CZ+++ACME LOGISTICS GMBH+HAFENSTR 4+HAMBURG'"
    )
    # the sender's street and town are still an address; a company is no person
    assert values(text) == [("STREET_ADDRESS", "HAFENSTR 4"), ("LOCATION", "HAMBURG")]


def test_a_service_string_advice_names_other_separators() -> None:
    text = "UNA|*.# ~NAD*FL***NOVAK|PETRA*DLOUHA 5*PRAHA~DTM*329|19700101|102~"
    assert values(text) == [("PERSON", "NOVAK"), ("PERSON", "PETRA"), ("STREET_ADDRESS", "DLOUHA 5"),
                            ("LOCATION", "PRAHA"), ("DATE_OF_BIRTH", "19700101")]  # fmt: skip


def test_no_segment_inside_words_or_prose() -> None:
    assert not has_edifact("The nad of the curve and the date.")
    assert values("GRAND+CN+++SMITH:JOHN'") == []  # "NAD" glued inside another word is no segment


def test_through_the_analyzer(analyzer: PiiAnalyzer) -> None:
    found = {(f.entity_type, PAXLST[f.start : f.end]) for f in analyzer.analyze(PAXLST) if f.score >= 0.5}
    assert {("PERSON", "DOE"), ("DATE_OF_BIRTH", "560415"), ("LOCATION", "BROOKLYN")} <= found


def test_x12_n4_city_names() -> None:
    text = (
        "NM1*85*2*BEN KILDARE SERVICE*****XX*9876543210~\nN3*234 SEAWAY ST~\nN4*MIAMI*FL*33111~\n"
        "NM1*IL*1*SMITH*JANE****MI*JS00111223333~N4*KANSAS CITY*MO*64108~"
        "REF*EI*587654321~AN4*NOT A SEGMENT*XX~N4***64108~"
    )
    assert [text[start:end] for _, start, end in x12_places(text)] == ["MIAMI", "KANSAS CITY"]


def test_communication_contacts_by_their_qualifier() -> None:
    # COM's address by its qualifier (UNTDID 3155): EM an e-mail, TE/FX/AL a phone; released characters stay in the
    # span ("?+44"), and hide the value from the patterns: the slot reports it
    text = (
        "UNA:+.? '\nCOM+ann?+news@example.org:EM'\nCOM+?+44 20 7946 0958:TE'\nCOM+072 373 523:AL'\n"
        "COM+www.example.org:AH'\nCOM+12:TE'\nCOM+not an address:EM'\nCOM+sales@example.org'"
    )
    assert values(text) == [("EMAIL_ADDRESS", "ann?+news@example.org"), ("PHONE_NUMBER", "?+44 20 7946 0958"),
                            ("PHONE_NUMBER", "072 373 523")]  # fmt: skip


def test_communication_contacts_through_the_analyzer(analyzer: PiiAnalyzer) -> None:
    text = "UNH+1+IFTMIN:D:04A:UN'\nCOM+snezana?+test@abreu.example.com:EM'\nCOM+?+855 91 286 137:TE'\nUNT+3+1'"
    found = {(f.entity_type, text[f.start : f.end]) for f in analyzer.analyze(text) if f.score >= 0.5}
    assert {("EMAIL_ADDRESS", "snezana?+test@abreu.example.com"), ("PHONE_NUMBER", "?+855 91 286 137")} <= found
