"""Continuous batching: each step runs the running sequences first (decodes and unfinished prefill chunks),
then admits waiting ones into the remaining token budget, chunking a prefill that does not fit. When the
block pool runs dry the newest running sequence is preempted by recompute (its blocks freed, its tokens
prefilled again later)."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from engine.block_manager import BlockManager
from engine.sequence import Sequence, SequenceStatus


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


class Scheduler:
    def __init__(self, block_manager: BlockManager, *, max_num_seqs: int, max_num_batched_tokens: int) -> None:
        self.blocks = block_manager
        self.max_num_seqs = max_num_seqs
        self.max_num_batched_tokens = max_num_batched_tokens
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

    def schedule(self) -> ScheduledBatch:
        budget = self.max_num_batched_tokens
        picked: list[tuple[Sequence, int]] = []
        preempted: list[Sequence] = []
        queue = deque(self.running)
        still_running: list[Sequence] = []
        while queue:
            seq = queue.popleft()
            n = min(len(seq) - seq.num_computed_tokens, budget)
            if n <= 0:
                still_running.append(seq)
                continue
            while not self.blocks.can_allocate(seq, seq.num_computed_tokens + n):
                victim = queue.pop() if queue else seq
                self._preempt(victim)
                preempted.append(victim)
                if victim is seq:
                    break
            else:
                self.blocks.allocate(seq, seq.num_computed_tokens + n)
                picked.append((seq, n))
                still_running.append(seq)
                budget -= n
        self.running = still_running
        # Preempted sequences go back to the head of the queue, oldest first.
        for seq in reversed(preempted):
            self.waiting.appendleft(seq)

        while self.waiting and budget > 0 and len(self.running) < self.max_num_seqs and not preempted:
            seq = self.waiting[0]
            hits = self.blocks.find_cached_prefix(seq)
            computed = len(hits) * self.blocks.block_size
            n = min(len(seq) - computed, budget)
            if not self.blocks.admit(seq, hits, computed + n):
                break
            self.waiting.popleft()
            self.prefix_cache_queries += len(seq)
            self.prefix_cache_hits += computed
            seq.status = SequenceStatus.RUNNING
            if seq.cached_tokens < 0:
                seq.cached_tokens = min(computed, seq.num_prompt_tokens)
            self.running.append(seq)
            picked.append((seq, n))
            budget -= n

        picked.sort(key=lambda item: item[1] != 1)  # stable: single-token queries first
        return ScheduledBatch(
            seqs=[s for s, _ in picked],
            num_new_tokens=[n for _, n in picked],
            num_decodes=sum(1 for _, n in picked if n == 1),
            preempted=preempted,
        )

    def _preempt(self, seq: Sequence) -> None:
        self.num_preemptions += 1
        self.blocks.free_seq(seq)
        seq.status = SequenceStatus.WAITING

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
