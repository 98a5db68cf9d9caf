"""``python -m bench.pii_corpus --split dev|test --out FILE``: write one split of the corpus as JSON lines."""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from bench.pii_corpus import ENTITIES_PER_TYPE, generate
from bench.pii_corpus.partition import SPLITS


def write_cases(path: Path, cases: list) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(case, ensure_ascii=False) + "\n" for case in cases), encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--split", choices=SPLITS, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--seed", type=int, default=None, help="default: the split's own seed")
    parser.add_argument("--per-type", type=int, default=ENTITIES_PER_TYPE, help="entities of each type")
    args = parser.parse_args()
    if args.per_type < 1:
        parser.error("--per-type must be at least 1")
    cases = generate(args.split, seed=args.seed, entities_per_type=args.per_type)
    write_cases(args.out, cases)
    types = Counter(e["type"] for case in cases for e in case["entities"])
    negatives = sum(len(case["negatives"]) for case in cases)
    print(
        f"wrote {args.out}: {len(cases)} cases, {sum(types.values())} entities ({len(types)} types), "
        f"{negatives} hard negatives"
    )


if __name__ == "__main__":
    main()
