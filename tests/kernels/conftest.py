"""Backends the kernel tests run on: the Triton kernels interpreted on the CPU (``TRITON_INTERPRET=1``, float32
and float16 — the interpreter computes bfloat16 wrongly), and natively on CUDA when a device is present (float32,
float16 and bfloat16; skipped with a visible reason otherwise)."""

from __future__ import annotations

import importlib.util
import os
import sys
from dataclasses import dataclass
from types import ModuleType, SimpleNamespace

import pytest
import torch

HAS_CUDA = torch.cuda.is_available()
HAS_TRITON = importlib.util.find_spec("triton") is not None
# In import order: a module that imports another's @triton.jit helpers comes after it (block-sparse attention
# calls paged attention's), so the interpreted copy binds the interpreted helper.
KERNEL_MODULES = (
    "activation", "paged_attention", "block_sparse_attention", "fused_moe", "kv_store", "rms_norm", "rotary")


def _namespace(modules: dict[str, ModuleType]) -> ModuleType:
    """The public functions of ``kernels.triton`` taken from ``modules``, plus ``.modules`` for the internals."""
    namespace = SimpleNamespace(modules=modules)
    for public in importlib.import_module("kernels.triton").__all__:
        setattr(namespace, public, next(getattr(m, public) for m in modules.values() if hasattr(m, public)))
    return namespace  # type: ignore[return-value]


@dataclass(frozen=True, slots=True)
class Backend:
    name: str
    device: torch.device
    dtype: torch.dtype


def _interpreted_kernels() -> ModuleType:
    """Fresh copies of the kernel modules whose ``@triton.jit`` ran with TRITON_INTERPRET=1 (decided when the
    decorator runs), so the copies run on CPU tensors. While they load, each copy stands in ``sys.modules`` so a
    copy importing another kernel module's helpers gets the interpreted helper, not the compiled-only one; the
    normally imported package is put back afterwards."""
    previous = os.environ.get("TRITON_INTERPRET")
    os.environ["TRITON_INTERPRET"] = "1"
    imported = {f"kernels.triton.{name}": sys.modules.get(f"kernels.triton.{name}") for name in KERNEL_MODULES}
    try:
        modules = {}
        for name in KERNEL_MODULES:
            spec = importlib.util.find_spec(f"kernels.triton.{name}")
            assert spec is not None and spec.loader is not None
            modules[name] = importlib.util.module_from_spec(spec)
            sys.modules[spec.name] = modules[name]
            spec.loader.exec_module(modules[name])
        return _namespace(modules)
    finally:
        for qualified, module in imported.items():
            if module is None:
                sys.modules.pop(qualified, None)
            else:
                sys.modules[qualified] = module
        if previous is None:
            del os.environ["TRITON_INTERPRET"]
        else:
            os.environ["TRITON_INTERPRET"] = previous


_needs_triton = pytest.mark.skipif(not HAS_TRITON, reason="triton is not installed: Triton kernels cannot be checked")
_needs_cuda = [
    pytest.mark.cuda,
    pytest.mark.skipif(not HAS_CUDA, reason="needs a CUDA device (runs in bench/gpu_check.sh)"),
]

BACKENDS = [
    pytest.param(Backend("interpret", torch.device("cpu"), torch.float32), id="interpret-fp32", marks=_needs_triton),
    pytest.param(Backend("interpret", torch.device("cpu"), torch.float16), id="interpret-fp16", marks=_needs_triton),
    pytest.param(Backend("cuda", torch.device("cuda"), torch.float32), id="cuda-fp32", marks=_needs_cuda),
    pytest.param(Backend("cuda", torch.device("cuda"), torch.float16), id="cuda-fp16", marks=_needs_cuda),
    pytest.param(Backend("cuda", torch.device("cuda"), torch.bfloat16), id="cuda-bf16", marks=_needs_cuda),
]

# Tolerances against the torch reference: float32 runs IEEE dot products, so only summation order differs.
TOLERANCE = {
    torch.float32: {"atol": 2e-5, "rtol": 2e-5},
    torch.float16: {"atol": 3e-3, "rtol": 3e-3},
    torch.bfloat16: {"atol": 2e-2, "rtol": 2e-2},
}


def _interpretable_language(monkeypatch: pytest.MonkeyPatch) -> None:
    """``tl.sum``, ``tl.max``, ``tl.cdiv``… are themselves ``@triton.jit`` functions, compiled-only when triton was
    imported without TRITON_INTERPRET (as it is once any other test imported it). For this test, swap in
    interpreted twins of them so interpreted kernels can call them; CUDA tests later see the originals."""
    import triton.language as tl
    from triton.runtime.interpreter import InterpretedFunction
    from triton.runtime.jit import JITFunction

    for name, value in list(vars(tl).items()):
        if isinstance(value, JITFunction):
            monkeypatch.setattr(tl, name, InterpretedFunction(value.fn))


@pytest.fixture(scope="session")
def interpreted() -> ModuleType:
    return _interpreted_kernels()


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> Backend:
    return request.param


@pytest.fixture()
def ops(backend: Backend, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """The Triton kernels for ``backend``: ``ops.paged_attention(...)``, ``ops.modules["paged_attention"]``."""
    if backend.name == "interpret":
        # Triton also consults the flag while interpreting (lazy imports), so it stays set during the test.
        monkeypatch.setenv("TRITON_INTERPRET", "1")
        _interpretable_language(monkeypatch)
        return request.getfixturevalue("interpreted")
    return _namespace({n: importlib.import_module(f"kernels.triton.{n}") for n in KERNEL_MODULES})
