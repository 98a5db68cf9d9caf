"""One request's state inside the engine: its tokens, how many are in the KV cache, and its blocks."""

from __future__ import annotations

from enum import Enum, auto
from typing import Any

from engine.sampling_params import SamplingParams


class SequenceStatus(Enum):
    WAITING = auto()
    RUNNING = auto()
    FINISHED = auto()


class Sequence:
    """``token_ids`` = prompt + generated tokens; the first ``num_computed_tokens`` have KV in the cache.

    A running sequence that just sampled has ``len(token_ids) == num_computed_tokens + 1``: the new token's
    KV is computed by the next step — or more than one token when structured decoding's jump-forward appended
    grammar-forced tokens; the scheduler then runs them as a small prefill chunk. Recompute preemption resets
    ``num_computed_tokens`` to 0.

    Structured decoding hook: ``structured_state`` holds a per-sequence grammar matcher (or None), duck-typed:

    * ``fill_bitmask(row)`` — ``row`` is a 1-D ``torch.int32`` tensor of ``ceil(vocab/32)`` words on the CPU,
      pre-filled with all ones; clear bit ``t % 32`` of word ``t // 32`` for every token ``t`` not allowed next.
    * ``accept_token(token_id) -> bool`` — advance the matcher; False means the token was rejected.
    * ``is_terminated() -> bool`` — the grammar is complete; the request then finishes with "stop".
    * ``rollback(n)`` — undo the last ``n`` accepted tokens (speculative decoding).
    """

    __slots__ = (
        "arrival",
        "block_hashes",
        "block_table",
        "cache_salt",
        "cached_tokens",
        "draft_history",
        "draft_num_computed_tokens",
        "finish_reason",
        "ngram_index",
        "num_computed_tokens",
        "num_prompt_tokens",
        "public_prefix_len",
        "request_id",
        "sampling_params",
        "spec_token_ids",
        "state_slot",
        "status",
        "stop_token_ids",
        "structured_state",
        "tenant",
        "token_ids",
        "weight",
    )

    def __init__(
        self,
        request_id: str,
        prompt_token_ids: list[int],
        sampling_params: SamplingParams,
        *,
        cache_salt: str | None = None,
        arrival: int = 0,
        structured_state: Any = None,
        tenant: str | None = None,
        weight: int = 1,
        public_prefix_len: int = 0,
        stop_token_ids: frozenset[int] = frozenset(),
    ) -> None:
        self.request_id = request_id
        self.token_ids = list(prompt_token_ids)
        self.num_prompt_tokens = len(prompt_token_ids)
        self.sampling_params = sampling_params
        self.cache_salt = cache_salt
        self.arrival = arrival
        self.tenant = tenant  # fairness bucket (None: the anonymous bucket, e.g. offline use)
        self.weight = max(1, weight)  # the tenant's policy weight: its share of the step budget and KV pool
        # Clamped to the prompt: only prompt tokens can be a published prefix.
        self.public_prefix_len = max(0, min(public_prefix_len, len(prompt_token_ids)))
        self.status = SequenceStatus.WAITING
        self.num_computed_tokens = 0
        self.block_table: list[int] = []
        self.block_hashes: list[bytes] = []  # hash of each full block, in order (prefix-cache chain)
        self.state_slot = -1  # its live recurrent-state slot while running, for models with Mamba2 layers
        self.cached_tokens = -1  # prompt tokens served from the prefix cache at first admission (-1: not yet)
        self.finish_reason: str | None = None
        self.structured_state = structured_state
        # Tokens that end this request (EOS unless ignore_eos, plus its stop_token_ids); the sampler bans them
        # while the output is shorter than min_tokens.
        self.stop_token_ids = stop_token_ids
        self.spec_token_ids: list[int] = []
        self.ngram_index: Any = None  # engine.spec_decode.NgramIndex, made at the first proposal
        self.draft_history: Any = None  # engine.spec_decode.acceptance.DraftHistory (adaptive prompt lookup)
        # Leading tokens whose KV the draft model (speculative_method="draft_model") holds in its own cache; at most
        # ``num_computed_tokens`` count (positions past it may hold rejected drafts).
        self.draft_num_computed_tokens = 0

    def __len__(self) -> int:
        return len(self.token_ids)

    @property
    def num_output_tokens(self) -> int:
        return len(self.token_ids) - self.num_prompt_tokens

    @property
    def output_token_ids(self) -> list[int]:
        return self.token_ids[self.num_prompt_tokens :]

    @property
    def is_finished(self) -> bool:
        return self.status == SequenceStatus.FINISHED
