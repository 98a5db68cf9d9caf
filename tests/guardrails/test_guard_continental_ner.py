"""The continental NER pipeline (Warden's own multilingual model) on French, Spanish and German prose: the language
signal that routes windows to it, the names it adds, and the rules that keep the names it reports."""

from __future__ import annotations

import pytest

from gateway.guardrails import PiiAnalyzer
from gateway.guardrails import analyzer as analyzer_module
from gateway.guardrails.findings import Finding
from gateway.guardrails.language import is_continental
from gateway.guardrails.ner import CONTINENTAL_NER_SOURCE, SECOND_READING, NerModel
from gateway.guardrails.people import confirmed, line_parts


@pytest.mark.parametrize(
    "text",
    [
        "Nous avons reçu votre demande et nous allons la traiter avant vendredi.",
        "Creo que el informe llegará mañana, pero todavía no estoy seguro.",
        "Ich habe die Rechnung noch nicht bekommen, aber sie ist unterwegs.",
        "merci pour votre aide, je vous écris demain",
    ],
)
def test_french_spanish_and_german_prose_is_continental(text):
    assert is_continental(text)


@pytest.mark.parametrize(
    "text",
    [
        "We received your request and will handle it before Friday.",
        '{"user": "Maria Garcia", "city": "Lyon", "status": "ok"}',
        "2026-03-01T10:00:00Z ERROR payments.Settlement failed for id=42",
        "def handler(event, context):\n    return {'statusCode': 200}",
        "",
    ],
)
def test_english_code_json_and_logs_are_not_continental(text):
    assert not is_continental(text)


class _RecordingPipeline:
    """The real continental pipeline, recording what it is given."""

    def __init__(self, pipeline) -> None:
        self.pipeline = pipeline
        self.texts: list[str] = []

    def pipe(self, texts):
        texts = list(texts)
        self.texts.extend(texts)
        return self.pipeline.pipe(texts)

    @property
    def pipe_names(self):
        return self.pipeline.pipe_names


@pytest.fixture
def recording_ner(analyzer):
    """The shared analyzer's NER with its continental pipeline recorded; restored afterwards."""
    ner = analyzer.ner
    original = ner._continental
    recorder = _RecordingPipeline(original)
    ner._continental = recorder
    yield ner, recorder
    ner._continental = original


def test_continental_windows_and_english_ones_with_an_unlisted_word_reach_the_continental_pipeline(recording_ner):
    ner, recorder = recording_ner
    assert SECOND_READING == "unlisted"
    assert ner.continental_components == ["ner"]  # its NER embeds its own tok2vec, like the English one
    ner.find("Please ask Maria Garcia to retry the upload.")  # English words and listed names only
    ner.find('{"name": "Maria Garcia"}')
    assert recorder.texts == []
    ner.find("Bitte leite das an Emeka Obiora-Nwosu weiter, er kennt den Vertrag.")
    assert len(recorder.texts) == 1 and "Emeka Obiora-Nwosu" in recorder.texts[0]
    ner.find("Employee Wiryanto Hadiyanto has completed the probation period.")
    assert len(recorder.texts) == 2 and "Wiryanto Hadiyanto" in recorder.texts[1]


def test_read_everywhere_english_windows_give_the_continental_model_s_people_only():
    ner = NerModel(second_reading="all")
    recorder = _RecordingPipeline(ner._continental)
    ner._continental = recorder
    found = ner.find("Yesterday Maria Garcia flew from Berlin to Lisbon with Hiroshi Nguyen.")
    assert len(recorder.texts) == 1 and "Maria Garcia" in recorder.texts[0]
    assert {f.entity_type for f in found if f.source == CONTINENTAL_NER_SOURCE} <= {"PERSON"}
    ner.find("def handler(event, context):\n    return {'statusCode': 200}")
    assert len(recorder.texts) == 1  # no capitalised word that may be a name: no window, no model


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Bitte leite das an Emeka Obiora-Nwosu weiter.", "Emeka Obiora-Nwosu"),
        ("Por favor, reenvíalo a Bożena Wróblewska.", "Bożena Wróblewska"),
    ],
)
def test_the_continental_model_finds_names_the_english_one_misses(analyzer, monkeypatch, text, name):
    """Without cue phrases and name pairs (switched off here), only the models' reading of the sentence finds them."""
    monkeypatch.setattr(analyzer_module, "more_people", lambda *args, **kwargs: [])

    def people(pii: PiiAnalyzer) -> list[str]:
        return [text[f.start : f.end] for f in pii.analyze(text) if f.entity_type == "PERSON" and f.score >= 0.5]

    assert name in people(analyzer)
    assert name not in people(PiiAnalyzer(ner=NerModel(continental_model=None)))


def test_a_name_inside_a_found_place_is_not_a_person():
    text = "Nous partons pour Puerto Vallarta demain."
    start = text.index("Puerto Vallarta")
    span = Finding("PERSON", start, start + len("Puerto Vallarta"), 0.85, CONTINENTAL_NER_SOURCE)
    place = Finding("LOCATION", span.start, span.end, 0.85, "places")
    assert not confirmed(text, span, [place])


def test_line_parts_cut_a_span_at_its_line_breaks():
    text = "Regards,\nSuzanne Maire\n  VAT/ID: 1234"
    parts = line_parts(Finding("PERSON", 9, 28, 0.85, "spacy_ner"), text)
    assert [text[f.start : f.end] for f in parts] == ["Suzanne Maire", "VAT"]
    single = Finding("PERSON", 9, 22, 0.85, "spacy_ner")
    assert line_parts(single, text) == [single]
