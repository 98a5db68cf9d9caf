"""A loopback TCP proxy the suite controls, to make a server unreachable without stopping it.

Forwarding, it relays bytes both ways. Blackholed, it behaves like a network path that silently drops packets: new
connections are accepted but never reach the upstream, and bytes on open connections are held, unanswered, so a
client without its own timeouts waits forever. Restored, held bytes flow again (as TCP retransmission would deliver
them) and new connections reach the upstream.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading

from gateway.background_server import free_port

CHUNK_BYTES = 64 * 1024


class BlackholeProxy:
    """Runs its own event loop in a daemon thread, so the caller's loop (or none) never stalls it."""

    def __init__(self, upstream_port: int, port: int | None = None) -> None:
        self.upstream_port = upstream_port
        self.port = port or free_port()
        self._loop = asyncio.new_event_loop()
        self._forwarding = asyncio.Event()
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self._thread = threading.Thread(target=self._loop.run_forever, name="chaos-proxy", daemon=True)
        self.connections = 0

    def start(self) -> None:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._listen(), self._loop).result(10)

    async def _listen(self) -> None:
        self._forwarding.set()
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", self.port)

    @property
    def forwarding(self) -> bool:
        return self._forwarding.is_set()

    def blackhole(self) -> None:
        self._loop.call_soon_threadsafe(self._forwarding.clear)

    def restore(self) -> None:
        self._loop.call_soon_threadsafe(self._forwarding.set)

    def stop(self) -> None:
        async def close() -> None:
            if self._server is not None:
                self._server.close()
            for writer in list(self._writers):
                writer.close()
            relays = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for relay in relays:
                relay.cancel()
            await asyncio.gather(*relays, return_exceptions=True)

        if self._thread.is_alive():
            asyncio.run_coroutine_threadsafe(close(), self._loop).result(10)
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(10)

    async def _accept(self, client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        self._writers.add(client_writer)
        upstream_writer = None
        try:
            await self._forwarding.wait()
            upstream_reader, upstream_writer = await asyncio.open_connection("127.0.0.1", self.upstream_port)
            self._writers.add(upstream_writer)
            await asyncio.gather(self._pump(client_reader, upstream_writer),
                                 self._pump(upstream_reader, client_writer))
        except OSError:
            pass  # the upstream is down: the client sees its connection closed, as it would connecting directly
        except asyncio.CancelledError:
            pass  # the proxy stops; a connection handler's end is not an error for asyncio's stream callback
        finally:
            for writer in (client_writer, upstream_writer):
                if writer is not None:
                    self._writers.discard(writer)
                    writer.close()

    async def _pump(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(CHUNK_BYTES):
                await self._forwarding.wait()  # blackholed: the bytes are held, nothing answers
                writer.write(data)
                await writer.drain()
        except OSError:
            pass
        finally:
            with contextlib.suppress(OSError):
                writer.write_eof()
