"""The SSRF check applies to the address Warden connects to: each connection resolves the upstream's name once and
connects to an address so checked, so a name that answers a public address to one lookup and a loopback one to the
next (DNS rebinding) never reaches the loopback one; TLS and ``Host`` still use the registered name."""

from __future__ import annotations

import datetime
import ipaddress
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpcore2
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from mcp_support import Served, serve, upstream_app

from gateway.mcp.registry import UpstreamServer
from gateway.mcp.targets import IPAddress, PinnedNetworkBackend, TargetRefused
from gateway.mcp.upstream import UpstreamClients, UpstreamError

PUBLIC = ipaddress.ip_address("8.8.8.8")
LOOPBACK = ipaddress.ip_address("127.0.0.1")


class ScriptedResolver:
    """A resolver that gives its answers in turn (the last one from then on), counting the lookups: the name
    ``rebind.test`` of a hostile DNS server."""

    def __init__(self, *answers: list[IPAddress]) -> None:
        self._answers = list(answers)
        self.lookups: list[str] = []

    async def __call__(self, host: str, port: int) -> list[IPAddress]:
        self.lookups.append(host)
        return self._answers[min(len(self.lookups), len(self._answers)) - 1]


class Recording:
    """An upstream that records the Host header of each request it serves."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.hosts: list[str] = []

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            self.hosts.append(dict(scope["headers"]).get(b"host", b"").decode())
        await self.inner(scope, receive, send)


def _server(url: str, *, allow_private_network: bool) -> UpstreamServer:
    return UpstreamServer(tenant_id="tenant-rebind", name="rebind", version=1, url=url, timeout_s=3.0,
                          allow_private_network=allow_private_network, headers={})


@pytest.fixture
def recording_upstream() -> Iterator[tuple[Served, Recording]]:
    app = Recording(upstream_app("rebind"))
    served = serve(app)
    yield served, app
    served.stop()


async def test_the_backend_connects_to_the_address_it_checked_not_a_second_lookup() -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        listener.setblocking(False)
        port = listener.getsockname()[1]
        resolver = ScriptedResolver([PUBLIC], [LOOPBACK])
        backend = PinnedNetworkBackend(allow_private_network=False, resolver=resolver)
        with pytest.raises((httpcore2.ConnectError, httpcore2.ConnectTimeout)):
            await backend.connect_tcp("rebind.test", port, timeout=2.0)  # 8.8.8.8 is out of this sandbox's reach
        assert resolver.lookups == ["rebind.test"]
        with pytest.raises(BlockingIOError):
            listener.accept()  # nothing reached the loopback listener
        # The next connection resolves again: now loopback, which is refused before any connection.
        with pytest.raises(TargetRefused):
            await backend.connect_tcp("rebind.test", port, timeout=2.0)
        assert resolver.lookups == ["rebind.test", "rebind.test"]


async def test_a_rebinding_name_never_reaches_a_loopback_upstream(
        recording_upstream: tuple[Served, Recording]) -> None:
    served, app = recording_upstream
    resolver = ScriptedResolver([PUBLIC], [LOOPBACK])
    clients = UpstreamClients(max_message_bytes=1 << 20, resolver=resolver)
    try:
        server = _server(f"http://rebind.test:{served.port}/mcp", allow_private_network=False)
        for _ in range(2):
            with pytest.raises(UpstreamError):
                await clients.list_tools(server)
    finally:
        await clients.aclose()
    assert app.hosts == []
    assert resolver.lookups and set(resolver.lookups) == {"rebind.test"}


async def test_the_connection_goes_to_the_resolved_address_and_host_keeps_the_name(
        recording_upstream: tuple[Served, Recording]) -> None:
    served, app = recording_upstream
    resolver = ScriptedResolver([LOOPBACK])  # a name only this resolver knows
    clients = UpstreamClients(max_message_bytes=1 << 20, resolver=resolver)
    try:
        tools = await clients.list_tools(_server(f"http://tools.internal:{served.port}/mcp",
                                                 allow_private_network=True))
    finally:
        await clients.aclose()
    assert "add" in {tool.name for tool in tools}
    assert app.hosts and set(app.hosts) == {f"tools.internal:{served.port}"}


def _certificate(tmp_path: Path, name: str) -> tuple[Path, Path]:
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(subject).issuer_name(subject).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(hours=1))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName(name)]), critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    cert_path, key_path = tmp_path / "cert.pem", tmp_path / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_path, key_path


async def test_tls_verifies_the_registered_name_over_the_pinned_address(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    cert, key = _certificate(tmp_path, "tools.internal")
    app = Recording(upstream_app("tls"))
    served = serve(app, ssl_certfile=str(cert), ssl_keyfile=str(key))
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))  # the system trust store, as an enterprise CA would be added
    try:
        for name, verifies in (("tools.internal", True), ("other.internal", False)):
            clients = UpstreamClients(max_message_bytes=1 << 20, resolver=ScriptedResolver([LOOPBACK]))
            server = _server(f"https://{name}:{served.port}/mcp", allow_private_network=True)
            try:
                if verifies:  # SNI and verification against the name, though the socket went to 127.0.0.1
                    assert "add" in {tool.name for tool in await clients.list_tools(server)}
                else:  # a certificate for another name is refused
                    with pytest.raises(UpstreamError):
                        await clients.list_tools(server)
            finally:
                await clients.aclose()
    finally:
        served.stop()
    assert set(app.hosts) == {f"tools.internal:{served.port}"}
