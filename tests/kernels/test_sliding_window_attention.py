"""Sliding-window and soft-capped paged attention: every backend (the torch reference, the C++ CPU kernel, the
Triton kernels interpreted on the CPU) against a per-sequence loop written from transformers' definition (the query
at ``p`` sees keys ``p - W < k <= p``; scores ``c * tanh(s / c)``), on mixed decode + prefill batches.

The blocks wholly before every query's window get the table entry -1, as the block manager leaves them once it has
freed them: a backend that read one would fail (an index error in torch, a wrong address in C++/Triton) or
return garbage, so these tests also prove the kernels skip those blocks rather than mask them.
"""

from __future__ import annotations

import dataclasses
from types import ModuleType

import pytest
import torch

import kernels.cpu
from kernels.reference.paged_attention import paged_attention as reference_attention
from tests.kernels.batch import PagedBatch, make_batch, naive_attention
from tests.kernels.conftest import TOLERANCE, Backend

CPU = torch.device("cpu")
# (kv_heads, group, head_dim, block_size, decode context lengths, prefill (query_len, seq_len) chunks, window)
CASES = {
    # a window inside one block, decodes at and around block edges, a chunk continuing a cached prefix
    "window-under-block": (2, 2, 32, 8, [1, 5, 8, 9, 30], [(6, 6), (7, 29)], 5),
    # a window of exactly one block, a long chunk that starts before the window and crosses it
    "window-one-block": (1, 4, 32, 8, [8, 17, 40], [(20, 20), (12, 45)], 8),
    # a window longer than some contexts (those attend globally) and a block boundary at the window's start
    "window-over-blocks": (2, 3, 16, 4, [3, 12, 13, 33], [(2, 14), (9, 9)], 12),
    # the short-query path of the CPU kernel (every chunk at most 16 tokens: one decode row per token)
    "short-chunks": (2, 1, 32, 8, [19], [(3, 30), (16, 40)], 7),
}


def _batch(case: str, dtype: torch.dtype, device: torch.device, seed: int) -> tuple[PagedBatch, int]:
    kv_heads, group, head_dim, block_size, decodes, prefills, window = CASES[case]
    b = make_batch(decodes, prefills, kv_heads=kv_heads, group=group, head_dim=head_dim, block_size=block_size,
                   dtype=dtype, device=device, seed=seed)
    return b, window


def naive(b: PagedBatch, scale: float, window: int, softcap: float) -> torch.Tensor:
    """From the definition: the query at ``p`` sees its last ``window`` keys (all of them without a window)."""
    return naive_attention(b, scale, lambda p, k: window <= 0 or k > p - window, softcap)


def without_blocks_before_window(b: PagedBatch, window: int) -> tuple[PagedBatch, int]:
    """``b`` with table entry -1 for each block every query of its sequence has left behind; how many."""
    meta, block_size = b.meta, b.k_cache.shape[1]
    tables = meta.block_tables.clone()
    freed = 0
    for s in range(meta.num_seqs):
        q_len = int(meta.query_start_loc[s + 1] - meta.query_start_loc[s])
        first_seen = int(meta.seq_lens[s]) - q_len - window + 1  # the earliest key the first query sees
        for j in range(max(0, first_seen) // block_size):
            tables[s, j] = -1
            freed += 1
    return dataclasses.replace(b, meta=dataclasses.replace(meta, block_tables=tables)), freed


@pytest.mark.parametrize("softcap", [0.0, 3.0], ids=["plain", "softcap"])
@pytest.mark.parametrize("case", list(CASES))
def test_reference_matches_the_definition_without_reading_freed_blocks(case: str, softcap: float) -> None:
    b, window = _batch(case, torch.float32, CPU, seed=1)
    expected = naive(b, 0.3, window, softcap)
    poisoned, freed = without_blocks_before_window(b, window)
    assert freed > 0 or case == "window-over-blocks"
    out = reference_attention(poisoned.q, poisoned.k_cache, poisoned.v_cache, poisoned.meta, 0.3, window, softcap)
    torch.testing.assert_close(out, expected, atol=1e-5, rtol=1e-5)


def test_global_layers_of_the_same_step_still_see_everything() -> None:
    """The reference memoises its decode gather per step and window: a global layer after a windowed one (Gemma 2
    alternates them) must not reuse the windowed plan."""
    b, window = _batch("window-over-blocks", torch.float32, CPU, seed=4)
    windowed = reference_attention(b.q, b.k_cache, b.v_cache, b.meta, 0.3, window)
    whole = reference_attention(b.q, b.k_cache, b.v_cache, b.meta, 0.3)
    torch.testing.assert_close(windowed, naive(b, 0.3, window, 0.0), atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(whole, naive(b, 0.3, 0, 0.0), atol=1e-5, rtol=1e-5)


@pytest.mark.skipif(not kernels.cpu.load(), reason="no C++ toolchain to build the CPU kernels")
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16])
@pytest.mark.parametrize("softcap", [0.0, 3.0], ids=["plain", "softcap"])
@pytest.mark.parametrize("case", list(CASES))
def test_cpu_kernel_matches_the_definition(case: str, softcap: float, dtype: torch.dtype) -> None:
    b, window = _batch(case, dtype, CPU, seed=2)
    expected = naive(b, 0.3, window, softcap)
    poisoned, _ = without_blocks_before_window(b, window)
    out = kernels.cpu.paged_attention(poisoned.q, poisoned.k_cache, poisoned.v_cache, poisoned.meta, 0.3, window,
                                      softcap)
    tolerance = {torch.float32: 1e-5, torch.bfloat16: 2e-2, torch.float16: 3e-3}[dtype]
    torch.testing.assert_close(out.float(), expected, atol=tolerance, rtol=tolerance)


@pytest.mark.parametrize("softcap", [0.0, 3.0], ids=["plain", "softcap"])
@pytest.mark.parametrize("case", ["window-under-block", "window-one-block", "window-over-blocks"])
def test_triton_matches_the_definition(ops: ModuleType, backend: Backend, case: str, softcap: float) -> None:
    b, window = _batch(case, backend.dtype, backend.device, seed=3)
    expected = naive(dataclasses.replace(b, q=b.q.cpu(), k_cache=b.k_cache.cpu(), v_cache=b.v_cache.cpu(),
                                         meta=_on_cpu(b.meta)), 0.3, window, softcap)
    poisoned, _ = without_blocks_before_window(b, window)
    out = ops.paged_attention(poisoned.q, poisoned.k_cache, poisoned.v_cache, poisoned.meta, 0.3, window, softcap)
    torch.testing.assert_close(out.float().cpu(), expected, **TOLERANCE[backend.dtype])


def test_triton_split_decode_skips_partitions_before_the_window(ops: ModuleType, backend: Backend) -> None:
    """Long decode contexts split into partitions: those wholly before the window read nothing and merge as zero."""
    b = make_batch([150, 64, 7], [], kv_heads=2, group=2, head_dim=32, block_size=16, dtype=backend.dtype,
                   device=backend.device, seed=5)
    window = 40
    expected = naive(dataclasses.replace(b, q=b.q.cpu(), k_cache=b.k_cache.cpu(), v_cache=b.v_cache.cpu(),
                                         meta=_on_cpu(b.meta)), 0.3, window, 0.0)
    poisoned, freed = without_blocks_before_window(b, window)
    assert freed >= 6
    out = torch.empty_like(b.q)
    config = ops.modules["paged_attention"].DecodeConfig(partition=32)
    ops.modules["paged_attention"].decode_attention(poisoned.q, poisoned.k_cache, poisoned.v_cache, poisoned.meta,
                                                    0.3, out, config, window=window)
    torch.testing.assert_close(out.float().cpu(), expected, **TOLERANCE[backend.dtype])


def _on_cpu(meta):
    return dataclasses.replace(meta, query_start_loc=meta.query_start_loc.cpu(), seq_lens=meta.seq_lens.cpu(),
                               block_tables=meta.block_tables.cpu(), slot_mapping=meta.slot_mapping.cpu())
