"""The engine with block-sparse attention (``EngineConfig.block_sparse_*``) against transformers on a tiny random
Llama given the same pattern as a 4D attention mask: Warden's logits for the prompt's last position and every decode
step match within ``LOGITS_ATOL`` (float32), with chunked prefill (a step budget of 24 tokens: chunks that start
inside sparse blocks), decodes mixed with prefill chunks, and a prefix-cache hit resuming mid-pattern. The pattern
matters (dense attention gives other logits), and one covering every block gives dense attention's tokens.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from engine.config import EngineConfig
from engine.layers.attention import PagedAttention
from engine.llm import LLM
from kernels.block_sparse import BlockSparsePattern

from .test_sliding_window_models import greedy_sequence, run
from .tiny_models import write_tiny_checkpoint

LOGITS_ATOL = 1e-4
PATTERN = BlockSparsePattern(16, local_blocks=2, global_blocks=1, stride=3)
PROMPTS = {
    "long": [(37 * i + 11) % 4000 + 50 for i in range(150)],  # ten sparse blocks, prefilled in chunks
    "short": [5, 17, 300, 9, 42],  # shorter than one block
    "mid": [(53 * i + 5) % 3000 + 70 for i in range(61)],
}
NEW_TOKENS = 20


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_tiny_checkpoint(tmp_path_factory.mktemp("llama"), architecture="llama")


def _llm(directory: Path, pattern: BlockSparsePattern | None) -> LLM:
    sparse = {} if pattern is None else dict(
        block_sparse_block_size=pattern.block_size, block_sparse_local_blocks=pattern.local_blocks,
        block_sparse_global_blocks=pattern.global_blocks, block_sparse_stride=pattern.stride)
    return LLM(EngineConfig(model=str(directory), show_progress=False, num_kv_blocks=160, block_size=8,
                            max_num_batched_tokens=24, max_num_seqs=8, **sparse))


@torch.no_grad()
def _transformers_logits(directory: Path, prompt: list[int], logits: list[torch.Tensor],
                         pattern: BlockSparsePattern | None) -> torch.Tensor:
    """transformers' logits at the rows Warden sampled, its attention masked by ``pattern`` (a 4D additive mask,
    which transformers applies as given)."""
    from transformers import AutoModelForCausalLM

    model = AutoModelForCausalLM.from_pretrained(directory, dtype=torch.float32, attn_implementation="eager").eval()
    tokens = greedy_sequence(prompt, logits)[:-1]
    positions = torch.arange(len(tokens))
    if pattern is None:
        visible = positions[None, :] <= positions[:, None]
    else:
        visible = pattern.token_mask(positions[:, None], positions[None, :])
    mask = torch.zeros(len(tokens), len(tokens)).masked_fill(~visible, torch.finfo(torch.float32).min)
    out = model(torch.tensor([tokens]), attention_mask=mask[None, None])
    return out.logits[0, len(prompt) - 1 :].float()


def test_logits_match_transformers_with_the_pattern_every_step(checkpoint: Path) -> None:
    llm = _llm(checkpoint, PATTERN)
    layers = [m for m in llm.engine.model.modules() if isinstance(m, PagedAttention)]
    assert layers and all(m.block_sparse == PATTERN for m in layers)
    rec = run(llm, PROMPTS, NEW_TOKENS)
    assert rec.mixed_steps > 0 and rec.continued_chunks > 0, "the batch never mixed decodes with chunked prefills"
    for request_id, prompt in PROMPTS.items():
        ours = torch.stack(rec.logits[request_id])
        theirs = _transformers_logits(checkpoint, prompt, rec.logits[request_id], PATTERN)
        torch.testing.assert_close(ours, theirs, atol=LOGITS_ATOL, rtol=0, msg=lambda m, r=request_id: f"{r}: {m}")
    # The pattern matters: dense attention's logits of the long sequence differ far beyond the tolerance.
    dense = _transformers_logits(checkpoint, PROMPTS["long"], rec.logits["long"], None)
    assert (dense - torch.stack(rec.logits["long"])).abs().max() > 20 * LOGITS_ATOL

    # A prompt continuing the long request's output hits the prefix cache (120 tokens: inside sparse block 7).
    follow_up = {"follow-up": [*greedy_sequence(PROMPTS["long"], rec.logits["long"])[:120], 7, 8, 9]}
    hits_before = llm.engine.scheduler.prefix_cache_hits
    rec = run(llm, follow_up, 8)
    assert llm.engine.scheduler.prefix_cache_hits - hits_before == 120
    theirs = _transformers_logits(checkpoint, follow_up["follow-up"], rec.logits["follow-up"], PATTERN)
    torch.testing.assert_close(torch.stack(rec.logits["follow-up"]), theirs, atol=LOGITS_ATOL, rtol=0)


def test_a_pattern_covering_every_block_is_dense_attention(checkpoint: Path) -> None:
    prompts = {"long": PROMPTS["long"], "short": PROMPTS["short"]}
    dense = run(_llm(checkpoint, None), prompts, 8)
    covering = BlockSparsePattern(16, local_blocks=64)
    assert covering.covers_everything(len(PROMPTS["long"]) + 8)
    sparse = run(_llm(checkpoint, covering), prompts, 8)
    for request_id in prompts:
        torch.testing.assert_close(torch.stack(sparse.logits[request_id]), torch.stack(dense.logits[request_id]),
                                   atol=LOGITS_ATOL, rtol=0)


def test_the_settings_are_checked() -> None:
    assert EngineConfig().block_sparse_pattern() is None  # off by default
    assert EngineConfig(block_sparse_block_size=64).block_sparse_pattern() == BlockSparsePattern(64, 16, 1, 8)
    for bad in ({"block_sparse_block_size": 48}, {"block_sparse_block_size": -1},
                {"block_sparse_block_size": 64, "block_sparse_local_blocks": 0}):
        with pytest.raises(ValueError, match=r"block_sparse|block-sparse"):
            EngineConfig(**bad)


def test_the_gateway_settings_reach_the_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    from pydantic import ValidationError

    from gateway.core.engine_settings import EngineSettings

    monkeypatch.setenv("WARDEN_ENGINE_BLOCK_SPARSE_BLOCK_SIZE", "64")
    monkeypatch.setenv("WARDEN_ENGINE_BLOCK_SPARSE_STRIDE", "0")
    config = EngineConfig(**EngineSettings().engine_kwargs("default"))
    assert config.block_sparse_pattern() == BlockSparsePattern(64, local_blocks=16, global_blocks=1, stride=0)
    monkeypatch.setenv("WARDEN_ENGINE_BLOCK_SPARSE_BLOCK_SIZE", "48")
    with pytest.raises(ValidationError, match="power of two"):
        EngineSettings()


def test_the_traced_operator_carries_the_pattern() -> None:
    """Inside a compiled forward the layer calls ``warden::paged_attention`` with the pattern as ints: traced by
    dynamo (its fake kernel) and run, it gives the eager layer's block-sparse result, not dense attention."""
    from engine.worker.forward_context import forward_context
    from tests.kernels.batch import make_batch

    b = make_batch([], [(100, 100)], kv_heads=2, group=2, head_dim=16, block_size=8, dtype=torch.float32,
                   device=torch.device("cpu"))
    layer = PagedAttention(4, 2, 16)
    layer.k_cache, layer.v_cache, layer.layer_index = b.k_cache, b.v_cache, 0
    layer.block_sparse = PATTERN
    eager = layer(b.q, b.key, b.value, b.meta)
    with forward_context(b.meta, [(b.k_cache, b.v_cache)]):
        compiled = torch.compile(lambda q, k, v: layer(q, k, v, None), backend="eager", fullgraph=True)
        traced = compiled(b.q, b.key, b.value)
    torch.testing.assert_close(traced, eager, atol=0, rtol=0)
    layer.block_sparse = None
    assert (layer(b.q, b.key, b.value, b.meta) - eager).abs().max() > 1e-3
