"""PERSON and LOCATION recall of the guardrails on phrasings the NER never trained on, with names it never saw.

    python -m bench.pii_ner.probe [--model DIR] [--second-reading continental|people|all] [--samples N] [--out FILE]

The sentences are made of the ``probe`` half of ``bench.pii_ner.clauses`` (no training sample holds those parts)
around the people and places of the dev bench's corpus (``generate("dev")``, which training leaves out): what the
held-out split asks of a model, measured on the dev side. It runs the whole analyzer (patterns, gazetteer, NER,
name rules) and scores with the corpus's rules (``bench.pii_corpus.scoring``). ``--model`` reads another trained
pipeline instead of the shipped one; ``--second-reading`` chooses the windows it reads (``ner.SECOND_READING``).
"""

from __future__ import annotations

import argparse
import functools
import random
from pathlib import Path

from bench.pii_corpus import generate, scoring
from bench.pii_ner import clauses
from bench.pii_ner.dataset import LABELS, LANGUAGES
from bench.provenance import write_results
from gateway.guardrails import PiiAnalyzer
from gateway.guardrails.ner import CONTINENTAL_MODEL, SECOND_READING, SECOND_READINGS, NerModel

SEED = 31
SAMPLES = 800


def dev_bench_values() -> dict[str, list[str]]:
    """The people and places of the dev bench's corpus, by label."""
    values: dict[str, list[str]] = {label: [] for label in LABELS}
    for case in generate("dev"):
        for entity in case["entities"]:
            if entity["type"] in LABELS and not entity["subtype"].endswith(":lower"):
                values[entity["type"]].append(entity["value"])
    return {label: list(dict.fromkeys(found)) for label, found in values.items()}


def probe_cases(samples: int = SAMPLES, seed: int = SEED) -> list[dict]:
    """Cases in the corpus's shape (text, entities, no negatives) made of probe parts."""
    rng = random.Random(f"pii-ner-probe:{seed}")
    values = dev_bench_values()
    cases = []
    for number in range(samples):
        lang = rng.choice(LANGUAGES)
        text, entities = "", []
        separator = rng.choice([" ", "\n", "  "])
        for index in range(rng.choice([1, 2, 2, 3])):
            text += separator if index else ""
            roll = rng.random()
            if roll < 0.15:
                made = clauses.filler(rng, lang, "probe")
            else:
                label = "PERSON" if roll < 0.65 else "LOCATION"
                made = clauses.clause(rng, lang, label, "probe", functools.partial(rng.choice, values[label]))
            for start, end, label in made.spans:
                entities.append({"type": label, "start": len(text) + start, "end": len(text) + end,
                                 "value": made.text[start:end], "subtype": f"{label.lower()}:{lang}"})  # fmt: skip
            text += made.text
        cases.append({"id": f"probe-{number:04d}", "split": "dev", "text": text, "entities": entities,
                      "negatives": [], "context": f"probe-{lang}"})  # fmt: skip
    return cases


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--model", type=Path, help="a trained pipeline directory (default: the shipped one)")
    parser.add_argument("--second-reading", choices=SECOND_READINGS, default=SECOND_READING,
                        help="the windows Warden's model reads")
    parser.add_argument("--samples", type=int, default=SAMPLES)
    parser.add_argument("--misses", type=int, default=0, help="print this many misses of each label")
    parser.add_argument("--out", type=Path, help="write the scores here (JSON)")
    args = parser.parse_args()
    cases = probe_cases(args.samples)
    ner = NerModel(continental_model=args.model or CONTINENTAL_MODEL, second_reading=args.second_reading)
    analyzer = PiiAnalyzer(ner=ner)
    findings = [[(f.entity_type, f.start, f.end, f.score) for f in found]
                for found in analyzer.analyze_many([case["text"] for case in cases])]  # fmt: skip
    scores = scoring.score(cases, findings, 0.5)
    rows = {label: scores["by_type"][label] for label in LABELS}  # type: ignore[index]
    for label, row in rows.items():
        print(f"{label:<10} n={row['entities']:>4} recall {row['recall']:.3f} precision {row['precision']:.3f}")
    by_context = scores.get("recall_by_context", {})
    print("recall by language:", by_context)
    if args.misses:
        missed = scoring.misses(cases, findings, 0.5)
        for label in LABELS:
            for miss in [m for m in missed if m["type"] == label][: args.misses]:
                print(f"  {label} {miss['value']!r} in {miss['text']!r}")
    if args.out:
        write_results(args.out, {"samples": args.samples, "model": str(args.model or "shipped"),
                                 "second_reading": args.second_reading, "by_type": rows})  # fmt: skip


if __name__ == "__main__":
    main()
