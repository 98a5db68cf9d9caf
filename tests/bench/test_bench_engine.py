"""bench.engine end to end at its smallest (eager, no HF side, 2 tokens, one round) with a small-batch-rows
variant: every engine is measured at every concurrency and the variant is reported against the default."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import engine as engine_bench

pytestmark = pytest.mark.slow


def test_a_small_batch_rows_variant_runs_beside_the_default_engine(tmp_path: Path) -> None:
    out = tmp_path / "engine.json"
    assert engine_bench.main(["--quick", "--skip-hf", "--no-compile", "--threads", "1", "--max-tokens", "2",
                              "--repeat", "1", "--compare-small-batch-rows", "16", "--out", str(out)]) == 0
    report = json.loads(out.read_text())
    assert set(report["rounds"]) == {"warden", "warden-rows16"} and report["hf"] == {}
    assert set(report["variants"]) == set(report["variants_over_warden"]) == {"warden-rows16"}
    for name in ("c1", "c8", "c32"):
        default, variant = report["warden"][name], report["variants"]["warden-rows16"][name]
        assert default > 0 and variant > 0
        # The JSON keeps tok/s to 0.1 and the ratio (of the unrounded medians) to 0.001: at the few tok/s of this
        # smallest run the rounding alone moves variant / default by several percent (3.0 and 2.9 tok/s: ratio 0.989).
        low, high = (variant - 0.05) / (default + 0.05), (variant + 0.05) / (default - 0.05)
        assert low - 0.0005 <= report["variants_over_warden"]["warden-rows16"][name] <= high + 0.0005


def test_bad_row_bounds_are_a_usage_error() -> None:
    with pytest.raises(SystemExit):
        engine_bench.main(["--compare-small-batch-rows", "8,x"])


def test_the_sides_order_rotates_by_round() -> None:
    """No side always runs right after another (HF's float32 model flushes the caches the next side finds)."""
    calls: list[str] = []

    def runner(name: str):
        def run(batch: list[list[int]]) -> int:
            calls.append(name)
            return len(batch)
        return run

    class Tokenizer:
        def encode(self, text: str) -> list[int]:
            return [1, 2, 3]

        def apply_chat_template(self, messages: list[dict]) -> str:
            return messages[0]["content"]

    samples = engine_bench.bench({s: runner(s) for s in ("warden", "variant", "hf")}, {"c1": (1, 1)}, Tokenizer(),
                                 repeat=3)
    assert calls == ["warden", "variant", "hf", "variant", "hf", "warden", "hf", "warden", "variant"]
    assert all(len(per["c1"]) == 3 for per in samples.values())


def test_the_kv_cache_dtype_reaches_the_engine_and_the_report(tmp_path: Path) -> None:
    out = tmp_path / "engine.json"
    assert engine_bench.main(["--quick", "--skip-hf", "--no-compile", "--threads", "1", "--max-tokens", "2",
                              "--repeat", "1", "--kv-cache-dtype", "int8", "--out", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["settings"]["warden_kv_cache_dtype"] == "int8"
    assert all(report["warden"][name] > 0 for name in ("c1", "c8", "c32"))


def test_an_unknown_kv_cache_dtype_is_a_usage_error() -> None:
    with pytest.raises(SystemExit):
        engine_bench.main(["--kv-cache-dtype", "fp8"])
