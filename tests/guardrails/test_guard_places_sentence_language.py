"""The place rules that lean on English word lists read the sentence's language first (``places.english_around``):
a compound with an English noun is English, a capitalised word opening a French or Spanish sentence may be that
language's word, and in German, which capitalises every noun, a capitalised word mid-sentence is no sign of a name."""

from collections.abc import Callable

import pytest

from gateway.guardrails.places import english_around, german_around, modifies_a_noun


@pytest.mark.parametrize(
    ("text", "place"),
    [("Volgens mij rijdt De Meern tram vandaag niet.", "De Meern"),  # Dutch: "tram" heads no English compound
     ("Selon lui Annecy race que vous aimez.", "Annecy"),  # French "race"
     ("Hier soir Annecy gala pour tous.", "Annecy")],
)  # fmt: skip
def test_a_place_before_a_noun_outside_an_english_compound_stays_one(
    find_places: Callable[[str], list[str]], text: str, place: str
) -> None:
    start = text.index(place)
    assert not modifies_a_noun(text, start, start + len(place))
    assert place in find_places(text)


@pytest.mark.parametrize(
    "text", ["like the Brussels sprouts", "put it in a Manila envelope", "kuin Jersey knit", "pesan Cheddar cheese",
             'sku_name="Mozambique drill" dur=327ms', "<ns2:BrandName>Oxford comma</ns2:BrandName>"]
)  # fmt: skip
def test_a_place_in_an_english_compound_is_still_a_thing(find_places: Callable[[str], list[str]], text: str) -> None:
    assert find_places(text) == []


@pytest.mark.parametrize(
    "text",
    ["Salida prevista a las diez de la mañana.",  # Spanish "departure"; Salida, Colorado: 13,700 people
     "Lachen ist gesund und macht Spaß.",  # German "laughing"; Lachen, Schwyz
     "Wissen ist Macht, sagt man.",
     "Wir treffen uns an der Stelle, wo der Weg endet."],  # mid-sentence, a German noun
)  # fmt: skip
def test_a_small_towns_name_that_is_a_word_of_the_sentences_language_is_no_place(
    find_places: Callable[[str], list[str]], text: str
) -> None:
    assert find_places(text) == []


@pytest.mark.parametrize(
    ("text", "place"),
    [("Salida reported two new cases this week.", "Salida"),  # English: a word unknown to English is a name
     ("Vivo en Salida desde hace diez años.", "Salida"),  # a location word before it
     ("Wir fahren morgen nach Stelle und bleiben dort.", "Stelle"),
     ("Er wohnt seit Jahren in Lachen am Zürichsee.", "Lachen"),
     ("Erkrath bleibt auch im Winter ruhig.", "Erkrath"),  # a town of 15,000 or more opening a German sentence
     ("[14:14] mreyes: Torniamo da Staden domenica.", "Staden"),  # Italian "da", no German stop word
     ("Shuttle ab Bahnhof Lobatera stündlich.", "Lobatera"),  # after a German noun: the noun's place
     ("Geburtsort: Uryv-Pokrovka  Die Summe beträgt €2,212.95.", "Uryv-Pokrovka")],  # a label's value
)  # fmt: skip
def test_a_small_town_with_a_cue_or_in_english_stays_a_place(
    find_places: Callable[[str], list[str]], text: str, place: str
) -> None:
    assert place in find_places(text)


def test_the_sentence_language_reads_lower_case_words_within_the_sentence() -> None:
    text = "The river runs past it. Lachen ist gesund und macht Spaß."
    start = text.index("Lachen")
    assert not english_around(text, start, start + 6)  # "The river runs past it." is another sentence
    assert german_around(text, start, start + 6)
    text = "Salida reported two new cases this week."
    assert english_around(text, 0, 6)
    assert not german_around(text, 0, 6)
