"""A prompt's greedy output does not depend on what else is in the batch: alone, or among 16 mixed-length
requests with chunked prefill and recompute preemption forced by a tiny KV pool."""

from __future__ import annotations

import pytest

from engine.config import EngineConfig
from engine.llm import LLM
from engine.sampling_params import SamplingParams

NEW_TOKENS = 20


@pytest.mark.slow
def test_greedy_output_is_batch_invariant(smol_llm, chat_prompt_ids, smol_tokenizer):
    params = SamplingParams(max_tokens=NEW_TOKENS, temperature=0, ignore_eos=True)
    probe = chat_prompt_ids[0]
    alone = smol_llm.generate([probe], params)[0].token_ids

    # 16 requests of very different lengths: chat prompts plus long plain-text ones
    filler = "The quick brown fox jumps over the lazy dog. "
    others = chat_prompt_ids[1:] + [smol_tokenizer.encode(filler * k) for k in (1, 2, 4, 6, 8, 2, 3, 5, 7, 3)]
    batch = [*others[:7], probe, *others[7:]]
    assert len(batch) == 16
    # 40 blocks x 16 tokens = 640 cached tokens for ~2,000 needed: preemption is certain; a 64-token budget
    # splits every prompt into chunks mixed with other requests' decodes.
    tight = LLM(EngineConfig(show_progress=False, num_kv_blocks=40, block_size=16, max_num_batched_tokens=64,
                             max_num_seqs=16, enable_prefix_caching=False))
    results = tight.generate(batch, params)
    assert tight.engine.scheduler.num_preemptions > 0
    assert results[7].token_ids == alone
    # and every other request matches its own solo run too
    solo = smol_llm.generate(others[:3], params)
    assert [r.token_ids for r in results[:3]] == [r.token_ids for r in solo]
