"""engine.scheduling.mamba_state's bookkeeping with the block manager, without a model: live slots taken at admission
and given back on free, snapshots keyed by the KV block hash (salted per tenant), a hit cut back to the last block
with a snapshot, the pool's LRU eviction, and a snapshot dropped when its KV block is handed out again."""

from __future__ import annotations

import pytest
import torch

from engine.config import EngineConfig
from engine.layers.mamba2 import BoundarySnapshot, Mamba2MixerConfig, Mamba2StateCache
from engine.sampling_params import SamplingParams
from engine.scheduling.block_manager import BlockManager
from engine.scheduling.mamba_state import BlockSizeChoice, StateSlots, choose_block_size, plan_state_memory
from engine.scheduling.sequence import Sequence

BLOCK = 4
MIXER = Mamba2MixerConfig(hidden_size=8, num_heads=2, head_dim=4, state_size=4, n_groups=1, conv_kernel=4,
                          chunk_size=BLOCK, norm_eps=1e-5)


def manager(num_blocks: int = 16, live: int = 2, snapshots: int = 4) -> BlockManager:
    caches = [Mamba2StateCache(MIXER, live + snapshots) for _ in range(2)]
    return BlockManager(num_blocks, BLOCK, True, states=StateSlots(caches, live, snapshots, BLOCK))


def seq(name: str, tokens: list[int], salt: str | None = None) -> Sequence:
    return Sequence(name, tokens, SamplingParams(max_tokens=4), cache_salt=salt)


def compute(blocks: BlockManager, s: Sequence, value: float, chunk: int | None = None) -> None:
    """What the steps that compute the rest of ``s``, ``chunk`` tokens each (None: one step), do: each forward
    reports the state at every block end it crosses (every element ``value + position``), the engine stages them
    and commits the blocks."""
    states = blocks.states
    assert states is not None
    while s.num_computed_tokens < len(s):
        start = s.num_computed_tokens
        end = min(start + (chunk or len(s)), len(s))
        first_end = (start // BLOCK + 1) * BLOCK
        layers = [[BoundarySnapshot(0, p, torch.full((MIXER.conv_dim, 3), value + p),
                                    torch.full((2, 4, 4), value + p)) for p in range(first_end, end + 1, BLOCK)]
                  for _ in states.caches]
        states.stage([s], layers)
        s.num_computed_tokens = end
        blocks.commit_computed_blocks(s)


def admit(blocks: BlockManager, s: Sequence) -> list[int]:
    hits = blocks.find_cached_prefix(s)
    assert blocks.admit(s, hits, len(s))
    return hits


def test_slots_are_taken_at_admission_and_given_back() -> None:
    blocks = manager(live=2)
    a, b, c = seq("a", [1, 2, 3]), seq("b", [4, 5, 6]), seq("c", [7, 8, 9])
    admit(blocks, a)
    admit(blocks, b)
    assert {a.state_slot, b.state_slot} == {0, 1} and not blocks.has_state_slot()
    assert not blocks.admit(c, [], len(c)) and c.state_slot == -1 and not c.block_table  # all or nothing
    blocks.free_seq(a)
    assert a.state_slot == -1 and blocks.has_state_slot()
    admit(blocks, c)
    assert c.state_slot == 0


def test_a_hit_restores_the_snapshot_of_its_last_block_and_stops_where_snapshots_stop() -> None:
    blocks = manager()
    states = blocks.states
    assert states is not None
    first = seq("first", list(range(1, 14)))  # 3 full blocks, one step each: a snapshot at each step's end
    admit(blocks, first)
    compute(blocks, first, 100.0, chunk=BLOCK)
    assert len(states.snapshots) == states.num_snapshots_written == 3
    hashes = list(first.block_hashes)
    blocks.free_seq(first)

    again = seq("again", [*range(1, 14), 50])
    assert len(admit(blocks, again)) == 3
    for cache in states.caches:  # the state after 12 tokens
        assert torch.equal(cache.ssm[again.state_slot], torch.full((2, 4, 4), 112.0))
        assert torch.equal(cache.conv[again.state_slot], torch.full((MIXER.conv_dim, 3), 112.0))
    blocks.free_seq(again)

    # The KV of all three blocks is cached, the snapshot after the third is gone: the hit ends at block 2.
    states.forget(hashes[2])
    third = seq("third", [*range(1, 14), 60])
    assert len(admit(blocks, third)) == 2
    assert torch.equal(states.caches[0].ssm[third.state_slot], torch.full((2, 4, 4), 108.0))


def test_a_step_keeps_only_the_last_block_end_it_reached() -> None:
    """Prefilled in one 13-token step: one snapshot, after block 3 (the prompt's last full block). A prompt that
    shares it resumes from there; one that shares only blocks 1-2 finds their KV but no state, so it hits nothing.
    In 8-token chunks: a snapshot at each chunk's end, so the 2-block prompt hits too."""
    blocks = manager()
    states = blocks.states
    assert states is not None
    first = seq("first", list(range(1, 14)))
    admit(blocks, first)
    compute(blocks, first, 100.0)
    assert states.num_snapshots_written == 1 and len(first.block_hashes) == 3
    blocks.free_seq(first)
    assert len(blocks.find_cached_prefix(seq("same", [*range(1, 14), 50]))) == 3
    assert blocks.find_cached_prefix(seq("shorter", [*range(1, 9), 70, 71])) == []

    chunked = seq("chunked", list(range(200, 214)))
    admit(blocks, chunked)
    compute(blocks, chunked, 0.0, chunk=2 * BLOCK)  # steps end at 8 and at 14 (last block end 12)
    assert states.num_snapshots_written == 3
    blocks.free_seq(chunked)
    hits = blocks.find_cached_prefix(seq("two-blocks", [*range(200, 208), 70, 71]))
    assert len(hits) == 2


def test_another_salt_finds_neither_kv_nor_state() -> None:
    blocks = manager()
    a = seq("a", list(range(1, 10)), salt="tenant-a")
    admit(blocks, a)
    compute(blocks, a, 0.0)
    blocks.free_seq(a)
    assert blocks.find_cached_prefix(seq("b", list(range(1, 10)), salt="tenant-b")) == []
    assert blocks.find_cached_prefix(seq("n", list(range(1, 10)))) == []
    assert len(blocks.find_cached_prefix(seq("a2", list(range(1, 10)), salt="tenant-a"))) == 2


def test_the_pool_evicts_least_recently_used_and_with_the_kv_block() -> None:
    blocks = manager(num_blocks=6, snapshots=2)
    states = blocks.states
    assert states is not None
    a = seq("a", list(range(1, 10)))  # 2 full blocks in 2 steps: 2 snapshots fill the pool
    admit(blocks, a)
    compute(blocks, a, 0.0, chunk=BLOCK)
    blocks.free_seq(a)
    b = seq("b", list(range(20, 25)))  # 1 more: the oldest (a's first block) goes
    admit(blocks, b)
    compute(blocks, b, 0.0, chunk=BLOCK)
    blocks.free_seq(b)
    assert states.num_snapshot_evictions == 1 and len(states.snapshots) == 2
    hits = blocks.find_cached_prefix(seq("a2", list(range(1, 10))))
    assert len(hits) == 2  # the snapshot after block 2 is still there: block 1's loss does not matter
    # Fill the KV pool with fresh blocks: cached blocks are handed out again, and their snapshots go with them.
    big = seq("big", list(range(100, 124)))
    admit(blocks, big)
    assert not states.snapshots and blocks.num_evictions > 0


def test_the_budget_goes_to_live_slots_first() -> None:
    config = EngineConfig(kv_cache_memory_mb=1, max_num_seqs=8)
    plan = plan_state_memory(config, slot_bytes=2**17, block_bytes=2**10, max_len=64, block_size=16)
    assert plan.num_live == 8 and plan.num_snapshots == 0  # 8 x 128 KB fill the whole MB
    plan = plan_state_memory(EngineConfig(kv_cache_memory_mb=2, max_num_seqs=8), 2**17, 2**10, 64, 16)
    assert plan.num_live == 8 and plan.num_snapshots == 4 and plan.num_blocks == 512
    plan = plan_state_memory(EngineConfig(kv_cache_memory_mb=1, max_num_seqs=64), 2**17, 0, 64, 16)
    assert plan.num_live == 8 and plan.num_blocks == 8 * 64 // 16  # attention-free: blocks cost nothing
    plan = plan_state_memory(EngineConfig(enable_prefix_caching=False, num_state_slots=3), 2**17, 2**10, 64, 16)
    assert plan.num_live == 3 and plan.num_snapshots == 0
    with pytest.raises(ValueError, match="num_state_snapshots"):
        EngineConfig(num_state_snapshots=-1)


def test_the_block_size_is_a_power_of_two_multiple_of_the_scan_chunk_under_prefix_caching() -> None:
    raised = choose_block_size(None, 256, True)  # a real Mamba2 checkpoint (Nemotron-H: 128)
    assert raised.block_size == 256 and raised.reason is not None and "raised from 16" in raised.reason
    assert choose_block_size(None, 128, True).block_size == 128
    assert choose_block_size(None, 8, True) == BlockSizeChoice(16)  # the default already ends chunks
    assert choose_block_size(None, None, True) == BlockSizeChoice(16)  # no Mamba2 layers
    assert choose_block_size(None, 256, False) == BlockSizeChoice(16)  # no snapshots: no constraint
    assert choose_block_size(512, 256, True) == BlockSizeChoice(512)
    assert choose_block_size(16, 256, False) == BlockSizeChoice(16)
    with pytest.raises(ValueError, match="block_size 16 is not a multiple of the model's Mamba2 chunk_size 256"):
        choose_block_size(16, 256, True)
    with pytest.raises(ValueError, match="chunk_size 48 is not a power of two"):
        choose_block_size(None, 48, True)
    assert choose_block_size(None, 48, False) == BlockSizeChoice(16)


def test_state_counts_set_explicitly_are_checked_against_the_budget_and_the_batch() -> None:
    plan = plan_state_memory(EngineConfig(kv_cache_memory_mb=2, num_state_slots=3, num_state_snapshots=5), 2**17,
                             2**10, 64, 16)
    assert (plan.num_live, plan.num_snapshots) == (3, 5) and plan.num_blocks == (2 * 2**20 - 8 * 2**17) // 2**10
    with pytest.raises(ValueError, match=r"3 live state slots \+ 14 snapshots of 0.12 MB each need 3 MB"):
        plan_state_memory(EngineConfig(kv_cache_memory_mb=2, num_state_slots=3, num_state_snapshots=14), 2**17,
                          2**10, 64, 16)
    # Without prefix caching the snapshots are not taken, so they cost nothing.
    plan = plan_state_memory(EngineConfig(kv_cache_memory_mb=2, num_state_slots=3, num_state_snapshots=14,
                                          enable_prefix_caching=False), 2**17, 2**10, 64, 16)
    assert plan.num_snapshots == 0
    with pytest.raises(ValueError, match="num_state_slots must be between 1 and max_num_seqs"):
        EngineConfig(num_state_slots=9, max_num_seqs=8)
    with pytest.raises(ValueError, match="num_state_slots must be between 1 and max_num_seqs"):
        EngineConfig(num_state_slots=0)
