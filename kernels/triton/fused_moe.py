"""Mixture-of-experts feed-forward as two grouped GEMMs over expert-sorted rows (vLLM's ``fused_moe`` scheme),
with ``kernels.reference.fused_moe``'s signature.

``moe_align_block_size`` sorts the ``tokens * top_k`` (token, slot) rows by expert and pads each expert's run to a
multiple of ``BLOCK_M``, so every ``BLOCK_M`` block of the sorted order belongs to one expert: a program multiplies
one block of rows by one ``BLOCK_N`` slice of that expert's weight, reading the rows through the sorted ids (no
gathered copy of the activations). Padding ids are ``tokens * top_k``, masked on load and store. The first GEMM
writes ``x @ w13[e].T`` for each row; the second computes SiLU-and-mul of those gate|up rows as it loads them (no
activation tensor is written) and writes ``act @ w2[e].T`` times the row's routing weight; the ``top_k`` rows of each
token are then summed.

Everything is sized from host-known bounds (rows at most ``tokens * top_k + min(experts, tokens * top_k) *
(BLOCK_M - 1)``; programs past the padded total exit at once), with no host synchronisation, so a decode step's
forward can be captured in a CUDA graph.
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl


def moe_align_block_size(topk_ids: torch.Tensor, block_m: int, num_experts: int
                         ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``(sorted_ids, expert_ids, total)``: the flat row ids (``token * top_k + slot``) grouped by expert, each
    expert's run padded with ``tokens * top_k`` to a multiple of ``block_m`` (int32, length the host bound); the
    expert of each block of ``block_m`` (int32; blocks past the total hold ``num_experts``); and the padded total
    (int32, one element)."""
    flat = topk_ids.reshape(-1).long()
    n = flat.numel()
    device = flat.device
    counts = torch.zeros(num_experts, dtype=torch.long, device=device).scatter_add_(0, flat, torch.ones_like(flat))
    padded = (counts + block_m - 1) // block_m * block_m
    padded_ends = torch.cumsum(padded, 0)
    order = torch.argsort(flat, stable=True)
    experts = flat[order]
    first_row = torch.cumsum(counts, 0) - counts  # each expert's first row in the unpadded sorted order
    dest = (padded_ends - padded)[experts] + torch.arange(n, device=device) - first_row[experts]
    bound = n + min(num_experts, n) * (block_m - 1)
    sorted_ids = torch.full((bound,), n, dtype=torch.int32, device=device)
    sorted_ids.scatter_(0, dest, order.to(torch.int32))
    blocks = torch.arange(triton.cdiv(bound, block_m), device=device) * block_m
    expert_ids = torch.searchsorted(padded_ends, blocks, right=True).to(torch.int32)
    return sorted_ids, expert_ids, padded_ends[-1:].to(torch.int32)


@triton.jit
def _grouped_gemm_kernel(
    a_ptr, b_ptr, c_ptr, weights_ptr, sorted_ids_ptr, expert_ids_ptr, total_ptr,
    N, K, num_rows,
    stride_am, stride_ak, stride_be, stride_bn, stride_bk, stride_cm, stride_cn,
    A_ROWS_PER_TOKEN: tl.constexpr, SILU_MUL_A: tl.constexpr, MUL_WEIGHT: tl.constexpr, PRECISION: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
):
    """``c[row] = a[row // A_ROWS_PER_TOKEN] @ b[expert].T`` (times ``weights[row]`` under ``MUL_WEIGHT``) for the
    block of sorted rows this program owns. ``SILU_MUL_A``: ``a``'s rows are gate|up halves of ``2 * K`` columns,
    and the row multiplied is ``silu(gate) * up``."""
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    if pid_m * BLOCK_M < tl.load(total_ptr):
        rows = tl.load(sorted_ids_ptr + pid_m * BLOCK_M + tl.arange(0, BLOCK_M))
        valid = rows < num_rows
        expert = tl.load(expert_ids_ptr + pid_m).to(tl.int64)
        offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        offs_k = tl.arange(0, BLOCK_K)
        a_rows = (rows // A_ROWS_PER_TOKEN).to(tl.int64)
        a_ptrs = a_ptr + a_rows[:, None] * stride_am + offs_k[None, :] * stride_ak
        b_ptrs = b_ptr + expert * stride_be + offs_n[None, :] * stride_bn + offs_k[:, None] * stride_bk
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k0 in range(0, K, BLOCK_K):
            k_mask = offs_k < K - k0
            a = tl.load(a_ptrs, mask=valid[:, None] & k_mask[None, :], other=0.0)
            if SILU_MUL_A:
                up = tl.load(a_ptrs + K * stride_ak, mask=valid[:, None] & k_mask[None, :], other=0.0)
                gate = a.to(tl.float32)
                a = (gate / (1.0 + tl.exp(-gate)) * up.to(tl.float32)).to(up.dtype)
            b = tl.load(b_ptrs, mask=k_mask[:, None] & (offs_n[None, :] < N), other=0.0)
            acc += tl.dot(a, b, input_precision=PRECISION)
            a_ptrs += BLOCK_K * stride_ak
            b_ptrs += BLOCK_K * stride_bk
        if MUL_WEIGHT:
            acc = acc * tl.load(weights_ptr + rows, mask=valid, other=0.0)[:, None]
        c_ptrs = c_ptr + rows.to(tl.int64)[:, None] * stride_cm + offs_n[None, :] * stride_cn
        tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=valid[:, None] & (offs_n[None, :] < N))


BLOCK_M, BLOCK_N, BLOCK_K = 16, 64, 32


def _grouped_gemm(a: torch.Tensor, w: torch.Tensor, out: torch.Tensor, weights: torch.Tensor,
                  align: tuple[torch.Tensor, torch.Tensor, torch.Tensor], a_rows_per_token: int,
                  silu_mul_a: bool, mul_weight: bool) -> None:
    sorted_ids, expert_ids, total = align
    n, k = w.shape[1], w.shape[2]
    grid = (expert_ids.shape[0], triton.cdiv(n, BLOCK_N))
    _grouped_gemm_kernel[grid](
        a, w, out, weights, sorted_ids, expert_ids, total, n, k, out.shape[0],
        a.stride(0), a.stride(1), w.stride(0), w.stride(1), w.stride(2), out.stride(0), out.stride(1),
        A_ROWS_PER_TOKEN=a_rows_per_token, SILU_MUL_A=silu_mul_a, MUL_WEIGHT=mul_weight,
        PRECISION="ieee" if a.dtype == torch.float32 else "tf32",
        BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K,
    )


def fused_moe(x: torch.Tensor, w13: torch.Tensor, w2: torch.Tensor, topk_weights: torch.Tensor,
              topk_ids: torch.Tensor) -> torch.Tensor:
    tokens, top_k = topk_ids.shape
    rows = tokens * top_k
    if rows == 0:
        return torch.zeros_like(x)
    align = moe_align_block_size(topk_ids, BLOCK_M, w13.shape[0])
    weights = topk_weights.reshape(-1).float().contiguous()
    gate_up = x.new_empty(rows, w13.shape[1])
    _grouped_gemm(x, w13, gate_up, weights, align, top_k, silu_mul_a=False, mul_weight=False)
    down = x.new_empty(rows, w2.shape[1])
    _grouped_gemm(gate_up, w2, down, weights, align, 1, silu_mul_a=True, mul_weight=True)
    return down.view(tokens, top_k, -1).sum(dim=1, dtype=torch.float32).to(x.dtype)
