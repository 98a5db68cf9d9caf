"""Continuous batching with fair sharing across tenants.

Each step: every running decode first (one token each), then prefill (running sequences' unfinished chunks, then
admissions from the waiting queue) out of the rest of the token budget. A waiting prompt whose next uncached block
a running sequence is computing waits for it to be cached (those behind it go ahead): prompts that arrive together
with a shared prefix compute it once. The prefill budget is split across
tenants by ``engine.scheduling.fairness.token_allowances`` (policy weight and recent usage); whatever a tenant cannot
use goes to the others, so the engine never idles while work waits. Within a tenant, first come first served.

The KV pool and the sequence slots are shared by weight too, but only under contention: a tenant may use free
memory beyond its share, and gives it back (its newest sequence preempted by recompute) when a tenant below its
share needs room. ``tenant_kv_quota`` caps any one tenant's blocks outright. When a running sequence cannot grow,
the newest sequence of the tenant furthest over its share is preempted (with one tenant: the newest running
sequence, as before). Preempted sequences go back to the head of the waiting queue and keep their place.

With ``fair=False`` every request is in one bucket: plain FIFO admission.
"""

from __future__ import annotations

from collections import defaultdict, deque
from dataclasses import dataclass, field

from engine.scheduling.block_manager import BlockManager
from engine.scheduling.fairness import DecayedUsage, token_allowances
from engine.scheduling.sequence import Sequence, SequenceStatus


@dataclass(slots=True)
class ScheduledBatch:
    """Sequences to run this step, those with a single query token first (the attention kernels'
    decode-first convention), each with how many of its tokens to compute."""

    seqs: list[Sequence] = field(default_factory=list)
    num_new_tokens: list[int] = field(default_factory=list)
    num_decodes: int = 0
    preempted: list[Sequence] = field(default_factory=list)

    @property
    def num_tokens(self) -> int:
        return sum(self.num_new_tokens)

    def __bool__(self) -> bool:
        return bool(self.seqs)

    def put_decodes_first(self) -> None:
        """Order single-token queries first (stable) and count them: the attention kernels' convention, restored
        after token counts change (a decode whose drafts were all cut is a plain decode again)."""
        order = sorted(range(len(self.seqs)), key=lambda i: self.num_new_tokens[i] != 1)
        self.seqs = [self.seqs[i] for i in order]
        self.num_new_tokens = [self.num_new_tokens[i] for i in order]
        self.num_decodes = self.num_new_tokens.count(1)


@dataclass(slots=True)
class _Step:
    """One ``schedule()`` call's working state."""

    budget: int
    picked: dict[Sequence, int] = field(default_factory=dict)  # insertion order = batch order before sorting
    preempted: list[Sequence] = field(default_factory=list)
    preempted_tenants: set[object] = field(default_factory=set)
    charges: defaultdict[object, int] = field(default_factory=lambda: defaultdict(int))


class Scheduler:
    def __init__(self, block_manager: BlockManager, *, max_num_seqs: int, max_num_batched_tokens: int,
                 fair: bool = True, half_life_tokens: int = 16_384, tenant_kv_quota: float = 1.0) -> None:
        self.blocks = block_manager
        self.max_num_seqs = max_num_seqs
        self.max_num_batched_tokens = max_num_batched_tokens
        self.fair = fair
        self.kv_cap = max(1, int(block_manager.num_blocks * tenant_kv_quota))
        self.usage = DecayedUsage(half_life_tokens)
        self.waiting: deque[Sequence] = deque()
        self.running: list[Sequence] = []
        self.by_id: dict[str, Sequence] = {}
        self.num_preemptions = 0  # lifetime count (metrics, tests)
        # Lifetime prefix-cache counters, in prompt tokens, counted at each admission (engine.metrics).
        self.prefix_cache_queries = 0
        self.prefix_cache_hits = 0

    def add(self, seq: Sequence) -> None:
        self.by_id[seq.request_id] = seq
        self.waiting.append(seq)

    def has_unfinished(self) -> bool:
        return bool(self.waiting or self.running)

    def __len__(self) -> int:
        return len(self.by_id)

    def tenant_of(self, seq: Sequence) -> object:
        return seq.tenant if self.fair else None

    # --- shares -----------------------------------------------------------------------------------
    def _weights(self) -> dict[object, int]:
        """Active tenants (running or waiting) and their weights (a tenant's largest, if its requests differ)."""
        weights: dict[object, int] = {}
        for seq in (*self.running, *self.waiting):
            tenant = self.tenant_of(seq)
            weights[tenant] = max(weights.get(tenant, 1), seq.weight if self.fair else 1)
        return weights

    def _held(self) -> tuple[dict[object, int], dict[object, int]]:
        """KV blocks and running sequences per tenant."""
        blocks: dict[object, int] = defaultdict(int)
        seqs: dict[object, int] = defaultdict(int)
        for seq in self.running:
            blocks[self.tenant_of(seq)] += self.blocks.num_held(seq)
            seqs[self.tenant_of(seq)] += 1
        return blocks, seqs

    def _over_share(self, resource: str, weights: dict[object, int]) -> dict[object, float]:
        """Each tenant's use of the pool (``"kv"``) or the slots (``"seqs"``) over its weighted share."""
        blocks, seqs = self._held()
        held, capacity = (blocks, self.blocks.num_blocks) if resource == "kv" else (seqs, self.max_num_seqs)
        total = sum(weights.values())
        return {t: held.get(t, 0) / (capacity * w / total) for t, w in weights.items()}

    # --- the step ---------------------------------------------------------------------------------
    def schedule(self) -> ScheduledBatch:
        step = _Step(budget=self.max_num_batched_tokens)
        weights = self._weights()
        for seq in self.running:  # blocks that left every layer's sliding window (Mistral) go back to the pool
            self.blocks.release_out_of_window(seq)

        # 1. Decodes: one token each, always (they hold KV; stalling them wastes it). Then their draft tokens
        #    (speculative decoding) out of what is left, so drafts never cost another decode or a preemption.
        decodes = [s for s in self.running if len(s) - s.num_computed_tokens == 1]
        for seq in decodes:
            if seq.status == SequenceStatus.RUNNING and step.budget > 0:
                self._grow(seq, 1, step, weights)
        for seq in decodes:
            drafts = self._fit_drafts(seq, step) if seq in step.picked else 0
            if drafts:
                self._grow(seq, drafts, step, weights)
            else:
                seq.spec_token_ids = []

        # 2. Prefill, split across tenants; a tenant's leftover goes to the others in a second round.
        demand: dict[object, int] = defaultdict(int)
        for seq in (*self.running, *self.waiting):
            tenant = self.tenant_of(seq)
            demand[tenant] = min(step.budget, demand[tenant] + len(seq) - max(seq.num_computed_tokens, 0)
                                 - (1 if seq in step.picked else 0))
        allowances = token_allowances(step.budget, demand, weights, self.usage.tokens)
        order = sorted(weights, key=lambda t: self.usage.get(t) / weights[t])  # least served first
        for tenant in order:
            self._prefill(tenant, allowances.get(tenant, 0), step, weights)
        for tenant in order:
            self._prefill(tenant, step.budget, step, weights)

        # Preempted sequences go back to the head of the queue, oldest first.
        for seq in sorted(step.preempted, key=lambda s: s.arrival, reverse=True):
            self.waiting.appendleft(seq)
        self.usage.charge(step.charges)
        batch = ScheduledBatch(seqs=list(step.picked), num_new_tokens=list(step.picked.values()),
                               preempted=step.preempted)
        batch.put_decodes_first()
        return batch

    def _fit_drafts(self, seq: Sequence, step: _Step) -> int:
        """How many of scheduled decode ``seq``'s draft tokens fit the remaining budget and free blocks; the rest
        are dropped."""
        keep = min(len(seq.spec_token_ids), step.budget)
        while keep > 0 and not self.blocks.can_allocate(seq, len(seq) + keep):
            keep -= 1
        del seq.spec_token_ids[keep:]
        return keep

    def _prefill(self, tenant: object, allowance: int, step: _Step, weights: dict[object, int]) -> None:
        """Spend up to ``allowance`` tokens on ``tenant``: its running prefills first, then its waiting queue."""
        allowance = min(allowance, step.budget)
        for seq in [s for s in self.running if self.tenant_of(s) == tenant]:
            if allowance <= 0:
                return
            if seq.status != SequenceStatus.RUNNING:
                continue  # preempted earlier in this step
            remaining = len(seq) - seq.num_computed_tokens - step.picked.get(seq, 0)
            if remaining > 0:
                allowance -= self._grow(seq, min(remaining, allowance), step, weights)
        if tenant in step.preempted_tenants:
            return  # memory is tight for this tenant: admitting more would only be preempted again
        for seq in [s for s in self.waiting if self.tenant_of(s) == tenant]:
            if allowance <= 0 or step.budget <= 0:
                return
            admitted = self._admit(seq, allowance, step, weights)
            if admitted is None:
                continue  # keeps its place; the requests behind it need none of the prefix it waits for
            if not admitted:
                return
            allowance -= admitted

    def _grow(self, seq: Sequence, n: int, step: _Step, weights: dict[object, int]) -> int:
        """Schedule ``n`` more tokens of running ``seq``, preempting others if the pool is dry; tokens granted."""
        already = step.picked.get(seq, 0)
        while not self.blocks.can_allocate(seq, seq.num_computed_tokens + already + n):
            victim = self._victim_for(seq, weights)
            self._preempt(victim, step)
            if victim is seq:
                return 0
        self.blocks.allocate(seq, seq.num_computed_tokens + already + n)
        step.picked[seq] = already + n
        step.budget -= n
        step.charges[self.tenant_of(seq)] += n
        return n

    def _admit(self, seq: Sequence, allowance: int, step: _Step, weights: dict[object, int]) -> int | None:
        """Move ``seq`` from waiting to running with a first chunk of at most ``allowance`` tokens; 0 if it
        cannot start this step; None if a running sequence is computing the block after its cached prefix (it
        starts once that is cached, and reuses it instead of computing it twice)."""
        tenant = self.tenant_of(seq)
        hits = self.blocks.find_cached_prefix(seq)
        if self.blocks.next_block_in_flight(seq, hits):
            return None
        computed = len(hits) * self.blocks.block_size
        n = min(len(seq) - computed, allowance, step.budget)
        need = self.blocks.new_blocks_to_admit(hits, computed + n)
        blocks_held, seqs_held = self._held()
        if seqs_held.get(tenant, 0) and blocks_held.get(tenant, 0) + need > self.kv_cap:
            return 0  # the tenant's hard quota (its first request is always allowed, or it could never start)
        # A model with Mamba2 layers also needs a free recurrent-state slot: reclaimed like a sequence slot.
        while len(self.running) >= self.max_num_seqs or not self.blocks.has_state_slot():
            if not self._reclaim(tenant, "seqs", step, weights):
                return 0
        while need > self.blocks.num_free_blocks:
            if not self._reclaim(tenant, "kv", step, weights):
                return 0
            hits = self.blocks.find_cached_prefix(seq)  # a reclaim may have evicted nothing, but recheck anyway
            computed = len(hits) * self.blocks.block_size
            n = min(len(seq) - computed, allowance, step.budget)
            need = self.blocks.new_blocks_to_admit(hits, computed + n)
        admitted = self.blocks.admit(seq, hits, computed + n)
        assert admitted, "admit() refused after the free-block check"
        self.waiting.remove(seq)
        self.prefix_cache_queries += len(seq)
        self.prefix_cache_hits += computed
        seq.status = SequenceStatus.RUNNING
        if seq.cached_tokens < 0:
            seq.cached_tokens = min(computed, seq.num_prompt_tokens)
        self.running.append(seq)
        step.picked[seq] = n
        step.budget -= n
        step.charges[tenant] += n
        return n

    # --- preemption -------------------------------------------------------------------------------
    def _victim_for(self, seq: Sequence, weights: dict[object, int]) -> Sequence:
        """Who gives up its blocks so running ``seq`` can grow: the newest sequence of the tenant furthest over
        its KV share (``seq`` itself when that is its own tenant and it is the newest)."""
        over = self._over_share("kv", weights)
        tenant = max((self.tenant_of(s) for s in self.running), key=lambda t: over.get(t, 0.0))
        if over.get(tenant, 0.0) <= over.get(self.tenant_of(seq), 0.0):
            tenant = self.tenant_of(seq)
        return next(s for s in reversed(self.running) if self.tenant_of(s) == tenant)

    def _reclaim(self, tenant: object, resource: str, step: _Step, weights: dict[object, int]) -> bool:
        """Preempt the newest sequence of the tenant furthest over its share of ``resource`` so ``tenant``, which
        is under its own share, can start a request; False when nobody owes anything to ``tenant``."""
        over = self._over_share(resource, weights)
        if over.get(tenant, 0.0) >= 1.0:
            return False
        debtors = [t for t in over if t != tenant and over[t] > 1.0]
        if not debtors:
            return False
        debtor = max(debtors, key=lambda t: over[t])
        victim = next((s for s in reversed(self.running) if self.tenant_of(s) == debtor), None)
        if victim is None:
            return False
        self._preempt(victim, step)
        return True

    def _preempt(self, seq: Sequence, step: _Step) -> None:
        self.num_preemptions += 1
        undone = step.picked.pop(seq, 0)  # scheduled earlier in this step: its tokens go back to the budget
        step.budget += undone
        step.charges[self.tenant_of(seq)] -= undone
        self.running.remove(seq)
        self.blocks.free_seq(seq)
        seq.status = SequenceStatus.WAITING
        seq.spec_token_ids = []
        seq.draft_num_computed_tokens = 0  # its blocks are gone, the draft model's KV with them
        step.preempted.append(seq)
        step.preempted_tenants.add(self.tenant_of(seq))

    def finish(self, seq: Sequence, reason: str) -> None:
        """Remove ``seq`` wherever it is and free every block it holds."""
        if seq.status == SequenceStatus.FINISHED:
            return
        if seq.status == SequenceStatus.RUNNING:
            self.running.remove(seq)
        else:
            self.waiting.remove(seq)
        self.blocks.free_seq(seq)
        seq.status = SequenceStatus.FINISHED
        seq.finish_reason = reason
        self.by_id.pop(seq.request_id, None)

    def get(self, request_id: str) -> Sequence | None:
        return self.by_id.get(request_id)
