"""The twenty-sixth dev-side PII corpus (``bench.pii_corpus.dev_twentysixth``, ``--split dev-26``): the main
corpus's generator (its pools, contexts, types and quotas, the `dev` half) with a phrase bank of its own written
blind; reproducible (in any process), apart from `dev`, offsets exact, every clause of its bank with one slot and
every language, type and decoy kind the contexts ask for, and registered as a blind split.

Blind score, untuned (NER on, PYTHONHASHSEED=0, --skip-throughput; 1,928 cases, 4,800 entities, 1,592
hard negatives), Warden / Presidio default: recall .994 / .628, precision .985 / .460, hard negatives flagged
.013 / .280; PERSON R .953 P .967 (Presidio .605 / .226), LOCATION R .988 P .953 (Presidio .390 / .474); PHONE P .952.
Warden's recall by family: person first-last .978, first-last:lower .865, first-only .92, first-only:lower .75,
double-last 1.0 (:lower .5), middle-initial 1.0 (:lower .5); location city .986, city:lower .966, country 1.0,
country:lower .917, us-state 1.0 (and :lower); by context chat-lower .975, sentence-de .989, sentence-es .990."""

from __future__ import annotations

import pytest
from pii_corpus_support import MainGeneratorBankChecks

from bench.pii_corpus import dev_twentysixth, phrases_dev_twentysixth
from bench.pii_corpus.dev_twentysixth import generate_twentysixth_dev


@pytest.fixture(scope="module")
def cases() -> list[dict]:
    return [dict(case) for case in generate_twentysixth_dev()]


class TestDevTwentySixth(MainGeneratorBankChecks):
    generate = staticmethod(generate_twentysixth_dev)
    name = dev_twentysixth.NAME
    book = phrases_dev_twentysixth.BOOK
    fresh_process_code = "from bench.pii_corpus.dev_twentysixth import generate_twentysixth_dev as g; print(g(30))"
