"""The contract between the engine and its callers (the gateway, the CLI, benchmarks).

Both the multi-process client (``EngineCore`` in its own process) and the in-process engine used in
tests implement ``EngineClient``; callers depend on this protocol only.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Any, Protocol, runtime_checkable

from engine.outputs import RequestOutput
from engine.request import EngineRequest


@runtime_checkable
class TokenizerLike(Protocol):
    eos_token_ids: list[int]

    def encode(self, text: str, add_special_tokens: bool = False) -> list[int]: ...

    def decode(self, token_ids: Sequence[int], skip_special_tokens: bool = True) -> str: ...

    def apply_chat_template(
        self,
        messages: list[dict[str, Any]],
        *,
        add_generation_prompt: bool = True,
        tools: list[dict[str, Any]] | None = None,
    ) -> str: ...


@runtime_checkable
class EngineClient(Protocol):
    model_name: str  # the id served under /v1/models
    max_model_len: int

    @property
    def tokenizer(self) -> TokenizerLike:
        """Read-only here, so a client may hold a more specific tokenizer (a ``Tokenizer``, a replica's)."""
        ...

    def generate(self, request: EngineRequest) -> AsyncIterator[RequestOutput]:
        """Submit a request and stream its deltas. Raises ``InvalidRequestError`` subclasses before the
        first delta for bad input and ``EngineDeadError`` if the engine dies (never hangs)."""
        ...

    async def abort(self, request_id: str) -> None:
        """Stop a request at any time; its KV blocks are freed. Unknown ids are ignored."""
        ...

    def is_alive(self) -> bool: ...

    async def shutdown(self) -> None: ...
