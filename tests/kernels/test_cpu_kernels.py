"""Warden's C++ CPU decode attention (kernels/cpu) equals the torch reference on random paged batches."""

from __future__ import annotations

import pytest
import torch

import kernels.cpu
from kernels.reference.paged_attention import paged_attention as reference_attention
from tests.kernels.batch import make_batch

pytestmark = pytest.mark.skipif(not kernels.cpu.load(), reason="no C++ toolchain to build the CPU kernels")
CPU = torch.device("cpu")
TOLERANCE = {torch.float32: 1e-5, torch.bfloat16: 2e-2, torch.float16: 2e-3}


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16])
@pytest.mark.parametrize(("kv_heads", "group"), [(2, 1), (3, 3), (1, 8)])
@pytest.mark.parametrize("block_size", [4, 16])
def test_decode_batches_match_the_reference(dtype, kv_heads, group, block_size) -> None:
    # one token of context, a block boundary exactly, several blocks, and a long context
    b = make_batch([1, block_size, block_size + 1, 3 * block_size - 1, 70], [], kv_heads=kv_heads, group=group,
                   head_dim=64, block_size=block_size, dtype=dtype, device=CPU, seed=block_size + group)
    expected = reference_attention(b.q.float(), b.k_cache.float(), b.v_cache.float(), b.meta, 0.125)
    out = kernels.cpu.paged_attention(b.q, b.k_cache, b.v_cache, b.meta, 0.125)
    assert out.dtype == dtype and out.shape == b.q.shape
    torch.testing.assert_close(out.float(), expected, atol=TOLERANCE[dtype], rtol=TOLERANCE[dtype])


@pytest.mark.parametrize("head_dim", [32, 80])  # 80: a tail past the vector width
def test_mixed_batches_route_decodes_to_cpp_and_prefills_to_the_reference(head_dim) -> None:
    b = make_batch([9, 33], [(5, 12), (1, 1), (17, 40)], kv_heads=2, group=2, head_dim=head_dim, block_size=8,
                   dtype=torch.float32, device=CPU, seed=3)
    expected = reference_attention(b.q, b.k_cache, b.v_cache, b.meta, 0.3)
    torch.testing.assert_close(kernels.cpu.paged_attention(b.q, b.k_cache, b.v_cache, b.meta, 0.3), expected,
                               atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_short_queries_run_as_one_decode_row_per_token(dtype) -> None:
    """Draft verification, forced tokens and small chunks (every query <= SHORT_QUERY tokens): causal against
    the context up to each token, across block boundaries, with GQA."""
    b = make_batch([9, 33], [(5, 12), (1, 1), (kernels.cpu.SHORT_QUERY, 40), (3, 70)], kv_heads=3, group=3,
                   head_dim=64, block_size=8, dtype=dtype, device=CPU, seed=5)
    expected = reference_attention(b.q.float(), b.k_cache.float(), b.v_cache.float(), b.meta, 0.3)
    tables, lens = kernels.cpu.token_rows(b.meta)
    assert lens.tolist()[2:8] == [8, 9, 10, 11, 12, 1]  # the 5-token chunk ending at 12, then the 1-token one
    assert torch.equal(tables[2:7], b.meta.block_tables[2:3].expand(5, -1))
    out = kernels.cpu.paged_attention(b.q, b.k_cache, b.v_cache, b.meta, 0.3)
    torch.testing.assert_close(out.float(), expected, atol=TOLERANCE[dtype], rtol=TOLERANCE[dtype])


def test_bad_inputs_are_refused() -> None:
    b = make_batch([5], [], kv_heads=2, group=2, head_dim=32, block_size=4, dtype=torch.float32, device=CPU)
    with pytest.raises(RuntimeError, match="int32"):
        kernels.cpu.decode_attention(b.q, b.k_cache, b.v_cache, b.meta.block_tables.long(), b.meta.seq_lens, 1.0)
    with pytest.raises(RuntimeError, match="one dtype"):
        kernels.cpu.decode_attention(b.q.double(), b.k_cache, b.v_cache, b.meta.block_tables, b.meta.seq_lens, 1.0)
