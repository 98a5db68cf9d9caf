"""LOCATION: country names in scripts other than Latin (with Hebrew's glued prepositions), a Latin name after a Hebrew
preposition joined by a hyphen, the names of markup elements, attributes and keys, a place that modifies the English
noun after it, and a town named like a first name before a family name."""

from collections.abc import Callable

import pytest

from gateway.guardrails.normalize import reader_view
from gateway.guardrails.places import PlaceRecognizer, is_markup_name, modifies_a_noun
from gateway.guardrails.script_places import (
    build_city_snapshot,
    build_snapshot,
    name_key,
    script_country_names,
    script_places,
)


@pytest.mark.parametrize(
    ("text", "place"),
    [("N4*Сао Томе и Принсипи*73276~", "Сао Томе и Принсипи"),  # Bulgarian (CLDR)
     ('homeRegion: "סרי לנקה"', "סרי לנקה"),  # Hebrew
     ("[07:12] avi: אני במוזמביק השבוע", "מוזמביק"),  # "in Mozambique": the preposition glued on
     ("<TwnNm>Χιλή</TwnNm>", "Χιλή"),  # Greek
     ("- The shipment left মালি on time", "মালি"),  # Bengali
     ('site="Нигер" seq="789"', "Нигер"),  # Serbian
     ("доставка до Шрі-Ланка завтра", "Шрі-Ланка"),  # Ukrainian, hyphenated
     ("N4*غے یونیوں*03247~", "غے یونیوں")],  # Urdu
)  # fmt: skip
def test_a_country_in_another_script_is_found(find_places: Callable[[str], list[str]], text: str, place: str) -> None:
    assert find_places(text) == [place]


@pytest.mark.parametrize(
    "text",
    ["Того же самого не скажешь",  # Russian "of that": a stop word, not Togo
     "мали дом на селу",  # Serbian "small", in lower case: not Mali
     "Σαββατοκύριακο στο σπίτι",  # a word holding no country name
     "אנימוזמביקית"],  # letters of a name inside a longer word
)  # fmt: skip
def test_a_word_of_another_script_is_no_country(find_places: Callable[[str], list[str]], text: str) -> None:
    assert find_places(text) == []


@pytest.mark.parametrize(
    ("text", "place"),
    [("N4*Сао Томе и Принсипи*73276~", "Сао Томе и Принсипи"),
     ("1/ACME COMERCIO LTDA\n3/BR/ГРЧКА\n4/19511210", "ГРЧКА"),
     ("site:Монсерат", "Монсерат")],
)  # fmt: skip
def test_a_country_the_reader_spells_with_latin_look_alikes_is_found(
    place_recognizer: PlaceRecognizer, text: str, place: str
) -> None:
    view = reader_view(text).text
    assert view != text  # the view reads the token holding ASCII as Latin look-alikes ("N4*Cao")
    assert [text[r.start : r.end] for r in place_recognizer.analyze(view, ["LOCATION"])] == [place]


@pytest.mark.parametrize(
    ("text", "place"),
    [("export BIRTH_CITY='ქუთაისი'", "ქუთაისი"),  # Georgian: its letters have capitals it never writes names with
     ("|birth city|Дархан|", "Дархан"),  # Mongolian Cyrillic
     ("shipment held in මොරටුව", "මොරටුව"),  # Sinhala
     ('"branch_city": "Գյումրի"', "Գյումրի"),  # Armenian
     ("実家は松本です", "松本"),  # Japanese: kanji between kana, no spaces
     ("ქუთაისიの支店に異動になりました", "ქუთაისი"),  # a Georgian name glued to Japanese
     ("customer relocated to Павлодар", "Павлодар"),  # Kazakh Cyrillic
     ("birth_city = 'ጊኔ'", "ጊኔ")],  # Amharic Guinea: two syllables, two letters
)  # fmt: skip
def test_a_city_or_country_in_its_own_script_is_found(
    find_places: Callable[[str], list[str]], text: str, place: str
) -> None:
    assert find_places(text) == [place]


@pytest.mark.parametrize(
    "text",
    ["総務に確認お願いします",  # kanji words that name no city
     "エスカルデスに行きました",  # a small foreign town's kana transliteration: left out of the table
     "平成14年3月20日",  # a kanji run after a digit: inside a longer token
     "ქუთაისელი"],  # a longer Georgian word (a person from Kutaisi)
)  # fmt: skip
def test_a_word_of_another_script_is_no_city(find_places: Callable[[str], list[str]], text: str) -> None:
    assert find_places(text) == []


def test_latin_text_never_reads_the_script_table() -> None:
    assert list(script_places("Flights to Lima and Sofia, " * 50)) == []


def test_the_snapshot_holds_names_of_other_scripts_only() -> None:
    names = script_country_names()
    written = ("סרי לנקה", "Χιλή", "Сао Томе и Принсипи", "Шрі-Ланка")
    assert set(map(name_key, written)) <= set(names)
    assert name_key("Sri Lanka") == "" and name_key("Шри Ланка") == name_key("ШРИ ЛАНКА") != ""


@pytest.mark.slow
def test_the_snapshot_equals_what_it_is_built_from() -> None:
    pytest.importorskip("babel")
    pytest.importorskip("pycountry")
    built = build_snapshot()["names"]
    assert isinstance(built, list)
    assert {name_key(name) for name in built} <= set(script_country_names())


@pytest.mark.slow
def test_the_city_snapshot_equals_what_it_is_built_from() -> None:
    pytest.importorskip("babel")
    pytest.importorskip("pycountry")
    built = build_city_snapshot()["names"]
    assert isinstance(built, list)
    countries = build_snapshot()["names"]
    assert isinstance(countries, list)
    assert {name_key(name) for name in [*built, *countries]} == set(script_country_names())


def test_a_latin_name_after_a_hebrew_preposition_and_hyphen_is_found(find_places: Callable[[str], list[str]]) -> None:
    assert find_places("[11:36] yoni: נוסעים ל-La Paz בסוף השבוע") == ["La Paz"]


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [("<Lima>total 4 029,80</Lima>", 1, 5),  # an element's name
     ("<Lima>total</Lima>", 13, 17),  # its closing tag
     ("<ns2:Lima>x</ns2:Lima>", 5, 9),  # with a namespace prefix
     ('<Amt Lima="EUR">4</Amt>', 5, 9),  # an attribute's name
     ('{"Lima": 4}', 2, 6),  # a JSON key
     ("Lima = 4\n", 0, 4)],  # an INI or TOML key
)  # fmt: skip
def test_markup_names_and_keys_are_no_place(text: str, start: int, end: int) -> None:
    assert is_markup_name(text, start, end)


@pytest.mark.parametrize(
    "text",
    ["<TwnNm>Lima</TwnNm>", '{"city": "Lima"}', "city = Lima\n", "Lima is lovely", "We met in Lima = fun"],
)
def test_a_place_as_a_value_is_no_markup_name(text: str) -> None:
    start = text.index("Lima")
    assert not is_markup_name(text, start, start + 4)


def test_a_place_named_tag_is_no_place_but_its_value_is(find_places: Callable[[str], list[str]]) -> None:
    assert find_places("<Manila>x</Manila>\n<TwnNm>Manila</TwnNm>") == ["Manila"]


@pytest.mark.parametrize(
    "text",
    ["like the Brussels sprouts", "put it in a Manila envelope", "he wore a Panama hat",
     "the Copenhagen interpretation of quantum mechanics", "Dijon mustard on the side"],
)  # fmt: skip
def test_a_place_modifying_a_noun_is_a_thing(find_places: Callable[[str], list[str]], text: str) -> None:
    assert find_places(text) == []


@pytest.mark.parametrize(
    ("text", "place"),
    [("stuck in Boston traffic", "Boston"),  # a location word before it
     ("Manila yesterday was hot", "Manila"),  # an adverb, no noun
     ("the Lyon office", "Lyon"),  # a place's office
     ("city: Manila envelope factory", "Manila"),  # a place's key
     ("cs2=Riga Novads act=allowed", "Riga"),  # the next field's key, not a noun
     ("Magazyn w Manila jest zamknięty", "Manila"),  # Polish "is", spelled like an English noun
     ("user Sayuri Suzuki not authorised for North Carolina records", "North Carolina"),  # records about it
     ("Fix tax rounding for Syria invoices", "Syria"),
     ("we lost two Ohio customers", "Ohio")],  # people of the place
)  # fmt: skip
def test_a_place_before_a_word_that_keeps_it_one(
    find_places: Callable[[str], list[str]], text: str, place: str
) -> None:
    start = text.index(place)
    assert not modifies_a_noun(text, start, start + len(place))
    assert place in find_places(text)


@pytest.mark.parametrize("text", ["Marfa Evdokimova called yesterday", "ask Marfa Petrović about it"])
def test_a_town_named_like_a_person_before_a_family_name_is_no_place(
    find_places: Callable[[str], list[str]], text: str
) -> None:
    assert find_places(text) == []


def test_a_town_before_a_country_stays_a_place(find_places: Callable[[str], list[str]]) -> None:
    assert "Sofia" in find_places("we landed in Sofia Bulgaria at noon")
