"""Leave-one-corpus-out scores of the multilingual NER: a trained pipeline scored on a dev-side corpus it never read.

    python -m bench.pii_ner.leave_out --model DIR --split dev-4 [--out FILE] [--misses N]
    python -m bench.pii_ner.leave_out --model DIR --split dev [--second-reading continental]

Train the pipeline first without the corpus, e.g. ``python -m bench.pii_ner.train --left-out dev-4 --out-dir DIR``
(neither that corpus's shapes nor its values reach training; ``bench.pii_ner.dataset``); the shipped pipeline
trained on none of the shaped corpora, so it is scored the same way (``--model`` left out). Two figures per corpus:

- ``analyzer``: the whole guardrail analyzer (patterns, gazetteer, both NER models, name rules) on the corpus's
  cases, scored as ``bench.guardrails`` scores them (``bench.pii_corpus.scoring``: per-type recall and precision,
  the hard-negative false-positive rate), once per ``SECOND_READING`` asked for;
- ``model``: the pipeline alone on the same texts (other entities masked, as at runtime), spaCy's per-type
  precision and recall: what the learned model generalises to, with no rule's help.

``--split dev`` scores the dev bench's own corpus (``bench.guardrails.load_corpus``), whose names and places no
training sample holds: a candidate must not lose there either; ``--split dev-15`` ... ``dev-20`` score it on the blind
dev-side corpora, which no training sample reads (``bench.pii_ner.dataset.SHAPED_CORPORA`` stops at dev-14).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import spacy
from spacy.training import Example

from bench.guardrails import load_corpus
from bench.pii_corpus import scoring
from bench.pii_corpus.dev_splits import GENERATED_SPLITS
from bench.pii_ner.dataset import LABELS, from_case
from bench.provenance import write_results
from gateway.guardrails import PiiAnalyzer
from gateway.guardrails.ner import CONTINENTAL_MODEL, SECOND_READINGS, NerModel

BATCH = 8  # texts per analyzer call, as bench.guardrails scores the corpus


def analyzer_scores(cases: list[dict], model: Path | str, second_reading: str, misses: int) -> dict[str, Any]:
    analyzer = PiiAnalyzer(ner=NerModel(continental_model=model, second_reading=second_reading))
    texts = [case["text"] for case in cases]
    findings: list[list[scoring.Finding]] = []
    for start in range(0, len(texts), BATCH):
        found = analyzer.analyze_many(texts[start : start + BATCH], ner_enabled=True)
        findings += [[(f.entity_type, f.start, f.end, f.score) for f in one] for one in found]
    scores = scoring.score(cases, findings, 0.5)
    by_type: dict[str, dict] = scores["by_type"]  # type: ignore[assignment]
    if misses:
        missed = scoring.misses(cases, findings, 0.5)
        for label in LABELS:
            for miss in [m for m in missed if m["type"] == label][:misses]:
                print(f"  miss {label} {miss['value']!r} in {miss['text'][:160]!r}")
    return {"by_type": {label: {key: by_type[label][key] for key in ("entities", "recall", "precision")}
                        for label in LABELS},
            "fp_rate_hard_negatives": scores["fp_rate_hard_negatives"]}  # fmt: skip


def model_scores(cases: list[dict], model: Path | str) -> dict[str, Any]:
    nlp = spacy.load(model)
    examples = []
    for case in cases:
        sample = from_case(case)  # type: ignore[arg-type]
        reference = nlp.make_doc(sample.text)
        spans = [reference.char_span(start, end, label, alignment_mode="expand") for start, end, label in sample.spans]
        # Two entities with no space between them widen to one token now and then (the dev corpus has a few); the
        # longer is kept, as spaCy's NER can label a token once.
        reference.ents = spacy.util.filter_spans([span for span in spans if span is not None])
        examples.append(Example(nlp.make_doc(sample.text), reference))
    per_type = nlp.evaluate(examples).get("ents_per_type") or {}
    return {label: {key: round(value, 4) for key, value in per_type.get(label, {}).items()} for label in LABELS}


def arguments(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--model", type=Path, help="a trained pipeline directory (default: the shipped one)")
    parser.add_argument("--split", choices=["dev", *GENERATED_SPLITS], required=True,
                        help="the corpus left out (or dev, the dev bench's own, or a blind dev-side corpus no "
                        "training reads: dev-15 on)")
    parser.add_argument("--second-reading", nargs="+", choices=SECOND_READINGS,
                        default=["continental", "unlisted", "all"])
    parser.add_argument("--misses", type=int, default=0, help="print this many misses of each label")
    parser.add_argument("--out", type=Path, help="write the scores here (JSON)")
    return parser.parse_args(argv)


def main() -> None:
    args = arguments()
    model = args.model or CONTINENTAL_MODEL
    cases = load_corpus(args.split)
    results: dict[str, Any] = {"split": args.split, "model": str(args.model or "shipped"), "analyzer": {}}
    for reading in args.second_reading:
        row = analyzer_scores(cases, model, reading, args.misses)
        results["analyzer"][reading] = row
        rows = row["by_type"]
        figures = "  ".join(f"{label} r {rows[label]['recall']:.3f} p {rows[label]['precision']:.3f}"
                            for label in LABELS)  # fmt: skip
        print(f"{args.split} analyzer, second reading {reading:<11} {figures}  FP {row['fp_rate_hard_negatives']}")
    results["model"] = model_scores(cases, model)
    print(f"{args.split} model alone: {results['model']}")
    if args.out:
        write_results(args.out, results)


if __name__ == "__main__":
    main()
