"""Batched sampling: structured-output mask, penalties, temperature, top-k / top-p / min-p, seeded draws, logprobs.

Everything is tensor ops over the whole batch; the only per-row Python work is drawing noise from a seeded
request's own generator (so its samples do not depend on what else is in the batch). Sampling uses the
exponential-race form of the Gumbel trick, ``argmax(p / q)`` with ``q ~ Exp(1)``, which needs no host sync.

A temperature below ``MIN_TEMPERATURE`` is greedy, as in vLLM: dividing by it would overflow the logits to inf,
and the softmax of those is NaN, which samples an arbitrary token.

Non-finite logits (a model whose numerics broke: fp16 overflow, bad weights) are sanitised rather than failing the
batch: a NaN says nothing about its token, so that token is excluded (-inf); +inf says the model is certain of its
token, so it becomes ``POSINF_LOGIT``, large enough to win and still finite after any temperature. A row left with
no finite logit at all (every entry NaN, or masked away) has nothing to sample: its token is ``INVALID_TOKEN`` and
the engine fails that request alone with an error (``engine.llm_engine``), never returning a made-up token.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import nn

from kernels import dispatch
from kernels.token_bitmask import apply_token_bitmask_

MIN_TEMPERATURE = 1e-5  # below it a row is greedy (vLLM's _SAMPLING_EPS)
POSINF_LOGIT = 1e30  # what +inf becomes: above any real logit, finite even divided by MIN_TEMPERATURE (float32)
INVALID_TOKEN = -1  # the token of a row with no finite logit


@dataclass(slots=True)
class SamplingTensors:
    """Per-row sampling parameters of one step, built by the model runner."""

    temperature: torch.Tensor  # float [N]; rows below MIN_TEMPERATURE are greedy
    all_greedy: bool
    top_k: torch.Tensor | None = None  # long [N]; vocab size where disabled
    top_p: torch.Tensor | None = None  # float [N]
    min_p: torch.Tensor | None = None  # float [N]
    # Penalties (None when no row uses them). Repetition penalty covers prompt + output (HF); presence and
    # frequency penalties cover output tokens only (OpenAI).
    repetition_penalty: torch.Tensor | None = None  # float [N]
    presence_penalty: torch.Tensor | None = None
    frequency_penalty: torch.Tensor | None = None
    prompt_mask: torch.Tensor | None = None  # bool [N, V]
    output_counts: torch.Tensor | None = None  # float [N, V]
    generators: dict[int, torch.Generator] | None = None  # row -> seeded CPU generator (model_runner)
    base_generator: torch.Generator | None = None  # unseeded rows
    max_logprobs: int | None = None  # None: no logprobs this step
    allowed_bitmask: torch.Tensor | None = None  # int32 [N, ceil(V/32)]; bit set = token allowed
    # (row, token) pairs that must not be sampled this step: stop tokens of rows still short of min_tokens.
    banned_rows: torch.Tensor | None = None  # long [K]
    banned_ids: torch.Tensor | None = None  # long [K]


@dataclass(slots=True)
class SamplerOutput:
    token_ids: torch.Tensor  # long [N]; INVALID_TOKEN where a row had no finite logit
    logprobs: torch.Tensor | None = None  # float [N]: log-probability of the sampled token
    top_logprobs: torch.Tensor | None = None  # float [N, k]
    top_ids: torch.Tensor | None = None  # long [N, k]


class Sampler(nn.Module):
    def forward(self, logits: torch.Tensor, t: SamplingTensors) -> SamplerOutput:
        logits, finite = _sanitised(logits.float())
        if t.allowed_bitmask is not None:  # structured outputs: Triton on CUDA, torch reference elsewhere
            apply_token_bitmask_(logits, t.allowed_bitmask)
        if t.banned_rows is not None:
            logits[t.banned_rows, t.banned_ids] = float("-inf")
        if t.repetition_penalty is not None:
            logits = self._apply_penalties(logits, t)

        # The first maximal index (torch's max(dim=-1).indices); on AVX-512 CPUs from the C++ kernel, 2.3-6x
        # faster than torch's one-element-at-a-time reduction (kernels/cpu/argmax.cpp).
        greedy_ids = dispatch.argmax(logits)
        out = SamplerOutput(token_ids=greedy_ids)
        if not t.all_greedy:
            sampled = self._sample(logits, t)
            out.token_ids = torch.where(t.temperature < MIN_TEMPERATURE, out.token_ids, sampled)
        # Masks and penalties may leave a row with nothing: its best entry is -inf (a sanitised NaN row, or every
        # token banned). Marked in the tokens the engine reads anyway, so it costs no extra transfer from the device.
        # Logits found finite, with nothing masked or penalised since, have no such row: the check is skipped (a
        # third of a one-row greedy step's sampling on the CPU).
        if not finite or t.allowed_bitmask is not None or t.banned_rows is not None or \
                t.repetition_penalty is not None:
            empty = logits.gather(-1, greedy_ids.unsqueeze(-1)).squeeze(-1) == float("-inf")
            out.token_ids = out.token_ids.masked_fill(empty, INVALID_TOKEN)

        if t.max_logprobs is not None:
            # Log-probabilities of the distribution after the structured mask and penalties, before temperature
            # and truncation (what OpenAI-style clients expect to compare across settings).
            logprobs = torch.log_softmax(logits, dim=-1)
            picked = out.token_ids.clamp(min=0)  # an INVALID_TOKEN row's request fails; any index will do
            out.logprobs = logprobs.gather(-1, picked.unsqueeze(-1)).squeeze(-1)
            if t.max_logprobs > 0:
                out.top_logprobs, out.top_ids = logprobs.topk(t.max_logprobs, dim=-1)
        return out

    @staticmethod
    def _apply_penalties(logits: torch.Tensor, t: SamplingTensors) -> torch.Tensor:
        assert t.prompt_mask is not None and t.output_counts is not None
        assert t.presence_penalty is not None and t.frequency_penalty is not None
        assert t.repetition_penalty is not None
        counts = t.output_counts
        seen = t.prompt_mask | (counts > 0)
        rep = t.repetition_penalty.unsqueeze(-1)
        penalized = torch.where(logits > 0, logits / rep, logits * rep)
        logits = torch.where(seen, penalized, logits)
        logits = logits - t.frequency_penalty.unsqueeze(-1) * counts
        return logits - t.presence_penalty.unsqueeze(-1) * (counts > 0).to(logits.dtype)

    @staticmethod
    def _sample(logits: torch.Tensor, t: SamplingTensors) -> torch.Tensor:
        temperature = torch.where(t.temperature < MIN_TEMPERATURE, torch.ones_like(t.temperature), t.temperature)
        logits = logits / temperature.unsqueeze(-1)
        if t.top_k is not None or t.top_p is not None:
            logits = _apply_top_k_top_p(logits, t.top_k, t.top_p)
        probs = torch.softmax(logits, dim=-1)
        if t.min_p is not None:
            threshold = probs.amax(dim=-1, keepdim=True) * t.min_p.unsqueeze(-1)
            probs = probs.masked_fill(probs < threshold, 0.0)
        noise = torch.empty_like(probs)
        noise.exponential_(generator=t.base_generator)
        for row, gen in (t.generators or {}).items():
            # Seeded rows draw on the CPU (their generators live there): the same noise on every device.
            noise[row].copy_(torch.empty(probs.shape[-1], dtype=probs.dtype).exponential_(generator=gen))
        return dispatch.argmax(probs / noise)


def _sanitised(logits: torch.Tensor) -> tuple[torch.Tensor, bool]:
    """NaN -> -inf (excluded), +inf -> ``POSINF_LOGIT`` (the model's certain token still wins); -inf stays. With
    whether every logit was found finite (False: not checked, or not so)."""
    # The usual case, found by one sum (a host check is free on the CPU): a NaN or an infinity anywhere makes it
    # non-finite, and so may finite logits overflowing float32, which nan_to_num then leaves as they are. One
    # vectorized reduction, where isfinite(...).all() materializes and reduces a mask: ~20-40x its time.
    if logits.device.type == "cpu" and math.isfinite(logits.sum().item()):
        return logits, True
    return torch.nan_to_num(logits, nan=float("-inf"), posinf=POSINF_LOGIT, neginf=float("-inf")), False


def _apply_top_k_top_p(logits: torch.Tensor, top_k: torch.Tensor | None, top_p: torch.Tensor | None) -> torch.Tensor:
    sorted_logits, order = logits.sort(dim=-1, descending=False)
    vocab = logits.shape[-1]
    if top_k is not None:
        # keep the k largest: in ascending order those are the last k
        kth = sorted_logits.gather(-1, (vocab - top_k.clamp(1, vocab)).unsqueeze(-1))
        sorted_logits = sorted_logits.masked_fill(sorted_logits < kth, float("-inf"))
    if top_p is not None:
        probs = sorted_logits.softmax(dim=-1)
        cumulative = probs.cumsum(dim=-1)
        drop = cumulative <= (1 - top_p.unsqueeze(-1))
        drop[:, -1] = False  # always keep the most likely token
        sorted_logits = sorted_logits.masked_fill(drop, float("-inf"))
    return torch.empty_like(logits).scatter_(-1, order, sorted_logits)
