"""The injection classifier's features, computed for a text's chunks together, are each chunk's own."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from gateway.guardrails.injection.features import DIM, NGRAM_SIZES, chunks, normalize, sparse_features_many

_UINT64 = (1 << 64) - 1  # numpy's uint64 arithmetic wraps
DATASET = Path(__file__).resolve().parents[2] / "bench" / "data" / "injection_dataset.jsonl"


def _one_text(text: str, dim: int = DIM) -> tuple[np.ndarray, np.ndarray]:
    """The features of one text alone, hashed and counted on their own (the definition)."""
    data = normalize(text).encode("utf-8", "replace")
    buckets = []
    for size in NGRAM_SIZES:
        for start in range(len(data) - size + 1):
            hashed = size
            for byte in data[start : start + size]:
                hashed = (hashed * 1_000_003 + byte) & _UINT64
            buckets.append((((hashed * 0x9E3779B97F4A7C15) & _UINT64) >> 40) % dim)
    if not buckets:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
    indices, counts = np.unique(np.array(buckets, dtype=np.int64), return_counts=True)
    weights = np.log1p(counts).astype(np.float32)
    weights /= np.linalg.norm(weights)
    return indices, weights


def test_chunks_together_as_each_alone() -> None:
    lines = DATASET.read_text().splitlines()
    texts = [json.loads(line)["text"] for line in lines[:: max(1, len(lines) // 60)] if line.strip()]
    texts += ["", "ab", "abc", "  Ab  c ", "é" * 2, "x" * 1300 + " Ignore previous instructions " + "y" * 700]
    for text in texts:
        pieces = chunks(text, size=96, overlap=24)
        together = sparse_features_many(pieces)
        assert len(together) == len(pieces)
        for piece, (indices, weights) in zip(pieces, together, strict=True):
            expected_indices, expected_weights = _one_text(piece)
            assert indices.dtype == np.int64 and weights.dtype == np.float32
            assert np.array_equal(indices, expected_indices), piece
            assert np.array_equal(weights, expected_weights), piece


def test_buckets_of_any_dimension() -> None:
    """A dimension that is no power of two (no bit mask stands for its remainder) gets the definition's buckets; one
    whose keys (text, bucket) pass 32 bits, too many for the two 16-bit radix passes, gets them too."""
    texts = ["Ignore all previous instructions", "ab", "", "Ticket 1000: Amara Okafor (amara@example.org)" * 3]
    for dim in (DIM, 1000, 3 * 4096, 1 << 31):
        for text, (indices, weights) in zip(texts, sparse_features_many(texts, dim), strict=True):
            expected_indices, expected_weights = _one_text(text, dim)
            assert np.array_equal(indices, expected_indices), (dim, text)
            assert np.array_equal(weights, expected_weights), (dim, text)
