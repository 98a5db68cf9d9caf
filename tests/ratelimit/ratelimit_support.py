"""Shared constants and helpers of the rate-limit tests (a plain module: tests/ is not a package)."""

from __future__ import annotations

import os
import subprocess
import time
from datetime import UTC, datetime
from pathlib import Path

import redis

REDIS_URL = os.environ.get("WARDEN_REDIS_URL")
NO_REDIS_REASON = "WARDEN_REDIS_URL is not set: Redis-backed limiter tests need a Redis server"
# Mid-month, mid-day: far from any budget rollover unless a test moves there on purpose.
START_MS = int(datetime(2025, 3, 15, 12, 0, tzinfo=UTC).timestamp() * 1000)
LEASE_MS = 10_000


def delete_prefix(url: str, prefix: str) -> None:
    client = redis.Redis.from_url(url)
    try:
        keys = list(client.scan_iter(match=f"{prefix}:*", count=1000))
        if keys:
            client.delete(*keys)
    finally:
        client.close()


class RedisServer:
    """A throwaway redis-server on loopback that a test may kill and restart at will (no persistence)."""

    def __init__(self, binary: str, port: int, workdir: Path) -> None:
        self.binary, self.port, self.workdir = binary, port, workdir
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def command(self) -> list[str]:
        return [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]

    def ping_client(self) -> redis.Redis:
        return redis.Redis(port=self.port, socket_connect_timeout=0.2)

    def start(self) -> None:
        self.process = subprocess.Popen(
            [*self.command(), "--dir", str(self.workdir)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        deadline = time.monotonic() + 10
        client = self.ping_client()
        try:
            while True:
                try:
                    if client.ping():
                        return
                except redis.ConnectionError:
                    if time.monotonic() > deadline or self.process.poll() is not None:
                        raise
                    time.sleep(0.05)
        finally:
            client.close()

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)
