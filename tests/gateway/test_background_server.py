"""free_port: ports handed to child servers that bind late must not be handed out twice."""

from __future__ import annotations

import socket

import pytest

from gateway import background_server


class _KernelRepeatingPorts:
    """A socket whose bind(0) gets the ports the kernel would pick, in order; here it picks one port twice."""

    picks = iter([41001, 41001, 41002])

    def __init__(self, *args: object) -> None:
        self.port = 0

    def __enter__(self) -> _KernelRepeatingPorts:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def bind(self, address: tuple[str, int]) -> None:
        self.port = next(self.picks)

    def getsockname(self) -> tuple[str, int]:
        return ("127.0.0.1", self.port)


def test_free_port_skips_a_port_it_already_handed_out(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(background_server, "_issued_ports", set())
    monkeypatch.setattr(background_server.socket, "socket", _KernelRepeatingPorts)
    assert [background_server.free_port(), background_server.free_port()] == [41001, 41002]


def test_free_ports_are_distinct_and_bindable() -> None:
    ports = [background_server.free_port() for _ in range(64)]
    assert len(set(ports)) == len(ports)
    with socket.socket() as server:
        server.bind(("127.0.0.1", ports[-1]))
