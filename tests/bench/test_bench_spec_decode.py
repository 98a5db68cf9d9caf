"""bench.spec_decode end to end at its smallest: float32 eager, where speculation must leave every greedy output
unchanged (the benchmark's exit status), and the report it writes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import spec_decode
from tests.engine.tiny_models import write_tiny_checkpoint


@pytest.mark.slow
def test_the_benchmark_runs_and_finds_outputs_unchanged(tmp_path: Path) -> None:
    out = tmp_path / "spec.json"
    status = spec_decode.main(["--quick", "--repeat", "1", "--no-compile", "--dtype", "float32", "--quantization",
                               "none", "--max-tokens", "24", "--threads", "2", "--levels", "c1", "--out", str(out)])
    report = json.loads(out.read_text())
    assert status == 0
    # Two speculating engines (adaptive, every proposal) compared with the plain one on 8 requests each (one at a
    # time: batches of drafting sequences are the engine tests' and the draft-model run's below).
    assert report["identical_greedy_outputs"]["requests"] == report["identical_greedy_outputs"]["of"] == 16
    assert set(report["tok_s"]) == {"plain", "ngram", "ngram_every_proposal"}
    keys = {f"{w}/c1" for w in ("quote", "edit", "extract", "chat")}
    assert set(report["ratio"]) == set(report["ratio_every_proposal"]) == keys
    assert report["acceptance_every_proposal"]["quote"]["accepted"] > 0
    assert "1" in report["step_costs_ms"]["plain_step_costs"]  # the adaptive engine timed its one-sequence steps


def test_the_draft_model_variant_with_a_draft_equal_to_its_target(tmp_path: Path) -> None:
    """A tiny random model (the default tokenizer) drafting for itself: outputs unchanged, every draft accepted."""
    tiny = str(write_tiny_checkpoint(tmp_path / "tiny"))
    out = tmp_path / "draft.json"
    status = spec_decode.main(["--quick", "--repeat", "1", "--no-compile", "--dtype", "float32", "--quantization",
                               "none", "--max-tokens", "16", "--threads", "2", "--levels", "c1,c8", "--model", tiny,
                               "--method", "draft_model", "--draft-model", tiny, "--draft-quantization", "none",
                               "--out", str(out)])
    report = json.loads(out.read_text())
    assert status == 0 and report["identical_greedy_outputs"]["requests"] == 40
    assert set(report["tok_s"]) == {"plain", "draft_model"}
    drafted = sum(a["drafted"] for a in report["acceptance"].values())
    assert drafted > 0 and sum(a["accepted"] for a in report["acceptance"].values()) == drafted
