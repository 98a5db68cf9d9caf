"""Fused RMSNorm (+ residual), rotary embedding and SiLU-and-mul: Triton against the torch reference."""

from __future__ import annotations

from types import ModuleType

import pytest
import torch

from kernels.reference.activation import silu_and_mul as reference_silu_and_mul
from kernels.reference.rms_norm import fused_add_rms_norm as reference_fused_add_rms_norm
from kernels.reference.rms_norm import rms_norm as reference_rms_norm
from kernels.reference.rotary import rotary_embedding as reference_rotary
from tests.kernels.conftest import TOLERANCE, Backend


def _randn(*shape: int, backend: Backend, seed: int, scale: float = 1.0) -> torch.Tensor:
    gen = torch.Generator().manual_seed(seed)
    return (torch.randn(*shape, generator=gen) * scale).to(backend.dtype).to(backend.device)


@pytest.mark.parametrize(("rows", "hidden"), [(1, 576), (7, 64), (5, 100)])  # SmolLM2's width, pow2, ragged
def test_rms_norm(ops: ModuleType, backend: Backend, rows: int, hidden: int) -> None:
    x = _randn(rows, hidden, backend=backend, seed=hidden, scale=3.0)
    weight = _randn(hidden, backend=backend, seed=hidden + 1)
    expected = reference_rms_norm(x, weight, 1e-5)
    out = ops.rms_norm(x, weight, 1e-5)
    assert out.dtype == expected.dtype
    torch.testing.assert_close(out, expected, **TOLERANCE[backend.dtype])


@pytest.mark.parametrize(("rows", "hidden"), [(1, 576), (9, 100)])
def test_fused_add_rms_norm(ops: ModuleType, backend: Backend, rows: int, hidden: int) -> None:
    x = _randn(rows, hidden, backend=backend, seed=hidden)
    residual = _randn(rows, hidden, backend=backend, seed=hidden + 2, scale=4.0)
    weight = _randn(hidden, backend=backend, seed=hidden + 1)
    expected, expected_residual = reference_fused_add_rms_norm(x, residual, weight, 1e-6)
    out, new_residual = ops.fused_add_rms_norm(x, residual, weight, 1e-6)
    assert torch.equal(new_residual, expected_residual)  # the same single rounding of x + residual
    torch.testing.assert_close(out, expected, **TOLERANCE[backend.dtype])


def _rope_tables(max_position: int, head_dim: int, backend: Backend) -> tuple[torch.Tensor, torch.Tensor]:
    inv_freq = 1.0 / (10000.0 ** (torch.arange(0, head_dim, 2, dtype=torch.float32) / head_dim))
    freqs = torch.outer(torch.arange(max_position, dtype=torch.float32), inv_freq)
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos().to(backend.device), emb.sin().to(backend.device)


@pytest.mark.parametrize(("tokens", "heads", "kv_heads", "head_dim"), [(1, 9, 3, 64), (13, 4, 4, 32), (6, 8, 1, 48)])
@pytest.mark.parametrize("tokens_per_program", [None, 1, 8])  # None: the default
def test_rotary_embedding(ops: ModuleType, backend: Backend, tokens: int, heads: int, kv_heads: int,
                          head_dim: int, tokens_per_program: int | None) -> None:
    # q and k as the model produces them: strided views into one fused qkv projection.
    qkv = _randn(tokens, (heads + 2 * kv_heads) * head_dim, backend=backend, seed=tokens)
    q = qkv[:, : heads * head_dim].view(tokens, heads, head_dim)
    k = qkv[:, heads * head_dim : (heads + kv_heads) * head_dim].view(tokens, kv_heads, head_dim)
    cos, sin = _rope_tables(300, head_dim, backend)
    gen = torch.Generator().manual_seed(tokens)
    positions = torch.randint(0, 300, (tokens,), generator=gen).to(backend.device)
    expected_q, expected_k = reference_rotary(positions, q, k, cos, sin)
    if tokens_per_program is None:
        out_q, out_k = ops.rotary_embedding(positions, q, k, cos, sin)
    else:  # a count that leaves a ragged last program (13 tokens, 8 per program) and one per token
        out_q, out_k = ops.modules["rotary"].rotate(positions, q, k, cos, sin, tokens_per_program)
    torch.testing.assert_close(out_q, expected_q, **TOLERANCE[backend.dtype])
    torch.testing.assert_close(out_k, expected_k, **TOLERANCE[backend.dtype])


@pytest.mark.parametrize(("rows", "d"), [(1, 1536), (6, 100), (3, 2500)])  # SmolLM2's width, ragged, > one block
def test_silu_and_mul(ops: ModuleType, backend: Backend, rows: int, d: int) -> None:
    x = _randn(rows, 2 * d, backend=backend, seed=d, scale=2.0)
    torch.testing.assert_close(ops.silu_and_mul(x), reference_silu_and_mul(x), **TOLERANCE[backend.dtype])
