"""Grammar masks for a constrained sequence's draft positions (speculative decoding under a grammar).

A drafting sequence samples one row per position: after its last real token and after each draft. Under a grammar
each row needs the mask of the grammar state at that position, i.e. with the drafts before it accepted. The
matcher is advanced through the drafts on the engine thread before the step's batched fill starts, each row's
mask recorded, and the drafts rolled back, so the matcher is exactly where it was when the sampled tokens are
accepted for real. The batched filler copies the recorded rows (``PrecomputedMask`` is one of its duck-typed
matchers). Drafts are proposed only as far as the grammar accepts them (``validate_tokens``), so every draft here
is consumable.
"""

from __future__ import annotations

from typing import Any

import torch


class PrecomputedMask:
    """A mask row computed ahead; the step's filler copies it into its row."""

    __slots__ = ("row",)

    def __init__(self, row: torch.Tensor) -> None:
        self.row = row

    def fill_bitmask(self, row: torch.Tensor) -> None:
        row.copy_(self.row)


def draft_masks(matcher: Any, drafts: list[int], words: int) -> list[PrecomputedMask]:
    """One mask per position from the last real token to the last draft (``len(drafts) + 1`` rows)."""
    # Imported here: only a constrained sequence gets here, and by then engine.structured is loaded.
    from engine.structured.bitmask import ALL_ALLOWED

    rows = torch.full((len(drafts) + 1, words), ALL_ALLOWED, dtype=torch.int32)
    advanced = 0
    try:
        for position in range(len(drafts) + 1):
            matcher.fill_bitmask(rows[position])
            if position < len(drafts):
                if not matcher.accept_token(drafts[position]):
                    raise RuntimeError(f"draft token {drafts[position]} was validated but not accepted")
                advanced += 1
    finally:
        matcher.rollback(advanced)
    return [PrecomputedMask(row) for row in rows]
