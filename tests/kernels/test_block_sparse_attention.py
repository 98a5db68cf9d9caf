"""Block-sparse paged attention (``kernels.block_sparse``): the pattern's rules, the torch reference against a loop
written from the definition, and the C++ CPU kernel and the Triton kernel (interpreted on the CPU) against the
reference on mixed decode + prefill batches.

Skipping, not masking, is checked two ways: the kernels report how many key blocks each query block read, which
must be the pattern's count (``visited_key_blocks``), below the dense count; and the cache rows of every key block
no query of a sequence sees are overwritten with NaN, which a kernel that loaded and masked them would carry into
its output (0 x NaN).
"""

from __future__ import annotations

import dataclasses
from types import ModuleType

import pytest
import torch

import kernels.cpu
from kernels.attention_metadata import AttentionMetadata
from kernels.block_sparse import BlockSparsePattern, max_query_blocks, query_blocks, visited_key_blocks
from kernels.reference.block_sparse_attention import block_sparse_attention as reference
from kernels.reference.paged_attention import paged_attention as dense_reference
from tests.kernels.batch import PagedBatch, make_batch, naive_attention
from tests.kernels.conftest import TOLERANCE, Backend

CPU = torch.device("cpu")
SCALE = 0.3
P = BlockSparsePattern
# (kv_heads, group, head_dim, cache block, decode context lengths, prefill (query_len, seq_len) chunks, pattern)
CASES = {
    # decodes and chunks across many sparse blocks; a chunk continuing a cached prefix from inside a sparse block
    "mixed": (2, 3, 32, 8, [5, 40, 130], [(70, 70), (37, 150), (1, 17)], P(16, local_blocks=2, global_blocks=1,
                                                                           stride=3)),
    # prompts shorter than one sparse block (every pattern is dense there)
    "short-prompt": (1, 2, 16, 4, [3], [(5, 5), (9, 12)], P(16, local_blocks=1, global_blocks=0)),
    # local only (no global, no stride): a query sees its own block alone; sparse blocks of two cache blocks
    "own-block-only": (2, 2, 32, 16, [100], [(64, 200)], P(32, local_blocks=1, global_blocks=0)),
    # a prefix hit at a cache-block boundary in the middle of a sparse block; several global blocks and a stride
    "prefix-hit-mid-block": (1, 4, 64, 8, [], [(40, 120), (17, 33)], P(16, local_blocks=3, global_blocks=2,
                                                                     stride=4)),
}


def _batch(case: str, dtype: torch.dtype, device: torch.device = CPU, seed: int = 0) -> tuple[PagedBatch,
                                                                                                 BlockSparsePattern]:
    kv_heads, group, head_dim, block_size, decodes, prefills, pattern = CASES[case]
    b = make_batch(decodes, prefills, kv_heads=kv_heads, group=group, head_dim=head_dim, block_size=block_size,
                   dtype=dtype, device=device, seed=seed)
    return b, pattern


def _query_lens(meta: AttentionMetadata) -> list[int]:
    return (meta.query_start_loc[1:] - meta.query_start_loc[:-1]).tolist()


def naive(b: PagedBatch, scale: float, pattern: BlockSparsePattern, softcap: float = 0.0) -> torch.Tensor:
    """From the definition: the query at ``p`` sees key ``k`` when ``k <= p`` and
    ``pattern.sees(p // block, k // block)``."""
    return naive_attention(b, scale, lambda p, k: pattern.sees(p // pattern.block_size, k // pattern.block_size),
                           softcap)


def with_unseen_blocks_poisoned(b: PagedBatch, pattern: BlockSparsePattern) -> tuple[PagedBatch, int]:
    """A copy of ``b`` whose cache rows of every key block that no query of its sequence sees hold NaN (keys and
    values); how many key blocks that is."""
    meta, block_size = b.meta, b.k_cache.shape[1]
    k_cache, v_cache = b.k_cache.clone(), b.v_cache.clone()
    poisoned = 0
    for s, (seq_len, q_len) in enumerate(zip(meta.seq_lens.tolist(), _query_lens(meta), strict=True)):
        seen = {kb for qb in query_blocks(seq_len, q_len, pattern.block_size) for kb in pattern.key_blocks(qb)}
        for kb in range(-(-seq_len // pattern.block_size)):
            if kb in seen:
                continue
            poisoned += 1
            for pos in range(kb * pattern.block_size, min((kb + 1) * pattern.block_size, seq_len)):
                physical = int(meta.block_tables[s, pos // block_size])
                k_cache[physical, pos % block_size] = float("nan")
                v_cache[physical, pos % block_size] = float("nan")
    return dataclasses.replace(b, k_cache=k_cache, v_cache=v_cache), poisoned


def _visits(meta: AttentionMetadata, pattern: BlockSparsePattern, device: torch.device) -> torch.Tensor:
    return torch.zeros(meta.num_seqs, max_query_blocks(meta.max_query_len, pattern.block_size), dtype=torch.int64,
                       device=device)


def _expected_visits(meta: AttentionMetadata, pattern: BlockSparsePattern) -> list[list[int]]:
    width = max_query_blocks(meta.max_query_len, pattern.block_size)
    counts = visited_key_blocks(pattern, meta.seq_lens.tolist(), _query_lens(meta))
    return [row + [0] * (width - len(row)) for row in counts]


# --- the pattern --------------------------------------------------------------------------------------------------
def test_block_mask_follows_the_three_rules() -> None:
    pattern = P(16, local_blocks=2, global_blocks=1, stride=3)
    mask = pattern.block_mask(8, 8).int().tolist()
    assert mask == [
        [1, 0, 0, 0, 0, 0, 0, 0],
        [1, 1, 0, 0, 0, 0, 0, 0],
        [1, 1, 1, 0, 0, 0, 0, 0],  # block 2: global 0, local 1-2 (and strided 2)
        [1, 0, 1, 1, 0, 0, 0, 0],  # block 3: global 0, strided 2, local 2-3
        [1, 0, 1, 1, 1, 0, 0, 0],
        [1, 0, 1, 0, 1, 1, 0, 0],
        [1, 0, 1, 0, 0, 1, 1, 0],  # strided 2 and 5 (the last of each group of 3)
        [1, 0, 1, 0, 0, 1, 1, 1],
    ]
    assert [pattern.key_blocks(qb) for qb in range(8)] == [[k for k in range(8) if mask[qb][k]] for qb in range(8)]
    positions = torch.arange(8 * 16)
    token = pattern.token_mask(positions[:, None], positions[None, :])
    assert torch.equal(token, torch.tril(pattern.block_mask(8, 8).repeat_interleave(16, 0).repeat_interleave(16, 1)))


def test_pattern_edges() -> None:
    assert P(16, local_blocks=1, global_blocks=0).key_blocks(5) == [5]  # a query always sees its own block
    assert P(16, local_blocks=4, global_blocks=0).key_blocks(2) == [0, 1, 2]  # the window clipped at the start
    assert P(16, local_blocks=1, global_blocks=3).key_blocks(1) == [0, 1]  # global blocks never after the query
    local_only = P(16, local_blocks=8, global_blocks=0)
    assert local_only.covers_everything(8 * 16) and not local_only.covers_everything(9 * 16)
    assert P(16, local_blocks=8).covers_everything(9 * 16) and not P(16, local_blocks=8).covers_everything(10 * 16)
    assert P(16, local_blocks=1, global_blocks=0).covers_everything(16)  # a prompt of one block is dense
    assert P(16, local_blocks=1, global_blocks=0, stride=1).covers_everything(10_000)  # every block strided
    assert query_blocks(seq_len=40, query_len=17, block_size=16) == range(1, 3)  # positions 23..39
    assert query_blocks(seq_len=1, query_len=1, block_size=16) == range(0, 1)
    for q_len in range(1, 70):  # the bound the Triton launch and the visit counters are sized by
        assert max(len(query_blocks(s, q_len, 16)) for s in range(q_len, q_len + 16)) == max_query_blocks(q_len, 16)
    for bad in ({"block_size": 24}, {"block_size": 8}, {"block_size": 16, "local_blocks": 0},
                {"block_size": 16, "stride": -1}, {"block_size": 16, "global_blocks": -1}):
        with pytest.raises(ValueError, match="block-sparse"):
            P(**bad)
    assert P.from_ints(P(64, 16, 1, 8).as_ints()) == P(64, 16, 1, 8)


# --- the reference ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("case", CASES)
def test_reference_matches_naive_loop(case: str) -> None:
    b, pattern = _batch(case, torch.float32)
    torch.testing.assert_close(reference(b.q, b.k_cache, b.v_cache, b.meta, SCALE, pattern), naive(b, SCALE, pattern),
                               atol=2e-6, rtol=2e-6)
    torch.testing.assert_close(reference(b.q, b.k_cache, b.v_cache, b.meta, SCALE, pattern, 4.0),
                               naive(b, SCALE, pattern, 4.0), atol=2e-6, rtol=2e-6)


@pytest.mark.parametrize("case", CASES)
def test_pattern_covering_everything_is_dense_attention(case: str) -> None:
    b, pattern = _batch(case, torch.float32)
    dense = P(pattern.block_size, local_blocks=1_000)
    expected = dense_reference(b.q, b.k_cache, b.v_cache, b.meta, SCALE)
    torch.testing.assert_close(reference(b.q, b.k_cache, b.v_cache, b.meta, SCALE, dense), expected,
                               atol=2e-6, rtol=2e-6)
    if kernels.cpu.load():
        torch.testing.assert_close(kernels.cpu.block_sparse_attention(b.q, b.k_cache, b.v_cache, b.meta, SCALE, dense),
                                   expected, **TOLERANCE[torch.float32])


def test_chunked_prefill_and_prefix_hit_match_one_chunk() -> None:
    """A 150-token prompt prefilled at once, then as chunks resuming from cached prefixes at positions inside sparse
    blocks: every query's output is the same (the pattern depends on absolute positions only)."""
    whole, pattern = make_batch([], [(150, 150)], kv_heads=2, group=2, head_dim=32, block_size=8, dtype=torch.float32,
                                device=CPU, seed=3), P(16, local_blocks=2, global_blocks=1, stride=3)
    backends = [lambda b: reference(b.q, b.k_cache, b.v_cache, b.meta, SCALE, pattern)]
    if kernels.cpu.load():
        backends.append(lambda b: kernels.cpu.block_sparse_attention(b.q, b.k_cache, b.v_cache, b.meta, SCALE,
                                                                    pattern))
    for attend in backends:
        full = attend(whole)
        for begin, end in ((0, 40), (40, 41), (41, 104), (104, 150)):
            meta = dataclasses.replace(
                whole.meta, query_start_loc=torch.tensor([0, end - begin], dtype=torch.int32),
                seq_lens=torch.tensor([end], dtype=torch.int32), max_query_len=end - begin, max_seq_len=end)
            chunk = dataclasses.replace(whole, q=whole.q[begin:end], meta=meta)
            torch.testing.assert_close(attend(chunk), full[begin:end], atol=1e-6, rtol=1e-6)


# --- the C++ CPU kernel -------------------------------------------------------------------------------------------
def _cpu() -> ModuleType:
    if not kernels.cpu.load():
        pytest.skip("the C++ CPU kernels cannot be built here")
    return kernels.cpu


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=["fp32", "bf16"])
@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("softcap", [0.0, 4.0], ids=["plain", "softcap"])
def test_cpu_kernel_matches_reference(case: str, dtype: torch.dtype, softcap: float) -> None:
    cpu = _cpu()
    b, pattern = _batch(case, dtype)
    got = cpu.block_sparse_attention(b.q, b.k_cache, b.v_cache, b.meta, SCALE, pattern, softcap)
    # bf16: inputs rounded to bf16 either way; the kernel accumulates in float32, the reference in bf16 SDPA
    expected = reference(b.q.float(), b.k_cache.float(), b.v_cache.float(), b.meta, SCALE, pattern, softcap)
    torch.testing.assert_close(got.float(), expected, **TOLERANCE[dtype])


@pytest.mark.parametrize("case", CASES)
def test_cpu_kernel_reads_only_the_pattern_blocks(case: str) -> None:
    cpu = _cpu()
    b, pattern = _batch(case, torch.float32)
    expected = reference(b.q, b.k_cache, b.v_cache, b.meta, SCALE, pattern)
    poisoned, count = with_unseen_blocks_poisoned(b, pattern)
    visits = _visits(b.meta, pattern, CPU)
    got = cpu.block_sparse_attention(poisoned.q, poisoned.k_cache, poisoned.v_cache, b.meta, SCALE, pattern,
                                     visits=visits)
    torch.testing.assert_close(got, expected, **TOLERANCE[torch.float32])  # NaN anywhere fails
    assert visits.tolist() == _expected_visits(b.meta, pattern)
    if case in ("mixed", "own-block-only", "prefix-hit-mid-block"):  # long enough to leave blocks out
        assert count > 0
        dense = sum(qb + 1 for s, q in zip(b.meta.seq_lens.tolist(), _query_lens(b.meta), strict=True)
                    for qb in query_blocks(s, q, pattern.block_size))
        assert int(visits.sum()) < dense


def test_cpu_kernel_refuses_a_malformed_call() -> None:
    cpu = _cpu()
    b, pattern = _batch("short-prompt", torch.float32)
    with pytest.raises(RuntimeError, match="query_start_loc"):
        torch.ops.warden_cpu.block_sparse_attention(b.q[:-1], b.k_cache, b.v_cache, b.meta.block_tables,
                                                    b.meta.seq_lens, b.meta.query_start_loc, SCALE,
                                                    pattern.as_ints(), 0.0, None)
    with pytest.raises(RuntimeError, match="pattern"):
        torch.ops.warden_cpu.block_sparse_attention(b.q, b.k_cache, b.v_cache, b.meta.block_tables, b.meta.seq_lens,
                                                    b.meta.query_start_loc, SCALE, [16, 1], 0.0, None)
    assert cpu.block_sparse_attention(b.q, b.k_cache, b.v_cache, b.meta, SCALE, pattern).isfinite().all()


# --- the Triton kernel (interpreted on the CPU; natively on CUDA when present) -------------------------------------
@pytest.mark.parametrize("case", CASES)
def test_triton_kernel_matches_reference(ops: ModuleType, backend: Backend, case: str) -> None:
    b, pattern = _batch(case, backend.dtype, backend.device)
    for softcap in (0.0, 4.0):
        got = ops.block_sparse_attention(b.q, b.k_cache, b.v_cache, b.meta, SCALE, pattern, softcap)
        expected = reference(b.q.float().cpu(), b.k_cache.float().cpu(), b.v_cache.float().cpu(),
                             _on(b.meta, CPU), SCALE, pattern, softcap)
        torch.testing.assert_close(got.float().cpu(), expected, **TOLERANCE[backend.dtype])


@pytest.mark.parametrize("case", ["mixed", "prefix-hit-mid-block"])
def test_triton_kernel_reads_only_the_pattern_blocks(ops: ModuleType, backend: Backend, case: str) -> None:
    b, pattern = _batch(case, backend.dtype, backend.device)
    expected = reference(b.q.float().cpu(), b.k_cache.float().cpu(), b.v_cache.float().cpu(), _on(b.meta, CPU),
                         SCALE, pattern)
    poisoned, count = with_unseen_blocks_poisoned(b, pattern)
    assert count > 0
    visits = _visits(b.meta, pattern, backend.device)
    got = ops.block_sparse_attention(poisoned.q, poisoned.k_cache, poisoned.v_cache, b.meta, SCALE, pattern,
                                     visits=visits)
    torch.testing.assert_close(got.float().cpu(), expected, **TOLERANCE[backend.dtype])
    assert visits.tolist() == _expected_visits(b.meta, pattern)


def _on(meta: AttentionMetadata, device: torch.device) -> AttentionMetadata:
    return dataclasses.replace(meta, query_start_loc=meta.query_start_loc.to(device),
                               seq_lens=meta.seq_lens.to(device), block_tables=meta.block_tables.to(device),
                               slot_mapping=meta.slot_mapping.to(device))
