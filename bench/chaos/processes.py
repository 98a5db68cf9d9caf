"""The chaos suite's own Postgres and Redis: throwaway servers on free loopback ports in a temporary directory, which
the scenarios stop and start at will. The shared servers on 5432 / 6379 are never touched."""

from __future__ import annotations

import os
import pwd
import shutil
import signal
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from gateway.background_server import free_port

PG_BIN = Path(os.environ.get("WARDEN_CHAOS_PG_BIN", "/usr/lib/postgresql/15/bin"))
PG_USER = "warden"
PG_DATABASE = "warden"


def wait_for_port(port: int, timeout_s: float) -> None:
    """Until something accepts TCP connections on loopback ``port``; TimeoutError after ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise TimeoutError(f"nothing listens on 127.0.0.1:{port} after {timeout_s:.0f} s") from None
            time.sleep(0.1)


def _run(command: list[str]) -> None:
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed (exit {result.returncode}): "
                           f"{(result.stderr or result.stdout).strip()[-1000:]}")


def _as_postgres_user(command: list[str]) -> list[str]:
    """initdb and postgres refuse to run as root: as root, run them as the ``postgres`` system user."""
    return ["runuser", "-u", "postgres", "--", *command] if os.geteuid() == 0 else command


@dataclass
class PostgresServer:
    """A Postgres cluster of its own (``initdb`` into ``root``, trust authentication on loopback). Run as root, the
    cluster belongs to the ``postgres`` user, who must be able to reach ``root`` (every directory above it
    searchable)."""

    root: Path
    port: int = field(default_factory=free_port)

    @property
    def data_dir(self) -> Path:
        return self.root / "data"

    @property
    def url(self) -> str:
        return self.url_on(self.port)

    def url_on(self, port: int) -> str:
        """The SQLAlchemy URL of this server's database reached through ``port`` (its own, or a proxy's)."""
        return f"postgresql+psycopg://{PG_USER}@127.0.0.1:{port}/{PG_DATABASE}"

    @property
    def dsn(self) -> str:
        return f"host=127.0.0.1 port={self.port} user={PG_USER} dbname={PG_DATABASE} connect_timeout=5"

    def init(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        if os.geteuid() == 0:
            account = pwd.getpwnam("postgres")
            os.chown(self.root, account.pw_uid, account.pw_gid)
        _run(_as_postgres_user([str(PG_BIN / "initdb"), "-D", str(self.data_dir), "-U", PG_USER, "-A", "trust",
                                "--no-sync", "-E", "UTF8"]))
        self.start()
        _run([str(PG_BIN / "createdb"), "-h", "127.0.0.1", "-p", str(self.port), "-U", PG_USER, PG_DATABASE])

    def start(self, timeout_s: float = 30.0) -> None:
        # fsync off: the suite tests the gateway's durability, not this throwaway cluster's.
        options = f"-p {self.port} -k {self.root} -h 127.0.0.1 -c fsync=off -c max_connections=200"
        _run(_as_postgres_user([str(PG_BIN / "pg_ctl"), "-D", str(self.data_dir), "-l",
                                str(self.root / "postgres.log"), "-o", options, "-w", "-t", str(int(timeout_s)),
                                "start"]))

    def stop(self) -> None:
        """A fast shutdown: open sessions are cut, as when an operator or a failover stops the primary."""
        subprocess.run(_as_postgres_user([str(PG_BIN / "pg_ctl"), "-D", str(self.data_dir), "-m", "fast", "-w",
                                          "stop"]), check=False, capture_output=True)

    def running(self) -> bool:
        result = subprocess.run(_as_postgres_user([str(PG_BIN / "pg_ctl"), "-D", str(self.data_dir), "status"]),
                                capture_output=True)
        return result.returncode == 0

    def destroy(self) -> None:
        if self.data_dir.exists():
            self.stop()
        shutil.rmtree(self.root, ignore_errors=True)


@dataclass
class RedisServer:
    """A memory-only redis-server of its own; ``stop`` kills it (its keys are lost, as in a real restart without
    persistence) and ``start`` brings a fresh one up on the same port."""

    root: Path
    port: int = field(default_factory=free_port)
    process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, timeout_s: float = 15.0) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        log = (self.root / "redis.log").open("ab")
        self.process = subprocess.Popen(
            [shutil.which("redis-server") or "redis-server", "--port", str(self.port), "--bind", "127.0.0.1",
             "--save", "", "--appendonly", "no", "--dir", str(self.root)],
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        wait_for_port(self.port, timeout_s)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(10)
        self.process = None
