"""Paged attention: the torch reference against a plain per-sequence loop, and the Triton kernels against the
reference on mixed batches (block boundaries, one-token contexts, GQA ratios 1/3/8, several blocks, chunked
prefill continuing a cached prefix), including the split-context decode path and CUDA-graph style launches."""

from __future__ import annotations

import dataclasses
import importlib
from types import ModuleType

import pytest
import torch

from kernels.attention_metadata import AttentionMetadata
from kernels.reference.paged_attention import paged_attention as reference_attention
from tests.kernels.batch import PagedBatch, make_batch
from tests.kernels.conftest import TOLERANCE, Backend

# (kv_heads, group, head_dim, block_size, decode context lengths, prefill (query_len, seq_len) chunks)
CASES = {
    "mha-block-edges": (2, 1, 32, 16, [1, 16, 17, 50], [(5, 5), (16, 40)]),
    "smollm-gqa3": (3, 3, 64, 16, [15, 33], [(1, 20), (20, 20)]),
    "gqa8-small-blocks": (1, 8, 64, 8, [9], [(33, 70)]),
    "decode-only-many-blocks": (2, 4, 64, 16, [1, 64, 100, 129], []),
    "prefill-only-big-blocks": (2, 2, 16, 32, [], [(40, 40), (7, 90)]),
    "head-dim-48": (1, 3, 48, 16, [20], [(3, 19)]),
    # new prompts beside decodes of far longer contexts: the prefill keys are gathered only to the prefills' length
    "short-prefills-long-decodes": (3, 3, 64, 16, [300, 129], [(20, 20), (5, 37)]),
}


def _batch(case: str, backend: Backend, seed: int = 0) -> PagedBatch:
    kv_heads, group, head_dim, block_size, decodes, prefills = CASES[case]
    return make_batch(decodes, prefills, kv_heads=kv_heads, group=group, head_dim=head_dim,
                      block_size=block_size, dtype=backend.dtype, device=backend.device, seed=seed)


def _expected(b: PagedBatch, scale: float) -> torch.Tensor:
    """The reference on float32 copies: the ground truth every dtype is held to."""
    return reference_attention(b.q.float(), b.k_cache.float(), b.v_cache.float(), b.meta, scale)


def _naive(b: PagedBatch, scale: float) -> torch.Tensor:
    """One sequence and one head at a time, straight from the definition."""
    meta, block_size = b.meta, b.k_cache.shape[1]
    group = b.q.shape[1] // b.k_cache.shape[2]
    out = torch.empty_like(b.q)
    for s in range(meta.num_seqs):
        start, end = int(meta.query_start_loc[s]), int(meta.query_start_loc[s + 1])
        seq_len = int(meta.seq_lens[s])
        slots = [int(meta.block_tables[s, p // block_size]) * block_size + p % block_size for p in range(seq_len)]
        keys = b.k_cache.view(-1, *b.k_cache.shape[2:])[slots]
        values = b.v_cache.view(-1, *b.v_cache.shape[2:])[slots]
        for i, t in enumerate(range(start, end)):
            visible = seq_len - (end - start) + i + 1
            for h in range(b.q.shape[1]):
                scores = keys[:visible, h // group] @ b.q[t, h] * scale
                out[t, h] = torch.softmax(scores, dim=0) @ values[:visible, h // group]
    return out


@pytest.mark.parametrize("case", list(CASES))
def test_reference_matches_naive_loop(case: str) -> None:
    b = _batch(case, Backend("cpu", torch.device("cpu"), torch.float32), seed=1)
    torch.testing.assert_close(reference_attention(b.q, b.k_cache, b.v_cache, b.meta, 0.125), _naive(b, 0.125))


@pytest.mark.parametrize("case", list(CASES))
def test_triton_matches_reference(ops: ModuleType, backend: Backend, case: str) -> None:
    b = _batch(case, backend, seed=2)
    scale = b.q.shape[-1] ** -0.5
    out = ops.paged_attention(b.q, b.k_cache, b.v_cache, b.meta, scale)
    assert out.shape == b.q.shape and out.dtype == b.q.dtype
    torch.testing.assert_close(out.float(), _expected(b, scale), **TOLERANCE[backend.dtype])


def _decode_only(ops: ModuleType, b: PagedBatch, meta: AttentionMetadata, config: object) -> torch.Tensor:
    out = torch.full_like(b.q[: meta.num_decodes], float("nan"))
    ops.modules["paged_attention"].decode_attention(b.q, b.k_cache, b.v_cache, meta, 0.2, out, config)
    return out


@pytest.mark.parametrize(("block_n", "partition"), [(16, 16), (16, 32), (32, 64)])
def test_split_context_decode_matches_reference(ops: ModuleType, backend: Backend, block_n: int,
                                                partition: int) -> None:
    """Contexts cut into several partitions (including exact multiples and a single token) merge correctly."""
    b = make_batch([1, 31, 32, 33, 100], [], kv_heads=2, group=3, head_dim=32, block_size=16,
                   dtype=backend.dtype, device=backend.device, seed=3)
    config = ops.modules["paged_attention"].DecodeConfig(block_n=block_n, partition=partition)
    out = _decode_only(ops, b, b.meta, config)
    torch.testing.assert_close(out.float(), _expected(b, 0.2), **TOLERANCE[backend.dtype])


@pytest.mark.parametrize("partition", [32, 512])
@pytest.mark.parametrize(("kv_heads", "head_dim"), [(1, 32), (3, 64)])  # one head per program; SmolLM2's, packed
def test_graph_style_decode_launch(ops: ModuleType, backend: Backend, partition: int, kv_heads: int,
                                   head_dim: int) -> None:
    """A launch sized for an upper bound on the context, with a padding row (empty context, slot -1) as a
    captured CUDA graph replays it: real rows are unchanged, the padding row is zeros, nothing is NaN."""
    b = make_batch([5, 40, 17], [], kv_heads=kv_heads, group=3, head_dim=head_dim, block_size=16,
                   dtype=backend.dtype, device=backend.device, seed=4)
    m = b.meta
    dev = backend.device
    padded = dataclasses.replace(
        m,
        query_start_loc=torch.arange(5, dtype=torch.int32, device=dev),
        seq_lens=torch.cat([m.seq_lens, torch.zeros(1, dtype=torch.int32, device=dev)]),
        block_tables=torch.cat([m.block_tables, torch.zeros_like(m.block_tables[:1])]),
        slot_mapping=torch.cat([m.slot_mapping, torch.full((1,), -1, dtype=torch.int64, device=dev)]),
        num_decodes=4,
        max_decode_seq_len=256,  # the model length, not the batch's longest context
    )
    q = torch.cat([b.q, b.q[:1]])
    config = ops.modules["paged_attention"].DecodeConfig(block_n=16, partition=partition)
    out = _decode_only(ops, dataclasses.replace(b, q=q), padded, config)
    torch.testing.assert_close(out[:3].float(), _expected(b, 0.2), **TOLERANCE[backend.dtype])
    assert torch.equal(out[3], torch.zeros_like(out[3]))


@pytest.mark.parametrize(("kv_heads", "batch", "context", "expected"), [
    (3, 1, 8192, 128), (3, 16, 4096, 256), (3, 64, 4096, 1024), (3, 256, 1024, 1024),  # SmolLM2 layout
    (8, 1, 8192, 256), (8, 16, 4096, 512), (8, 64, 8192, 1024),  # 8B-like layout
])
def test_default_partition_sizes_on_an_h200(monkeypatch: pytest.MonkeyPatch, kv_heads: int, batch: int,
                                            context: int, expected: int) -> None:
    """With one KV head per program, the partition heuristic picks the H200 sweep's best partition per shape
    (bench/results/kernels.json): at least four programs per SM once there is enough work, fewer and larger
    ones for a single sequence."""
    module = _host_module()
    monkeypatch.setattr(module, "_sm_count", lambda device: 132)
    size = module._partition_size(module.DEFAULT_DECODE, 64, batch * kv_heads, context, torch.device("cpu"))
    assert size == expected


def test_one_long_packed_sequence_keeps_the_merge_small(monkeypatch: pytest.MonkeyPatch) -> None:
    """SmolLM2's heads packed into one program per sequence: a lone 8k context splits into at most MAX_MERGED
    partitions (64 keys each), not 32-key programs, so the merge's partial states stay a register tile."""
    module = _host_module()
    monkeypatch.setattr(module, "_sm_count", lambda device: 132)
    assert module._partition_size(module.DEFAULT_DECODE, 32, 1, 8192, torch.device("cpu")) == 64
    assert module._partition_size(module.DEFAULT_DECODE, 32, 1, 65536, torch.device("cpu")) == 512


def _host_module() -> ModuleType:
    pytest.importorskip("triton")
    # The plain import (its host-side helpers only); the package's attribute of that name is the function.
    return importlib.import_module("kernels.triton.paged_attention")


@pytest.mark.parametrize(("kv_heads", "head_dim", "configured", "expected"), [
    (3, 64, None, 3), (3, 48, None, 3), (4, 64, None, 4), (12, 64, None, 4), (8, 32, None, 8),  # packed
    (8, 128, None, 1), (2, 128, None, 1), (5, 64, None, 1), (1, 64, None, 1), (3, 128, None, 1),  # one head per program
    (3, 64, 1, 1), (3, 64, 2, 2), (3, 64, 8, 3),  # configured, clamped to the layout's heads
])
def test_kv_heads_per_program(kv_heads: int, head_dim: int, configured: int | None, expected: int) -> None:
    """Decode programs pack whole small KV heads while they fit in PACKED_COLUMNS, and only a divisor of the KV
    heads unless configured otherwise."""
    module = _host_module()
    config = module.DecodeConfig(kv_heads_per_program=configured)
    assert module.kv_heads_per_program(config, kv_heads, head_dim) == expected


@pytest.mark.parametrize(("kv_heads", "group", "head_dim", "packed"), [
    (3, 3, 64, 1), (3, 3, 64, 3),  # SmolLM2's layout both ways
    (3, 3, 64, 2),  # not a divisor: the second program's second head is masked off
    (3, 2, 48, 3),  # head_dim 48: packed columns 144 of 256
    (4, 1, 32, 4),  # MHA packed
    (2, 4, 128, 2),  # 8B-like heads packed (the sweep's variant)
])
@pytest.mark.parametrize("partition", [None, 32])
def test_packed_decode_matches_reference(ops: ModuleType, backend: Backend, kv_heads: int, group: int,
                                         head_dim: int, packed: int, partition: int | None) -> None:
    """Several KV heads per program (block-diagonal queries over the packed columns) give each query head its
    own head's attention, split into partitions or not."""
    b = make_batch([1, 16, 17, 70], [], kv_heads=kv_heads, group=group, head_dim=head_dim, block_size=16,
                   dtype=backend.dtype, device=backend.device, seed=5)
    config = ops.modules["paged_attention"].DecodeConfig(block_n=16, partition=partition, kv_heads_per_program=packed)
    out = _decode_only(ops, b, b.meta, config)
    torch.testing.assert_close(out.float(), _expected(b, 0.2), **TOLERANCE[backend.dtype])


@pytest.mark.parametrize("pack", [True, False])
@pytest.mark.parametrize(("kv_heads", "group", "head_dim", "prefills", "block_m"), [
    (3, 3, 64, [(4, 37), (5, 5), (1, 16)], 64),  # SmolLM2: verification-sized chunks (21 tokens x 3 heads a tile)
    (3, 3, 64, [(30, 45)], 16),  # 5 tokens x 3 heads per 16-row tile (one padding row), six query blocks
    (1, 8, 32, [(9, 40), (2, 2)], 16),  # GQA 8: two tokens per 16 rows
    (2, 1, 32, [(17, 33)], 16),  # MHA: packing is one head per program either way
    (1, 32, 16, [(3, 20)], 16),  # more heads than block_m rows: one token's heads a tile (32 rows)
])
def test_prefill_query_head_packing_matches_reference(ops: ModuleType, backend: Backend, pack: bool, kv_heads: int,
                                                      group: int, head_dim: int, prefills: list[tuple[int, int]],
                                                      block_m: int) -> None:
    """Prefill programs taking all the query heads of a KV head (rows = tokens x heads) or one head each give
    every query its own head's causal attention, across query blocks that cut a chunk mid-way, behind decodes."""
    b = make_batch([7], prefills, kv_heads=kv_heads, group=group, head_dim=head_dim, block_size=16,
                   dtype=backend.dtype, device=backend.device, seed=6)
    module = ops.modules["paged_attention"]
    config = module.PrefillConfig(block_m=block_m, block_n=16, pack_query_heads=pack)
    out = torch.full_like(b.q, float("nan"))
    module.prefill_attention(b.q, b.k_cache, b.v_cache, b.meta, 0.2, out, config)
    torch.testing.assert_close(out[1:].float(), _expected(b, 0.2)[1:], **TOLERANCE[backend.dtype])
    assert out[0].isnan().all()  # the decode's row is the decode kernel's to write
