"""The stop-word language signals (``gateway.guardrails.language``): one home for the German-only stop words the NER
confirmations and the place rules read."""

from __future__ import annotations

from gateway.guardrails import language, places
from gateway.guardrails.language import GERMAN_ONLY_STOP_WORDS, is_german


def test_german_only_stop_words_are_no_other_languages_and_come_folded_too():
    assert {"und", "nicht", "auch", "groß", "gross", "daß", "dass"} <= GERMAN_ONLY_STOP_WORDS
    # Italian "da", English "was", Portuguese "das" and "um": one of these alone says no language
    assert not {"da", "was", "das", "um", "in", "die"} & GERMAN_ONLY_STOP_WORDS


def test_the_german_vote_counts_das_and_um():
    assert is_german("IT09 S795 ist das Konto des Lieferanten.")
    assert is_german("Wir treffen uns um acht.")
    assert not is_german("A casa das flores fica em Lisboa.")
    assert not is_german("Nous avons reçu votre demande avant vendredi.")


def test_places_read_the_same_set():
    assert places.GERMAN_ONLY_STOP_WORDS is language.GERMAN_ONLY_STOP_WORDS
    assert places.german_around("Sie wohnt nicht mehr in Lage und arbeitet dort.", 20, 24)
    assert not places.german_around("A casa das flores fica em Lage, perto do rio.", 26, 30)


def test_the_european_vote_reads_seven_languages_against_english():
    assert language.is_european("Juventus wygrywa u siebie.")  # Polish
    assert language.is_european("Benfica verliest opnieuw.")  # Dutch
    assert language.is_european("Il mio ordine per Roma non è mai arrivato.")  # Italian
    assert language.is_european("Piso en venta en Guadalajara, 3 habitaciones")  # Spanish
    assert not language.is_european("Ludwig van Beethoven wrote it in Vienna.")
    assert not language.is_european("Met Anna de Vries at the office on Monday.")
