"""bench.kernels on the CPU (--cpu-smoke: Triton interpreted, tiny shapes): the decode- and prefill-attention
sweeps time every config they list and keep each one's figure, and the configs swept on a GPU cover both program
layouts."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("triton")


def test_cpu_smoke_writes_every_section(tmp_path: Path) -> None:
    out = tmp_path / "kernels.json"
    # Its own process: the smoke run sets TRITON_INTERPRET before kernels.triton is imported.
    subprocess.run([sys.executable, "-m", "bench.kernels", "--cpu-smoke", "--skip-engine", "--out", str(out)],
                   check=True, capture_output=True, timeout=300)
    report = json.loads(out.read_text())
    assert report["smoke"] is True
    [decode] = report["decode_attention"]
    assert [entry["kv_heads_per_program"] for entry in decode["sweep"]] == [None, 1]
    assert all(entry["ms"] > 0 for entry in decode["sweep"])
    assert [row["op"] for row in report["fused_ops"]] == ["fused_add_rms_norm", "rotary_embedding", "silu_and_mul"]
    [prefill] = report["prefill_attention"]
    assert [entry["pack_query_heads"] for entry in prefill["sweep"]] == [True, False]
    assert all(entry["ms"] > 0 and entry["tflops"] > 0 for entry in prefill["sweep"])


def test_gpu_prefill_sweep_covers_packed_and_one_head_programs() -> None:
    from bench.kernels import prefill_configs
    from kernels.triton.paged_attention import DEFAULT_PREFILL

    configs = prefill_configs()
    assert configs[0] == DEFAULT_PREFILL and len(set(configs)) == len(configs)
    assert [config.pack_query_heads for config in configs].count(False) == 1


def test_gpu_sweep_covers_packed_and_one_head_programs() -> None:
    from bench.kernels import decode_configs
    from kernels.triton.paged_attention import DEFAULT_DECODE

    configs = decode_configs(packed=3)
    assert configs[0] == DEFAULT_DECODE and len(set(configs)) == len(configs)
    per_program = [config.kv_heads_per_program for config in configs]
    assert per_program.count(1) >= 4 and per_program.count(3) >= 4
