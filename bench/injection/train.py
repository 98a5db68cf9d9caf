"""Regenerate the shipped injection dataset, train the linear classifier and report held-out precision/recall.

    python -m bench.injection.train [--out-dir DIR]

Deterministic: the same seed gives the same dataset, weights and metrics. By default it writes where they ship:
the dataset to bench/data/injection_dataset.jsonl, the weights to the runtime's model path
(gateway/guardrails/injection/data/model.npz, the only artefact the gateway loads) and the held-out metrics to
bench/results/injection_training.json. With ``--out-dir`` all three go into that directory instead
(dataset.jsonl, model.npz, metrics.json), leaving the shipped files untouched.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bench.injection.dataset import DATASET_PATH, generate, write
from bench.provenance import write_results
from gateway.guardrails.injection.classifier import DEFAULT_MODEL_PATH, LinearInjectionClassifier
from gateway.guardrails.injection.features import DIM, sparse_features
from gateway.guardrails.injection.heuristics import match_rules

METRICS_PATH = Path(__file__).resolve().parents[1] / "results" / "injection_training.json"


@dataclass(frozen=True)
class Outputs:
    dataset: Path
    model: Path
    metrics: Path

    @classmethod
    def shipped(cls) -> Outputs:
        return cls(dataset=DATASET_PATH, model=DEFAULT_MODEL_PATH, metrics=METRICS_PATH)

    @classmethod
    def under(cls, directory: Path) -> Outputs:
        return cls(dataset=directory / "dataset.jsonl", model=directory / "model.npz",
                   metrics=directory / "metrics.json")


def fit_logistic_regression(
    texts: list[str], labels: np.ndarray, *, steps: int = 400, learning_rate: float = 0.05, l2: float = 1e-4
) -> tuple[np.ndarray, float]:
    """Full-batch Adam on the class-balanced log loss; the sparse rows are segment sums via np.bincount."""
    rows, cols, vals = [], [], []
    for row, text in enumerate(texts):
        indices, values = sparse_features(text)
        rows.append(np.full(len(indices), row))
        cols.append(indices)
        vals.append(values)
    row_ids, col_ids, values = np.concatenate(rows), np.concatenate(cols), np.concatenate(vals).astype(np.float64)
    n = len(texts)
    positives = labels.sum()
    sample_weight = np.where(labels == 1, n / (2 * positives), n / (2 * (n - positives))) / n
    weights, bias = np.zeros(DIM), 0.0
    m_w, v_w, m_b, v_b = np.zeros(DIM), np.zeros(DIM), 0.0, 0.0
    beta1, beta2, eps = 0.9, 0.999, 1e-8
    for step in range(1, steps + 1):
        logits = np.bincount(row_ids, weights=weights[col_ids] * values, minlength=n) + bias
        error = (1.0 / (1.0 + np.exp(-logits)) - labels) * sample_weight
        grad_w = np.bincount(col_ids, weights=error[row_ids] * values, minlength=DIM) + l2 * weights
        grad_b = error.sum()
        m_w = beta1 * m_w + (1 - beta1) * grad_w
        v_w = beta2 * v_w + (1 - beta2) * grad_w**2
        m_b = beta1 * m_b + (1 - beta1) * grad_b
        v_b = beta2 * v_b + (1 - beta2) * grad_b**2
        correction1, correction2 = 1 - beta1**step, 1 - beta2**step
        weights -= learning_rate * (m_w / correction1) / (np.sqrt(v_w / correction2) + eps)
        bias -= learning_rate * (m_b / correction1) / (np.sqrt(v_b / correction2) + eps)
    return weights.astype(np.float32), float(bias)


def precision_recall(predicted: np.ndarray, labels: np.ndarray) -> dict[str, float]:
    true_positive = int(np.sum(predicted & (labels == 1)))
    precision = true_positive / max(1, int(predicted.sum()))
    recall = true_positive / max(1, int((labels == 1).sum()))
    return {"precision": round(precision, 4), "recall": round(recall, 4)}


def train(outputs: Outputs) -> dict[str, object]:
    """Generate the dataset, fit the classifier on its train split, score the held-out split; write all three."""
    rows = generate()
    write(rows, outputs.dataset)
    train_rows = [row for row in rows if row["split"] == "train"]
    test_rows = [row for row in rows if row["split"] == "test"]
    weights, bias = fit_logistic_regression(
        [str(r["text"]) for r in train_rows], np.array([r["label"] for r in train_rows])
    )
    classifier = LinearInjectionClassifier(weights, bias)
    outputs.model.parent.mkdir(parents=True, exist_ok=True)
    classifier.save(outputs.model)

    labels = np.array([row["label"] for row in test_rows])
    model_scores = np.array([classifier.probability(str(row["text"])) for row in test_rows])
    rule_scores = np.array([max((r.score for r in match_rules(str(row["text"]))), default=0.0) for row in test_rows])
    metrics: dict[str, object] = {
        "train_samples": len(train_rows),
        "test_samples": len(test_rows),
        "test_positives": int(labels.sum()),
        "held_out_families": sorted({str(row["family"]) for row in test_rows}),
        "classifier@0.5": precision_recall(model_scores >= 0.5, labels),
        "heuristics@0.8": precision_recall(rule_scores >= 0.8, labels),
        "combined@0.8": precision_recall(np.maximum(model_scores, rule_scores) >= 0.8, labels),
    }
    write_results(outputs.metrics, metrics)
    return metrics


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out-dir", type=Path, help="write dataset.jsonl, model.npz and metrics.json here instead "
                                                     "of over the shipped files")
    args = parser.parse_args(argv)
    outputs = Outputs.under(args.out_dir) if args.out_dir else Outputs.shipped()
    print(json.dumps(train(outputs), indent=2))


if __name__ == "__main__":
    main()
