"""NER people made of ordinary words of some language (``ordinary_phrases``): a desk, a job title, a greeting is no
person; a name of ordinary words with a given name, a title or an initial in it still is."""

import pytest

from gateway.guardrails import PiiAnalyzer
from gateway.guardrails.ordinary_phrases import holds_unnamed_word, reads_as_words


def people(analyzer: PiiAnalyzer, text: str) -> list[str]:
    return [text[f.start : f.end] for f in analyzer.analyze(text) if f.entity_type == "PERSON" and f.score >= 0.5]


@pytest.mark.parametrize("span", ["Customer Success", "Staff Engineer", "Risorse Umane", "Diretora Financeira",
                                  "Dział Kadr"])  # fmt: skip
def test_phrases_of_frequent_words_read_as_words(analyzer: PiiAnalyzer, span: str) -> None:
    assert reads_as_words(span, analyzer.ner.common_words)


@pytest.mark.parametrize("span", ["Grace Baker", "Rose Young", "Frau Koch", "A. Miller", "Miller",
                                  "Sittikorn Wannapaitoonsri"])  # fmt: skip
def test_names_of_ordinary_words_with_a_given_name_title_or_initial_do_not(analyzer: PiiAnalyzer, span: str) -> None:
    assert not reads_as_words(span, analyzer.ner.common_words)


def test_a_frequent_word_no_list_holds_as_a_name_is_unnamed() -> None:
    assert holds_unnamed_word("Leiterin Einkauf") and holds_unnamed_word("Szanowni Państwo")
    assert not holds_unnamed_word("Sittikorn Wannapaitoonsri")
    assert not holds_unnamed_word("Arnþóra P. Karimsdóttir")  # an initial is no word


@pytest.mark.parametrize(
    "text",
    [
        "Allego il verbale della riunione di oggi.\n\nA presto,\nRisorse Umane\nCorvexa Logistica S.r.l.s.",
        "Envio a ata da reunião de hoje.\n\nUm abraço,\nEquipe Financeira\nPolaris Soluções Ltda.",
        "service: CustomerAccount\nteam: Customer Success EMEA\nowner_team: Blue Squad\ntimezone: Asia/Tokyo\n",
        "Szanowni Państwo,\n\nprzesyłam notatkę z dzisiejszego spotkania.\n\nZ poważaniem,\nDział Kadr",
    ],
)
def test_desks_teams_and_greetings_are_no_people(analyzer: PiiAnalyzer, text: str) -> None:
    assert people(analyzer, text) == []


@pytest.mark.parametrize(
    ("text", "person"),
    [
        (
            "Allego il verbale della riunione di oggi.\n\nA presto,\nRosa Umberti\nCorvexa Logistica S.r.l.s.",
            "Rosa Umberti",
        ),
        ("service: CustomerAccount\nteam: Customer Success EMEA\nowner: Grace Baker\n", "Grace Baker"),
        (
            "Szanowni Państwo,\n\nprzesyłam notatkę.\n\nZ poważaniem,\nMałgorzata Wójcik\nDział Kadr",
            "Małgorzata Wójcik",
        ),
        ("La note de frais de Arnþóra P. Karimsdóttir est bloquée dans Concur.", "Arnþóra P. Karimsdóttir"),
    ],
)
def test_people_beside_them_are_still_found(analyzer: PiiAnalyzer, text: str, person: str) -> None:
    assert person in people(analyzer, text)


@pytest.mark.parametrize("span", ["Prezada Sra", "Gracias", "Ciao", "Sra"])
def test_greeting_sign_off_and_title_words_alone_read_as_words(span: str) -> None:
    assert reads_as_words(span, frozenset())


@pytest.mark.parametrize("span", ["Don", "Will", "Prezada Sra Melo", "Ciao Bella Rossi"])
def test_a_given_name_or_a_name_beside_greeting_words_does_not(span: str) -> None:
    assert not reads_as_words(span, frozenset())
