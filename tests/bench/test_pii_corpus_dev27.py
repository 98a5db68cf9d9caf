"""The twenty-seventh dev-side PII corpus (``bench.pii_corpus.dev_twentyseventh``, ``--split dev-27``): the main
corpus's generator (its pools, contexts, types and quotas, the `dev` half) with a second phrase bank of its own written
blind; reproducible (in any process), apart from `dev` and dev-26, offsets exact, every clause of its bank with one slot
and every language, type and decoy kind the contexts ask for, and registered as a blind split.

First blind score at 8e7a44a (NER on, PYTHONHASHSEED=0, --skip-throughput; 1,925 cases, 4,800 entities, 1,483 hard
negatives), Warden / Presidio default: recall .984 / .631, precision .986 / .463, hard negatives flagged .008 / .249;
PERSON R .948 P .983 (Presidio .555 / .205), LOCATION R .985 P .949 (Presidio .460 / .502), US_SSN R .890 (44
unformatted nine-digit numbers missed; Presidio 1.0 / .883), PHONE P .945. Warden's recall by family: person first-last
.983, first-last:lower .781, first-only .842, first-only:lower 1.0, middle-initial .929 (:lower 1.0), double-last .979
(:lower .857); location city .986, city:lower .905, country 1.0, country:lower .923, us-state 1.0 (and :lower); by
context chat-lower .964, sentence-en .976, sentence-es .973, sentence-de .975."""

from __future__ import annotations

from collections import Counter

import pytest
from pii_corpus_support import (
    assert_reproducible_and_apart_from_dev,
    assert_spans_exact_and_apart,
    printed_by_a_process,
    values,
)

from bench.pii_corpus import decoys, dev_twentyseventh, phrases_dev_twentyseventh
from bench.pii_corpus.contexts import CONTEXTS
from bench.pii_corpus.dev_twentyseventh import generate_twentyseventh_dev
from bench.pii_corpus.generator import ENTITIES_PER_TYPE, ENTITY_TYPES
from bench.pii_corpus.partition import split_of

BOOK = phrases_dev_twentyseventh.BOOK


@pytest.fixture(scope="module")
def cases() -> list[dict]:
    return [dict(case) for case in generate_twentyseventh_dev()]


def test_same_corpus_every_time_other_seed_other_corpus_and_apart_from_dev(cases):
    assert_reproducible_and_apart_from_dev(generate_twentyseventh_dev, "dev-27-", cases)


def test_apart_from_dev_26(cases):
    from bench.pii_corpus.dev_twentysixth import generate_twentysixth_dev

    assert not {case["text"] for case in generate_twentysixth_dev()} & {case["text"] for case in cases}


def test_same_corpus_in_processes_of_other_hash_seeds():
    code = "from bench.pii_corpus.dev_twentyseventh import generate_twentyseventh_dev as g; print(g(30))"
    assert printed_by_a_process(code, "1") == printed_by_a_process(code, "2")


def test_the_main_corpus_quotas_contexts_and_exact_spans(cases):
    counts = Counter(e["type"] for case in cases for e in case["entities"])
    assert all(counts[t] >= ENTITIES_PER_TYPE for t in ENTITY_TYPES), counts
    assert 1500 <= len(cases) <= 2500
    assert_spans_exact_and_apart(cases)
    assert {case["context"] for case in cases} == {context.name for context in CONTEXTS}
    chat = [e for case in cases if case["context"] == "chat-lower" for e in case["entities"]]
    assert sum(e["type"] == "PERSON" and e["subtype"].endswith(":lower") for e in chat) >= 40


def test_values_are_of_the_dev_half(cases):
    for entity_type in ("LOCATION", "EMAIL_ADDRESS"):  # a person is partitioned by its name parts, a phone by number
        assert all(split_of(e["value"]) == "dev" for e in values(cases, entity_type)), entity_type


def test_the_bank_covers_every_language_type_and_kind_with_one_slot_a_clause():
    languages = {context.lang for context in CONTEXTS if context.render.__name__ == "sentences"}
    assert set(BOOK.sentences) >= languages and set(BOOK.decoy_sentences) >= languages
    for language in languages:
        assert set(BOOK.sentences[language]) >= set(ENTITY_TYPES), language
        assert set(BOOK.decoy_sentences[language]) >= set(decoys.KINDS), language
    assert set(BOOK.chat) >= set(ENTITY_TYPES) and set(BOOK.chat_decoys) >= set(decoys.KINDS)
    signed = {context.lang for context in CONTEXTS if context.render.__name__ == "signature"}
    assert set(BOOK.signoffs) >= signed
    banks = [*BOOK.chat.values(), *BOOK.chat_decoys.values()]
    banks += [bank for by_kind in (*BOOK.sentences.values(), *BOOK.decoy_sentences.values())
              for bank in by_kind.values()]  # fmt: skip
    assert all(clause.count("{}") == 1 and "{" not in clause.replace("{}", "") for bank in banks for clause in bank)
    assert all(len(BOOK.sentences[language]["PERSON"]) >= 15 for language in languages)
    assert len(BOOK.chat["PERSON"]) >= 30 and len(BOOK.chat["LOCATION"]) >= 20


def test_the_bench_reads_it_as_its_split_and_it_is_blind(cases):
    from bench import guardrails
    from bench.pii_corpus.dev_splits import BLIND_SPLITS, SHAPED_SPLITS

    assert guardrails.load_corpus(dev_twentyseventh.NAME) == cases
    assert dev_twentyseventh.NAME in BLIND_SPLITS and dev_twentyseventh.NAME not in SHAPED_SPLITS
