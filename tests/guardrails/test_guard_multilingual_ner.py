"""Warden's own multilingual NER (gateway/guardrails/data/ner_multilingual, trained by ``bench.pii_ner.train``): it
loads offline from the repository, finds people in French, Spanish and German sentences written here by hand (with
names whose words the corpus partition puts in the `test` split, so that no training sample held them), and its
training data holds only the `dev` side of the PII corpus."""

from __future__ import annotations

import json

import pytest
import spacy

from bench.pii_corpus.partition import split_of
from bench.pii_corpus.person_names import split_words
from gateway.guardrails import PiiAnalyzer
from gateway.guardrails.ner import CONTINENTAL_MODEL, MULTILINGUAL_MODEL_DIR

# (sentence, the person in it): phrasings of neither corpus split, names of the `test` split only.
HAND_WRITTEN = [
    ("Gestern hat Hannelore Wiesner den Vertrag unterschrieben.", "Hannelore Wiesner"),
    ("Könnten Sie bitte Gottfried Ahlborn Bescheid geben, dass die Lieferung später kommt?", "Gottfried Ahlborn"),
    ("Die Rechnung ging an Friederike Zehetmayer und niemand sonst.", "Friederike Zehetmayer"),
    ("Ayer Ximena Aldunate firmó el contrato sin leerlo.", "Ximena Aldunate"),
    ("¿Puedes avisar a Maximiliano Quiroga de que la reunión se retrasa?", "Maximiliano Quiroga"),
    ("La factura la pagó Evaristo Sandoval la semana pasada.", "Evaristo Sandoval"),
    ("Hier, Aurélien Vasseur a signé le contrat sans le lire.", "Aurélien Vasseur"),
    ("Pourriez-vous prévenir Clémence Delaunay que la réunion est reportée ?", "Clémence Delaunay"),
]


def test_the_hand_written_names_are_none_the_model_was_trained_on():
    for _, name in HAND_WRITTEN:
        assert all(split_of(word) == "test" for word in split_words(name)), name


def test_the_model_loads_offline_from_the_repository_ner_only():
    assert (MULTILINGUAL_MODEL_DIR / "config.cfg").is_file()
    size = sum(path.stat().st_size for path in MULTILINGUAL_MODEL_DIR.rglob("*") if path.is_file())
    assert size < 8_000_000  # a few MB in the repository
    nlp = spacy.load(MULTILINGUAL_MODEL_DIR)
    assert nlp.pipe_names == ["ner"]
    assert set(nlp.get_pipe("ner").labels) == {"PERSON", "LOCATION"}


@pytest.fixture(scope="module")
def multilingual() -> spacy.language.Language:
    return spacy.load(MULTILINGUAL_MODEL_DIR)


def _covered(text: str, name: str, spans: list[tuple[int, int]]) -> bool:
    """Whether one span holds the whole name (what masking needs; a span may run past it)."""
    start = text.index(name)
    return any(begin <= start and start + len(name) <= end for begin, end in spans)


def test_the_model_finds_people_in_sentences_it_never_saw(multilingual):
    """Alone, without the English model or name lists, it covers the 8 (it runs "Gottfried Ahlborn" into the noun
    after it, which masks more than the name); the bar leaves one to a retrained model's seed."""
    covered = []
    for text, name in HAND_WRITTEN:
        spans = [(ent.start_char, ent.end_char) for ent in multilingual(text).ents if ent.label_ == "PERSON"]
        covered.append(_covered(text, name, spans))
    assert sum(covered) >= 7, covered


@pytest.mark.parametrize(
    "text",
    [
        "Die Rechnung ist noch nicht bezahlt, bitte prüfen Sie das Konto des Lieferanten.",
        "El informe trimestral llegará mañana por la tarde.",
        "Nous avons reçu votre demande et nous allons la traiter avant vendredi.",
    ],
)
def test_the_model_tags_no_person_in_prose_without_one(multilingual, text):
    assert [ent.text for ent in multilingual(text).ents if ent.label_ == "PERSON"] == []


def test_the_analyzer_reads_continental_prose_with_it():
    assert CONTINENTAL_MODEL == MULTILINGUAL_MODEL_DIR
    assert PiiAnalyzer().ner.continental_components == ["ner"]


@pytest.mark.parametrize(("text", "name"), HAND_WRITTEN)
def test_the_analyzer_finds_the_people(analyzer, text, name):
    people = [(f.start, f.end) for f in analyzer.analyze(text) if f.entity_type == "PERSON" and f.score >= 0.5]
    assert _covered(text, name, people)


def test_training_samples_hold_dev_values_only():
    from bench.pii_ner.dataset import LABELS, build, dev_bench_words, value_words

    samples = build(seed=3, corpus_seeds=(5,), composed=300, varied=200, records=200, wide=True)
    excluded = dev_bench_words()
    labelled = [(sample.text[start:end], label) for sample in samples for start, end, label in sample.spans]
    assert {label for _, label in labelled} == set(LABELS) and len(labelled) > 300
    # A few composed values are written in lower case, as chat writes them; their capitalised forms were drawn.
    lower = [value for value, _ in labelled if value == value.lower()]
    assert 0 < len(lower) < 0.15 * len(labelled)
    for value, label in labelled:
        if value == value.lower():
            continue
        # A person is in a split when each of its name words is (``person_names.in_split``); a place as a whole.
        words = split_words(value) if label == "PERSON" else [value]
        assert words and all(split_of(word) == "dev" for word in words), value
        assert not (value_words(value) & excluded), value


def test_a_left_out_corpus_is_neither_read_nor_drawn_from():
    """``build(left_out=...)`` (the leave-one-corpus-out protocol, ``bench.pii_ner.leave_out``): none of the corpus's
    cases, other seeds included, and none of its own people or places reach a training sample."""
    from bench.pii_ner.dataset import build, corpus_words, shaped_samples, value_words

    budget = {"seed": 4, "corpus_seeds": (), "composed": 300, "varied": 200, "shaped_seeds": (1,)}
    left_out = build(**budget, shaped=("dev-4", "dev-fresh"), left_out="dev-4")
    texts = {sample.text for sample in left_out}
    assert len(texts) > 1000  # dev-fresh's cases of seed 1 and the composed ones
    assert texts.isdisjoint(sample.text for sample in shaped_samples(["dev-4"], [1], frozenset()))
    assert texts != {sample.text for sample in build(**budget, shaped=("dev-4", "dev-fresh"))}
    excluded = corpus_words("dev-4")
    assert len(excluded) > 500
    labelled = [sample.text[start:end] for sample in left_out for start, end, _ in sample.spans]
    assert not [value for value in labelled if value != value.lower() and value_words(value) & excluded]


def test_dev_6_can_be_left_out_of_training():
    """The sixth dev-side corpus joins the leave-one-corpus-out protocol: a model trained without it is scored on it
    (``bench.pii_ner.leave_out --split dev-6``), so none of its own people or places reach a sample."""
    from bench.pii_ner.dataset import SHAPED_CORPORA, build, corpus_words, value_words

    assert "dev-6" in SHAPED_CORPORA
    samples = build(seed=4, corpus_seeds=(), composed=300, shaped=("dev-6",), shaped_seeds=(1,), left_out="dev-6")
    excluded = corpus_words("dev-6")
    assert len(excluded) > 100
    labelled = [sample.text[start:end] for sample in samples for start, end, _ in sample.spans]
    assert len(labelled) > 300
    assert not [value for value in labelled if value != value.lower() and value_words(value) & excluded]


def test_the_later_dev_side_corpora_are_shaped_corpora_and_the_blind_ones_are_not():
    """dev-7 ... dev-14 can be read (``--shaped``) or left out; the blind corpora (dev-15 on) score a model and are
    never a training corpus."""
    from bench.pii_corpus.dev_splits import BLIND_SPLITS, GENERATED_SPLITS
    from bench.pii_ner.dataset import SHAPED_CORPORA

    assert {f"dev-{n}" for n in range(5, 15)} <= set(SHAPED_CORPORA)
    assert not {f"dev-{n}" for n in range(15, 30)} & set(SHAPED_CORPORA)
    assert set(SHAPED_CORPORA) | BLIND_SPLITS == set(GENERATED_SPLITS)


def test_a_read_corpus_lends_its_shapes_not_its_scored_values():
    """With ``exclude_read``, a shaped corpus read with another seed trains on its shapes; none of the people and
    places its bench scores (its default seed) reach a sample, so the bench's figures there read values the model
    never saw."""
    from bench.pii_ner.dataset import build, corpus_words, value_words

    budget = {"seed": 4, "corpus_seeds": (), "composed": 200, "shaped": ("dev-13",), "shaped_seeds": (1,)}
    samples = build(**budget, left_out=None, exclude_read=True)
    excluded = corpus_words("dev-13")
    labelled = [sample.text[start:end] for sample in samples for start, end, _ in sample.spans]
    assert len(labelled) > 500
    assert not [value for value in labelled if value != value.lower() and value_words(value) & excluded]


def test_shaped_cases_draws_that_many_cases_of_each_corpus():
    from bench.pii_ner.dataset import shaped_samples

    every = list(shaped_samples(["dev-7"], [1], frozenset()))
    drawn = list(shaped_samples(["dev-7"], [1], frozenset(), cases=50))
    assert len(every) > 1000 and len(drawn) == 50
    assert {sample.text for sample in drawn} <= {sample.text for sample in every}
    assert drawn == list(shaped_samples(["dev-7"], [1], frozenset(), cases=50))


def test_leave_out_scores_a_model_on_the_blind_corpora_too():
    """``bench.pii_ner.leave_out --split dev-20`` scores a candidate on a corpus no training sample reads."""
    from bench.pii_ner.leave_out import arguments

    assert arguments(["--split", "dev-20"]).split == "dev-20"
    assert arguments(["--split", "dev-4", "--second-reading", "unlisted"]).second_reading == ["unlisted"]


def test_two_values_in_one_token_make_one_training_entity():
    """A person written against a place with no space between them widens to one token; training keeps the longer
    of the two instead of failing on the case (a few of the later shaped corpora's cases read so)."""
    import spacy

    from bench.pii_ner.dataset import Sample
    from bench.pii_ner.train import examples

    text = "Signed by Ana Ruiz_Lyon office"
    sample = Sample(text, ((10, 18, "PERSON"), (19, 23, "LOCATION")))
    (example,) = examples(spacy.blank("xx"), [sample])
    assert len(example.reference.ents) == 1


def test_negative_samples_label_no_team_no_product():
    """Teams, desks, products and capitalised common words where a person could stand (``values.negative``) are
    never labelled; the odd clause beside them that names someone is."""
    import random

    from bench.pii_ner import values
    from bench.pii_ner.dataset import ComposedSamples

    composer = ComposedSamples(random.Random(6), frozenset())
    samples = [composer.negative() for _ in range(300)]
    teams = {values.team(random.Random(seed), lang) for seed in range(50) for lang in ("en", "fr", "es", "de")}
    labelled = [sample.text[start:end] for sample in samples for start, end, _ in sample.spans]
    assert 0 < len(labelled) < len(samples)
    assert not [value for value in labelled if value in teams or value in values._PRODUCTS]
    assert sum(any(team in sample.text for team in teams) for sample in samples) > 50


def test_varied_training_samples_hold_no_probe_part():
    """The probe (``bench.pii_ner.probe``) scores phrasings no training sample holds: its parts never reach one."""
    import random

    from bench.pii_ner import clauses
    from bench.pii_ner.dataset import ComposedSamples

    probe_parts = {part.strip() for parts in clauses.PARTS.values() for name in ("person_leads", "person_predicates",
                   "place_leads", "place_predicates", "fillers") for part in getattr(parts, name)
                   if clauses.half_of(part) == "probe"}  # fmt: skip
    assert len(probe_parts) > 40
    composer = ComposedSamples(random.Random(5), frozenset())
    texts = [composer.varied().text for _ in range(300)]
    assert not [part for part in probe_parts if any(part in text for text in texts)]
    assert any(part in texts[0] or part in "".join(texts) for part in
               {p.strip() for parts in clauses.PARTS.values() for p in parts.person_leads} - probe_parts)


@pytest.mark.slow
def test_training_is_reproducible(tmp_path):
    """Two small runs with one seed give the same scores and the same weights (the shipped run is the same code
    with the default budget: ``python -m bench.pii_ner.train``)."""
    from bench.pii_ner.train import main

    budget = ["--epochs", "1", "--composed", "300", "--varied", "100", "--corpus-seeds", "0", "--shaped"]
    for run in ("a", "b"):
        main(["--out-dir", str(tmp_path / run), *budget])
    metrics = [json.loads((tmp_path / run / "metrics.json").read_text()) for run in ("a", "b")]
    for found in metrics:
        found.pop("provenance", None)
        found.pop("train_seconds", None)
    assert metrics[0] == metrics[1]
    weights = [(tmp_path / run / "model" / "ner" / "model").read_bytes() for run in ("a", "b")]
    assert weights[0] == weights[1]


@pytest.mark.slow
def test_a_warm_start_goes_on_from_the_given_pipeline(tmp_path):
    """``--start-from DIR`` trains on from DIR's weights, width included, instead of a fresh pipeline: no epoch
    leaves them as they were, one epoch moves them."""
    from bench.pii_ner.train import main

    budget = ["--composed", "60", "--varied", "0", "--corpus-seeds", "0", "--shaped"]
    main(["--out-dir", str(tmp_path / "start"), "--epochs", "1", "--hidden-width", "32", *budget])
    start = tmp_path / "start" / "model"
    main(["--out-dir", str(tmp_path / "kept"), "--epochs", "0", "--start-from", str(start), *budget])
    main(["--out-dir", str(tmp_path / "on"), "--epochs", "1", "--start-from", str(start), *budget])
    weights = {run: (tmp_path / run / "model" / "ner" / "model").read_bytes() for run in ("start", "kept", "on")}
    assert weights["kept"] == weights["start"]
    assert weights["on"] != weights["start"] and len(weights["on"]) == len(weights["start"])
    metrics = json.loads((tmp_path / "on" / "metrics.json").read_text())
    assert metrics["hidden_width"] == 32 and metrics["start_from"] == str(start)
