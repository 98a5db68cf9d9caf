"""Requests whose constraint is still compiling, held beside the step loop instead of inside it.

``EngineCore`` hands a constrained request to ``PendingGrammars.add`` (which returns at once), keeps stepping the
running batch, and each loop turn moves the requests whose grammar is ready (or refused, or past the time cap)
out with ``pop_settled``: a ready one joins the scheduler with its compiled grammar, a refused one is rejected
(a 400). Parsing the constraint (building the grammar text, tens of milliseconds for a large schema) and compiling
it both run on worker threads, so a hostile or merely large schema never stalls a decode step.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field

from engine.errors import InvalidRequestError
from engine.request import EngineRequest
from engine.structured.compiler import CompiledGrammar, GrammarCompiler
from engine.structured.errors import GrammarCompileError
from engine.structured.spec import GrammarSpec, parse_structured


@dataclass(slots=True)
class _Pending:
    request: EngineRequest
    deadline: float
    grammar: Future[CompiledGrammar | None] = field(default_factory=Future)
    spec: GrammarSpec | None = None  # set once parsed (by a worker thread)


@dataclass(frozen=True, slots=True)
class Settled:
    """A request that may leave the queue: ``error`` set means refuse it; otherwise add it to the engine with
    ``grammar`` (None when the constraint turned out to constrain nothing, e.g. ``tool_choice: "none"``)."""

    request: EngineRequest
    grammar: CompiledGrammar | None = None
    error: BaseException | None = None


class PendingGrammars:
    """Not thread-safe: the step-loop thread owns it (the workers only complete futures)."""

    def __init__(self, compiler: GrammarCompiler, *, clock: Callable[[], float] = time.monotonic) -> None:
        self._compiler = compiler
        self._clock = clock
        self._pending: dict[str, _Pending] = {}
        # One parser thread: parsing is short; the compiler's own pool does the expensive part.
        self._parser = ThreadPoolExecutor(max_workers=1, thread_name_prefix="grammar-parse")

    def __len__(self) -> int:
        return len(self._pending)

    def __contains__(self, request_id: str) -> bool:
        return request_id in self._pending

    def add(self, request: EngineRequest) -> None:
        """Start parsing and compiling ``request.structured``; returns at once."""
        if request.request_id in self._pending:
            raise InvalidRequestError(f"request id {request.request_id!r} is already running", param="request_id")
        pending = _Pending(request, self._clock() + self._compiler.config.compile_timeout_s)
        self._pending[request.request_id] = pending
        self._parser.submit(self._parse_then_compile, pending)

    def _parse_then_compile(self, pending: _Pending) -> None:
        try:
            spec = parse_structured(pending.request.structured)
            if spec is None:
                self._settle(pending.grammar, result=None)
                return
            pending.spec = spec
            compiled = self._compiler.submit(spec)  # non-blocking; shared with identical constraints in flight
        except BaseException as exc:  # GrammarCompileError: malformed, oversized or already refused
            self._settle(pending.grammar, error=exc)
            return
        compiled.add_done_callback(lambda done: self._forward(done, pending.grammar))

    def _forward(self, compiled: Future[CompiledGrammar], into: Future[CompiledGrammar | None]) -> None:
        if compiled.cancelled():  # the compiler was closed: the engine is shutting down
            self._settle(into, error=GrammarCompileError("compilation was cancelled"))
        elif compiled.exception() is not None:
            self._settle(into, error=compiled.exception())
        else:
            self._settle(into, result=compiled.result())

    def _settle(self, future: Future[CompiledGrammar | None], *, result: CompiledGrammar | None = None,
                error: BaseException | None = None) -> None:
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)

    def discard(self, request_id: str) -> EngineRequest | None:
        """Forget a request (aborted while compiling); its compile, if any, still fills the cache."""
        pending = self._pending.pop(request_id, None)
        return None if pending is None else pending.request

    def pop_settled(self) -> list[Settled]:
        """Requests whose grammar is ready or refused, and those past the time cap (refused, and remembered as
        refused so the same constraint sent again is refused at once), in arrival order."""
        now = self._clock()
        settled: list[Settled] = []
        for request_id, pending in list(self._pending.items()):
            if pending.grammar.done():
                error = pending.grammar.exception()
                outcome = Settled(pending.request, error=error) if error is not None \
                    else Settled(pending.request, grammar=pending.grammar.result())
            elif now >= pending.deadline:
                error = self._compiler.refuse_slow(pending.spec) if pending.spec is not None else GrammarCompileError(
                    f"constraint took longer than {self._compiler.config.compile_timeout_s:g} s to compile")
                outcome = Settled(pending.request, error=error)
            else:
                continue
            del self._pending[request_id]
            settled.append(outcome)
        return settled

    def close(self) -> None:
        self._parser.shutdown(wait=False, cancel_futures=True)
