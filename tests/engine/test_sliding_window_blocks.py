"""The block manager with a sliding window every layer shares (Mistral): blocks behind the window of a sequence's
next query are released while it runs and stay findable in the prefix cache; a prefix hit pins only the blocks
inside the window of its first computed token; without a shared window (Gemma's global layers) nothing moves."""

from __future__ import annotations

from engine.sampling_params import SamplingParams
from engine.scheduling.block_manager import NO_BLOCK, BlockManager
from engine.scheduling.sequence import Sequence

BS, WINDOW = 4, 6


def computed(blocks: BlockManager, request_id: str, tokens: list[int]) -> Sequence:
    """A sequence admitted without hits whose ``tokens`` are all in the cache (committed, as after its step)."""
    seq = Sequence(request_id, tokens, SamplingParams())
    assert blocks.admit(seq, [], len(tokens))
    seq.num_computed_tokens = len(tokens)
    blocks.commit_computed_blocks(seq)
    return seq


def test_blocks_behind_the_window_are_released_and_stay_cached() -> None:
    blocks = BlockManager(16, BS, sliding_window=WINDOW)
    tokens = list(range(100, 130))  # 30 tokens: 8 blocks, the last one partial
    seq = computed(blocks, "a", tokens)
    original = list(seq.block_table)
    assert blocks.num_free_blocks == 8
    # The next query (position 30) sees keys 25..30: blocks 0-5 (positions 0..23) are behind it, block 6 is not.
    assert blocks.release_out_of_window(seq) == 6
    assert seq.block_table[:6] == [NO_BLOCK] * 6 and NO_BLOCK not in seq.block_table[6:]
    assert blocks.num_free_blocks == 14 and blocks.num_held(seq) == 2
    assert blocks.release_out_of_window(seq) == 0  # idempotent: the released prefix is not walked again
    seq.num_computed_tokens = 33  # three decode steps later: block 6 (positions 24..27) leaves the window
    assert blocks.release_out_of_window(seq) == 1 and blocks.num_held(seq) == 1
    # Released blocks keep their contents' keys (a global model could hit them all); a windowed prompt with the same
    # prefix needs only the blocks inside the window of its first token to compute (position 28: keys 23..28).
    assert all(blocks.hashes[b] is not None and blocks.cached[blocks.hashes[b]] == b for b in original[:7])
    follow = Sequence("b", [*tokens, 1, 2, 3], SamplingParams())
    assert blocks.find_cached_prefix(follow) == [NO_BLOCK] * 5 + original[5:7]
    blocks.free_seq(seq)
    assert blocks.num_free_blocks == 16


def test_a_prefix_hit_pins_only_the_blocks_inside_the_window() -> None:
    blocks = BlockManager(16, BS, sliding_window=WINDOW)
    tokens = list(range(200, 230))
    blocks.free_seq(computed(blocks, "a", tokens))
    follow = Sequence("b", [*tokens, 1, 2, 3], SamplingParams())
    hits = blocks.find_cached_prefix(follow)
    assert len(hits) == 7  # 28 cached tokens; the first to compute is position 28, which sees keys 23..28
    # Blocks 0-4 (positions 0..19) lie wholly before that window: they stay in the cache, unpinned.
    assert blocks.new_blocks_to_admit(hits, 33) == 2 + 2  # hits 5 and 6 out of the free list, one fresh block
    assert blocks.admit(follow, hits, 33)
    assert follow.block_table[:5] == [NO_BLOCK] * 5 and follow.block_table[5:7] == hits[5:]
    assert all(blocks.ref_counts[b] == 0 for b in hits[:5]) and all(blocks.ref_counts[b] == 1 for b in hits[5:])
    assert follow.num_computed_tokens == 28 and len(follow.block_hashes) == 7  # the chain continues from block 7
    follow.num_computed_tokens = 33
    blocks.commit_computed_blocks(follow)
    assert len(follow.block_hashes) == 8
    blocks.free_seq(follow)
    assert blocks.num_free_blocks == 16


def test_a_prefix_hit_needs_only_the_blocks_inside_the_window() -> None:
    """The head blocks of a cached prefix were handed to another sequence; the blocks inside the window of the
    first token to compute are still cached: a hit, the lost blocks' entries NO_BLOCK and their hashes rebuilt."""
    blocks = BlockManager(12, BS, sliding_window=WINDOW)
    tokens = list(range(400, 430))
    seq = computed(blocks, "a", tokens)
    original, hashes = list(seq.block_table), list(seq.block_hashes)
    blocks.release_out_of_window(seq)
    blocks.free_seq(seq)
    for block in reversed(original[:5]):  # the LRU hands the head blocks out next ...
        blocks.free.move_to_end(block, last=False)
    other = Sequence("other", list(range(900, 920)), SamplingParams())
    assert blocks.admit(other, [], 20) and other.block_table == original[:5]  # ... to another prompt
    follow = Sequence("b", [*tokens, 1, 2, 3], SamplingParams())
    hits = blocks.find_cached_prefix(follow)
    assert hits == [NO_BLOCK] * 5 + original[5:7]  # position 28 sees keys 23..28: blocks 5 and 6
    assert blocks.admit(follow, hits, 33)
    assert follow.block_table[:7] == hits and follow.block_hashes == hashes[:7]
    assert follow.num_computed_tokens == 28
    # Without a window the same cache state is a miss: block 0 is gone.
    assert BlockManager.find_cached_prefix(_without_window(blocks), Sequence("c", follow.token_ids,
                                                                             SamplingParams())) == []


def _without_window(blocks: BlockManager) -> BlockManager:
    blocks.sliding_window = 0
    return blocks


def test_without_a_shared_window_nothing_is_released_or_skipped() -> None:
    blocks = BlockManager(16, BS)  # what a model with any global layer gets
    tokens = list(range(300, 330))
    seq = computed(blocks, "a", tokens)
    assert blocks.release_out_of_window(seq) == 0 and blocks.num_held(seq) == 8
    blocks.free_seq(seq)
    follow = Sequence("b", [*tokens, 1], SamplingParams())
    hits = blocks.find_cached_prefix(follow)
    assert blocks.admit(follow, hits, 31)
    assert NO_BLOCK not in follow.block_table and all(blocks.ref_counts[b] == 1 for b in hits)
