"""``kernels.cpu.attend_step`` (``warden_cpu::attend_step``), the compiled decoder's attention op in C++: each call
stores the layer's keys and values into the cache the step state holds for that layer and attends over it, the
state set once per step by ``engine.worker.forward_context``. Checked against the torch references
(``kernels.reference.kv_store``, ``kernels.reference.paged_attention``) on decode batches, short queries, prefill
chunks, windows, soft-caps and int8 caches, and for the calls it hands to the Python ``warden::paged_attention``."""

from __future__ import annotations

import sys

import pytest
import torch

import engine.layers.attention  # noqa: F401  (defines warden::paged_attention, the op attend_step falls back to)
import kernels.cpu
from engine.worker.forward_context import forward_context
from kernels import dispatch
from kernels.reference import kv_int8
from kernels.reference import kv_store as reference_store
from kernels.reference import paged_attention as reference
from tests.kernels.batch import PagedBatch, make_batch

pytestmark = pytest.mark.skipif(
    not kernels.cpu.load() or not torch.ops.warden_cpu.prefill_attention_runs(),
    reason="the C++ attention kernels need AVX512-BF16 and a C++ toolchain")
CPU = torch.device("cpu")
SCALE = 0.125
TOLERANCE = 2e-2

# (decode context lengths, (query_len, seq_len) prefill chunks): every branch of the op.
BATCHES = {
    "decodes": ([1, 17, 33, 300], []),
    "short-queries": ([40, 9], [(5, 60), (16, 16)]),  # at most kernels.cpu.SHORT_QUERY tokens: one row per token
    "prefill-chunks": ([70], [(40, 200), (33, 33)]),  # the bf16 prefill kernel after the decode rows
    "prefill-only": ([], [(48, 48)]),
}


def _batch(name: str, int8: bool = False, seed: int = 0) -> PagedBatch:
    decodes, prefills = BATCHES[name]
    b = make_batch(decodes, prefills, kv_heads=3, group=3, head_dim=64, block_size=16, dtype=torch.bfloat16,
                   device=CPU, seed=seed)
    if int8:
        b = PagedBatch(b.q, b.key, b.value, kv_int8.quantize(b.k_cache), kv_int8.quantize(b.v_cache), b.meta)
    # This step's slots emptied: the op has to store the keys and values before attending to them.
    for cache in (b.k_cache, b.v_cache):
        cache.view(-1, *cache.shape[2:])[b.meta.slot_mapping] = 0
    return b


def _expected(b: PagedBatch, window: int, softcap: float) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """The reference store into copies of the caches, then float32 reference attention over them."""
    k_cache, v_cache = b.k_cache.clone(), b.v_cache.clone()
    reference_store.store_kvcache(b.key, b.value, k_cache, v_cache, b.meta.slot_mapping)
    if kv_int8.is_int8(k_cache):
        keys, values = kv_int8.dequantize(k_cache, torch.float32), kv_int8.dequantize(v_cache, torch.float32)
    else:
        keys, values = k_cache.float(), v_cache.float()
    out = reference.paged_attention(b.q.float(), keys, values, b.meta, SCALE, window, softcap)
    return out, k_cache, v_cache


def _attend(b: PagedBatch, window: int = 0, softcap: float = 0.0) -> torch.Tensor:
    # Layer 1 of two: the op picks the layer's own caches out of the step state.
    spare = (torch.zeros_like(b.k_cache), torch.zeros_like(b.v_cache))
    with forward_context(b.meta, [spare, (b.k_cache, b.v_cache)]):
        return kernels.cpu.attend_step(b.q, b.key, b.value, 1, SCALE, window, softcap)


@pytest.mark.parametrize("int8", [False, True], ids=["bf16", "int8"])
@pytest.mark.parametrize("name", list(BATCHES))
def test_stores_and_attends_like_the_references(name: str, int8: bool) -> None:
    b = _batch(name, int8)
    expected, k_cache, v_cache = _expected(b, 0, 0.0)
    out = _attend(b)
    assert out.shape == b.q.shape and out.dtype == b.q.dtype
    torch.testing.assert_close(out.float(), expected, atol=TOLERANCE, rtol=TOLERANCE)
    assert torch.equal(b.k_cache, k_cache) and torch.equal(b.v_cache, v_cache)


@pytest.mark.parametrize(("window", "softcap"), [(17, 0.0), (0, 5.0), (20, 5.0)])
@pytest.mark.parametrize("name", list(BATCHES))
def test_windows_and_soft_caps(name: str, window: int, softcap: float) -> None:
    """Decodes and short queries attend in C++; longer prefill chunks under a window or soft-cap take the Python op
    (the bf16 prefill kernel has neither): both match the reference."""
    b = _batch(name, seed=window)
    expected, k_cache, _ = _expected(b, window, softcap)
    torch.testing.assert_close(_attend(b, window, softcap).float(), expected, atol=TOLERANCE, rtol=TOLERANCE)
    assert torch.equal(b.k_cache, k_cache)


def test_strided_queries_and_keys_of_a_fused_projection() -> None:
    """In the graph q, k and v are views into one fused qkv row per token."""
    b = _batch("short-queries", seed=3)
    expected, k_cache, _ = _expected(b, 0, 0.0)
    tokens, heads, dim = b.q.shape
    qkv = torch.cat([b.q.reshape(tokens, -1), b.key.reshape(tokens, -1), b.value.reshape(tokens, -1)], dim=1)
    q, k, v = qkv.split([heads * dim, 3 * dim, 3 * dim], dim=1)
    strided = PagedBatch(q.view(tokens, heads, dim), k.view(tokens, 3, dim), v.view(tokens, 3, dim), b.k_cache,
                         b.v_cache, b.meta)
    torch.testing.assert_close(_attend(strided).float(), expected, atol=TOLERANCE, rtol=TOLERANCE)
    assert torch.equal(b.k_cache, k_cache)


def test_each_step_reads_its_own_metadata() -> None:
    """Two steps one after another over the same caches: the second attends with its own metadata, not the first's
    (nothing of a step outlives its forward context)."""
    first, second = _batch("decodes", seed=1), _batch("prefill-chunks", seed=2)
    _attend(first)
    expected, _, _ = _expected(second, 0, 0.0)
    torch.testing.assert_close(_attend(second).float(), expected, atol=TOLERANCE, rtol=TOLERANCE)


def test_without_a_step_set_it_runs_the_python_op() -> None:
    """With a forced kernel module the forward context sets no C++ state: the op hands the call to
    ``warden::paged_attention``, which attends with the forced kernels."""
    b = _batch("decodes", seed=4)
    expected, k_cache, _ = _expected(b, 0, 0.0)
    with dispatch.forced_kernels(_ReferenceKernels()):  # type: ignore[arg-type]
        out = _attend(b)
    torch.testing.assert_close(out.float(), expected, atol=TOLERANCE, rtol=TOLERANCE)
    assert torch.equal(b.k_cache, k_cache)


class _ReferenceKernels:
    store_kvcache = staticmethod(reference_store.store_kvcache)
    paged_attention = staticmethod(reference.paged_attention)


def test_a_layer_without_a_cache_is_an_error() -> None:
    b = _batch("decodes")
    with forward_context(b.meta, [(b.k_cache, b.v_cache)]), pytest.raises(RuntimeError, match="no cache bound"):
        kernels.cpu.attend_step(b.q, b.key, b.value, 1, SCALE)


def test_the_state_is_cleared_when_the_context_ends() -> None:
    """After the forward context the op holds no step (and no cache): a call runs the Python op, which finds no
    forward context."""
    b = _batch("decodes")
    _attend(b)
    with pytest.raises(RuntimeError, match="outside a forward context"):
        kernels.cpu.attend_step(b.q, b.key, b.value, 0, SCALE)


def _python_calls(b: PagedBatch, window: int) -> list[str]:
    """The Python functions entered by one served call of the op (profiled at the call only)."""
    calls: list[str] = []
    with forward_context(b.meta, [(b.k_cache, b.v_cache)]):
        sys.setprofile(lambda frame, event, arg: calls.append(frame.f_code.co_name) if event == "call" else None)
        try:
            torch.ops.warden_cpu.attend_step(b.q, b.key, b.value, 0, SCALE, window, 0.0)
        finally:
            sys.setprofile(None)
    return calls


@pytest.mark.parametrize("name", ["decodes", "short-queries", "prefill-chunks"])
def test_served_calls_enter_no_python(name: str) -> None:
    """What the kernels serve runs without the Python op; a prefill chunk under a window takes it."""
    assert "_paged_attention_op" not in _python_calls(_batch(name), 0)
    assert ("_paged_attention_op" in _python_calls(_batch(name), 17)) == (name == "prefill-chunks")


def _token_rows_held() -> bool:
    return bool(torch.ops.warden_cpu.attention_step_token_rows())


def test_per_token_rows_are_built_only_for_a_layer_that_reads_them() -> None:
    """A short-query step (draft verification) whose layers take the one pass over each sequence's cache (bfloat16,
    no window) never builds the per-token decode rows that pass does not read; the first layer that reads them (a
    window, which the one pass does not serve) builds them, and the next step builds its own."""
    b = _batch("short-queries", seed=5)
    expected, _, _ = _expected(b, 17, 0.0)
    with forward_context(b.meta, [(b.k_cache, b.v_cache), (b.k_cache, b.v_cache)]):
        assert not _token_rows_held()
        kernels.cpu.attend_step(b.q, b.key, b.value, 0, SCALE)
        assert not _token_rows_held()
        windowed = [kernels.cpu.attend_step(b.q, b.key, b.value, layer, SCALE, 17) for layer in (0, 1)]
        assert _token_rows_held()
    for out in windowed:
        torch.testing.assert_close(out.float(), expected, atol=TOLERANCE, rtol=TOLERANCE)
    # Another step's short queries, other lengths: rows of its own, not the first step's.
    other = make_batch([12], [(3, 90), (7, 41), (2, 2)], kv_heads=3, group=3, head_dim=64, block_size=16,
                       dtype=torch.bfloat16, device=CPU, seed=6)
    expected, _, _ = _expected(other, 17, 0.0)
    with forward_context(other.meta, [(other.k_cache, other.v_cache)]):
        assert not _token_rows_held()
        out = kernels.cpu.attend_step(other.q, other.key, other.value, 0, SCALE, 17)
    torch.testing.assert_close(out.float(), expected, atol=TOLERANCE, rtol=TOLERANCE)
