"""The serving profile: what "auto" dtype, quantization and compile_model become, per device and CPU flags."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from engine.config import (
    EXACT,
    FAST_CPU,
    FAST_CUDA,
    EngineConfig,
    ServingChoice,
    cpu_flags,
    cxx_compiler_available,
    fastest_serving,
)

# Flag sets as /proc/cpuinfo lists them (abridged to what the choice reads, plus neighbours that must not matter).
SAPPHIRE_RAPIDS = frozenset([
    "sse4_2", "avx", "avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512_vnni", "avx512_bf16", "amx_bf16",
    "amx_tile", "amx_int8",
])
ZEN4 = frozenset([
    "sse4_2", "avx", "avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512vl", "avx512_vnni", "avx512_bf16",
])
SKYLAKE_X = frozenset([  # AVX-512 without BF16
    "sse4_2", "avx", "avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512vl",
])
ZEN3 = frozenset(["sse4_2", "avx", "avx2", "fma", "f16c", "bmi2"])
SANDY_BRIDGE = frozenset(["sse4_2", "avx"])  # no AVX2: kernels.cpu has no build for it
AVX2_WITHOUT_FMA = frozenset(["sse4_2", "avx", "avx2"])
GRAVITON3 = frozenset(["fp", "asimd", "sve", "bf16", "i8mm"])  # Arm "Features"
NO_COMPILE = ServingChoice("bfloat16", "int4", False)


@pytest.mark.parametrize(("device", "flags", "cxx", "expected"), [
    ("cpu", SAPPHIRE_RAPIDS, True, FAST_CPU),
    ("cpu", ZEN4, True, FAST_CPU),
    ("cpu", SKYLAKE_X, True, FAST_CPU),
    ("cpu", ZEN3, True, FAST_CPU),
    ("cpu", ZEN4, False, NO_COMPILE),  # inductor needs a C++ compiler; the kernels' int4 path does not
    ("cpu", ZEN3, False, NO_COMPILE),
    ("cpu", SANDY_BRIDGE, True, EXACT),
    ("cpu", AVX2_WITHOUT_FMA, True, EXACT),
    ("cpu", GRAVITON3, True, EXACT),
    ("cpu", frozenset(), True, EXACT),  # /proc/cpuinfo unreadable
    ("cuda", frozenset(), True, FAST_CUDA),
    ("cuda", frozenset(), False, FAST_CUDA),
    ("mps", ZEN4, True, EXACT),
])
def test_fastest_serving_per_machine(device: str, flags: frozenset[str], cxx: bool, expected: ServingChoice) -> None:
    assert fastest_serving(device, flags, cxx=cxx) == expected


def test_the_choices_are_the_measured_configurations() -> None:
    assert ServingChoice("bfloat16", "int4", True) == FAST_CPU
    assert ServingChoice("bfloat16", None, False) == FAST_CUDA
    assert ServingChoice("float32", None, False) == EXACT


@pytest.mark.parametrize(("text", "expected"), [
    ("processor\t: 0\nflags\t\t: fpu avx2 fma\nbugs\t\t: spectre\n\nprocessor\t: 1\nflags\t\t: fpu\n",
     {"fpu", "avx2", "fma"}),  # the first CPU's line only
    ("processor\t: 0\nFeatures\t: fp asimd sve\n", {"fp", "asimd", "sve"}),
    ("processor\t: 0\nmodel name\t: something with flags: in it\n", set()),
    ("", set()),
])
def test_cpu_flags_reads_the_first_cpus_flags(tmp_path: Path, text: str, expected: set[str]) -> None:
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text(text)
    assert cpu_flags(cpuinfo) == expected


def test_cpu_flags_without_cpuinfo_is_empty(tmp_path: Path) -> None:
    assert cpu_flags(tmp_path / "missing") == frozenset()


def test_cxx_compiler_follows_cxx(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CXX", "/nonexistent/c++")
    assert not cxx_compiler_available()
    monkeypatch.setenv("CXX", "sh")  # any program on the PATH stands in for a compiler here
    assert cxx_compiler_available()


def test_exact_profile_is_float32_eager_everywhere() -> None:
    for device in ("cpu", "cuda"):
        resolved = EngineConfig(profile="exact").resolved_for(torch.device(device))
        assert (resolved.dtype, resolved.quantization, resolved.compile_model) == ("float32", None, False)


def test_the_library_default_is_exact() -> None:
    assert EngineConfig().profile == "exact"
    resolved = EngineConfig().resolved_for(torch.device("cpu"))
    assert (resolved.dtype, resolved.quantization, resolved.compile_model) == ("float32", None, False)


def test_fast_profile_on_this_machine_matches_its_flags() -> None:
    resolved = EngineConfig(profile="fast").resolved_for(torch.device("cpu"))
    expected = fastest_serving("cpu", cpu_flags(), cxx=cxx_compiler_available())
    assert (resolved.dtype, resolved.quantization, resolved.compile_model) == (
        expected.dtype, expected.quantization, expected.compile_model)


def test_fast_profile_on_cuda_needs_no_gpu_to_resolve() -> None:
    resolved = EngineConfig(profile="fast").resolved_for(torch.device("cuda"))
    assert (resolved.dtype, resolved.quantization, resolved.compile_model) == ("bfloat16", None, False)


def test_explicit_values_win_over_the_profile() -> None:
    config = EngineConfig(profile="fast", dtype="float32", quantization=None, compile_model=False)
    resolved = config.resolved_for(torch.device("cuda"))
    assert (resolved.dtype, resolved.quantization, resolved.compile_model) == ("float32", None, False)
    config = EngineConfig(profile="exact", dtype="bfloat16", quantization="int8", compile_model=True)
    resolved = config.resolved_for(torch.device("cpu"))
    assert (resolved.dtype, resolved.quantization, resolved.compile_model) == ("bfloat16", "int8", True)


def test_resolution_keeps_every_other_field() -> None:
    config = EngineConfig(profile="fast", max_num_seqs=7, block_size=8, compile_cache_dir="/var/cache/warden")
    resolved = config.resolved_for(torch.device("cuda"))
    assert (resolved.max_num_seqs, resolved.block_size, resolved.compile_cache_dir) == (7, 8, "/var/cache/warden")
    assert resolved.resolved_for(torch.device("cuda")) == resolved  # nothing "auto" is left


@pytest.mark.parametrize("bad", [{"profile": "fastest"}, {"quantization": "int3"}, {"dtype": "bf16"}])
def test_bad_values_are_refused(bad: dict[str, str]) -> None:
    with pytest.raises(ValueError):
        EngineConfig(**bad)  # type: ignore[arg-type]
