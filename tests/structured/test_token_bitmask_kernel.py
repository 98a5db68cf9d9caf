"""kernels.token_bitmask: the torch reference against a plain loop, and the Triton kernel against the reference
(under TRITON_INTERPRET=1 on CPU; natively on CUDA when present)."""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Iterator
from types import ModuleType

import pytest
import torch

from kernels import token_bitmask


def _random_case(batch: int, vocab: int, words: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    gen = torch.Generator().manual_seed(seed)
    logits = torch.randn(batch, vocab, generator=gen)
    mask = torch.randint(-(2**31), 2**31 - 1, (batch, words), generator=gen, dtype=torch.int64).to(torch.int32)
    mask[0] = -1  # an unconstrained row in the batch
    return logits, mask


def _expected(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    out = logits.clone()
    for b in range(logits.shape[0]):
        for t in range(logits.shape[1]):
            w = t // 32
            if w >= mask.shape[1] or not (int(mask[b, w]) >> (t % 32)) & 1:
                out[b, t] = float("-inf")
    return out


CASES = [(3, 100, 4), (2, 64, 2), (4, 70, 2), (1, 33, 2)]  # vocab: not a multiple of 32, exact, beyond the mask


@pytest.mark.parametrize(("batch", "vocab", "words"), CASES)
def test_reference_matches_a_plain_loop(batch: int, vocab: int, words: int) -> None:
    logits, mask = _random_case(batch, vocab, words, seed=vocab)
    expected = _expected(logits, mask)
    out = token_bitmask.apply_token_bitmask_reference_(logits, mask)
    assert out is logits
    torch.testing.assert_close(logits, expected)
    assert torch.equal(logits[0, : min(vocab, 32 * words)], expected[0, : min(vocab, 32 * words)])


def test_one_dimensional_inputs_and_half_precision() -> None:
    logits = torch.zeros(40, dtype=torch.bfloat16)
    mask = torch.tensor([0b101, 0], dtype=torch.int32)
    token_bitmask.apply_token_bitmask_(logits, mask)
    assert torch.isfinite(logits).nonzero().flatten().tolist() == [0, 2]


def test_dispatch_uses_reference_on_cpu() -> None:
    logits, mask = _random_case(2, 50, 2, seed=1)
    expected = _expected(logits, mask)
    token_bitmask.apply_token_bitmask_(logits, mask)
    torch.testing.assert_close(logits, expected)


@pytest.fixture()
def interpreted_kernels(monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    """A fresh copy of the module whose @triton.jit ran with TRITON_INTERPRET=1 (decided at decoration time)."""
    if importlib.util.find_spec("triton") is None:
        pytest.skip("triton is not installed: the Triton kernel cannot be checked here")
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    spec = importlib.util.find_spec("kernels.token_bitmask")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    yield module


@pytest.mark.parametrize(("batch", "vocab", "words"), [*CASES, (3, 2500, 79)])  # 2500: more than one block
def test_triton_kernel_matches_reference_interpreted(
    interpreted_kernels: ModuleType, batch: int, vocab: int, words: int
) -> None:
    logits, mask = _random_case(batch, vocab, words, seed=vocab + 7)
    expected = logits.clone()
    token_bitmask.apply_token_bitmask_reference_(expected, mask)
    interpreted_kernels.apply_token_bitmask_triton_(logits, mask)
    torch.testing.assert_close(logits, expected)


@pytest.mark.cuda
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_triton_kernel_on_cuda_matches_reference() -> None:
    logits, mask = _random_case(8, 49152, 1536, seed=3)
    expected = logits.clone()
    token_bitmask.apply_token_bitmask_reference_(expected, mask)
    on_device = logits.cuda()
    token_bitmask.apply_token_bitmask_(on_device, mask.pin_memory())  # host mask, copied asynchronously
    torch.testing.assert_close(on_device.cpu(), expected)
