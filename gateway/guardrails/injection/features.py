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
    for size in NGRAM_SIZES:
        if len(data) < size:
            continue
        hashed = np.full(len(data) - size + 1, np.uint64(size), dtype=np.uint64)
        for offset in range(size):
            hashed = hashed * _PRIME + data[offset : len(data) - size + 1 + offset]
        buckets = _buckets((hashed * _MIX) >> np.uint64(40), dim)
        for index, (start, end) in enumerate(pairwise(bounds)):
            if end - start >= size:  # the n-grams that start and end inside this text
                keys.append(buckets[start : end - size + 1] + index * dim)
    if not keys:
        return [(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)) for _ in texts]
    # Keys sorted as 32-bit integers where they fit: numpy sorts those about twice as fast as 64-bit ones.
    key_type = np.int32 if len(texts) * dim <= np.iinfo(np.int32).max else np.int64
    unique, counts = np.unique(np.concatenate(keys).astype(key_type), return_counts=True)
    edges = np.searchsorted(unique, np.arange(len(texts) + 1) * dim).tolist()
    features = []
    for index, (first, last) in enumerate(pairwise(edges)):
        if first == last:
            features.append((np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)))
            continue
        weights = np.log1p(counts[first:last]).astype(np.float32)
        weights /= np.linalg.norm(weights)
        features.append(((unique[first:last] - index * dim).astype(np.int64), weights))
    return features


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
