"""Hashed character n-gram features, vectorised with numpy (no Python loop per n-gram).

Text is lower-cased, whitespace-collapsed and encoded to UTF-8 bytes; every 3-, 4- and 5-byte window is hashed with a
polynomial hash into `dim` buckets; counts are log-scaled and L2-normalised. Character n-grams survive the spelling
games attackers play ("ign0re previous instructions", extra punctuation) better than word features.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

import numpy as np

DIM = 1 << 17
NGRAM_SIZES = (3, 4, 5)
_PRIME = np.uint64(1_000_003)
_MIX = np.uint64(0x9E3779B97F4A7C15)


def normalize(text: str) -> str:
    return " ".join(text.lower().split())


def sparse_features(text: str, dim: int = DIM) -> tuple[np.ndarray, np.ndarray]:
    """(bucket indices, weights) of one text: the non-zero entries of its feature vector."""
    return sparse_features_many([text], dim)[0]


def sparse_features_many(texts: Sequence[str], dim: int = DIM) -> list[tuple[np.ndarray, np.ndarray]]:
    """``sparse_features`` of each text, with one pass of numpy operations over all of them (a long text's chunks):
    per text, most of the time went to the fixed cost of each operation on its few hundred bytes. The n-grams are
    hashed over the texts' bytes laid end to end, those across two texts dropped, and counted per text in one sort
    (keyed by text, then bucket): each text gets the entries, in the order and types, that it alone would."""
    encoded = [normalize(text).encode("utf-8", "replace") for text in texts]
    data = np.frombuffer(b"".join(encoded), dtype=np.uint8).astype(np.uint64)
    bounds = np.cumsum([0, *map(len, encoded)]).tolist()
    keys = []
    for size, hashed in _ngram_hashes(data):
        buckets = _buckets((hashed * _MIX) >> np.uint64(40), dim)
        for index, (start, end) in enumerate(pairwise(bounds)):
            if end - start >= size:  # the n-grams that start and end inside this text
                keys.append(buckets[start : end - size + 1] + index * dim)
    if not keys:
        return [(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)) for _ in texts]
    unique, counts = _unique_counts(np.concatenate(keys), len(texts) * dim)
    edges = np.searchsorted(unique, np.arange(len(texts) + 1) * dim).tolist()
    # The log-scaled counts of all texts in one call, each text's then L2-normalised in place: ``np.linalg.norm``'s
    # own arithmetic for a vector (the square root of its dot product with itself), without its checks per call.
    all_weights = np.log1p(counts).astype(np.float32)
    features = []
    for index, (first, last) in enumerate(pairwise(edges)):
        if first == last:
            features.append((np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)))
            continue
        weights = all_weights[first:last]
        weights /= np.sqrt(weights.dot(weights))
        features.append((unique[first:last] - index * dim, weights))
    return features


def _ngram_hashes(data: np.ndarray) -> list[tuple[int, np.ndarray]]:
    """(size, hash of the n-gram starting at each byte) for each n-gram size that fits in ``data``.

    The hash of an n-gram of ``size`` bytes is ``size * P^size + b0 * P^(size-1) + ... + b(size-1)`` modulo 2^64, so
    the next size's hash is this one's plus ``P^size`` (the seeds differ by one), times ``P``, plus the next byte:
    three array operations per size instead of ``2 * size`` (the same numbers, as uint64 arithmetic wraps)."""
    hashes: list[tuple[int, np.ndarray]] = []
    hashed: np.ndarray | None = None
    for size in range(1, NGRAM_SIZES[-1] + 1):
        if len(data) < size:
            break
        count = len(data) - size + 1
        if hashed is None:
            hashed = np.uint64(size) * _PRIME + data[:count]
        else:
            seed_step = np.uint64(pow(int(_PRIME), size - 1, 1 << 64))
            hashed = (hashed[:count] + seed_step) * _PRIME + data[size - 1 : size - 1 + count]
        if size in NGRAM_SIZES:
            hashes.append((size, hashed))
    return hashes


def _unique_counts(keys: np.ndarray, key_range: int) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(keys, return_counts=True)`` for keys in ``[0, key_range)``, sorted by two stable passes of numpy's
    radix sort over 16-bit halves where the keys fit in 32 bits: about two thirds of the time of the comparison sort
    inside ``np.unique`` for a 2 KB prompt's ~7,600 keys (a count over the whole key range costs ten times more: it
    reads ``key_range`` entries, ~650,000 for five chunks, to find a few thousand)."""
    if key_range > 1 << 32:
        return np.unique(keys, return_counts=True)
    low_order = np.argsort((keys & 0xFFFF).astype(np.uint16), kind="stable")
    by_low = keys[low_order]
    ordered = by_low[np.argsort((by_low >> 16).astype(np.uint16), kind="stable")]
    starts = np.empty(len(ordered), dtype=bool)
    starts[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=starts[1:])
    first = np.flatnonzero(starts)
    counts = np.empty_like(first)  # ``np.diff(first, append=len(ordered))``, without its concatenation
    np.subtract(first[1:], first[:-1], out=counts[:-1])
    counts[-1] = len(ordered) - first[-1]
    return ordered[first], counts


def _buckets(mixed: np.ndarray, dim: int) -> np.ndarray:
    """``mixed % dim`` as int64: a power-of-two ``dim`` (``DIM``) as its bit mask, the same numbers without the 64-bit
    division per n-gram (about a sixth of a 2 KB prompt's feature time)."""
    if dim & (dim - 1) == 0:
        return (mixed & np.uint64(dim - 1)).astype(np.int64)
    return (mixed % np.uint64(dim)).astype(np.int64)


def chunks(text: str, size: int = 512, overlap: int = 128) -> list[str]:
    """Overlapping windows: an instruction hidden in a long tool output is scored on its own, not diluted."""
    if len(text) <= size:
        return [text]
    step = size - overlap
    return [text[start : start + size] for start in range(0, len(text) - overlap, step)]
