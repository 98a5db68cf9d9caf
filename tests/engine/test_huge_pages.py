"""``engine.worker.huge_pages``: the CPU KV cache's memory on 2 MB transparent huge pages, zeroed, of any dtype."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from engine.worker.huge_pages import HUGE_PAGE, zeros_on_huge_pages

THP = Path("/sys/kernel/mm/transparent_hugepage/enabled")
needs_thp = pytest.mark.skipif(not THP.exists() or "[never]" in THP.read_text(),
                               reason="transparent huge pages are off or absent on this machine")


def huge_kb_around(address: int) -> int:
    """AnonHugePages (kB) of the mapping that holds ``address``, from /proc/self/smaps."""
    inside = False
    for line in Path("/proc/self/smaps").read_text().splitlines():
        head = line.split()[0]
        if "-" in head and not head.endswith(":"):
            start, end = (int(x, 16) for x in head.split("-"))
            inside = start <= address < end
        elif inside and head == "AnonHugePages:":
            return int(line.split()[1])
    raise AssertionError(f"no mapping holds {address:#x}")


@needs_thp
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.int8, torch.float32])
def test_a_cache_sized_tensor_lies_on_huge_pages_and_is_zero(dtype: torch.dtype) -> None:
    shape = (2, 2, 512, 16, 3, 64)  # 12 MB of bf16 rows (6 MB of int8, 24 MB of float32)
    cache = zeros_on_huge_pages(shape, dtype)
    assert cache.shape == shape and cache.dtype == dtype and cache.is_contiguous()
    assert not cache.any()
    whole_pages = cache.numel() * cache.element_size() // HUGE_PAGE
    assert huge_kb_around(cache.data_ptr()) >= whole_pages * HUGE_PAGE // 1024


def test_a_tensor_smaller_than_a_huge_page_is_plain_zeros() -> None:
    small = zeros_on_huge_pages((3, 5), torch.bfloat16)
    assert small.shape == (3, 5) and small.dtype == torch.bfloat16 and not small.any()


@needs_thp
def test_the_cache_outlives_the_buffer_it_was_cut_from() -> None:
    """The tensor is a slice of a larger buffer: writing and reading it after the call's locals are gone is safe."""
    cache = zeros_on_huge_pages((4, HUGE_PAGE // 4), torch.uint8)
    cache[3, -1] = 7
    assert int(cache.sum()) == 7
