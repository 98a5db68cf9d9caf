"""Where the guardrails plug into the request path (``gateway/guardrails`` implements these).

Input: after admission, every text the caller sent is screened once; the guard returns the texts the model may
see (PII masked/hashed per policy) and its decisions for the audit record, or raises ``APIError`` (400, with a
``decision``) to block. Output: one filter per choice sees the completion as it streams and releases text after a
small hold-back window, so an entity split across chunks is still caught.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from policies import Policy


@dataclass(slots=True)
class ScreenedInput:
    texts: list[str]  # same length and order as the texts screened
    decisions: list[dict[str, Any]] = field(default_factory=list)


class InputGuard(Protocol):
    async def screen_input(self, texts: list[str], *, tenant_id: str, policy: Policy) -> ScreenedInput: ...


class OutputFilter(Protocol):
    async def feed(self, text: str) -> str:
        """New completion text in; the text now safe to release out (may be shorter: held back)."""
        ...

    async def finish(self) -> str:
        """The end of the completion: release whatever was held back."""
        ...

    def decisions(self) -> list[dict[str, Any]]: ...


class OutputGuard(Protocol):
    def open(self, *, tenant_id: str, policy: Policy) -> OutputFilter: ...
