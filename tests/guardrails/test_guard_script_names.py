"""PERSON in scripts without capitals: a given and a family name of Faker's person tables, in Hebrew, Arabic,
Persian, Devanagari, Bengali and Thai."""

import importlib
import random

import pytest

from gateway.guardrails.analyzer import PiiAnalyzer
from gateway.guardrails.record_names import RecordNameRecognizer, has_record_name_anchor
from gateway.guardrails.script_names import has_script_letters, script_person_names


def names(text: str) -> list[str]:
    return [text[start:end] for start, end in script_person_names(text)]


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("MaintainerName=דוד לוי\n", "דוד לוי"),  # Hebrew, in a key=value line
        ('owner = "محمد الزهراني"', None),  # a given name and no family name the tables hold: nothing
        ("[10:02] dana: דיברתי עם נועה כהן היום", "נועה כהן"),  # inside a Hebrew sentence
        ("μίλησα με τον דוד כהן σήμερα", "דוד כהן"),  # a Hebrew name inside Greek
        ("<Nm>فاطمة احمدی</Nm>", "فاطمة احمدی"),  # Arabic given name, Persian family name
        ("assignee: सीता शर्मा", "सीता शर्मा"),  # Devanagari: vowel signs are marks, not word breaks
        ("রহিম ইসলাম: [music]", "রহিম ইসলাম"),  # Bengali speaker label
        ("תעביר לরহিম ইসলাম את הקובץ", "রহিম ইসলাম"),  # a Hebrew preposition glued to a Bengali name
        ('contact_person: "حليم آل علي"', "حليم آل علي"),  # a family name of two stop words ("family of", "Ali")
        ('display_name = "زهير آل محمد بن علي بن جماز"', "زهير آل محمد بن علي بن جماز"),  # six words of family name
    ],
)
def test_a_given_and_a_family_name_in_a_caseless_script(text: str, name: str | None) -> None:
    assert names(text) == ([name] if name else [])


def test_thai_given_and_family_name_from_the_tables() -> None:
    provider = importlib.import_module("faker.providers.person.th_TH").Provider
    given, family = provider.first_names_male[0], provider.last_names[0]
    text = f'holder="{given} {family}" seq="554"'
    assert names(text) == [f"{given} {family}"]


def test_vowel_points_are_compared_without_them() -> None:
    assert names("נִיר כהן הגיע") == ["נִיר כהן"]  # niqqud on the given name, which the table writes without


@pytest.mark.parametrize(
    "text",
    [
        "יהודה הלוי 85, בני ציון",  # a street named after a person, its house number after it
        "83 मोहन सुब्रमण्यम\nमुंबई 983867",  # an Indian address: the number before the name
        "נועהכהן",  # no space between: one word, no name
        "שלוםנועה כהןבית",  # letters glued to both ends
        "Latin text only: Noa Cohen met David Levi.",
    ],
)
def test_no_name_beside_a_house_number_or_inside_a_word(text: str) -> None:
    assert names(text) == []


def test_random_words_of_each_language_are_no_names() -> None:
    # Faker's lorem word lists of these languages, 5,000 words each in a random order: pairs of ordinary words
    # that the tables' stop-word filter and pair rule must leave alone.
    for locale in ("he_IL", "ar_AA", "fa_IR", "bn_BD", "th_TH"):
        words = importlib.import_module(f"faker.providers.lorem.{locale}").Provider.word_list
        rng = random.Random(locale)
        assert names(" ".join(rng.choice(words) for _ in range(5_000))) == [], locale


def test_the_prefilter_needs_a_letter_of_the_tables() -> None:
    assert not has_script_letters("Noa Cohen, 12 Main St, 2024-01-02 — ünïcödé Ελληνικά Кириллица 中文")
    assert has_script_letters("x דוד")
    assert has_record_name_anchor("x דוד")


def test_the_recognizer_reports_script_names() -> None:
    found = RecordNameRecognizer().analyze("MaintainerName=דוד לוי\n", ["PERSON"])
    assert [(r.start, r.end, r.entity_type) for r in found] == [(15, 22, "PERSON")]


def test_a_script_name_is_a_finding_of_the_analyzer(analyzer: PiiAnalyzer) -> None:
    text = 'displayName: "נועה כהן"\nmodel: "Tesla Model 3"\n'
    people = [text[f.start : f.end] for f in analyzer.analyze(text, ner_enabled=False) if f.entity_type == "PERSON"]
    assert people == ["נועה כהן"]


def test_a_name_is_read_in_the_analyzers_folded_view(analyzer: PiiAnalyzer) -> None:
    # The reader view folds Thai sara am (U+0E33) into nikhahit and sara aa (NFKC): the tables are compared folded too.
    provider = importlib.import_module("faker.providers.person.th_TH").Provider
    given = next(name for name in provider.first_names_male if "\u0e33" in name)
    text = f"- ask {given} {provider.last_names[0]} about the handover\n"
    people = [text[f.start : f.end] for f in analyzer.analyze(text, ner_enabled=False) if f.entity_type == "PERSON"]
    assert people == [f"{given} {provider.last_names[0]}"]
