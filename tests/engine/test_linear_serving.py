"""The CPU serving copies of a linear weight (``engine.layers.linear``) against the dense ``F.linear``."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import torch
import torch.nn.functional as F

from engine.config import EngineConfig
from engine.layers.linear import HEAD_INPUT_LEVELS, INT4_GROUP_SIZE, Linear, cpu_prepack_supported
from engine.llm import LLM
from engine.sampling_params import SamplingParams
from engine.worker.model_runner import GEMM_SMALL_BATCH_ROWS, HEAD_KERNEL_ROWS, SMALL_BATCH_ROWS, int4_kernel_rows
from kernels import cpu as cpu_kernels
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


# The int8 head's settings in the two tests below: eager steps of up to 24 rows run the quantized copy, the int4
# layers' kernel rows above one (so the head's small-batch kernels serve every row count up to those 24).
HEAD_MAX_ROWS = 24
HEAD_ENGINE = dict(dtype="bfloat16", quantization="int4", show_progress=False, num_kv_blocks=64, block_size=4,
                   int8_max_rows=HEAD_MAX_ROWS, cpu_prepack=False, cpu_small_batch_rows=4)
HEAD_ROWS = [1, 2, HEAD_KERNEL_ROWS, HEAD_KERNEL_ROWS + 1, 12, HEAD_MAX_ROWS, HEAD_MAX_ROWS + 1]


def _head_implementations(head: Linear) -> dict[str, Callable[[torch.Tensor], torch.Tensor]]:
    """Every implementation the int8 head could run on this CPU, called directly on its weight: the packed head
    (AVX-512 VNNI), kernels.cpu's grouped int8 kernel, its bf16 GEMM (AVX512-BF16), torch's int8 op (where the
    C++ kernel does not run) and the dense weight (rows above int8_max_rows)."""
    weight, scales = head.quant_weight, head.quant_scales
    assert weight is not None and scales is not None
    out_features, in_features = weight.shape
    found: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {"dense": lambda x: F.linear(x, head.weight)}
    if cpu_kernels.load() and cpu_kernels.lm_head_supported(out_features, in_features):
        packed = cpu_kernels.lm_head_pack(weight)
        found["packed head"] = lambda x: cpu_kernels.lm_head_linear(x, packed, scales, HEAD_INPUT_LEVELS)
    if dispatch.cpu_one_row_linear("int8", out_features, in_features) is not None:
        found["int8 kernel"] = lambda x: cpu_kernels.int8_linear_up_to(x, weight, scales, x.shape[0])
        if dispatch.cpu_int8_gemm_runs(out_features, torch.bfloat16):
            found["bf16 gemm"] = lambda x: cpu_kernels.int8_gemm_bf16(x, weight, scales)
    else:
        found["torch int8"] = lambda x: torch._weight_int8pack_mm(x, weight, scales)
    return found


def _expected_head_route(rows: int, implementations: dict[str, object], packed: bool) -> str:
    """Which implementation serves an int8 head's step of ``rows`` rows (HEAD_ENGINE's engine, on this CPU)."""
    if rows > HEAD_MAX_ROWS:
        return "dense"
    if packed:
        return "packed head"
    if "int8 kernel" not in implementations:
        return "torch int8"
    return "bf16 gemm" if "bf16 gemm" in implementations and rows > HEAD_KERNEL_ROWS else "int8 kernel"


def _head_routes(head: Linear) -> dict[int, list[str]]:
    """{rows: the implementations whose output the head's equals bitwise}, at each of HEAD_ROWS."""
    implementations = _head_implementations(head)
    generator = torch.Generator().manual_seed(0)
    routes = {}
    with torch.inference_mode():
        for rows in HEAD_ROWS:
            x = torch.randn(rows, head.weight.shape[1], generator=generator).bfloat16()
            served = head(x)
            routes[rows] = [name for name, run in implementations.items() if torch.equal(run(x), served)]
    return routes


def test_int8_head_runs_the_packed_kernel_where_it_is_built_and_the_bf16_gemm_above_the_small_batches_else(
        tiny_llama_dir, monkeypatch):
    """The int4 engine's int8 LM head, per step size: on AVX-512 VNNI CPUs the packed head kernel at every row
    count up to int8_max_rows; without it (forced here by refusing the head's shape), kernels.cpu's grouped int8
    kernel up to HEAD_KERNEL_ROWS and its bf16 GEMM above on AVX512-BF16 CPUs (the int8 kernel at every row count
    elsewhere); the dense weight above int8_max_rows. Each step's output is compared bitwise with every candidate
    called directly, and must equal exactly the one the routing names."""
    served = LLM(EngineConfig(model=str(tiny_llama_dir), **HEAD_ENGINE)).engine.model.lm_head
    packed_here = served.quant_packed is not None
    implementations = _head_implementations(served)
    assert packed_here == ("packed head" in implementations)
    assert _head_routes(served) == {rows: [_expected_head_route(rows, implementations, packed_here)]
                                    for rows in HEAD_ROWS}

    monkeypatch.setattr(cpu_kernels, "lm_head_supported", lambda out_features, in_features: False)
    unpacked = LLM(EngineConfig(model=str(tiny_llama_dir), **HEAD_ENGINE)).engine.model.lm_head
    assert unpacked.quant_packed is None
    monkeypatch.undo()  # the candidates include the packed head again, which this engine must not match
    assert _head_routes(unpacked) == {rows: [_expected_head_route(rows, implementations, False)]
                                      for rows in HEAD_ROWS}


@pytest.mark.skipif(not (cpu_kernels.load() and cpu_kernels.lm_head_supported(64 * 768, 64)
                         and dispatch.cpu_int8_gemm_runs(64 * 768, torch.bfloat16)),
                    reason="the packed head (AVX-512 VNNI) or the bf16 GEMM (AVX512-BF16) is not built here")
def test_packed_head_and_bf16_gemm_agree_on_the_tokens(tiny_llama_dir, monkeypatch):
    """The packed head (two-level int8 inputs) and the bf16 GEMM it replaced above HEAD_KERNEL_ROWS (unquantized
    inputs): the same top-1 token on every row of a 12-row step, logits within the int8 inputs' rounding, and the
    same greedy tokens and close logprobs served at 12 sequences a step."""
    served = LLM(EngineConfig(model=str(tiny_llama_dir), **HEAD_ENGINE))
    head = served.engine.model.lm_head
    assert head.quant_packed is not None and head.quant_weight is not None and head.quant_scales is not None
    x = torch.randn(12, head.weight.shape[1], generator=torch.Generator().manual_seed(1)).bfloat16()
    with torch.inference_mode():
        packed = head(x).float()
        gemm = cpu_kernels.int8_gemm_bf16(x, head.quant_weight, head.quant_scales).float()
    assert torch.equal(packed.argmax(-1), gemm.argmax(-1))
    torch.testing.assert_close(packed, gemm, rtol=0, atol=2e-2)

    monkeypatch.setattr(cpu_kernels, "lm_head_supported", lambda out_features, in_features: False)
    unpacked = LLM(EngineConfig(model=str(tiny_llama_dir), **HEAD_ENGINE))
    assert unpacked.engine.model.lm_head.quant_packed is None
    params = SamplingParams(max_tokens=2, temperature=0, logprobs=20, ignore_eos=True)
    prompts = [[1, 2, 3 + i, 4, 5 + i] for i in range(12)]
    for by_packed, by_gemm in zip(served.generate(prompts, params), unpacked.generate(prompts, params), strict=True):
        assert by_packed.token_ids[0] == by_gemm.token_ids[0]
        assert_close_top_logprobs(by_packed.logprobs[0], by_gemm.logprobs[0])
        assert_close_top_logprobs(by_packed.logprobs[1], by_gemm.logprobs[1])


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
