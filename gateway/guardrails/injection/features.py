"""Hashed character n-gram features, vectorised with numpy (no Python loop per n-gram).

Text is lower-cased, whitespace-collapsed and encoded to UTF-8 bytes; every 3-, 4- and 5-byte window is hashed with a
polynomial hash into `dim` buckets; counts are log-scaled and L2-normalised. Character n-grams survive the spelling
games attackers play ("ign0re previous instructions", extra punctuation) better than word features.
"""

from __future__ import annotations

import numpy as np

DIM = 1 << 17
NGRAM_SIZES = (3, 4, 5)
_PRIME = np.uint64(1_000_003)
_MIX = np.uint64(0x9E3779B97F4A7C15)


def normalize(text: str) -> str:
    return " ".join(text.lower().split())


def sparse_features(text: str, dim: int = DIM) -> tuple[np.ndarray, np.ndarray]:
    """(bucket indices, weights) of one text: the non-zero entries of its feature vector."""
    data = np.frombuffer(normalize(text).encode("utf-8", "replace"), dtype=np.uint8).astype(np.uint64)
    buckets = []
    for size in NGRAM_SIZES:
        if len(data) < size:
            continue
        hashed = np.full(len(data) - size + 1, np.uint64(size), dtype=np.uint64)
        for offset in range(size):
            hashed = hashed * _PRIME + data[offset : len(data) - size + 1 + offset]
        buckets.append(((hashed * _MIX) >> np.uint64(40)) % np.uint64(dim))
    if not buckets:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
    indices, counts = np.unique(np.concatenate(buckets).astype(np.int64), return_counts=True)
    weights = np.log1p(counts).astype(np.float32)
    weights /= np.linalg.norm(weights)
    return indices, weights


def chunks(text: str, size: int = 512, overlap: int = 128) -> list[str]:
    """Overlapping windows: an instruction hidden in a long tool output is scored on its own, not diluted."""
    if len(text) <= size:
        return [text]
    step = size - overlap
    return [text[start : start + size] for start in range(0, len(text) - overlap, step)]
