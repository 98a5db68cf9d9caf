"""The faults, one at a time, each under a steady load from a well-behaved tenant: what is injected, when it ends,
and the checks after it (audit rows owed vs present, ``warden audit verify``, seconds to recover)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import resource
import signal
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.chaos import audit
from bench.chaos.load import LoadGenerator, RequestResult
from bench.chaos.processes import PostgresServer, RedisServer
from bench.chaos.proxy import BlackholeProxy
from bench.chaos.report import AuditCheck, recovery_seconds, summarise
from bench.chaos.warden import Tenant, WardenServer

SPOOL_FS_BYTES = 8 * 1024 * 1024
STANDBY_WAIT_S = 300.0  # how long an engine scenario waits for the standby engine to be up before its fault
FILLER = "chaos-filler"


@dataclass(frozen=True)
class Timing:
    before_s: float  # steady load before the fault
    outage_s: float  # Postgres stopped or blackholed, the engine hung, the spool full or read-only
    redis_outage_s: float
    overload_s: float
    poison_s: float
    after_s: float  # steady load kept after recovery
    recovery_cap_s: float  # the longest the suite waits for recovery before it gives up on a scenario
    audit_wait_s: float  # how long owed audit rows may take to appear (the spool drains in the background)

    @classmethod
    def full(cls) -> Timing:
        return cls(10, 30, 15, 30, 15, 20, 180, 30)

    @classmethod
    def quick(cls) -> Timing:
        return cls(5, 5, 5, 10, 6, 8, 120, 15)


@dataclass
class Suite:
    workdir: Path
    postgres: PostgresServer
    redis: RedisServer
    proxy: BlackholeProxy
    warden: WardenServer
    good: Tenant
    bad: Tenant
    timing: Timing
    rate_per_s: float
    max_tokens: int
    timeout_s: float
    spool_mounted: bool
    stream_tokens: int = 32  # each of sigterm_streams' streams
    capacity_per_s: float | None = None
    notes: list[str] = field(default_factory=list)

    def generator(self, label: str, tenant: Tenant | None = None, tenant_label: str = "good") -> LoadGenerator:
        assert self.warden.model is not None
        return LoadGenerator(f"{self.warden.base_url}/v1", (tenant or self.good).api_key, self.warden.model,
                             self.warden.tls_context(), max_tokens=self.max_tokens, timeout_s=self.timeout_s,
                             label=label, tenant=tenant_label)


Action = Callable[[], Any]


async def _quiet(action: Action | None) -> None:
    if action is not None:
        await asyncio.to_thread(action)


async def run_under_load(suite: Suite, name: str, *, inject: Action | None, restore: Action | None, fault_s: float,
                         rate: Callable[[], float] | None = None,
                         during: Callable[[LoadGenerator], Awaitable[list[RequestResult]]] | None = None,
                         ) -> tuple[list[RequestResult], float, float]:
    """Steady load; ``inject`` after ``before_s``; ``restore`` ``fault_s`` later (``during`` runs alongside the
    fault window); then load until ``after_s`` of good service followed recovery, or the recovery cap passed.
    Returns every outcome and the fault's start and end on the generator's clock."""
    timing = suite.timing
    generator = suite.generator(name)
    stop = asyncio.Event()
    window: dict[str, float] = {}
    load = asyncio.create_task(generator.run(rate or (lambda: suite.rate_per_s), stop=stop.is_set,
                                             max_requests=100_000, max_duration_s=3600))
    extra: list[RequestResult] = []
    try:
        await asyncio.sleep(timing.before_s)
        generator.phase = "during"
        window["start"] = generator.now()
        try:
            await _quiet(inject)
            if during is not None:
                extra = await during(generator)
            remaining = fault_s - (generator.now() - window["start"])
            if remaining > 0:
                await asyncio.sleep(remaining)
        finally:
            await _quiet(restore)  # a fault left in place would spoil every scenario after this one
        generator.phase = "after"
        window["end"] = end = generator.now()
        while generator.now() - end < timing.recovery_cap_s:
            recovered = recovery_seconds(generator.results, end)
            if recovered is not None and generator.now() - end - recovered >= timing.after_s:
                break
            await asyncio.sleep(0.5)
    finally:
        stop.set()
        results = await load
        await generator.close()
    return results + extra, window["start"], window["end"]


async def check_audit(suite: Suite, results: list[RequestResult]) -> AuditCheck:
    expected = {r.request_id for r in results if r.reached_client}
    present = await asyncio.to_thread(audit.wait_for_rows, suite.postgres.dsn, expected, suite.timing.audit_wait_s)
    try:
        outcomes = await asyncio.to_thread(audit.outcomes, suite.postgres.dsn, expected)
    except Exception as exc:
        outcomes = {"query_failed": 1}
        suite.notes.append(f"audit outcome query failed: {type(exc).__name__}")
    verify = await asyncio.to_thread(audit.verify_chains, suite.warden)
    return AuditCheck(expected, present, verify.ok, verify.output, outcomes)


async def ensure_serving(suite: Suite, timeout_s: float = 20.0) -> str | None:
    """Brings the gateway back to serving for the next scenario: waits ``timeout_s`` for it to serve, else restarts
    it. Returns what the suite had to do (None when it was serving)."""
    try:
        await asyncio.to_thread(suite.warden.wait_ready, suite.good.api_key, timeout_s)
        return None
    except RuntimeError:
        pass
    await asyncio.to_thread(suite.warden.kill)
    await asyncio.to_thread(suite.warden.start)
    ready_s = await asyncio.to_thread(suite.warden.wait_ready, suite.good.api_key)
    return f"not serving {timeout_s:.0f} s after the scenario: the suite restarted warden (ready in {ready_s:.0f} s)"


def _signal_engine(suite: Suite, signum: int) -> list[int]:
    """Signal the serving engine (the oldest engine process), never the standby beside it."""
    pids = suite.warden.engine_pids()[:1]
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signum)
    return pids


async def _standby_before(suite: Suite) -> dict[str, Any]:
    """A fault in steady state: wait for the standby engine (it loads after the serving one) when the gateway keeps
    one; what was found goes into the scenario's entry."""
    waited = await asyncio.to_thread(suite.warden.wait_standby, STANDBY_WAIT_S)
    return {"standby_ready_before_fault": waited is not None}


async def finish(suite: Suite, name: str, description: str, results: list[RequestResult], fault_end: float, *,
                 recovery_applies: bool = True, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    recovered = recovery_seconds([r for r in results if r.tenant == "good"], fault_end)
    check = await check_audit(suite, results)
    health = await asyncio.to_thread(suite.warden.probe, "/healthz")
    ready = await asyncio.to_thread(suite.warden.probe, "/readyz")
    entry = summarise(name, description, results, check, recovered, recovery_applies=recovery_applies,
                      extra={**(extra or {}), "healthz_after": {"status": health[0], "body": health[1]},
                             "readyz_after": {"status": ready[0], "body": ready[1]}})
    action = await ensure_serving(suite)
    if action:
        entry["notes"] = action
    return entry


# --- the scenarios -------------------------------------------------------------------------------------------------

async def overload_2x(suite: Suite) -> dict[str, Any]:
    assert suite.capacity_per_s is not None
    overload = max(2 * suite.capacity_per_s, suite.rate_per_s)
    state = {"rate": suite.rate_per_s}

    def start() -> None:
        state["rate"] = overload

    def end() -> None:
        state["rate"] = suite.rate_per_s

    results, _, fault_end = await run_under_load(suite, "overload", inject=start, restore=end,
                                                 fault_s=suite.timing.overload_s, rate=lambda: state["rate"])
    return await finish(suite, "overload_2x", f"{overload:.1f} req/s (2x the measured "
                        f"{suite.capacity_per_s:.2f} req/s) for {suite.timing.overload_s:.0f} s", results, fault_end,
                        extra={"overload_rate_per_s": round(overload, 2)})


async def redis_stopped(suite: Suite) -> dict[str, Any]:
    seconds = suite.timing.redis_outage_s
    results, _, fault_end = await run_under_load(suite, "redis", inject=suite.redis.stop, restore=suite.redis.start,
                                                 fault_s=seconds)
    return await finish(suite, "redis_stopped", f"Redis killed for {seconds:.0f} s, then a fresh one on its port",
                        results, fault_end)


async def postgres_stopped(suite: Suite) -> dict[str, Any]:
    seconds = suite.timing.outage_s
    results, _, fault_end = await run_under_load(suite, "pgstop", inject=suite.postgres.stop,
                                                 restore=suite.postgres.start, fault_s=seconds)
    return await finish(suite, "postgres_stopped", f"Postgres stopped (fast shutdown) for {seconds:.0f} s",
                        results, fault_end)


async def postgres_blackholed(suite: Suite) -> dict[str, Any]:
    seconds = suite.timing.outage_s
    results, _, fault_end = await run_under_load(suite, "pghole", inject=suite.proxy.blackhole,
                                                 restore=suite.proxy.restore, fault_s=seconds)
    return await finish(suite, "postgres_blackholed", f"Postgres unreachable (proxy holds every byte) for "
                        f"{seconds:.0f} s", results, fault_end)


async def engine_killed(suite: Suite) -> dict[str, Any]:
    standby = await _standby_before(suite)
    killed: list[int] = []
    results, _, fault_end = await run_under_load(
        suite, "enginekill", inject=lambda: killed.extend(_signal_engine(suite, signal.SIGKILL)), restore=None,
        fault_s=0)
    return await finish(suite, "engine_killed", "SIGKILL of the serving engine process", results, fault_end,
                        extra={"engine_pids_killed": len(killed), **standby})


async def engine_hung(suite: Suite) -> dict[str, Any]:
    await _standby_before(suite)
    seconds = suite.timing.outage_s
    stopped: list[int] = []
    results, _, fault_end = await run_under_load(
        suite, "enginehang", inject=lambda: stopped.extend(_signal_engine(suite, signal.SIGSTOP)),
        restore=lambda: [os.kill(pid, signal.SIGCONT) for pid in stopped if _alive(pid)], fault_s=seconds)
    return await finish(suite, "engine_hung", f"the engine SIGSTOPped for {seconds:.0f} s, then SIGCONT", results,
                        fault_end, extra={"engine_pids_stopped": len(stopped)})


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _fill(directory: Path) -> None:
    """Fills the filesystem under ``directory`` to the last byte."""
    descriptor = os.open(directory / FILLER, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        for size in (1 << 20, 4096, 1):
            with contextlib.suppress(OSError):
                while os.write(descriptor, b"\0" * size):
                    pass
    finally:
        os.close(descriptor)


async def spool_full(suite: Suite) -> dict[str, Any]:
    if not suite.spool_mounted:
        return {"scenario": "spool_full", "skipped": "no size-limited filesystem for the spool (mount not allowed)"}
    spool = suite.warden.spool_dir
    seconds = suite.timing.outage_s
    results, _, fault_end = await run_under_load(suite, "spoolfull", inject=lambda: _fill(spool),
                                                 restore=lambda: (spool / FILLER).unlink(), fault_s=seconds)
    return await finish(suite, "spool_full", f"the spool's filesystem full for {seconds:.0f} s", results, fault_end)


async def spool_unwritable(suite: Suite) -> dict[str, Any]:
    """The gateway's RLIMIT_FSIZE set to 0: every write that would grow a file fails (EFBIG), as on an exhausted
    quota. A read-only remount is refused while the spool file is open for writing, and root ignores file modes."""
    seconds = suite.timing.outage_s
    saved: list[tuple[int, int]] = []

    def block() -> None:
        assert suite.warden.process is not None
        pid = suite.warden.process.pid
        saved.append(resource.prlimit(pid, resource.RLIMIT_FSIZE))
        resource.prlimit(pid, resource.RLIMIT_FSIZE, (0, saved[0][1]))

    def unblock() -> None:
        if saved and suite.warden.process is not None and suite.warden.process.poll() is None:
            resource.prlimit(suite.warden.process.pid, resource.RLIMIT_FSIZE, saved[0])

    results, _, fault_end = await run_under_load(suite, "spoolrlimit", inject=block, restore=unblock,
                                                 fault_s=seconds)
    return await finish(suite, "spool_unwritable", f"no file may grow in the gateway (RLIMIT_FSIZE 0) for "
                        f"{seconds:.0f} s", results, fault_end)


async def gateway_sigkill(suite: Suite) -> dict[str, Any]:
    """The gateway's process group SIGKILLed mid-load, then started again. The detached engine host is outside that
    group: the restarted gateway attaches to it, so recovery is the gateway's own start, not a model load."""
    engines_before = await asyncio.to_thread(suite.warden.detached_engine_pids)
    results, _, fault_end = await run_under_load(suite, "gwkill", inject=suite.warden.kill,
                                                 restore=suite.warden.start, fault_s=1.0)
    engines_after = await asyncio.to_thread(suite.warden.detached_engine_pids)
    return await finish(suite, "gateway_sigkill", "SIGKILL of warden serve's process group mid-load (its detached "
                        "engine host outside it), then restart", results, fault_end,
                        extra={"engine_hosts_before": len(engines_before), "engine_hosts_after": len(engines_after),
                               "engine_reattached": bool(engines_before) and engines_after == engines_before})


async def sigterm_streams(suite: Suite, streams: int = 20) -> dict[str, Any]:
    """20 streams of ``stream_tokens`` each; SIGTERM once all have their first byte; /readyz watched through the
    drain; the gateway restarted after it exits (the next pod of a rollout). Streams that fit the grace period
    should end whole; the rest are cut at its end, and every one is owed an audit row."""
    generator = suite.generator("sigterm")
    generator.phase = "during"
    started: set[str] = set()
    all_started = asyncio.Event()

    def first_byte(request_id: str) -> None:
        started.add(request_id)
        if len(started) >= streams:
            all_started.set()

    request = {"model": suite.warden.model, "max_tokens": suite.stream_tokens, "temperature": 0.0,
               "messages": [{"role": "user", "content": "Write a long story about a lighthouse keeper."}]}
    tasks = [asyncio.create_task(generator.send(dict(request), stream=True, on_first_byte=first_byte))
             for _ in range(streams)]
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(all_started.wait(), 60)
    in_flight = sum(not t.done() for t in tasks)
    term_at = time.monotonic()
    suite.warden.signal_gateway(signal.SIGTERM)
    readiness_seen: list[str] = []
    arrivals: list[asyncio.Task[RequestResult]] = []

    async def watch_readiness() -> None:
        """Each distinct /readyz answer during the drain, in order (0: nothing answered), and a new request every
        second (it should be refused with 503 + Retry-After, or find the port closed)."""
        while suite.warden.process is not None and suite.warden.process.poll() is None:
            arrival, _ = generator.default_request(len(arrivals))
            arrivals.append(asyncio.create_task(generator.send(arrival, stream=False)))
            status, body = await asyncio.to_thread(suite.warden.probe, "/readyz", 1.0)
            seen = f"{status} {(body or {}).get('reason') or ''}".strip()
            if not readiness_seen or readiness_seen[-1] != seen:
                readiness_seen.append(seen)
            await asyncio.sleep(1.0)

    watcher = asyncio.create_task(watch_readiness())
    exit_code = await asyncio.to_thread(suite.warden.wait_exit, 45)
    exit_s = round(time.monotonic() - term_at, 2)
    await watcher
    results = list(await asyncio.gather(*tasks))
    drained = list(await asyncio.gather(*arrivals))
    await generator.close()
    if exit_code is None:
        suite.warden.kill()
    suite.warden.reap_group()
    fault_end = generator.now()
    suite.warden.start()
    ready_s = await asyncio.to_thread(suite.warden.wait_ready, suite.good.api_key)
    completed = sum(r.completed for r in results)
    return await finish(suite, "sigterm_streams", f"SIGTERM with {streams} streams of {suite.stream_tokens} tokens "
                        "in flight (and a request a second during the drain), then restart", results + drained,
                        fault_end, recovery_applies=False,
                        extra={"streams_in_flight_at_sigterm": in_flight, "streams_completed": completed,
                               "streams_cut": len(results) - completed, "exit_code": exit_code,
                               "requests_during_drain": sorted(str(r.status or r.error) for r in drained),
                               "exit_after_sigterm_s": exit_s, "restart_ready_s": round(ready_s, 1),
                               "readyz_during_drain": readiness_seen})


def poisoned_requests(model: str) -> list[tuple[str, dict[str, Any] | bytes, bool]]:
    """(what, chat.completions arguments or a raw JSON body, stream): NUL bytes, lone surrogates and oversized
    fields."""
    user = [{"role": "user", "content": "hello"}]
    return [
        ("nul_in_model", {"model": f"x\u0000{model}", "messages": user, "max_tokens": 4}, False),
        ("nul_in_content", {"model": model, "messages": [{"role": "user", "content": "hi\u0000there"}],
                            "max_tokens": 4}, False),
        ("nul_in_content_stream", {"model": model, "messages": [{"role": "user", "content": "a\u0000b"}],
                                   "max_tokens": 4}, True),
        ("nul_in_user", {"model": model, "messages": user, "max_tokens": 4, "user": "eve\u0000"}, False),
        ("nul_in_stop", {"model": model, "messages": user, "max_tokens": 4, "stop": ["\u0000"]}, False),
        ("nul_in_name", {"model": model, "messages": [{"role": "user", "content": "hi", "name": "a\u0000b"}],
                         "max_tokens": 4}, False),
        # json.dumps escapes it (ASCII output); the openai client's UTF-8 encoding refuses to send it at all.
        ("lone_surrogate", json.dumps({"model": model, "max_tokens": 4,
                                       "messages": [{"role": "user", "content": "x\ud800y"}]}).encode(), False),
        ("oversized_body", {"model": model, "messages": [{"role": "user", "content": "a" * (5 * 1024 * 1024)}],
                            "max_tokens": 4}, False),
        ("oversized_model", {"model": "m" * 100_000, "messages": user, "max_tokens": 4}, False),
        ("oversized_user", {"model": model, "messages": user, "max_tokens": 4, "user": "u" * 1_000_000}, False),
        ("oversized_stop", {"model": model, "messages": user, "max_tokens": 4, "stop": ["s" * 200_000]}, False),
    ]


async def poisoned_tenant(suite: Suite) -> dict[str, Any]:
    """A second tenant sends every poisoned request in turn through the fault window while the good tenant's load
    goes on; the good tenant's records must keep reaching the table."""
    assert suite.warden.model is not None
    poison = poisoned_requests(suite.warden.model)
    answers: dict[str, list[str]] = {}

    async def attack(_good: LoadGenerator) -> list[RequestResult]:
        bad = suite.generator("poison", suite.bad, tenant_label="bad")
        bad.phase = "during"
        results = []
        deadline = time.monotonic() + suite.timing.poison_s
        while time.monotonic() < deadline:
            for what, request, stream in poison:
                result = await (bad.send_raw(request) if isinstance(request, bytes) else
                                bad.send(request, stream=stream))
                answers.setdefault(what, []).append(str(result.status or result.error))
                results.append(result)
            await asyncio.sleep(0.5)
        await bad.close()
        return results

    results, _, fault_end = await run_under_load(suite, "poison", inject=None, restore=None,
                                                 fault_s=suite.timing.poison_s, during=attack)
    good_after = [r for r in results if r.tenant == "good" and r.sent_s >= fault_end]
    return await finish(suite, "poisoned_tenant", "a tenant sending NUL / lone-surrogate / oversized fields",
                        results, fault_end,
                        extra={"poisoned_answers": {k: sorted(set(v)) for k, v in answers.items()},
                               "good_tenant_ok_after": sum(r.completed for r in good_after)})


SCENARIOS: dict[str, Callable[[Suite], Awaitable[dict[str, Any]]]] = {
    "overload_2x": overload_2x,
    "redis_stopped": redis_stopped,
    "postgres_stopped": postgres_stopped,
    "postgres_blackholed": postgres_blackholed,
    "engine_killed": engine_killed,
    "engine_hung": engine_hung,
    "spool_full": spool_full,
    "spool_unwritable": spool_unwritable,
    "gateway_sigkill": gateway_sigkill,
    "sigterm_streams": sigterm_streams,
    # Last: a poisoned record that stalls the audit writer would stall every scenario's audit check after it.
    "poisoned_tenant": poisoned_tenant,
}
