"""kernels/cpu's AVX-512 code paths built under SIMDe's AVX-512 emulation, for tests on CPUs without AVX-512.

``kernels.cpu`` builds its C++ kernels with ``-march=native``: on an AVX2-only machine (AMD Zen 2/3, the
development and some CI machines) the AVX-512 paths, the production path on the serving CPUs, are never compiled
nor run. ``build()`` copies the current ``kernels/cpu`` sources, rewrites them so that those paths compile on this
machine with SIMDe (https://github.com/simd-everywhere/simde, Debian's ``libsimde-dev``: every ``_mm512_*``
intrinsic in portable code, here mostly pairs of native AVX2 instructions) and loads the result under its own op
namespace, ``torch.ops.warden_cpu_avx512sim``, beside the native ``warden_cpu`` build. It runs the kernels'
logic (lanes, masks, tails, tiles, summation order), not their speed. The rewrites, per copied source:

- the AVX-512 feature guards (``defined(__AVX512F__)``, ``__AVX512BW__``, ``__AVX512VL__``, ``__AVX512VNNI__``,
  ``__AVX512BF16__`` in ``#if``/``#elif``/``#ifdef``) read as true, so ``quantize_input.h`` defines
  ``WARDEN_ONE_ROW_VECTOR`` (the int4 and int8 linears' AVX-512 VNNI kernels and vector quantization),
  ``argmax.cpp`` ``WARDEN_ARGMAX_VECTOR``, ``paged_attention.cpp`` ``WARDEN_BF16_ATTENTION``, ``int4_gemm_bf16.cpp``
  ``WARDEN_BF16_GEMM`` and ``int8_gemm_bf16.cpp`` ``WARDEN_INT8_BF16_GEMM``;
- ``#include <immintrin.h>`` becomes ``simde_shim.h``: the native intrinsics, SIMDe's AVX-512 with its native
  aliases, and per-lane versions of the 20 intrinsics SIMDe 0.7.4 lacks;
- ``TORCH_LIBRARY*(warden_cpu, ...)`` registers under ``warden_cpu_avx512sim``;
- ``at::_convert_weight_to_int4pack_for_cpu``, which the int4 linear calls to probe torch's packing
  (``packing_block_rows``), packs 64-row blocks as torch does on AVX-512 machines: this machine's torch packs
  32-row blocks (``kernels.reference.quantized_linear.int4_block_rows``), which the AVX-512 int4 kernel does not
  read, so without this it would dispatch to the AVX2 kernel. In this build ``int4_linear`` therefore runs the
  AVX-512 kernel and ``int4_linear_avx2`` the AVX2 one, both on weights in 64-row blocks (the test's
  ``pack_int4``), and so does ``int4_gemm_bf16``; only ``int4_linear_up_to``'s torch branch (float16 inputs above its
  rows: ``torch._weight_int4pack_mm_for_cpu``, this machine's torch) still expects 32-row blocks.

Covered: ``int8_linear`` (+ ``int8_linear_up_to``), ``int8_gemm_bf16`` (AVX512-BF16), ``int4_linear``
(+ ``int4_linear_two_level``, ``int4_linear_up_to``), ``int4_gemm_bf16`` (AVX512-BF16), ``argmax``'s vector path
and the bfloat16 ``decode_attention`` (AVX512-BF16). Where the emulation is exact, so are the checks: every
integer and float32 operation the int8 kernel uses is emulated bit for bit (SIMDe's, or the shim's per-lane
versions), so its results must equal the native AVX2 build's bitwise, as on a real AVX-512 CPU. ``vdpbf16ps`` is
emulated as its two bfloat16 products (exact in float32) added in turn, without the instruction's flushing of
denormals and perhaps not in its order of the two additions: the attention is checked within the native tests'
bfloat16 tolerance, as there. Not covered: ``paged_attention.cpp``'s generic kernel (float32, float16, and
bfloat16 head dims not a multiple of 32) and the KV-cache store, which have no AVX-512 code of their own: their
vectors are ATen's ``Vectorized``, compiled for this machine's AVX2 (``CPU_CAPABILITY``), as the native tests run
them; and any CPU without AVX2 (the shim's native half). SIMDe's vectors are plain vector arithmetic, which GCC
contracts (``-ffp-contract=fast``): a multiply and an add written apart may run as one FMA here, as GCC's own
AVX-512 intrinsics (plain vector arithmetic too) allow natively; a perturbation of that kind was seen to be invisible.

A rewrite that no longer finds what it rewrites (the sources changed) raises ``EmulationBuildError``, so the
tests fail rather than silently check the AVX2 paths.
"""

from __future__ import annotations

import hashlib
import os
import re
from functools import cache
from pathlib import Path
from typing import Any

import torch

NAMESPACE = "warden_cpu_avx512sim"
SOURCE_DIR = Path(__file__).resolve().parents[2] / "kernels" / "cpu"
SHIM = Path(__file__).with_name("simde_shim.h")
SIMDE_HEADER = Path("/usr/include/simde/x86/avx512.h")
# The loader's flags (kernels/cpu/__init__.py), with ATen's vector types compiled for this machine's AVX2.
CFLAGS = ["-O3", "-march=native", "-fopenmp", "-DCPU_CAPABILITY=AVX2", "-DCPU_CAPABILITY_AVX2"]
MAX_JOBS = 2  # compilers at once, unless MAX_JOBS is set (the 2-core machines are shared)

# A preprocessor condition line, and the AVX-512 feature macros in it.
_CONDITION = re.compile(r"^[ \t]*#[ \t]*(?:if|elif)\b.*$", re.M)
_AVX512_DEFINED = re.compile(r"defined[ \t]*(?:\([ \t]*__AVX512\w*__[ \t]*\)|[ \t]+__AVX512\w*__\b)")
_AVX512_IFDEF = re.compile(r"^([ \t]*#[ \t]*)ifdef[ \t]+__AVX512\w*__\b", re.M)
_AVX512_IFNDEF = re.compile(r"^([ \t]*#[ \t]*)ifndef[ \t]+__AVX512\w*__\b", re.M)
_INTRINSICS = re.compile(r"^([ \t]*#[ \t]*include[ \t]*)<immintrin\.h>", re.M)
_REGISTRATION = re.compile(r"\b(TORCH_LIBRARY(?:_FRAGMENT|_IMPL)?)\([ \t]*warden_cpu[ \t]*,")
_INT4_PACKING = re.compile(r"\bat::_convert_weight_to_int4pack_for_cpu\(")


class EmulationBuildError(RuntimeError):
    """The sources no longer look as the rewrites expect: update this module."""


def simde_available() -> bool:
    """Whether SIMDe's AVX-512 headers are installed (Debian: ``libsimde-dev``)."""
    return SIMDE_HEADER.is_file()


def native_avx512() -> bool:
    """Whether this CPU has AVX-512 itself (then the native build runs the AVX-512 paths and its tests cover them)."""
    return bool(torch.cpu._is_avx512_supported())


def native_avx2() -> bool:
    """Whether this CPU has AVX2 (the shim's native half: SIMDe's 512-bit vectors as pairs of AVX2 ones, F16C)."""
    return bool(torch.cpu._is_avx2_supported())


def kernel_sources() -> list[Path]:
    """The kernels/cpu sources the build copies: every .cpp and .h there now."""
    return sorted(p for p in SOURCE_DIR.iterdir() if p.suffix in (".cpp", ".h"))


def _rewrite_conditions(text: str) -> tuple[str, int]:
    """The AVX-512 feature tests in ``#if``/``#elif``/``#ifdef``/``#ifndef`` lines as constants; with the count."""
    count = 0

    def condition(line: re.Match[str]) -> str:
        nonlocal count
        new, n = _AVX512_DEFINED.subn("1", line.group(0))
        count += n
        return new

    text = _CONDITION.sub(condition, text)
    text, n = _AVX512_IFDEF.subn(r"\1if 1", text)
    count += n
    text, n = _AVX512_IFNDEF.subn(r"\1if 0", text)
    return text, count + n


def rewrite(name: str, text: str) -> tuple[str, dict[str, int]]:
    """One kernels/cpu source as the emulated build compiles it, and how many places each rewrite changed."""
    text, guards = _rewrite_conditions(text)
    text, includes = _INTRINSICS.subn(r'\1"simde_shim.h"', text)
    text, registrations = _REGISTRATION.subn(rf"\1({NAMESPACE},", text)
    text, packings = _INT4_PACKING.subn("warden_avx512sim::int4_pack_64_row_blocks(", text)
    if re.search(r"\"warden_cpu::", text):
        raise EmulationBuildError(f"{name} names an op of the warden_cpu namespace, which the emulated build renames")
    return text, {"guards": guards, "includes": includes, "registrations": registrations, "packings": packings}


def _fingerprint(texts: dict[str, str]) -> str:
    """What the build depends on: the rewritten sources, the shim, the flags, SIMDe and torch versions."""
    digest = hashlib.sha256()
    for name in sorted(texts):
        digest.update(name.encode() + b"\0" + texts[name].encode() + b"\0")
    digest.update(SHIM.read_bytes())
    digest.update(" ".join(CFLAGS).encode())
    digest.update(SIMDE_HEADER.parent.parent.joinpath("simde-common.h").read_bytes())
    digest.update(torch.__version__.encode())
    return digest.hexdigest()[:16]


def prepare(build_root: Path | None = None) -> tuple[Path, list[Path]]:
    """The rewritten sources and the shim in a build directory named by a hash of what the build depends on (a
    changed source gets a directory of its own, so it rebuilds); the directory and the .cpp files to compile."""
    from torch.utils import cpp_extension

    texts, totals = {}, {"guards": 0, "includes": 0, "registrations": 0, "packings": 0}
    for path in kernel_sources():
        texts[path.name], counts = rewrite(path.name, path.read_text())
        for key, n in counts.items():
            totals[key] += n
    # Each rewrite must still find its targets, or the build would quietly be the AVX2 one (or fail to load).
    for key, n in totals.items():
        if n == 0:
            raise EmulationBuildError(f"no {key} rewritten in {SOURCE_DIR}: the sources changed, update {__name__}")
    root = Path(build_root or cpp_extension.get_default_build_root())
    directory = root / f"{NAMESPACE}_{_fingerprint(texts)}"
    directory.mkdir(parents=True, exist_ok=True)
    for name, text in {**texts, SHIM.name: SHIM.read_text()}.items():
        target = directory / name
        if not target.is_file() or target.read_text() != text:  # unchanged files keep their times: no rebuild
            target.write_text(text)
    return directory, [directory / name for name in sorted(texts) if name.endswith(".cpp")]


@cache  # a process loads the library once (a second load would re-register the namespace)
def build() -> Any:
    """Build (or reuse) and load the emulated library; ``torch.ops.warden_cpu_avx512sim``. Raises where SIMDe or
    a C++ toolchain is missing, or the build fails."""
    from torch.utils import cpp_extension

    if not simde_available():
        raise EmulationBuildError(f"SIMDe's AVX-512 headers are missing ({SIMDE_HEADER}): apt-get install libsimde-dev")
    directory, sources = prepare()
    previous = os.environ.get("MAX_JOBS")
    os.environ["MAX_JOBS"] = previous or str(MAX_JOBS)  # cpp_extension reads ninja's parallelism from MAX_JOBS
    try:
        cpp_extension.load(name=directory.name, sources=[str(s) for s in sources], build_directory=str(directory),
                           extra_cflags=CFLAGS, is_python_module=False, verbose=False)
    finally:
        if previous is None:
            del os.environ["MAX_JOBS"]
    return getattr(torch.ops, NAMESPACE)
