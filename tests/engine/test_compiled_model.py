"""The compiled decoder (``engine.worker.compilation``): the eager engine's results, from two graphs whatever the
batch."""

from __future__ import annotations

import random
import subprocess
import sys

import pytest
import torch
from torch._dynamo.utils import counters

from engine.config import EngineConfig
from engine.launch import start_engine
from engine.layers.linear import Linear, int4_supported
from engine.llm import LLM
from engine.outputs import TokenLogprob
from engine.request import EngineRequest
from engine.sampling_params import SamplingParams

# 12 prompts of 3-40 tokens against a 24-token step budget and 40 four-token blocks: prefills are chunked,
# decodes and chunks share steps, and the pool forces recompute preemption.
COMMON = dict(show_progress=False, num_kv_blocks=40, block_size=4, max_num_seqs=8, max_num_batched_tokens=24,
              enable_prefix_caching=False)


def _prompts(n: int = 12) -> list[list[int]]:
    rng = random.Random(7)
    return [[rng.randrange(3, 2000) for _ in range(rng.randint(3, 40))] for _ in range(n)]


def assert_close_top_logprobs(compiled: TokenLogprob, eager: TokenLogprob) -> None:
    """The same numbers up to the quantized kernels' rounding: at least 15 of the top 20 tokens shared, their
    logprobs within 0.1 (near-ties among the rest may swap places)."""
    eager_top = {token: value for token, _, value in eager.top_logprobs}
    shared = [(value, eager_top[token]) for token, _, value in compiled.top_logprobs if token in eager_top]
    assert len(shared) >= 15
    assert max(abs(a - b) for a, b in shared) < 0.1


def test_compiled_float32_matches_eager_with_two_graphs(tiny_llama_dir):
    params = SamplingParams(max_tokens=12, temperature=0, ignore_eos=True, logprobs=5)
    eager = LLM(EngineConfig(model=str(tiny_llama_dir), **COMMON)).generate(_prompts(), params)
    graphs_before = counters["stats"]["unique_graphs"]
    llm = LLM(EngineConfig(model=str(tiny_llama_dir), compile_model=True, **COMMON))
    compiled = llm.generate(_prompts(), params)
    compiled += llm.generate(_prompts(1), params)  # one sequence alone: the single-token graph decodes it
    assert llm.engine.runner.compiled.compile_seconds > 0
    # Unquantized, inductor lowers the linears' GEMMs itself: frozen weights, for its GEMM templates.
    assert llm.engine.runner.compiled.freezing is True
    # The warm-up's graphs (one row and 2+ rows, for the decoder and for the LM head) serve every step: no
    # recompilation for new token counts, sampled-row counts or context lengths.
    assert counters["stats"]["unique_graphs"] - graphs_before == 4

    assert [r.token_ids for r in compiled[:-1]] == [r.token_ids for r in eager]
    assert compiled[-1].token_ids == eager[0].token_ids
    for c, e in zip(compiled, eager, strict=False):
        for c_lp, e_lp in zip(c.logprobs, e.logprobs, strict=True):
            assert c_lp.logprob == pytest.approx(e_lp.logprob, abs=1e-4)


@pytest.mark.skipif(not int4_supported(128, 64, torch.bfloat16), reason="int4 kernel unavailable")
def test_compiled_int4_layers_serve_every_row_count(tiny_llama_dir):
    """Compiled, the quantized weights (int4 layers, int8 LM head) serve every batch (inductor's AMX GEMMs do
    not slow down with rows) and keep no prepacked copy."""
    common = dict(model=str(tiny_llama_dir), dtype="bfloat16", quantization="int4", **COMMON)
    llm = LLM(EngineConfig(compile_model=True, **common))
    model = llm.engine.model
    layers = [m for m in model.layers.modules() if isinstance(m, Linear)]
    # quant_max_rows None: every row count, with no comparison of the graph's symbolic row count against a bound.
    assert all(m.quant_kind == "int4" and m.quant_max_rows is None and m.packed_weight is None for m in layers)
    head = model.lm_head
    assert head.quant_kind == "int8" and head.quant_max_rows is None and head.packed_weight is None
    assert all(m.weight.numel() == 0 for m in [*layers, head])  # dense copies released
    assert model.embed_tokens.weight.numel() > 0

    # The eager engine on the same quantized weights for every row count: the same numbers up to rounding.
    eager = LLM(EngineConfig(int8_max_rows=24, cpu_prepack=False, **common))
    params = SamplingParams(max_tokens=1, temperature=0, logprobs=20)
    for c, e in zip(llm.generate(_prompts(), params), eager.generate(_prompts(), params), strict=True):
        assert_close_top_logprobs(c.logprobs[0], e.logprobs[0])


def _one_row_kernels() -> bool:
    import kernels.cpu

    return kernels.cpu.load() and all(kernels.cpu.one_row_linear_supported(kind, 64, 64) for kind in ("int4", "int8"))


@pytest.mark.skipif(not _one_row_kernels(), reason="no C++ one-row int4/int8 kernels on this CPU (AVX-512 VNNI)")
def test_compiled_decode_of_one_sequence_runs_the_one_row_kernels(tiny_llama_dir):
    """Alone, a sequence decodes through the one-token graphs, where the int4 layers and the int8 head are
    kernels.cpu's one-row kernels (opaque ops in the graphs); the eager engine runs the same kernels for its
    one-row steps."""
    common = dict(model=str(tiny_llama_dir), dtype="bfloat16", quantization="int4", **COMMON)
    compiled_llm = LLM(EngineConfig(compile_model=True, **common))
    params = SamplingParams(max_tokens=4, temperature=0, logprobs=20, ignore_eos=True)
    prompt = _prompts(1)
    with torch.profiler.profile() as profile:
        compiled = compiled_llm.generate(prompt, params)[0]
    ran = {event.name for event in profile.events()}
    # The head: kernels.cpu's LM head where it packed its weight for it (AVX-512 VNNI), else the one-row int8 linear.
    head_op = "warden_cpu::lm_head_linear" if compiled_llm.engine.model.lm_head.quant_packed is not None \
        else "warden_cpu::int8_linear"
    assert {"warden_cpu::int4_linear_two_level", head_op} <= ran
    eager = LLM(EngineConfig(int8_max_rows=24, cpu_prepack=False, **common)).generate(prompt, params)[0]
    # The prefill picked the same first token, so the first decode step saw the same context in both; later
    # steps may follow another near-tie of the random tiny model's flat distribution.
    assert compiled.token_ids[0] == eager.token_ids[0]
    for c_lp, e_lp in zip(compiled.logprobs[:2], eager.logprobs[:2], strict=True):
        assert_close_top_logprobs(c_lp, e_lp)


async def test_compiled_engine_serves_from_its_own_process(tiny_llama_dir):
    """The engine process (daemonic, spawned) compiles at start and answers like the eager engine in-process."""
    config = EngineConfig(model=str(tiny_llama_dir), compile_model=True, **COMMON)
    params = SamplingParams(max_tokens=8, temperature=0, ignore_eos=True)
    expected = LLM(EngineConfig(model=str(tiny_llama_dir), **COMMON)).generate(_prompts(2), params)
    client = await start_engine(config)
    try:
        for i, prompt in enumerate(_prompts(2)):
            deltas = [d async for d in client.generate(EngineRequest(f"c{i}", prompt, params))]
            assert [t for d in deltas for t in d.token_ids] == expected[i].token_ids
    finally:
        await client.shutdown()


def test_a_failed_compile_stops_the_start_naming_the_switch(tiny_llama_dir, monkeypatch):
    from engine.worker import compilation

    def no_compiler(*args):
        raise OSError("g++: not found")

    monkeypatch.setattr(compilation.CompiledModel, "_compile_all", no_compiler)
    with pytest.raises(RuntimeError, match=r"compile_model: compiling the decoder failed \(OSError: g\+\+: not found"):
        LLM(EngineConfig(model=str(tiny_llama_dir), compile_model=True, **COMMON))


def test_compile_cache_dir_holds_the_built_code(tiny_llama_dir, tmp_path):
    """The engine builds its C++ kernels (and would compile the decoder) under the configured directory. In a
    child process: the directories are taken from the environment once, and a process loads the kernels once."""
    script = (
        "import os, sys\n"
        "from engine.config import EngineConfig\n"
        "from engine.llm import LLM\n"
        f"LLM(EngineConfig(model={str(tiny_llama_dir)!r}, show_progress=False, num_kv_blocks=8, block_size=4, "
        f"compile_cache_dir={str(tmp_path)!r}))\n"
        "print(os.environ['TORCHINDUCTOR_CACHE_DIR'])\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300, check=True)
    assert done.stdout.strip() == str(tmp_path / "inductor")
    assert list((tmp_path / "extensions").glob("warden_cpu_kernels_*/warden_cpu_kernels_*.so"))


@pytest.mark.skipif(not _one_row_kernels(), reason="no C++ one-row int4/int8 kernels on this CPU (AVX-512 VNNI)")
def test_compiled_small_batches_run_the_int4_kernel_under_any_setting_in_one_process(tiny_llama_dir):
    """Steps of 2..cpu_small_batch_rows tokens run kernels.cpu's int4 linear inside the graph of 2+ tokens (one
    opaque op choosing per call), so engines with different settings compile the same code under the same bounds:
    a graph of its own for small steps once failed the second engine's start (inductor's cache carried the first
    one's guard on the token count into it)."""
    common = dict(model=str(tiny_llama_dir), dtype="bfloat16", quantization="int4", **COMMON)
    prompts, params = _prompts(3), SamplingParams(max_tokens=3, temperature=0, logprobs=20, ignore_eos=True)
    eager = LLM(EngineConfig(int8_max_rows=24, cpu_prepack=False, cpu_small_batch_rows=4, **common))
    expected = eager.generate(prompts, params)
    for rows in (4, 1):
        llm = LLM(EngineConfig(compile_model=True, cpu_small_batch_rows=rows, **common))
        layers = [m for m in llm.engine.model.layers.modules() if isinstance(m, Linear)]
        assert all(m.quant_kernel_rows == rows and (m.quant_kernel_up_to is not None) == (rows > 1) for m in layers)
        head = llm.engine.model.lm_head  # with the small-batch kernels on, the int8 head's every row count
        assert (head.quant_kernel_up_to is not None) == (rows > 1) and head.quant_kernel_rows >= rows
        with torch.profiler.profile() as profile:
            outputs = llm.generate(prompts, params)
        ran = {event.name for event in profile.events()}
        assert ("warden_cpu::int4_linear_up_to" in ran) == (rows > 1)
        # Every linear an opaque kernel at every row count: nothing for freezing to prepack, so the graphs are
        # compiled unfrozen and AOTAutograd's cache keeps them for the next start. With the one-row kernels
        # only, the layers' GEMMs of 2+ rows are inductor's, which wants frozen weights.
        assert llm.engine.runner.compiled.freezing is (rows == 1)
        # The head's decode steps of 2-3 rows: its packed kernel at every row count where it has one.
        assert ("warden_cpu::lm_head_linear" in ran) == (head.quant_packed is not None)
        assert ("warden_cpu::int8_linear_up_to" in ran) == (rows > 1 and head.quant_packed is None)
        if rows == 4:  # the same kernels for the same rows as the eager engine: the same numbers up to rounding
            for c, e in zip(outputs, expected, strict=True):
                assert_close_top_logprobs(c.logprobs[0], e.logprobs[0])
                if c.token_ids[0] == e.token_ids[0]:  # the first decode step (3 rows: the kernel) saw one context
                    assert_close_top_logprobs(c.logprobs[1], e.logprobs[1])


@pytest.mark.skipif(not int4_supported(128, 64, torch.bfloat16), reason="int4 kernel unavailable")
def test_compiled_engines_of_growing_step_budgets_start_in_one_process(tiny_llama_dir):
    """An engine with a larger max_num_batched_tokens than one compiled before it (same model and kernels) starts:
    inductor's cache gave the second the first one's graph, whose range of the token count came with it as a guard
    (tokens <= the first bound), and the second's start failed on it (bench.agreement after a 2048-token engine)."""
    common = dict(COMMON, model=str(tiny_llama_dir), dtype="bfloat16", quantization="int4", compile_model=True)
    params = SamplingParams(max_tokens=3, temperature=0, ignore_eos=True)
    outputs = []
    for budget in (40, 72):
        llm = LLM(EngineConfig(**{**common, "max_num_batched_tokens": budget}))
        assert llm.engine.runner.compiled.max_num_tokens == budget
        outputs.append([r.token_ids for r in llm.generate(_prompts(4), params)])
    assert outputs[0] == outputs[1]


def test_an_input_layout_holds_all_but_the_row_count():
    """What a whole graph's guards accepted once is skipped for inputs of the same layout: only the row count may
    differ (2..bound in the graph of 2+ rows), never dtype, trailing shape, strides or the inference flag."""
    from engine.worker.compilation import input_layout

    with torch.inference_mode():
        hidden = torch.zeros(3, 8, dtype=torch.bfloat16)
        layout = input_layout("lm_head-n", (hidden,), 64)
        assert input_layout("lm_head-n", (torch.zeros(40, 8, dtype=torch.bfloat16),), 64) == layout
        assert input_layout("lm_head-1", (hidden[:1],), 64) != layout
        others = [hidden.float(), torch.zeros(3, 16, dtype=torch.bfloat16), torch.zeros(8, 3, dtype=torch.bfloat16).t()]
        assert all(input_layout("lm_head-n", (other,), 64) != layout for other in others)
        assert input_layout("lm_head-n", (torch.zeros(65, 8, dtype=torch.bfloat16),), 64) is None  # guards refuse it
    assert input_layout("lm_head-n", (torch.zeros(3, 8, dtype=torch.bfloat16),), 64) != layout  # not inference


@pytest.mark.skipif(not _one_row_kernels(), reason="no C++ one-row int4/int8 kernels on this CPU (AVX-512 VNNI)")
def test_whole_graphs_check_their_guards_once_per_input_layout(tiny_llama_dir):
    """Prefill chunks, decode batches of 3, 2 and 1 rows and LM heads of every sampled-row count: each of the four
    whole graphs checks its guards for its first step only, and the steps after it give what checking every
    step gives."""
    common = dict(model=str(tiny_llama_dir), dtype="bfloat16", quantization="int4", **COMMON)
    llm = LLM(EngineConfig(compile_model=True, cpu_small_batch_rows=4, **common))
    compiled = llm.engine.runner.compiled
    assert compiled.freezing is False  # every linear an opaque kernel: the graphs are compiled whole
    prompts = [p[: 6 + 3 * i] for i, p in enumerate(_prompts(3))]
    params = [SamplingParams(max_tokens=n, temperature=0, ignore_eos=True) for n in (2, 5, 9)]
    skipped = [r.token_ids for r in llm.generate(prompts, params)]
    assert sorted(layout[0] for layout in compiled._accepted) == ["decoder-1", "decoder-n", "lm_head-1", "lm_head-n"]

    class NothingAccepted(set):  # every step checks its guards again, as before any step ran
        def add(self, _layout: object) -> None:
            pass

    compiled._accepted = NothingAccepted()
    assert [r.token_ids for r in llm.generate(prompts, params)] == skipped
