"""The PII corpus' splits are phrased apart: no clause, chat line, sign-off or signature label of `test` is one of
`dev`'s, and no PERSON clause of `test` puts the same words next to the name as a `dev` clause does."""

from __future__ import annotations

import re

import pytest

from bench.pii_corpus import generate
from bench.pii_corpus.contexts import PHRASEBOOKS
from bench.pii_corpus.model import Phrasebook

CUE_WORDS = 2  # the words on each side of a name that a cue detector reads


def clauses(book: Phrasebook) -> set[str]:
    found = {clause for banks in (*book.sentences.values(), *book.decoy_sentences.values())
             for bank in banks.values() for clause in bank}  # fmt: skip
    found |= {clause for bank in (*book.chat.values(), *book.chat_decoys.values()) for clause in bank}
    found |= {line for lines in book.signoffs.values() for line in lines}
    return found | {label for labels in book.signature_labels.values() for label in labels if label}


def person_clauses(book: Phrasebook) -> list[str]:
    return [clause for bank in book.sentences.values() for clause in bank["PERSON"]] + book.chat["PERSON"]


def cues(clause: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The words just before ``{}`` and just after it, lower case, punctuation dropped."""
    before, _, after = clause.lower().partition("{}")
    words = lambda text: re.findall(r"[^\W\d_]+(?:'[^\W\d_]+)?", text)  # noqa: E731
    return tuple(words(before)[-CUE_WORDS:]), tuple(words(after)[:CUE_WORDS])


def test_no_clause_is_in_both_splits():
    dev, test = clauses(PHRASEBOOKS["dev"]), clauses(PHRASEBOOKS["test"])
    assert dev and test
    assert not dev & test


def test_no_person_cue_of_test_is_one_of_dev():
    dev = [cues(clause) for clause in person_clauses(PHRASEBOOKS["dev"])]
    dev_before, dev_after = {b for b, _ in dev if b}, {a for _, a in dev if a}
    for clause in person_clauses(PHRASEBOOKS["test"]):
        before, after = cues(clause)
        assert before not in dev_before and after not in dev_after, clause


def test_both_splits_phrase_every_type_in_every_language():
    dev, test = PHRASEBOOKS["dev"], PHRASEBOOKS["test"]
    for field in ("sentences", "decoy_sentences"):
        assert {lang: set(bank) for lang, bank in getattr(test, field).items()} == \
            {lang: set(bank) for lang, bank in getattr(dev, field).items()}  # fmt: skip
        assert all(bank for banks in getattr(test, field).values() for bank in banks.values())
    assert set(test.chat) == set(dev.chat) and set(test.chat_decoys) == set(dev.chat_decoys)
    assert set(test.signoffs) == set(dev.signoffs) and set(test.signature_labels) == set(dev.signature_labels)


@pytest.mark.parametrize("split", ["dev", "test"])
def test_a_split_is_written_with_its_own_phrasings_only(split):
    other = "test" if split == "dev" else "dev"
    own, foreign = clauses(PHRASEBOOKS[split]), clauses(PHRASEBOOKS[other]) - clauses(PHRASEBOOKS[split])
    texts = "\n".join(case["text"] for case in generate(split, entities_per_type=60))

    def written(clause: str) -> bool:
        before, _, after = clause.partition("{}")
        return re.search(re.escape(before) + r"[^\n]+?" + re.escape(after), texts) is not None

    long_enough = lambda clause: len(clause.replace("{}", "")) >= 12  # noqa: E731  short labels occur by chance
    assert sum(written(clause) for clause in own if long_enough(clause)) >= 10
    assert not [clause for clause in foreign if long_enough(clause) and written(clause)]
