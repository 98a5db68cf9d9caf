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


@pytest.mark.slow
def test_the_suffix_method_on_chat_alone_keeps_outputs_and_reports_cpu_time(tmp_path: Path) -> None:
    out = tmp_path / "suffix.json"
    status = spec_decode.main(["--repeat", "2", "--no-compile", "--dtype", "float32", "--quantization", "none",
                               "--max-tokens", "16", "--threads", "2", "--levels", "c1,c8", "--method", "suffix",
                               "--workloads", "chat", "--out", str(out)])
    report = json.loads(out.read_text())
    assert status == 0
    assert report["identical_greedy_outputs"]["requests"] == report["identical_greedy_outputs"]["of"] == 40
    assert set(report["tok_s"]) == set(report["cpu_tok_s"]) == {"plain", "suffix"}
    assert set(report["ratio"]) == set(report["ratio_cpu"]) == {"chat/c1", "chat/c8"}
    assert all(x > 0 for x in report["cpu_tok_s"]["suffix"].values())
    assert report["settings"]["workloads"] == ["chat"]


def test_no_chat_question_is_asked_twice_in_a_run() -> None:
    asked = [spec_decode.chat_question(i) for i in range(len(spec_decode.TOPICS) * len(spec_decode.ASKS))]
    assert len(set(asked)) == len(asked) >= 5 * (4 + 16 + 32)  # five rounds of every level
    topics = spec_decode.TOPICS
    # a topic comes back only after every other one, under another ask
    assert all(topic in question for topic, question in zip(topics, asked, strict=False))
    assert topics[0] in asked[len(topics)] and asked[len(topics)] != asked[0]


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
