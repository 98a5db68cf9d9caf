"""bench.block_sparse: one prompt's row (every side timed, the kept share of block pairs) and the pattern's share."""

from __future__ import annotations

import pytest

import kernels.cpu
from bench.block_sparse import PATTERN, bench_prompt, visited_fraction


def test_visited_fraction_shrinks_with_the_prompt() -> None:
    assert visited_fraction(PATTERN, 1024) == 1.0  # 16 blocks: all local
    fractions = [visited_fraction(PATTERN, n) for n in (2048, 8192, 32768)]
    assert fractions == sorted(fractions, reverse=True) and fractions[-1] < 0.35


def test_prompt_row_times_every_side() -> None:
    if not kernels.cpu.load():
        pytest.skip("the C++ CPU kernels cannot be built here")
    row = bench_prompt(2048, rounds=1, with_dispatch=True, warm_up=False)
    assert row["prompt_len"] == 2048 and 0.5 < row["visited_fraction"] < 1.0
    assert row["sparse_s"] > 0 and row["dense_same_kernel_s"] > 0 and row["dense_dispatch_s"] > 0
    assert row["speedup_vs_dense_same_kernel"] > 0 and row["speedup_vs_dense_dispatch"] > 0
