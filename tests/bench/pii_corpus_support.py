"""What the dev-side PII corpus tests read from a generated split, and one check they all make."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
from collections import Counter
from collections.abc import Callable

from bench.pii_corpus import generate


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


def assert_quota_offsets_and_contexts(cases: list[dict], per_type: int, entity_types: tuple[str, ...],
                                      own_contexts: set[str], other_contexts: set[str]) -> None:
    """Each type's quota met, 1,000-1,500 cases, every span's offsets exact and no two spans overlapping, the split's
    contexts all used and none of another split's."""
    counts = Counter(e["type"] for case in cases for e in case["entities"])
    assert all(counts[t] >= per_type for t in entity_types)
    assert 1000 <= len(cases) <= 1500
    for case in cases:
        for span in (*case["entities"], *case["negatives"]):
            assert case["text"][span["start"] : span["end"]] == span["value"]
        spans = sorted((s["start"], s["end"]) for s in (*case["entities"], *case["negatives"]))
        assert all(end <= start for (_, end), (start, _) in itertools.pairwise(spans))
    assert {case["context"] for case in cases} == own_contexts
    assert not own_contexts & other_contexts  # no context of another split
