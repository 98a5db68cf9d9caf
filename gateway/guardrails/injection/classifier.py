"""Injection classifiers behind one interface: the shipped linear model, or an operator's ONNX model."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

import numpy as np

from gateway.guardrails.injection.features import DIM, chunks, sparse_features, sparse_features_many

DEFAULT_MODEL_PATH = Path(__file__).parent / "data" / "model.npz"


class InjectionClassifier(Protocol):
    name: str

    def probability(self, text: str) -> float:
        """Probability that the text carries an injected instruction."""
        ...


class LinearInjectionClassifier:
    """Logistic regression over hashed character n-grams, trained by `python -m bench.injection.train`.

    A long text is scored as the maximum over overlapping chunks, so an instruction buried in a long tool output
    is not averaged away by the benign text around it.
    """

    name = "linear-char-ngrams"

    def __init__(self, weights: np.ndarray, bias: float) -> None:
        if weights.shape != (DIM,):
            raise ValueError(f"expected {DIM} weights, got {weights.shape}")
        self._weights = weights.astype(np.float32)
        self._bias = float(bias)

    @classmethod
    def load(cls, path: Path = DEFAULT_MODEL_PATH) -> LinearInjectionClassifier:
        with np.load(path) as archive:
            return cls(archive["weights"], float(archive["bias"]))

    def save(self, path: Path) -> None:
        np.savez_compressed(path, weights=self._weights, bias=np.float32(self._bias))

    def logit(self, text: str) -> float:
        indices, values = sparse_features(text)
        return float(self._weights[indices] @ values) + self._bias

    def probability(self, text: str) -> float:
        best = max(float(self._weights[indices] @ values) + self._bias
                   for indices, values in sparse_features_many(chunks(text)))
        return float(1.0 / (1.0 + np.exp(-best)))
