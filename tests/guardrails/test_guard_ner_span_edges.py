"""NER person spans cut to the name: no '@', quotes, tab-separated column or sentence words around it."""

import pytest

from gateway.guardrails.analyzer import PiiAnalyzer
from gateway.guardrails.ner import person_spans


def cut(span: str, text_after: str = " Done.") -> list[str]:
    text = span + text_after
    return [text[start:end] for start, end in person_spans(text, 0, len(span))]


@pytest.mark.parametrize(
    ("span", "names"),
    [
        ("@K. L. Ferreira", ["K. L. Ferreira"]),  # a mention
        ('"Ilse Brandstätter"', ["Ilse Brandstätter"]),
        ("Bożena T.'", ["Bożena T."]),
        ("Ferreira\tSales", ["Ferreira", "Sales"]),  # columns of a TSV row, each judged alone
        ("@Wojtek R. możesz sprawdzić", ["Wojtek R."]),  # the sentence goes on in lower case
        ("Ingrid B. tu", ["Ingrid B."]),  # a short word at the end is no particle: particles open surnames
        ("Ottavio al telefono", ["Ottavio"]),
        ("Maria della Rosa", ["Maria della Rosa"]),  # particles inside a name stay
        ("Ludwig van Beethoven", ["Ludwig van Beethoven"]),
    ],
)
def test_person_spans_keep_the_name_alone(span: str, names: list[str]) -> None:
    assert cut(span) == names


def test_lower_case_text_keeps_its_lower_case_names() -> None:
    text = "ok ask olga prus di"
    assert [text[s:e] for s, e in person_spans(text, 7, len(text))] == ["olga prus di"]


def test_a_mention_with_the_sentence_after_it_is_a_person(analyzer: PiiAnalyzer) -> None:
    # Both models read "Ingrid B. tu" as the person: whole, its last word is no name word and it was dropped.
    text = "@Ingrid B. tu peux regarder ?"
    people = {text[f.start : f.end] for f in analyzer.analyze(text) if f.entity_type == "PERSON" and f.score >= 0.5}
    assert people == {"Ingrid B."}
