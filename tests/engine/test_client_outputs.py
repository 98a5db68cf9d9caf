"""The engine client's per-request output channel (``engine.core.client._Outputs``): what ``generate`` reads its
deltas from, in arrival order, waiting only when nothing has arrived."""

from __future__ import annotations

import asyncio
import contextlib

from engine.core.client import _Outputs


def test_items_come_out_in_order_without_waiting_when_present() -> None:
    async def run() -> list[object]:
        outputs = _Outputs(asyncio.get_running_loop())
        first, second = ValueError("a"), ValueError("b")
        outputs.put_nowait(first)
        outputs.put_nowait(second)
        return [await outputs.get(), await outputs.get()]

    got = asyncio.run(run())
    assert [str(e) for e in got] == ["a", "b"]


def test_a_waiting_reader_is_woken_by_the_next_item() -> None:
    async def run() -> object:
        loop = asyncio.get_running_loop()
        outputs = _Outputs(loop)
        reader = asyncio.ensure_future(outputs.get())
        await asyncio.sleep(0)
        assert not reader.done()
        loop.call_soon(outputs.put_nowait, KeyError("x"))
        return await asyncio.wait_for(reader, 1)

    assert isinstance(asyncio.run(run()), KeyError)


def test_a_cancelled_read_loses_nothing_put_later() -> None:
    async def run() -> object:
        outputs = _Outputs(asyncio.get_running_loop())
        reader = asyncio.ensure_future(outputs.get())
        await asyncio.sleep(0)
        reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await reader
        outputs.put_nowait(OSError("kept"))
        return await asyncio.wait_for(outputs.get(), 1)

    assert str(asyncio.run(run())) == "kept"


def test_items_put_from_another_thread_reach_the_reader() -> None:
    async def run() -> list[str]:
        loop = asyncio.get_running_loop()
        outputs = _Outputs(loop)

        def producer() -> None:
            for i in range(50):
                loop.call_soon_threadsafe(outputs.put_nowait, ValueError(str(i)))

        await loop.run_in_executor(None, producer)
        return [str(await asyncio.wait_for(outputs.get(), 1)) for _ in range(50)]

    assert asyncio.run(run()) == [str(i) for i in range(50)]
