"""Train the multilingual person/place NER the guardrails ship, and report its scores on held-back samples.

    python -m bench.pii_ner.train [--out-dir DIR] [--epochs N] [--composed N] [--varied N] [--records N]
                                  [--corpus-seeds N] [--shaped NAME ...] [--shaped-seeds N] [--shaped-cases N]
                                  [--exclude-read] [--left-out NAME] [--keep-from N] [--hidden-width N] [--wide]
                                  [--negatives N] [--start-from DIR]

A spaCy pipeline of one component, ``ner`` with its own small hash-embedding CNN (no vectors, no tagger or parser),
tokenised as spaCy's multi-language ``xx``; labels PERSON and LOCATION; trained with spaCy's own API on the samples of
``bench.pii_ner.dataset`` (the PII corpus's dev side only: the dev corpus's generator and the shaped corpora's,
``--shaped``, with seeds of their own, at most ``--shaped-cases`` cases of each; with ``--exclude-read`` never the
values a read corpus's bench scores). Seeded: the same arguments give the same model. ``--left-out NAME`` trains
without one shaped corpus, for ``bench.pii_ner.leave_out`` to score the model on shapes and names it never read;
the shipped model leaves ``dev-4`` out (``--left-out none`` reads every corpus).
By default the pipeline is written where the gateway loads it (gateway/guardrails/data/ner_multilingual) and the
scores to bench/results/pii_ner_training.json; ``--out-dir`` writes both (model/, metrics.json) there instead.
``--wide`` draws part of the composed values from ``bench.pii_ner.values``' wider pools (towns of 1,000 to 50,000
people, names-dataset names past the gazetteer's cut, as one word, with particles, hyphens, in capitals),
``--records N`` adds N record-shaped samples and ``--negatives N`` N samples of teams, desks, products and
sentence-opening capitalised words that name no one. ``--start-from DIR`` goes on training a pipeline already
trained (its width and embedding kept; its held-back samples may then include ones it read before) instead of a fresh
one. A candidate scored on ``dev-5`` reads ``dev-4``:
``--shaped dev-fresh dev-3 dev-4 --left-out dev-5``.
One CPU thread; the default budget (about 12,000 samples, six epochs) trains in a quarter of an hour.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sys
import time
from pathlib import Path
from typing import Any

# One BLAS thread: the same numbers on every machine, and the shared CPU left to others.
for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import spacy  # noqa: E402
from spacy.language import Language  # noqa: E402
from spacy.training import Example  # noqa: E402
from spacy.util import compounding, fix_random_seed, minibatch  # noqa: E402

from bench.pii_ner.dataset import LABELS, SHAPED_CORPORA, Sample, build  # noqa: E402
from bench.provenance import write_results  # noqa: E402
from gateway.guardrails.ner import MULTILINGUAL_MODEL_DIR  # noqa: E402

METRICS_PATH = Path(__file__).resolve().parents[1] / "results" / "pii_ner_training.json"
SEED = 29
EPOCHS = 6
COMPOSED = 4000
VARIED = 3000  # samples of clauses put together from parts (bench.pii_ner.clauses)
RECORDS = 0  # samples of a value in a record shape (bench.pii_ner.values); with --wide, e.g. 1500
NEGATIVES = 0  # samples of teams, products and capitalised common words naming no one (bench.pii_ner.values)
CORPUS_SEEDS = 2
SHAPED = ("dev-fresh", "dev-3", "dev-4")  # the shaped corpora read (bench.pii_ner.dataset.SHAPED_CORPORA)
SHAPED_SEEDS = 1  # seeds of each shaped corpus's generator read (1..N)
# The shipped model leaves dev-4 out (its shapes and its own values), so that `--split dev-4` keeps scoring the
# guardrails on text shaped apart from all the model read (bench.pii_ner.leave_out).
LEFT_OUT = "dev-4"
HIDDEN_WIDTH = 64  # the transition model's hidden layer (components.ner.model.hidden_width)
HELD_BACK = 0.1  # share of the samples scored, never trained on

CONFIG = """
[nlp]
lang = "xx"
pipeline = ["ner"]
batch_size = 256

[components]

[components.ner]
factory = "ner"

[components.ner.model]
@architectures = "spacy.TransitionBasedParser.v2"
state_type = "ner"
extra_state_tokens = false
hidden_width = 64
maxout_pieces = 2
use_upper = true
nO = null

[components.ner.model.tok2vec]
@architectures = "spacy.HashEmbedCNN.v2"
pretrained_vectors = null
width = 96
depth = 4
embed_size = 4000
window_size = 1
maxout_pieces = 3
subword_features = true
"""


def examples(nlp: Language, samples: list[Sample]) -> list[Example]:
    made = []
    for sample in samples:
        reference = nlp.make_doc(sample.text)
        spans = [reference.char_span(start, end, label, alignment_mode="expand") for start, end, label in sample.spans]
        # Two entities with no space between them widen to one token now and then (a few of the later shaped corpora's
        # cases); the longer is kept, as spaCy's NER labels a token once (``leave_out`` scores them so too).
        reference.ents = spacy.util.filter_spans([span for span in spans if span is not None])
        made.append(Example(nlp.make_doc(sample.text), reference))
    return made


def scores(nlp: Language, held_back: list[Example]) -> dict[str, Any]:
    result = nlp.evaluate(held_back)
    per_type = result.get("ents_per_type") or {}
    return {
        "precision": round(result["ents_p"], 4),
        "recall": round(result["ents_r"], 4),
        "f": round(result["ents_f"], 4),
        "by_type": {label: {key: round(value, 4) for key, value in per_type.get(label, {}).items()} for label in
        LABELS},
    }


def train(seed: int = SEED, epochs: int = EPOCHS, composed: int = COMPOSED, corpus_seeds: int = CORPUS_SEEDS,
          varied: int = VARIED, shaped: tuple[str, ...] = SHAPED, shaped_seeds: int = SHAPED_SEEDS,
          left_out: str | None = LEFT_OUT, records: int = RECORDS,
          keep_from: int | None = None, keep_dir: Path | None = None,
          hidden_width: int = HIDDEN_WIDTH, wide: bool = False, negatives: int = NEGATIVES,
          start_from: Path | None = None,
          shaped_cases: int | None = None, exclude_read: bool = False) -> tuple[Language, dict[str, Any]]:  # fmt: skip
    """The trained pipeline and its metrics (held-back scores, sample counts, timing). `left_out` names a shaped
    corpus the model must not read (``bench.pii_ner.leave_out`` scores it there). From epoch `keep_from` on, each
    epoch's pipeline is also written to `keep_dir`/epoch-N, so that one run scores several epoch counts."""
    fix_random_seed(seed)
    started = time.perf_counter()
    samples = build(seed, tuple(range(1, corpus_seeds + 1)), composed, varied, shaped,
                    tuple(range(1, shaped_seeds + 1)), left_out, records, wide, negatives, shaped_cases,
                    exclude_read)  # fmt: skip
    if start_from is None:
        config = spacy.util.load_config_from_str(CONFIG, overrides={"components.ner.model.hidden_width": hidden_width})
        nlp = spacy.util.load_model_from_config(config, auto_fill=True, validate=True)
    else:
        nlp = spacy.load(start_from)
    data = examples(nlp, samples)
    cut = int(len(data) * HELD_BACK)
    held_back, training = data[:cut], data[cut:]
    # A warm start keeps the pipeline's weights (and its width) and goes on learning from them on these samples.
    optimizer = nlp.initialize(lambda: training) if start_from is None else nlp.resume_training()
    rng = random.Random(seed)
    losses_per_epoch = []
    for _ in range(epochs):
        rng.shuffle(training)
        losses: dict[str, float] = {}
        for batch in minibatch(training, size=compounding(8.0, 48.0, 1.001)):
            nlp.update(batch, drop=0.15, sgd=optimizer, losses=losses)
        losses_per_epoch.append(round(float(losses.get("ner", 0.0)), 1))
        print(f"epoch {len(losses_per_epoch)}: loss {losses_per_epoch[-1]} at {time.perf_counter() - started:.0f} s",
              file=sys.stderr, flush=True)
        if keep_from is not None and keep_dir is not None and len(losses_per_epoch) >= keep_from:
            save(nlp, keep_dir / f"epoch-{len(losses_per_epoch)}")
    metrics = {
        "seed": seed,
        "epochs": epochs,
        "hidden_width": nlp.config["components"]["ner"]["model"]["hidden_width"],
        "wide": wide,
        "start_from": str(start_from) if start_from else None,
        "samples": {"training": len(training), "held_back": len(held_back), "composed": composed,
                    "varied": varied, "records": records, "negatives": negatives, "corpus_seeds": corpus_seeds,
                    "shaped": list(shaped), "shaped_seeds": shaped_seeds, "shaped_cases": shaped_cases,
                    "exclude_read": exclude_read, "left_out": left_out},
        "held_back": scores(nlp, held_back),
        "loss_per_epoch": losses_per_epoch,
        "train_seconds": round(time.perf_counter() - started, 1),
    }
    return nlp, metrics


def save(nlp: Language, directory: Path) -> int:
    """Write the pipeline to `directory` (replacing it); returns its size in bytes."""
    if directory.exists():
        shutil.rmtree(directory)
    nlp.meta.update({"name": "warden_ner_multilingual", "version": "1.0.0", "license": "Apache-2.0",
                     "description": "PERSON and LOCATION in English, French, Spanish and German text, trained "
                                    "by bench.pii_ner.train on the PII corpus's dev split"})  # fmt: skip
    directory.parent.mkdir(parents=True, exist_ok=True)
    nlp.to_disk(directory)
    return sum(path.stat().st_size for path in directory.rglob("*") if path.is_file())


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--out-dir", type=Path, help="write model/ and metrics.json here instead of the shipped paths")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--epochs", type=int, default=EPOCHS)
    parser.add_argument("--composed", type=int, default=COMPOSED)
    parser.add_argument("--varied", type=int, default=VARIED)
    parser.add_argument("--records", type=int, default=RECORDS)
    parser.add_argument("--keep-from", type=int, help="with --out-dir: also write each epoch's pipeline from this "
                        "epoch on to DIR/epoch-N")
    parser.add_argument("--hidden-width", type=int, default=HIDDEN_WIDTH)
    parser.add_argument("--wide", action="store_true", help="draw part of the composed values from the wider "
                        "pools of bench.pii_ner.values (small towns, names-dataset names in more forms)")
    parser.add_argument("--negatives", type=int, default=NEGATIVES, help="samples of teams, products and "
                        "capitalised common words that name no one (bench.pii_ner.values.negative)")
    parser.add_argument("--corpus-seeds", type=int, default=CORPUS_SEEDS)
    parser.add_argument("--shaped", nargs="*", choices=sorted(SHAPED_CORPORA), default=list(SHAPED),
                        help="shaped dev-side corpora whose generators write training cases")
    parser.add_argument("--shaped-seeds", type=int, default=SHAPED_SEEDS)
    parser.add_argument("--shaped-cases", type=int, help="at most this many cases of each shaped corpus per seed "
                        "(a seeded draw; default: all)")
    parser.add_argument("--exclude-read", action="store_true", help="draw none of the people and places the bench "
                        "scores on a read shaped corpus (its default seed's)")
    parser.add_argument("--left-out", choices=[*sorted(SHAPED_CORPORA), "none"], default=LEFT_OUT,
                        help="a shaped corpus neither read nor drawn from (scored by bench.pii_ner.leave_out)")
    parser.add_argument("--start-from", type=Path, help="a trained pipeline to go on training (its width and "
                        "embedding kept) instead of a fresh one")
    args = parser.parse_args(argv)
    nlp, metrics = train(args.seed, args.epochs, args.composed, args.corpus_seeds, args.varied, tuple(args.shaped),
                         args.shaped_seeds, None if args.left_out == "none" else args.left_out, args.records,
                         args.keep_from, args.out_dir, args.hidden_width, args.wide, args.negatives,
                         args.start_from, args.shaped_cases, args.exclude_read)  # fmt: skip
    model_dir = args.out_dir / "model" if args.out_dir else MULTILINGUAL_MODEL_DIR
    metrics["model_bytes"] = save(nlp, model_dir)
    print(f"model: {model_dir} ({metrics['model_bytes'] / 1e6:.1f} MB); held back: {metrics['held_back']}")
    command = "python -m bench.pii_ner.train" + ("" if argv is None else " " + " ".join(argv))
    write_results(args.out_dir / "metrics.json" if args.out_dir else METRICS_PATH, metrics,
                  command=None if argv is None and args.out_dir is None else command)  # fmt: skip


if __name__ == "__main__":
    main()
