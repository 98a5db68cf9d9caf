"""flatten_step: a step's host tensors against a per-token reference written from the layout's definition
(kernels.attention_metadata): position ``starts[i] + j`` of sequence i is stored at slot
``table[position // block_size] * block_size + position % block_size``."""

from __future__ import annotations

import random

import torch

from engine.scheduling.block_manager import NO_BLOCK
from engine.worker.model_runner import flatten_step


def reference(starts: list[int], q_lens: list[int], tables: list[list[int]], block_size: int
              ) -> tuple[list[int], list[int], list[list[int]]]:
    positions, slots = [], []
    for start, n, table in zip(starts, q_lens, tables, strict=True):
        for position in range(start, start + n):
            positions.append(position)
            slots.append(table[position // block_size] * block_size + position % block_size)
    width = max(len(t) for t in tables)
    return positions, slots, [t + [0] * (width - len(t)) for t in tables]


def random_step(rng: random.Random, block_size: int) -> tuple[list[int], list[int], list[list[int]], int]:
    """Decodes first, then prefill chunks that start anywhere in a block and may cross several."""
    num_decodes, num_prefills = rng.randint(0, 6), rng.randint(0, 3)
    if num_decodes + num_prefills == 0:
        num_decodes = 1
    starts, q_lens, tables = [], [], []
    pool = rng.sample(range(10_000), 4_000)  # distinct physical blocks, in no order
    for i in range(num_decodes + num_prefills):
        n = 1 if i < num_decodes else rng.randint(1, 5 * block_size)
        start = rng.randint(0, 40 * block_size)
        blocks = -(-(start + n) // block_size)
        table = [pool.pop() for _ in range(blocks)]
        if rng.random() < 0.3 and start >= block_size:  # blocks behind a sliding window, released
            table[0] = NO_BLOCK
        starts.append(start)
        q_lens.append(n)
        tables.append(table)
    return starts, q_lens, tables, num_decodes


def test_flatten_step_matches_the_per_token_layout() -> None:
    rng = random.Random(7)
    for block_size in (1, 16, 64):
        for _ in range(60):
            starts, q_lens, tables, num_decodes = random_step(rng, block_size)
            ids = [rng.randrange(50_000) for _ in range(sum(q_lens))]
            sample = sorted(rng.sample(range(len(ids)), k=min(len(ids), 3)))
            step = flatten_step(ids, starts, q_lens, tables, num_decodes, block_size, sample)
            positions, slots, padded = reference(starts, q_lens, tables, block_size)
            meta = step.meta
            assert step.input_ids.dtype == torch.long and step.input_ids.tolist() == ids
            assert step.positions.dtype == torch.long and step.positions.tolist() == positions
            assert meta.slot_mapping.dtype == torch.int64 and meta.slot_mapping.tolist() == slots
            assert meta.block_tables.dtype == torch.int32 and meta.block_tables.tolist() == padded
            seq_lens = [s + n for s, n in zip(starts, q_lens, strict=True)]
            assert meta.seq_lens.dtype == torch.int32 and meta.seq_lens.tolist() == seq_lens
            assert meta.query_start_loc.dtype == torch.int32
            assert meta.query_start_loc.tolist() == [0, *[sum(q_lens[: i + 1]) for i in range(len(q_lens))]]
            assert (meta.num_decodes, meta.max_query_len, meta.max_seq_len) == (num_decodes, max(q_lens),
                                                                                max(seq_lens))
            assert meta.max_decode_seq_len == max(seq_lens[:num_decodes], default=0)
            assert step.sample_rows is not None and step.sample_rows.tolist() == sample


def test_a_step_that_samples_nothing_has_no_sample_rows() -> None:
    step = flatten_step([1, 2, 3], [0], [3], [[4]], 0, 16, [])
    assert step.sample_rows is None
    assert step.meta.slot_mapping.tolist() == [64, 65, 66]
