"""Compile grammars once, under a size and a time cap, and keep them in a bounded LRU keyed by schema hash."""

from __future__ import annotations

import functools
import threading
import time
from collections import OrderedDict
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from typing import Any

import llguidance

from engine.structured.errors import GrammarCompileError
from engine.structured.matcher import GrammarMatcher
from engine.structured.spec import GrammarSpec, parse_structured


@dataclass(frozen=True, slots=True)
class StructuredConfig:
    """Bounds on what one constraint may cost. The time cap answers the caller; the llguidance fuel limits bound
    the work itself, so a compile that outlives its caller's cap still ends soon after in its worker thread."""

    max_source_bytes: int = 512 * 1024  # schema / tools / pattern, as compact JSON
    compile_timeout_s: float = 5.0
    cache_size: int = 256  # compiled grammars (and refusals) kept
    compile_threads: int = 2
    max_grammar_size: int = 500_000  # symbols in productions (llguidance's default)
    initial_lexer_fuel: int = 1_000_000  # regex-construction work at compile time (~20 ms)
    step_lexer_fuel: int = 200_000  # lexer work per mask; beyond it the sequence ends with an error
    step_max_items: int = 50_000  # Earley items per mask
    max_lexer_states: int = 250_000  # lexer memory (~1-2 kB a state)

    def parser_limits(self) -> llguidance.LLParserLimits:
        return llguidance.LLParserLimits(
            max_grammar_size=self.max_grammar_size,
            initial_lexer_fuel=self.initial_lexer_fuel,
            step_lexer_fuel=self.step_lexer_fuel,
            step_max_items=self.step_max_items,
            max_lexer_states=self.max_lexer_states,
            verbose_errors=False,  # a refusal names the problem, not the parser's internal state
        )


class CompiledGrammar:
    """A compiled grammar: a matcher in its start state that each sequence deep-copies (microseconds) instead of
    compiling again. The template itself is never advanced."""

    __slots__ = ("_template", "compile_ms", "key", "kind")

    def __init__(self, template: llguidance.LLMatcher, spec: GrammarSpec, compile_ms: float) -> None:
        self._template = template
        self.kind = spec.kind
        self.key = spec.key
        self.compile_ms = compile_ms

    def new_matcher(self) -> GrammarMatcher:
        return GrammarMatcher(self._template.deep_copy(), self.kind)


class GrammarCompiler:
    """Thread-safe front door: ``compile(structured)`` returns a ``CompiledGrammar`` or raises
    ``GrammarCompileError`` (a 400) with the reason. Identical constraints compile once, even when they arrive
    together; refusals are cached too, so a hostile schema sent again costs nothing."""

    def __init__(self, tokenizer: llguidance.LLTokenizer, config: StructuredConfig | None = None) -> None:
        self.tokenizer = tokenizer
        self.config = config or StructuredConfig()
        self._limits = self.config.parser_limits()
        self._cache: OrderedDict[str, CompiledGrammar | GrammarCompileError] = OrderedDict()
        self._inflight: dict[str, Future[CompiledGrammar]] = {}
        self._lock = threading.RLock()  # a done-callback may run inside submit()
        self._pool = ThreadPoolExecutor(max_workers=self.config.compile_threads, thread_name_prefix="grammar")
        self.hits = 0
        self.misses = 0

    def compile(self, structured: dict[str, Any] | None) -> CompiledGrammar | None:
        """Blocking; None when the request has no constraint."""
        spec = parse_structured(structured)
        if spec is None:
            return None
        return self.compile_spec(spec)

    def compile_spec(self, spec: GrammarSpec) -> CompiledGrammar:
        future = self.submit(spec)
        try:
            return future.result(timeout=self.config.compile_timeout_s)
        except FutureTimeout:
            raise self.refuse_slow(spec) from None

    def refuse_slow(self, spec: GrammarSpec) -> GrammarCompileError:
        """The refusal of a constraint that outlived the time cap, remembered so the same constraint sent again is
        refused at once (the compile still running in its worker cannot overwrite it)."""
        error = GrammarCompileError(
            f"{spec.kind} constraint took longer than {self.config.compile_timeout_s:g} s to compile"
        )
        self._remember(spec.key, error)
        return error

    def submit(self, spec: GrammarSpec) -> Future[CompiledGrammar]:
        """Non-blocking: a future of the compiled grammar (already done on a cache hit). The async engine awaits
        it with ``asyncio.wrap_future`` and the same timeout, so the step loop never waits on a compile."""
        if spec.source_bytes > self.config.max_source_bytes:
            raise GrammarCompileError(
                f"{spec.kind} constraint is {spec.source_bytes} bytes; the limit is {self.config.max_source_bytes}"
            )
        with self._lock:
            cached = self._cache.get(spec.key)
            if cached is not None:
                self._cache.move_to_end(spec.key)
                self.hits += 1
                if isinstance(cached, GrammarCompileError):
                    raise cached
                done: Future[CompiledGrammar] = Future()
                done.set_result(cached)
                return done
            future = self._inflight.get(spec.key)
            if future is None:
                self.misses += 1
                future = self._pool.submit(self._build, spec)
                self._inflight[spec.key] = future
                future.add_done_callback(functools.partial(self._settle, spec.key))
            return future

    def _build(self, spec: GrammarSpec) -> CompiledGrammar:
        start = time.perf_counter()
        try:
            # The constructor never raises for grammar errors: it enters an error state that says why.
            template = llguidance.LLMatcher(self.tokenizer, spec.grammar, log_level=0, limits=self._limits)
            if not template.is_error():
                # The first mask builds the lexer for the start state; do it here, under the compile cap, so the
                # first decode step does not pay for it (and a lexer that blows its fuel is refused up front).
                template.compute_bitmask()
        except Exception as exc:  # API-level failures inside the library: still the request's 400, with the reason
            raise GrammarCompileError(f"cannot enforce this {spec.kind}: {exc}") from exc
        if template.is_error():
            raise GrammarCompileError(f"cannot enforce this {spec.kind}: {template.get_error()}")
        return CompiledGrammar(template, spec, (time.perf_counter() - start) * 1000.0)

    def _settle(self, key: str, future: Future[CompiledGrammar]) -> None:
        with self._lock:
            self._inflight.pop(key, None)
            if future.cancelled():
                return
            if isinstance(self._cache.get(key), GrammarCompileError):
                return  # refused on the time cap while this ran: the refusal stands, so the answer is stable
        error = future.exception()  # _build raises nothing but GrammarCompileError
        self._remember(key, error if isinstance(error, GrammarCompileError) else future.result())

    def _remember(self, key: str, value: CompiledGrammar | GrammarCompileError) -> None:
        with self._lock:
            self._cache[key] = value
            self._cache.move_to_end(key)
            while len(self._cache) > self.config.cache_size:
                self._cache.popitem(last=False)

    def cache_len(self) -> int:
        with self._lock:
            return len(self._cache)

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
