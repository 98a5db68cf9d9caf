"""The twenty-seventh dev-side PII corpus (``bench.pii_corpus.dev_twentyseventh``, ``--split dev-27``): the main
corpus's generator (its pools, contexts, types and quotas, the `dev` half) with a second phrase bank of its own written
blind; reproducible (in any process), apart from `dev` and dev-26, offsets exact, every clause of its bank with one slot
and every language, type and decoy kind the contexts ask for, and registered as a blind split.

Blind score, untuned (NER on, PYTHONHASHSEED=0, --skip-throughput; 1,925 cases, 4,800 entities, 1,483 hard
negatives), Warden / Presidio default: recall .984 / .631, precision .986 / .463, hard negatives flagged .008 / .249;
PERSON R .948 P .983 (Presidio .555 / .205), LOCATION R .985 P .949 (Presidio .460 / .502), US_SSN R .890 (44
unformatted nine-digit numbers missed; Presidio 1.0 / .883), PHONE P .945. Warden's recall by family: person first-last
.983, first-last:lower .781, first-only .842, first-only:lower 1.0, middle-initial .929 (:lower 1.0), double-last .979
(:lower .857); location city .986, city:lower .905, country 1.0, country:lower .923, us-state 1.0 (and :lower); by
context chat-lower .964, sentence-en .976, sentence-es .973, sentence-de .975."""

from __future__ import annotations

import pytest
from pii_corpus_support import MainGeneratorBankChecks

from bench.pii_corpus import dev_twentyseventh, phrases_dev_twentyseventh
from bench.pii_corpus.dev_twentyseventh import generate_twentyseventh_dev


@pytest.fixture(scope="module")
def cases() -> list[dict]:
    return [dict(case) for case in generate_twentyseventh_dev()]


class TestDevTwentySeventh(MainGeneratorBankChecks):
    generate = staticmethod(generate_twentyseventh_dev)
    name = dev_twentyseventh.NAME
    book = phrases_dev_twentyseventh.BOOK
    fresh_process_code = "from bench.pii_corpus.dev_twentyseventh import generate_twentyseventh_dev as g; print(g(30))"


def test_apart_from_dev_26(cases):
    from bench.pii_corpus.dev_twentysixth import generate_twentysixth_dev

    assert not {case["text"] for case in generate_twentysixth_dev()} & {case["text"] for case in cases}
