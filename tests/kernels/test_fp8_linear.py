"""FP8 (e4m3) W8A8 linears: the per-row quantizer's error bounds, ``torch._scaled_mm``'s path and the CPU's bf16-held
codes against the dequantizing reference, the engine's ``Linear`` serving FP8 against its dense weight, and the kernel
choice. The CUDA checks run where a GPU with FP8 tensor cores is present (``bench/gpu_check.sh`` runs this file on
the device)."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from engine.layers.linear import Linear
from kernels import dispatch
from kernels import fp8_linear as device_fp8
from kernels.reference.fp8_linear import FP8_DTYPE, FP8_MAX, MIN_SCALE, dequantize_rows, fp8_linear, quantize_rows

# A matmul with both operands rounded to e4m3 (3 mantissa bits, so each element within 2**-4 of itself) measures
# ~3.6% relative error (Frobenius) on Gaussian data at K=256; this bound leaves room for other seeds and shapes.
FP8_LINEAR_RELATIVE_ERROR = 0.06

CUDA_FP8 = torch.cuda.is_available() and torch.cuda.get_device_capability() >= (8, 9)
needs_cuda_fp8 = pytest.mark.skipif(not CUDA_FP8, reason="needs a CUDA GPU with FP8 tensor cores (compute capability "
                                                         "8.9+); the CPU runs the same op through torch's CPU kernel")


def relative_error(got: torch.Tensor, expected: torch.Tensor) -> float:
    return float((got.float() - expected.float()).norm() / expected.float().norm())


def spread_weight(out_features: int, in_features: int, seed: int = 0) -> torch.Tensor:
    """Rows whose magnitudes span four decades, so one scale per tensor would crush the small ones."""
    gen = torch.Generator().manual_seed(seed)
    magnitudes = torch.logspace(-3, 1, out_features)[:, None]
    return torch.randn(out_features, in_features, generator=gen) * magnitudes


def test_each_channel_round_trips_within_e4m3_rounding():
    weight = spread_weight(96, 256)
    codes, scales = quantize_rows(weight)
    assert codes.dtype == FP8_DTYPE and scales.shape == (96, 1) and scales.dtype == torch.float32
    restored = dequantize_rows(codes, scales)
    # Normal codes: within half a step of 3 mantissa bits of the value; subnormal ones: half of 2**-9 scales.
    bound = torch.maximum(weight.abs() * 2**-4, scales * 2**-10) * (1 + 1e-6)
    assert bool(((restored - weight).abs() <= bound).all())
    # Each channel's largest magnitude sits on the top code, so its own scale spans it: per-channel, not per-tensor.
    torch.testing.assert_close(restored.abs().amax(dim=1), weight.abs().amax(dim=1), rtol=1e-6, atol=0)
    assert bool((codes.float().abs().amax(dim=1) == FP8_MAX).all())
    per_channel_error = ((restored - weight).norm(dim=1) / weight.norm(dim=1))
    assert float(per_channel_error.max()) < 0.04  # the smallest rows fare as well as the largest


def test_zero_rows_get_the_smallest_scale_and_stay_finite():
    rows = torch.zeros(3, 32)
    rows[1] = torch.linspace(-1, 1, 32)
    codes, scales = quantize_rows(rows)
    assert scales[0].item() == pytest.approx(MIN_SCALE) and scales[2].item() == pytest.approx(MIN_SCALE)
    restored = dequantize_rows(codes, scales)
    assert bool(torch.isfinite(restored).all()) and bool((restored[0] == 0).all())


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_reference_linear_stays_within_the_stated_error_of_the_dense_product(dtype):
    gen = torch.Generator().manual_seed(1)
    weight = (torch.randn(128, 256, generator=gen) * 0.05).to(dtype)
    x = torch.randn(9, 256, generator=gen).to(dtype)
    codes, scales = quantize_rows(weight)
    got = fp8_linear(x, codes, scales.reshape(1, -1))
    assert got.dtype == dtype and got.shape == (9, 128)
    assert relative_error(got, F.linear(x.float(), weight.float())) < FP8_LINEAR_RELATIVE_ERROR


@pytest.mark.skipif(not device_fp8.scaled_mm_runs(torch.device("cpu")), reason="this torch has no CPU _scaled_mm")
@pytest.mark.parametrize(("dtype", "tolerance"), [(torch.float32, 1e-5), (torch.bfloat16, 1e-2)])
def test_scaled_mm_computes_the_reference_on_the_cpu(dtype, tolerance):
    gen = torch.Generator().manual_seed(2)
    codes, scales = quantize_rows(torch.randn(48, 80, generator=gen) * 0.1)
    x = torch.randn(5, 80, generator=gen).to(dtype)
    got = device_fp8.scaled_mm_linear(x, codes, scales.reshape(1, -1))
    torch.testing.assert_close(got, fp8_linear(x, codes, scales.reshape(1, -1)), rtol=tolerance, atol=tolerance)


def test_codes_held_in_bf16_compute_the_reference_on_the_cpu():
    """e4m3 values are exact in bf16, so the bf16 GEMM on them is the FP8 product, rounded once to bf16."""
    gen = torch.Generator().manual_seed(5)
    codes, scales = quantize_rows(torch.randn(48, 80, generator=gen) * 0.1)
    assert torch.equal(codes.to(torch.bfloat16).float(), codes.float())
    x = torch.randn(5, 80, generator=gen).bfloat16()
    got = device_fp8.codes_linear(x, codes.to(torch.bfloat16), scales.reshape(1, -1))
    torch.testing.assert_close(got, fp8_linear(x, codes, scales.reshape(1, -1)), rtol=1e-2, atol=1e-2)


def test_the_kernel_choice_follows_the_device_and_the_reference_switch(monkeypatch):
    cpu = torch.device("cpu")
    assert dispatch.fp8_linear(cpu, 64, 64) == (device_fp8.codes_linear, torch.bfloat16)
    monkeypatch.setenv("WARDEN_KERNELS", "reference")
    assert dispatch.fp8_linear(cpu, 64, 64) == (fp8_linear, torch.bfloat16)
    # cuBLASLt reads K and N in tiles of 16: a CUDA layer of another shape takes the reference.
    assert not device_fp8.scaled_mm_serves(torch.device("cuda"), 64, 72)


def make_layer(out_features: int, in_features: int, dtype: torch.dtype, device: str = "cpu",
               bias: bool = False) -> Linear:
    layer = Linear(in_features, out_features, bias=bias)
    gen = torch.Generator().manual_seed(3)
    with torch.no_grad():
        layer.weight.copy_(torch.randn(out_features, in_features, generator=gen) * 0.05)
        if layer.bias is not None:
            layer.bias.copy_(torch.randn(out_features, generator=gen))
    return layer.to(device=device, dtype=dtype)


@pytest.mark.parametrize("rows", [1, 4, 37])
def test_linear_serves_fp8_at_every_row_count_near_its_bf16_output(rows):
    layer = make_layer(96, 128, torch.bfloat16, bias=True)
    x = torch.randn(rows, 128).bfloat16()
    dense = F.linear(x.float(), layer.weight.float(), layer.bias.float())
    layer.quantize_fp8()
    assert layer.quant_kind == "fp8" and layer.quant_weight is not None
    codes, _ = quantize_rows(layer.weight)
    assert torch.equal(layer.quant_weight.float(), codes.float())  # the e4m3 codes, held in bf16 on the CPU
    layer.release_dense_weight()  # the FP8 copy serves every row count: nothing reads the dense weight again
    got = layer(x)
    assert got.dtype == torch.bfloat16 and got.shape == (rows, 96)
    assert relative_error(got, dense) < FP8_LINEAR_RELATIVE_ERROR


def test_linear_fp8_takes_leading_dimensions():
    layer = make_layer(32, 64, torch.float32)
    layer.quantize_fp8()
    x = torch.randn(2, 3, 64)
    torch.testing.assert_close(layer(x), layer(x.reshape(6, 64)).reshape(2, 3, 32))


@needs_cuda_fp8
@pytest.mark.parametrize("rows", [1, 16, 300])
def test_cuda_scaled_mm_matches_the_reference(rows):
    gen = torch.Generator().manual_seed(4)
    codes, scales = quantize_rows(torch.randn(256, 576, generator=gen) * 0.05)
    x = torch.randn(rows, 576, generator=gen).bfloat16()
    weight, weight_scale = codes.cuda(), scales.reshape(1, -1).cuda()
    assert dispatch.fp8_linear(torch.device("cuda"), 256, 576) == (device_fp8.scaled_mm_linear, FP8_DTYPE)
    got = device_fp8.scaled_mm_linear(x.cuda(), weight, weight_scale)
    expected = fp8_linear(x, codes, scales.reshape(1, -1))
    torch.testing.assert_close(got.cpu(), expected, rtol=1e-2, atol=1e-2)


@needs_cuda_fp8
def test_cuda_fp8_linear_replays_in_a_cuda_graph():
    """Decode steps replay CUDA graphs: the per-token quantization and the GEMM must capture without host syncs."""
    layer = make_layer(256, 576, torch.bfloat16, device="cuda")
    dense = make_layer(256, 576, torch.float32)
    layer.quantize_fp8()
    assert layer.quant_weight is not None and layer.quant_weight.dtype == FP8_DTYPE  # half of bf16's bytes
    layer.release_dense_weight()
    static_x = torch.zeros(8, 576, device="cuda", dtype=torch.bfloat16)
    layer(static_x)  # warm-up outside the capture (cuBLASLt picks its algorithm)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        static_y = layer(static_x)
    x = torch.randn(8, 576)
    static_x.copy_(x.bfloat16())
    graph.replay()
    assert relative_error(static_y.cpu(), F.linear(x, dense.weight)) < FP8_LINEAR_RELATIVE_ERROR
