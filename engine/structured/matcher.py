"""One sequence's position in its grammar: the object the engine keeps in ``Sequence.structured_state``."""

from __future__ import annotations

from collections.abc import Sequence

import llguidance
import torch


class GrammarMatcher:
    """Wraps an ``llguidance.LLMatcher`` with the engine's duck-typed interface.

    The engine calls ``fill_bitmask`` before sampling, ``accept_token`` after, and finishes the sequence when
    ``is_terminated()``; ``error`` says why a sequence must end with ``finish_reason="error"`` (the grammar hit a
    resource limit mid-generation: never continue unconstrained). Preemption by recompute keeps the matcher as is
    (the generated tokens stay part of the sequence); ``rollback`` undoes tokens a speculative step did not keep.
    """

    __slots__ = ("_matcher", "kind", "num_accepted")

    def __init__(self, matcher: llguidance.LLMatcher, kind: str) -> None:
        self._matcher = matcher
        self.kind = kind
        self.num_accepted = 0

    @property
    def error(self) -> str | None:
        return self._matcher.get_error() or None

    def fill_bitmask(self, row: torch.Tensor) -> None:
        """Write the allowed-token bits into ``row`` (a contiguous int32 CPU tensor of ``bitmask_words`` words)."""
        assert row.dtype == torch.int32 and row.is_contiguous() and row.device.type == "cpu"
        self._matcher.unsafe_compute_mask_ptr(row.data_ptr(), row.numel() * 4)

    def accept_token(self, token_id: int) -> bool:
        """Advance by one sampled token. False means the token was not allowed (the matcher is now in error)."""
        ok = self._matcher.consume_token(token_id)
        if ok:
            self.num_accepted += 1
        return ok

    def accept_tokens(self, token_ids: Sequence[int]) -> int:
        """Advance by as many of ``token_ids`` as the grammar allows; returns how many were taken."""
        taken = self._matcher.try_consume_tokens(list(token_ids))
        self.num_accepted += taken
        return taken

    def validate_tokens(self, token_ids: Sequence[int]) -> int:
        """How many leading tokens of ``token_ids`` the grammar would accept, without advancing."""
        return self._matcher.validate_tokens(list(token_ids))

    def forced_tokens(self) -> list[int]:
        """Tokens the grammar allows as the only continuation (jump-forward): append them without a forward pass
        each. Empty when the next token is a real choice."""
        return self._matcher.compute_ff_tokens()

    def is_terminated(self) -> bool:
        """No further token can be accepted (the output is complete, or the matcher is in error)."""
        return self._matcher.is_stopped()

    def is_accepting(self) -> bool:
        """The output so far is a complete instance of the grammar (ending here would be valid)."""
        return self._matcher.is_accepting()

    def rollback(self, num_tokens: int) -> None:
        if num_tokens <= 0:
            return
        assert num_tokens <= self.num_accepted, "cannot roll back tokens the matcher never accepted"
        if not self._matcher.rollback(num_tokens):
            raise RuntimeError(f"grammar rollback of {num_tokens} tokens failed: {self._matcher.get_error()}")
        self.num_accepted -= num_tokens

    def reset(self) -> None:
        """Back to the start of the grammar (a sequence restarted from its prompt)."""
        self._matcher.reset()
        self.num_accepted = 0

    @property
    def ll_matcher(self) -> llguidance.LLMatcher:
        """The wrapped matcher, for the batched filler."""
        return self._matcher
