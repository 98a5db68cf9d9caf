"""Mamba2 and the Nemotron-H hybrid (Mamba2 + attention + MoE + MLP layers) served end to end through ``LLM``,
against transformers on tiny random-weight checkpoints (``tiny_hybrid_models``).

Warden's logits for each prompt's last position and every decode step equal transformers' (one full forward of the
final sequence, no cache) within ``LOGITS_ATOL``, float32 on both sides, with chunked prefill (a 24-token step
budget), mixed decode + prefill batches, prefix-cache hits that restore the Mamba state from a snapshot, too few
state slots for every request, and recompute preemption. A hit whose state is not restored gives other logits (the
parity checks can fail), and another tenant's salt never hits. In bfloat16 the logits stay as close to float32's as
transformers' own bfloat16 model does (``BF16_ERROR_RATIO``).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import torch

from engine.config import EngineConfig
from engine.distributed.sharding import check_tensor_parallel
from engine.llm import LLM
from engine.llm_engine import LLMEngine
from engine.models.config import ModelArchConfig
from engine.scheduling.mamba_state import StateSlots

from .logit_parity import greedy_sequence, record_logits, reference_logits
from .tiny_hybrid_models import write_tiny_state_space_checkpoint

# float32; what remains is summation order (chunked scan vs transformers' scan, paged attention).
LOGITS_ATOL = 1e-4
BLOCK_SIZE = 8
PROMPTS = {
    "long": [(37 * i + 11) % 4000 + 50 for i in range(37)],  # prefilled in two chunks
    "short": [5, 17, 300, 9, 42],  # decodes beside the others' prefill chunks
    "mid": [(53 * i + 5) % 3000 + 70 for i in range(22)],
}
NEW_TOKENS = 12


@dataclass
class Recorder:
    """Per request, the float32 logits of each row it sampled; per step, whether decodes and prefill chunks
    shared it, whether a chunk continued an earlier one, and the most sequences running at once."""

    logits: dict[str, list[torch.Tensor]] = field(default_factory=dict)
    mixed_steps: int = 0
    continued_chunks: int = 0
    max_running: int = 0


def run(llm: LLM, prompts: dict[str, list[int]], new_tokens: int, salt: str | None = None,
        public_prefix_len: int = 0) -> Recorder:
    rec = Recorder()

    def observe(engine: LLMEngine, batch) -> None:
        rec.mixed_steps += 0 < batch.num_decodes < len(batch.seqs)
        rec.continued_chunks += sum(n > 1 and s.num_computed_tokens > 0
                                    for s, n in zip(batch.seqs, batch.num_new_tokens, strict=True))
        rec.max_running = max(rec.max_running, len(engine.scheduler.running))
        slots = [s.state_slot for s in engine.scheduler.running]
        assert len(set(slots)) == len(slots) and min(slots) >= 0, f"running sequences share state slots: {slots}"

    rec.logits = record_logits(llm, prompts, new_tokens, salt=salt, public_prefix_len=public_prefix_len,
                               on_step=observe)
    return rec


def assert_matches_reference(reference, prompts: dict[str, list[int]], rec: Recorder, new_tokens: int) -> None:
    for request_id, prompt in prompts.items():
        ours = torch.stack(rec.logits[request_id])
        assert ours.shape[0] == new_tokens
        theirs = reference_logits(reference, prompt, rec.logits[request_id])
        torch.testing.assert_close(ours, theirs, atol=LOGITS_ATOL, rtol=0, msg=lambda m, r=request_id: f"{r}: {m}")


@pytest.fixture(scope="module", params=["mamba2", "nemotron_h"])
def family(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path, object]:
    directory = tmp_path_factory.mktemp(request.param)
    return request.param, directory, write_tiny_state_space_checkpoint(directory, request.param)


@pytest.fixture(scope="module")
def mamba2(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, object]:
    directory = tmp_path_factory.mktemp("mamba2-salts")
    return directory, write_tiny_state_space_checkpoint(directory, "mamba2", seed=1)


def _llm(directory: Path, **overrides) -> LLM:
    settings = dict(model=str(directory), show_progress=False, block_size=BLOCK_SIZE, max_num_batched_tokens=24,
                    max_num_seqs=8, kv_cache_memory_mb=16)
    return LLM(EngineConfig(**{**settings, **overrides}))


def test_logits_match_transformers_with_chunks_mixed_batches_and_prefix_hits(family) -> None:
    _, directory, reference = family
    llm = _llm(directory)
    slots = llm.engine.block_manager.states
    assert isinstance(slots, StateSlots) and slots.num_snapshots > 0
    rec = run(llm, PROMPTS, NEW_TOKENS)
    assert rec.mixed_steps > 0 and rec.continued_chunks > 0, "the batch never mixed decodes with chunked prefills"
    assert_matches_reference(reference, PROMPTS, rec, NEW_TOKENS)
    assert llm.engine.scheduler.prefix_cache_hits == 0

    # A prompt continuing the long request's output hits 5 cached blocks; the state after them is restored from
    # their snapshot, and the logits from there on are transformers' again.
    follow_up = {"follow-up": [*greedy_sequence(PROMPTS["long"], rec.logits["long"])[:40], 7, 8, 9]}
    restored = slots.num_restored
    rec = run(llm, follow_up, NEW_TOKENS)
    assert llm.engine.scheduler.prefix_cache_hits == 40 and slots.num_restored == restored + 1
    assert_matches_reference(reference, follow_up, rec, NEW_TOKENS)
    warm = rec.logits["follow-up"]

    # The same prompt cold (no snapshots: no hit, the whole prompt computed) gives the same next-token logits.
    cold_llm = _llm(directory, num_state_snapshots=0)
    cold = run(cold_llm, follow_up, NEW_TOKENS).logits["follow-up"]
    assert cold_llm.engine.scheduler.prefix_cache_hits == 0
    torch.testing.assert_close(torch.stack(warm), torch.stack(cold), atol=LOGITS_ATOL, rtol=0)


# bfloat16: Warden's logits stay within this factor of the distance transformers' own bfloat16 model keeps from
# float32 on the same tokens (measured: 1.1x, Mamba2 0.075 vs 0.068 on logits up to 2.9; Nemotron-H 0.0071 vs 0.0066).
BF16_ERROR_RATIO = 1.5


def test_bfloat16_stays_as_close_to_float32_as_transformers_own_bfloat16(family) -> None:
    """The Mamba path in bfloat16 (SSM state kept in float32) against the float32 reference, with chunked prefill,
    mixed batches and a snapshot-restored prefix hit: no further from it than transformers' bfloat16 run is."""
    _, directory, reference = family
    reference_bf16 = copy.deepcopy(reference).to(torch.bfloat16)
    llm = _llm(directory, dtype="bfloat16")
    rec = run(llm, PROMPTS, NEW_TOKENS)
    follow_up = {"follow-up": [*greedy_sequence(PROMPTS["long"], rec.logits["long"])[:40], 7, 8, 9]}
    rec.logits.update(run(llm, follow_up, NEW_TOKENS).logits)
    assert llm.engine.block_manager.states is not None and llm.engine.block_manager.states.num_restored == 1
    ours_error = theirs_error = 0.0
    for request_id, prompt in {**PROMPTS, **follow_up}.items():
        exact = reference_logits(reference, prompt, rec.logits[request_id])
        ours_error = max(ours_error, (torch.stack(rec.logits[request_id]) - exact).abs().max().item())
        theirs = reference_logits(reference_bf16, prompt, rec.logits[request_id])
        theirs_error = max(theirs_error, (theirs - exact).abs().max().item())
    assert 0 < ours_error <= BF16_ERROR_RATIO * theirs_error, (ours_error, theirs_error)


SYSTEM = [(29 * i + 3) % 3500 + 60 for i in range(21)]  # a published system prompt: two whole blocks and 5 tokens


def test_a_public_system_prompt_ending_inside_a_prefill_step_is_a_prefix_hit(family) -> None:
    """A prompt that starts with a public prefix (a published system prompt) ending inside its one prefill step
    keeps one more snapshot, at the prefix's last whole block; another tenant's later prompt sharing only the system
    prompt resumes from it (with one snapshot at the step's last block end, it finds none and computes all), and
    its logits are transformers' and a cold run's."""
    _, directory, reference = family
    llm = _llm(directory, max_num_batched_tokens=64)
    scheduler, slots = llm.engine.scheduler, llm.engine.block_manager.states
    assert slots is not None
    first = {"first": [*SYSTEM, *[(31 * i + 7) % 3000 + 90 for i in range(30)]]}  # 51 tokens, one step
    run(llm, first, 2, salt="tenant-a", public_prefix_len=len(SYSTEM))
    assert slots.num_snapshots_written == 2  # after 16 tokens (the public prefix's blocks) and 48 (the step's end)
    later = {"later": [*SYSTEM, 500, 600, 700, 800, 900]}
    rec = run(llm, later, NEW_TOKENS, salt="tenant-b", public_prefix_len=len(SYSTEM))
    assert scheduler.prefix_cache_hits == 2 * BLOCK_SIZE and slots.num_restored == 1
    assert_matches_reference(reference, later, rec, NEW_TOKENS)
    cold_llm = _llm(directory, max_num_batched_tokens=64, num_state_snapshots=0)
    cold = run(cold_llm, later, NEW_TOKENS, salt="tenant-b", public_prefix_len=len(SYSTEM)).logits["later"]
    assert cold_llm.engine.scheduler.prefix_cache_hits == 0
    torch.testing.assert_close(torch.stack(rec.logits["later"]), torch.stack(cold), atol=LOGITS_ATOL, rtol=0)

    # Outside a public prefix a step keeps its last block end only: a prompt sharing 16 tokens of a private one
    # finds no snapshot.
    private = _llm(directory, max_num_batched_tokens=64)
    run(private, first, 2, salt="tenant-a")
    assert private.engine.block_manager.states is not None
    assert private.engine.block_manager.states.num_snapshots_written == 1
    run(private, later, 2, salt="tenant-a")
    assert private.engine.scheduler.prefix_cache_hits == 0


def test_a_hit_that_does_not_restore_the_state_gives_other_logits(mamba2, monkeypatch) -> None:
    """The parity checks can fail: a hit that keeps whatever its slot last held (the restore skipped) resumes from
    the wrong state, and its logits leave transformers' by far more than the tolerance."""
    directory, reference = mamba2
    llm = _llm(directory)
    rec = run(llm, {"first": PROMPTS["long"]}, 4)
    monkeypatch.setattr(StateSlots, "restore", lambda self, seq, block: None)
    prompt = {"again": [*PROMPTS["long"][:32], 7, 8, 9]}
    rec = run(llm, prompt, 4)
    assert llm.engine.scheduler.prefix_cache_hits == 32
    theirs = reference_logits(reference, prompt["again"], rec.logits["again"])
    assert (torch.stack(rec.logits["again"]) - theirs).abs().max() > 20 * LOGITS_ATOL


def test_another_tenants_salt_never_hits(mamba2) -> None:
    directory, reference = mamba2
    llm = _llm(directory)
    scheduler, slots = llm.engine.scheduler, llm.engine.block_manager.states
    assert slots is not None
    prompt = {"p": PROMPTS["long"]}
    first = run(llm, prompt, 4, salt="tenant-a")
    assert scheduler.prefix_cache_hits == 0
    for other in ("tenant-b", None):
        other_run = run(llm, prompt, 4, salt=other)
        assert scheduler.prefix_cache_hits == 0 and slots.num_restored == 0
        torch.testing.assert_close(torch.stack(other_run.logits["p"]), torch.stack(first.logits["p"]),
                                   atol=LOGITS_ATOL, rtol=0)
    again = run(llm, prompt, 4, salt="tenant-a")
    assert scheduler.prefix_cache_hits == 32 and slots.num_restored == 1
    assert_matches_reference(reference, prompt, again, 4)


def test_sequences_wait_for_a_state_slot_and_never_share_one(mamba2) -> None:
    """Two live slots for five requests: at most two run at once (the recorder also checks no two running
    sequences hold one slot), the others wait, and every request's logits are still transformers'."""
    directory, reference = mamba2
    llm = _llm(directory, num_state_slots=2)
    prompts = {**PROMPTS, "fourth": [9, 8, 7, 6, 5, 4, 3, 200, 100], "fifth": PROMPTS["mid"][::-1]}
    rec = run(llm, prompts, 6)
    assert rec.max_running == 2
    assert_matches_reference(reference, prompts, rec, 6)
    assert llm.engine.block_manager.states is not None and llm.engine.block_manager.states.num_free_slots == 2


def test_preemption_recomputes_or_restores_the_state(family) -> None:
    """A KV pool too small for the three requests at once: sequences are preempted (their slots freed) and
    resume from a snapshot of their own committed blocks or from zero; logits stay transformers'."""
    _, directory, reference = family
    llm = _llm(directory, num_kv_blocks=9)
    rec = run(llm, PROMPTS, NEW_TOKENS)
    assert llm.engine.scheduler.num_preemptions > 0
    assert_matches_reference(reference, PROMPTS, rec, NEW_TOKENS)


@pytest.fixture(scope="module")
def wide_chunk(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, object]:
    """A Nemotron-H whose scan chunk (32) is above the default block size, as real checkpoints' (128) are."""
    directory = tmp_path_factory.mktemp("nemotron-h-chunk32")
    return directory, write_tiny_state_space_checkpoint(directory, "nemotron_h", chunk_size=WIDE_CHUNK)


WIDE_CHUNK = 32


def test_an_unset_block_size_is_raised_to_the_scan_chunk(wide_chunk, capfd) -> None:
    """block_size left unset with prefix caching on: the engine serves with 32-token blocks and says so at start;
    logits are transformers' through chunked prefill (chunk ends off block ends) and a prefix hit that restores
    the state from a snapshot, and equal a cold run's."""
    directory, reference = wide_chunk
    config = dict(model=str(directory), max_num_batched_tokens=48, max_num_seqs=8, kv_cache_memory_mb=16)
    llm = LLM(EngineConfig(**config, show_progress=True))
    assert f"warden: KV blocks: {WIDE_CHUNK} tokens (raised from 16" in capfd.readouterr().err
    assert llm.engine.config.block_size == llm.engine.block_manager.block_size == WIDE_CHUNK
    prompts = {"long": [(37 * i + 11) % 4000 + 50 for i in range(70)], "short": PROMPTS["short"]}
    rec = run(llm, prompts, NEW_TOKENS)
    assert rec.continued_chunks > 0 and llm.engine.scheduler.prefix_cache_hits == 0
    assert_matches_reference(reference, prompts, rec, NEW_TOKENS)

    slots = llm.engine.block_manager.states
    assert slots is not None and slots.num_restored == 0
    follow_up = {"follow-up": [*greedy_sequence(prompts["long"], rec.logits["long"])[:70], 7, 8, 9]}
    rec = run(llm, follow_up, NEW_TOKENS)
    assert llm.engine.scheduler.prefix_cache_hits == 2 * WIDE_CHUNK and slots.num_restored == 1
    assert_matches_reference(reference, follow_up, rec, NEW_TOKENS)
    cold_llm = LLM(EngineConfig(**config, show_progress=False, enable_prefix_caching=False))
    assert cold_llm.engine.block_manager.block_size == 16  # no snapshots, no constraint: the default stays
    cold = run(cold_llm, follow_up, NEW_TOKENS).logits["follow-up"]
    torch.testing.assert_close(torch.stack(rec.logits["follow-up"]), torch.stack(cold), atol=LOGITS_ATOL, rtol=0)


def test_an_explicit_block_size_the_chunk_does_not_divide_is_refused_naming_both(wide_chunk) -> None:
    directory, _ = wide_chunk
    with pytest.raises(ValueError, match=f"block_size 16 is not a multiple of the model's Mamba2 chunk_size "
                                         f"{WIDE_CHUNK}"):
        _llm(directory, block_size=16)
    assert _llm(directory, block_size=2 * WIDE_CHUNK).engine.block_manager.block_size == 2 * WIDE_CHUNK


def test_state_slots_and_snapshots_set_explicitly_size_the_pools(mamba2) -> None:
    directory, _ = mamba2
    states = _llm(directory, num_state_slots=3, num_state_snapshots=5).engine.block_manager.states
    assert states is not None and (states.num_live, states.num_snapshots) == (3, 5)
    with pytest.raises(ValueError, match="more than kv_cache_memory_mb 16"):
        _llm(directory, num_state_snapshots=10**6)


def test_what_a_recurrent_state_cannot_do_is_refused(mamba2) -> None:
    directory, _ = mamba2
    with pytest.raises(ValueError, match="multiple of the model's Mamba2 chunk_size 8"):
        _llm(directory, block_size=4)
    _llm(directory, block_size=4, enable_prefix_caching=False)  # no snapshots, no constraint
    with pytest.raises(ValueError, match="speculative decoding is not supported"):
        _llm(directory, speculative_method="ngram")
    import json

    arch = ModelArchConfig.from_hf(json.loads((directory / "config.json").read_text()))
    with pytest.raises(ValueError, match="tensor parallelism is not supported for 'mamba2'"):
        check_tensor_parallel(arch, 2)
