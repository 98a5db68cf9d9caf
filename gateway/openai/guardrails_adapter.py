"""Plugs ``gateway.guardrails`` (PII actions, injection screening, output redaction) into the /v1 hooks."""

from __future__ import annotations

from typing import Any

from gateway.core.errors import APIError
from gateway.guardrails import GuardrailInputError, InputGuard, OutputRedactor, OutputShape
from gateway.openai.hooks import OutputFilter, ScreenedInput
from gateway.openai.hooks import OutputShape as ShapeName
from policies import Policy


def _staged(stage: str, decisions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"stage": stage, **decision} for decision in decisions]


class GuardrailsInput:
    def __init__(self, guard: InputGuard) -> None:
        self._guard = guard

    async def screen_input(self, messages: list[dict[str, Any]], *, tenant_id: str,
                           policy: Policy) -> ScreenedInput:
        try:
            result = await self._guard.scan_messages(tenant_id, messages, policy)
        except GuardrailInputError as exc:
            unavailable = exc.status_code >= 500  # the guardrails could not scan it (fail closed): retry later
            raise APIError(exc.status_code, str(exc), code=exc.code,
                           type="service_unavailable_error" if unavailable else "invalid_request_error",
                           headers={"retry-after": "1"} if unavailable else None,
                           decision={"stage": "input_guardrails", "decision": "refused", "reason": exc.code}) from None
        decisions = _staged("input_guardrails", result.decisions)
        if result.blocked:
            # The reason names entity types or the injection score, never the values themselves.
            raise APIError(400, result.block_reason or "request blocked by policy", type="invalid_request_error",
                           code="content_blocked",
                           decision={"stage": "input_guardrails", "decision": "blocked",
                                     "reason": result.block_reason, "findings": decisions})
        return ScreenedInput(messages=result.messages, decisions=decisions)


class _RedactorFilter:
    """Presidio analysis of the output (streamed or not) runs on the guard's output threads, never on the loop;
    a delta that only fills the hold-back buffer is appended here, without a thread hop, and so is a finish whose
    text the last analysis read whole (a short completion: it releases what that analysis decided).

    ``whole`` (a non-streamed completion, plain text): nothing leaves before the end, so every delta is only
    buffered and the completion is analysed once, whole, at ``finish`` (one thread hop and one analysis a choice,
    not one per release; the text and decisions those releases come to, as the streamed path's own tests hold)."""

    def __init__(self, guard: InputGuard, redactor: OutputRedactor, *, whole: bool = False) -> None:
        self._guard = guard
        self._redactor = redactor
        self._whole = whole

    async def feed(self, text: str) -> str:
        if self._whole:
            self._redactor.feed_quietly(text)
            return ""
        if not self._redactor.analyses(text):
            return self._redactor.feed(text, analyse=False)
        return await self._guard.run_output_work(self._redactor.feed, text)

    async def finish(self) -> str:
        if not self._redactor.flush_analyses():  # nothing pending, or the last analysis read it all
            return self._redactor.flush()
        return await self._guard.run_output_work(self._redactor.flush)

    def decisions(self) -> list[dict[str, Any]]:
        return _staged("output_guardrails", self._redactor.decisions())

    @property
    def rewrote(self) -> bool:
        return self._redactor.rewrote

    @property
    def withheld(self) -> bool:
        return self._redactor.withheld


class GuardrailsOutput:
    def __init__(self, guard: InputGuard) -> None:
        self._guard = guard

    def open(self, *, tenant_id: str, policy: Policy, shape: ShapeName = "text", whole: bool = False) -> OutputFilter:
        # A structured shape keeps the streamed path even when whole: a finding that cannot be rewritten in place
        # withholds the rest as soon as it is seen, and the engine stops computing the choice then.
        redactor = self._guard.output_redactor(tenant_id, policy, shape=OutputShape(shape))
        return _RedactorFilter(self._guard, redactor, whole=whole and shape == "text")
