"""bench.sliding_window: the decode-kernel rows (every backend, both sides timed) and a --quick run's report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.sliding_window import bench_decode_kernel, main


def test_decode_kernel_rows_time_both_sides_per_backend() -> None:
    rows = bench_decode_kernel([64, 160], window=32, rounds=1)
    backends = {(row["backend"], row["dtype"]) for row in rows}
    assert ("reference", "float32") in backends
    assert len(rows) == 2 * len(backends)
    assert all(row["global_us"] > 0 and row["windowed_us"] > 0 and row["window"] == 32 for row in rows)


@pytest.mark.slow
def test_quick_run_writes_every_part(tmp_path: Path) -> None:
    out = tmp_path / "sliding_window.json"
    main(["--quick", "--threads", "1", "--out", str(out)])
    report = json.loads(out.read_text())
    assert set(report["families"]) == {"mistral", "gemma2", "gemma3_text"}
    for family in report["families"].values():
        for side in ("warden", "transformers"):
            assert family[side]["prefill_tok_s"] > 0 and family[side]["decode_tok_s"] > 0
    assert {row["context"] for row in report["decode_kernel"]} == {512, 2048}
    long_context = report["long_context"]
    assert long_context["windowed"]["blocks_released"] > 0 and long_context["global"]["blocks_released"] == 0
    assert report["machine"]["threads"] == 1
