"""Turns a scheduled batch into one forward pass: flattens token ids, positions, slot mapping and block tables,
runs the model, computes logits only where a token is sampled, and samples. On CUDA, decode-only batches replay
CUDA graphs captured per padded batch size (``WARDEN_CUDA_GRAPHS=0`` turns them off).

Under tensor parallelism the driver's runner prepares each step's ``StepInputs`` on the host, hands them to the
workers (``engine.distributed.executor``) and runs ``run_forward`` like every worker's runner does: the same
forward on each rank's slice of the model, in lockstep; only the driver samples.

A model with Mamba2 layers (``engine.scheduling.mamba_state``) runs eagerly through its ``forward_step``, with each
sequence's live state slot; the states it reaches at block ends are staged for the prefix cache's snapshots."""

from __future__ import annotations

import itertools
import logging
import os
from concurrent.futures import Future
from dataclasses import dataclass
from typing import cast

import numpy as np
import torch

from engine.config import EngineConfig
from engine.distributed.executor import TensorParallelWorkers
from engine.errors import EngineDeadError
from engine.layers.attention import PagedAttention
from engine.layers.linear import Linear, cpu_prepack_supported
from engine.layers.mamba2 import BoundarySnapshot, Mamba2BatchMetadata, MambaStep
from engine.layers.sampler import Sampler, SamplerOutput, SamplingTensors
from engine.models.llama import LlamaForCausalLM
from engine.scheduling.mamba_state import StatefulModel, StateSlots
from engine.scheduling.scheduler import ScheduledBatch
from engine.scheduling.sequence import Sequence
from engine.worker.background_compile import BackgroundCompile, should_compile_in_background
from engine.worker.compilation import CompiledModel
from engine.worker.forward_context import forward_context
from engine.worker.huge_pages import zeros_on_huge_pages
from kernels import dispatch
from kernels.attention_metadata import AttentionMetadata
from kernels.reference import kv_int8

log = logging.getLogger(__name__)


class DecodeGraphs:
    """The model's forward captured as one CUDA graph per decode batch size (1, 2, 4, 8, then steps of 16).

    A batch is padded up to the next captured size: padding rows have an empty context and slot -1, so the
    Triton kernels store nothing and read nothing for them. The attention launch is sized for the longest
    possible context (``max_len``) and its programs past a sequence's length exit at once, so one graph serves
    every context length.
    """

    def __init__(self, model: LlamaForCausalLM, max_batch: int, max_len: int, block_size: int,
                 device: torch.device) -> None:
        self.sizes = [s for s in (1, 2, 4, 8) if s < max_batch] + list(range(16, max_batch, 16)) + [max_batch]
        self.sizes = sorted(set(self.sizes))
        n = self.sizes[-1]
        self.input_ids = torch.zeros(n, dtype=torch.long, device=device)
        self.positions = torch.zeros(n, dtype=torch.long, device=device)
        self.slot_mapping = torch.full((n,), -1, dtype=torch.int64, device=device)
        self.seq_lens = torch.zeros(n, dtype=torch.int32, device=device)
        self.block_tables = torch.zeros(n, -(-max_len // block_size), dtype=torch.int32, device=device)
        self.query_start_loc = torch.arange(n + 1, dtype=torch.int32, device=device)
        self.max_len = max_len
        self.graphs: dict[int, tuple[torch.cuda.CUDAGraph, torch.Tensor]] = {}
        pool = None
        for size in reversed(self.sizes):  # largest first, so smaller graphs fit in its memory pool
            args = self._inputs(size)
            model(*args)  # compiles the Triton kernels outside the capture
            torch.cuda.synchronize(device)
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph, pool=pool):
                hidden = model(*args)
            pool = graph.pool()
            self.graphs[size] = (graph, hidden)

    def _inputs(self, size: int) -> tuple[torch.Tensor, torch.Tensor, AttentionMetadata]:
        meta = AttentionMetadata(
            query_start_loc=self.query_start_loc[: size + 1], seq_lens=self.seq_lens[:size],
            block_tables=self.block_tables[:size], slot_mapping=self.slot_mapping[:size], num_decodes=size,
            max_query_len=1, max_seq_len=self.max_len, max_decode_seq_len=self.max_len,
        )
        return self.input_ids[:size], self.positions[:size], meta

    def run(self, input_ids: torch.Tensor, positions: torch.Tensor, meta: AttentionMetadata) -> torch.Tensor | None:
        """Hidden states of a decode-only batch from its graph, or None when no graph fits the batch."""
        n = meta.num_seqs
        if meta.num_decodes != n or n > self.sizes[-1]:
            return None
        size = next(s for s in self.sizes if s >= n)
        self.input_ids[:n].copy_(input_ids)
        self.positions[:n].copy_(positions)
        self.slot_mapping[:n].copy_(meta.slot_mapping)
        self.slot_mapping[n:size].fill_(-1)
        self.seq_lens[:n].copy_(meta.seq_lens)
        self.seq_lens[n:size].fill_(0)
        self.block_tables[:n, : meta.block_tables.shape[1]].copy_(meta.block_tables)
        graph, hidden = self.graphs[size]
        graph.replay()
        return hidden[:n]


_SEED_MIX = 0x9E3779B97F4A7C15  # odd 64-bit constant: spreads (seed, position) pairs over the seed space


def draft_offsets(seqs: list[Sequence]) -> list[int]:
    """Per sampling row, how many of its sequence's drafts come before the token it samples: rows of one sequence
    are consecutive (its next token, then the token after each draft), so the offsets count 0, 1, 2, ..."""
    offsets: list[int] = []
    previous: Sequence | None = None
    for seq in seqs:
        offsets.append(offsets[-1] + 1 if seq is previous else 0)
        previous = seq
    return offsets


def seeded_generators(seqs: list[Sequence]) -> dict[int, torch.Generator]:
    """Per sampling row of a seeded request, a CPU generator seeded by (seed, position of the token it samples):
    a seeded output is then a function of the seed and the logits alone — the same whatever else is batched,
    after a preemption, and with or without speculative drafts."""
    generators: dict[int, torch.Generator] = {}
    for row, (seq, offset) in enumerate(zip(seqs, draft_offsets(seqs), strict=True)):
        seed = seq.sampling_params.seed
        if seed is not None:
            position = len(seq) + offset
            generators[row] = torch.Generator().manual_seed((seed * _SEED_MIX + position) % 2**63)
    return generators


def kv_cache_layout(kv_cache_dtype: str, dtype: torch.dtype, head_dim: int) -> tuple[torch.dtype, int]:
    """The dtype of the KV cache's elements and its rows' last dimension for ``EngineConfig.kv_cache_dtype``: the
    serving ``dtype`` for ``auto``; int8 rows carry their float32 scale after the codes
    (``kernels.reference.kv_int8``)."""
    if kv_cache_dtype == "int8":
        return kv_int8.INT8_KV, head_dim + kv_int8.SCALE_BYTES
    return (torch.bfloat16 if kv_cache_dtype == "bfloat16" else dtype), head_dim


def kv_bytes_per_block(model: LlamaForCausalLM, block_size: int, dtype: torch.dtype,
                       kv_cache_dtype: str = "auto") -> int:
    """Bytes one KV block takes on this rank (its slice of the KV heads of every attention layer; 0 without any)."""
    layers = [m for m in model.modules() if isinstance(m, PagedAttention)]
    if not layers:
        return 0
    element, row = kv_cache_layout(kv_cache_dtype, dtype, layers[0].head_dim)
    return len(layers) * 2 * block_size * layers[0].num_kv_heads * row * element.itemsize


@dataclass(slots=True)
class StepInputs:
    """One step's forward, as host tensors (what the driver sends every tensor-parallel worker)."""

    input_ids: torch.Tensor
    positions: torch.Tensor
    meta: AttentionMetadata
    sample_rows: torch.Tensor | None  # rows of the flattened batch that get logits (None: no sampling this step)


def flatten_step(input_ids: list[int], starts: list[int], q_lens: list[int], tables: list[list[int]],
                 num_decodes: int, block_size: int, sample_positions: list[int]) -> StepInputs:
    """One step's host tensors from its sequences' query tokens laid end to end: sequence i computes ``q_lens[i]``
    tokens from position ``starts[i]`` with block table ``tables[i]``; the first ``num_decodes`` have one each.

    Positions and slots are built as Python lists, one ``range`` per sequence and per block a chunk crosses, and each
    becomes a tensor in one call: a handful of tensor constructions a step. Vectorised torch ops over the tokens cost
    more at the sizes served (a decode step's few rows, a prefill chunk of a few hundred tokens): each op's dispatch
    is microseconds however few the tokens."""
    positions: list[int] = []
    slots: list[int] = []
    for start, n, table in zip(starts, q_lens, tables, strict=True):
        end = start + n
        positions.extend(range(start, end))
        position = start
        while position < end:  # the run of this chunk's tokens inside each block it touches
            index, offset = divmod(position, block_size)
            run = min(end - position, block_size - offset)
            first = table[index] * block_size + offset
            slots.extend(range(first, first + run))
            position += run
    seq_lens = [a + n for a, n in zip(starts, q_lens, strict=True)]
    max_blocks = max(len(t) for t in tables)
    meta = AttentionMetadata(
        query_start_loc=torch.tensor([0, *itertools.accumulate(q_lens)], dtype=torch.int32),
        seq_lens=torch.tensor(seq_lens, dtype=torch.int32),
        # Through numpy: it converts a list of int lists ~3x faster than torch.tensor (long contexts: 8 x 256 blocks).
        block_tables=torch.from_numpy(np.array(
            [t if len(t) == max_blocks else t + [0] * (max_blocks - len(t)) for t in tables], dtype=np.int32)),
        slot_mapping=torch.tensor(slots, dtype=torch.int64),
        num_decodes=num_decodes,
        max_query_len=max(q_lens),
        max_seq_len=max(seq_lens),
        max_decode_seq_len=max(seq_lens[:num_decodes], default=0),
    )
    rows = torch.tensor(sample_positions, dtype=torch.long) if sample_positions else None
    return StepInputs(torch.tensor(input_ids, dtype=torch.long), torch.tensor(positions, dtype=torch.long), meta, rows)


# EngineConfig.cpu_small_batch_rows's default on CPUs without AMX (docs/benchmarks.md, "CPU linears", has the
# measurements): where kernels.cpu's int4 bf16 GEMM serves the steps above (AVX512-BF16, bfloat16), 2; elsewhere 8.
GEMM_SMALL_BATCH_ROWS = 2
SMALL_BATCH_ROWS = 8
# Where kernels.cpu's bf16 GEMM for int8 weights runs (AVX512-BF16), the int8 head's steps of more rows go to it
# (unquantized inputs, each weight converted to bf16 once per call): above 4 rows it overtakes the int8 kernel
# (docs/benchmarks.md, "CPU linears", int8 head). On AVX-512 VNNI CPUs the head packs its weight for
# kernels.cpu.lm_head_linear instead (ParallelLMHead.quantize_int8), which serves every row count and this bound
# does not apply.
HEAD_KERNEL_ROWS = 4


def int4_kernel_rows(config: EngineConfig, dtype: torch.dtype) -> int:
    """Steps of up to this many tokens run the int4 layers through ``kernels.cpu``'s int4 linear
    (``EngineConfig.cpu_small_batch_rows``; None: one row on CPUs with AMX, 2 where the int4 bf16 GEMM serves
    ``dtype``, else 8)."""
    if config.cpu_small_batch_rows is not None:
        return config.cpu_small_batch_rows
    if torch.cpu._is_amx_tile_supported():
        return 1
    return GEMM_SMALL_BATCH_ROWS if dispatch.cpu_int4_gemm_bf16_serves(dtype) else SMALL_BATCH_ROWS


class ModelRunner:
    def __init__(self, config: EngineConfig, model: LlamaForCausalLM, device: torch.device, dtype: torch.dtype,
                 num_blocks: int, workers: TensorParallelWorkers | None = None,
                 states: StateSlots | None = None) -> None:
        self.config = config
        self.states = states  # recurrent-state slots of a model with Mamba2 layers (None: attention only)
        self.workers = workers  # the driver's handle on ranks 1.. (None: one rank, or this runner is a worker's)
        self.model = model
        self.device = device
        self.dtype = dtype
        if config.block_size is None:  # LLMEngine chooses it from the model before building any runner
            raise ValueError("a model runner needs a concrete block_size")
        self.block_size = config.block_size
        self.vocab_size = model.config.vocab_size
        self.sampler = Sampler()
        dispatch.prepare(device)  # e.g. builds the C++ CPU kernels on a machine's first start
        self.base_generator = torch.Generator(device=device).manual_seed(config.seed)
        # CPU only: on CUDA the decode steps replay CUDA graphs over the Triton kernels instead.
        self.compiled: CompiledModel | None = None
        if config.compile_model and states is not None:
            log.warning("compile_model does not apply to models with Mamba2 layers; they run eagerly")
        elif config.compile_model and device.type == "cpu":
            self.compiled = CompiledModel(model, max(config.max_num_batched_tokens, config.max_num_seqs),
                                          kv_cache_dtype=config.kv_cache_dtype)
        elif config.compile_model:
            log.warning("compile_model applies to CPU serving; on %s the decode steps replay CUDA graphs", device)
        self._prepare_linear_weights(config)
        self.kv_cache = self._allocate_kv_cache(num_blocks)
        self.kv_caches = [(layer[0], layer[1]) for layer in self.kv_cache]
        # A first start of graphs that can be saved whole serves uncompiled while a child compiles them; run_forward
        # swaps them in at a step boundary (engine.worker.background_compile).
        self.background: BackgroundCompile | None = None
        if self.compiled is not None:
            num_tokens = min(config.max_num_seqs, 32)
            max_position: int | None = getattr(getattr(model, "rotary", None), "max_position", None)
            if workers is None and max_position is not None and \
                    should_compile_in_background(self.compiled, config, num_tokens):
                self.background = BackgroundCompile(self.compiled, config, num_tokens, num_blocks, max_position)
                self.compiled = None
            else:
                self.compiled.warm_up(num_tokens, self.kv_caches)
        self.decode_graphs: DecodeGraphs | None = None
        if states is None and dispatch.uses_triton(device) and os.environ.get("WARDEN_CUDA_GRAPHS", "1") != "0":
            with torch.inference_mode():
                # No sequence outgrows the rotary table or the KV pool: the bound every graph is sized for. Under a
                # window every layer shares, a sequence may outgrow the pool (its blocks behind the window released).
                max_len = model.rotary.max_position
                if not model.config.uniform_window:
                    max_len = min(max_len, num_blocks * self.block_size)
                self.decode_graphs = DecodeGraphs(model, config.max_num_seqs, max_len, self.block_size, device)

    def _prepare_linear_weights(self, config: EngineConfig) -> None:
        """The serving copies of each linear weight (``engine.layers.linear``): quantized for small batches,
        oneDNN-prepacked for the rest on CPU bf16.

        ``int4`` covers the decoder layers only; the LM head gets int8: the head's argmax picks the token, GGUFs ship
        it at 8 bits (SmolLM2: Q8_0), and at 4 bits its greedy output leaves float32's far sooner than at 8.
        ``fp8`` covers the decoder layers at every row count on any device, and the LM head stays in the engine's
        dtype (as vLLM's FP8 leaves it); nothing reads an FP8 layer's dense weight, so it is released.

        Compiled (``engine.worker.compilation``), no weight keeps a prepacked copy (inductor packs the frozen weights
        itself) and the quantized weights serve every row count: inductor's AMX GEMMs for int4 and int8 weights
        do not slow down with rows the way the eager GEMV-like kernels do. No path reads a quantized layer's
        dense weight then, so it is released (SmolLM2: 212 MB of bf16).
        The int4 layers' steps of up to ``cpu_small_batch_rows`` tokens (eager: and of at most ``int8_max_rows``) run
        ``kernels.cpu``'s int4 linear instead, where this CPU has it; compiled, through one opaque op that picks it
        or torch's kernel per call, so the graph of 2+ tokens keeps one symbolic range.
        """
        head = self.model.lm_head
        on_cpu = self.device.type == "cpu"
        in_graph = self.compiled is not None
        # The largest step the quantized copies serve: compiled, every step (quant_rows None, so no graph compares
        # its row count with this engine's bound); eager, up to int8_max_rows.
        max_rows = self.compiled.max_num_tokens if self.compiled is not None else config.int8_max_rows
        quant_rows = None if in_graph else max_rows
        kernel_rows = min(int4_kernel_rows(config, self.dtype), max_rows)
        # The int8 head's rows are the sequences sampling a step (a prefill's last tokens only) and its inputs take
        # two levels (finer than bf16): where the small-batch kernels run, every row count goes to kernels.cpu's
        # int8 linear, except above HEAD_KERNEL_ROWS where the bf16 GEMM runs (AVX512-BF16: unquantized inputs).
        head_rows = max_rows if kernel_rows > 1 else 1
        if head_rows > 1 and dispatch.cpu_int8_gemm_runs(head.weight.shape[0], self.dtype):
            head_rows = min(HEAD_KERNEL_ROWS, max_rows)
        for module in self.model.modules():
            if not isinstance(module, Linear):
                continue
            if config.quantization == "fp8":
                if module is not head:
                    module.quantize_fp8()
                    module.release_dense_weight()
                    continue  # no prepacked copy: the dense weight is gone
            elif config.quantization == "int8" or (config.quantization == "int4" and module is head):
                module.quantize_int8(quant_rows, head_rows if module is head else kernel_rows)
            elif config.quantization == "int4" and on_cpu:
                module.quantize_int4(quant_rows, kernel_rows)
            if on_cpu and config.cpu_prepack and cpu_prepack_supported(self.dtype) and not in_graph:
                module.prepack_cpu(config.max_num_seqs)
            if in_graph and module.quant_kind is not None:
                module.release_dense_weight()

    def _allocate_kv_cache(self, num_blocks: int) -> torch.Tensor:
        # Zeroed, not empty: masked-out slots are still multiplied by 0 attention weight, and 0 * NaN is NaN.
        layers = [m for m in self.model.modules() if isinstance(m, PagedAttention)]
        if not layers:  # attention-free (Mamba2): the blocks only index the prefix cache
            return torch.zeros(0, 2, 0, dtype=self.dtype, device=self.device)
        element, row = kv_cache_layout(self.config.kv_cache_dtype, self.dtype, layers[0].head_dim)
        shape = (len(layers), 2, num_blocks, self.block_size, layers[0].num_kv_heads, row)
        # On the CPU, huge pages: decode attention reads rows scattered over the whole cache (engine.worker.huge_pages).
        cache = (zeros_on_huge_pages(shape, element) if self.device.type == "cpu"
                 else torch.zeros(shape, dtype=element, device=self.device))
        pattern = self.config.block_sparse_pattern()
        for i, attn in enumerate(layers):
            attn.k_cache, attn.v_cache, attn.layer_index = cache[i, 0], cache[i, 1], i
            attn.block_sparse = pattern if attn.sliding_window <= 0 else None  # a windowed layer keeps its window
        return cache

    # --- input preparation --------------------------------------------------------------------------
    def prepare_inputs(self, batch: ScheduledBatch, sample_positions: list[int]) -> StepInputs:
        input_ids: list[int] = []
        starts: list[int] = []
        for seq, n in zip(batch.seqs, batch.num_new_tokens, strict=True):
            start = seq.num_computed_tokens
            input_ids.extend(seq.token_ids[start : start + n])
            if start + n > len(seq):  # a decode with draft tokens (speculative decoding) runs them after it
                input_ids.extend(seq.spec_token_ids[: start + n - len(seq)])
            starts.append(start)
        return flatten_step(input_ids, starts, batch.num_new_tokens, [s.block_table for s in batch.seqs],
                            batch.num_decodes, self.block_size, sample_positions)

    def prepare_sampling(self, seqs: list[Sequence], bitmask: torch.Tensor | None) -> SamplingTensors:
        params = [s.sampling_params for s in seqs]
        dev, n, vocab = self.device, len(seqs), self.vocab_size

        def column(values: list[float], dtype: torch.dtype = torch.float32) -> torch.Tensor:
            return torch.tensor(values, dtype=dtype, device=dev)

        t = SamplingTensors(
            temperature=column([p.temperature for p in params]),
            all_greedy=all(p.greedy for p in params),
            base_generator=self.base_generator,
            allowed_bitmask=bitmask,
        )
        # A draft row samples the output token ``offset`` places after the sequence's next one: it sees the drafts
        # before it as output (min_tokens, penalties), exactly as decoding one token at a time would.
        offsets = draft_offsets(seqs)
        banned = [(row, tok) for row, s in enumerate(seqs)
                  if s.num_output_tokens + offsets[row] < s.sampling_params.min_tokens
                  for tok in s.stop_token_ids if tok < vocab]
        if banned:
            t.banned_rows = torch.tensor([r for r, _ in banned], dtype=torch.long, device=dev)
            t.banned_ids = torch.tensor([tok for _, tok in banned], dtype=torch.long, device=dev)
        if not t.all_greedy:
            if any(p.top_k > 0 for p in params):
                t.top_k = column([p.top_k if p.top_k > 0 else vocab for p in params], torch.long)
            if any(p.top_p < 1.0 for p in params):
                t.top_p = column([p.top_p for p in params])
            if any(p.min_p > 0 for p in params):
                t.min_p = column([p.min_p for p in params])
            t.generators = seeded_generators(seqs) or None
        if any(p.repetition_penalty != 1.0 or p.presence_penalty or p.frequency_penalty for p in params):
            t.repetition_penalty = column([p.repetition_penalty for p in params])
            t.presence_penalty = column([p.presence_penalty for p in params])
            t.frequency_penalty = column([p.frequency_penalty for p in params])
            prompt_mask = torch.zeros(n, vocab, dtype=torch.bool)
            counts = torch.zeros(n, vocab, dtype=torch.float32)
            for i, s in enumerate(seqs):
                prompt_mask[i, torch.tensor(s.token_ids[: s.num_prompt_tokens], dtype=torch.long)] = True
                out = s.output_token_ids + s.spec_token_ids[: offsets[i]]
                if out:
                    counts[i].index_add_(0, torch.tensor(out, dtype=torch.long), torch.ones(len(out)))
            t.prompt_mask, t.output_counts = prompt_mask.to(dev), counts.to(dev)
        wanted = [p.logprobs for p in params if p.logprobs is not None]
        t.max_logprobs = max(wanted) if wanted else None
        return t

    # --- execution -----------------------------------------------------------------------------------
    @torch.inference_mode()
    def execute(self, batch: ScheduledBatch, sample_positions: list[int], sample_seqs: list[Sequence],
                bitmask: torch.Tensor | Future[torch.Tensor | None] | None = None) -> SamplerOutput | None:
        """Run one step. ``sample_positions`` are the tokens of the flattened batch whose logits are sampled, each
        for the sequence at the same index of ``sample_seqs``: the last token of a sequence whose known tokens
        this step completes, and for a decode with drafts every position from its last token on (the engine
        verifies the drafts); partial prefill chunks only fill the cache.

        ``bitmask`` may be a future being filled on the host (``BatchBitmask.fill_async``): it is joined only once
        the forward and the logits are launched, so the fill overlaps the forward pass. On CUDA the launches
        return at once and the GPU computes while the host fills; on CPU the forward computes in this thread
        (torch releases the GIL) while the fill runs on llguidance's threads (which release it too)."""
        inputs = self.prepare_inputs(batch, sample_positions)
        state_step = self._state_step(batch)
        if state_step is not None:
            logits = self.run_forward(inputs, state_step)
            if state_step.snapshots is not None:
                cast(StateSlots, self.states).stage(batch.seqs, state_step.snapshots)
        elif self.workers is None:
            logits = self.run_forward(inputs)
        else:
            try:
                self.workers.execute(inputs)
                logits = self.run_forward(inputs)
            except EngineDeadError:
                raise
            except Exception as exc:
                # A forward that failed on this rank may have left the others inside a collective: the ranks are no
                # longer in step, and the next step's collectives would pair with these. The engine must end.
                raise EngineDeadError(f"tensor-parallel forward failed on rank 0: {exc}") from exc
        if logits is None:
            return None
        if isinstance(bitmask, Future):
            bitmask = bitmask.result()
        return self.sampler(logits, self.prepare_sampling(sample_seqs, bitmask))

    def _state_step(self, batch: ScheduledBatch) -> MambaStep | None:
        """The recurrent-state inputs of ``batch`` (None for an attention-only model): each sequence's live slot and
        how many tokens its state holds; snapshot lists when the prefix cache keeps them."""
        if self.states is None:
            return None
        meta = Mamba2BatchMetadata(tuple(batch.num_new_tokens), tuple(s.num_computed_tokens for s in batch.seqs),
                                   tuple(s.state_slot for s in batch.seqs))
        snapshots: list[list[BoundarySnapshot]] | None = None
        if self.states.takes_snapshots:
            snapshots = [[] for _ in self.states.caches]
        return MambaStep(meta, self.states.caches, snapshots)

    @torch.inference_mode()
    def run_forward(self, inputs: StepInputs, state_step: MambaStep | None = None) -> torch.Tensor | None:
        """The forward pass of one step on this rank, and the float32 logits of its sampled rows (every rank
        computes its vocabulary slice; the gather gives each the whole rows). None when nothing samples.
        ``state_step``: the recurrent-state inputs of a model with Mamba2 layers (one rank, eager)."""
        if self.background is not None and self.background.finished:
            self.compiled, self.background = self.background.take(self.kv_caches), None
        dev = self.device
        meta = inputs.meta
        if dev.type != "cpu":
            meta = AttentionMetadata(
                query_start_loc=meta.query_start_loc.to(dev), seq_lens=meta.seq_lens.to(dev),
                block_tables=meta.block_tables.to(dev), slot_mapping=meta.slot_mapping.to(dev),
                num_decodes=meta.num_decodes, max_query_len=meta.max_query_len, max_seq_len=meta.max_seq_len,
                max_decode_seq_len=meta.max_decode_seq_len)
        input_ids, positions = inputs.input_ids.to(dev), inputs.positions.to(dev)
        # Moved before the forward: a blocking host-to-device copy after it would wait for the whole forward.
        rows = inputs.sample_rows.to(dev) if inputs.sample_rows is not None else None
        hidden = self.decode_graphs.run(input_ids, positions, meta) if self.decode_graphs else None
        if state_step is not None:
            hidden = cast(StatefulModel, self.model).forward_step(input_ids, positions, meta, state_step)
        elif hidden is None and self.compiled is not None:
            with forward_context(meta, self.kv_caches):
                hidden = self.compiled(input_ids, positions)
        elif hidden is None:
            hidden = self.model(input_ids, positions, meta)
        if rows is None:
            return None
        return (self.compiled or self.model).compute_logits(hidden[rows])
