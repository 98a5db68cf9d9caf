"""Teacher forcing through an engine's own runner: the next-token distribution at every position of given
sequences, computed by the kernels the engine serves with, in either of the two shapes of a serving step.

* ``prefill``: one forward per whole sequence (prompt + output): the linears take their many-row path.
* ``decode`` at batch B: each prompt prefilled alone, then the outputs fed one token per step, B sequences a step
  (a decode step of B rows, as B concurrent streams run): at B = 1 the one-row kernels, at small B the small-batch
  kernels, above the bound the many-row path, exactly as the engine routes them.

The sequences borrow blocks from the engine's pool (returned after, uncommitted: nothing enters the prefix cache),
so the engine must be idle; the steps bypass the scheduler, sampler and spec decoding, nothing else.
"""

from __future__ import annotations

import torch

from engine.llm import LLM
from engine.sampling_params import SamplingParams
from engine.scheduling.sequence import Sequence
from engine.worker.model_runner import flatten_step


def teacher_forced_logprobs(llm: LLM, prompts: list[list[int]], outputs: list[list[int]],
                            decode_batch: int | None = None) -> list[torch.Tensor]:
    """Per sequence ``[len(output), vocab]`` float32 log-probabilities of each output token's position given the
    prompt and the output before it. ``decode_batch`` None: the ``prefill`` shape; else ``decode`` at that batch."""
    engine = llm.engine
    runner, pool = engine.runner, engine.block_manager
    if runner.workers is not None:
        raise ValueError("teacher forcing drives one rank's runner: run it without tensor parallelism")
    if any(not p or not o for p, o in zip(prompts, outputs, strict=True)):
        raise ValueError("every sequence needs a prompt and at least one output token")
    # The logits at token i are the distribution of token i + 1, so the last output token is never fed.
    seqs = [Sequence(f"teacher-forced-{i}", p + o[:-1], SamplingParams(max_tokens=1))
            for i, (p, o) in enumerate(zip(prompts, outputs, strict=True))]
    try:
        for seq in seqs:
            pool.allocate(seq, len(seq.token_ids))

        def forward(ids: list[int], starts: list[int], lens: list[int], group: list[Sequence], decodes: int,
                    rows: list[int]) -> torch.Tensor:
            inputs = flatten_step(ids, starts, lens, [s.block_table for s in group], decodes, runner.block_size,
                                  rows)
            logits = runner.run_forward(inputs)
            assert logits is not None
            return torch.log_softmax(logits.float(), dim=-1)

        if decode_batch is None:
            return [forward(s.token_ids, [0], [len(s.token_ids)], [s], 0,
                            list(range(len(p) - 1, len(s.token_ids))))
                    for s, p in zip(seqs, prompts, strict=True)]
        rows: list[list[torch.Tensor]] = [[forward(p, [0], [len(p)], [s], 0, [len(p) - 1])[0]]
                                          for s, p in zip(seqs, prompts, strict=True)]
        for first in range(0, len(seqs), decode_batch):
            group = list(range(first, min(first + decode_batch, len(seqs))))
            for step in range(1, max(len(outputs[i]) for i in group)):
                live = [i for i in group if step < len(outputs[i])]
                positions = [len(prompts[i]) + step - 1 for i in live]
                got = forward([seqs[i].token_ids[q] for i, q in zip(live, positions, strict=True)], positions,
                              [1] * len(live), [seqs[i] for i in live], len(live), list(range(len(live))))
                for row, i in enumerate(live):
                    rows[i].append(got[row])
        return [torch.stack(r) for r in rows]
    finally:
        for seq in seqs:
            if seq.block_table:
                pool.free_seq(seq)


def agreement(got: list[torch.Tensor], expected: list[torch.Tensor]) -> dict[str, float | int]:
    """Top-1 agreement (%) of ``got`` with ``expected`` and KL(expected || got) in nats (mean, 99th percentile)
    over every position."""
    top1 = torch.cat([g.argmax(-1) == e.argmax(-1) for g, e in zip(got, expected, strict=True)])
    kl = torch.cat([(e.exp() * (e - g)).sum(-1) for g, e in zip(got, expected, strict=True)])
    kl = kl.clamp(min=0)  # rounding can make a tiny KL negative
    return {"top1": round(100 * top1.float().mean().item(), 2), "kl_mean": round(kl.mean().item(), 5),
            "kl_p99": round(torch.quantile(kl, 0.99).item(), 5), "positions": top1.numel()}
