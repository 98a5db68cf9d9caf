"""The model-server side of the Gateway API Inference Extension on termination: a real SIGTERM makes the pod not
ready at once, and the server is told to stop accepting only ``shutdown_unready_s`` later, so the endpoint picker
(and the Service's endpoints) see it unready while it still answers. The real ``warden serve`` timeline is checked
in tests/gateway/test_multi_pod.py and tests/gateway/test_graceful_shutdown.py; this is the ordering itself, fast."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import Iterator
from typing import Any

import pytest

from gateway.lifecycle import Lifecycle

UNREADY_S = 0.4


@pytest.fixture
def server_handlers() -> Iterator[list[tuple[float, int]]]:
    """Stands where uvicorn's own SIGTERM/SIGINT handlers stand: records when the server was told to stop."""
    told: list[tuple[float, int]] = []
    previous = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGINT)}

    def server_handler(signum: int, _frame: Any) -> None:
        told.append((time.monotonic(), signum))

    for sig in previous:
        signal.signal(sig, server_handler)
    try:
        yield told
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def test_sigterm_turns_unready_before_the_server_stops_accepting(server_handlers: list[tuple[float, int]]) -> None:
    async def scenario() -> tuple[float, list[tuple[float, bool, str]]]:
        lifecycle = Lifecycle(grace_s=5.0, unready_s=UNREADY_S)
        lifecycle.install_signal_handlers()
        seen: list[tuple[float, bool, str]] = []
        signalled = time.monotonic()
        os.kill(os.getpid(), signal.SIGTERM)
        while not server_handlers and time.monotonic() - signalled < 5.0:
            ready, reason = lifecycle.readiness(None)
            seen.append((time.monotonic(), ready, reason))
            await asyncio.sleep(0.01)
        lifecycle.close()
        return signalled, seen

    signalled, seen = asyncio.run(scenario())
    assert server_handlers, "the server was never told to stop"
    (told_at, signum), = server_handlers
    assert signum == signal.SIGTERM
    # Not ready from the first look after the signal (the handler runs on the loop's next turn) ...
    draining = [at for at, ready, reason in seen if (ready, reason) == (False, "draining")]
    assert draining and draining[0] - signalled < 0.1
    assert all(reason == "draining" for at, _, reason in seen if at >= draining[0])
    # ... and the server stops accepting only shutdown_unready_s later.
    assert told_at - signalled >= UNREADY_S - 0.01
    assert told_at > draining[0]


def test_a_second_signal_goes_straight_to_the_server(server_handlers: list[tuple[float, int]]) -> None:
    async def scenario() -> None:
        lifecycle = Lifecycle(grace_s=5.0, unready_s=30.0)
        lifecycle.install_signal_handlers()
        os.kill(os.getpid(), signal.SIGTERM)
        await asyncio.sleep(0.05)
        assert lifecycle.readiness(None) == (False, "draining") and not server_handlers
        os.kill(os.getpid(), signal.SIGTERM)  # an impatient orchestrator, or a second Ctrl-C
        await asyncio.sleep(0.05)
        lifecycle.close()

    asyncio.run(scenario())
    assert [signum for _, signum in server_handlers] == [signal.SIGTERM]
