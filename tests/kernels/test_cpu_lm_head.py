"""The C++ LM head (kernels/cpu/lm_head.cpp: int8 weights packed for vpdpbusd, inputs quantized per row in one or
two levels) equals its plain-torch reference, kernels.reference.quantized_linear.int8_head_linear."""

from __future__ import annotations

import pytest
import torch

import kernels.cpu
from engine.distributed.parallel_state import TensorParallelRank
from engine.layers.linear import Linear
from engine.layers.vocab_parallel import ParallelLMHead
from kernels.reference.quantized_linear import int8_head_linear

pytestmark = [
    pytest.mark.skipif(not kernels.cpu.load(), reason="no C++ toolchain to build the CPU kernels"),
    pytest.mark.skipif(kernels.cpu.load() and not kernels.cpu.lm_head_supported(16, 4),
                       reason="no AVX-512 VNNI: lm_head_linear does not run here"),
]


def int8_weight(out_features: int, in_features: int, dtype: torch.dtype = torch.bfloat16,
                seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    """The int8 weight and scales as ``Linear.quantize_int8`` makes them."""
    layer = Linear(in_features, out_features)
    generator = torch.Generator().manual_seed(seed)
    layer.weight.data = (torch.randn(out_features, in_features, generator=generator) * 0.02).to(dtype)
    layer.quantize_int8(max_rows=None)
    assert layer.quant_weight is not None and layer.quant_scales is not None
    return layer.quant_weight, layer.quant_scales


def head(x: torch.Tensor, weight: torch.Tensor, scales: torch.Tensor, levels: int = 2) -> torch.Tensor:
    return kernels.cpu.lm_head_linear(x, kernels.cpu.lm_head_pack(weight), scales, levels)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16, torch.float32])
@pytest.mark.parametrize(("out_features", "in_features"), [(16, 4), (112, 64), (960, 576), (8192, 576)])
@pytest.mark.parametrize("rows", [1, 2, 3, 5, 9])
@pytest.mark.parametrize("levels", [1, 2])
def test_equals_the_reference(dtype, out_features, in_features, rows, levels) -> None:
    """112 outputs: a group of 6 blocks and a last one of 1; rows 3, 5, 9: tiles of fewer than 4 quantized rows."""
    weight, scales = int8_weight(out_features, in_features, dtype, seed=out_features + rows)
    x = torch.randn(rows, in_features, dtype=dtype)
    out, expected = head(x, weight, scales, levels), int8_head_linear(x, weight, scales, levels)
    assert out.dtype == dtype and out.shape == (rows, out_features)
    # The integer dots are exact; what differs is float32 rounding in another order, then the output's dtype.
    tolerance = 1e-5 if dtype == torch.float32 else 1e-2
    torch.testing.assert_close(out.float(), expected.float(), rtol=tolerance, atol=tolerance)


@pytest.mark.parametrize("levels", [1, 2])
def test_each_row_is_bitwise_what_it_gets_alone(levels: int) -> None:
    """A row's operations do not depend on the tile it shares: a step's rows do not change each other's logits."""
    weight, scales = int8_weight(960, 576)
    packed = kernels.cpu.lm_head_pack(weight)
    x = torch.randn(11, 576, dtype=torch.bfloat16)
    together = kernels.cpu.lm_head_linear(x, packed, scales, levels)
    for m in range(x.shape[0]):
        assert torch.equal(together[m], kernels.cpu.lm_head_linear(x[m:m + 1], packed, scales, levels)[0])


def test_two_levels_stay_as_close_to_torchs_kernel_as_the_int8_linear() -> None:
    """An LM-head-like shape: with both levels the per-row scale loses no more than bfloat16 rounding does, as the
    grouped int8_linear; one level alone is several times further (and moved SmolLM2's greedy tokens)."""
    weight, scales = int8_weight(8192, 576)
    x = torch.randn(4, 576, dtype=torch.bfloat16)
    torchs = torch._weight_int8pack_mm(x, weight, scales).float()

    def error(out: torch.Tensor) -> float:
        return float((out.float() - torchs).pow(2).mean().sqrt() / torchs.pow(2).mean().sqrt())

    two_levels, grouped = error(head(x, weight, scales, 2)), error(kernels.cpu.int8_linear(x, weight, scales))
    assert two_levels < 0.002 and two_levels < 1.5 * grouped
    assert error(head(x, weight, scales, 1)) > 2 * two_levels
    assert torch.equal(head(x, weight, scales, 2).float().argmax(dim=1), torchs.argmax(dim=1))


def test_rows_of_zeros_extremes_and_nan() -> None:
    """Weights at -128 and 127 against inputs at the code limits (the flipped sign's range); a zero row gives zeros;
    a row with a NaN gives NaN logits, and only that row."""
    weight, scales = int8_weight(32, 64, torch.float32)
    weight[0], weight[1] = -128, 127
    x = torch.zeros(3, 64)
    x[1] = torch.tensor([1.0, -1.0] * 32)
    x[2, 5] = float("nan")
    out = head(x, weight, scales)
    assert torch.equal(out[0], torch.zeros(32)) and bool(out[2].isnan().all())
    torch.testing.assert_close(out[:2], int8_head_linear(x[:2], weight, scales), rtol=1e-5, atol=1e-5)


def test_what_it_cannot_read_is_refused() -> None:
    weight, scales = int8_weight(32, 64)
    packed = kernels.cpu.lm_head_pack(weight)
    x = torch.randn(2, 64, dtype=torch.bfloat16)
    with pytest.raises(RuntimeError, match="multiple of 16"):
        kernels.cpu.lm_head_pack(weight[:24].contiguous())
    with pytest.raises(RuntimeError, match="int8"):
        kernels.cpu.lm_head_pack(weight.to(torch.uint8))
    with pytest.raises(RuntimeError, match="levels"):
        kernels.cpu.lm_head_linear(x, packed, scales, 3)
    with pytest.raises(RuntimeError, match="packed"):
        kernels.cpu.lm_head_linear(x[:, :32], packed, scales, 2)
    with pytest.raises(RuntimeError, match="scales"):
        kernels.cpu.lm_head_linear(x, packed, scales.float(), 2)
    with pytest.raises(RuntimeError, match="float32, bfloat16 or float16"):
        kernels.cpu.lm_head_linear(x.double(), packed, scales.double(), 2)
    assert not kernels.cpu.lm_head_supported(24, 64) and not kernels.cpu.lm_head_supported(32, 66)


@pytest.mark.parametrize("rows", [1, 4, 40])
def test_the_int8_lm_head_runs_this_kernel_at_every_row_count(rows: int) -> None:
    """The engine's int8 head (ParallelLMHead.quantize_int8, as the int4 profile quantizes it) packs its weight once
    and every step's rows go through lm_head_linear in two levels, whatever its kernel rows."""
    layer = ParallelLMHead(576, 960, TensorParallelRank(0, 1))
    layer.weight.data = (torch.randn(960, 576) * 0.02).to(torch.bfloat16)
    layer.quantize_int8(max_rows=64, kernel_rows=4)
    assert layer.quant_packed is not None and layer.quant_weight is not None and layer.quant_scales is not None
    x = torch.randn(rows, 576, dtype=torch.bfloat16)
    with torch.profiler.profile() as profile:
        out = layer(x)
    assert "warden_cpu::lm_head_linear" in {event.name for event in profile.events()}
    assert torch.equal(out, head(x, layer.quant_weight, layer.quant_scales, 2))
