"""CPU time of the multilingual NER per 2 KB of text, for pipelines read one after another in the same rounds.

    python -m bench.pii_ner.cost [--model DIR ...] [--rounds N]

The model reads every window of a prompt the second reading sends it, so its cost per kilobyte is part of the
guardrails' cost per prompt. Texts are the dev corpus's (``generate("dev")``) cut into 2,048-character pieces;
each round reads all of them with each pipeline in turn (an A/B interleaved in one process, so a loaded machine
slows both alike) and the figure is the median over rounds of process CPU time per piece, with one BLAS thread.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import spacy  # noqa: E402

from bench.pii_corpus import generate  # noqa: E402
from gateway.guardrails.ner import MULTILINGUAL_MODEL_DIR  # noqa: E402

PIECE = 2048
PIECES = 64


def pieces() -> list[str]:
    text = "\n".join(case["text"] for case in generate("dev"))
    return [text[start : start + PIECE] for start in range(0, PIECE * PIECES, PIECE)]


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--model", type=Path, nargs="*", default=[MULTILINGUAL_MODEL_DIR])
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    texts = pieces()
    models = {str(path): spacy.load(path) for path in args.model}
    for nlp in models.values():  # warm: first calls allocate
        list(nlp.pipe(texts[:4]))
    per_piece: dict[str, list[float]] = {name: [] for name in models}
    for _ in range(args.rounds):
        for name, nlp in models.items():
            started = time.process_time()
            list(nlp.pipe(texts))
            per_piece[name].append((time.process_time() - started) / len(texts))
    for name, figures in per_piece.items():
        print(f"{name}: {statistics.median(figures) * 1e3:.2f} ms CPU per 2 KB (median of {args.rounds} rounds; "
              f"min {min(figures) * 1e3:.2f}, max {max(figures) * 1e3:.2f})")


if __name__ == "__main__":
    main()
