"""The twenty-sixth dev-side corpus: the main corpus's own generator (``generator.generate``: its people and place
pools, its contexts, chat-lower among them, its entity types and quotas, the `dev` half of every pool) with a phrase
bank of its own written blind (``phrases_dev_twentysixth``), the closest dev-side stand-in for the held-out split,
which is that generator with a phrase bank nobody tunes on.

    python -m bench.guardrails --split dev-26 --skip-throughput [--misses FILE]

Values come from the `dev` half of every pool (``partition``), drawn with a seed of its own; only the clauses around
them differ from `dev`'s. It is a blind split (``dev_splits.BLIND_SPLITS``): its clauses were written without reading
any other phrase bank or detector word list.

Its blind score, before any tuning on it: see the test module's docstring.
"""

from __future__ import annotations

from bench.pii_corpus import phrases_dev_twentysixth
from bench.pii_corpus.generator import ENTITIES_PER_TYPE, generate
from bench.pii_corpus.model import Case

NAME = "dev-26"
SEED = 2602026


def generate_twentysixth_dev(entities_per_type: int = ENTITIES_PER_TYPE, seed: int = SEED) -> list[Case]:
    """The twenty-sixth dev-side corpus (always the same for the same arguments)."""
    return generate("dev", seed, entities_per_type, phrasebook=phrases_dev_twentysixth.BOOK, name=NAME)
