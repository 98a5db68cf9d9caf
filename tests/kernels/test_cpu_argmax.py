"""The C++ argmax (kernels/cpu/argmax.cpp) gives exactly torch's ``max(dim=-1).indices`` — first of ties, first NaN,
infinities, any vocabulary size, strided rows — on its AVX-512 path and its portable loop, and ``dispatch.argmax``
(the sampler's pick) runs it only where it has the AVX-512 path (the reference elsewhere)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
import torch

import kernels.cpu
from engine.layers.sampler import Sampler, SamplingTensors
from kernels import dispatch
from kernels.reference.argmax import argmax as reference

pytestmark = pytest.mark.skipif(not kernels.cpu.load(), reason="no C++ toolchain to build the CPU kernels")

NAN, INF = float("nan"), float("inf")
# Both paths of the op; the vector one only where this build has it.
PATHS = [
    pytest.param(False, id="avx512", marks=pytest.mark.skipif(
        kernels.cpu.load() and not kernels.cpu.argmax_supported(), reason="this CPU lacks AVX-512")),
    pytest.param(True, id="portable"),
]
# Around the kernel's 16-lane vectors and 64-element blocks, a prime, and SmolLM2's vocabulary (+1).
SIZES = [1, 2, 15, 16, 17, 63, 64, 65, 127, 128, 129, 1000, 4099, 49152, 49153]


def check(x: torch.Tensor, portable: bool) -> None:
    assert torch.equal(kernels.cpu.argmax(x, portable), reference(x))


@pytest.mark.parametrize("portable", PATHS)
@pytest.mark.parametrize("rows", [1, 8, 32])
def test_random_logits(rows: int, portable: bool) -> None:
    torch.manual_seed(rows)
    check(torch.randn(rows, 49152) * 5, portable)


@pytest.mark.parametrize("portable", PATHS)
@pytest.mark.parametrize("vocab", SIZES)
def test_vocabulary_sizes_with_the_maximum_anywhere(vocab: int, portable: bool) -> None:
    """Rows whose maximum sits in every lane, accumulator, block and the partial tail vector."""
    torch.manual_seed(vocab)
    x = torch.randn(min(vocab, 200), vocab)
    positions = torch.linspace(0, vocab - 1, x.shape[0]).long()
    x[torch.arange(x.shape[0]), positions] = 10.0
    check(x, portable)
    assert torch.equal(kernels.cpu.argmax(x, portable), positions)


@pytest.mark.parametrize("portable", PATHS)
@pytest.mark.parametrize("vocab", [17, 100, 129, 49153])
def test_ties_go_to_the_first_index(vocab: int, portable: bool) -> None:
    """The maximum duplicated in the same lane of later blocks, in other accumulators, and in the tail."""
    gen = torch.Generator().manual_seed(vocab)
    x = torch.randn(64, vocab, generator=gen)
    for row in range(x.shape[0]):
        places = torch.randint(0, vocab, (1 + row % 5,), generator=gen)
        x[row, places] = 7.0
    x[0, [vocab - 1, 0]] = 8.0  # first and last element
    x[1, [16, 0]] = 8.0  # same lane, other accumulator
    x[2, [64 % vocab, 0]] = 8.0  # same lane and accumulator, next block
    x[3] = 1.5  # a constant row: all tied
    x[4] = torch.where(torch.arange(vocab) % 2 == 0, -0.0, 0.0)  # signed zeros compare equal
    x[5, 3] = 0.0
    check(x, portable)


@pytest.mark.parametrize("portable", PATHS)
@pytest.mark.parametrize("vocab", [1, 17, 100, 129, 49153])
def test_nan_counts_as_the_largest_and_the_first_nan_wins(vocab: int, portable: bool) -> None:
    gen = torch.Generator().manual_seed(vocab)
    x = torch.randn(40, vocab, generator=gen)
    for row in range(x.shape[0]):
        x[row, torch.randint(0, vocab, (1 + row % 3,), generator=gen)] = NAN
    x[0, 0] = NAN  # at the start
    x[1, -1] = NAN  # in the tail
    x[2, :] = NAN
    x[3, [vocab // 2, vocab - 1]] = torch.tensor([NAN, INF])  # before an infinity...
    x[4, [vocab // 2, vocab - 1]] = torch.tensor([INF, NAN])  # ...and after one
    x[5, :] = -INF
    x[5, -1] = NAN  # otherwise all -inf
    check(x, portable)


@pytest.mark.parametrize("portable", PATHS)
@pytest.mark.parametrize("vocab", [1, 17, 129, 49153])
def test_infinities(vocab: int, portable: bool) -> None:
    x = torch.randn(6, vocab)
    x[0, :] = -INF  # every element -inf: index 0
    x[1, -1] = INF
    x[2, [vocab - 1, vocab // 3]] = INF  # two +inf: the first
    x[3, :] = INF
    x[4, : vocab // 2] = -INF
    x[5] = torch.finfo(torch.float32).max
    check(x, portable)


@pytest.mark.parametrize("portable", PATHS)
def test_strided_rows_are_read_where_they_are(portable: bool) -> None:
    torch.manual_seed(0)
    wide = torch.randn(8, 49152 + 40)
    check(wide[:, 3:49155], portable)  # rows at a stride wider than their length
    check(wide[::2], portable)  # every other row
    check(wide.t().contiguous().t(), portable)  # column-major: copied first
    check(wide[:, ::3], portable)  # strided within the row: copied first


def test_refuses_what_it_does_not_read() -> None:
    with pytest.raises(RuntimeError, match="float32"):
        kernels.cpu.argmax(torch.randn(2, 64).bfloat16())
    with pytest.raises(RuntimeError, match="float32"):
        kernels.cpu.argmax(torch.randn(64))
    with pytest.raises(RuntimeError, match="empty row"):
        kernels.cpu.argmax(torch.randn(2, 0))
    assert kernels.cpu.argmax(torch.randn(0, 64)).shape == (0,)


def test_traces_under_torch_compile() -> None:
    # aot_eager: tracing runs the fake implementation the loader registered, without inductor's C++ build.
    compiled = torch.compile(lambda x: kernels.cpu.argmax(x) + 1, fullgraph=True, backend="aot_eager")
    x = torch.randn(3, 1000)
    assert torch.equal(compiled(x), reference(x) + 1)


@pytest.fixture()
def fresh_choice(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv("WARDEN_KERNELS", raising=False)
    dispatch._cpu_module.cache_clear()
    yield
    dispatch._cpu_module.cache_clear()


def _ran_the_kernel(fn: Callable[..., torch.Tensor], *args: torch.Tensor) -> bool:
    with torch.profiler.profile() as profile:
        fn(*args)
    return "warden_cpu::argmax" in {event.name for event in profile.events()}


@pytest.mark.skipif(kernels.cpu.load() and not kernels.cpu.argmax_supported(), reason="this CPU lacks AVX-512")
def test_dispatch_runs_the_kernel_only_for_float32_rows_on_avx512(
        fresh_choice: None, monkeypatch: pytest.MonkeyPatch) -> None:
    x = torch.randn(4, 1000)
    assert _ran_the_kernel(dispatch.argmax, x)
    assert not _ran_the_kernel(dispatch.argmax, x.bfloat16())
    assert dispatch.argmax(torch.empty(4, 1000, device="meta")).device.type == "meta"  # another device: reference
    with dispatch.forced_kernels(object()):  # type: ignore[arg-type]
        assert not _ran_the_kernel(dispatch.argmax, x)
    monkeypatch.setattr(kernels.cpu, "argmax_supported", lambda: False)  # a CPU without AVX-512
    assert not _ran_the_kernel(dispatch.argmax, x)
    assert torch.equal(dispatch.argmax(x), reference(x))
    monkeypatch.undo()
    monkeypatch.setenv("WARDEN_KERNELS", "reference")
    dispatch._cpu_module.cache_clear()
    assert not _ran_the_kernel(dispatch.argmax, x)


@pytest.mark.skipif(kernels.cpu.load() and not kernels.cpu.argmax_supported(), reason="this CPU lacks AVX-512")
def test_the_sampler_picks_greedy_and_sampled_tokens_with_the_kernel(fresh_choice: None) -> None:
    torch.manual_seed(0)
    logits = torch.randn(6, 49152)
    logits[1, [9, 4000]] = 30.0  # a tie: the first
    logits[2, 77] = NAN
    greedy = SamplingTensors(temperature=torch.zeros(6), all_greedy=True)
    with torch.profiler.profile() as profile:
        out = Sampler()(logits, greedy)
    assert "warden_cpu::argmax" in {event.name for event in profile.events()}
    # The sampler excludes a NaN logit (engine.layers.sampler) before the kernel picks the maximum.
    assert torch.equal(out.token_ids, reference(logits.nan_to_num(nan=float("-inf"))))
    assert out.token_ids[1] == 9 and out.token_ids[2] != 77

    # Sampled rows draw the same tokens as with the reference from the same noise.
    mixed = SamplingTensors(temperature=torch.tensor([0.0, 0.7, 1.0, 0.0, 1.3, 0.9]), all_greedy=False,
                            base_generator=torch.Generator().manual_seed(3))
    with torch.profiler.profile() as profile:
        drawn = Sampler()(logits.nan_to_num(), mixed).token_ids
    assert [event.name for event in profile.events()].count("warden_cpu::argmax") == 2  # greedy and sampled picks
    with dispatch.forced_kernels(object()):  # type: ignore[arg-type]
        mixed.base_generator = torch.Generator().manual_seed(3)
        assert torch.equal(Sampler()(logits.nan_to_num(), mixed).token_ids, drawn)
