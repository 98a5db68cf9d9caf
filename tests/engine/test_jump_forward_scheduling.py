"""Jump-forward leaves a running sequence with several known-but-uncomputed tokens (its sampled token plus those the
grammar forced). The scheduler must treat them as a prefill chunk: not a decode, charged to the token budget, split
when the budget is short, with blocks for all of them, and the prefix cache must index them once computed."""

from __future__ import annotations

from engine.sampling_params import SamplingParams
from engine.scheduling.block_manager import BlockManager
from engine.scheduling.scheduler import ScheduledBatch, Scheduler
from engine.scheduling.sequence import Sequence

BLOCK = 4


def _run(scheduler: Scheduler, blocks: BlockManager) -> ScheduledBatch:
    """One step as the engine runs it: schedule, then mark the scheduled tokens computed and index full blocks."""
    batch = scheduler.schedule()
    for seq, n in zip(batch.seqs, batch.num_new_tokens, strict=True):
        seq.num_computed_tokens += n
        blocks.commit_computed_blocks(seq)
    return batch


def test_forced_tokens_are_a_chunk_charged_to_the_budget_and_cached_once_computed() -> None:
    blocks = BlockManager(num_blocks=16, block_size=BLOCK)
    scheduler = Scheduler(blocks, max_num_seqs=4, max_num_batched_tokens=4, fair=False)
    decoding = Sequence("decoding", [1, 2, 3], SamplingParams())
    forced = Sequence("forced", [10, 11, 12], SamplingParams())
    scheduler.add(decoding)
    scheduler.add(forced)
    _run(scheduler, blocks)  # 3 + 1 of the budget of 4: both prompts start
    _run(scheduler, blocks)
    assert forced.num_computed_tokens == 3 and decoding.num_computed_tokens == 3
    decoding.token_ids.append(4)  # both sample a token ...
    forced.token_ids.extend([13, 20, 21, 22, 23])  # ... and the grammar forces four more after forced's

    batch = _run(scheduler, blocks)
    # The decode goes first (one token); the five uncomputed tokens get the rest of the budget as a prefill chunk.
    assert batch.seqs == [decoding, forced] and batch.num_new_tokens == [1, 3] and batch.num_decodes == 1
    assert forced.num_computed_tokens == 6 < len(forced)  # partial: nothing is sampled for it this step
    assert len(forced.block_table) * BLOCK >= 6
    decoding.token_ids.append(5)

    batch = _run(scheduler, blocks)
    assert batch.num_new_tokens == [1, 2] and forced.num_computed_tokens == len(forced) == 8
    assert len(forced.block_table) == 2 and len(forced.block_hashes) == 2  # both full blocks indexed

    # A later request starting with the same tokens reuses the blocks that hold the forced tokens.
    twin = Sequence("twin", [10, 11, 12, 13, 20, 21, 22, 23, 30], SamplingParams())
    assert blocks.find_cached_prefix(twin) == forced.block_table

    scheduler.finish(forced, "stop")
    scheduler.finish(decoding, "stop")
    assert blocks.num_free_blocks == blocks.num_blocks
