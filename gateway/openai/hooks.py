"""Where the guardrails plug into the request path (``gateway/guardrails`` implements these).

Input: after admission, the caller's messages (a completions prompt is one user message) are screened once; the
guard returns the messages the model may see (PII masked/hashed per policy) and its decisions for the audit
record, or raises ``APIError`` (4xx, with a ``decision``) to block. Output: one filter per choice sees the
completion as it streams and releases text once it can no longer be the start of an entity (the word being
written, a value being written; a window for NER and deny-pattern policies), so an entity split across chunks is
still caught. A structured output (JSON, tool calls) is rewritten only where the JSON stays valid; a finding
elsewhere ends the choice early (``withheld``: finish_reason ``content_filter``).
``gateway/openai/guardrails_adapter.py`` adapts ``gateway.guardrails`` to these.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from policies import Policy


@dataclass(slots=True)
class ScreenedInput:
    messages: list[dict[str, Any]]  # same length and order as the messages screened
    decisions: list[dict[str, Any]] = field(default_factory=list)


class InputGuard(Protocol):
    async def screen_input(self, messages: list[dict[str, Any]], *, tenant_id: str,
                           policy: Policy) -> ScreenedInput: ...


class OutputFilter(Protocol):
    async def feed(self, text: str) -> str:
        """New completion text in; the text now safe to release out (may be shorter: held back)."""
        ...

    async def finish(self) -> str:
        """The end of the completion: release whatever was held back."""
        ...

    def decisions(self) -> list[dict[str, Any]]: ...

    @property
    def rewrote(self) -> bool:
        """Whether any released text differs from the model's (masked or hashed values)."""
        ...

    @property
    def withheld(self) -> bool:
        """Whether the rest of the completion was dropped: a finding could not be rewritten in place."""
        ...


OutputShape = Literal["text", "json", "tool_calls"]


class OutputGuard(Protocol):
    def open(self, *, tenant_id: str, policy: Policy, shape: OutputShape = "text",
             whole: bool = False) -> OutputFilter:
        """A filter for one choice. ``whole``: nothing is released before the end (a non-streamed response), so the
        filter may hold all of it and judge it once, at ``finish``."""
        ...
