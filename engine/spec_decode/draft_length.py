"""How many drafts a sequence may propose next: adapted per sequence to how its recent drafts fared.

A rejected draft still costs its share of the verification step (one more query token in the batch: nearly free
while decoding is bandwidth-bound at one sequence, a real cost once the batch is compute-bound). Prompt lookup
drafts well where an output quotes its context and poorly in open-ended text, often within one request (a
quoted passage, then a free-form conclusion). The rule is transformers' "heuristic" schedule for assisted
generation: after a step that accepted every draft, allow two more (up to ``num_speculative_tokens``); after one
that rejected a draft, one fewer (never below one, so a sequence that starts quoting again is noticed at once).
"""

from __future__ import annotations


def next_draft_limit(limit: int, drafted: int, accepted: int, max_drafts: int) -> int:
    if drafted == 0:
        return limit
    if accepted == drafted:
        return min(max_drafts, limit + 2)
    return max(1, limit - 1)
