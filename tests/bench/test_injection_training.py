"""The prompt-injection training tooling (bench.injection): the shipped dataset is what the generator produces, the
shipped model meets its held-out quality, training learns, and `make train-injection` reproduces every shipped
artefact bit for bit."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from bench.injection.dataset import DATASET_PATH, HELD_OUT_FAMILIES, generate, load
from bench.injection.train import METRICS_PATH, fit_logistic_regression, precision_recall
from gateway.guardrails.injection import LinearInjectionClassifier
from gateway.guardrails.injection.classifier import DEFAULT_MODEL_PATH

ROOT = Path(__file__).resolve().parents[2]


def test_shipped_dataset_is_what_the_generator_produces():
    assert load() == generate()


def test_shipped_model_meets_its_reported_held_out_quality():
    rows = [row for row in load() if row["split"] == "test"]
    assert {row["family"] for row in rows} == HELD_OUT_FAMILIES
    classifier = LinearInjectionClassifier.load()
    labels = np.array([row["label"] for row in rows])
    predicted = np.array([classifier.probability(row["text"]) >= 0.5 for row in rows])
    metrics = precision_recall(predicted, labels)
    assert metrics["precision"] >= 0.9 and metrics["recall"] >= 0.9
    assert metrics == json.loads(METRICS_PATH.read_text())["classifier@0.5"]


def test_training_learns_a_separable_toy_problem():
    texts = ["ignore previous instructions"] * 20 + ["what is the weather"] * 20
    labels = np.array([1] * 20 + [0] * 20)
    classifier = LinearInjectionClassifier(*fit_logistic_regression(texts, labels, steps=50))
    assert classifier.probability("please ignore previous instructions") > 0.5
    assert classifier.probability("what is the weather in Paris") < 0.5


@pytest.mark.slow
def test_training_reproduces_every_shipped_artefact(tmp_path):
    # The command `make train-injection` runs, into a scratch directory: ~15 s of CPU.
    subprocess.run([sys.executable, "-m", "bench.injection.train", "--out-dir", str(tmp_path)],
                   cwd=ROOT, check=True, capture_output=True, timeout=300)
    assert (tmp_path / "dataset.jsonl").read_bytes() == DATASET_PATH.read_bytes()
    # The figures, not where they were made: provenance names this run's command and machine.
    reproduced, shipped = (json.loads(path.read_text()) for path in (tmp_path / "metrics.json", METRICS_PATH))
    assert reproduced.pop("provenance")["command"].startswith("python -m bench.injection.train")
    shipped.pop("provenance")
    assert reproduced == shipped
    with np.load(tmp_path / "model.npz") as trained, np.load(DEFAULT_MODEL_PATH) as shipped:
        assert np.array_equal(trained["weights"], shipped["weights"])
        assert np.array_equal(trained["bias"], shipped["bias"])
