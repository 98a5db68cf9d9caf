"""The CPU serving copies of a linear weight (``engine.layers.linear``) against the dense ``F.linear``."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from engine.config import EngineConfig
from engine.layers.linear import INT4_GROUP_SIZE, Linear, cpu_prepack_supported
from engine.llm import LLM
from engine.sampling_params import SamplingParams
from engine.worker.model_runner import GEMM_SMALL_BATCH_ROWS, HEAD_KERNEL_ROWS, SMALL_BATCH_ROWS, int4_kernel_rows
from kernels import dispatch
from tests.engine.test_compiled_model import assert_close_top_logprobs


def make_linear(out_features: int, in_features: int, dtype: torch.dtype, bias: bool = False) -> Linear:
    layer = Linear(in_features, out_features, bias=bias)
    gen = torch.Generator().manual_seed(0)
    with torch.no_grad():
        layer.weight.copy_(torch.randn(out_features, in_features, generator=gen) * 0.05)
        if layer.bias is not None:
            layer.bias.copy_(torch.randn(out_features, generator=gen))
    return layer.to(dtype)


@pytest.mark.skipif(not cpu_prepack_supported(torch.bfloat16), reason="oneDNN bf16 is unavailable on this CPU")
@pytest.mark.parametrize("rows", [1, 5, 64, 300])
def test_prepacked_weight_gives_the_dense_result(rows):
    layer = make_linear(96, 64, torch.bfloat16, bias=True)
    x = torch.randn(rows, 64).bfloat16()
    expected = F.linear(x, layer.weight, layer.bias)
    layer.prepack_cpu(batch_hint=32)
    torch.testing.assert_close(layer(x), expected, rtol=1e-2, atol=1e-2)


def test_int4_reproduces_weights_already_on_a_q4_1_grid():
    """A weight whose groups of 32 hold 16 evenly spaced levels (what a Q4_1 GGUF dequantizes to) survives
    int4 quantization up to bf16 rounding of the scales; small inputs use it, larger ones the dense path."""
    out_features, in_features = 32, 64
    gen = torch.Generator().manual_seed(1)
    codes = torch.randint(0, 16, (out_features, in_features), generator=gen).float()
    codes[:, ::INT4_GROUP_SIZE] = 0  # every group spans its full range, as Q4_1's min/max scaling does
    codes[:, 1::INT4_GROUP_SIZE] = 15
    groups = in_features // INT4_GROUP_SIZE
    scale = torch.rand(out_features, groups, generator=gen).repeat_interleave(INT4_GROUP_SIZE, 1) * 0.01 + 0.001
    low = torch.randn(out_features, groups, generator=gen).repeat_interleave(INT4_GROUP_SIZE, 1) * 0.05
    layer = Linear(in_features, out_features)
    with torch.no_grad():
        layer.weight.copy_(low + codes * scale)
    layer = layer.to(torch.bfloat16)
    assert layer.quantize_int4(max_rows=2)
    x = torch.randn(2, in_features).bfloat16()
    reference = F.linear(x.float(), layer.weight.float())
    torch.testing.assert_close(layer(x).float(), reference, rtol=2e-2, atol=2e-2)
    wide = torch.randn(3, in_features).bfloat16()  # above max_rows: the dense weight, exactly
    torch.testing.assert_close(layer(wide), F.linear(wide, layer.weight), rtol=0, atol=0)


def test_int4_refuses_what_the_kernel_cannot_run():
    assert not make_linear(32, 48, torch.bfloat16).quantize_int4(max_rows=4)  # 48 is not whole groups of 32
    assert not make_linear(32, 64, torch.float32).quantize_int4(max_rows=4)  # float32 activations: too slow
    layer = make_linear(32, 48, torch.bfloat16)
    x = torch.randn(1, 48).bfloat16()
    torch.testing.assert_close(layer(x), F.linear(x, layer.weight), rtol=0, atol=0)


def test_int8_stays_close_to_dense():
    layer = make_linear(64, 64, torch.bfloat16)
    x = torch.randn(1, 64).bfloat16()
    dense = F.linear(x.float(), layer.weight.float())
    layer.quantize_int8(max_rows=4)
    torch.testing.assert_close(layer(x).float(), dense, rtol=3e-2, atol=3e-2)


def _engine_linears(llm: LLM) -> tuple[Linear, list[Linear]]:
    model = llm.engine.model
    return model.lm_head, [m for m in model.layers.modules() if isinstance(m, Linear)]


@pytest.mark.skipif(not cpu_prepack_supported(torch.bfloat16), reason="oneDNN bf16 is unavailable on this CPU")
def test_int4_engine_quantizes_layers_not_head_and_prepacks_the_rest(tiny_llama_dir):
    """int4 for the decoder layers, int8 for the precision-sensitive LM head; batches above the quantized
    rows run the prepacked weights, which give exactly the dense engine's greedy tokens."""
    common = dict(model=str(tiny_llama_dir), dtype="bfloat16", show_progress=False, num_kv_blocks=64, block_size=4)
    served = LLM(EngineConfig(quantization="int4", **common))
    head, layers = _engine_linears(served)
    assert head.quant_kind == "int8" and head.packed_weight is not None
    assert layers and all(m.quant_kind == "int4" and m.packed_weight is not None for m in layers)
    # Steps of up to int8_max_rows (4) rows run kernels.cpu's int4 linear where it runs (one row on AMX CPUs, two
    # where the bf16 GEMM serves the steps above).
    kernel_rows = 1 if torch.cpu._is_amx_tile_supported() else 2 if dispatch.cpu_int4_gemm_bf16_serves(
        torch.bfloat16) else 4
    assert all(m.quant_kernel_rows == kernel_rows for m in layers if m.quant_kernel is not None)

    dense = LLM(EngineConfig(cpu_prepack=False, **common))
    dense_head, dense_layers = _engine_linears(dense)
    assert dense_head.packed_weight is None and all(m.quant_kind is None for m in dense_layers)

    params = SamplingParams(max_tokens=6, temperature=0, ignore_eos=True)
    prompts = [[1, 2, 3 + i, 4, 5 + i] for i in range(8)]  # 8 rows per decode step: above int8_max_rows
    assert [r.token_ids for r in served.generate(prompts, params)] == \
        [r.token_ids for r in dense.generate(prompts, params)]
    single = served.generate(prompts[:1], params)[0]  # one row: the quantized kernels
    assert len(single.token_ids) == 6 and single.error is None


@pytest.mark.skipif(not dispatch.cpu_int8_gemm_runs(64 * 768, torch.bfloat16),
                    reason="no AVX512-BF16 here: int8_gemm_bf16 is not built, the int8 kernel serves every row count")
def test_int4_engine_head_takes_the_bf16_gemm_above_the_small_batches(tiny_llama_dir, monkeypatch):
    """The int8 head's steps of more than HEAD_KERNEL_ROWS rows run kernels.cpu's bf16 GEMM (unquantized inputs)
    instead of the two-level int8 kernel: the same logits up to rounding, at 12 sequences a step."""
    common = dict(model=str(tiny_llama_dir), dtype="bfloat16", quantization="int4", show_progress=False,
                  num_kv_blocks=64, block_size=4, int8_max_rows=24, cpu_prepack=False, cpu_small_batch_rows=4)
    served = LLM(EngineConfig(**common))
    assert served.engine.model.lm_head.quant_kernel_rows == HEAD_KERNEL_ROWS
    monkeypatch.setattr(dispatch, "cpu_int8_gemm_runs", lambda out_features, dtype: False)
    int8_kernel = LLM(EngineConfig(**common))
    assert int8_kernel.engine.model.lm_head.quant_kernel_rows == 24

    params = SamplingParams(max_tokens=2, temperature=0, logprobs=20, ignore_eos=True)
    prompts = [[1, 2, 3 + i, 4, 5 + i] for i in range(12)]
    for gemm, kernel in zip(served.generate(prompts, params), int8_kernel.generate(prompts, params), strict=True):
        assert_close_top_logprobs(gemm.logprobs[0], kernel.logprobs[0])
        if gemm.token_ids[0] == kernel.token_ids[0]:
            assert_close_top_logprobs(gemm.logprobs[1], kernel.logprobs[1])


@pytest.mark.parametrize(("amx", "gemm_serves", "configured", "expected"), [
    (False, True, None, GEMM_SMALL_BATCH_ROWS), (False, False, None, SMALL_BATCH_ROWS), (True, True, None, 1),
    (False, True, 8, 8), (True, False, 3, 3),
])
def test_int4_kernel_rows_default_follows_the_gemm_above(monkeypatch, amx, gemm_serves, configured, expected):
    """Unset, the int4 kernel's rows are 1 on AMX CPUs, 2 where kernels.cpu's bf16 GEMM serves the steps above
    (it is faster from 3 rows, and unquantized), else 8; a configured value always wins."""
    monkeypatch.setattr(torch.cpu, "_is_amx_tile_supported", lambda: amx)
    asked = []
    monkeypatch.setattr(dispatch, "cpu_int4_gemm_bf16_serves", lambda dtype: asked.append(dtype) or gemm_serves)
    config = EngineConfig(cpu_small_batch_rows=configured)
    assert int4_kernel_rows(config, torch.bfloat16) == expected
    # Asked only when the default is being chosen off AMX.
    assert asked == ([] if amx or configured is not None else [torch.bfloat16])
