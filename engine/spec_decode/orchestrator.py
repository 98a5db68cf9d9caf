"""The step loop's speculative decoding: which sequences draft and how many tokens, the draft model's tokens
written into a scheduled step, and the verification of a sequence's drafts against the rows the step sampled.

``LLMEngine`` owns one ``SpeculativeDecoder`` when speculation is configured and calls it at three points of a
step: ``propose`` before scheduling, ``write_drafts`` before the forward pass, ``verify`` per sequence with drafts
after sampling; and ``finished`` when a request ends, so the suffix method indexes its output for its tenant.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable

from engine.config import EngineConfig, resolve_device
from engine.metrics import StatsCollector
from engine.outputs import RequestOutput
from engine.scheduling.scheduler import ScheduledBatch
from engine.scheduling.sequence import Sequence
from engine.spec_decode.acceptance import AcceptanceTracker, DraftHistory
from engine.spec_decode.draft_budget import choose_draft_lengths
from engine.spec_decode.draft_model import DraftModelProposer
from engine.spec_decode.ngram_proposer import NgramProposer
from engine.spec_decode.step_costs import StepCostTable, step_clock
from engine.spec_decode.suffix_index import SuffixStore

LOOKUP_METHODS = ("ngram", "suffix")  # proposals found without a forward pass: every step, drafting or not


class SpeculativeDecoder:
    """Drafts by prompt lookup (``speculative_method="ngram"``), by prompt lookup and the tenant's earlier outputs
    (``"suffix"``), or by a draft model (``"draft_model"``: the ``drafter``, built with the engine's runners because
    it shares their block tables)."""

    def __init__(self, config: EngineConfig, stats: StatsCollector, max_model_len: int,
                 drafter: DraftModelProposer | None = None) -> None:
        self.num_speculative_tokens = config.num_speculative_tokens
        self.disable_by_batch_size = config.speculative_disable_by_batch_size
        self.stats = stats
        self.max_model_len = max_model_len
        self.drafter = drafter
        self.proposer: NgramProposer | None = None
        if config.speculative_method in LOOKUP_METHODS:
            self.proposer = NgramProposer(config.num_speculative_tokens, min_n=config.prompt_lookup_min,
                                          max_n=config.prompt_lookup_max)
        self.suffixes: SuffixStore | None = None
        self.suffix_min_probability = config.suffix_min_probability
        if config.speculative_method == "suffix":
            self.suffixes = SuffixStore(min_n=config.prompt_lookup_min, max_n=config.prompt_lookup_max,
                                        tenant_tokens=config.suffix_tenant_tokens,
                                        total_tokens=config.suffix_total_tokens)
        # Adaptive prompt lookup (``engine.spec_decode.draft_budget``): acceptance observed per sequence, and the
        # decode-only steps' measured cost by size, without drafts (plain) and with them (verify).
        self.acceptance: AcceptanceTracker | None = None
        self.plain_step_costs = StepCostTable()
        self.verify_step_costs = StepCostTable()
        # What the engine times a step on for these tables: CPU time on a CPU, where the wall clock would carry the
        # load of other processes into the comparison (``engine.spec_decode.step_costs``).
        self.clock = step_clock(resolve_device(config.device).type)
        if self.proposer is not None and config.prompt_lookup_adaptive:
            self.acceptance = AcceptanceTracker()

    @classmethod
    def for_config(cls, config: EngineConfig, stats: StatsCollector, max_model_len: int,
                   drafter: DraftModelProposer | None) -> SpeculativeDecoder | None:
        """The engine's decoder, or None when it does not speculate."""
        if config.speculative_method in LOOKUP_METHODS or drafter is not None:
            return cls(config, stats, max_model_len, drafter)
        return None

    # --- before scheduling ------------------------------------------------------------------------
    def propose(self, running: list[Sequence]) -> None:
        """Draft tokens for every running sequence about to decode that speculation applies to. With a draft model
        these are placeholders: the scheduler fits them into the step, then the draft model writes as many as it
        kept (``write_drafts``)."""
        decoding = [s for s in running if len(s) - s.num_computed_tokens == 1]
        cap = self.disable_by_batch_size
        busy = cap is not None and len(decoding) > cap
        for seq in running:
            seq.spec_token_ids = []
        proposing: list[Sequence] = []
        proposals: list[list[int]] = []
        for seq in decoding:
            if busy or not self.speculates(seq):
                continue
            # Never past max_tokens (the step also samples one token of its own) or the model's length.
            limit = min(seq.sampling_params.max_tokens - seq.num_output_tokens - 1, self.max_model_len - len(seq))
            if self.proposer is None:
                seq.spec_token_ids = [0] * max(0, min(self.num_speculative_tokens, limit))
                continue
            if seq.ngram_index is None:
                seq.ngram_index = self.proposer.new_index()
            drafts = self._lookup(seq, limit)
            if drafts and seq.structured_state is not None:
                drafts = drafts[: seq.structured_state.validate_tokens(drafts)]  # only what the grammar allows
            self.stats.spec_proposed_tokens += len(drafts)
            proposing.append(seq)
            proposals.append(drafts)
        if self.acceptance is None:
            for seq, drafts in zip(proposing, proposals, strict=True):
                seq.spec_token_ids = drafts
            return
        self._budget_drafts(len(decoding), proposing, proposals)

    def _lookup(self, seq: Sequence, limit: int) -> list[int]:
        """Prompt lookup's proposal, or the tenant index's where that continues a longer n-gram (the longer the
        matched context, the likelier the continuation; on a tie the sequence's own text, which is nearer)."""
        assert self.proposer is not None
        own, own_n = self.proposer.lookup(seq.token_ids, seq.ngram_index, limit)
        if self.suffixes is None:
            return own
        k = min(self.num_speculative_tokens, limit)
        theirs, their_n = self.suffixes.propose(isolation_domain(seq), seq.token_ids, k,
                                                self.suffix_min_probability)
        return theirs if their_n > own_n and theirs else own

    def finished(self, seq: Sequence) -> None:
        """A request ended: the suffix method indexes what it wrote, for its own tenant's later requests only."""
        if self.suffixes is not None and seq.finish_reason in ("stop", "length"):
            self.suffixes.add(isolation_domain(seq), seq.token_ids[: seq.num_prompt_tokens], seq.output_token_ids)

    def _budget_drafts(self, num_decodes: int, seqs: list[Sequence], proposals: list[list[int]]) -> None:
        """Adaptive prompt lookup: verify the drafts expected to pay for their share of the step on this machine
        (``choose_draft_lengths``); a sequence that does not draft follows its proposal in the shadow."""
        tracker = self.acceptance
        assert tracker is not None
        for seq in seqs:
            if seq.draft_history is None:
                seq.draft_history = DraftHistory()
            tracker.settle_shadow(seq.draft_history, seq.token_ids)
        lengths = choose_draft_lengths(num_decodes, [len(p) for p in proposals],
                                       [tracker.rates(seq.draft_history) for seq in seqs],
                                       self.plain_step_costs, self.verify_step_costs)
        for seq, drafts, n in zip(seqs, proposals, lengths, strict=True):
            if n:
                tracker.settle_shadow(seq.draft_history, seq.token_ids, final=True)  # verification takes over
                seq.spec_token_ids = drafts[:n]
            else:
                tracker.start_shadow(seq.draft_history, drafts, len(seq))

    @staticmethod
    def speculates(seq: Sequence) -> bool:
        """Speculation applies where sampling one row per draft gives exactly the tokens sampling one step at a
        time would (in distribution; greedy and seeded: identically, a seeded row's draw depending only on its
        position). Each row sees the drafts before it as output (penalties, min_tokens: ``ModelRunner.
        prepare_sampling``); under a grammar it needs a matcher that can check drafts and roll back, so each row
        gets the mask of its own position."""
        grammar = seq.structured_state
        return grammar is None or hasattr(grammar, "validate_tokens")

    # --- before the forward pass ------------------------------------------------------------------
    def write_drafts(self, batch: ScheduledBatch) -> None:
        """The draft model's tokens in place of the placeholders the scheduler fitted. Where it writes fewer (a
        grammar cuts them, or its catch-up did not fit this step) the sequence computes fewer tokens this step."""
        if self.drafter is None:
            return
        index = [i for i, seq in enumerate(batch.seqs) if seq.spec_token_ids]
        if not index:
            return
        seqs = [batch.seqs[i] for i in index]
        drafts = self.drafter.propose(seqs, [len(s.spec_token_ids) for s in seqs])
        cut = False
        for i, seq, written in zip(index, seqs, drafts, strict=True):
            if written and seq.structured_state is not None:
                written = written[: seq.structured_state.validate_tokens(written)]
            self.stats.spec_proposed_tokens += len(written)
            if len(written) < len(seq.spec_token_ids):
                batch.num_new_tokens[i] -= len(seq.spec_token_ids) - len(written)
                cut = True
            seq.spec_token_ids = written
        if cut:
            batch.put_decodes_first()

    def step_cost_table(self, batch: ScheduledBatch) -> StepCostTable | None:
        """The table this step's duration belongs in, read before verification clears the drafts: only the
        adaptive draft budget reads step costs, and only steps where every sequence decodes (its last token,
        plus its drafts) measure a decode step of that size."""
        if self.acceptance is None:
            return None
        if not all(n == 1 + len(seq.spec_token_ids) for seq, n in zip(batch.seqs, batch.num_new_tokens, strict=True)):
            return None
        drafted = any(seq.spec_token_ids for seq in batch.seqs)
        return self.verify_step_costs if drafted else self.plain_step_costs

    # --- after sampling ---------------------------------------------------------------------------
    def verify(self, seq: Sequence, token_ids: list[int], first_row: int,
               append_row: Callable[[int], RequestOutput]) -> tuple[list[RequestOutput], int]:
        """Rows ``first_row..`` sampled the token after the last one and after each draft. Drafts are accepted
        while each equals the token sampled before it; the first sample that differs (or the one after the last
        draft) is the step's own token. For a draft fixed in advance this is exact speculative sampling: the
        draft is kept with probability p(draft), and a rejection leaves a sample of p conditioned on not being
        the draft, which is the residual distribution (greedy: the argmax, so outputs are unchanged).

        ``append_row`` appends a row's token to the sequence; the outputs of the rows appended, in order, and the
        number of drafts accepted are returned."""
        drafts, seq.spec_token_ids = seq.spec_token_ids, []
        self.stats.spec_draft_tokens += len(drafts)
        steps: list[RequestOutput] = []
        accepted = 0
        for offset in range(len(drafts) + 1):
            row = first_row + offset
            step = append_row(row)
            steps.append(step)
            if step.finished or offset == len(drafts) or token_ids[row] != drafts[offset]:
                break
            accepted += 1
        self.stats.spec_accepted_tokens += accepted
        if self.acceptance is not None and seq.draft_history is not None:
            self.acceptance.observe(seq.draft_history, len(drafts), accepted)
        return steps, accepted


def isolation_domain(seq: Sequence) -> Hashable:
    """Whose earlier outputs may draft for ``seq``: its prefix-cache isolation domain (the per-tenant HMAC the
    gateway sets), else its tenant; offline requests with neither share the anonymous domain."""
    if seq.cache_salt is not None:
        return ("salt", seq.cache_salt)
    if seq.tenant is not None:
        return ("tenant", seq.tenant)
    return ("anonymous",)
