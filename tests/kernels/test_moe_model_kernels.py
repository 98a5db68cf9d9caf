"""Mixtral's, Qwen2-MoE's and Qwen3-MoE's whole forward with every dispatched op on the Triton kernels (the grouped
expert GEMM included) equals the reference path: a prefill step then two decode steps over the paged cache.
Interpreted on the CPU in float32; natively on CUDA when present, where the decode step is also replayed from a CUDA
graph."""

from __future__ import annotations

from types import ModuleType, SimpleNamespace

import pytest
import torch

from engine.models.config import ModelArchConfig
from engine.models.mixtral import MixtralForCausalLM
from engine.models.qwen_moe import Qwen2MoeForCausalLM, Qwen3MoeForCausalLM
from kernels import dispatch
from kernels.reference import fused_moe
from tests.kernels.conftest import BACKENDS, Backend
from tests.kernels.test_model_kernels import BLOCK_SIZE, REFERENCE_OPS, _bind_cache, _run, _step

REFERENCE_MOE_OPS: ModuleType = SimpleNamespace(**vars(REFERENCE_OPS), fused_moe=fused_moe.fused_moe)  # type: ignore


def _tiny_moe(architecture: str, device: torch.device, dtype: torch.dtype):
    extra = {"qwen2_moe": {"shared_expert_intermediate_size": 80, "norm_topk_prob": False, "dense_layers": [1]},
             "qwen3_moe": {"qk_norm": True}}.get(architecture, {})
    cfg = ModelArchConfig(architecture=architecture, vocab_size=97, hidden_size=96, intermediate_size=160,
                          num_hidden_layers=2, num_attention_heads=6, num_key_value_heads=2, head_dim=16,
                          rms_norm_eps=1e-5, rope_theta=10000.0, max_position_embeddings=128,
                          tie_word_embeddings=False, attention_bias=architecture == "qwen2_moe", num_experts=6,
                          num_experts_per_tok=2, moe_intermediate_size=48, **extra)
    torch.manual_seed(0)
    classes = {"mixtral": MixtralForCausalLM, "qwen2_moe": Qwen2MoeForCausalLM, "qwen3_moe": Qwen3MoeForCausalLM}
    model = classes[architecture](cfg, max_position=128)
    with torch.no_grad():
        for name, p in model.named_parameters():
            scale = 1.0 if name.endswith("mlp.gate") else 0.2  # decisive routing: no near-tie for a kernel to flip
            p.copy_(torch.randn_like(p) * scale + (1.0 if p.dim() == 1 else 0.0))
    return model.to(device=device, dtype=dtype).eval()


@pytest.mark.parametrize("architecture", ["mixtral", "qwen2_moe", "qwen3_moe"])
@pytest.mark.parametrize("backend", [b for b in BACKENDS if b.values[0].dtype != torch.float16])
def test_moe_forward_on_triton_kernels_matches_reference(ops: ModuleType, backend: Backend,
                                                         architecture: str) -> None:
    model = _tiny_moe(architecture, backend.device, backend.dtype)
    with dispatch.forced_kernels(REFERENCE_MOE_OPS):
        expected = _run(model, backend.device)
    with dispatch.forced_kernels(ops):
        actual = _run(model, backend.device)
    for want, got in zip(expected, actual, strict=True):
        tolerance = {"atol": 1e-4, "rtol": 1e-4} if backend.dtype == torch.float32 else {"atol": 6e-2, "rtol": 6e-2}
        torch.testing.assert_close(got.float(), want.float(), **tolerance)


@pytest.mark.cuda
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device (runs in bench/gpu_check.sh)")
def test_moe_decode_graph_replay_equals_eager_forward() -> None:
    """The grouped expert GEMM needs no host sync: a Mixtral decode step captures in a CUDA graph and replays
    (batch padded 3 -> 4) to the eager hidden states."""
    from engine.worker.model_runner import DecodeGraphs

    device = torch.device("cuda")
    model = _tiny_moe("mixtral", device, torch.bfloat16)
    _bind_cache(model, num_blocks=12)
    tables = [[5, 2, 0, 0], [0, 7, 1, 0], [3, 4, 6, 8]]
    lens = [7, 20, 33]
    gen = torch.Generator().manual_seed(2)
    with torch.inference_mode():
        graphs = DecodeGraphs(model, max_batch=8, max_len=64, block_size=BLOCK_SIZE, device=device)
        positions, meta = _step([0, 0, 0], lens, tables, device)
        model(torch.randint(0, 97, (sum(lens),), generator=gen).to(device), positions, meta)
        for _ in range(3):
            ids = torch.randint(0, 97, (3,), generator=gen).to(device)
            positions, meta = _step(lens, [1, 1, 1], tables, device)
            eager = model(ids, positions, meta).clone()
            replayed = graphs.run(ids, positions, meta)
            assert replayed is not None
            torch.testing.assert_close(replayed, eager, atol=2e-2, rtol=2e-2)
            lens = [n + 1 for n in lens]
