"""HF checkpoints stored in FP8 (``engine.loader.fp8_checkpoint``): the formats ``quantization_config`` names, the
weights dequantized with their per-tensor, per-channel or per-block scales as they stream, and a tiny Llama saved
in FP8 loading into the engine with its own codes."""

from __future__ import annotations

import pytest
import torch

from engine.errors import UnknownModelError
from engine.loader.fp8_checkpoint import (
    Fp8CheckpointFormat,
    checkpoint_fp8_format,
    dequantize_fp8,
    dequantized_tensors,
)
from engine.loader.hf_loader import count_hf_tensors, iter_hf_tensors
from kernels.reference.fp8_linear import FP8_DTYPE

from .fp8_checkpoints import QUANTIZED_LINEARS, checkpoint_tensors, write_fp8_checkpoint
from .tiny_models import write_tiny_checkpoint

DYNAMIC = Fp8CheckpointFormat(weight_block_size=None, activation_scheme="dynamic")


def codes(rows: int, cols: int, seed: int = 0) -> torch.Tensor:
    return (torch.randn(rows, cols, generator=torch.Generator().manual_seed(seed)) * 100).to(FP8_DTYPE)


def test_the_config_names_the_format():
    assert checkpoint_fp8_format({"model_type": "llama"}) is None
    assert checkpoint_fp8_format({"quantization_config": {"quant_method": "fp8"}}) == DYNAMIC
    blocked = checkpoint_fp8_format({"quantization_config": {"quant_method": "fp8", "activation_scheme": "static",
                                                             "weight_block_size": [128, 128]}})
    assert blocked == Fp8CheckpointFormat((128, 128), "static")
    with pytest.raises(UnknownModelError, match="gptq"):
        checkpoint_fp8_format({"quantization_config": {"quant_method": "gptq", "bits": 4}})
    with pytest.raises(UnknownModelError, match="weight_block_size"):
        checkpoint_fp8_format({"quantization_config": {"quant_method": "fp8", "weight_block_size": [128]}})


def test_per_tensor_and_per_channel_scales_multiply_the_codes():
    weight = codes(4, 8)
    torch.testing.assert_close(dequantize_fp8(weight, torch.tensor(0.5)), weight.float() * 0.5, rtol=0, atol=0)
    torch.testing.assert_close(dequantize_fp8(weight, torch.tensor([0.5])), weight.float() * 0.5, rtol=0, atol=0)
    per_row = torch.tensor([1.0, 2.0, 3.0, 4.0])
    expected = weight.float() * per_row[:, None]
    torch.testing.assert_close(dequantize_fp8(weight, per_row), expected, rtol=0, atol=0)
    torch.testing.assert_close(dequantize_fp8(weight, per_row[:, None]), expected, rtol=0, atol=0)
    with pytest.raises(UnknownModelError, match="3 scales"):
        dequantize_fp8(weight, torch.ones(3))


def test_block_scales_cover_partial_blocks_at_the_edges():
    weight = codes(5, 7)
    scales = torch.tensor([[1.0, 2.0], [3.0, 4.0]])  # blocks of 4 x 4: the last row and column blocks are partial
    got = dequantize_fp8(weight, scales, block=(4, 4))
    values = weight.float()
    torch.testing.assert_close(got[:4, :4], values[:4, :4] * 1.0, rtol=0, atol=0)
    torch.testing.assert_close(got[:4, 4:], values[:4, 4:] * 2.0, rtol=0, atol=0)
    torch.testing.assert_close(got[4:, :4], values[4:, :4] * 3.0, rtol=0, atol=0)
    torch.testing.assert_close(got[4:, 4:], values[4:, 4:] * 4.0, rtol=0, atol=0)
    with pytest.raises(UnknownModelError, match="do not cover"):
        dequantize_fp8(weight, scales[:1], block=(4, 4))


def test_weights_meet_their_scales_in_either_order_and_input_scales_are_skipped():
    a, b = codes(2, 4, seed=1), codes(3, 4, seed=2)
    stream = [("a.weight", a), ("a.weight_scale", torch.tensor([1.0, 2.0])), ("a.input_scale", torch.tensor(0.1)),
              ("b.weight_scale", torch.tensor(3.0)), ("norm.weight", torch.ones(4)), ("b.weight", b)]
    out = dict(dequantized_tensors(iter(stream), DYNAMIC))
    assert list(out) == ["a.weight", "norm.weight", "b.weight"]
    torch.testing.assert_close(out["a.weight"], a.float() * torch.tensor([[1.0], [2.0]]), rtol=0, atol=0)
    torch.testing.assert_close(out["b.weight"], b.float() * 3.0, rtol=0, atol=0)
    assert out["norm.weight"].dtype == torch.float32


def test_a_weight_without_its_scale_or_with_the_wrong_kind_is_refused():
    with pytest.raises(UnknownModelError, match=r"without a \.weight_scale"):
        list(dequantized_tensors(iter([("a.weight", codes(2, 4))]), DYNAMIC))
    with pytest.raises(UnknownModelError, match="weight_scale_inv"):
        list(dequantized_tensors(iter([("a.weight_scale_inv", torch.ones(1, 1))]), DYNAMIC))


@pytest.mark.parametrize("lazy", [False, True])
@pytest.mark.parametrize("per_tensor", [False, True])
def test_an_fp8_checkpoint_streams_dequantized_weights(tmp_path, lazy, per_tensor):
    """Lazy: a tensor-parallel rank's safetensors slices, valid only until the stream moves on."""
    source = write_tiny_checkpoint(tmp_path / "dense", num_hidden_layers=1)
    fp8 = write_fp8_checkpoint(source, tmp_path / "fp8", per_tensor=per_tensor, activation_scheme="static")
    stored = checkpoint_tensors(fp8)
    streamed = {name: tensor if isinstance(tensor, torch.Tensor) else tensor[:]
                for name, tensor in iter_hf_tensors(fp8, lazy=lazy)}
    assert not any(name.endswith(("_scale", "input_scale")) for name in streamed)
    assert len(streamed) == count_hf_tensors(fp8) == len(checkpoint_tensors(source))
    quantized = [name for name, tensor in stored.items() if tensor.dtype == FP8_DTYPE]
    assert len(quantized) == len(QUANTIZED_LINEARS)  # one decoder layer's seven linears
    for name in quantized:
        scale = stored[name.removesuffix(".weight") + ".weight_scale"]
        expected = stored[name].float() * (scale if per_tensor else scale.reshape(-1, 1))
        torch.testing.assert_close(streamed[name], expected, rtol=0, atol=0)
