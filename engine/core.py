"""``EngineCore``: the step loop on the far side of a pipe, in its own process (or a thread, for tests).

Wire protocol (pickled tuples over ``multiprocessing`` connections):

* in:  ``("add", EngineRequest)``, ``("abort", request_id)``, ``("shutdown",)``
* out: ``("ready", {"model_name", "max_model_len"})`` once loaded, or ``("failed", ErrorInfo)``;
  then ``("outputs", list[RequestOutput])`` per step and ``("rejected", request_id, ErrorInfo)`` for a request
  the engine refused (e.g. a constraint that does not compile); ``("stats", EngineStats)`` at most every
  ``STATS_INTERVAL_S`` while busy and once on going idle (``engine.metrics``).

The loop blocks on the input pipe only when it has nothing to run, so an idle engine costs no CPU and a busy
one never waits for the caller. A constrained request's grammar compiles on worker threads
(``engine.structured.pending``) while the loop keeps stepping; the request joins the scheduler once it is ready.
"""

from __future__ import annotations

import logging
import os
import signal
import time
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

from engine import errors
from engine.config import EngineConfig
from engine.llm_engine import LLMEngine
from engine.metrics import STATS_INTERVAL_S
from engine.outputs import RequestOutput, Usage

log = logging.getLogger(__name__)
GRAMMAR_POLL_S = 0.005  # how often an otherwise idle loop looks at the grammars compiling for it


@dataclass(frozen=True, slots=True)
class ErrorInfo:
    """An exception as data: exception classes with extra constructor arguments do not always unpickle."""

    kind: str  # class name in engine.errors (or a builtin) to re-raise as
    message: str
    param: str | None = None

    @classmethod
    def of(cls, exc: BaseException) -> ErrorInfo:
        kind = type(exc).__name__
        for klass in type(exc).__mro__:  # subclasses defined elsewhere map to their engine.errors ancestor
            if getattr(errors, klass.__name__, None) is klass:
                kind = klass.__name__
                break
        return cls(kind, str(exc), getattr(exc, "param", None))

    def to_exception(self) -> Exception:
        klass = getattr(errors, self.kind, None)
        if isinstance(klass, type) and issubclass(klass, errors.InvalidRequestError):
            return klass(self.message, param=self.param)
        if isinstance(klass, type) and issubclass(klass, errors.EngineError):
            return klass(self.message)
        return errors.EngineError(f"{self.kind}: {self.message}")


class EngineCore:
    def __init__(self, engine: LLMEngine, inbox: Connection, outbox: Connection) -> None:
        self.engine = engine
        self.inbox = inbox
        self.outbox = outbox
        self.running = True
        self._stats_sent_at = 0.0
        self._stats_dirty = True  # something changed since the last snapshot went out
        self._compiling: Any = None  # engine.structured.PendingGrammars, made with the first constrained request

    def _send_stats(self, *, force: bool = False) -> None:
        now = time.monotonic()
        if self._stats_dirty and (force or now - self._stats_sent_at >= STATS_INTERVAL_S):
            self.outbox.send(("stats", self.engine.stats()))
            self._stats_sent_at = now
            self._stats_dirty = False

    def _handle(self, message: tuple[Any, ...]) -> None:
        kind = message[0]
        self._stats_dirty = True
        if kind == "add":
            request = message[1]
            try:
                if request.structured is not None:
                    self._pending_grammars().add(request)  # joins the engine in _admit_compiled
                else:
                    self.engine.add_request(request)
            except Exception as exc:  # refused: only this request fails
                self.outbox.send(("rejected", request.request_id, ErrorInfo.of(exc)))
        elif kind == "abort":
            waiting = self._compiling.discard(message[1]) if self._compiling is not None else None
            if waiting is not None:
                out = RequestOutput(waiting.request_id, finish_reason="abort",
                                    usage=Usage(prompt_tokens=len(waiting.prompt_token_ids), completion_tokens=0))
            else:
                out = self.engine.abort_request(message[1])
            if out is not None:
                self.outbox.send(("outputs", [out]))
        elif kind == "shutdown":
            self.running = False

    def _pending_grammars(self) -> Any:
        if self._compiling is None:
            from engine.structured.pending import PendingGrammars

            self._compiling = PendingGrammars(self.engine.grammar_compiler())
        return self._compiling

    def _admit_compiled(self) -> None:
        """Move requests whose grammar compiled into the engine; reject those refused or past the time cap."""
        if not self._compiling:
            return
        for settled in self._compiling.pop_settled():
            request, error = settled.request, settled.error
            if error is None:
                try:
                    self.engine.add_request(request, grammar=settled.grammar)
                except Exception as exc:  # refused: only this request fails
                    error = exc
            if error is not None:
                self.outbox.send(("rejected", request.request_id, ErrorInfo.of(error)))
            self._stats_dirty = True

    def run(self) -> None:
        while self.running:
            # Block when idle; otherwise drain whatever arrived and take a step.
            if not self.engine.has_unfinished_requests():
                self._send_stats(force=True)  # going idle: the gauges must not keep the last busy values
                # With grammars compiling, wait only briefly: a settled one must not wait for the next message.
                if not self._compiling or self.inbox.poll(GRAMMAR_POLL_S):
                    self._handle(self.inbox.recv())
            while self.running and self.inbox.poll(0):
                self._handle(self.inbox.recv())
            self._admit_compiled()
            if self.running and self.engine.has_unfinished_requests():
                outputs = self.engine.step()
                if outputs:
                    self.outbox.send(("outputs", outputs))
                self._stats_dirty = True
                self._send_stats()
        if self._compiling is not None:
            self._compiling.close()


def run_engine_core(config: EngineConfig, inbox: Connection, outbox: Connection, *, own_process: bool = True) -> None:
    """Entry point of the engine process (and of the in-process variant's thread)."""
    if own_process:
        # Ctrl-C belongs to the parent, which shuts us down in order.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        logging.basicConfig(level=os.environ.get("WARDEN_ENGINE_LOG", "WARNING"))
    try:
        try:
            engine = LLMEngine(config)
        except Exception as exc:
            log.exception("engine failed to start")
            outbox.send(("failed", ErrorInfo.of(exc)))
            return
        try:
            outbox.send(("ready", {"model_name": engine.model_name, "max_model_len": engine.max_model_len,
                                   "vocab_size": engine.vocab_size}))
            EngineCore(engine, inbox, outbox).run()
        finally:
            engine.shutdown()  # tensor-parallel workers stop with their driver
    except (EOFError, BrokenPipeError, OSError):
        pass  # the client went away: nothing left to serve
    finally:
        outbox.close()
