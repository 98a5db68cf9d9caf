"""Mixtral and Qwen2-MoE against transformers on the same tiny random checkpoints: the logits of the prompt and of
every decode step, with chunked prefill, mixed prefill/decode batches and prefix-cache hits all on.

Tolerance: float32 on both sides, the same routing (float32 softmax and top-k; the tiny models' routers are drawn
with unit variance so no top-k choice is a near-tie that summation order could flip); what differs is summation order
(fused q/k/v and gate/up, paged attention, grouped expert GEMMs), measured at ~2e-7 on logits of magnitude ~1.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
import torch
from safetensors.torch import save_file

from engine.config import EngineConfig
from engine.distributed.sharding import check_tensor_parallel
from engine.errors import UnknownModelError
from engine.llm import LLM
from engine.loader.hf_loader import hf_arch_config
from engine.request import EngineRequest
from engine.sampling_params import SamplingParams

from .tiny_models import write_tiny_checkpoint

LOGITS_ATOL = 1e-4
# name -> (architecture, overrides): Qwen2-MoE with a dense middle layer; Mixtral with an 8-token sliding window
# (the attention engineer's per-layer windows), which the 23-token prompt outgrows; Qwen3-MoE (q/k head norms,
# renormalised top-k) with a dense first layer.
FAMILIES = {
    "mixtral": ("mixtral", {}),
    "qwen2_moe": ("qwen2_moe", {"mlp_only_layers": [1], "num_hidden_layers": 3}),
    "mixtral-window": ("mixtral", {"sliding_window": 8}),
    "qwen3_moe": ("qwen3_moe", {"mlp_only_layers": [0]}),
}


@pytest.fixture(scope="module", params=list(FAMILIES))
def family(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    from transformers import AutoModelForCausalLM

    architecture, overrides = FAMILIES[request.param]
    directory = write_tiny_checkpoint(tmp_path_factory.mktemp(request.param), architecture=architecture, **overrides)
    reference = AutoModelForCausalLM.from_pretrained(directory, dtype=torch.float32).eval()
    return request.param, directory, reference


def engine_for(directory: Path) -> LLM:
    # A 16-token step budget chunks every longer prompt; 4-token blocks make short prompts hit the prefix cache.
    return LLM(EngineConfig(model=str(directory), show_progress=False, num_kv_blocks=96, block_size=4,
                            max_num_seqs=4, max_num_batched_tokens=16))


class Run:
    """One engine run of some requests: every sampled row's logits per request in step order, the tokens each
    generated, its usage, and each step's (decodes, sequences)."""

    def __init__(self, engine, requests: list[EngineRequest]) -> None:
        self.logits: dict[str, list[torch.Tensor]] = {r.request_id: [] for r in requests}
        self.tokens: dict[str, list[int]] = {r.request_id: [] for r in requests}
        self.usage: dict = {}
        self.batches: list[tuple[int, int]] = []
        runner, model, scheduler = engine.runner, engine.model, engine.scheduler
        execute, compute_logits, schedule = runner.execute, model.compute_logits, scheduler.schedule
        rows: list = []

        def capture_schedule(*args, **kwargs):
            batch = schedule(*args, **kwargs)
            self.batches.append((batch.num_decodes, len(batch.seqs)))
            return batch

        def capture_execute(batch, positions, row_seqs, *args, **kwargs):
            rows[:] = row_seqs
            return execute(batch, positions, row_seqs, *args, **kwargs)

        def capture_logits(hidden):
            out = compute_logits(hidden)
            for seq, row in zip(rows, out, strict=True):
                self.logits[seq.request_id].append(row.clone())
            return out

        runner.execute, model.compute_logits, scheduler.schedule = capture_execute, capture_logits, capture_schedule
        try:
            for r in requests:
                engine.add_request(r)
            while engine.has_unfinished_requests():
                for out in engine.step():
                    self.tokens[out.request_id] += out.token_ids
                    self.usage[out.request_id] = out.usage
        finally:
            del runner.execute, model.compute_logits, scheduler.schedule


@torch.no_grad()
def assert_matches_transformers(reference, prompt: list[int], generated: list[int], ours: list[torch.Tensor]):
    """Our logits for output token j against transformers' at position len(prompt) - 1 + j, one forward over the
    prompt and the tokens we generated (teacher forcing)."""
    assert len(ours) == len(generated)
    full = torch.tensor([prompt + generated[:-1]])
    theirs = reference(full).logits[0, len(prompt) - 1:]
    for j, (mine, want) in enumerate(zip(ours, theirs, strict=True)):
        diff = (mine - want).abs().max().item()
        assert diff < LOGITS_ATOL, f"output token {j}: max |logit difference| {diff}"
        assert int(mine.argmax()) == generated[j]


def test_prompt_and_every_decode_step_match_transformers(family):
    _, directory, reference = family
    engine = engine_for(directory).engine
    greedy = SamplingParams(max_tokens=6, temperature=0, ignore_eos=True)
    long_prompt = [5, 17, 300, 9, 42, 7, 1000, 3, 12, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93]
    prompts = {"long": long_prompt, "short": [400, 401, 402, 403, 404], "mid": list(range(600, 612))}
    # All three at once: the long prompt is prefilled in chunks (23 tokens, 16 a step) while the others decode.
    run = Run(engine, [EngineRequest(rid, p, greedy) for rid, p in prompts.items()])
    assert any(0 < decodes < seqs for decodes, seqs in run.batches), f"no mixed step: {run.batches}"
    for rid, prompt in prompts.items():
        assert len(run.tokens[rid]) == 6
        assert_matches_transformers(reference, prompt, run.tokens[rid], run.logits[rid])

    # The same long prompt again hits the prefix cache (5 full blocks of 4); a fork shares its first 8 tokens.
    again = [EngineRequest("again", long_prompt, greedy),
             EngineRequest("fork", [*long_prompt[:8], 700, 701, 702, 703, 704], greedy)]
    run = Run(engine, again)
    assert run.usage["again"].cached_tokens == 20
    assert run.usage["fork"].cached_tokens == 8
    for request in again:
        rid = request.request_id
        assert_matches_transformers(reference, request.prompt_token_ids, run.tokens[rid], run.logits[rid])


def test_stacked_expert_layout_loads_the_same_model(family, tmp_path: Path):
    """transformers' in-memory layout (``mlp.experts.gate_up_proj``/``down_proj`` stacks) as a checkpoint gives the
    same logits as the per-expert files it writes."""
    _, directory, reference = family
    stacked = tmp_path / "stacked"
    stacked.mkdir()
    for f in ("config.json", "tokenizer.json", "tokenizer_config.json"):
        (stacked / f).write_bytes((directory / f).read_bytes())
    state = {k: v.contiguous() for k, v in reference.state_dict().items()}
    assert any(k.endswith("mlp.experts.gate_up_proj") for k in state)
    save_file(state, str(stacked / "model.safetensors"))
    prompt = [5, 17, 300, 9, 42, 7]
    greedy = SamplingParams(max_tokens=3, temperature=0, ignore_eos=True)
    runs = [Run(engine_for(d).engine, [EngineRequest("r", prompt, greedy)]) for d in (directory, stacked)]
    assert runs[0].tokens == runs[1].tokens
    for a, b in zip(runs[0].logits["r"], runs[1].logits["r"], strict=True):
        assert torch.equal(a, b)


def test_a_checkpoint_missing_an_expert_fails_to_load(family, tmp_path: Path):
    from safetensors.torch import load_file

    _, directory, _ = family
    broken = tmp_path / "broken"
    broken.mkdir()
    for f in ("config.json", "tokenizer.json", "tokenizer_config.json"):
        (broken / f).write_bytes((directory / f).read_bytes())
    state = load_file(str(directory / "model.safetensors"))
    dropped = [k for k in state if ".experts.3." in k]
    assert dropped
    save_file({k: v for k, v in state.items() if k != dropped[0]}, str(broken / "model.safetensors"))
    with pytest.raises(UnknownModelError, match="lacks weights"):
        engine_for(broken)


@pytest.mark.parametrize("name", ["mixtral", "qwen2_moe"])  # both checkpoint namings; with and without a shared expert
def test_experts_split_over_two_ranks_answer_as_one(name: str, tmp_path: Path):
    """Each expert's intermediate width split over 2 ranks (gloo on the CPU): the same greedy tokens and logprobs."""
    architecture, overrides = FAMILIES[name]
    directory = write_tiny_checkpoint(tmp_path / name, architecture=architecture, **overrides)
    arch = hf_arch_config(directory)
    with pytest.raises(ValueError, match="expert intermediate size"):
        check_tensor_parallel(dataclasses.replace(arch, moe_intermediate_size=arch.moe_intermediate_size + 1), 2)
    settings = dict(model=str(directory), show_progress=False, num_kv_blocks=64, block_size=4,
                    max_num_batched_tokens=16)
    prompts = [[5, 17, 300, 9, 42, 7, 1000, 3, 12, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89], [400, 401, 402]]
    params = SamplingParams(max_tokens=6, temperature=0, logprobs=3, ignore_eos=True)
    one = LLM(EngineConfig(**settings)).generate(prompts, params)
    with LLM(EngineConfig(**settings, tensor_parallel_size=2)) as llm:
        two = llm.generate(prompts, params)
    for a, b in zip(one, two, strict=True):
        assert a.token_ids == b.token_ids
        for x, y in zip(a.logprobs, b.logprobs, strict=True):
            assert abs(x.logprob - y.logprob) < 1e-4


def test_qwen2_moe_config_fields(tmp_path: Path):
    directory = write_tiny_checkpoint(tmp_path / "q", architecture="qwen2_moe", mlp_only_layers=[0],
                                      decoder_sparse_step=1, norm_topk_prob=True, num_hidden_layers=2)
    arch = hf_arch_config(directory)
    config = json.loads((directory / "config.json").read_text())
    assert arch.attention_bias is config["qkv_bias"] is True
    assert arch.norm_topk_prob and arch.shared_expert_intermediate_size == 96 and arch.moe_intermediate_size == 32
    assert [arch.is_moe_layer(i) for i in range(2)] == [False, True]


def test_a_mixture_of_experts_gguf_is_refused_by_name(tmp_path: Path):
    import numpy as np
    from gguf import GGUFWriter

    from engine.loader.gguf_loader import gguf_arch_config, open_gguf

    path = tmp_path / "mixtral.gguf"
    writer = GGUFWriter(str(path), "llama")
    writer.add_uint32("llama.expert_count", 8)
    writer.add_uint32("llama.expert_used_count", 2)
    writer.add_tensor("token_embd.weight", np.zeros((4, 8), dtype=np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    with pytest.raises(UnknownModelError, match="8 experts"):
        gguf_arch_config(open_gguf(path))


def test_quantized_and_bfloat16_serving_keep_experts_and_router_unquantized(tmp_path: Path):
    """The engine's int8/int4 serving copies cover the attention, dense and shared-expert linears only: the expert
    stacks and the router keep the model's dtype (a quantized router could route elsewhere)."""
    architecture, overrides = FAMILIES["qwen2_moe"]
    directory = write_tiny_checkpoint(tmp_path / "q", architecture=architecture, **overrides)
    greedy = SamplingParams(max_tokens=4, temperature=0, ignore_eos=True)
    for quantization, dtype in (("int8", torch.float32), ("int4", torch.bfloat16)):
        llm = LLM(EngineConfig(model=str(directory), show_progress=False, num_kv_blocks=32, block_size=4,
                               quantization=quantization, dtype=str(dtype).removeprefix("torch.")))
        assert len(llm.generate([[5, 17, 300, 9]], greedy)[0].token_ids) == 4
        moe = llm.engine.model.layers[0].mlp
        assert moe.w13_weight.dtype == moe.w2_weight.dtype == moe.gate.dtype == dtype
        assert moe.shared_expert.gate_up_proj.quant_kind == quantization
