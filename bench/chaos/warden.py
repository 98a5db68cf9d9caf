"""``warden serve`` as the suite runs it: one worker over HTTPS (the development certificate) on the suite's own
Postgres (reached through the blackhole proxy) and Redis, with the engine in its own process; tenants and keys made
with the ``warden`` CLI against the database directly. The scenarios kill, stop and restart it."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import ssl
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import httpx

from gateway.background_server import free_port
from gateway.core.tls import CERT_FILE, KEY_FILE, ensure_certificate

# Generous limits: the suite measures faults, not the tenant's rate limits.
CHAOS_POLICY = {"rate_limits": {"requests_per_minute": 1_000_000, "tokens_per_minute": 1_000_000_000,
                                "max_concurrent_requests": 10_000}, "audit_content": "full"}
STARTUP_TIMEOUT_S = 600.0


def cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "gateway.cli", *args], env=env, capture_output=True, text=True,
                          timeout=120)


def _descendants(pid: int) -> list[int]:
    """Every live descendant of ``pid`` (from /proc), children before grandchildren."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(entry.name))
    found, frontier = [], [pid]
    while frontier:
        frontier = [c for p in frontier for c in children.get(p, [])]
        found.extend(frontier)
    return found


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def _parent(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return 0


def _start_ticks(pid: int) -> int:
    """When the process started (clock ticks after boot, /proc/PID/stat field 22); 0 when it is gone."""
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19])
    except (OSError, IndexError, ValueError):
        return 0


def _copy(source: IO[bytes], log: IO[bytes]) -> None:
    with log:
        for line in source:
            log.write(line)
            log.flush()


@dataclass
class Tenant:
    name: str
    api_key: str


@dataclass
class WardenServer:
    workdir: Path
    database_url: str  # what the gateway connects to (the proxy)
    direct_database_url: str  # what the CLI and the suite's checks use
    redis_url: str
    spool_dir: Path
    port: int = field(default_factory=free_port)
    process: subprocess.Popen | None = None
    starts: int = 0
    model: str | None = None

    @property
    def data_dir(self) -> Path:
        return self.workdir / "warden"

    @property
    def base_url(self) -> str:
        return f"https://127.0.0.1:{self.port}"

    @property
    def cert(self) -> Path:
        return self.data_dir / CERT_FILE

    def env(self, *, direct: bool = False) -> dict[str, str]:
        cert, key = self.data_dir / CERT_FILE, self.data_dir / KEY_FILE
        base = {k: v for k, v in os.environ.items()
                if not k.startswith("WARDEN_") or k.startswith("WARDEN_ENGINE_") or k == "WARDEN_MODEL"}
        return {"WARDEN_ENGINE_NUM_THREADS": "1", **base, "PYTHONUNBUFFERED": "1",
                "WARDEN_DATA_DIR": str(self.data_dir),
                "WARDEN_DATABASE_URL": self.direct_database_url if direct else self.database_url,
                "WARDEN_REDIS_URL": self.redis_url, "WARDEN_GUARDRAILS": "false",
                "WARDEN_AUDIT_SPOOL_DIR": str(self.spool_dir), "WARDEN_AUDIT_MAINTENANCE_INTERVAL_S": "0",
                "WARDEN_AUDIT_CHECKPOINT_INTERVAL_S": "0", "WARDEN_TLS_CERT": str(cert), "WARDEN_TLS_KEY": str(key),
                "WARDEN_LOG_LEVEL": "WARNING"}

    def prepare(self) -> None:
        """Schema, certificate (generated once, so restarts keep it) and the suite's log file."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        ensure_certificate(self.data_dir, None, None)
        self._check(cli(self.env(direct=True), "db", "upgrade"))

    def create_tenant(self, name: str) -> Tenant:
        env = self.env(direct=True)
        self._check(cli(env, "tenant", "create", name))
        policy = self.workdir / f"policy-{name}.json"
        policy.write_text(json.dumps(CHAOS_POLICY))
        self._check(cli(env, "policy", "set", name, str(policy)))
        issued = self._check(cli(env, "key", "issue", name))
        return Tenant(name, issued.stdout.strip().splitlines()[-1])

    @staticmethod
    def _check(result: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
        if result.returncode != 0:
            raise RuntimeError(f"warden {' '.join(result.args[3:])} failed: {result.stderr.strip()[-2000:]}")
        return result

    def start(self) -> None:
        log = (self.workdir / "warden.log").open("ab")
        log.write(f"\n===== start {self.starts + 1} =====\n".encode())
        log.flush()
        # Its output goes through a pipe, not straight to the file: a scenario limits the size of files the gateway
        # may write (RLIMIT_FSIZE), and that must hit the spool, not the gateway's logging.
        self.process = subprocess.Popen(
            [sys.executable, "-m", "gateway.cli", "serve", "--host", "127.0.0.1", "--port", str(self.port),
             "--log-level", "warning"], env=self.env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            start_new_session=True)
        threading.Thread(target=_copy, args=(self.process.stdout, log), name="chaos-warden-log", daemon=True).start()
        self.starts += 1

    def tls_context(self) -> ssl.SSLContext:
        return ssl.create_default_context(cafile=str(self.cert))

    def probe(self, path: str = "/healthz", timeout_s: float = 2.0) -> tuple[int, dict | None]:
        """An unauthenticated GET of ``path`` (``/healthz``, ``/readyz``): its status and JSON body; 0 when nothing
        answered."""
        try:
            response = httpx.get(f"{self.base_url}{path}", verify=self.tls_context(), timeout=timeout_s)
        except httpx.HTTPError:
            return 0, None
        try:
            return response.status_code, response.json()
        except ValueError:
            return response.status_code, None

    def wait_ready(self, api_key: str, timeout_s: float = STARTUP_TIMEOUT_S) -> float:
        """Seconds until a one-token completion succeeds (learning the served model's name from ``/v1/models``
        first); RuntimeError if the process exits or time runs out."""
        started = time.monotonic()
        last = ""
        headers = {"authorization": f"Bearer {api_key}"}
        with httpx.Client(verify=self.tls_context(), timeout=30) as client:
            while time.monotonic() - started < timeout_s:
                if self.process is not None and self.process.poll() is not None:
                    raise RuntimeError(f"warden serve exited with {self.process.returncode}; see {self.workdir}")
                try:
                    if self.model is None:
                        listed = client.get(f"{self.base_url}/v1/models", headers=headers)
                        if listed.status_code == 200 and listed.json().get("data"):
                            self.model = listed.json()["data"][0]["id"]
                    if self.model is not None:
                        response = client.post(f"{self.base_url}/v1/chat/completions", headers=headers,
                                               json={"model": self.model, "max_tokens": 1,
                                                     "messages": [{"role": "user", "content": "ready?"}]})
                        if response.status_code == 200:
                            return time.monotonic() - started
                        last = f"{response.status_code} {response.text[:200]}"
                except (httpx.HTTPError, ValueError) as exc:
                    last = repr(exc)
                time.sleep(0.5)
        raise RuntimeError(f"warden not ready after {timeout_s:.0f} s: {last}")

    def engine_pids(self) -> list[int]:
        """The engine processes of this gateway, oldest first: the serving engine, then the standby (always started
        after the engine it stands by for). The serving engine is a detached host (its own session, and a child of
        the init process once the gateway that started it was killed), the standby a multiprocessing spawn child
        of the gateway (not its resource tracker)."""
        children = [pid for pid in _descendants(self.process.pid)
                    if "spawn_main" in _cmdline(pid) and "resource_tracker" not in _cmdline(pid)
                    and _parent(pid) == self.process.pid] if self.process is not None else []
        return sorted({*children, *self.detached_engine_pids()}, key=_start_ticks)

    def detached_engine_pids(self) -> list[int]:
        """The detached engine hosts (``python -m engine.host``) started for this data directory, by any gateway."""
        marker = f"WARDEN_DATA_DIR={self.data_dir}".encode()
        found = []
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit() and "-m engine.host" in _cmdline(int(entry.name)):
                with contextlib.suppress(OSError):
                    if marker in (entry / "environ").read_bytes().split(b"\0"):
                        found.append(int(entry.name))
        return sorted(found, key=_start_ticks)

    def standby_ready(self) -> bool:
        """Whether ``/healthz`` reports a live standby engine."""
        _, body = self.probe("/healthz")
        return bool(((body or {}).get("engine_replicas") or {}).get("standby"))

    def wait_standby(self, timeout_s: float) -> float | None:
        """Seconds until a standby engine is up (it loads after the serving engine); None if none came."""
        started = time.monotonic()
        while time.monotonic() - started < timeout_s:
            if self.standby_ready():
                return time.monotonic() - started
            time.sleep(1.0)
        return None

    def signal_gateway(self, signum: int) -> None:
        if self.process is not None and self.process.poll() is None:
            os.kill(self.process.pid, signum)

    def kill(self) -> None:
        """SIGKILL of the gateway and everything in its process group: its own processes, not the detached engine
        host, which runs in its own session so that it outlives a crash of the gateway."""
        if self.process is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(30)

    def wait_exit(self, timeout_s: float) -> int | None:
        """The exit status, or None if it still runs after ``timeout_s``."""
        if self.process is None:
            return None
        try:
            return self.process.wait(timeout_s)
        except subprocess.TimeoutExpired:
            return None

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        try:
            os.killpg(self.process.pid, signal.SIGTERM)
        except ProcessLookupError:
            return
        if self.wait_exit(40) is None:
            self.kill()
        self.reap_group()

    def reap_group(self) -> None:
        """SIGKILL whatever the gateway left behind in its process group (an engine it no longer supervises) and any
        detached engine host of this data directory (one an escalated stop left to its orphan timer)."""
        if self.process is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.process.pid, signal.SIGKILL)
        for pid in self.detached_engine_pids():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
