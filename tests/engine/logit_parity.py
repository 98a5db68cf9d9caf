"""The parity harness of the model-family tests: serve prompts through ``LLM`` while recording the float32 logits of
every row the engine samples (each prompt's last position, then one per decode step), and transformers' logits at
the same rows from one full forward of the final sequence."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from typing import Any

import torch

from engine.llm import LLM
from engine.llm_engine import LLMEngine
from engine.request import EngineRequest
from engine.sampling_params import SamplingParams

StepObserver = Callable[[LLMEngine, Any], None]  # called with the engine and each step's batch, before it runs


def record_logits(llm: LLM, prompts: dict[str, list[int]], new_tokens: int, *, salt: str | None = None,
                  public_prefix_len: int = 0,
                  on_step: StepObserver | None = None) -> dict[str, list[torch.Tensor]]:
    """Greedy, ``new_tokens`` per prompt (EOS ignored); per request, the logits rows it sampled, in order. Every
    request carries ``salt`` and ``public_prefix_len``."""
    engine = llm.engine
    runner, model = engine.runner, engine.model
    logits_by_request: dict[str, list[torch.Tensor]] = defaultdict(list)
    rows: list[list[str]] = []
    execute, compute_logits = runner.execute, model.compute_logits

    def recording_execute(batch, sample_positions, sample_seqs, bitmask=None):
        rows.append([s.request_id for s in sample_seqs])
        if on_step is not None:
            on_step(engine, batch)
        return execute(batch, sample_positions, sample_seqs, bitmask)

    def recording_logits(hidden: torch.Tensor) -> torch.Tensor:
        logits = compute_logits(hidden)
        for request_id, row in zip(rows[-1], logits, strict=True):
            logits_by_request[request_id].append(row.clone())
        return logits

    # Instance attributes shadow the two methods for this run; deleting them restores the methods.
    runner.execute, model.compute_logits = recording_execute, recording_logits  # type: ignore[method-assign]
    try:
        params = SamplingParams(max_tokens=new_tokens, temperature=0, ignore_eos=True)
        for request_id, prompt in prompts.items():
            engine.add_request(EngineRequest(request_id, prompt, params, cache_salt=salt,
                                             public_prefix_len=public_prefix_len))
        while engine.has_unfinished_requests():
            engine.step()
    finally:
        del runner.execute, model.compute_logits
    return logits_by_request


def greedy_sequence(prompt: list[int], logits: list[torch.Tensor]) -> list[int]:
    """The prompt and every token sampled from ``logits`` (greedy: their argmax)."""
    return prompt + [int(row.argmax()) for row in logits]


@torch.no_grad()
def reference_logits(model: Any, prompt: list[int], logits: list[torch.Tensor]) -> torch.Tensor:
    """transformers' logits at the rows Warden sampled: the prompt's last position and each generated one."""
    tokens = greedy_sequence(prompt, logits)[:-1]
    return model(torch.tensor([tokens])).logits[0, len(prompt) - 1 :].float()
