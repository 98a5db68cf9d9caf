"""The NER models' tok2vec run as one function (``ner._direct_tok2vec``): installed in both models, and the vectors
thinc's layers give, bit for bit, for batches of windows of every length, one text or many."""

from __future__ import annotations

import random

import numpy
import pytest
import spacy
from thinc.api import Linear, chain

from gateway.guardrails.ner import CONTINENTAL_MODEL, SPACY_MODEL, NerModel, _direct_tok2vec, _with_direct_tok2vec

_SENTENCES = (
    "Maria Garcia called from Porto about ticket 4411 ; she said the invoice for Łukasz Nowak was late . "
    'Bonjour , je suis Pierre Dupont de Lyon . ---------- {"user": "ana.lopez", "id": 7} Ольга Ω '
    "Wiryanto Hadiyanto lives at 12 rue de la Paix"
)
_WORDS = _SENTENCES.split()


@pytest.fixture(scope="module")
def ner() -> NerModel:
    return NerModel()


def _texts(rng: random.Random, count: int) -> list[str]:
    return [" ".join(rng.choice(_WORDS) for _ in range(rng.randrange(1, 60))) for _ in range(count)]


def test_both_models_run_the_direct_tok2vec(ner: NerModel) -> None:
    for nlp in (ner._nlp, ner._continental):
        assert nlp is not None
        assert nlp.get_pipe("ner").model.layers[0].name == "direct_tok2vec"  # type: ignore[attr-defined]


@pytest.mark.parametrize("model", [SPACY_MODEL, CONTINENTAL_MODEL])
def test_same_vectors_as_thincs_layers(model: str) -> None:
    nlp = spacy.load(model)  # thinc's layers: loaded as spaCy loads it
    plain = nlp.get_pipe("ner").model.layers[0]  # type: ignore[attr-defined]
    direct = _direct_tok2vec(plain)
    assert direct is not None
    rng = random.Random(34)
    for count in (1, 1, 2, 3, 8, 30):
        docs = [nlp.make_doc(text) for text in _texts(rng, count)]
        assert numpy.array_equal(plain.predict(docs), direct.predict(docs))


def test_another_architecture_keeps_thincs_layers() -> None:
    assert _direct_tok2vec(chain(Linear(4, 4), Linear(4, 4))) is None
    nlp = spacy.blank("en")
    nlp.add_pipe(
        "ner",
        config={
            "model": {
                "tok2vec": {
                    "@architectures": "spacy.HashEmbedCNN.v2",
                    "pretrained_vectors": None,
                    "width": 32,
                    "depth": 2,
                    "embed_size": 500,
                    "window_size": 1,
                    "maxout_pieces": 3,
                    "subword_features": True,
                }
            }
        },
    )
    nlp.get_pipe("ner").add_label("PERSON")  # type: ignore[attr-defined]
    nlp.initialize()
    # another width and depth: the same architecture, run directly (bit for bit, or the layers would stay)
    assert _with_direct_tok2vec(nlp).get_pipe("ner").model.layers[0].name == "direct_tok2vec"  # type: ignore[attr-defined]
