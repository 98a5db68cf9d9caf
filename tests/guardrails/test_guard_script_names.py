"""PERSON in scripts without capitals: a given and a family name of names-dataset's tables (the snapshot
gateway/guardrails/data/script_names.json.gz), in Hebrew, Arabic, Persian, Devanagari, Bengali and Thai."""

import importlib
import random
import unicodedata

import pytest

from gateway.guardrails.analyzer import PiiAnalyzer
from gateway.guardrails.record_names import RecordNameRecognizer, has_record_name_anchor
from gateway.guardrails.script_names import has_script_letters, script_names, script_person_names


def names(text: str) -> list[str]:
    return [text[start:end] for start, end in script_person_names(text)]


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("MaintainerName=דוד לוי\n", "דוד לוי"),  # Hebrew, in a key=value line
        ('owner = "محمد الزهراني"', "محمد الزهراني"),  # Arabic
        ('owner = "محمد"', None),  # a given name and no family name: nothing
        ("[10:02] dana: דיברתי עם נועה כהן היום", "נועה כהן"),  # inside a Hebrew sentence
        ("μίλησα με τον דוד כהן σήμερα", "דוד כהן"),  # a Hebrew name inside Greek
        ("<Nm>فاطمة احمدی</Nm>", "فاطمة احمدی"),  # Arabic given name, Persian family name
        ("assignee: अनिल शर्मा", "अनिल शर्मा"),  # Devanagari: vowel signs are marks, not word breaks
        ("রহিম ইসলাম: [music]", "রহিম ইসলাম"),  # Bengali speaker label
        ("תעביר לরহিম ইসলাম את הקובץ", "রহিম ইসলাম"),  # a Hebrew preposition glued to a Bengali name
        ('contact_person: "حليم آل علي"', "حليم آل علي"),  # a family name of two stop words ("family of", "Ali")
        ('display_name = "زهير ولی زاده"', "زهير ولی زاده"),  # a family name of two words
        ("ﻣﺤﻤﺪ الزهراني", "ﻣﺤﻤﺪ الزهراني"),  # Arabic presentation forms, which fold into the tables' letters
    ],
)
def test_a_given_and_a_family_name_in_a_caseless_script(text: str, name: str | None) -> None:
    assert names(text) == ([name] if name else [])


def _thai(names: frozenset[tuple[str, ...]]) -> list[str]:
    return sorted(entry[0] for entry in names if len(entry) == 1 and "\u0e01" <= entry[0][0] <= "\u0e7f")


def _thai_given_with_sara_am() -> str:
    """A Thai given name of the tables holding nikhahit and sara aa, written with sara am as texts write it."""
    folded = next(name for name in _thai(script_names().given) if "\u0e4d\u0e32" in name)
    return folded.replace("\u0e4d\u0e32", "\u0e33")


def test_thai_given_and_family_name_from_the_tables() -> None:
    given, family = _thai(script_names().given)[0], _thai(script_names().family)[0]
    text = f'holder="{given} {family}" seq="554"'
    assert names(text) == [f"{given} {family}"]


def test_a_raw_letter_that_folds_into_the_tables_is_part_of_the_word() -> None:
    # The tables are kept folded: Thai sara am (U+0E33) is nikhahit and sara aa there.
    given = _thai_given_with_sara_am()
    family = _thai(script_names().family)[0]
    assert names(f"- ask {given} {family} now") == [f"{given} {family}"]


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


def test_random_words_of_each_language_are_seldom_names() -> None:
    # Faker's lorem word lists of these languages, 5,000 words each in a random order: pairs of ordinary words that
    # the tables' stop-word filter and pair rule leave alone but for a few. names-dataset's tables hold some words of
    # Facebook display names ("তোমাকে", "to you", among Bangladesh's 300 commonest given names): at most one pair in
    # 200 reads as a name.
    for locale in ("he_IL", "ar_AA", "fa_IR", "bn_BD", "th_TH"):
        words = importlib.import_module(f"faker.providers.lorem.{locale}").Provider.word_list
        rng = random.Random(locale)
        assert len(names(" ".join(rng.choice(words) for _ in range(5_000)))) <= 25, locale


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
    # The reader view folds Thai sara am (U+0E33) into nikhahit and sara aa (NFKC), as the tables are kept.
    given = _thai_given_with_sara_am()
    family = _thai(script_names().family)[0]
    assert unicodedata.normalize("NFKC", given) != given
    text = f"- ask {given} {family} about the handover\n"
    people = [text[f.start : f.end] for f in analyzer.analyze(text, ner_enabled=False) if f.entity_type == "PERSON"]
    assert people == [f"{given} {family}"]
