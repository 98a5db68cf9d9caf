"""Speculative decoding with a draft model: outputs equal the plain engine's (greedy, seeded, under a grammar), a
draft model identical to the target has every draft accepted (its own KV cache stays in step with the target's
through chunked catch-up, preemption and prefix-cache hits), and a draft model that cannot speak the target's
tokens is refused at start."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.config import EngineConfig
from engine.llm import LLM, GenerationResult
from engine.request import EngineRequest
from engine.sampling_params import SamplingParams

from .tiny_models import write_tiny_checkpoint

PROMPTS = [[5, 6, 7, 8, 9, 10, 11], [100, 200, 300], list(range(40, 80)), [7] * 18]
TINY = dict(show_progress=False, block_size=4, max_num_seqs=8, max_num_batched_tokens=32)


@pytest.fixture(scope="module")
def other_draft_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A smaller random model with the target's tokenizer: its drafts are mostly wrong."""
    return write_tiny_checkpoint(tmp_path_factory.mktemp("tiny-draft"), seed=1, num_hidden_layers=1, hidden_size=32,
                                 intermediate_size=64, num_attention_heads=2, num_key_value_heads=1)


def _llm(model: Path | str, draft: Path | str | None = None, **overrides: object) -> LLM:
    settings: dict[str, object] = {**TINY, "num_kv_blocks": 64, **overrides}
    if draft is not None:
        settings.update(speculative_method="draft_model", speculative_model=str(draft))
    return LLM(EngineConfig(model=str(model), **settings))  # type: ignore[arg-type]


def _tokens(results: list[GenerationResult]) -> list[list[int]]:
    return [r.token_ids for r in results]


def test_config_needs_a_draft_model_exactly_with_the_draft_method() -> None:
    with pytest.raises(ValueError, match="speculative_model"):
        EngineConfig(speculative_method="draft_model")
    with pytest.raises(ValueError, match="speculative_model"):
        EngineConfig(speculative_method="ngram", speculative_model="default")
    with pytest.raises(ValueError, match="speculative_model_quantization"):
        EngineConfig(speculative_method="draft_model", speculative_model="default",
                     speculative_model_quantization="int3")


def test_a_draft_identical_to_the_target_has_every_draft_accepted(tiny_llama_dir: Path) -> None:
    """The 40-token prompt's catch-up exceeds the 32-token draft budget (it catches up over two steps, without
    drafts in the first); every draft of a model equal to the target is what the target samples, so a single
    rejection would mean the draft's KV cache fell out of step."""
    params = SamplingParams(max_tokens=30, temperature=0, ignore_eos=True)
    plain = _llm(tiny_llama_dir)
    spec = _llm(tiny_llama_dir, draft=tiny_llama_dir)
    expected = plain.generate(PROMPTS, params)
    assert _tokens(spec.generate(PROMPTS, params)) == _tokens(expected)
    stats = spec.engine.stats_collector
    assert stats.spec_draft_tokens > 60 and stats.spec_accepted_tokens == stats.spec_draft_tokens
    assert spec.engine.num_steps < plain.engine.num_steps / 2


def test_a_tight_pool_preempts_and_drafts_stay_exact(tiny_llama_dir: Path) -> None:
    """Preemption frees a sequence's blocks, the draft's KV with them: it must catch up from scratch (a stale
    count would read another sequence's KV and get drafts rejected)."""
    params = SamplingParams(max_tokens=40, temperature=0, ignore_eos=True)
    expected = _llm(tiny_llama_dir).generate(PROMPTS * 2, params)
    tight = _llm(tiny_llama_dir, draft=tiny_llama_dir, num_kv_blocks=40, enable_prefix_caching=False)
    assert _tokens(tight.generate(PROMPTS * 2, params)) == _tokens(expected)
    stats = tight.engine.stats_collector
    assert tight.engine.scheduler.num_preemptions > 0
    assert stats.spec_draft_tokens > 0 and stats.spec_accepted_tokens == stats.spec_draft_tokens


def _trusted_slots_agree(llm: LLM) -> int:
    """For every running sequence, the draft cache equals the target's at each position the drafter trusts (the
    models are the same, so their KV must be too); the number of positions compared."""
    engine = llm.engine
    drafter = engine.speculator.drafter if engine.speculator is not None else None
    assert drafter is not None
    bs = engine.config.block_size
    target, draft = (r.kv_cache.flatten(2, 3) for r in (engine.runner, drafter.runner))
    compared = 0
    for seq in engine.scheduler.running:
        trusted = drafter._valid_prefix(seq)
        slots = [seq.block_table[p // bs] * bs + p % bs for p in range(trusted)]
        assert (draft[:, :, slots] - target[:, :, slots]).abs().max().item() < 1e-4 if slots else True, seq.request_id
        compared += len(slots)
    return compared


def test_the_draft_cache_equals_the_target_cache_wherever_it_is_trusted(tiny_llama_dir: Path) -> None:
    """Sampling at temperature 0.1 rejects some drafts (the draft is the argmax, the target samples): the KV of a
    rejected draft must never be trusted once the real token is known. Checked after every step, through chunked
    catch-up, prefix-cache hits and preemption in a tight pool."""
    spec = _llm(tiny_llama_dir, draft=tiny_llama_dir, num_kv_blocks=40)
    engine = spec.engine
    for i, prompt in enumerate(PROMPTS * 3):
        params = SamplingParams(max_tokens=40, temperature=0.1, seed=i, ignore_eos=True)
        engine.add_request(EngineRequest(f"r{i}", prompt, params))
    compared = 0
    while engine.has_unfinished_requests():
        engine.step()
        compared += _trusted_slots_agree(spec)
    stats = engine.stats_collector
    assert compared > 1000 and engine.scheduler.num_preemptions > 0 and engine.scheduler.prefix_cache_hits > 0
    assert 0 < stats.spec_accepted_tokens < stats.spec_draft_tokens


def test_a_prefix_cache_hit_brings_the_draft_kv_along(tiny_llama_dir: Path) -> None:
    """A second request over the same 40-token prompt reuses the cached blocks for the draft model too."""
    spec = _llm(tiny_llama_dir, draft=tiny_llama_dir)
    params = SamplingParams(max_tokens=8, temperature=0, ignore_eos=True)
    drafter = spec.engine.speculator.drafter if spec.engine.speculator is not None else None
    assert drafter is not None
    first = spec.generate([PROMPTS[2]], params)
    caught_up = drafter.num_catch_up_tokens
    assert caught_up >= len(PROMPTS[2]) - 1
    again = spec.generate([PROMPTS[2]], params)
    assert again[0].token_ids == first[0].token_ids
    assert again[0].usage is not None and again[0].usage.cached_tokens == 36
    assert drafter.num_catch_up_tokens - caught_up <= 8  # the uncached tail and accepted drafts, not the prompt
    stats = spec.engine.stats_collector
    assert stats.spec_accepted_tokens == stats.spec_draft_tokens


def test_a_poor_draft_model_changes_nothing_but_speed(tiny_llama_dir: Path, other_draft_dir: Path) -> None:
    plain = _llm(tiny_llama_dir)
    spec = _llm(tiny_llama_dir, draft=other_draft_dir)
    greedy = SamplingParams(max_tokens=24, temperature=0, ignore_eos=True)
    assert _tokens(spec.generate(PROMPTS, greedy)) == _tokens(plain.generate(PROMPTS, greedy))
    # A seeded row's draw depends only on the seed and its position, so seeded sampling is unchanged as well.
    seeded = [SamplingParams(max_tokens=24, temperature=0.9, seed=s, ignore_eos=True) for s in range(len(PROMPTS))]
    assert _tokens(spec.generate(PROMPTS, seeded)) == _tokens(plain.generate(PROMPTS, seeded))
    assert spec.engine.stats_collector.spec_draft_tokens > 0


def test_a_draft_model_with_another_vocabulary_is_refused(tiny_llama_dir: Path,
                                                          tmp_path_factory: pytest.TempPathFactory) -> None:
    larger = write_tiny_checkpoint(tmp_path_factory.mktemp("tiny-larger-vocab"), vocab_size=49_216)
    with pytest.raises(ValueError, match="vocabulary"):
        _llm(tiny_llama_dir, draft=larger)
    swapped = write_tiny_checkpoint(tmp_path_factory.mktemp("tiny-other-tokenizer"))
    tokenizer = json.loads((swapped / "tokenizer.json").read_text())
    vocab = tokenizer["model"]["vocab"]
    first, second = sorted(vocab, key=vocab.get)[300:302]
    vocab[first], vocab[second] = vocab[second], vocab[first]  # same size, two ids mean other strings
    (swapped / "tokenizer.json").write_text(json.dumps(tokenizer))
    with pytest.raises(ValueError, match="tokenizer"):
        _llm(tiny_llama_dir, draft=swapped)


# -- the real model: SmolLM2 drafting for itself through int8 weights ---------------------------------------------
def test_smollm2_with_a_quantized_draft_of_itself(smol_llm: LLM, chat_prompt_ids: list[list[int]]) -> None:
    """The draft reads the same weights at int8, so its argmax is mostly, not always, the target's: outputs equal
    the float32 engine's, most drafts are accepted, and a JSON-schema request drafts inside its grammar."""
    spec = LLM(EngineConfig(show_progress=False, kv_cache_memory_mb=64, speculative_method="draft_model",
                            speculative_model="default", speculative_model_quantization="int8"))
    params = SamplingParams(max_tokens=32, temperature=0)
    assert _tokens(spec.generate(chat_prompt_ids[:4], params)) == _tokens(smol_llm.generate(chat_prompt_ids[:4],
                                                                                          params))
    stats = spec.engine.stats_collector
    assert stats.spec_accepted_tokens > 0.6 * stats.spec_draft_tokens > 0

    schema = {"type": "object", "properties": {"city": {"type": "string"}, "country": {"type": "string"}},
              "required": ["city", "country"], "additionalProperties": False}
    tokenizer = smol_llm.tokenizer
    question = [{"role": "user", "content": "Which city is the capital of France? Answer as JSON."}]
    prompt = tokenizer.encode(tokenizer.apply_chat_template(question), add_special_tokens=False)

    def constrained(llm: LLM) -> tuple[list[int], str]:
        llm.engine.add_request(EngineRequest("json", prompt, SamplingParams(max_tokens=40, temperature=0),
                                             structured={"type": "json_schema", "json_schema": {"schema": schema}}))
        tokens, text = [], ""
        while llm.engine.has_unfinished_requests():
            for out in llm.engine.step():
                tokens += out.token_ids
                text += out.text
        return tokens, text

    drafted = stats.spec_draft_tokens
    assert constrained(spec) == constrained(smol_llm)
    assert set(json.loads(constrained(spec)[1])) == {"city", "country"}
    assert stats.spec_draft_tokens > drafted
