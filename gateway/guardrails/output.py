"""Output guardrails: PII actions and deny-patterns on completion text, whole or streamed.

Streaming holds text back until it can no longer be the start of an entity, and a cut never falls inside a detected
entity. Under policies without output deny-patterns the hold starts where an entity some detector could match may
still be open (``open_tail``): usually just the word being written, from a digit run or an address's first word when
one is being written, and under a policy that masks names (NER) also the context NER could still read around a word
not yet whole (``ner.WINDOW_MARGIN`` characters, ~8 words). Under deny-patterns (any regex) it is the last
`holdback_chars` characters, which is also the most either ever holds. An entity no longer than that window that
arrives split across SSE chunks is therefore always seen whole before any of it leaves. The text just before a cut
stays with the analyser as read-only context (`CONTEXT_CHARS`), so a number that is personal data only next to its
context words ("call me at 5 5 5 ...") is judged as in the whole text even when the cut falls between them.
"""

from __future__ import annotations

import re
import time
from bisect import bisect_left
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from gateway.guardrails.analyzer import PiiAnalyzer
from gateway.guardrails.findings import Finding
from gateway.guardrails.json_lexer import CharKind, LexState, OutputShape, Scan, decoded_view, scan
from gateway.guardrails.ner import WINDOW_MARGIN
from gateway.guardrails.normalize import visible_tail_start
from gateway.guardrails.open_tail import name_context_start, open_entity_start
from gateway.guardrails.recognizers import CONTEXT_WINDOW_CHARS
from gateway.guardrails.redaction import EntityTally, apply_actions, decide
from policies import PiiAction, Policy, active_entity_types, needs_ner

DENY_PATTERN_ENTITY = "DENIED_CONTENT"
# Released text kept as the analyser's context: the recognizers' context window (visible characters read before an
# entity for its context words), with room for a finding that began before the cut.
CONTEXT_CHARS = CONTEXT_WINDOW_CHARS + 16
# The most of a stream's time its paced releases spend analysing (see OutputRedactor's pacing).
ANALYSIS_SHARE = 0.1


@dataclass(frozen=True, slots=True)
class OutputRules:
    """What the output side needs from a policy, compiled once per request."""

    policy: Policy
    deny_patterns: tuple[re.Pattern[str], ...]
    use_ner: bool

    @classmethod
    def from_policy(cls, policy: Policy) -> OutputRules:
        return cls(policy, tuple(re.compile(p) for p in policy.output_deny_patterns), needs_ner(policy.pii_output))


def _analyze(analyzer: PiiAnalyzer, rules: OutputRules, text: str) -> list[tuple[Finding, PiiAction]]:
    decided = decide(analyzer.analyze(text, ner_enabled=rules.use_ner), rules.policy.pii_output)
    denied = [
        Finding(DENY_PATTERN_ENTITY, match.start(), match.end(), 1.0, "deny_pattern")
        for pattern in rules.deny_patterns
        for match in pattern.finditer(text)
        if match.end() > match.start()
    ]
    if not denied:
        return decided
    # A deny-pattern match wins over PII inside it: drop the PII decisions it overlaps.
    kept = [(finding, action) for finding, action in decided if not any(finding.overlaps(d) for d in denied)]
    return kept + [(finding, PiiAction.MASK) for finding in denied]


def _as_output_action(action: PiiAction) -> PiiAction:
    # Text already streamed cannot be refused with a 400; on output "block" withholds the value like mask does.
    return PiiAction.MASK if action is PiiAction.BLOCK else action


@dataclass(frozen=True, slots=True)
class _Plan:
    """What to do with the analysed text up to a cut: rewrites to apply, and where to stop for good (if a
    finding cannot be rewritten without breaking the JSON around it)."""

    cut: int
    decided: list[tuple[Finding, PiiAction]]  # every finding before the cut, with the policy's action
    withheld: list[tuple[Finding, PiiAction]] = field(default_factory=list)  # non-empty: stop for good at the cut
    seen: str = ""  # the released text as the analyser read it (escapes decoded): the next analysis's context


def _place(decided: list[tuple[Finding, PiiAction]], layout: Scan) -> list[tuple[Finding, PiiAction, int | None]]:
    """Each finding with the span a rewrite would replace (widened to whole escape sequences inside a string), or
    with its action and None when a rewrite there would break the JSON (a number, a key's quotes, two strings)."""
    placed: list[tuple[Finding, PiiAction, int | None]] = []
    for finding, action in decided:
        if action is PiiAction.ALLOW or layout.is_free(finding.start, finding.end):
            placed.append((finding, action, finding.start))
            continue
        span = layout.string_span(finding.start, finding.end)
        if span is None:
            placed.append((finding, action, None))
        else:
            placed.append((replace(finding, start=span[0], end=span[1]), action, span[0]))
    return placed


def redact_output_text(
    analyzer: PiiAnalyzer, policy: Policy, text: str, token_key: bytes, *, shape: OutputShape = OutputShape.TEXT
) -> tuple[str, list[dict[str, object]]]:
    """Non-streamed completion: redact the whole text at once. Returns (safe text, audit decisions)."""
    redactor = OutputRedactor(analyzer, policy, token_key, shape=shape)
    redactor.feed_quietly(text)
    return redactor.flush(), redactor.decisions()


def _open_start(text: str, layout: Scan, view: str, starts: list[int] | None, ends: list[int] | None,
                begin: int, find: Callable[[str, int], int] = open_entity_start) -> int:
    """Where an entity may still be open at the end of ``text`` (raw), read in ``view`` (raw indices through
    ``starts``/``ends``; None: the view is the raw text), from raw index ``begin`` on; ``len(text)`` when nothing is.
    ``find``: ``open_entity_start`` or a memo of it."""
    if starts is None or ends is None:
        return find(text, begin)
    # An escape still being written ("\\u00" at the end) is in the view as its raw characters, yet may decode to
    # any character: the rules read the view up to it, and it is held with whatever may be open before it.
    end = len(view)
    if text:
        unit = layout.unit_start[-1]
        first = bisect_left(starts, unit)
        if text[unit] == "\\" and layout.kinds[unit] is CharKind.STRING and ends[first] == unit + 1:
            end = first
    found = find(view[:end], min(bisect_left(starts, begin), end))
    return starts[found] if found < len(view) else len(text)


class OutputRedactor:
    """Redacts a streamed completion: feed(delta) returns text safe to send now, flush() the rest at the end.

    For a structured completion (``shape``) a finding is rewritten only where the replacement keeps the JSON valid:
    inside a string. One elsewhere (a phone number written as a JSON number, say) cannot be masked in place, so
    the completion is cut before it and ``withheld`` is set: the caller ends the choice with ``content_filter``.
    """

    def __init__(
        self,
        analyzer: PiiAnalyzer,
        policy: Policy,
        token_key: bytes,
        *,
        shape: OutputShape = OutputShape.TEXT,
        holdback_chars: int = 96,
        min_emit_chars: int = 32,
        min_emit_interval_s: float = 0.05,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if holdback_chars < 1:
            raise ValueError("holdback_chars must be positive")
        self._analyzer = analyzer
        self._rules = OutputRules.from_policy(policy)
        self._token_key = token_key
        self._shape = shape
        self._lex_state = LexState.start(shape)
        self._holdback = holdback_chars
        self._min_emit = min_emit_chars
        self._pending = ""
        self._context = ""  # the tail of the released text, as the analyser read it
        # A policy whose output rules can never rewrite (every entity allowed, no deny patterns) holds nothing back:
        # text leaves as it comes, and the whole is analysed once at the end for the audit's tally.
        self._monitor_only = not active_entity_types(policy.pii_output) and not policy.output_deny_patterns
        self._released = 0  # monitor-only: how much of _pending has left already
        # Hold back from where an entity may still be open, not a whole window, unless a deny-pattern (any regex) can
        # rewrite. Under NER, also what a name's context window could still read (ner.WINDOW_MARGIN).
        self._open_tail = not self._rules.deny_patterns
        self._name_margin = WINDOW_MARGIN if self._rules.use_ner else None
        # Open-tail pacing: the first text leaves as soon as any can (the stream's first content); then whatever can
        # leave once min_emit characters can or min_emit_interval_s has passed since the last release. Each release
        # costs an analysis, so slow streams (a CPU's ~50 ms tokens) flow every token or two instead of in 32-character
        # lumps, and fast ones are analysed at most ~20 times a second.
        self._min_emit_interval = min_emit_interval_s
        # ... and never more often than ANALYSIS_SHARE of the stream's time goes to analyses: NER's cost a pass
        # (~4-8 ms here, against ~0.25 ms for the patterns) stretches the interval on a slow CPU.
        self._analysis_s = 0.0
        self._clock = clock
        self._last_release: float | None = None
        # The last open_entity_start question and answer: analyses() asks it of the pending text plus the delta,
        # and the plan that follows asks it again of the same text.
        self._open_memo: tuple[str, int, int] | None = None
        # The last analysis's text (released context and pending text, as read) and what it decided: a flush right
        # after a feed that analysed (a short completion's last delta) reads the same text, and takes this instead.
        self._analysed: tuple[str, list[tuple[Finding, PiiAction]]] | None = None
        self.tally = EntityTally()
        self.withheld_types: list[str] = []  # entity types that could not be rewritten in place
        self.rewrote = False  # some released text differs from the model's

    @property
    def withheld(self) -> bool:
        return bool(self.withheld_types)

    def analyses(self, delta: str) -> bool:
        """Whether feed(delta) would analyse text; if not, it only buffers and is cheap enough for the event loop."""
        if self._monitor_only or self.withheld:
            return False
        if not self._open_tail:
            return len(self._pending) + len(delta) >= self._holdback + self._min_emit
        interval = max(self._min_emit_interval, self._analysis_s / ANALYSIS_SHARE)
        due = self._last_release is None or self._clock() - self._last_release >= interval
        needed = 1 if due else self._min_emit
        if len(self._pending) + len(delta) < needed:
            return False
        text = self._pending + delta
        window = visible_tail_start(text, self._holdback)
        return max(window, self._open_entity_start(text, window)) >= needed

    def _open_entity_start(self, text: str, begin: int) -> int:
        memo = self._open_memo
        if memo is not None and memo[1] == begin and memo[0] == text:
            return memo[2]
        found = open_entity_start(text, begin)
        if self._name_margin is not None:
            found = min(found, name_context_start(text, begin, self._name_margin))
        self._open_memo = (text, begin, found)
        return found

    def feed_quietly(self, delta: str) -> None:
        """Buffer text without analysing it (the whole-text path analyses once, in flush)."""
        if not self.withheld:
            self._pending += delta

    def feed(self, delta: str, *, analyse: bool | None = None) -> str:
        """Text safe to send now. ``analyse``: the caller's own ``analyses(delta)`` answer, so that a caller that
        found it False and kept the call on the event loop is not surprised by an analysis there (the pacing
        interval may pass in between); None asks here."""
        if self._monitor_only:
            self._pending += delta
            self._released = len(self._pending)
            return delta
        # Analyse only once enough text is pending to emit something; tiny deltas just accumulate.
        if analyse is None:
            analyse = self.analyses(delta)
        self.feed_quietly(delta)
        if not analyse:
            return ""
        started = self._clock()
        plan = self._plan(final=False)
        self._analysis_s = self._clock() - started
        return self._release(plan)

    @property
    def pending_chars(self) -> int:
        return len(self._pending)

    def flush_analyses(self) -> bool:
        """Whether flush() would analyse text; if not, it only releases what the last analysis decided (the text is
        the one that analysis read: a short completion whose last delta was analysed) and is cheap enough for the
        event loop."""
        if not self._pending:
            return False
        if self._shape is not OutputShape.TEXT:  # read through the JSON's escapes: not known without a scan
            return True
        analysed = self._analysed
        return analysed is None or analysed[0] != self._context + self._pending

    def flush(self) -> str:
        if not self._pending:
            return ""
        if self._monitor_only:
            text, released = self._pending, self._released
            self._release(self._plan(final=True))  # tallies what was allowed through; rewrites nothing
            self._released = 0
            return text[released:]
        return self._release(self._plan(final=True))

    def decisions(self) -> list[dict[str, object]]:
        records: list[dict[str, object]] = []
        if self.tally.counts:
            records.append({"kind": "pii", "side": "output", "entities": self.tally.as_records()})
        if self.withheld:
            # Types only, never values: the rest of the completion was not sent.
            records.append({"kind": "pii", "side": "output", "decision": "withheld",
                            "reason": "outside a JSON string value", "entity_types": sorted(set(self.withheld_types))})
        return records

    def _plan(self, *, final: bool) -> _Plan:
        text = self._pending
        layout = self._layout(text)
        if self._shape is OutputShape.TEXT:
            view, starts, ends = text, None, None
        else:
            # Analyse what the client will read (escapes decoded: "dana\u0040x.org" is an address), then map each
            # finding back to the raw span, whole escapes included.
            view, starts, ends = decoded_view(text, layout)
        decided = self._analyze_after_context(view, starts, ends)
        placed = sorted(_place(decided, layout), key=lambda item: item[0].start)
        cut = len(text)
        if not final:
            # The window in what a reader sees: invisible padding does not count, and a JSON escape is the one
            # character it decodes to (a value spelled in \u escapes is six times longer raw).
            window = visible_tail_start(view, self._holdback)
            cut = window if starts is None or window == 0 else starts[window]
            if self._open_tail:
                cut = max(cut, _open_start(text, layout, view, starts, ends, cut, self._open_entity_start))
            # Prefer cutting at whitespace or after JSON punctuation, so a word (and any entity it begins) stays
            # whole in the window; never inside an escape sequence or a number.
            cut = max(text.rfind(" ", 0, cut + 1), layout.token_boundary_before(cut), 0) or cut
            cut = layout.safe_cut(cut)
            # Never emit part of an entity: move the cut before any finding that straddles it.
            for finding, _, start in placed:
                begin = layout.token_start(finding.start) if start is None else start
                if begin < cut < finding.end:
                    cut = begin
        before = [(finding, action, start) for finding, action, start in placed if finding.end <= cut]
        stuck = [(finding, action) for finding, action, start in before if start is None]
        if stuck:
            first = min(layout.token_start(finding.start) for finding, _ in stuck)
            return _Plan(first, [(f, a) for f, a, _ in before if f.end <= first], stuck)
        seen = view[:cut] if starts is None else view[: bisect_left(starts, cut)]
        return _Plan(cut, [(f, a) for f, a, _ in before], seen=seen)

    def _analyze_after_context(
        self, view: str, starts: list[int] | None, ends: list[int] | None
    ) -> list[tuple[Finding, PiiAction]]:
        """Findings in ``view`` (the pending text as read), analysed behind the released context. A finding wholly
        in the context was decided when it left; one that began there is clipped to its pending part, which is all
        that can still be rewritten. Spans map back to raw text through ``starts``/``ends`` (None: view is raw)."""
        lead = len(self._context)
        text = self._context + view
        analysed = self._analysed
        if analysed is None or analysed[0] != text:
            analysed = self._analysed = (text, _analyze(self._analyzer, self._rules, text))
        decided: list[tuple[Finding, PiiAction]] = []
        for finding, action in analysed[1]:
            if finding.end <= lead:
                continue
            start, end = max(finding.start - lead, 0), finding.end - lead
            if starts is not None and ends is not None:
                start, end = starts[start], ends[end - 1]
            decided.append((replace(finding, start=start, end=end), action))
        return decided

    def _layout(self, text: str) -> Scan:
        if self._shape is OutputShape.TEXT:
            return Scan.free(len(text))
        return scan(self._lex_state, text)[0]

    def _release(self, plan: _Plan) -> str:
        if plan.cut <= 0 and not plan.withheld:
            return ""
        for finding, action in plan.decided:
            self.tally.add(finding, action)
        self._last_release = self._clock()
        head = self._pending[: plan.cut]
        text = apply_actions(head, [(f, _as_output_action(a)) for f, a in plan.decided], self._token_key)
        self.rewrote = self.rewrote or text != head
        if plan.withheld:
            for finding, action in plan.withheld:
                self.tally.add(finding, action)
                self.withheld_types.append(finding.entity_type)
            self._pending = ""
            return text
        if self._shape is not OutputShape.TEXT:
            self._lex_state = scan(self._lex_state, head)[1]
        self._pending = self._pending[plan.cut :]
        context = self._context + plan.seen
        self._context = context[visible_tail_start(context, CONTEXT_CHARS) :]
        return text
