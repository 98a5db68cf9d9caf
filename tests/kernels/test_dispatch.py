"""The dispatch point: the C++ CPU kernels where built (references for the other ops), Triton for CUDA tensors,
the references everywhere with WARDEN_KERNELS=reference, and a forced module for tests."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from types import ModuleType, SimpleNamespace

import pytest
import torch

from kernels import dispatch
from kernels.reference import activation, block_sparse_attention, fused_moe, kv_store, paged_attention, rms_norm, rotary

OPS = {
    "store_kvcache": kv_store.store_kvcache,
    "paged_attention": paged_attention.paged_attention,
    "rms_norm": rms_norm.rms_norm,
    "fused_add_rms_norm": rms_norm.fused_add_rms_norm,
    "rotary_embedding": rotary.rotary_embedding,
    "silu_and_mul": activation.silu_and_mul,
    "fused_moe": fused_moe.fused_moe,
    "block_sparse_attention": block_sparse_attention.block_sparse_attention,
}
CPP_OPS = ("block_sparse_attention", "paged_attention", "store_kvcache")  # what kernels.cpu serves on CPU tensors


@pytest.fixture()
def fresh_choice() -> Iterator[None]:
    dispatch._triton_module.cache_clear()
    dispatch._cpu_module.cache_clear()
    yield
    dispatch._triton_module.cache_clear()
    dispatch._cpu_module.cache_clear()


@pytest.mark.parametrize("name", list(OPS))
def test_cpu_tensors_use_the_cpp_kernels_where_built_else_the_reference(
        name: str, fresh_choice: None, monkeypatch: pytest.MonkeyPatch) -> None:
    import kernels.cpu

    monkeypatch.delenv("WARDEN_KERNELS", raising=False)
    built = kernels.cpu.load()
    expected = getattr(kernels.cpu, name) if built and name in CPP_OPS else OPS[name]
    assert dispatch._pick(torch.device("cpu"), name, OPS[name]) is expected
    dispatch._cpu_module.cache_clear()
    monkeypatch.setenv("WARDEN_KERNELS", "reference")
    assert dispatch._pick(torch.device("cpu"), name, OPS[name]) is OPS[name]


def test_cpp_kernels_build_on_this_machine() -> None:
    """CI installs a C++ toolchain (.ci/run): the CPU fast path must not silently fall back there."""
    import kernels.cpu

    assert kernels.cpu.load()


def test_one_row_quantized_linears_come_from_the_cpp_kernels_where_they_run(
        fresh_choice: None, monkeypatch: pytest.MonkeyPatch) -> None:
    import kernels.cpu

    monkeypatch.delenv("WARDEN_KERNELS", raising=False)
    if not (kernels.cpu.load() and kernels.cpu.one_row_linear_supported("int4", 64, 64)):
        pytest.skip("this CPU lacks AVX-512 VNNI")
    assert dispatch.cpu_one_row_linear("int4", 128, 96) is kernels.cpu.int4_linear_two_level
    assert dispatch.cpu_one_row_linear("int8", 96, 128) is kernels.cpu.int8_linear
    assert dispatch.cpu_one_row_linear("int4", 48, 128) is None  # torch packs 48 rows another way
    assert dispatch.cpu_one_row_linear("int8", 128, 96) is None  # not whole 64-input chunks
    assert dispatch.cpu_int8_linear_up_to(96, 128) is kernels.cpu.int8_linear_up_to
    assert dispatch.cpu_int8_linear_up_to(128, 96) is None
    with pytest.raises(ValueError, match="no one-row linear for 'int2'"):
        dispatch.cpu_one_row_linear("int2", 128, 128)
    with dispatch.forced_kernels(SimpleNamespace()):  # type: ignore[arg-type]
        assert dispatch.cpu_one_row_linear("int4", 128, 128) is None
        assert dispatch.cpu_one_row_linear("int8", 128, 128) is None
        assert dispatch.cpu_int8_linear_up_to(128, 128) is None


@pytest.mark.skipif(importlib.util.find_spec("triton") is None, reason="triton is not installed")
@pytest.mark.parametrize("name", list(OPS))
def test_cuda_tensors_use_triton_unless_told_otherwise(name: str, fresh_choice: None,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    import kernels.triton

    monkeypatch.delenv("WARDEN_KERNELS", raising=False)
    assert dispatch._pick(torch.device("cuda"), name, OPS[name]) is getattr(kernels.triton, name)
    dispatch._triton_module.cache_clear()
    monkeypatch.setenv("WARDEN_KERNELS", "reference")
    assert dispatch._pick(torch.device("cuda"), name, OPS[name]) is OPS[name]


def test_triton_package_exports_every_dispatched_op() -> None:
    if importlib.util.find_spec("triton") is None:
        pytest.skip("triton is not installed")
    import kernels.triton

    assert set(kernels.triton.__all__) == set(OPS)


def test_forced_kernels_apply_on_every_device_and_nest() -> None:
    calls: list[str] = []
    fake: ModuleType = SimpleNamespace(silu_and_mul=lambda x: calls.append("outer") or x)  # type: ignore[assignment]
    inner: ModuleType = SimpleNamespace(silu_and_mul=lambda x: calls.append("inner") or x)  # type: ignore[assignment]
    x = torch.ones(1, 4)
    with dispatch.forced_kernels(fake):
        dispatch.silu_and_mul(x)
        with dispatch.forced_kernels(inner):
            dispatch.silu_and_mul(x)
        dispatch.silu_and_mul(x)
    assert calls == ["outer", "inner", "outer"]
    assert torch.equal(dispatch.silu_and_mul(torch.zeros(1, 4)), torch.zeros(1, 2))  # back to the reference


def test_uses_triton_only_for_cuda_without_override(fresh_choice: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("WARDEN_KERNELS", raising=False)
    assert not dispatch.uses_triton(torch.device("cpu"))
    assert dispatch.uses_triton(torch.device("cuda")) == (importlib.util.find_spec("triton") is not None)
    with dispatch.forced_kernels(SimpleNamespace()):  # type: ignore[arg-type]
        assert not dispatch.uses_triton(torch.device("cuda"))
    dispatch._triton_module.cache_clear()
    monkeypatch.setenv("WARDEN_KERNELS", "reference")
    assert not dispatch.uses_triton(torch.device("cuda"))


def test_cpu_fused_moe_runs_the_grouped_path_unless_told_otherwise(monkeypatch: pytest.MonkeyPatch) -> None:
    """The grouped CPU path is plain torch: it serves CPU tensors whether or not the C++ kernels are built."""
    import kernels.cpu.fused_moe as grouped

    calls: list[str] = []
    monkeypatch.setattr(grouped, "fused_moe", lambda *args: calls.append("grouped") or args[0])
    monkeypatch.setattr(fused_moe, "fused_moe", lambda *args: calls.append("reference") or args[0])
    args = (torch.zeros(1, 4), torch.zeros(2, 4, 4), torch.zeros(2, 4, 2), torch.ones(1, 1), torch.zeros(1, 1))
    monkeypatch.delenv("WARDEN_KERNELS", raising=False)
    dispatch.fused_moe(*args)
    monkeypatch.setenv("WARDEN_KERNELS", "reference")
    dispatch.fused_moe(*args)
    assert calls == ["grouped", "reference"]
