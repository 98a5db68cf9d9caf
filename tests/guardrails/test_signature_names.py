"""Names an e-mail's layout points at, whatever its words (``name_cues``): the line after a closing no list holds,
past a blank line or a signature's delimiter ("-- "), in a quoted reply too; the text's last line after a one-line
message; a display name before an address in angle brackets; and names written with a nickname in quotes
(``name_lists``). A closing signed by a team, a desk or a company, and lower-case words after a cue in a line its
writer capitalises, name nobody."""

from __future__ import annotations

import pytest

from gateway.guardrails import PiiAnalyzer


def people(analyzer: PiiAnalyzer, text: str) -> list[str]:
    return [text[f.start : f.end] for f in analyzer.analyze(text, ner_enabled=True)
            if f.entity_type == "PERSON" and f.score >= 0.5]  # fmt: skip


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Please find the quote attached.\n\nBest wishes,\nPeter", "Peter"),
        ("Apologies for the delay.\n\nKind regards,\n-- \nJanaki\n\nSent from my iPhone", "Janaki"),
        ("Gentili colleghi,\n\nallego il verbale.\n\nUn caro saluto,\n\nMarco", "Marco"),
        ("Happy to jump on a call.\n\nAppreciate it,\n-- \nSMITH William", "SMITH William"),
        ("Hej,\n\nvedhæftet er det opdaterede tilbud.\n\nMvh.\nQIAN Guiying", "QIAN Guiying"),  # an unlisted given name
        ("Z poważaniem,\n-- \nALEMDAR Aksoy\nDział Kadr", "ALEMDAR Aksoy"),  # a family name given second
        ("Minutes attached.\n\nAll the best,\n\nA. Brown", "A. Brown"),
        ("Sounds good.\n\n> Minutes attached.\n>\n> -- \n> Frances Ivory\n> VP Engineering", "Frances Ivory"),
        ("Låter bra, tack.\n\nYuki", "Yuki"),
    ],
)  # fmt: skip
def test_the_name_line_of_a_signature(analyzer: PiiAnalyzer, text: str, name: str) -> None:
    assert name in people(analyzer, text)


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Ok.\n\nAm 04.03.2025 um 10:12 schrieb Beatriz Aguirre <b.aguirre@example.ch>:\n\n> Hallo", "Beatriz Aguirre"),
        ("Done.\n\nOn Tue, 4 Mar 2025 at 10:12, O'BRIEN Connor <c.obrien@example.ie> wrote:", "O'BRIEN Connor"),
    ],
)  # fmt: skip
def test_the_display_name_before_an_address(analyzer: PiiAnalyzer, text: str, name: str) -> None:
    assert name in people(analyzer, text)


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ('All the best,\n\u00a0\nRobert "Christine" Hooper', 'Robert "Christine" Hooper'),
        ('*Ine "Kenny" De Ryck*\nCelular: 011 2346-3450', 'Ine "Kenny" De Ryck'),
        ("Nanna “Selma” Andersen · Tlf.: +45 32 14 63 86", "Nanna “Selma” Andersen"),
    ],
)
def test_a_name_with_a_nickname_in_quotes(analyzer: PiiAnalyzer, text: str, name: str) -> None:
    assert name in people(analyzer, text)


@pytest.mark.parametrize(
    "text",
    [
        "Thanks for the update.\n\nKind regards,\nThe Billing Team",
        "Ik stuur je de notulen.\n\nMet vriendelijke groet,\nDe Servicedesk\nBrightwater Advies BV",
        "Gracias.\n\nSaludos,\nDepartamento de Facturación",
        "Thanks!\n\nBest,\nFinance",
        "Thanks!\n\nRegards,\nSAP Consulting",
        "Ok.\n\nFrom: Billing <billing@example.com>\nSubject: Invoice",
        'Click "Save" Button to continue.',
        "Hallo,\n\nbedankt voor je snelle reactie.",
        "Se lo avete ricevuto per errore, cancellatelo.",
        "Beste collega's,\n\nin de bijlage vindt u de offerte.",
        "Gentili colleghi,\n\ngrazie per la risposta.\n\nUn caro saluto,",
        "let's sync after\nty!\nok cool",
    ],
)
def test_no_person_where_a_team_or_a_capitalising_writer_stands(analyzer: PiiAnalyzer, text: str) -> None:
    assert people(analyzer, text) == []


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("[10:42] Ana: thx ruben", "ruben"),
        ("esther ouma-muema said its fine key is xoxb-2441048794391-7IllaoCLMI0azbV0Vv2V1Flk dont share",
         "esther ouma-muema"),
    ],
)  # fmt: skip
def test_lower_case_names_in_lines_typed_in_lower_case(analyzer: PiiAnalyzer, text: str, name: str) -> None:
    assert name in people(analyzer, text)
