"""The whole Llama forward with every dispatched op on the Triton kernels equals the reference path: a prefill
step then two decode steps over the paged cache, checking the layers' wiring (strided q/k/v views, residual
stream, KV store) as well as the kernels. Interpreted on the CPU in float32; natively on CUDA when present."""

from __future__ import annotations

from types import ModuleType, SimpleNamespace

import pytest
import torch

from engine.layers.attention import PagedAttention
from engine.models.config import ModelArchConfig
from engine.models.llama import LlamaForCausalLM
from kernels import dispatch
from kernels.attention_metadata import AttentionMetadata
from kernels.reference import activation, kv_store, paged_attention, rms_norm, rotary
from tests.kernels.conftest import BACKENDS, Backend

BLOCK_SIZE = 16
# The torch references under the dispatch names, forced even for CUDA tensors.
REFERENCE_OPS: ModuleType = SimpleNamespace(  # type: ignore[assignment]
    silu_and_mul=activation.silu_and_mul,
    store_kvcache=kv_store.store_kvcache,
    paged_attention=paged_attention.paged_attention,
    rms_norm=rms_norm.rms_norm,
    fused_add_rms_norm=rms_norm.fused_add_rms_norm,
    rotary_embedding=rotary.rotary_embedding,
)


def _tiny_model(device: torch.device, dtype: torch.dtype) -> LlamaForCausalLM:
    cfg = ModelArchConfig(architecture="llama", vocab_size=97, hidden_size=96, intermediate_size=160,
                          num_hidden_layers=2, num_attention_heads=6, num_key_value_heads=2, head_dim=16,
                          rms_norm_eps=1e-5, rope_theta=10000.0, max_position_embeddings=128,
                          tie_word_embeddings=False)
    torch.manual_seed(0)
    model = LlamaForCausalLM(cfg, max_position=128)
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.randn_like(p) * 0.2 + (1.0 if p.dim() == 1 else 0.0))  # norm weights around 1
    return model.to(device=device, dtype=dtype).eval()


def _bind_cache(model: LlamaForCausalLM, num_blocks: int) -> None:
    cfg = model.config
    device, dtype = model.embed_tokens.weight.device, model.embed_tokens.weight.dtype
    for attn in (m for m in model.modules() if isinstance(m, PagedAttention)):
        shape = (num_blocks, BLOCK_SIZE, cfg.num_key_value_heads, cfg.head_dim)
        attn.k_cache = torch.zeros(shape, dtype=dtype, device=device)
        attn.v_cache = torch.zeros(shape, dtype=dtype, device=device)


def _step(lens_before: list[int], new_tokens: list[int], tables: list[list[int]], device: torch.device
          ) -> tuple[torch.Tensor, AttentionMetadata]:
    """Positions and metadata for one step; decodes (one new token) must come first."""
    positions, slots, starts = [], [], [0]
    for before, n, table in zip(lens_before, new_tokens, tables, strict=True):
        for pos in range(before, before + n):
            positions.append(pos)
            slots.append(table[pos // BLOCK_SIZE] * BLOCK_SIZE + pos % BLOCK_SIZE)
        starts.append(starts[-1] + n)
    seq_lens = [b + n for b, n in zip(lens_before, new_tokens, strict=True)]
    nd = next((i for i, n in enumerate(new_tokens) if n != 1), len(new_tokens))
    meta = AttentionMetadata(
        query_start_loc=torch.tensor(starts, dtype=torch.int32, device=device),
        seq_lens=torch.tensor(seq_lens, dtype=torch.int32, device=device),
        block_tables=torch.tensor(tables, dtype=torch.int32, device=device),
        slot_mapping=torch.tensor(slots, dtype=torch.int64, device=device),
        num_decodes=nd, max_query_len=max(new_tokens), max_seq_len=max(seq_lens),
        max_decode_seq_len=max(seq_lens[:nd], default=0),
    )
    return torch.tensor(positions, device=device), meta


def _run(model: LlamaForCausalLM, device: torch.device) -> list[torch.Tensor]:
    _bind_cache(model, num_blocks=8)
    tables = [[5, 2], [0, 7]]
    gen = torch.Generator().manual_seed(1)
    prompts = [torch.randint(0, 97, (n,), generator=gen) for n in (7, 20)]
    hidden = []
    with torch.inference_mode():
        positions, meta = _step([0, 0], [7, 20], tables, device)
        hidden.append(model(torch.cat(prompts).to(device), positions, meta))
        lens = [7, 20]
        for token in (3, 11):  # two decode steps crossing no boundary, then seq 2 at position 21
            positions, meta = _step(lens, [1, 1], tables, device)
            hidden.append(model(torch.tensor([token, token + 1], device=device), positions, meta))
            lens = [n + 1 for n in lens]
    return hidden


@pytest.mark.parametrize("backend", [b for b in BACKENDS if b.values[0].dtype != torch.float16])
def test_llama_forward_on_triton_kernels_matches_reference(ops: ModuleType, backend: Backend) -> None:
    model = _tiny_model(backend.device, backend.dtype)
    with dispatch.forced_kernels(REFERENCE_OPS):
        expected = _run(model, backend.device)
    with dispatch.forced_kernels(ops):
        actual = _run(model, backend.device)
    for want, got in zip(expected, actual, strict=True):
        # Two layers compound the per-kernel differences (bf16 keeps 8 bits of mantissa through all of them).
        tolerance = {"atol": 1e-4, "rtol": 1e-4} if backend.dtype == torch.float32 else {"atol": 6e-2, "rtol": 6e-2}
        torch.testing.assert_close(got.float(), want.float(), **tolerance)


@pytest.mark.cuda
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device (runs in bench/gpu_check.sh)")
def test_decode_graph_replay_equals_eager_forward() -> None:
    """Replaying the captured decode graphs (batch padded 3 -> 4 with empty rows) gives the eager hidden states."""
    from engine.worker.model_runner import DecodeGraphs

    device = torch.device("cuda")
    model = _tiny_model(device, torch.bfloat16)
    _bind_cache(model, num_blocks=12)
    tables = [[5, 2, 0, 0], [0, 7, 1, 0], [3, 4, 6, 8]]
    lens = [7, 20, 33]
    gen = torch.Generator().manual_seed(2)
    with torch.inference_mode():
        graphs = DecodeGraphs(model, max_batch=8, max_len=64, block_size=BLOCK_SIZE, device=device)
        assert graphs.sizes == [1, 2, 4, 8]
        positions, meta = _step([0, 0, 0], lens, tables, device)  # prefill, eager
        model(torch.randint(0, 97, (sum(lens),), generator=gen).to(device), positions, meta)
        for _ in range(3):
            ids = torch.randint(0, 97, (3,), generator=gen).to(device)
            positions, meta = _step(lens, [1, 1, 1], tables, device)
            eager = model(ids, positions, meta).clone()
            replayed = graphs.run(ids, positions, meta)
            assert replayed is not None and replayed.shape == eager.shape
            torch.testing.assert_close(replayed, eager, atol=2e-2, rtol=2e-2)
            lens = [n + 1 for n in lens]
        positions, meta = _step([0], [5], [tables[0]], device)
        assert graphs.run(torch.zeros(5, dtype=torch.long, device=device), positions, meta) is None  # a prefill
