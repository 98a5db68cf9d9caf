"""The twenty-seventh dev-side corpus: the main corpus's own generator (``generator.generate``: its people and place
pools, its contexts, chat-lower among them, its entity types and quotas, the `dev` half of every pool) with a second
phrase bank of its own written blind (``phrases_dev_twentyseventh``), a stand-in for the held-out split beside dev-26,
which is that generator with a phrase bank nobody tunes on.

    python -m bench.guardrails --split dev-27 --skip-throughput [--misses FILE]

Values come from the `dev` half of every pool (``partition``), drawn with a seed of its own; only the clauses around
them differ from `dev`'s and dev-26's. It is a blind split (``dev_splits.BLIND_SPLITS``): its clauses were written
without reading any other phrase bank or detector word list.

Its blind score, before any tuning on it: see the test module's docstring.
"""

from __future__ import annotations

from bench.pii_corpus import phrases_dev_twentyseventh
from bench.pii_corpus.generator import ENTITIES_PER_TYPE, generate
from bench.pii_corpus.model import Case

NAME = "dev-27"
SEED = 2702027


def generate_twentyseventh_dev(entities_per_type: int = ENTITIES_PER_TYPE, seed: int = SEED) -> list[Case]:
    """The twenty-seventh dev-side corpus (always the same for the same arguments)."""
    return generate("dev", seed, entities_per_type, phrasebook=phrases_dev_twentyseventh.BOOK, name=NAME)
