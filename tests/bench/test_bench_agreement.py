"""bench.agreement's scoring (greedy divergence, and teacher-forced against a tiny random model's own float32
outputs), and the benchmark end to end at its smallest (eager, 2 prompts, 4 tokens)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import torch

from bench import agreement
from engine.config import EngineConfig
from engine.llm import LLM
from engine.sampling_params import SamplingParams
from tests.engine.tiny_models import write_tiny_checkpoint


def test_each_prompt_scores_the_share_of_tokens_before_its_first_difference() -> None:
    reference = [[1, 2, 3, 4], [5, 6, 7, 8], [9, 9, 9, 9]]
    outputs = [[1, 2, 3, 4], [5, 6, 0, 8], [0, 9, 9, 9]]  # identical; differs at 2 (then agrees again); at 0
    assert agreement.score(outputs, reference) == {"tokens_before_divergence": round(100 * (1 + 0.5 + 0) / 3, 1),
                                                   "identical": 1, "prompts": 3}
    with pytest.raises(ValueError):  # an output of another length is a broken run, not a score
        agreement.score([[1, 2, 3]], [[1, 2, 3, 4]])


def test_teacher_forcing_reads_the_distribution_of_each_output_token(tmp_path: Path) -> None:
    llm = LLM(EngineConfig(model=str(write_tiny_checkpoint(tmp_path / "tiny")), dtype="float32", show_progress=False,
                           compile_model=False, kv_cache_memory_mb=16))
    batch = [[1, 5, 9, 200, 31], [1, 77, 1024, 3, 3, 3, 18]]
    outputs = [list(o.token_ids) for o in llm.generate(batch, SamplingParams(max_tokens=6, temperature=0,
                                                                              ignore_eos=True))]
    free = llm.engine.block_manager.num_free_blocks
    reference = [agreement.teacher_forced_logprobs(llm, p, o) for p, o in zip(batch, outputs, strict=True)]
    assert llm.engine.block_manager.num_free_blocks == free  # the borrowed blocks went back
    for output, logprobs in zip(outputs, reference, strict=True):
        assert logprobs.shape == (6, llm.engine.runner.vocab_size)
        assert torch.allclose(logprobs.exp().sum(-1), torch.ones(6), atol=1e-4)
        # position i is the distribution greedy decoding picked token i from: aligned, not off by one
        assert logprobs.argmax(-1).tolist() == output
    same = agreement.teacher_forced_score(llm, batch, outputs, reference)
    assert same == {"teacher_forced_top1": 100.0, "teacher_forced_kl_mean": 0.0, "teacher_forced_kl_p99": 0.0,
                    "positions": 12}
    # another distribution at one position: KL grows there, and top-1 drops where the argmax moved
    shifted = [reference[0].clone(), reference[1]]
    shifted[0][2] = torch.log_softmax(-reference[0][2], dim=-1)
    moved = agreement.teacher_forced_score(llm, batch, outputs, shifted)
    assert moved["teacher_forced_top1"] == round(100 * 11 / 12, 2) and moved["teacher_forced_kl_mean"] > 0


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
        assert row["positions"] == 2 * 4 and 0.0 <= row["teacher_forced_top1"] <= 100.0
        assert row["teacher_forced_kl_mean"] >= 0.0 and row["teacher_forced_kl_p99"] >= 0.0
    # the "torch kernels" configuration sets WARDEN_KERNELS for its engine only
    assert "WARDEN_KERNELS" not in os.environ


def test_an_unknown_configuration_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        agreement.main(["--only", "bf16,fp8"])
    assert "fp8" in capsys.readouterr().err
