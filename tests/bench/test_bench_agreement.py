"""bench.agreement's greedy scoring, and the benchmark end to end at its smallest (eager, 2 prompts, 4 tokens)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from bench import agreement


def test_each_prompt_scores_the_share_of_tokens_before_its_first_difference() -> None:
    reference = [[1, 2, 3, 4], [5, 6, 7, 8], [9, 9, 9, 9]]
    outputs = [[1, 2, 3, 4], [5, 6, 0, 8], [0, 9, 9, 9]]  # identical; differs at 2 (then agrees again); at 0
    assert agreement.score(outputs, reference) == {"tokens_before_divergence": round(100 * (1 + 0.5 + 0) / 3, 1),
                                                   "identical": 1, "prompts": 3}
    with pytest.raises(ValueError):  # an output of another length is a broken run, not a score
        agreement.score([[1, 2, 3]], [[1, 2, 3, 4]])


@pytest.mark.slow
def test_the_benchmark_runs_its_configurations_and_restores_the_kernel_choice(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv("WARDEN_KERNELS", raising=False)
    out = tmp_path / "agreement.json"
    chosen = ["bf16+int4", "bf16+int4/torch-kernels"]
    assert agreement.main(["--prompts", "2", "--max-tokens", "4", "--eager", "--threads", "2", "--only",
                           ",".join(chosen), "--out", str(out)]) == 0
    report = json.loads(out.read_text())
    assert list(report["results"]) == chosen
    for row in report["results"].values():
        assert row["prompts"] == 2 and 0 <= row["identical"] <= 2 and 0.0 <= row["tokens_before_divergence"] <= 100.0
        assert list(row["teacher_forced"]) == ["prefill", "decode@1", "decode@2"]  # default: 1, 8 -> 2 prompts
        for forced in row["teacher_forced"].values():
            assert forced["positions"] == 2 * 4 and 0.0 <= forced["top1"] <= 100.0
            assert forced["kl_mean"] >= 0.0 and forced["kl_p99"] >= 0.0
    # the "torch kernels" configuration sets WARDEN_KERNELS for its engine only
    assert "WARDEN_KERNELS" not in os.environ


def test_an_unknown_configuration_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        agreement.main(["--only", "bf16,fp8"])
    assert "fp8" in capsys.readouterr().err
