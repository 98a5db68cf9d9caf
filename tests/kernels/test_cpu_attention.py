"""``paged_attention.cpp``'s bfloat16 paths on AVX512-BF16 CPUs against the float32 torch reference, at the edges of
their blocking: decode (16-key score tiles, value rows taken two tokens at a time, blocks of 4 query heads x 64
dims, one task per sequence or per (sequence, kv head), contexts read in 256-token spans with running maxima) and
prefill (8 query vectors per score block, 4 per weighted-sum block, keys and values laid out per chunk, 256-key
blocks with running maxima, chunks sliced across threads)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import torch

import kernels.cpu
from kernels.reference.paged_attention import paged_attention as reference_attention
from tests.kernels.batch import PagedBatch, make_batch

pytestmark = pytest.mark.skipif(
    not kernels.cpu.load() or not torch.ops.warden_cpu.prefill_attention_runs(),
    reason="the bfloat16 attention kernels need AVX512-BF16 and a C++ toolchain")
CPU = torch.device("cpu")
TOLERANCE = 2e-2


def _batch(decodes: list[int], prefills: list[tuple[int, int]], kv_heads: int, group: int, head_dim: int,
           block_size: int = 16, seed: int = 0) -> PagedBatch:
    return make_batch(decodes, prefills, kv_heads=kv_heads, group=group, head_dim=head_dim, block_size=block_size,
                      dtype=torch.bfloat16, device=CPU, seed=seed)


def _expected(b: PagedBatch, scale: float, window: int = 0, softcap: float = 0.0) -> torch.Tensor:
    return reference_attention(b.q.float(), b.k_cache.float(), b.v_cache.float(), b.meta, scale, window, softcap)


@pytest.fixture
def threads(request: pytest.FixtureRequest) -> Iterator[int]:
    previous = torch.get_num_threads()
    torch.set_num_threads(request.param)
    yield request.param
    torch.set_num_threads(previous)


# contexts: one token, odd and even (the last value row pairs with zeros or not), around a score tile, long
DECODE_CONTEXTS = [1, 2, 15, 16, 17, 31, 32, 33, 100, 701]


@pytest.mark.parametrize("head_dim", [32, 64, 96, 128, 160, 256])  # 64-dim blocks, a 32-dim tail, the run-time tile
# query-head blocks of 4 (the value pass; at head_dim 64 also the score pass's four heads a vector): 1, 3, 4, 4 + 1,
# 4 + 2, 4 + 4
@pytest.mark.parametrize("group", [1, 3, 4, 5, 6, 8])
def test_decode_matches_the_reference(head_dim: int, group: int) -> None:
    b = _batch(DECODE_CONTEXTS, [], kv_heads=2, group=group, head_dim=head_dim, block_size=8, seed=head_dim + group)
    out = kernels.cpu.decode_attention(b.q, b.k_cache, b.v_cache, b.meta.block_tables, b.meta.seq_lens, 0.2)
    assert out.dtype == torch.bfloat16 and out.shape == b.q.shape
    torch.testing.assert_close(out.float(), _expected(b, 0.2), atol=TOLERANCE, rtol=TOLERANCE)


def test_decode_of_long_contexts_after_one_another_matches_the_reference() -> None:
    """Sequences whose next one's context is longer than the kernel requests ahead (SmolLM2's heads: 1,024 key rows
    of 384 bytes), a short one between, in 16-token blocks as the engine's."""
    b = _batch([2000, 1500, 5, 1100], [], kv_heads=3, group=3, head_dim=64, seed=21)
    out = kernels.cpu.decode_attention(b.q, b.k_cache, b.v_cache, b.meta.block_tables, b.meta.seq_lens, 0.125)
    torch.testing.assert_close(out.float(), _expected(b, 0.125), atol=TOLERANCE, rtol=TOLERANCE)


@pytest.mark.parametrize("threads", [1, 2], indirect=True)
@pytest.mark.parametrize("num_seqs", [1, 3])
def test_decode_tasks_per_sequence_or_per_kv_head(threads: int, num_seqs: int) -> None:
    """A task takes every kv head of its sequence while sequences are at least the threads, one kv head otherwise:
    both give each query head its own kv head's attention."""
    b = _batch([33, 700, 16][:num_seqs], [], kv_heads=3, group=3, head_dim=64, seed=threads + num_seqs)
    out = kernels.cpu.decode_attention(b.q, b.k_cache, b.v_cache, b.meta.block_tables, b.meta.seq_lens, 0.125)
    torch.testing.assert_close(out.float(), _expected(b, 0.125), atol=TOLERANCE, rtol=TOLERANCE)


@pytest.mark.parametrize("threads", [1], indirect=True)
@pytest.mark.parametrize("kv_heads", [1, 2, 4, 5, 7])
def test_decode_groups_of_three_over_odd_and_many_kv_heads(threads: int, kv_heads: int) -> None:
    """Groups of 3 at head_dim 64 (SmolLM2's) with every kv head of a sequence in one task: each query head of any kv
    head, first or past the third, attends its own kv head's rows."""
    b = _batch([1, 17, 300], [], kv_heads=kv_heads, group=3, head_dim=64, seed=30 + kv_heads)
    out = kernels.cpu.decode_attention(b.q, b.k_cache, b.v_cache, b.meta.block_tables, b.meta.seq_lens, 0.125)
    torch.testing.assert_close(out.float(), _expected(b, 0.125), atol=TOLERANCE, rtol=TOLERANCE)


@pytest.mark.parametrize(("window", "softcap"), [(17, 0.0), (20, 0.0), (0, 5.0), (17, 5.0)])
def test_decode_windows_and_soft_caps(window: int, softcap: float) -> None:
    """A window starts the context at len - window (odd or even: the pairs of value rows start there)."""
    b = _batch([1, 5, 17, 33, 70, 300], [], kv_heads=3, group=3, head_dim=64, seed=window)
    out = kernels.cpu.decode_attention(b.q, b.k_cache, b.v_cache, b.meta.block_tables, b.meta.seq_lens, 0.2, window,
                                       softcap)
    torch.testing.assert_close(out.float(), _expected(b, 0.2, window, softcap), atol=TOLERANCE, rtol=TOLERANCE)


def test_decode_padding_rows_are_zeros() -> None:
    b = _batch([5, 40], [], kv_heads=3, group=3, head_dim=64, seed=4)
    lens = torch.cat([b.meta.seq_lens, torch.zeros(1, dtype=torch.int32)])
    tables = torch.cat([b.meta.block_tables, torch.zeros_like(b.meta.block_tables[:1])])
    q = torch.cat([b.q, b.q[:1]])
    out = kernels.cpu.decode_attention(q, b.k_cache, b.v_cache, tables, lens, 0.2)
    torch.testing.assert_close(out[:2].float(), _expected(b, 0.2), atol=TOLERANCE, rtol=TOLERANCE)
    assert torch.equal(out[2], torch.zeros_like(out[2]))


# contexts around the 256-token spans the decode kernel reads a context in: one span exactly, a token past it (a span
# of one, whose value pair reads the zeros row), an odd second span, several spans
SPAN_CONTEXTS = [255, 256, 257, 511, 513, 1100]


@pytest.mark.parametrize(("kv_heads", "group", "head_dim"), [(3, 3, 64), (2, 1, 128), (1, 6, 96)])
@pytest.mark.parametrize("rising", [True, False])
def test_decode_across_spans_whose_maximum_moves(kv_heads: int, group: int, head_dim: int, rising: bool) -> None:
    """Scores rising (or falling) with the key's position: each span's maximum is above (below) the ones before, so
    the running sums and outputs of the earlier spans are rescaled to the later maximum (a kernel that skipped the
    rescale would weigh early spans far too much; one that kept the first span's maximum would overflow)."""
    b = _batch(SPAN_CONTEXTS, [], kv_heads=kv_heads, group=group, head_dim=head_dim, seed=40 + head_dim)
    direction = torch.randn(head_dim)
    direction = direction / direction.norm()
    block = b.k_cache.shape[1]
    for seq, length in enumerate(SPAN_CONTEXTS):
        table = b.meta.block_tables[seq].tolist()
        for t in range(length):
            height = t / length if rising else 1 - t / length
            b.k_cache[table[t // block], t % block] = (direction * (height * 12)).to(torch.bfloat16)
    b.q[:] = (direction * 4).to(torch.bfloat16)
    out = kernels.cpu.decode_attention(b.q, b.k_cache, b.v_cache, b.meta.block_tables, b.meta.seq_lens, 1.0)
    torch.testing.assert_close(out.float(), _expected(b, 1.0), atol=TOLERANCE, rtol=TOLERANCE)


@pytest.mark.parametrize("threads", [1, 2], indirect=True)
@pytest.mark.parametrize(("window", "softcap"), [(0, 0.0), (300, 0.0), (257, 5.0)])
def test_decode_of_contexts_over_several_spans(threads: int, window: int, softcap: float) -> None:
    """Random scores over contexts of one to five spans, windows that start a context mid-span, soft-capping per span,
    one task per sequence or per kv head."""
    b = _batch(SPAN_CONTEXTS, [], kv_heads=3, group=3, head_dim=64, seed=window + threads)
    out = kernels.cpu.decode_attention(b.q, b.k_cache, b.v_cache, b.meta.block_tables, b.meta.seq_lens, 0.2, window,
                                       softcap)
    torch.testing.assert_close(out.float(), _expected(b, 0.2, window, softcap), atol=TOLERANCE, rtol=TOLERANCE)


@pytest.mark.parametrize("head_dim", [32, 64, 96, 128])
@pytest.mark.parametrize("group", [1, 3, 5])  # query vectors per chunk token: blocks of 8 and 4 cut mid-token
def test_prefill_chunks_match_the_reference(head_dim: int, group: int) -> None:
    """Chunks of 1 token, of a new prompt, and after cached context (odd and even lengths), behind a decode."""
    prefills = [(150, 850), (17, 17), (1, 1), (1, 40), (33, 70), (40, 333), (18, 19)]
    b = _batch([7], prefills, kv_heads=2, group=group, head_dim=head_dim, seed=head_dim + group)
    out = kernels.cpu.paged_attention(b.q, b.k_cache, b.v_cache, b.meta, 0.125)
    torch.testing.assert_close(out.float(), _expected(b, 0.125), atol=TOLERANCE, rtol=TOLERANCE)


def test_prefill_over_a_long_context() -> None:
    b = _batch([], [(24, 3000), (120, 850), (120, 850)], kv_heads=3, group=3, head_dim=64, seed=9)
    out = kernels.cpu.paged_attention(b.q, b.k_cache, b.v_cache, b.meta, 0.125)
    torch.testing.assert_close(out.float(), _expected(b, 0.125), atol=TOLERANCE, rtol=TOLERANCE)


def test_prefill_of_a_peaked_softmax() -> None:
    """Scores far apart (one key dominating each query): the probabilities rounded to bf16 still weigh the values
    as the reference's float32 ones do."""
    b = _batch([], [(40, 200)], kv_heads=1, group=3, head_dim=64, seed=11)
    out = kernels.cpu.paged_attention(b.q, b.k_cache, b.v_cache, b.meta, 2.0)
    torch.testing.assert_close(out.float(), _expected(b, 2.0), atol=TOLERANCE, rtol=TOLERANCE)


@pytest.mark.parametrize("threads", [2, 3], indirect=True)
def test_prefill_split_across_threads(threads: int) -> None:
    """One chunk on fewer (chunk, kv head) pairs than twice the threads: its query vectors run in slices, each
    slice's own tasks (the layout shared where one thread runs consecutive slices)."""
    b = _batch([3], [(200, 1000)], kv_heads=3, group=3, head_dim=64, seed=12)
    out = kernels.cpu.paged_attention(b.q, b.k_cache, b.v_cache, b.meta, 0.125)
    torch.testing.assert_close(out.float(), _expected(b, 0.125), atol=TOLERANCE, rtol=TOLERANCE)


def test_prefill_whose_maximum_grows_along_the_context() -> None:
    """Scores rising with the key's position: each key block's maximum is above the ones before, so the running
    sums and outputs of every block are rescaled (a kernel that kept the first block's maximum would overflow its
    exponentials, one that skipped the rescale would weigh early blocks far too much)."""
    b = _batch([], [(40, 700)], kv_heads=1, group=2, head_dim=64, seed=13)
    direction = torch.randn(64)
    direction = direction / direction.norm()
    table, block = b.meta.block_tables[0].tolist(), b.k_cache.shape[1]
    for t in range(700):
        b.k_cache[table[t // block], t % block, 0] = (direction * (t / 700 * 12)).to(torch.bfloat16)
    b.q[:] = (direction * 4).to(torch.bfloat16)
    out = kernels.cpu.paged_attention(b.q, b.k_cache, b.v_cache, b.meta, 1.0)
    torch.testing.assert_close(out.float(), _expected(b, 1.0), atol=TOLERANCE, rtol=TOLERANCE)
