"""The mixture-of-experts kernels against the definition: the reference against a per-token loop, the grouped CPU
path and the Triton grouped GEMM (interpreted on the CPU; natively on CUDA when present) against the reference."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from engine.layers.fused_moe import select_experts
from kernels.cpu import fused_moe as cpu_moe
from kernels.reference import fused_moe as ref_moe
from tests.kernels.conftest import TOLERANCE


def per_token(x, w13, w2, topk_weights, topk_ids):
    """The definition, one token and one of its experts at a time."""
    out = torch.zeros(x.shape, dtype=torch.float64)
    for t in range(x.shape[0]):
        for j in range(topk_ids.shape[1]):
            e = int(topk_ids[t, j])
            gate, up = (w13[e].double() @ x[t].double()).chunk(2)
            out[t] += topk_weights[t, j].double() * (w2[e].double() @ (F.silu(gate) * up))
    return out


def problem(tokens: int, experts: int, top_k: int, hidden: int, inter: int, dtype=torch.float32,
            device="cpu", seed: int = 0, skewed: bool = False):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(tokens, hidden, generator=g)
    w13 = torch.randn(experts, 2 * inter, hidden, generator=g) / hidden**0.5
    w2 = torch.randn(experts, hidden, inter, generator=g) / inter**0.5
    logits = torch.randn(tokens, experts, generator=g)
    if skewed:  # most tokens to the first experts, some experts get none
        logits[:, : experts // 2] += 4.0
    weights, ids = select_experts(logits, top_k, renormalize=True)
    return (x.to(device, dtype), w13.to(device, dtype), w2.to(device, dtype), weights.to(device), ids.to(device))


SHAPES = [  # tokens, experts, top_k, hidden, inter
    (1, 8, 2, 64, 32),
    (5, 8, 2, 64, 32),
    (37, 16, 4, 48, 24),
    (64, 4, 1, 32, 64),
]


@pytest.mark.parametrize("shape", SHAPES, ids=[f"t{s[0]}-e{s[1]}-k{s[2]}" for s in SHAPES])
def test_reference_is_the_per_token_definition(shape):
    args = problem(*shape)
    torch.testing.assert_close(ref_moe.fused_moe(*args).double(), per_token(*args), atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("skewed", [False, True], ids=["spread", "skewed"])
@pytest.mark.parametrize("shape", SHAPES, ids=[f"t{s[0]}-e{s[1]}-k{s[2]}" for s in SHAPES])
def test_grouped_cpu_path_matches_reference(shape, skewed):
    args = problem(*shape, skewed=skewed)
    torch.testing.assert_close(cpu_moe.fused_moe(*args), ref_moe.fused_moe(*args), atol=2e-5, rtol=2e-5)


def test_grouped_cpu_path_bfloat16():
    args = problem(33, 8, 2, 64, 32, dtype=torch.bfloat16)
    ours, ref = cpu_moe.fused_moe(*args), ref_moe.fused_moe(*args)
    assert ours.dtype == torch.bfloat16
    torch.testing.assert_close(ours, ref, **TOLERANCE[torch.bfloat16])


def test_expert_groups_sort_rows_by_expert_keeping_token_order():
    ids = torch.tensor([[3, 1], [1, 0], [3, 2], [0, 1]])
    order, counts = cpu_moe.expert_groups(ids, 5)
    assert counts == [2, 3, 1, 2, 0]
    flat = ids.reshape(-1)
    assert flat[order].tolist() == [0, 0, 1, 1, 1, 2, 3, 3]
    assert order.tolist() == [3, 6, 1, 2, 7, 5, 0, 4]  # within an expert, in (token, slot) order


def test_select_experts_renormalises_only_when_asked():
    logits = torch.tensor([[2.0, 1.0, 0.5, -1.0]])
    weights, ids = select_experts(logits, 2, renormalize=False)
    probs = torch.softmax(logits, -1)
    assert ids.tolist() == [[0, 1]]
    torch.testing.assert_close(weights, probs[:, :2])
    weights, _ = select_experts(logits, 2, renormalize=True)
    torch.testing.assert_close(weights, probs[:, :2] / probs[:, :2].sum())


# --- Triton grouped GEMM (interpreted on the CPU; natively on CUDA when present) ---------------------------------
TRITON_SHAPES = [  # tokens, experts, top_k, hidden, inter: one token; uneven widths (masked tiles); many tokens
    (1, 8, 2, 64, 32),
    (7, 6, 2, 40, 24),
    (40, 4, 2, 32, 48),
]


@pytest.mark.parametrize("shape", TRITON_SHAPES, ids=[f"t{s[0]}-e{s[1]}-k{s[2]}" for s in TRITON_SHAPES])
def test_triton_grouped_gemm_matches_reference(ops, backend, shape):
    args = problem(*shape, dtype=backend.dtype, device=backend.device, skewed=True)
    ours = ops.fused_moe(*args)
    assert ours.dtype == backend.dtype and ours.shape == args[0].shape
    torch.testing.assert_close(ours, ref_moe.fused_moe(*args), **TOLERANCE[backend.dtype])


def test_align_block_size_pads_each_expert_to_whole_blocks(ops, backend):
    align = ops.modules["fused_moe"].moe_align_block_size
    ids = torch.tensor([[3, 1], [1, 0], [3, 2], [0, 1]], device=backend.device)
    sorted_ids, expert_ids, total = align(ids, 4, 5)
    n = ids.numel()
    assert int(total) == 16  # experts 0..3 hold 2, 3, 1, 2 rows: one block of 4 each; expert 4 none
    assert sorted_ids.shape[0] == n + min(5, n) * 3  # the host bound
    blocks = sorted_ids[:16].view(4, 4).tolist()
    assert blocks == [[3, 6, n, n], [1, 2, 7, n], [5, n, n, n], [0, 4, n, n]]
    assert expert_ids[:4].tolist() == [0, 1, 2, 3]
    assert (sorted_ids[16:] == n).all() and (expert_ids[4:] == 5).all()


def test_triton_fused_moe_with_no_tokens(ops, backend):
    x, w13, w2, weights, ids = problem(3, 4, 2, 32, 16, dtype=backend.dtype, device=backend.device)
    out = ops.fused_moe(x[:0], w13, w2, weights[:0], ids[:0])
    assert out.shape == (0, 32)
