"""The decoder compiled with ``torch.compile`` (inductor): the CPU serving fast path.

Why: eagerly, the linears stream bf16 weights through oneDNN and each of the ~40 small element-wise ops per layer
costs more in dispatch than in arithmetic. Compiled, norms, residual adds, rotary and SwiGLU fuse into a few C++
loops. Where a linear of the graph is a GEMM inductor lowers itself (unquantized weights; int4 weights on AMX CPUs),
the graph is compiled with ``freezing``: the weights become constants, prepacked and fed to the C++ GEMM templates
``max_autotune_gemm`` picks (for int4 on AMX, a micro-kernel that dequantizes each weight tile in cache). In the
one-token graphs the quantized layers are ``kernels.cpu``'s one-row kernels instead (opaque ops, chosen by
``engine.layers.linear``). In the graph of 2+ tokens, on CPUs without AMX, the int4 layers are one opaque op
(``int4_linear_up_to``) that runs the multi-row kernel for steps of up to ``cpu_small_batch_rows`` tokens and a GEMM
above, which also spares the start an int4 GEMM to autotune; the int8 LM head's graph of 2+ rows does the same with
``int8_linear_up_to``. The speedups are in docs/benchmarks.md ("Engine on CPU", "CPU linears").

Two graphs for the decoder: one token (decode at concurrency 1, specialised) and 2+ tokens with the count symbolic
(decode batches, prefill chunks and mixes of both); two likewise for the LM head, whose rows are the sequences
sampling this step. Attention stays an opaque operator (``warden::paged_attention``) reading the step's metadata
from ``engine.worker.forward_context``, so no graph depends on sequence lengths. ``warm_up`` compiles all four at start;
inductor caches the generated code on disk (``use_compile_cache`` picks where), so a restart reuses it.

A restart of a graph compiled without freezing (every linear one of ``kernels.cpu``'s opaque ops, as in the ``fast``
profile on CPUs without AMX) finds it in AOTAutograd's cache too and skips AOTAutograd's trace and inductor's passes;
AOTAutograd does not cache a frozen graph (its constants are the weights of one process), so a frozen graph is
traced again at every start and only its generated code comes from the cache.

Dynamo's trace of the model's bytecode is most of what is left of a cached start, so an unfrozen graph is compiled
with ``aot_compile`` instead and saved whole beside inductor's cache (``engine.worker.precompiled``): the next start
of the same configuration loads the four graphs without tracing anything, and falls back to compiling any it cannot
use (a corrupt file, changed model code, a failed guard), saying so in the log.
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import torch
from torch import nn

from engine.core.startup import phase
from engine.worker import precompiled
from engine.worker.forward_context import forward_context
from kernels.attention_metadata import AttentionMetadata

log = logging.getLogger(__name__)

INDUCTOR_OPTIONS = {
    "max_autotune_gemm": True,  # the C++ (AMX) GEMM templates, benchmarked against aten's kernels
    "max_autotune_gemm_backends": "CPP,ATEN",
    "autotune_num_choices_displayed": 0,  # the autotuner's tables go to stdout/stderr otherwise
    "max_autotune_report_choices_stats": False,
    # No size/stride assert per graph input and per opaque op's output at every call: ~460 a step of SmolLM2, about
    # a tenth of a one-token step's time. The inputs' layouts are the guards' to check (``CompiledModel._run``), and
    # the opaque ops' shapes are their fake kernels', which the compiled-versus-eager tests cover.
    "size_asserts": False,
}

# Unfrozen graphs (every linear one of ``kernels.cpu``'s opaque ops) run their step through inductor's C++ wrapper
# rather than its generated Python: the ~130 fused loops, ~150 opaque-op calls and the buffer bookkeeping of a
# one-token step of SmolLM2 cost ~1.5 ms of Python interpretation a token otherwise, about a sixth of the step.
# ``cpp_wrapper_build_separate`` compiles the wrapper at -O1 apart from the kernels (-O3): one translation unit of
# both took minutes longer to build at a first start, and ran no faster. Frozen graphs keep the Python wrapper: the
# C++ one is measured only where the linears are opaque ops (CPUs without AMX).
UNFROZEN_OPTIONS = {"cpp_wrapper": True, "cpp_wrapper_build_separate": True}


# The upper bound of the symbolic row count in the graphs of 2+ rows, the same for every engine up to it. Inductor
# caches a graph with its symbol's range as a guard, and an engine with a larger bound that found the graph of one
# with a smaller bound (same model and kernels: another max_num_batched_tokens) failed its start on that guard.
# Inductor needs some bound (unbounded, its lowering failed); one this large keeps 32-bit indexing in the decoder's
# loops of SmolLM2-to-8B widths. The bound is also in the cache key (torch.compiler.config.cache_key_tag), so the
# entries of other bounds (an engine above it; the per-engine bounds before this one) are never looked at.
SYMBOLIC_MAX_ROWS = 1 << 16


def inductor_lowers_a_gemm(model: nn.Module) -> bool:
    """Whether a matmul of ``model`` reaches inductor's GEMM lowering when compiled: a ``Linear`` without one of
    ``kernels.cpu``'s opaque kernels for one row and for more rows (unquantized, or int4 where the multi-row
    kernel is not used), or any other module holding a weight matrix (MoE experts). Only then does ``freezing``
    pay: it makes the weights constants for the GEMM templates, at the price of AOTAutograd's cache."""
    from engine.layers.linear import Linear
    from engine.layers.vocab_parallel import VocabParallelEmbedding

    for module in model.modules():
        if isinstance(module, Linear):
            if module.quant_kernel is None or module.quant_kernel_up_to is None:
                return True
        elif not isinstance(module, (VocabParallelEmbedding, nn.Embedding)) and any(
                p.dim() >= 2 and p.numel() > 0 for p in module.parameters(recurse=False)):
            return True
    return False


# Cache entries allowed per compiled code object: two graphs per engine, for up to 32 engines in one process.
RECOMPILE_LIMIT = 64


def use_compile_cache(directory: str | Path) -> None:
    """Build and cache compiled code under ``directory`` from now on, in this process: inductor's generated code
    (``TORCHINDUCTOR_CACHE_DIR``) and torch C++ extensions such as ``kernels.cpu`` (``TORCH_EXTENSIONS_DIR``).
    Both are read from the environment when compiling, so this must run before the first compile or build."""
    from kernels import cpu

    root = Path(directory)
    try:
        built_before = cpu.build_directory()  # where this process would have found the kernels until now
    except OSError:  # torch's default root is not writable here (a read-only home): nothing to take from it
        built_before = None
    for name, sub in (("TORCHINDUCTOR_CACHE_DIR", "inductor"), ("TORCH_EXTENSIONS_DIR", "extensions")):
        (root / sub).mkdir(parents=True, exist_ok=True)
        os.environ[name] = str(root / sub)
    if built_before is not None and cpu.adopt_build(built_before):
        log.info("C++ kernels taken from %s into the compile cache", built_before)


# The first (uncached) compile of SmolLM2-135M's four graphs at start, per CPU vector ISA, as bench.engine measured
# it (docs/benchmarks.md, "Engine on CPU": engine.json, engine_zen5.json, engine_avx2.json). Only for the estimate
# printed before a first compile; a configuration compiled here before is estimated from its recorded time.
FIRST_COMPILE_S = {"AVX512": 70.0, "AVX2": 170.0}
_REFERENCE_LAYERS = 30  # SmolLM2-135M's decoder layers: the estimate scales with the layer count
COMPILE_TIMES_FILE = "warden-compile-times.json"


def compile_cache_root() -> Path:
    """Inductor's cache directory in this process (``TORCHINDUCTOR_CACHE_DIR``, else torch's default)."""
    from torch._inductor.runtime.cache_dir_utils import cache_dir

    return Path(cache_dir())


class CompileTimes:
    """The last compile time of each configuration (``CompiledModel.signature``), kept beside inductor's cache in
    ``COMPILE_TIMES_FILE``: a configuration seen before starts in about that time again (from the cache). Best effort:
    an unreadable or unwritable file only costs the estimate."""

    def __init__(self, root: Path) -> None:
        self.path = root / COMPILE_TIMES_FILE

    def _read(self) -> dict[str, float]:
        try:
            data = json.loads(self.path.read_text())
        except (OSError, ValueError):
            return {}
        return {str(k): float(v) for k, v in data.items()} if isinstance(data, dict) else {}

    def get(self, key: str) -> float | None:
        return self._read().get(key)

    def record(self, key: str, seconds: float) -> None:
        data = self._read()
        data[key] = round(seconds, 1)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.path.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(json.dumps(data, indent=1, sort_keys=True))
            tmp.replace(self.path)  # atomic: engines starting side by side never read half a file
        except OSError:
            pass


def first_compile_estimate(model: nn.Module) -> float:
    """Seconds a first (uncached) compile of ``model``'s graphs takes on an idle CPU of this kind."""
    layers = getattr(getattr(model, "config", None), "num_hidden_layers", _REFERENCE_LAYERS)
    per_model = FIRST_COMPILE_S.get(torch.backends.cpu.get_cpu_capability(), FIRST_COMPILE_S["AVX2"])
    return per_model * max(1, layers) / _REFERENCE_LAYERS


def _estimate(recorded: float | None, model: nn.Module) -> str:
    """The line announcing the compile: the recorded time of this configuration, else a first-compile estimate."""
    if recorded is not None:
        return f"about {recorded:.0f} s (this configuration's last start here; the compiled code is cached)"
    seconds = first_compile_estimate(model)
    return (f"first compile of this configuration: about {seconds:.0f} s on an idle CPU of this kind (more on a "
            f"busy one); cached on disk for the next start")


@dataclass(frozen=True, slots=True)
class CacheCounts:
    """Counters of graphs compiled in this process and how the compile caches served them: dynamo's, and the
    graphs saved and loaded whole (``engine.worker.precompiled``)."""

    graphs: int = 0  # dynamo traced the graph
    generated: int = 0  # inductor generated the graph's code: not in its cache, or not cacheable
    traced_from_cache: int = 0  # AOTAutograd's cache held the graph: neither AOTAutograd nor inductor ran
    loaded: int = 0  # loaded whole from the compile cache: not even traced
    saved: int = 0  # compiled and saved whole for the next start

    @staticmethod
    def now() -> CacheCounts:
        from torch._dynamo.utils import counters

        inductor = counters["inductor"]
        return CacheCounts(graphs=counters["stats"]["unique_graphs"],
                           generated=inductor["fxgraph_cache_miss"] + inductor["fxgraph_cache_bypass"],
                           traced_from_cache=counters["aot_autograd"]["autograd_cache_hit"],
                           loaded=precompiled.COUNTS["loaded"], saved=precompiled.COUNTS["saved"])

    def since(self, before: CacheCounts) -> CacheCounts:
        return CacheCounts(self.graphs - before.graphs, self.generated - before.generated,
                           self.traced_from_cache - before.traced_from_cache, self.loaded - before.loaded,
                           self.saved - before.saved)

    def describe(self) -> str:
        """The compile phase's outcome, for its closing line."""
        if self.saved:
            also = f" ({self.loaded} loaded whole from the compile cache)" if self.loaded else ""
            return f"{self.saved} of {self.saved + self.loaded} graphs compiled and cached for the next start{also}"
        if self.loaded:
            return f"{self.loaded} graphs loaded whole from the compile cache (not traced)"
        if self.generated:
            return f"{self.generated} of {self.graphs} graphs compiled and cached for the next start"
        if self.traced_from_cache < self.graphs:  # frozen graphs: their code is cached, not their trace
            return f"{self.graphs} graphs' code from the compile cache (traced again: frozen weights)"
        return f"{self.graphs} graphs from the compile cache"


def input_layout(name: str, tensors: tuple[torch.Tensor, ...], max_rows: int) -> tuple[object, ...] | None:
    """What a whole graph's guards check of its inputs, but the row count: the graph's name, the grad modes, and each
    tensor's dtype, device, trailing dimensions, strides (where not contiguous) and inference flag. None for a row
    count above the graph's bound, whose guards must refuse it."""
    if tensors[0].shape[0] > max_rows:
        return None
    return (name, torch.is_inference_mode_enabled(), torch.is_grad_enabled(),
            *((t.dtype, t.device, tuple(t.shape[1:]), t.is_contiguous() or t.stride(), t.is_inference(),
               t.requires_grad) for t in tensors))


class CompiledModel:
    """``model(input_ids, positions)`` of a ``LlamaForCausalLM`` through inductor; the caller sets the forward
    context (``engine.worker.forward_context``) holding the step's attention metadata."""

    def __init__(self, model: nn.Module, max_num_tokens: int, kv_cache_dtype: str = "auto") -> None:
        # Imported here, not with the module: inductor (and dynamo under it) take seconds to import, and an engine
        # that does not compile (the default) should not pay them at every start and restart.
        import torch._inductor.config as inductor_config

        self._inductor_config = inductor_config
        self.model = model
        self.max_num_tokens = max_num_tokens
        # The KV cache's layout (an int8 cache's rows are codes and a scale) changes every attention call's inputs;
        # graphs saved whole for one layout would fail their guards under the other and recompile at every start.
        self.kv_cache_dtype = kv_cache_dtype
        self.symbolic_max = max(max_num_tokens, SYMBOLIC_MAX_ROWS)
        self.cache_key_tag = "|".join(filter(None, [torch.compiler.config.cache_key_tag,
                                                    f"warden-rows-2-{self.symbolic_max}"]))
        self.compile_seconds = 0.0
        # Decided at the first compile, when the runner has chosen each linear's kernels (after this constructor).
        self.freezing: bool | None = None
        # Every engine's graphs are cache entries of the same code objects (this class's _forward, the model class's
        # compute_logits), two each: dynamo's default limit of 8 entries per code object failed the start of a
        # fifth compiled engine alive in one process (the test suite; a draft model beside its target).
        torch._dynamo.config.recompile_limit = max(torch._dynamo.config.recompile_limit, RECOMPILE_LIMIT)
        self._compiled = torch.compile(self._forward, fullgraph=True, dynamic=False)
        compute_logits = cast("Callable[[torch.Tensor], torch.Tensor]", model.compute_logits)  # every model has one
        self._compiled_logits = torch.compile(compute_logits, fullgraph=True, dynamic=False)
        # The graphs compiled with aot_compile (unfrozen only), by name ("decoder-1", "lm_head-n"), found or made
        # at warm-up; a step whose graph is missing here, or whose guards it fails, goes through dynamo instead.
        self._whole: dict[str, precompiled.AotFunction] = {}
        self._store: precompiled.PrecompiledGraphs | None = None
        # The input layouts (``input_layout``) a whole graph's guards accepted: a later step of the same layout skips
        # them. They check every weight of the model too (~270 tensors for SmolLM2), about a tenth of a one-token
        # step's time, and nothing they check changes from one step to the next: the weights and the grad modes
        # are fixed once the engine serves, and the layout holds everything of the inputs but their row count.
        self._accepted: set[tuple[object, ...]] = set()

    def _forward(self, input_ids: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
        return self.model(input_ids, positions, None)

    @staticmethod
    def _graph_name(graph: str, tensors: tuple[torch.Tensor, ...]) -> str:
        return f"{graph}-{'1' if tensors[0].shape[0] == 1 else 'n'}"

    def _mark_rows(self, tensors: tuple[torch.Tensor, ...]) -> None:
        if tensors[0].shape[0] > 1:
            # One graph for every count of 2+ rows (unmarked, dynamo would compile per count).
            for t in tensors:
                torch._dynamo.mark_dynamic(t, 0, min=2, max=self.symbolic_max)

    @contextmanager
    def _compile_settings(self) -> Iterator[None]:
        """Patched around tracing, not given as torch.compile(options=...): freezing is read from the global config
        while dynamo traces, before compile options apply (with options alone the weights stay graph inputs and no
        GEMM template is considered)."""
        if self.freezing is None:
            self.freezing = inductor_lowers_a_gemm(self.model)
        options = {**INDUCTOR_OPTIONS, "freezing": self.freezing, **({} if self.freezing else UNFROZEN_OPTIONS)}
        # torch's config modules get ``patch`` at import (install_config_module), which their stubs do not declare.
        patch_compiler = torch.compiler.config.patch  # type: ignore[attr-defined]
        with self._inductor_config.patch(options), patch_compiler(cache_key_tag=self.cache_key_tag):
            yield

    def _run(self, graph: str, fn: Callable[..., torch.Tensor], *tensors: torch.Tensor) -> torch.Tensor:
        name = self._graph_name(graph, tensors)
        whole = self._whole.get(name)
        # Guards checked here, once per input layout (the function's own check is off): a step they refuse is
        # compiled by dynamo like any other input, rather than failing.
        if whole is not None:
            layout = input_layout(name, tensors, self.symbolic_max)
            if layout in self._accepted:
                return cast("torch.Tensor", whole(self.model, *tensors))
            if whole.guard_check(self.model, *tensors):
                if layout is not None:
                    self._accepted.add(layout)
                return cast("torch.Tensor", whole(self.model, *tensors))
        self._mark_rows(tensors)
        with self._compile_settings():  # compilation happens lazily inside this call
            return fn(*tensors)

    def __call__(self, input_ids: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
        """Final hidden states ``[num_tokens, hidden]``."""
        return self._run("decoder", self._compiled, input_ids, positions)

    def compute_logits(self, hidden: torch.Tensor) -> torch.Tensor:
        """float32 logits of the rows to sample: the LM head, compiled apart (its rows are the sequences that
        sample this step, not the tokens), with its int8 weights through the AMX GEMM template."""
        return self._run("lm_head", self._compiled_logits, hidden)

    def _prepare_whole(self, graph: str, *tensors: torch.Tensor) -> None:
        """Load ``graph`` for these inputs whole from the compile cache, else compile it with ``aot_compile`` and save
        it there. Frozen graphs are left to dynamo (their constants are this process's weights); so is a graph
        ``aot_compile`` cannot capture, which is logged."""
        store = self.whole_graph_store()
        if store is None:
            return
        name = self._graph_name(graph, tensors)
        whole = store.load(name)
        if whole is not None:
            whole.disable_guard_check()
            if whole.guard_check(self.model, *tensors):
                precompiled.COUNTS["loaded"] += 1
                self._whole[name] = whole
                return
            log.warning("precompiled graph %s refused this model's inputs (its guards failed); compiling it again",
                        store.path(name))
        self._mark_rows(tensors)
        try:
            with self._compile_settings():
                compiled = torch.compile(precompiled.GRAPHS[graph], fullgraph=True, dynamic=False)
                # aot_compile is set on the wrapper torch.compile returns; its stub does not declare it.
                whole = cast("precompiled.AotFunction",
                             compiled.aot_compile(((self.model, *tensors), {})))  # type: ignore[attr-defined]
        except Exception as exc:  # dynamo's own path below compiles it (or fails the start)
            log.warning("graph %s cannot be compiled whole (%s: %s); it is traced at every start", name,
                        type(exc).__name__, str(exc)[:200])
            return
        store.save(name, whole)
        whole.disable_guard_check()
        self._whole[name] = whole

    def whole_graph_store(self) -> precompiled.PrecompiledGraphs | None:
        """Where this configuration's graphs are saved whole; None where they cannot be (frozen: see the module)."""
        if self.freezing is None:
            self.freezing = inductor_lowers_a_gemm(self.model)
        if self.freezing:
            return None
        if self._store is None:
            key = precompiled.configuration_key(self.model, [self.symbolic_max, self.cache_key_tag,
                                                             sorted({**INDUCTOR_OPTIONS, **UNFROZEN_OPTIONS}.items()),
                                                             f"kv-{self.kv_cache_dtype}"])
            self._store = precompiled.PrecompiledGraphs(compile_cache_root(), key)
        return self._store

    def graph_names(self, num_tokens: int) -> list[str]:
        """The graphs ``warm_up(num_tokens, ...)`` compiles, by name."""
        return [self._graph_name(graph, (ids,)) for _, ids, _, _ in self._dummy_steps(num_tokens, torch.device("cpu"))
                for graph in precompiled.GRAPHS]

    def all_saved(self, num_tokens: int) -> bool:
        """Whether every graph of the warm-up has a saved file (a start then loads them, in seconds)."""
        store = self.whole_graph_store()
        return store is not None and all(store.path(name).is_file() for name in self.graph_names(num_tokens))

    def load_saved(self, num_tokens: int) -> dict[str, precompiled.AotFunction] | None:
        """Every graph of the warm-up read from its saved file, or None if one is missing or unusable (logged). Runs
        nothing and sets no forward context, so a thread may call it while the step loop serves uncompiled; the
        guards are checked by ``adopt``, on the step loop's thread."""
        store = self.whole_graph_store()
        if store is None:
            return None
        loaded = {}
        # Loaded in inference mode, like the steps that call them: a loaded graph's guards take the dispatch keys
        # its tensors are expected to have from the thread's mode at load (outside it, every call is refused).
        with torch.inference_mode():
            for name in self.graph_names(num_tokens):
                whole = store.load(name)
                if whole is None:
                    return None
                whole.disable_guard_check()  # checked per call by _run
                loaded[name] = whole
        return loaded

    def adopt(self, loaded: dict[str, precompiled.AotFunction], num_tokens: int,
              kv_caches: list[tuple[torch.Tensor, torch.Tensor]]) -> bool:
        """Serve ``loaded`` (``load_saved``'s graphs) from now on if each accepts the warm-up's inputs (its guards,
        checked without running it: the KV cache is in use by then). False, logged, if one refuses: the caller
        keeps serving uncompiled rather than tracing a graph inside a step."""
        store = self.whole_graph_store()
        dtype = next(p.dtype for p in self.model.parameters() if p.is_floating_point())
        hidden_size = int(getattr(self.model, "config").hidden_size)  # noqa: B009 - every served model has one
        with torch.inference_mode():
            for n, ids, positions, meta in self._dummy_steps(num_tokens, kv_caches[0][0].device):
                hidden = torch.zeros(n, hidden_size, dtype=dtype)
                for graph, tensors in (("decoder", (ids, positions)), ("lm_head", (hidden,))):
                    name = self._graph_name(graph, tensors)
                    with forward_context(meta, kv_caches):  # as at warm-up, where the guards were made
                        accepted = loaded[name].guard_check(self.model, *tensors)
                    if not accepted:
                        log.warning("precompiled graph %s refused this engine's inputs (its guards failed); "
                                    "serving uncompiled", store.path(name) if store else name)
                        return False
        self._whole.update(loaded)
        precompiled.COUNTS["loaded"] += len(loaded)
        return True

    def warm_up(self, num_tokens: int, kv_caches: list[tuple[torch.Tensor, torch.Tensor]]) -> None:
        """Compile both graphs of the decoder and of the LM head on dummy decode batches (1 and ``num_tokens``
        sequences of one token each). They write keys/values into slot 0 of block 0, which is free at start and
        overwritten by whichever sequence is given it before anything reads it. ``num_tokens`` is also the size
        inductor tunes the GEMM tiles of the dynamic graph for: pick the typical decode batch."""
        num_tokens = min(num_tokens, self.max_num_tokens)
        times = CompileTimes(compile_cache_root())
        key = self.signature(num_tokens)
        start = time.perf_counter()
        with phase("compilation and warm-up", announce=_estimate(times.get(key), self.model)) as current:
            before = CacheCounts.now()
            try:
                self._compile_all(num_tokens, kv_caches)
            except Exception as exc:  # the operator asked for this path: fail the start, saying what it needs
                raise RuntimeError(f"compile_model: compiling the decoder failed ({type(exc).__name__}: {exc}); it "
                                   "needs a C++ compiler (g++) on the machine, or turn compile_model off") from exc
            current.outcome = CacheCounts.now().since(before).describe()
        self.compile_seconds = time.perf_counter() - start
        times.record(key, self.compile_seconds)

    def signature(self, num_tokens: int) -> str:
        """What the compiled code depends on, as a key for the recorded compile times: the model's shape and weight
        kinds, the tuned batch, the row bound, torch and the CPU's vector ISA (inductor's cache keys cover these)."""
        config = getattr(self.model, "config", None)
        shape = [getattr(config, name, None) for name in ("num_hidden_layers", "hidden_size", "intermediate_size",
                                                          "vocab_size")]
        kinds = sorted({str(getattr(m, "quant_kind", None)) for m in self.model.modules()})
        dtype = next(self.model.parameters()).dtype
        return "|".join(map(str, [type(self.model).__name__, *shape, dtype, *kinds, num_tokens, self.symbolic_max,
                                  torch.__version__, torch.backends.cpu.get_cpu_capability()]))

    def _compile_all(self, num_tokens: int, kv_caches: list[tuple[torch.Tensor, torch.Tensor]]) -> None:
        # Inside inference mode, like the engine's steps: dynamo guards on inference tensors' dispatch keys.
        with torch.inference_mode():
            for _, ids, positions, meta in self._dummy_steps(num_tokens, kv_caches[0][0].device):
                with forward_context(meta, kv_caches):  # tracing reads the step's metadata like a step does
                    self._prepare_whole("decoder", ids, positions)
                    hidden = self(ids, positions)
                self._prepare_whole("lm_head", hidden)
                self.compute_logits(hidden)

    @staticmethod
    def _dummy_steps(num_tokens: int, device: torch.device) -> Iterator[tuple[int, torch.Tensor, torch.Tensor,
                                                                                AttentionMetadata]]:
        """The warm-up's decode batches of 1 and ``num_tokens`` sequences (at least 2) of one token each, written to
        slot 0 of block 0: (rows, token ids, positions, attention metadata)."""
        for n in sorted({1, max(2, num_tokens)}):
            meta = AttentionMetadata(
                query_start_loc=torch.arange(n + 1, dtype=torch.int32, device=device),
                seq_lens=torch.ones(n, dtype=torch.int32, device=device),
                block_tables=torch.zeros(n, 1, dtype=torch.int32, device=device),
                slot_mapping=torch.zeros(n, dtype=torch.int64, device=device),
                num_decodes=n, max_query_len=1, max_seq_len=1, max_decode_seq_len=1,
            )
            ids = torch.zeros(n, dtype=torch.long, device=device)
            yield n, ids, torch.zeros_like(ids), meta
