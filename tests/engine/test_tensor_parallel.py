"""Tensor parallelism on the CPU (gloo over loopback): how weights split, and engines of 2-4 ranks (worker
processes) against the one-rank engine — float32 outputs and logprobs equal, with padded vocabularies, replicated
KV heads, Qwen2's biases, chunked prefill, preemption and speculative decoding; the real model at 3 ranks; a dead
worker failing the engine promptly instead of hanging it; no worker left behind by a failed start."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

import pytest

from engine.config import EngineConfig
from engine.distributed.sharding import attention_shard, check_tensor_parallel, vocab_shard
from engine.errors import EngineDeadError
from engine.launch import start_engine
from engine.llm import LLM, GenerationResult
from engine.models.config import ModelArchConfig
from engine.request import EngineRequest
from engine.sampling_params import SamplingParams

from .tiny_models import write_tiny_checkpoint

pytestmark = pytest.mark.timeout(600)

PROMPTS = [[1, 5, 9, 100 + i, 7, 300] * (i + 1) for i in range(4)] + [[42] * 3, list(range(200, 237))]
GREEDY = SamplingParams(max_tokens=12, temperature=0.0, logprobs=3, ignore_eos=True)


def _arch(heads: int, kv: int, inter: int = 144, vocab: int = 100) -> ModelArchConfig:
    return ModelArchConfig("llama", vocab, 64, inter, 2, heads, kv, 64 // heads, 1e-5, 10000.0, 512, False)


def _child_pids() -> set[int]:
    me = str(os.getpid())
    children = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if (entry / "stat").read_text().rsplit(")", 1)[1].split()[1] == me:
                    children.add(int(entry.name))
            except OSError:
                continue
    return children


def _assert_same(reference: list[GenerationResult], results: list[GenerationResult]) -> None:
    for ref, out in zip(reference, results, strict=True):
        assert out.token_ids == ref.token_ids
        assert out.finish_reason == ref.finish_reason
        for a, b in zip(ref.logprobs or [], out.logprobs or [], strict=True):
            assert abs(a.logprob - b.logprob) < 1e-4
            assert [t[0] for t in a.top_logprobs] == [t[0] for t in b.top_logprobs]


# -- how weights split -------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("heads", "kv", "size"), [(4, 2, 2), (4, 2, 4), (8, 8, 4), (9, 3, 3), (8, 1, 4), (4, 4, 1)])
def test_every_query_head_reads_its_own_kv_head_on_its_rank(heads: int, kv: int, size: int) -> None:
    cfg = _arch(heads, kv)
    check_tensor_parallel(cfg, size)
    held_heads = []
    for rank in range(size):
        shard = attention_shard(cfg, rank, size)
        assert shard.num_heads * size == heads
        for head in range(shard.head_start, shard.head_start + shard.num_heads):
            held_heads.append(head)
            kv_head = head // (heads // kv)  # GQA: which KV head this query head reads in the whole model
            assert shard.kv_head_start <= kv_head < shard.kv_head_start + shard.num_kv_heads
    assert held_heads == list(range(heads))


@pytest.mark.parametrize(("vocab", "size"), [(100, 1), (100, 4), (101, 4), (49155, 2), (5, 4)])
def test_vocabulary_rows_are_held_exactly_once(vocab: int, size: int) -> None:
    shards = [vocab_shard(vocab, rank, size) for rank in range(size)]
    assert len({s.padded_size for s in shards}) == 1 and shards[0].padded_size * size >= vocab
    covered = [token for s in shards for token in range(s.start, s.end)]
    assert covered == list(range(vocab))
    assert all(s.end - s.start <= s.padded_size for s in shards)


def test_sizes_that_do_not_divide_the_model_are_refused_naming_why() -> None:
    with pytest.raises(ValueError, match="9 attention heads"):
        check_tensor_parallel(_arch(9, 3), 2)
    with pytest.raises(ValueError, match="6 key/value heads"):
        check_tensor_parallel(_arch(12, 6, inter=96), 4)
    with pytest.raises(ValueError, match="intermediate size 130"):
        check_tensor_parallel(_arch(4, 2, inter=130), 4)
    with pytest.raises(ValueError, match="tensor_parallel_size must be positive"):
        EngineConfig(tensor_parallel_size=0)


def test_the_real_model_refuses_two_ranks_before_starting_any_process() -> None:
    before = _child_pids()
    with pytest.raises(ValueError, match="9 attention heads"):  # SmolLM2-135M: 9 heads, 3 KV heads
        LLM(EngineConfig(show_progress=False, tensor_parallel_size=2))
    assert _child_pids() == before


# -- engines of several ranks ------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def tiny_padded_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # 49155 rows: neither 2 nor 4 ranks divide it, so the last rank holds padding rows.
    return write_tiny_checkpoint(tmp_path_factory.mktemp("tiny-tp"), vocab_size=49155)


def _config(model: Path, size: int, **overrides: object) -> EngineConfig:
    settings: dict[str, object] = dict(model=str(model), show_progress=False, num_kv_blocks=64, block_size=4,
                                       tensor_parallel_size=size)
    settings.update(overrides)
    return EngineConfig(**settings)  # type: ignore[arg-type]


@pytest.mark.parametrize("size", [2, 4])  # 4 ranks > 2 KV heads: each KV head replicated on two ranks
def test_ranks_compute_what_one_rank_does(tiny_padded_dir: Path, size: int) -> None:
    reference = LLM(_config(tiny_padded_dir, 1)).generate(PROMPTS, GREEDY)
    before = _child_pids()
    with LLM(_config(tiny_padded_dir, size)) as llm:
        assert len(_child_pids() - before) == size - 1  # one worker process per rank past the first
        _assert_same(reference, llm.generate(PROMPTS, GREEDY))
        seeded = SamplingParams(max_tokens=8, temperature=0.8, seed=7, ignore_eos=True)
        single = LLM(_config(tiny_padded_dir, 1)).generate(PROMPTS[:2], seeded)
        assert [r.token_ids for r in llm.generate(PROMPTS[:2], seeded)] == [r.token_ids for r in single]
    assert _child_pids() <= before  # the workers stopped with the engine


def test_biases_chunked_prefill_preemption_and_drafts_across_ranks(tmp_path: Path) -> None:
    qwen = write_tiny_checkpoint(tmp_path / "qwen", architecture="qwen2")
    # A 14-block pool and 8-token chunks: long prompts prefill in chunks and running sequences get preempted.
    tight = dict(num_kv_blocks=14, max_num_batched_tokens=8, max_num_seqs=4)
    reference = LLM(_config(qwen, 1, **tight)).generate(PROMPTS, GREEDY)
    with LLM(_config(qwen, 2, **tight)) as llm:
        _assert_same(reference, llm.generate(PROMPTS, GREEDY))
        assert llm.engine.scheduler.num_preemptions > 0
    copy = [list(range(300, 316)) * 3]  # repeats itself: prompt lookup drafts from it
    plain = LLM(_config(qwen, 1)).generate(copy, GREEDY)
    with LLM(_config(qwen, 2, speculative_method="ngram", prompt_lookup_adaptive=False)) as llm:
        _assert_same(plain, llm.generate(copy, GREEDY))
        assert llm.engine.stats_collector.spec_accepted_tokens > 0


@pytest.mark.slow
def test_the_real_model_on_three_ranks_answers_as_on_one(smol_llm: LLM, chat_prompt_ids: list[list[int]]) -> None:
    params = SamplingParams(max_tokens=16, temperature=0.0, logprobs=1)
    reference = smol_llm.generate(chat_prompt_ids[:3], params)
    with LLM(EngineConfig(show_progress=False, kv_cache_memory_mb=32, tensor_parallel_size=3)) as llm:
        _assert_same(reference, llm.generate(chat_prompt_ids[:3], params))


# -- failures ----------------------------------------------------------------------------------------------------
async def test_a_dead_worker_fails_the_engine_promptly(tiny_padded_dir: Path) -> None:
    """The gateway's path: the engine in its own (daemonic) process, its worker a grandchild. A killed worker must
    surface as EngineDeadError to every caller within seconds, and take the engine process down with it."""
    client = await start_engine(_config(tiny_padded_dir, 2))
    try:
        engine_pid = client.core_pid
        assert engine_pid is not None
        workers = [int(p) for p in Path(f"/proc/{engine_pid}/task/{engine_pid}/children").read_text().split()]
        assert len(workers) == 1
        first = [d async for d in client.generate(EngineRequest("ok", [1, 2, 3], SamplingParams(max_tokens=3)))]
        assert first[-1].finished and first[-1].finish_reason == "length"
        os.kill(workers[0], signal.SIGKILL)
        with pytest.raises(EngineDeadError):
            async with asyncio.timeout(60):
                request = EngineRequest("after", [1, 2, 3], SamplingParams(max_tokens=50, ignore_eos=True))
                async for _ in client.generate(request):
                    pass
        async with asyncio.timeout(30):
            while client.is_alive():
                await asyncio.sleep(0.1)
    finally:
        await client.shutdown()


def test_a_failed_start_leaves_no_worker_behind(tmp_path: Path) -> None:
    broken = write_tiny_checkpoint(tmp_path / "broken")
    (broken / "model.safetensors").write_bytes(b"not a safetensors file")
    before = _child_pids()
    with pytest.raises(Exception):  # whichever error safetensors raises: the point is what remains
        LLM(_config(broken, 2))
    assert _child_pids() <= before
