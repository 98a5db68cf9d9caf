"""Offline, synchronous generation (benchmarks, tests, scripts): ``LLM(config).generate(prompts, params)``."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from tqdm import tqdm

from engine.config import EngineConfig
from engine.llm_engine import LLMEngine
from engine.outputs import TokenLogprob, Usage
from engine.request import EngineRequest
from engine.sampling_params import SamplingParams


@dataclass(slots=True)
class GenerationResult:
    request_id: str
    prompt_token_ids: list[int]
    token_ids: list[int] = field(default_factory=list)
    text: str = ""
    finish_reason: str | None = None
    stop_reason: str | int | None = None  # RequestOutput.stop_reason
    logprobs: list[TokenLogprob] | None = None
    usage: Usage | None = None
    error: str | None = None


class LLM:
    def __init__(self, config: EngineConfig | None = None, **overrides: Any) -> None:
        self.engine = LLMEngine(config or EngineConfig(**overrides))
        self.tokenizer = self.engine.tokenizer
        self._ids = itertools.count()

    def close(self) -> None:
        """Release what outlives the object: the tensor-parallel worker processes (nothing for one rank)."""
        self.engine.shutdown()

    def __enter__(self) -> LLM:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def generate(
        self,
        prompts: Sequence[list[int] | str],
        sampling_params: SamplingParams | Sequence[SamplingParams] | None = None,
        *,
        structured: dict[str, Any] | None = None,
        use_tqdm: bool = False,
    ) -> list[GenerationResult]:
        """Run every prompt to completion with continuous batching; results in prompt order.
        String prompts are encoded as-is (apply the chat template first for chat models). ``structured``
        constrains every output (``EngineRequest.structured``: json_schema, json_object, tool_calls)."""
        params = sampling_params or SamplingParams()
        per_prompt = list(params) if isinstance(params, Sequence) else [params] * len(prompts)
        if len(per_prompt) != len(prompts):
            raise ValueError("one SamplingParams per prompt, or a single one for all")
        results: dict[str, GenerationResult] = {}
        order = []
        for prompt, p in zip(prompts, per_prompt, strict=True):
            ids = self.tokenizer.encode(prompt) if isinstance(prompt, str) else list(prompt)
            rid = f"llm-{next(self._ids)}"
            self.engine.add_request(EngineRequest(rid, ids, p, structured=structured))
            results[rid] = GenerationResult(rid, ids, logprobs=[] if p.logprobs is not None else None)
            order.append(rid)
        bar = tqdm(total=len(order), desc="generating", disable=not use_tqdm)
        while self.engine.has_unfinished_requests():
            for delta in self.engine.step():
                r = results[delta.request_id]
                r.token_ids += delta.token_ids
                r.text += delta.text
                if delta.logprobs and r.logprobs is not None:
                    r.logprobs += delta.logprobs
                r.usage = delta.usage
                if delta.finished:
                    r.finish_reason, r.stop_reason, r.error = delta.finish_reason, delta.stop_reason, delta.error
                    bar.update(1)
        bar.close()
        return [results[rid] for rid in order]
