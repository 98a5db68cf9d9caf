"""Draft-model speculation: a smaller model with the target's tokenizer writes the drafts the target verifies.

The draft model keeps its own paged KV cache over the same block ids as the target's: the scheduler allocates once
for both, each model's cache is its own tensor, and block tables, preemption, freeing and the prefix cache's
block reuse apply to the draft unchanged.

Each step runs after the scheduler has reserved room for a decoding sequence's drafts:

1. catch-up: the draft model computes the tokens of each sequence it has not seen yet (the one or two the last step
   accepted; the whole prompt after a prefill or a preemption) and samples the first draft after the last one;
2. ``k - 1`` one-token decode steps, each sequence's previous draft as its input, sample the rest.

Drafts are the draft model's argmax. A draft fixed by its context is a deterministic proposal, for which the
engine's verification (keep a draft while the target samples it) is exact speculative sampling at any temperature;
greedy outputs are the target's own.

The draft KV written at draft positions holds tokens the target may reject, so a sequence's
``draft_num_computed_tokens`` is trusted only up to its ``num_computed_tokens`` (what the target has verified):
rejected drafts' KV is recomputed and overwritten, like the target's.
"""

from __future__ import annotations

import torch

from engine.scheduling.block_manager import BlockManager
from engine.scheduling.sequence import Sequence
from engine.worker.model_runner import ModelRunner, flatten_step


class DraftModelProposer:
    def __init__(self, runner: ModelRunner, blocks: BlockManager, max_num_tokens: int) -> None:
        self.runner = runner  # the draft model's runner: its own KV cache over the target's block ids
        self.blocks = blocks  # the target's pool; its ``draft_filled`` marks blocks whose draft KV is whole
        # Tokens one draft forward may hold (what the runner was built for: compiled graphs are sized by it).
        self.max_num_tokens = max_num_tokens
        self.num_catch_up_tokens = 0  # lifetime: tokens computed to catch the draft model up (tests, benchmarks)

    def propose(self, seqs: list[Sequence], counts: list[int]) -> list[list[int]]:
        """Up to ``counts[i]`` drafts to follow each decoding ``seqs[i]``, whose blocks hold room for them. A sequence
        whose catch-up does not fit this step's token budget computes part of it and gets no drafts this time."""
        drafts: list[list[int]] = [[] for _ in seqs]
        # 1. Catch up, sampling the first draft after each sequence's last token.
        budget = self.max_num_tokens
        chunks: list[tuple[int, int, int]] = []  # (index into seqs, start position, tokens to compute)
        for i, seq in enumerate(seqs):
            start = self._valid_prefix(seq)
            n = min(len(seq) - start, budget)
            if n > 0:
                chunks.append((i, start, n))
                budget -= n
        chunks.sort(key=lambda c: c[2] != 1)  # one-token queries first: the attention kernels' decode convention
        sampled: list[int] = []  # the chunks that reach their sequence's last token, in batch order
        positions: list[int] = []  # where each one's last token lies in the flattened batch
        offset = 0
        for i, start, n in chunks:
            offset += n
            if start + n == len(seqs[i]):
                sampled.append(i)
                positions.append(offset - 1)
        first = self._run(
            [t for i, start, n in chunks for t in seqs[i].token_ids[start : start + n]],
            [start for _, start, _ in chunks], [n for _, _, n in chunks], [seqs[i] for i, _, _ in chunks],
            positions)
        bs = self.blocks.block_size
        for i, start, n in chunks:
            seq = seqs[i]
            seq.draft_num_computed_tokens = start + n
            self.num_catch_up_tokens += n - 1 if start + n == len(seq) else n
            for b in range(start // bs, (start + n) // bs):  # whole blocks of real tokens: reusable by a cache hit
                self.blocks.draft_filled[seq.block_table[b]] = True
        # Sampled rows come out in ``positions`` order: the chunks' order, restricted to those that sample.
        for i, token in zip(sampled, first, strict=True):
            drafts[i].append(token)
        # 2. One token at a time for the rest.
        for j in range(1, max(counts, default=0)):
            active = [i for i in sampled if counts[i] > j]
            if not active:
                break
            tokens = self._run([drafts[i][-1] for i in active], [len(seqs[i]) - 1 + j for i in active],
                               [1] * len(active), [seqs[i] for i in active], list(range(len(active))))
            for i, token in zip(active, tokens, strict=True):
                drafts[i].append(token)
                seqs[i].draft_num_computed_tokens += 1
        return [d[:k] for d, k in zip(drafts, counts, strict=True)]

    def _valid_prefix(self, seq: Sequence) -> int:
        """Leading tokens of ``seq`` whose draft KV is right: what the draft computed, no further than the target
        has verified, then as many following whole blocks as a prefix-cache hit brought in with draft KV."""
        valid = min(seq.draft_num_computed_tokens, seq.num_computed_tokens)
        bs = self.blocks.block_size
        while (valid % bs == 0 and valid + bs <= seq.num_computed_tokens
               and self.blocks.draft_filled[seq.block_table[valid // bs]]):
            valid += bs
        return valid

    def _run(self, input_ids: list[int], starts: list[int], q_lens: list[int], seqs: list[Sequence],
             sample_positions: list[int]) -> list[int]:
        """One forward of the draft model (one-token queries first); the argmax token of each sampled row."""
        if not input_ids:
            return []
        num_decodes = q_lens.count(1)
        assert all(n == 1 for n in q_lens[:num_decodes]), "one-token queries must come first"
        inputs = flatten_step(input_ids, starts, q_lens, [s.block_table for s in seqs], num_decodes,
                              self.runner.block_size, sample_positions)
        logits = self.runner.run_forward(inputs)
        if logits is None:
            return []
        return torch.argmax(logits, dim=-1).tolist()
