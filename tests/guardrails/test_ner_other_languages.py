"""A model's person that is one word of another language opening a sentence, which no names list backs
(``ner._unlisted_in_other_language``): "Sprzedam mieszkanie", "Juventus wygrywa", "Piso en venta" are no people; a
common given name, a known surname, a title, a name of two words and English text keep theirs."""

import pytest

from gateway.guardrails import PiiAnalyzer
from gateway.guardrails.ner import _mostly_foreign, _unlisted_in_other_language


def people(analyzer: PiiAnalyzer, text: str) -> list[str]:
    found = analyzer.analyze(text, ner_enabled=True)
    return [text[f.start : f.end] for f in found if f.entity_type == "PERSON" and f.score >= 0.5]


@pytest.mark.parametrize(
    ("text", "word"),
    [("Sprzedam mieszkanie, ul. Nadbrzeżna 76, Szczecin. Kontakt: Michał Dydak.\nPociąg jest opóźniony.", "Sprzedam"),
     ("Pogoda: słonecznie, 22 stopnie.\nNowy adres: pl. Partyzantów 31/61", "Nowy"),
     ("Juventus wygrywa u siebie. Na obiad: pierogi ruskie.", "Juventus"),
     ("Piso en venta en Guadalajara, 3 habitaciones. Pregunte por Raquel Estévez.", "Piso"),
     ("Bij de koffie: Edammer.\n\nBenfica verliest opnieuw.", "Benfica")],
)  # fmt: skip
def test_a_sentences_first_word_of_another_language_is_no_person(analyzer: PiiAnalyzer, text: str, word: str):
    assert not any(word in person for person in people(analyzer, text))


def whole(text: str, word: str) -> bool:
    start = text.index(word)
    return _unlisted_in_other_language(text, 0, len(text), start, start + len(word))


def test_names_lists_titles_two_words_and_english_keep_the_person():
    assert whole("Sprzedam mieszkanie, ulica Pogodna 84/54.", "Sprzedam")  # the rule's case, for contrast
    assert not whole("Kasia przeprowadza się do Gdańska w maju.", "Kasia")  # a common given name
    assert not whole("Kowalski przeprowadza się do Gdańska w maju.", "Kowalski")  # a known surname
    assert not whole("Dzień dobry, pan Sprzedam przeprowadza się.", "Sprzedam")  # mid-sentence, after a title
    assert not whole("Wiryanto called back and said the parcel never arrived.", "Wiryanto")  # English
    text = "Sprzedam Mieszkanie przeprowadza się do Gdańska."
    assert not _unlisted_in_other_language(text, 0, len(text), 0, len("Sprzedam Mieszkanie"))  # two words


def test_a_window_of_mostly_foreign_lower_case_words():
    assert _mostly_foreign("Rada miasta przyjęła budżet.")
    assert not _mostly_foreign("Ticket reopened: Hana called back and said the router never arrived in Paris.")
    assert not _mostly_foreign("kubectl rollout restart deploy/api -n prod")  # one word no dictionary holds
