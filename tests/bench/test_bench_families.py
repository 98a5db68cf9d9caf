"""bench.families --quick on a mixture-of-experts family: both sides timed, ratios and the MoE kernel rows written;
--merge keeps the families of an earlier run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.families import main


@pytest.mark.slow
def test_quick_run_writes_the_family_and_merges(tmp_path: Path) -> None:
    out = tmp_path / "families.json"
    out.write_text(json.dumps({"families": {"earlier": {"warden": {}}}, "runs": []}))
    main(["--quick", "--only", "mixtral", "--out", str(out), "--merge"])
    report = json.loads(out.read_text())
    assert set(report["families"]) == {"earlier", "mixtral"}
    mixtral = report["families"]["mixtral"]
    for side in ("warden", "transformers"):
        assert mixtral[side]["prefill_tok_s"] > 0 and mixtral[side]["decode_tok_s"] > 0
    assert mixtral["prefill_tok_s_ratio"] > 0 and mixtral["decode_tok_s_ratio"] > 0
    assert [row["tokens"] for row in mixtral["moe_kernel"]] == [1, 4]
    assert all(row["grouped_us"] > 0 and row["reference_us"] > 0 for row in mixtral["moe_kernel"])
    assert report["runs"][-1]["families"] == ["mixtral"]
