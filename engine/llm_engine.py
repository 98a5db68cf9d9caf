"""The step loop: add requests, run one scheduled forward per ``step()``, turn sampled tokens into deltas.

Synchronous; ``EngineCore`` runs it in its own process and ``LLM`` drives it offline. The one other thread is
structured decoding's: the batch's grammar mask is filled on it while the forward pass runs (joined before sampling).
"""

from __future__ import annotations

import logging
from concurrent.futures import Future, wait
from dataclasses import dataclass
from typing import Any

import torch

from engine.block_manager import BlockManager
from engine.compilation import use_compile_cache
from engine.config import EngineConfig
from engine.detokenizer import IncrementalDetokenizer, StopStringFilter
from engine.errors import InvalidRequestError
from engine.layers.sampler import SamplerOutput
from engine.loader.model_loader import load_arch_config, load_model
from engine.loader.source import resolve_model
from engine.metrics import EngineStats, RequestTimings, StatsCollector, now_ns
from engine.model_runner import ModelRunner, kv_bytes_per_block
from engine.outputs import RequestOutput, TokenLogprob, Usage
from engine.request import EngineRequest
from engine.scheduler import Scheduler
from engine.sequence import Sequence
from engine.tokenizer import Tokenizer
from engine.validation import validate_request

log = logging.getLogger(__name__)
MAX_CONTEXT_DEFAULT = 8192


def resolve_device(device: str) -> torch.device:
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(device)


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


class LLMEngine:
    def __init__(self, config: EngineConfig) -> None:
        self.config = config
        if config.num_threads:
            torch.set_num_threads(config.num_threads)
        if config.compile_cache_dir:
            use_compile_cache(config.compile_cache_dir)  # before the runner compiles or builds anything
        source = resolve_model(config.model, config.served_model_name)
        self.model_name = source.served_name
        self.device = resolve_device(config.device)
        self.dtype = resolve_dtype(config.dtype, self.device)
        self.tokenizer = Tokenizer.from_source(source)
        arch = load_arch_config(source)
        max_len = config.max_model_len or min(arch.max_position_embeddings, MAX_CONTEXT_DEFAULT)
        self.model = load_model(source, dtype=self.dtype, device=self.device, max_position=max_len,
                                show_progress=config.show_progress)
        self.vocab_size = arch.vocab_size
        self.eos_token_ids = list(dict.fromkeys(self.tokenizer.eos_token_ids or arch.eos_token_ids))
        num_blocks = config.num_kv_blocks or max(
            1, config.kv_cache_memory_mb * 2**20 // kv_bytes_per_block(self.model, config.block_size, self.dtype))
        # One sequence alone must always fit, or recompute preemption could never make progress.
        self.max_model_len = min(max_len, num_blocks * config.block_size)
        self.block_manager = BlockManager(num_blocks, config.block_size, config.enable_prefix_caching)
        self.scheduler = Scheduler(self.block_manager, max_num_seqs=config.max_num_seqs,
                                   max_num_batched_tokens=max(config.max_num_batched_tokens, config.max_num_seqs),
                                   fair=config.fair_scheduling, half_life_tokens=config.fairness_half_life_tokens,
                                   tenant_kv_quota=config.tenant_kv_quota)
        self.runner = ModelRunner(config, self.model, self.device, self.dtype, num_blocks)
        self.states: dict[str, _RequestState] = {}
        self.stats_collector = StatsCollector()
        self._arrivals = 0
        self._grammar: Any = None
        self._bitmask: Any = None  # engine.structured.BatchBitmask, made with the first constrained batch
        self.num_steps = 0  # forward passes run (lifetime; tests and benchmarks)
        self.num_forced_tokens = 0  # tokens appended by jump-forward, each one forward pass saved
        log.info("engine ready: %s on %s/%s, %d KV blocks of %d tokens, max_model_len %d", self.model_name,
                 self.device, self.dtype, num_blocks, config.block_size, self.max_model_len)

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

    def stats(self) -> EngineStats:
        blocks = self.block_manager
        return self.stats_collector.snapshot(
            running=len(self.scheduler.running), waiting=len(self.scheduler.waiting),
            used_blocks=blocks.num_blocks - blocks.num_free_blocks, num_blocks=blocks.num_blocks,
            prefix_queries=self.scheduler.prefix_cache_queries, prefix_hits=self.scheduler.prefix_cache_hits,
            preemptions=self.scheduler.num_preemptions)

    # --- the step ---------------------------------------------------------------------------------
    def step(self) -> list[RequestOutput]:
        batch = self.scheduler.schedule()
        if not batch:
            return []
        scheduled_at = now_ns()
        for seq in batch.seqs:
            state = self.states.get(seq.request_id)
            if state is not None and not state.timings.scheduled_ns:
                state.timings.scheduled_ns = scheduled_at
                state.timings.cached_tokens = max(seq.cached_tokens, 0)
        sample_rows = [i for i, (s, n) in enumerate(zip(batch.seqs, batch.num_new_tokens, strict=True))
                       if s.num_computed_tokens + n == len(s)]
        sampled = [batch.seqs[i] for i in sample_rows]
        fill_errors: dict[int, str] = {}
        pending = None
        try:
            pending = self._start_bitmask_fill(sampled, fill_errors)
            out = self.runner.execute(batch, sample_rows, pending)
        except Exception as exc:  # a failed forward fails its batch, never the engine
            if pending is not None:
                wait([pending])  # the fill must not still be reading matchers (or writing the buffer) next step
            log.exception("step failed; finishing %d requests with an error", len(batch.seqs))
            return [self._finish_error(seq, f"engine step failed: {exc}") for seq in batch.seqs]
        self.num_steps += 1
        for seq, n in zip(batch.seqs, batch.num_new_tokens, strict=True):
            seq.num_computed_tokens += n
            self.block_manager.commit_computed_blocks(seq)
        if out is None:
            return []
        return self._process_samples(sampled, out, fill_errors)

    def _start_bitmask_fill(self, seqs: list[Sequence], errors: dict[int, str]) -> Future[torch.Tensor | None] | None:
        """Start filling the sampling batch's allowed-token mask on a helper thread, to run while the forward pass
        does (None when no sequence is constrained). llguidance's parallel executor fills one preallocated buffer
        (``engine.structured.BatchBitmask``); a row whose fill fails lands in ``errors`` and fails only its
        request."""
        matchers = [s.structured_state for s in seqs]
        if all(m is None for m in matchers):
            return None
        if self._bitmask is None:
            from engine.structured import BatchBitmask

            self._bitmask = BatchBitmask(self.config.max_num_seqs, self.vocab_size)
        return self._bitmask.fill_async(matchers, errors)

    def _process_samples(self, seqs: list[Sequence], out: SamplerOutput,
                         fill_errors: dict[int, str]) -> list[RequestOutput]:
        token_ids = out.token_ids.tolist()
        logprobs = out.logprobs.tolist() if out.logprobs is not None else None
        top_lps = out.top_logprobs.tolist() if out.top_logprobs is not None else None
        top_ids = out.top_ids.tolist() if out.top_ids is not None else None
        outputs = []
        for row, (seq, token) in enumerate(zip(seqs, token_ids, strict=True)):
            # The matcher failed while computing its mask (e.g. it ran out of its per-step fuel): the row was
            # sampled without its constraint, so the token is dropped and the request ends with the reason.
            error = fill_errors.get(row) or getattr(seq.structured_state, "error", None)
            if error:
                outputs.append(self._finish_error(seq, error))
                continue
            lp = None
            k = seq.sampling_params.logprobs
            if k is not None and logprobs is not None:
                tops = [] if not k or top_ids is None or top_lps is None else [
                    (tid, self.tokenizer.token_text(tid), val)
                    for tid, val in zip(top_ids[row][:k], top_lps[row][:k], strict=True)]
                lp = [TokenLogprob(token, self.tokenizer.token_text(token), logprobs[row],
                                   self.tokenizer.token_bytes(token), tops)]
            try:
                result = self._append_token(seq, token, lp)
                if not result.finished and self._jump_forward_enabled(seq):
                    result = self._jump_forward(seq, result)
                outputs.append(result)
            except Exception as exc:  # e.g. a grammar matcher failing: only this request fails
                log.exception("request %s failed while processing its token", seq.request_id)
                outputs.append(self._finish_error(seq, str(exc)))
        return outputs

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
            forced = self._append_token(seq, token, None)
            self.num_forced_tokens += 1
            forced.token_ids = result.token_ids + forced.token_ids
            forced.text = result.text + forced.text
            result = forced
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
        text = ""
        error = None
        grammar = seq.structured_state
        if grammar is not None and not grammar.accept_token(token):
            finish, error = "error", f"token {token} violates the output constraint"
        elif token in seq.stop_token_ids:
            finish = "stop"
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
        result = RequestOutput(seq.request_id, token_ids=[token], text=text, logprobs=logprobs,
                               finish_reason=finish, error=error)
        if finish is not None:
            self.states.pop(seq.request_id, None)
            self.scheduler.finish(seq, finish)
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
