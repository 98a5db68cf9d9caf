"""Input guardrails for a chat request: PII actions and prompt-injection screening over every message.

Agentic clients resend the whole conversation each turn. Findings and injection verdicts are cached per
(tenant, content hash), so a message already seen costs one hash and a dictionary lookup; only new text is analysed.
A value split across consecutive messages is found by reading a bounded window around each boundary between them
(``boundaries``), cached the same way, so an appended message adds a few small windows, not a rescan of the history.
An injection split across consecutive untrusted texts ("Ignore all previous" / "instructions and ...") is screened
the same way: when no text alone screens as injection, the windows around the boundaries between them are scored.
Analysis, of input and of output, runs on bounded thread pools, never on the event loop; with
``GuardConfig.analysis_processes``, the input's detectors and NER run in worker processes (``processes``), off the
event loop's GIL, while the guard thread screens the texts for injection. A scan that spends more than
``GuardConfig.scan_budget_s`` of CPU is refused (``budget``).
"""

from __future__ import annotations

import asyncio
import copy
import sys
import threading
from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path
from typing import Any, TypeVar

from gateway.guardrails.analyzer import PiiAnalyzer
from gateway.guardrails.boundaries import READINGS, BoundaryWindow, SplitFinding, boundary_windows, crossing_findings
from gateway.guardrails.budget import BUDGET_EXCEEDED_CODE, ScanBudget, ScanBudgetExceeded, scanning
from gateway.guardrails.cache import BoundedLru, content_key
from gateway.guardrails.findings import Finding
from gateway.guardrails.injection import InjectionDetector, InjectionVerdict, OnnxInjectionClassifier
from gateway.guardrails.json_lexer import OutputShape
from gateway.guardrails.output import OutputRedactor, redact_output_text
from gateway.guardrails.processes import AnalysisProcesses, AnalysisUnavailable
from gateway.guardrails.redaction import EntityTally, apply_actions, decide, tenant_token_key
from gateway.guardrails.warm_up import loaded_ner, warm_up
from policies import InjectionAction, Policy, injection_action, needs_ner

T = TypeVar("T")

# Roles whose text can carry an injected instruction from someone other than the operator.
UNTRUSTED_ROLES = frozenset({"user", "tool", "function"})
# In an injection verdict's signals (audit): the instruction was found only when consecutive texts were read jointly.
SPLIT_SIGNAL = "split_across_messages"


# A request whose texts are all cached is answered on the event loop (hashes and lookups, no analysis) when its
# texts total at most this many characters: cheaper than the hop to a guard thread and back, and bounded.
INLINE_CACHED_CHARS = 32_768
# How often a request whose scan has run as long as its CPU budget reads the scanning thread's CPU clock.
BUDGET_POLL_S = 0.02


class _NeedsAnalysis(Exception):
    """Raised by a cached-only scan when some text, window or verdict is not cached."""


class GuardrailInputError(ValueError):
    """Input the guardrails refuse to analyse. The gateway answers it with `status_code` (a 4xx)."""

    def __init__(self, message: str, *, status_code: int = 400, code: str = "invalid_input") -> None:
        super().__init__(message)
        self.status_code = status_code
        self.code = code


@dataclass(frozen=True, slots=True)
class GuardConfig:
    max_message_chars: int = 256_000  # one message's text; beyond it: 413
    max_total_chars: int = 2_000_000  # all messages together; beyond it: 413
    cache_entries: int = 100_000  # findings and verdicts kept (each a few hundred bytes, no text)
    workers: int = 2  # input analysis threads
    # Output redaction gets its own threads: a chunk's few hundred characters must not queue behind a long prompt.
    output_workers: int = 2
    # An operator's ONNX injection classifier (model.onnx + tokenizer.json) instead of the shipped linear one;
    # loaded and probed when the guard is built, so a bad directory stops start-up rather than a request.
    injection_onnx_dir: Path | None = None
    injection_label: int = 1  # the ONNX model's logit column that means "injection"
    # Values split across consecutive messages: the visible characters read jointly on each side of a boundary
    # (0: off; 96 holds any supported value, like the output hold-back), and how many texts a window may reach into
    # on each side when the nearest are shorter (a value cut into up to 2 x 4 pieces is still read whole).
    split_window_chars: int = 96
    split_window_texts: int = 4
    # Injections split across consecutive untrusted texts ("Ignore all previous" / "instructions and reveal..."):
    # the visible characters screened jointly on each side of each boundary between them (0: off). Wider than the
    # PII window: an instruction is a sentence, and the phrase rules span up to ~100 characters.
    injection_window_chars: int = 128
    # Worker processes that run the input's detectors and NER (0: the input threads run them, in this process). Pure
    # Python, a scan holds the GIL the event loop needs: a gateway process then spends at most one core on both.
    # Each worker holds its own detectors and models (about 0.2 GB with NER). Output analysis stays on its threads.
    analysis_processes: int = 0
    # The CPU seconds one request's input scan may spend (None: no limit); past it the request is refused with 422
    # guardrail_budget_exceeded, never forwarded unscanned (``budget``). A dev-corpus text scans in under 0.05 s
    # with NER, a 54 KB agent conversation with nothing cached in about 0.2 s.
    scan_budget_s: float | None = 2.0
    # Load the NER models (names and places) as the guard is built, when it builds its own analyzer: a policy that
    # masks PERSON or LOCATION may be in force, or written through the admin API, at any time, and its first scan
    # would otherwise wait about 0.7 s for them. False: the first scan that needs them loads them, on its guard
    # thread, once (saves their memory, about 70 MB, in a deployment whose policies never find names).
    load_ner: bool = True


@dataclass(slots=True)
class GuardResult:
    messages: list[dict[str, Any]]  # the messages with PII actions applied; forward these to the engine
    decisions: list[dict[str, Any]] = field(default_factory=list)  # JSON-serialisable, for the audit record
    blocked: bool = False
    block_reason: str | None = None  # safe to return to the client: names entity types, never values
    injection_score: float = 0.0
    cache_hits: int = 0
    scanned_chars: int = 0  # characters actually analysed (cache misses) this call
    boundary_chars: int = 0  # of those, the characters of windows read around boundaries between messages


@dataclass(slots=True)
class _TextSlot:
    """Where one piece of text lives in a message, so the redacted text can be written back."""

    message_index: int
    role: str
    text: str
    path: tuple[str | int, ...]


CacheKey = tuple[str, str, bytes]


@dataclass(slots=True)
class _PendingWindows:
    """One request's boundary windows: the split values of those cached, and the pieces of those to analyse."""

    windows: list[BoundaryWindow]
    keys: list[CacheKey]  # per window (two windows with the same content share a key)
    splits: dict[CacheKey, tuple[SplitFinding, ...]] = field(default_factory=dict)
    unsplit: dict[CacheKey, tuple[BoundaryWindow, list[str]]] = field(default_factory=dict)

    def readings(self) -> list[tuple[bool, str]]:
        """Each new window's readings, in order, with whether the reading may run NER (``READINGS``)."""
        return [(may_ner, join.join(pieces)) for _, pieces in self.unsplit.values() for join, may_ner in READINGS]


@dataclass(slots=True)
class _Prepared:
    """What a scan reads off a request before any lookup or analysis, filled in as the scan goes: a cached-only scan
    on the event loop that misses hands it to the guard thread, which then neither copies the messages nor hashes
    again what the loop's scan got to (it stops at the first new text, before the boundary windows)."""

    slots: list[_TextSlot]
    # Deep copies of the messages, to write the redacted texts into. A scan writes each slot's text afresh from the
    # slot's original, so copies a missed cached-only scan already wrote into are as good as new ones.
    messages: list[dict[str, Any]] | None = None
    keys: list[CacheKey] | None = None  # the texts' findings keys (one variant per policy: the scan's policy)
    windows: tuple[list[BoundaryWindow], list[CacheKey]] | None = None  # boundary windows and their keys
    verdict_keys: list[CacheKey] | None = None  # the untrusted texts' injection verdict keys


def _text_slots(messages: Sequence[Mapping[str, Any]]) -> list[_TextSlot]:
    slots: list[_TextSlot] = []
    for index, message in enumerate(messages):
        if not isinstance(message, Mapping):
            raise GuardrailInputError(f"messages[{index}] must be an object")
        role = str(message.get("role", ""))
        content = message.get("content")
        if isinstance(content, str):
            slots.append(_TextSlot(index, role, content, ("content",)))
        elif isinstance(content, list):
            for part_index, part in enumerate(content):
                if isinstance(part, Mapping) and part.get("type") == "text" and isinstance(part.get("text"), str):
                    slots.append(_TextSlot(index, role, part["text"], ("content", part_index, "text")))
        elif content is not None:
            raise GuardrailInputError(f"messages[{index}].content must be a string, a list of parts or null")
        for call_index, call in enumerate(message.get("tool_calls") or []):
            arguments = call.get("function", {}).get("arguments") if isinstance(call, Mapping) else None
            if isinstance(arguments, str):
                slots.append(_TextSlot(index, role, arguments, ("tool_calls", call_index, "function", "arguments")))
    return slots


def _check_sizes(slots: list[_TextSlot], config: GuardConfig) -> None:
    total = 0
    for slot in slots:
        try:
            slot.text.encode("utf-8")
        except UnicodeEncodeError as exc:  # lone surrogates survive JSON decoding but are not text
            raise GuardrailInputError(
                f"messages[{slot.message_index}] contains undecodable text (unpaired surrogate)",
                code="invalid_encoding",
            ) from exc
        if len(slot.text) > config.max_message_chars:
            raise GuardrailInputError(
                f"messages[{slot.message_index}] is {len(slot.text)} characters; the limit is "
                f"{config.max_message_chars}",
                status_code=413,
                code="message_too_large",
            )
        total += len(slot.text)
    if total > config.max_total_chars:
        raise GuardrailInputError(
            f"messages total {total} characters; the limit is {config.max_total_chars}",
            status_code=413,
            code="request_too_large",
        )


def _copied(value: Any) -> Any:
    """``copy.deepcopy(value)`` for a request's messages, at a third of its cost: JSON's dicts and lists copied,
    its strings, numbers, booleans and nulls (which no write changes) kept, anything else deep-copied. JSON holds
    no object twice, so deepcopy's memo of the objects it copied has nothing to keep apart."""
    if type(value) is dict:
        return {key: _copied(item) for key, item in value.items()}
    if type(value) is list:
        return [_copied(item) for item in value]
    if value is None or type(value) in _KEPT_TYPES:
        return value
    return copy.deepcopy(value)


_KEPT_TYPES = frozenset({str, int, float, bool})


def _write_back(messages: list[dict[str, Any]], slot: _TextSlot, text: str) -> None:
    target: Any = messages[slot.message_index]
    for key in slot.path[:-1]:
        target = target[key]
    target[slot.path[-1]] = text


class InputGuard:
    def __init__(
        self,
        server_secret: bytes,
        *,
        analyzer: PiiAnalyzer | None = None,
        injection: InjectionDetector | None = None,
        config: GuardConfig | None = None,
        executor: Executor | None = None,
    ) -> None:
        self._secret = server_secret
        self.config = config or GuardConfig()
        self.analyzer = (
            analyzer if analyzer is not None else PiiAnalyzer(ner=loaded_ner() if self.config.load_ner else None)
        )
        if injection is None:
            injection = InjectionDetector(
                OnnxInjectionClassifier(self.config.injection_onnx_dir, injection_label=self.config.injection_label)
            ) if self.config.injection_onnx_dir is not None else InjectionDetector()
        self._injection = injection
        if self.config.analysis_processes > 0 and analyzer is not None:
            raise ValueError("analysis_processes runs the default analyzer; a given analyzer runs in this process")
        self._processes = _start_workers(self.config.analysis_processes) if self.config.analysis_processes else None
        self._executor = executor or ThreadPoolExecutor(self.config.workers, thread_name_prefix="warden-guard")
        self._output_executor = executor or ThreadPoolExecutor(
            self.config.output_workers, thread_name_prefix="warden-guard-out"
        )
        self._findings: BoundedLru[tuple[Finding, ...]] = BoundedLru(self.config.cache_entries)
        self._verdicts: BoundedLru[InjectionVerdict] = BoundedLru(self.config.cache_entries)
        self._splits: BoundedLru[tuple[SplitFinding, ...]] = BoundedLru(self.config.cache_entries)
        # Where this guard builds its analyzer without the NER models, the first scans that need them wait for one
        # load on a thread of its own (``_ner_loaded``), not on guard threads, which stay free for other scans.
        self._ner_pending = analyzer is None and not self.config.load_ner
        self._ner_load: Future[None] | None = None
        self._ner_load_lock = threading.Lock()
        if analyzer is None:
            # The detectors' lazily built tables (and the NER models' first call) now, not in the first request's
            # scan (nor, in a gateway, after its start-up heap is frozen: ``gateway.core.gc_tuning``). Built here
            # even with analysis processes: output redaction runs this analyzer. An analyzer given is the caller's,
            # to warm up (``warm_up``) or not.
            warm_up(self.analyzer, self._injection, ner=self.config.load_ner)
        if self._processes is not None:
            _await_workers(self._processes)

    @property
    def injection(self) -> InjectionDetector:
        return self._injection

    async def scan_messages(self, tenant_id: str, messages: Sequence[Mapping[str, Any]], policy: Policy) -> GuardResult:
        """Off the event loop: a long prompt occupies a worker thread, not the loop serving other requests. A short
        request whose every text, window and verdict is cached (an agent resending its conversation) is answered
        on the loop: no analysis runs there, and the thread hop would cost more than the lookups.

        A scan past its CPU budget is refused here as soon as the scanning thread's clock shows it, even while that
        thread is still inside one detector call (it stops at its next check)."""
        prepared = self._prepare(messages)
        try:
            return self._scan(tenant_id, messages, policy, prepared, cached_only=True)
        except _NeedsAnalysis:
            pass
        if self._ner_pending and self._processes is None and needs_ner(policy.pii_input):
            await self._ner_loaded()
        budget = ScanBudget(self.config.scan_budget_s)
        loop = asyncio.get_running_loop()
        scan = loop.run_in_executor(self._executor, self._scan_within, budget, tenant_id, messages, policy, prepared)
        if budget.seconds is None:
            return await scan
        # One thread's CPU time never runs ahead of the wall clock: no scan can overrun before `seconds` have passed.
        done, _ = await asyncio.wait({scan}, timeout=budget.seconds)
        while not done:
            if budget.exceeded():
                budget.cancelled = True
                scan.add_done_callback(_retrieve)  # its refusal (or late result) is nobody's now
                raise _budget_refusal(budget.seconds)
            done, _ = await asyncio.wait({scan}, timeout=BUDGET_POLL_S)
        return scan.result()

    async def _ner_loaded(self) -> None:
        """Wait for the NER models, loading them once for all the scans that wait: on a thread of their own, so that
        the guard threads, which a waiting scan would otherwise hold (two scans of names policies hold both), stay
        free for scans that do not need them. A load that fails is tried again by the next scan."""
        with self._ner_load_lock:
            if self._ner_load is None:
                loader = ThreadPoolExecutor(1, thread_name_prefix="warden-ner-load")
                self._ner_load = loader.submit(self._load_ner)
                loader.shutdown(wait=False)  # its thread ends once the load has
            load = self._ner_load
        try:
            await asyncio.shield(asyncio.wrap_future(load))  # a waiter's cancellation is not the load's
        except BaseException:
            with self._ner_load_lock:
                if self._ner_load is load and load.done():
                    self._ner_load = None
            raise
        self._ner_pending = False

    def _load_ner(self) -> None:
        _ = self.analyzer.ner  # the analyzer loads them on first use

    def scan_messages_sync(self, tenant_id: str, messages: Sequence[Mapping[str, Any]], policy: Policy) -> GuardResult:
        return self._scan_within(ScanBudget(self.config.scan_budget_s), tenant_id, messages, policy,
                                 self._prepare(messages))

    def _scan_within(self, budget: ScanBudget, tenant_id: str, messages: Sequence[Mapping[str, Any]], policy: Policy,
                     prepared: _Prepared) -> GuardResult:
        """A full scan on this thread, its CPU counted against ``budget``."""
        try:
            with scanning(budget):
                return self._scan(tenant_id, messages, policy, prepared, cached_only=False, budget=budget)
        except ScanBudgetExceeded:
            raise _budget_refusal(budget.seconds or 0.0) from None

    def _prepare(self, messages: Sequence[Mapping[str, Any]]) -> _Prepared:
        slots = _text_slots(messages)
        _check_sizes(slots, self.config)
        return _Prepared(slots)

    def _scan(self, tenant_id: str, messages: Sequence[Mapping[str, Any]], policy: Policy, prepared: _Prepared,
              cached_only: bool, budget: ScanBudget | None = None) -> GuardResult:
        """``cached_only``: raise ``_NeedsAnalysis`` instead of analysing anything (and for texts totalling more
        than ``INLINE_CACHED_CHARS``, before hashing them). ``budget``: raise ``ScanBudgetExceeded`` once the scan
        has spent it."""
        slots = prepared.slots
        if cached_only and sum(len(slot.text) for slot in slots) > INLINE_CACHED_CHARS:
            raise _NeedsAnalysis
        result = GuardResult(messages=[])
        rules = policy.pii_input
        use_ner = needs_ner(rules)
        screen_injection = policy.injection.action is not InjectionAction.OFF
        tally = EntityTally()
        texts = [slot.text for slot in slots]
        verdicts: list[InjectionVerdict] = []
        meanwhile = None
        if screen_injection and self._processes is not None and not cached_only:
            # Screened on this thread while the analysis workers read the texts: it needs no findings.
            def meanwhile() -> None:
                verdicts.append(self._screen_injection(tenant_id, slots, prepared, policy, result, cached_only,
                                                       budget))  # fmt: skip

        all_findings, splits = self._cached_findings(tenant_id, texts, use_ner, result, cached_only, prepared,
                                                     budget, meanwhile)  # fmt: skip
        # Copied once the findings are in hand: a cached-only scan that misses them copies nothing on the loop.
        if prepared.messages is None:
            prepared.messages = [_copied(dict(message)) for message in messages]
        result.messages = prepared.messages
        token_key = tenant_token_key(self._secret, tenant_id)
        split_parts, split_groups = _split_parts(splits)
        tallied_groups: set[int] = set()
        for index, (slot, findings) in enumerate(zip(slots, all_findings, strict=True)):
            decided = decide([*findings, *split_parts[index]], rules, fail_closed=True)
            for finding, action in decided:
                group = split_groups.get((index, finding))
                if group is not None:  # a value split across messages is counted once, by its first kept part
                    if group in tallied_groups:
                        continue
                    tallied_groups.add(group)
                tally.add(finding, action)
            _write_back(result.messages, slot, apply_actions(slot.text, decided, token_key))

        if tally.counts:
            result.decisions.append({"kind": "pii", "side": "input", "entities": tally.as_records()})
        blocked_types = tally.blocked_types()
        if blocked_types:
            result.blocked = True
            result.block_reason = "request contains personal data the policy blocks: " + ", ".join(blocked_types)
        if screen_injection:
            best_verdict = verdicts[0] if verdicts else self._screen_injection(tenant_id, slots, prepared, policy,
                                                                               result, cached_only, budget)
            verdict_action = injection_action(policy.injection, best_verdict.score)
            result.injection_score = best_verdict.score
            result.decisions.append({"kind": "injection", "action": verdict_action.value, **best_verdict.as_record()})
            if verdict_action is InjectionAction.BLOCK and not result.blocked:
                result.blocked = True
                result.block_reason = f"request blocked: likely prompt injection (score {best_verdict.score:.2f})"
        return result

    def _screen_injection(self, tenant_id: str, slots: list[_TextSlot], prepared: _Prepared, policy: Policy,
                          result: GuardResult, cached_only: bool, budget: ScanBudget | None) -> InjectionVerdict:
        """The request's injection verdict: of its untrusted texts, and of the windows between them."""
        untrusted = [slot.text for slot in slots if slot.role in UNTRUSTED_ROLES]
        if prepared.verdict_keys is None:
            # The texts' findings keys (``_cached_findings`` took them) hold their content hashes: the same hash
            # under the verdicts' variant, not each text hashed again (on the loop, for a cached request).
            assert prepared.keys is not None
            keyed = zip(slots, prepared.keys, strict=True)
            prepared.verdict_keys = [_variant(key, "injection") for slot, key in keyed
                                     if slot.role in UNTRUSTED_ROLES]  # fmt: skip
        return self._injection_verdict(tenant_id, untrusted, prepared.verdict_keys, policy.injection.threshold,
                                       result, cached_only, budget)  # fmt: skip

    def output_redactor(self, tenant_id: str, policy: Policy, *, shape: OutputShape = OutputShape.TEXT,
                        holdback_chars: int = 96) -> OutputRedactor:
        """A fresh redactor for one streamed completion (hash tokens match the ones used on input)."""
        return OutputRedactor(
            self.analyzer, policy, tenant_token_key(self._secret, tenant_id), shape=shape,
            holdback_chars=holdback_chars,
        )

    def redact_output(self, tenant_id: str, text: str, policy: Policy) -> tuple[str, list[dict[str, object]]]:
        """A whole (non-streamed) completion: (safe text, audit decisions). Blocking: see redact_output_async."""
        return redact_output_text(self.analyzer, policy, text, tenant_token_key(self._secret, tenant_id))

    async def redact_output_async(
        self, tenant_id: str, text: str, policy: Policy
    ) -> tuple[str, list[dict[str, object]]]:
        return await self.run_output_work(self.redact_output, tenant_id, text, policy)

    async def run_output_work(self, fn: Callable[..., T], *args: Any) -> T:
        """Run output redaction work (an OutputRedactor's feed/flush, a whole completion) on the output threads.

        Callers await each call before the next one for the same redactor, so chunks keep their order; the
        redactor is never used by two threads at once.
        """
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._output_executor, fn, *args)

    def _cached_findings(
        self, tenant_id: str, texts: list[str], use_ner: bool, result: GuardResult, cached_only: bool,
        prepared: _Prepared, budget: ScanBudget | None = None, meanwhile: Callable[[], object] | None = None,
    ) -> tuple[list[tuple[Finding, ...]], list[tuple[BoundaryWindow, tuple[SplitFinding, ...]]]]:
        """Findings per text, and the values split across each boundary between texts: cached ones looked up, the
        new texts and the new boundary windows analysed together (one NER call for all). The texts' and windows'
        keys are taken from ``prepared`` when it holds them, and left there when it does not. ``meanwhile``: called
        while analysis workers run, if any run (``AnalysisProcesses.analyze_batches``)."""
        variant = "pii+ner" if use_ner else "pii"
        if prepared.keys is None:
            prepared.keys = [content_key(tenant_id, text, variant) for text in texts]
        keys = prepared.keys
        found: dict[CacheKey, tuple[Finding, ...]] = {}
        missing: dict[CacheKey, str] = {}
        for key, text in zip(keys, texts, strict=True):
            if key in found or key in missing:
                result.cache_hits += 1  # the same text twice in one request is analysed once
                continue
            cached = self._findings.get(key)
            if cached is None:
                if cached_only:  # a new text: the guard thread reads the request's boundary windows, not the loop
                    raise _NeedsAnalysis
                missing[key] = text
            else:
                found[key] = cached
                result.cache_hits += 1
        if prepared.windows is None:
            prepared.windows = self._boundary_windows(tenant_id, texts, variant)
        pending = self._lookup_windows(texts, *prepared.windows)
        if cached_only and pending.unsplit:
            raise _NeedsAnalysis
        # The new texts and each new window's readings that may run NER in one batch (one NER call); the readings
        # that may not (when the policy runs NER at all) in a second, pattern-only one. Each batch's results are
        # taken back in the order its texts went in: the texts first, then the windows'.
        batches: dict[bool, list[str]] = {use_ner: list(missing.values()), not use_ner: []}
        for may_ner, reading in pending.readings():
            batches[use_ner and may_ner].append(reading)
        per_batch = self._analyze_batches(list(batches.items()), budget, meanwhile)
        analysed = {ner: iter(found) for ner, found in zip(batches, per_batch, strict=True)}
        for key, text in missing.items():
            found[key] = tuple(next(analysed[use_ner]))
            self._findings.put(key, found[key])
            result.scanned_chars += len(text)
        splits = self._finish_windows(pending, analysed, use_ner, result)
        result.scanned_chars += result.boundary_chars
        return [found[key] for key in keys], splits

    def _analyze_batches(self, batches: list[tuple[bool, list[str]]], budget: ScanBudget | None,
                         meanwhile: Callable[[], object] | None) -> list[list[list[Finding]]]:  # fmt: skip
        """The findings of each (ner_enabled, texts) batch: in this process one batch after the other (the analyzer
        checks ``budget``: ``scanning``); in the analysis processes, all at once over the idle workers, ``meanwhile``
        called as they run (when there is any text to analyse)."""
        if self._processes is None:
            return [self.analyzer.analyze_many(texts, ner_enabled=ner) if texts else [] for ner, texts in batches]
        if not any(texts for _, texts in batches):
            return [[] for _ in batches]
        try:
            return self._processes.analyze_batches([(texts, ner) for ner, texts in batches], budget=budget,
                                                   meanwhile=meanwhile)  # fmt: skip
        except AnalysisUnavailable as exc:  # fail closed: a request whose scan has no result is refused
            raise GuardrailInputError(f"{exc}; retry the request", status_code=503,
                                      code="guardrails_unavailable") from None

    def close(self) -> None:
        """Stop the analysis processes, if any (threads end with the process)."""
        if self._processes is not None:
            self._processes.shutdown()

    def _boundary_windows(self, tenant_id: str, texts: list[str],
                          variant: str) -> tuple[list[BoundaryWindow], list[CacheKey]]:  # fmt: skip
        """The windows around the boundaries between the texts, with their cache keys."""
        windows = []
        if self.config.split_window_chars > 0:
            windows = boundary_windows(texts, self.config.split_window_chars, self.config.split_window_texts)
        return windows, [content_key(tenant_id, w.cache_text(texts), variant + "/split") for w in windows]

    def _lookup_windows(self, texts: list[str], windows: list[BoundaryWindow], keys: list[CacheKey]) -> _PendingWindows:
        """The windows with the split values of those already cached, and the pieces of the others."""
        pending = _PendingWindows(windows, keys)
        for key, window in zip(pending.keys, windows, strict=True):
            if key in pending.splits or key in pending.unsplit:
                continue
            cached = self._splits.get(key)
            if cached is None:
                pending.unsplit[key] = (window, window.pieces(texts))
            else:
                pending.splits[key] = cached
        return pending

    def _finish_windows(
        self, pending: _PendingWindows, analysed: Mapping[bool, Iterator[list[Finding]]], use_ner: bool,
        result: GuardResult,
    ) -> list[tuple[BoundaryWindow, tuple[SplitFinding, ...]]]:
        """The new windows' split values from their readings' findings (``analysed[ner]`` yields those of the batch
        analysed with NER on or off, in the order of ``pending.readings()``), cached; and every window with its
        split values."""
        for key, (window, pieces) in pending.unsplit.items():
            readings = []
            for join, may_ner in READINGS:
                readings.append(next(analysed[use_ner and may_ner]))
                result.boundary_chars += len(join.join(pieces))
            pending.splits[key] = crossing_findings(window, pieces, readings)
            self._splits.put(key, pending.splits[key])
        return [(window, pending.splits[key]) for window, key in zip(pending.windows, pending.keys, strict=True)]

    def _injection_verdict(
        self, tenant_id: str, texts: list[str], keys: list[CacheKey], threshold: float, result: GuardResult,
        cached_only: bool = False, budget: ScanBudget | None = None,
    ) -> InjectionVerdict:
        """The highest-scoring verdict of the untrusted texts (``keys``: their verdicts' cache keys). When none of
        them screens as injection (reaches ``threshold``), the highest of the windows around the boundaries between
        them that does: an instruction split across messages, which the model reads whole."""
        best = InjectionVerdict(0.0, ())
        for key, text in zip(keys, texts, strict=True):
            if budget is not None:
                budget.check()
            verdict = self._cached_verdict(key, text, result, cached_only)
            if verdict.score > best.score:
                best = verdict
        if best.score >= threshold or self.config.injection_window_chars <= 0:
            return best
        windows = boundary_windows(texts, self.config.injection_window_chars, self.config.split_window_texts)
        split = max((self._cached_window_verdict(tenant_id, texts, window, cached_only) for window in windows),
                    key=lambda verdict: verdict.score, default=best)  # fmt: skip
        return split if split.score >= threshold else best

    def _cached_window_verdict(self, tenant_id: str, texts: list[str], window: BoundaryWindow,
                               cached_only: bool = False) -> InjectionVerdict:
        """A boundary window screened as its pieces read joined by a space (a phrase cut between words) and, where
        a cut falls inside a word, glued ("Ignore all prev" / "ious instructions"); signalled as split across
        messages. Like the PII windows, not counted in ``cache_hits``."""
        key = content_key(tenant_id, window.cache_text(texts), "injection/split")
        verdict = self._verdicts.get(key)
        if verdict is not None:
            return verdict
        if cached_only:
            raise _NeedsAnalysis
        pieces = window.pieces(texts)
        # Where every cut has a space or a sign on one side, the glued reading is the spaced one less a space: half
        # the cost (a screen is ~0.15 ms per window) for the usual boundary between sentences.
        joins = [" ", ""] if any(_cuts_a_word(left, right) for left, right in pairwise(pieces)) else [" "]
        verdict = max((self.injection.score(join.join(pieces)) for join in joins), key=lambda v: v.score)
        verdict = InjectionVerdict(verdict.score, (*verdict.signals, SPLIT_SIGNAL))
        self._verdicts.put(key, verdict)
        return verdict

    def _cached_verdict(self, key: CacheKey, text: str, result: GuardResult,
                        cached_only: bool = False) -> InjectionVerdict:
        verdict = self._verdicts.get(key)
        if verdict is None:
            if cached_only:
                raise _NeedsAnalysis
            verdict = self.injection.score(text)
            self._verdicts.put(key, verdict)
        else:
            result.cache_hits += 1
        return verdict


def _start_workers(count: int) -> AnalysisProcesses:
    """The analysis workers, started: a start-up phase with its lines on stderr in the engine's form
    (``engine.core.startup``), ended by ``_await_workers`` once this process's own warm-up, which their start
    overlaps, is done."""
    print(f"warden: analysis processes: starting {count}", file=sys.stderr, flush=True)
    return AnalysisProcesses(count)


def _await_workers(processes: AnalysisProcesses) -> None:
    """Wait for the analysis workers to be ready: a slow fork server, or workers that build their own analyzer,
    would otherwise hold up the first requests' scans, not start-up."""
    print(f"warden: analysis processes: {processes.wait_ready().describe()}", file=sys.stderr, flush=True)


def _budget_refusal(seconds: float) -> GuardrailInputError:
    """422: the request's own text costs more than the budget to scan (CPU time, so not the machine's load), and the
    same text would cost it again: not a 413 (the text is within the size limits), not a 5xx to retry."""
    return GuardrailInputError(str(ScanBudgetExceeded(seconds)), status_code=422, code=BUDGET_EXCEEDED_CODE)


def _retrieve(future: asyncio.Future[Any]) -> None:
    """Take a given-up scan's outcome, so asyncio does not report an exception nobody retrieved."""
    if not future.cancelled():
        future.exception()


def _variant(key: CacheKey, variant: str) -> CacheKey:
    """``content_key(tenant, text, variant)`` from another of the same text's keys (``content_key``'s layout)."""
    tenant_id, _, digest = key
    return tenant_id, variant, digest


def _cuts_a_word(left: str, right: str) -> bool:
    return left[-1:].isalnum() and right[:1].isalnum()


def _split_parts(
    splits: list[tuple[BoundaryWindow, tuple[SplitFinding, ...]]],
) -> tuple[defaultdict[int, list[Finding]], dict[tuple[int, Finding], int]]:
    """Each split value's parts as findings in the texts that hold them, and the value (a group number) each part
    belongs to. A value that two windows both hold whole (cut into three texts, say) is one value."""
    parts: defaultdict[int, list[Finding]] = defaultdict(list)
    groups: dict[tuple[int, Finding], int] = {}
    seen: set[tuple[str, tuple[tuple[int, int, int], ...]]] = set()
    for window, found in splits:
        for split in found:
            placed = []
            for segment_index, start, end in split.parts:
                segment = window.segments[segment_index]
                placed.append((segment.text, segment.start + start, segment.start + end))
            signature = (split.entity_type, tuple(placed))
            if signature in seen:
                continue
            seen.add(signature)
            for text_index, start, end in placed:
                finding = Finding(split.entity_type, start, end, split.score, split.source)
                parts[text_index].append(finding)
                groups[(text_index, finding)] = len(seen)
    return parts, groups
