"""The step loop: add requests, run one scheduled forward per ``step()``, turn sampled tokens into deltas.

Synchronous; ``EngineCore`` runs it in its own process and ``LLM`` drives it offline. The one other thread is
structured decoding's: the batch's grammar mask is filled on it while the forward pass runs (joined before sampling).
"""

from __future__ import annotations

import dataclasses
import functools
import logging
from collections.abc import Callable
from concurrent.futures import Future, wait
from dataclasses import dataclass
from typing import Any

import torch

from engine.config import EngineConfig, resolve_device
from engine.core.startup import describe_serving, prepare_kernels, say
from engine.distributed.executor import TensorParallelWorkers, configure_process
from engine.distributed.sharding import check_tensor_parallel
from engine.errors import EngineDeadError, InvalidRequestError
from engine.layers.sampler import INVALID_TOKEN, SamplerOutput
from engine.loader.model_loader import load_arch_config, load_model
from engine.loader.source import resolve_model
from engine.metrics import EngineStats, RequestTimings, StatsCollector, now_ns
from engine.outputs import RequestOutput, TokenLogprob, Usage
from engine.request import EngineRequest
from engine.scheduling.block_manager import BlockManager
from engine.scheduling.mamba_state import build_state_slots, choose_block_size, scan_chunk_size
from engine.scheduling.scheduler import ScheduledBatch, Scheduler
from engine.scheduling.sequence import Sequence
from engine.spec_decode import DraftModelProposer
from engine.spec_decode.draft_masks import draft_masks
from engine.spec_decode.orchestrator import SpeculativeDecoder
from engine.tokenization.detokenizer import IncrementalDetokenizer, StopStringFilter
from engine.tokenization.tokenizer import Tokenizer
from engine.validation import validate_request
from engine.worker.model_runner import ModelRunner, kv_bytes_per_block

log = logging.getLogger(__name__)
MAX_CONTEXT_DEFAULT = 8192


def resolve_dtype(dtype: str, device: torch.device) -> torch.dtype:
    if dtype == "auto":
        return torch.bfloat16 if device.type == "cuda" else torch.float32
    return getattr(torch, dtype)


@dataclass(slots=True)
class _RequestState:
    seq: Sequence
    detokenizer: IncrementalDetokenizer
    stop_filter: StopStringFilter
    timings: RequestTimings


@dataclass(slots=True)
class SamplePlan:
    """Which hidden states of a step get logits: one row per sampling sequence (the last scheduled token), or,
    for a sequence with drafts, one row per position from its last real token to its last draft."""

    seqs: list[Sequence]  # sequences that sample this step, in batch order
    first_rows: list[int]  # each one's first logits row
    positions: list[int]  # per row: index of the token in the step's flattened batch
    row_seqs: list[Sequence]  # per row: the sequence it samples for

    @classmethod
    def of(cls, batch: ScheduledBatch) -> SamplePlan:
        plan = cls([], [], [], [])
        offset = 0
        for seq, n in zip(batch.seqs, batch.num_new_tokens, strict=True):
            drafts = len(seq.spec_token_ids)
            if seq.num_computed_tokens + n == len(seq) + drafts:
                rows = drafts + 1
                plan.seqs.append(seq)
                plan.first_rows.append(len(plan.row_seqs))
                plan.positions.extend(range(offset + n - rows, offset + n))
                plan.row_seqs.extend([seq] * rows)
            offset += n
        return plan


def _merged(first: RequestOutput, then: RequestOutput) -> RequestOutput:
    """One delta for tokens appended in one step (jump-forward, accepted drafts): ``then`` carries the state."""
    then.token_ids = first.token_ids + then.token_ids
    then.text = first.text + then.text
    if first.logprobs is not None or then.logprobs is not None:
        then.logprobs = (first.logprobs or []) + (then.logprobs or [])
    return then


class LLMEngine:
    def __init__(self, config: EngineConfig) -> None:
        self.device = resolve_device(config.device)
        # The "auto" dtype, quantization and compile_model made concrete for this device, per config.profile.
        config = self.config = config.resolved_for(self.device)
        source = resolve_model(config.model, config.served_model_name)
        self.model_name = source.served_name
        configure_process(config, self.device)  # threads, compile cache, current GPU: before anything loads
        self.dtype = resolve_dtype(config.dtype, self.device)
        say(f"engine: {self.model_name} on {self.device}, {describe_serving(config)}", enabled=config.show_progress)
        prepare_kernels(self.device, enabled=config.show_progress)
        self.tokenizer = Tokenizer.from_source(source)
        arch = load_arch_config(source)
        # The KV block size, settled before any worker, cache or runner exists: all of them read it from the config.
        choice = choose_block_size(config.block_size, scan_chunk_size(arch), config.enable_prefix_caching)
        # Speculation "auto" settled with it, now that the model's layers are known (engine.config.auto_speculation).
        config = self.config = dataclasses.replace(config, block_size=choice.block_size).with_speculation_for(
            self.device, recurrent_state=scan_chunk_size(arch) is not None)
        self.block_size = choice.block_size
        if choice.reason is not None:
            say(f"KV blocks: {choice.block_size} tokens ({choice.reason})", enabled=config.show_progress)
        max_len = config.max_model_len or min(arch.max_position_embeddings, MAX_CONTEXT_DEFAULT)
        self.workers: TensorParallelWorkers | None = None
        if config.tensor_parallel_size > 1:
            check_tensor_parallel(arch, config.tensor_parallel_size)  # before any process starts
            self.workers = TensorParallelWorkers.start(config, self.device, self.dtype, max_len)
        try:
            drafter = self._build_runner(config, source, arch, max_len)
        except BaseException:
            self.shutdown()
            raise
        self.states: dict[str, _RequestState] = {}
        self.stats_collector = StatsCollector()
        self._arrivals = 0
        self._grammar: Any = None
        self._bitmask: Any = None  # engine.structured.BatchBitmask, made with the first constrained batch
        self.num_steps = 0  # forward passes run (lifetime; tests and benchmarks)
        self.num_forced_tokens = 0  # tokens appended by jump-forward, each one forward pass saved
        self.speculator = SpeculativeDecoder.for_config(config, self.stats_collector, self.max_model_len, drafter)
        log.info("engine ready: %s on %s/%s (tensor parallel %d), %d KV blocks of %d tokens, max_model_len %d",
                 self.model_name, self.device, self.dtype, config.tensor_parallel_size, self.block_manager.num_blocks,
                 self.block_size, self.max_model_len)

    def _build_runner(self, config: EngineConfig, source: Any, arch: Any,
                      max_len: int) -> DraftModelProposer | None:
        """Load this rank's model (and the draft model, if any), size the KV pool and build the runners (with the
        workers, under tensor parallelism: they load their shards meanwhile and build their runners in lockstep
        with ours). Returns the draft model's proposer, which shares the target's block tables."""
        self.model = load_model(source, dtype=self.dtype, device=self.device, max_position=max_len,
                                show_progress=config.show_progress, tp=self.workers.tp if self.workers else None)
        self.vocab_size = arch.vocab_size
        self.eos_token_ids = list(dict.fromkeys(self.tokenizer.eos_token_ids or arch.eos_token_ids))
        draft_model = self._load_draft_model(config, max_len) if config.speculative_method == "draft_model" else None
        block_size = self.block_size
        block_bytes = kv_bytes_per_block(self.model, block_size, self.dtype, config.kv_cache_dtype)
        if draft_model is not None:  # the draft's cache has a block for every block of the target's
            block_bytes += kv_bytes_per_block(draft_model, block_size, self.dtype, config.kv_cache_dtype)
        states = build_state_slots(self.model, config, self.device, block_bytes, max_len, block_size)
        if states is not None:
            num_blocks = states.num_blocks
        else:
            num_blocks = config.num_kv_blocks or max(1, config.kv_cache_memory_mb * 2**20 // block_bytes)
        # Blocks out of the sliding window are released early only when every layer shares it (Mistral) and no draft
        # model reads the same block tables with its own (global) attention.
        window = self.model.config.uniform_window if draft_model is None and states is None else 0
        max_step_tokens = max(config.max_num_batched_tokens, config.max_num_seqs)
        # One sequence alone must always fit, or recompute preemption could never make progress. Under a shared
        # window it holds at most one window plus one step's tokens at a time, however long it grows.
        window_blocks = -(-(window - 1 + max_step_tokens) // block_size) + 1
        fits_any_length = window > 0 and num_blocks >= window_blocks
        self.max_model_len = max_len if fits_any_length else min(max_len, num_blocks * block_size)
        self.block_manager = BlockManager(num_blocks, block_size, config.enable_prefix_caching, window,
                                          states.slots if states is not None else None)
        max_num_seqs = min(config.max_num_seqs, states.slots.num_live) if states is not None else config.max_num_seqs
        self.scheduler = Scheduler(self.block_manager, max_num_seqs=max_num_seqs,
                                   max_num_batched_tokens=max_step_tokens,
                                   fair=config.fair_scheduling, half_life_tokens=config.fairness_half_life_tokens,
                                   tenant_kv_quota=config.tenant_kv_quota)
        if self.workers is not None:
            self.workers.await_loaded()
            self.workers.build_runners(num_blocks)
        self.runner = ModelRunner(config, self.model, self.device, self.dtype, num_blocks, self.workers,
                                  states.slots if states is not None else None)
        drafter = None
        if draft_model is not None:
            # The draft runs whole on this rank (it is small), with its own quantization and no speculation.
            draft_config = dataclasses.replace(
                config, model=config.speculative_model or "", quantization=config.speculative_model_quantization,
                tensor_parallel_size=1, speculative_method=None, speculative_model=None)
            drafter = DraftModelProposer(
                ModelRunner(draft_config, draft_model, self.device, self.dtype, num_blocks), self.block_manager,
                max_step_tokens)
        if self.workers is not None:
            self.workers.await_ready()
        return drafter

    def _load_draft_model(self, config: EngineConfig, max_len: int) -> Any:
        """The draft model, after checking it speaks the target's tokens: a draft is a token id, so both models
        must map ids to the same strings (a draft vocabulary may be shorter, never longer)."""
        assert config.speculative_model is not None
        source = resolve_model(config.speculative_model, None)
        arch = load_arch_config(source)
        if arch.vocab_size > self.vocab_size:
            raise ValueError(f"the draft model's vocabulary ({arch.vocab_size}) is larger than the target's "
                             f"({self.vocab_size})")
        draft_vocab = Tokenizer.from_source(source).backend.get_vocab()
        target_vocab = self.tokenizer.backend.get_vocab()
        if draft_vocab != target_vocab:
            raise ValueError(f"the draft model {config.speculative_model!r} has another tokenizer than the target: "
                             "a draft model must share the target's vocabulary")
        return load_model(source, dtype=self.dtype, device=self.device, max_position=max_len,
                          show_progress=config.show_progress)

    def shutdown(self) -> None:
        """Stop the tensor-parallel workers (nothing to do for a single-rank engine). The engine is unusable after."""
        if self.workers is not None:
            self.workers.shutdown()

    # --- requests ---------------------------------------------------------------------------------
    def add_request(self, request: EngineRequest, *, grammar: Any = None) -> None:
        """Validate and queue; raises ``InvalidRequestError`` (and subclasses) without touching the batch.
        ``grammar``: the request's constraint already compiled (``EngineCore`` compiles off the step loop);
        without it a constrained request compiles here, blocking (offline use)."""
        if request.request_id in self.states:
            raise InvalidRequestError(f"request id {request.request_id!r} is already running", param="request_id")
        validate_request(request, max_model_len=self.max_model_len, vocab_size=self.vocab_size)
        if grammar is not None:
            structured_state = grammar.new_matcher()
        else:
            structured_state = self._new_structured_state(request) if request.structured is not None else None
        params = request.sampling_params
        stops = set(params.stop_token_ids)
        if not params.ignore_eos:
            stops.update(self.eos_token_ids)
        seq = Sequence(request.request_id, request.prompt_token_ids, params, cache_salt=request.cache_salt,
                       arrival=self._arrivals, structured_state=structured_state, tenant=request.tenant,
                       weight=request.priority, public_prefix_len=request.public_prefix_len,
                       stop_token_ids=frozenset(stops))
        self._arrivals += 1
        self.states[request.request_id] = _RequestState(
            seq=seq,
            detokenizer=IncrementalDetokenizer(self.tokenizer, request.prompt_token_ids),
            stop_filter=StopStringFilter(params.stop),
            timings=RequestTimings(arrival_ns=now_ns()),
        )
        self.scheduler.add(seq)

    def _new_structured_state(self, request: EngineRequest) -> Any:
        """Compile the request's constraint into a per-sequence grammar matcher (``engine.structured``)."""
        compiled = self.grammar_compiler().compile(request.structured)
        return None if compiled is None else compiled.new_matcher()

    def grammar_compiler(self) -> Any:
        """The engine's ``engine.structured.GrammarCompiler``, built on first use (its tokenizer view takes ~0.5 s,
        so engines that never see a constraint never pay for it)."""
        if self._grammar is None:
            try:
                from engine.structured import GrammarCompiler, build_ll_tokenizer
            except ImportError as exc:
                message = f"structured outputs are unavailable: {exc}"
                raise InvalidRequestError(message, param="response_format") from exc
            self._grammar = GrammarCompiler(build_ll_tokenizer(
                self.tokenizer.backend, vocab_size=self.vocab_size, eos_token_ids=self.eos_token_ids))
        return self._grammar

    def abort_request(self, request_id: str) -> RequestOutput | None:
        """Finish a request now and free its blocks; None for unknown or finished ids."""
        state = self.states.pop(request_id, None)
        if state is None:
            return None
        self.scheduler.finish(state.seq, "abort")
        return RequestOutput(request_id, finish_reason="abort", usage=self._usage(state.seq))

    def has_unfinished_requests(self) -> bool:
        return self.scheduler.has_unfinished()

    @property
    def num_unfinished_requests(self) -> int:
        return len(self.states)

    @property
    def num_waiting_requests(self) -> int:
        """Requests queued for their first schedule (or preempted back): ``stats().num_requests_waiting``, for free."""
        return len(self.scheduler.waiting)

    def stats(self) -> EngineStats:
        blocks = self.block_manager
        return self.stats_collector.snapshot(
            running=len(self.scheduler.running), waiting=len(self.scheduler.waiting),
            used_blocks=blocks.num_blocks - blocks.num_free_blocks, num_blocks=blocks.num_blocks,
            prefix_queries=self.scheduler.prefix_cache_queries, prefix_hits=self.scheduler.prefix_cache_hits,
            preemptions=self.scheduler.num_preemptions, block_size=blocks.block_size)

    # --- the step ---------------------------------------------------------------------------------
    def step(self) -> list[RequestOutput]:
        started = self.speculator.clock() if self.speculator is not None else 0.0
        if self.speculator is not None:
            self.speculator.propose(self.scheduler.running)
        batch = self.scheduler.schedule()
        if not batch:
            return []
        scheduled_at = now_ns()
        for seq in batch.seqs:
            state = self.states.get(seq.request_id)
            if state is not None and not state.timings.scheduled_ns:
                state.timings.scheduled_ns = scheduled_at
                state.timings.cached_tokens = max(seq.cached_tokens, 0)
        fill_errors: dict[int, str] = {}
        pending = None
        try:
            if self.speculator is not None:
                self.speculator.write_drafts(batch)
            plan = SamplePlan.of(batch)
            pending = self._start_bitmask_fill(plan, fill_errors)
            out = self.runner.execute(batch, plan.positions, plan.row_seqs, pending)
        except Exception as exc:  # a failed forward fails its batch, never the engine ...
            if pending is not None:
                wait([pending])  # the fill must not still be reading matchers (or writing the buffer) next step
            if isinstance(exc, EngineDeadError):
                raise  # ... unless the model is no longer whole (a tensor-parallel rank is gone or out of step)
            log.exception("step failed; finishing %d requests with an error", len(batch.seqs))
            for seq in batch.seqs:
                seq.spec_token_ids = []
            return [self._finish_error(seq, f"engine step failed: {exc}") for seq in batch.seqs]
        self.num_steps += 1
        for seq, n in zip(batch.seqs, batch.num_new_tokens, strict=True):
            # Draft positions hold KV only once the drafts are accepted (``_verify_drafts``).
            seq.num_computed_tokens += n - len(seq.spec_token_ids)
            self.block_manager.commit_computed_blocks(seq)
        if out is None:
            return []
        speculator = self.speculator
        cost_table = speculator.step_cost_table(batch) if speculator is not None else None
        outputs = self._process_samples(plan, out, fill_errors)
        if speculator is not None and cost_table is not None:
            cost_table.record(sum(batch.num_new_tokens), speculator.clock() - started)
        return outputs

    def _start_bitmask_fill(self, plan: SamplePlan, errors: dict[int, str]) -> Future[torch.Tensor | None] | None:
        """Start filling the sampling batch's allowed-token mask on a helper thread, to run while the forward pass
        does (None when no sequence is constrained). llguidance's parallel executor fills one preallocated buffer
        (``engine.structured.BatchBitmask``), one row per logits row; a row whose fill fails lands in ``errors``
        and fails only its request. A constrained sequence with drafts gets its rows computed here first
        (``engine.spec_decode.draft_masks``)."""
        if all(s.structured_state is None for s in plan.seqs):
            return None
        if self._bitmask is None:
            from engine.structured import BatchBitmask

            # With speculation a sequence samples up to 1 + num_speculative_tokens rows.
            rows_per_seq = 1 + (self.config.num_speculative_tokens if self.speculator is not None else 0)
            self._bitmask = BatchBitmask(self.config.max_num_seqs * rows_per_seq, self.vocab_size)
        matchers: list[Any] = []
        for seq, first_row in zip(plan.seqs, plan.first_rows, strict=True):
            if not seq.spec_token_ids or seq.structured_state is None:
                matchers.extend([seq.structured_state] + [None] * len(seq.spec_token_ids))
                continue
            try:
                matchers.extend(draft_masks(seq.structured_state, seq.spec_token_ids, self._bitmask.words))
            except Exception as exc:  # the grammar failed on its own drafts: only this request fails
                errors[first_row] = f"output constraint failed: {exc}"
                matchers.extend([None] * (1 + len(seq.spec_token_ids)))
        return self._bitmask.fill_async(matchers, errors)

    def _process_samples(self, plan: SamplePlan, out: SamplerOutput,
                         fill_errors: dict[int, str]) -> list[RequestOutput]:
        token_ids = out.token_ids.tolist()
        logprobs = out.logprobs.tolist() if out.logprobs is not None else None
        top_lps = out.top_logprobs.tolist() if out.top_logprobs is not None else None
        top_ids = out.top_ids.tolist() if out.top_ids is not None else None

        def row_logprobs(seq: Sequence, row: int) -> list[TokenLogprob] | None:
            k = seq.sampling_params.logprobs
            if k is None or logprobs is None:
                return None
            token = token_ids[row]
            tops = [] if not k or top_ids is None or top_lps is None else [
                (tid, self.tokenizer.token_text(tid), val)
                for tid, val in zip(top_ids[row][:k], top_lps[row][:k], strict=True)]
            return [TokenLogprob(token, self.tokenizer.token_text(token), logprobs[row],
                                 self.tokenizer.token_bytes(token), tops)]

        outputs = []
        for seq, row in zip(plan.seqs, plan.first_rows, strict=True):
            # The matcher failed while computing its mask (e.g. it ran out of its per-step fuel): the row was
            # sampled without its constraint, so the token is dropped and the request ends with the reason.
            error = fill_errors.get(row) or getattr(seq.structured_state, "error", None)
            rows = range(row, row + 1 + len(seq.spec_token_ids))
            if not error and any(token_ids[r] == INVALID_TOKEN for r in rows):
                # The sampler found no finite logit in a row of this request (engine.layers.sampler).
                seq.spec_token_ids = []
                error = "the model produced no finite logits for this request's next token"
            if error:
                outputs.append(self._finish_error(seq, error))
                continue
            try:
                if seq.spec_token_ids:
                    outputs.append(self._verify_drafts(seq, token_ids, row, row_logprobs))
                    continue
                result = self._append_token(seq, token_ids[row], row_logprobs(seq, row))
                if not result.finished and self._jump_forward_enabled(seq):
                    result = self._jump_forward(seq, result)
                outputs.append(result)
            except Exception as exc:  # e.g. a grammar matcher failing: only this request fails
                log.exception("request %s failed while processing its token", seq.request_id)
                outputs.append(self._finish_error(seq, str(exc)))
        return outputs

    def _verify_drafts(self, seq: Sequence, token_ids: list[int], first_row: int,
                       row_logprobs: Callable[[Sequence, int], list[TokenLogprob] | None]) -> RequestOutput:
        """Append the tokens the speculator accepts from rows ``first_row..`` (``SpeculativeDecoder.verify``) as
        one delta; the accepted drafts' KV becomes computed."""
        assert self.speculator is not None
        steps, accepted = self.speculator.verify(
            seq, token_ids, first_row, lambda row: self._append_token(seq, token_ids[row], row_logprobs(seq, row)))
        result = functools.reduce(_merged, steps)
        if not result.finished:
            seq.num_computed_tokens += accepted  # the accepted drafts' KV was computed with the right context
            self.block_manager.commit_computed_blocks(seq)
            if self._jump_forward_enabled(seq):
                result = self._jump_forward(seq, result)
        return result

    def _jump_forward_enabled(self, seq: Sequence) -> bool:
        """Jump-forward applies to constrained sequences without logprobs: a forced token is never sampled, so it
        has no sampled log-probability to report (those requests keep one forward pass per token instead)."""
        return (self.config.structured_jump_forward and seq.sampling_params.logprobs is None
                and hasattr(seq.structured_state, "forced_tokens"))

    def _jump_forward(self, seq: Sequence, result: RequestOutput) -> RequestOutput:
        """Append the tokens the grammar forces next (it allows exactly one continuation) without a forward pass
        each. They go through the same per-token path as sampled ones (matcher, stop tokens and strings,
        detokenizer, max_tokens, usage) and become known-but-uncomputed tokens of the sequence: the scheduler
        computes them in the next step like a short prefill chunk, which then samples after the last of them."""
        for token in seq.structured_state.forced_tokens():
            if result.finished:
                break
            result = _merged(result, self._append_token(seq, token, None))
            self.num_forced_tokens += 1
        return result

    def _append_token(self, seq: Sequence, token: int, logprobs: list[TokenLogprob] | None) -> RequestOutput:
        state = self.states[seq.request_id]
        params = seq.sampling_params
        seq.token_ids.append(token)
        self.stats_collector.generation_tokens += 1
        if seq.num_output_tokens == 1:
            state.timings.first_token_ns = now_ns()
            self.stats_collector.prompt_tokens += seq.num_prompt_tokens
        finish: str | None = None
        stop_reason: str | int | None = None
        text = ""
        error = None
        grammar = seq.structured_state
        if grammar is not None and not grammar.accept_token(token):
            finish, error = "error", f"token {token} violates the output constraint"
        elif token in seq.stop_token_ids:
            finish = "stop"
            # A stop token the request named is reported; the model's own EOS is not (as vLLM does).
            stop_reason = token if token in params.stop_token_ids else None
        else:
            armed = seq.num_output_tokens >= params.min_tokens
            text, stopped = state.stop_filter.feed(state.detokenizer.push(token), armed=armed)
            if stopped or (grammar is not None and grammar.is_terminated()):
                finish = "stop"
        if finish is None and (seq.num_output_tokens >= params.max_tokens or len(seq) >= self.max_model_len):
            finish = "length"
        if finish is not None and finish != "error" and not state.stop_filter.stopped:
            # Release what was held back: an incomplete character, or text that might have begun a stop string.
            tail, stopped = state.stop_filter.feed(state.detokenizer.flush())
            text += tail if stopped else tail + state.stop_filter.flush()
            finish = "stop" if stopped else finish
        if state.stop_filter.stopped:
            stop_reason = state.stop_filter.matched
        result = RequestOutput(seq.request_id, token_ids=[token], text=text, logprobs=logprobs,
                               finish_reason=finish, stop_reason=stop_reason, error=error)
        if finish is not None:
            self.states.pop(seq.request_id, None)
            self.scheduler.finish(seq, finish)
            if self.speculator is not None:
                self.speculator.finished(seq)
            state.timings.finished_ns = now_ns()
            result.metrics = state.timings
        result.usage = self._usage(seq)
        return result

    def _finish_error(self, seq: Sequence, message: str) -> RequestOutput:
        state = self.states.pop(seq.request_id, None)
        self.scheduler.finish(seq, "error")
        timings = state.timings if state is not None else None
        if timings is not None:
            timings.finished_ns = now_ns()
        return RequestOutput(seq.request_id, finish_reason="error", error=message, usage=self._usage(seq),
                             metrics=timings)

    @staticmethod
    def _usage(seq: Sequence) -> Usage:
        return Usage(prompt_tokens=seq.num_prompt_tokens, completion_tokens=seq.num_output_tokens,
                     cached_tokens=max(seq.cached_tokens, 0))
