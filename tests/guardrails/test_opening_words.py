"""opening_words: a frequent word opening a line or a sentence is no person, nor a person's first word."""

from gateway.guardrails.findings import Finding
from gateway.guardrails.opening_words import is_opening_word, opens_a_sentence, without_opening_words


def _person(text: str, span: str) -> Finding:
    start = text.index(span)
    return Finding("PERSON", start, start + len(span), 0.85, "ner")


def _spans(text: str, findings: list[Finding]) -> list[str]:
    return [text[f.start : f.end] for f in without_opening_words(text, findings)]


def test_a_frequent_word_opening_a_message_is_no_person() -> None:
    text = "Szukam mieszkania w Krakowie, DM me."
    assert _spans(text, [_person(text, "Szukam")]) == []


def test_an_opening_word_after_a_line_break_or_a_sentence_end() -> None:
    text = "Ele volta amanhã.\nAbraço, Beatriz"
    assert _spans(text, [_person(text, "Abraço"), _person(text, "Beatriz")]) == ["Beatriz"]
    text = "Alles klar. Tolle Wohnung, danke!"
    assert _spans(text, [_person(text, "Tolle")]) == []


def test_the_name_after_an_opening_word_stays() -> None:
    text = "Selon Matthieu, la priorité reste l'emploi."
    assert _spans(text, [_person(text, "Selon Matthieu")]) == ["Matthieu"]
    text = "Declaración de Rosemarie Klingelhöfer, nacida el 22 de febrero de 1947."
    assert _spans(text, [_person(text, "Declaración de Rosemarie Klingelhöfer")]) == ["Rosemarie Klingelhöfer"]


def test_a_first_name_or_a_title_opening_a_person_stays() -> None:
    text = "Lucca Lima chegou ontem. Herr Weller ruft an."
    people = [_person(text, "Lucca Lima"), _person(text, "Herr Weller")]
    assert _spans(text, people) == ["Lucca Lima", "Herr Weller"]


def test_a_full_stop_after_a_title_or_an_initial_ends_no_sentence() -> None:
    text = "Da lunedì il dott. Eco entrerà in ufficio."
    assert _spans(text, [_person(text, "Eco")]) == ["Eco"]
    assert not opens_a_sentence("Ask J. Patient", len("Ask J. "))


def test_a_person_left_with_no_capitalised_word_is_dropped() -> None:
    text = "Chers parents, la sortie est annulée."
    assert _spans(text, [_person(text, "Chers parents")]) == []


def test_a_given_or_family_name_opening_a_sentence_stays() -> None:
    text = "Rosa kommt morgen. Costa sagt ja. Mark Weber ruft an."
    people = [_person(text, "Rosa"), _person(text, "Costa"), _person(text, "Mark Weber")]
    assert _spans(text, people) == ["Rosa", "Costa", "Mark Weber"]


def test_a_frequent_word_inside_a_sentence_is_left_to_the_other_rules() -> None:
    text = "Wir haben Tolle gefragt."
    assert _spans(text, [_person(text, "Tolle")]) == ["Tolle"]
    assert not opens_a_sentence(text, text.index("Tolle"))


def test_other_types_and_odd_input_are_untouched() -> None:
    text = "Vendo casa"
    place = Finding("LOCATION", 0, 5, 0.85, "ner")
    assert without_opening_words(text, [place]) == [place]
    assert not is_opening_word("vendo")  # a lower-case word: the case tells it from a name elsewhere
    assert not is_opening_word("")
    odd = "\x00\n\u200bVendo"
    assert isinstance(without_opening_words(odd, [Finding("PERSON", 0, len(odd), 0.9, "ner")]), list)
