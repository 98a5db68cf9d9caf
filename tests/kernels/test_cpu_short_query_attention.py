"""Short queries (draft verification: a decode's last token and its drafts) in one pass over each sequence's cache
(``warden_cpu::short_query_attention``) give bitwise what one decode row per token gives, so speculative decoding's
greedy outputs do not move, and match the reference."""

from __future__ import annotations

import pytest
import torch

import kernels.cpu
from kernels.reference.paged_attention import paged_attention as reference_attention
from tests.kernels.batch import make_batch

pytestmark = pytest.mark.skipif(
    not kernels.cpu.load() or not torch.ops.warden_cpu.prefill_attention_runs(),
    reason="the one-pass short-query kernel is the bfloat16 decode kernel's (AVX512-BF16)")
CPU = torch.device("cpu")


def one_row_per_token(b, scale: float, softcap: float) -> torch.Tensor:
    tables, lens = kernels.cpu.token_rows(b.meta)
    return torch.ops.warden_cpu.decode_attention(b.q, b.k_cache, b.v_cache, tables, lens, scale, 0, softcap)


def one_pass(b, scale: float, softcap: float) -> torch.Tensor:
    m = b.meta
    return torch.ops.warden_cpu.short_query_attention(b.q, b.k_cache, b.v_cache, m.block_tables, m.seq_lens,
                                                      m.query_start_loc, m.num_decodes, scale, softcap)


@pytest.mark.parametrize(("decodes", "verifies", "kv_heads", "group", "head_dim", "block_size"), [
    ([], [(5, 40)], 3, 3, 64, 16),  # one sequence verifying 4 drafts (SmolLM2's heads)
    ([9, 700], [(5, 12), (2, 2), (3, 300), (5, 33)], 3, 3, 64, 16),  # decodes first, then drafts of several counts
    ([17], [(16, 16), (1, 5), (9, 100)], 3, 3, 64, 8),  # a whole prompt of SHORT_QUERY tokens, one token, blocks of 8
    ([4], [(4, 70), (2, 31)], 2, 5, 128, 16),  # groups of 5 heads (4 + 1 a vector), two 64-dim chunks
    ([], [(3, 50), (6, 65)], 4, 1, 32, 4),  # no GQA, a 32-dim head
    ([3], [(2, 50), (4, 77)], 2, 3, 96, 16),  # 12 heads a kv head, a 96-dim head: values 64 dims then 32
    ([], [(5, 29), (3, 64)], 1, 5, 64, 16),  # 25 heads a kv head: 7 value passes, the last of one head
    ([2], [(5, 258), (4, 513)], 3, 3, 64, 16),  # contexts over 256-token spans: earlier tokens' end before the last
])
@pytest.mark.parametrize("softcap", [0.0, 30.0])
def test_one_pass_equals_one_decode_row_per_token(decodes, verifies, kv_heads, group, head_dim, block_size,
                                                  softcap) -> None:
    b = make_batch(decodes, verifies, kv_heads=kv_heads, group=group, head_dim=head_dim, block_size=block_size,
                   dtype=torch.bfloat16, device=CPU, seed=len(verifies) + head_dim)
    out = one_pass(b, 0.125, softcap)
    assert torch.equal(out, one_row_per_token(b, 0.125, softcap))
    if softcap == 0.0:
        expected = reference_attention(b.q.float(), b.k_cache.float(), b.v_cache.float(), b.meta, 0.125)
        torch.testing.assert_close(out.float(), expected, atol=2e-2, rtol=2e-2)


def test_paged_attention_takes_the_one_pass_for_short_queries() -> None:
    """The eager path's short queries (bfloat16, no window; two tokens, which no other kernel takes) run the one pass,
    bitwise the rows' outputs on the same batch."""
    b = make_batch([30], [(2, 90), (2, 20)], kv_heads=3, group=3, head_dim=64, block_size=16, dtype=torch.bfloat16,
                   device=CPU, seed=11)
    assert torch.equal(kernels.cpu.paged_attention(b.q, b.k_cache, b.v_cache, b.meta, 0.2),
                       one_row_per_token(b, 0.2, 0.0))


def test_bad_short_queries_are_refused() -> None:
    b = make_batch([9], [(5, 40)], kv_heads=3, group=3, head_dim=64, block_size=16, dtype=torch.bfloat16, device=CPU)
    m = b.meta
    with pytest.raises(RuntimeError, match="bfloat16"):
        torch.ops.warden_cpu.short_query_attention(b.q.float(), b.k_cache.float(), b.v_cache.float(),
                                                   m.block_tables, m.seq_lens, m.query_start_loc, 1, 0.1)
    with pytest.raises(RuntimeError, match="decodes"):  # the 5-token sequence is not a decode
        torch.ops.warden_cpu.short_query_attention(b.q, b.k_cache, b.v_cache, m.block_tables, m.seq_lens,
                                                   m.query_start_loc, 2, 0.1)
