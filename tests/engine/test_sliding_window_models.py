"""Mistral (every layer windowed), Gemma 2 (windowed and global layers alternating, soft-capped attention and
logits, four norms per layer, GeGLU, scaled embeddings) and Gemma 3 (one global layer among windowed ones, a RoPE base
per layer kind, query/key norms) against transformers on tiny random-weight checkpoints.

Warden's logits for the prompt's last position and for every decode step equal transformers' (one full forward of
the final sequence, its own sliding-window masks) within ``LOGITS_ATOL``, float32 on both sides, with contexts
several windows long, chunked prefill (a step budget of 24 tokens: chunks past the C++ kernel's short-query bound go
to the reference prefill, shorter ones and the decodes to the C++ kernel), mixed decode + prefill batches and, after
the first requests finish, a prefix-cache hit through blocks that Mistral released out of the window while decoding.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import torch

from engine.config import EngineConfig
from engine.llm import LLM
from engine.llm_engine import LLMEngine
from engine.request import EngineRequest
from engine.sampling_params import SamplingParams
from engine.scheduling.block_manager import NO_BLOCK
from kernels.cpu import SHORT_QUERY

from .logit_parity import greedy_sequence, record_logits, reference_logits
from .tiny_models import WINDOW_DEFAULTS, write_tiny_checkpoint

# float32 throughout; what remains is summation order (fused QKV, paged attention, the C++ decode kernel).
LOGITS_ATOL = 1e-4
BLOCK_SIZE = 8
WINDOW = WINDOW_DEFAULTS["mistral"]["sliding_window"]
assert WINDOW_DEFAULTS["gemma2"]["sliding_window"] == WINDOW
PROMPTS = {
    "long": [(37 * i + 11) % 4000 + 50 for i in range(37)],  # three windows, prefilled in chunks
    "short": [5, 17, 300, 9, 42],  # decodes beside the others' prefill chunks
    "mid": [(53 * i + 5) % 3000 + 70 for i in range(22)],
}
NEW_TOKENS = 24


@dataclass
class Recorder:
    """Per request, the float32 logits of each row it sampled (prompt end, then one per decode step); per step,
    whether it mixed decodes with prefill chunks and whether a chunk continued an earlier one."""

    logits: dict[str, list[torch.Tensor]] = field(default_factory=dict)
    mixed_steps: int = 0
    continued_chunks: int = 0
    long_chunks: int = 0  # chunks past kernels.cpu.SHORT_QUERY tokens
    max_held: dict[str, int] = field(default_factory=lambda: defaultdict(int))


def run(llm: LLM, prompts: dict[str, list[int]], new_tokens: int) -> Recorder:
    rec = Recorder()

    def observe(engine: LLMEngine, batch) -> None:
        if 0 < batch.num_decodes < len(batch.seqs):
            rec.mixed_steps += 1
        for seq, n in zip(batch.seqs, batch.num_new_tokens, strict=True):
            rec.continued_chunks += n > 1 and seq.num_computed_tokens > 0
            rec.long_chunks += n > SHORT_QUERY
            rec.max_held[seq.request_id] = max(rec.max_held[seq.request_id], engine.block_manager.num_held(seq))

    rec.logits = record_logits(llm, prompts, new_tokens, on_step=observe)
    return rec


@pytest.fixture(scope="module", params=["mistral", "gemma2", "gemma3_text"])
def family(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    return request.param, write_tiny_checkpoint(tmp_path_factory.mktemp(request.param), architecture=request.param)


def _reference(directory: Path, **config_overrides):
    from transformers import AutoConfig, AutoModelForCausalLM

    config = AutoConfig.from_pretrained(directory, **config_overrides)
    return AutoModelForCausalLM.from_pretrained(directory, config=config, dtype=torch.float32).eval()


def _llm(directory: Path, **overrides) -> LLM:
    settings = dict(model=str(directory), show_progress=False, num_kv_blocks=96, block_size=BLOCK_SIZE,
                    max_num_batched_tokens=24, max_num_seqs=8)
    return LLM(EngineConfig(**{**settings, **overrides}))


def test_logits_match_transformers_every_step(family: tuple[str, Path]) -> None:
    architecture, directory = family
    reference = _reference(directory)
    llm = _llm(directory)
    rec = run(llm, PROMPTS, NEW_TOKENS)
    assert rec.mixed_steps > 0 and rec.continued_chunks > 0, "the batch never mixed decodes with chunked prefills"
    assert rec.long_chunks > 0, "no chunk took the reference prefill path"
    for request_id, prompt in PROMPTS.items():
        ours = torch.stack(rec.logits[request_id])
        assert ours.shape[0] == NEW_TOKENS
        theirs = reference_logits(reference, prompt, rec.logits[request_id])
        torch.testing.assert_close(ours, theirs, atol=LOGITS_ATOL, rtol=0, msg=lambda m, r=request_id: f"{r}: {m}")

    # The windows matter: without them transformers' logits of the longest sequence differ far beyond the tolerance.
    global_reference = _reference(directory, sliding_window=4096)
    long_logits = rec.logits["long"]
    unwindowed = reference_logits(global_reference, PROMPTS["long"], long_logits)
    assert (unwindowed - torch.stack(long_logits)).abs().max() > 20 * LOGITS_ATOL

    blocks = llm.engine.block_manager
    if architecture == "mistral":
        # Every layer windowed: a decoding sequence holds only the blocks its window spans, plus the next one.
        assert blocks.sliding_window == WINDOW and blocks.num_released > 0
        most = -(-(WINDOW - 1) // BLOCK_SIZE) + 2
        assert rec.max_held["short"] <= most, rec.max_held
        assert rec.max_held["long"] < -(-(len(PROMPTS["long"]) + NEW_TOKENS) // BLOCK_SIZE)
    else:
        # Gemma's global layers read every block: none may be released before its sequence ends.
        assert blocks.sliding_window == 0 and blocks.num_released == 0

    # A prompt continuing the long request's output hits the prefix cache, through blocks Mistral released
    # mid-decode, and the state restored equals a cold run's: transformers' logits again.
    full = greedy_sequence(PROMPTS["long"], long_logits)
    follow_up = {"follow-up": [*full[:48], 7, 8, 9]}
    hits_before = llm.engine.scheduler.prefix_cache_hits
    rec = run(llm, follow_up, 10)
    assert llm.engine.scheduler.prefix_cache_hits - hits_before == 48
    if architecture == "mistral":  # the hit pins only the blocks inside the window of its first computed token
        assert rec.max_held["follow-up"] <= most, rec.max_held
    theirs = reference_logits(reference, follow_up["follow-up"], rec.logits["follow-up"])
    torch.testing.assert_close(torch.stack(rec.logits["follow-up"]), theirs, atol=LOGITS_ATOL, rtol=0)


def test_released_blocks_return_to_the_pool_during_a_long_decode(tmp_path: Path) -> None:
    """Two Mistral sequences that would need 20 blocks of a 12-block pool run side by side without a preemption:
    blocks behind the window go back to the pool as they decode, and each table keeps NO_BLOCK where they were
    (entries the kernels never read)."""
    directory = write_tiny_checkpoint(tmp_path / "mistral", architecture="mistral", seed=1)
    llm = _llm(directory, num_kv_blocks=12, enable_prefix_caching=False)
    engine = llm.engine
    params = SamplingParams(max_tokens=60, temperature=0, ignore_eos=True)
    prompts = {"a": PROMPTS["mid"], "b": PROMPTS["short"]}
    assert sum(-(-(len(p) + 60) // BLOCK_SIZE) for p in prompts.values()) > 12
    for request_id, prompt in prompts.items():
        engine.add_request(EngineRequest(request_id, prompt, params))
    seen_released = False
    while engine.has_unfinished_requests():
        engine.step()
        for request_id in prompts:
            seq = engine.scheduler.get(request_id)
            if seq is not None and seq.block_table:
                seen_released |= NO_BLOCK in seq.block_table
                assert engine.block_manager.num_held(seq) <= 4
    assert seen_released
    assert engine.scheduler.num_preemptions == 0
    assert engine.block_manager.num_free_blocks == 12


@pytest.mark.slow  # inductor compiles two engines' graphs: minutes on a small shared CPU
def test_compiled_gemma2_matches_eager(tmp_path: Path) -> None:
    """The compiled decoder (``engine.worker.compilation``) passes each layer's window and soft-cap through its opaque
    attention operator and soft-caps the compiled LM head's logits: the eager engine's tokens and logprobs."""
    directory = write_tiny_checkpoint(tmp_path / "gemma2", architecture="gemma2", seed=2)
    params = SamplingParams(max_tokens=16, temperature=0, ignore_eos=True, logprobs=5)
    prompts = list(PROMPTS.values())
    eager = _llm(directory).generate(prompts, params)
    compiled = _llm(directory, compile_model=True).generate(prompts, params)
    assert [r.token_ids for r in compiled] == [r.token_ids for r in eager]
    for c, e in zip(compiled, eager, strict=True):
        for c_lp, e_lp in zip(c.logprobs, e.logprobs, strict=True):
            assert c_lp.logprob == pytest.approx(e_lp.logprob, abs=1e-4)


def test_prompt_lookup_speculation_keeps_mistral_greedy_outputs(tmp_path: Path) -> None:
    """With every layer windowed and RoPE relative, a token depends only on the last ``layers * (W - 1) + 1`` tokens:
    after ``S + O + S`` (``O`` the greedy continuation of ``S``, ``S`` longer than that span) the model writes ``O``
    again. Prompt lookup drafts exactly that, so draft verification rows (several queries of one sequence, each with
    its own window) run, drafts are accepted, blocks behind the window are released between them, and the greedy
    output is the one without speculation."""
    directory = write_tiny_checkpoint(tmp_path / "mistral", architecture="mistral", seed=3)
    span = WINDOW_DEFAULTS["mistral"].get("num_hidden_layers", 2) * (WINDOW - 1) + 1
    seed_text = [*PROMPTS["mid"], 901, 902, 903, 904]
    assert len(seed_text) >= span
    params = SamplingParams(max_tokens=30, temperature=0, ignore_eos=True)
    plain_llm = _llm(directory)
    continuation = plain_llm.generate([seed_text], params)[0].token_ids
    prompt = [*seed_text, *continuation, *seed_text]
    plain = plain_llm.generate([prompt], params)[0].token_ids
    assert plain == continuation  # the window bounds what the model sees
    speculative = _llm(directory, speculative_method="ngram", prompt_lookup_adaptive=False)
    assert speculative.generate([prompt], params)[0].token_ids == plain
    assert speculative.engine.stats_collector.spec_accepted_tokens > 0
    assert speculative.engine.block_manager.num_released > 0


def test_mistral_serves_a_sequence_longer_than_the_whole_pool(tmp_path: Path) -> None:
    """Under a shared window a sequence holds one window plus one step's tokens at a time, so the engine serves
    contexts past its pool (8 blocks, 64 tokens here): 102 tokens, logits equal transformers' at every step."""
    directory = write_tiny_checkpoint(tmp_path / "mistral", architecture="mistral", seed=4)
    llm = _llm(directory, num_kv_blocks=8)
    assert llm.engine.max_model_len > 8 * BLOCK_SIZE
    rec = run(llm, {"long": PROMPTS["mid"]}, 80)
    assert len(PROMPTS["mid"]) + 80 > 8 * BLOCK_SIZE
    theirs = reference_logits(_reference(directory), PROMPTS["mid"], rec.logits["long"])
    torch.testing.assert_close(torch.stack(rec.logits["long"]), theirs, atol=LOGITS_ATOL, rtol=0)
    assert llm.engine.scheduler.num_preemptions == 0


def test_a_pool_smaller_than_a_window_keeps_the_pool_bound(tmp_path: Path) -> None:
    directory = write_tiny_checkpoint(tmp_path / "mistral", architecture="mistral", seed=4)
    llm = _llm(directory, num_kv_blocks=4)  # fewer than one window plus a 24-token step needs
    assert llm.engine.max_model_len == 4 * BLOCK_SIZE
