"""Gateway overhead: the latency Warden's gateway adds to a request, side by side with LiteLLM's proxy.

Every target serves the same engine (the same ``WARDEN_*`` engine settings, prefix caching off so no target's
request finds another's blocks) over HTTPS with the same certificate, from one uvicorn worker, and is called with
the official ``openai`` client on kept-alive connections:

  direct            the engine behind a bare OpenAI endpoint (``bench.bare_engine_server``): the baseline
  warden_core       Warden with guardrails off: key check, policy, rate limits (tokens reserved and settled),
                    a hash-chained audit record fsync'd to the spool before the response, written to the database
  warden_guarded    Warden's default policy on top: PII masked in and out, prompt-injection screening
  litellm           LiteLLM's proxy (master key, no database) in front of ``direct``'s HTTP port
  litellm_presidio  the same with LiteLLM's Presidio guardrail (``pre_call``; Presidio over HTTP)

Overhead = a target's latency - direct's latency for the same prompt, paired request by request (the order of the
targets rotates every prompt); medians and p90 over the prompts. Whole responses are short (``--max-tokens``), since
the engine's time is not what is measured; streams are longer than the output guardrails' hold-back window, so their
time to first content shows what holding text back costs. Every output is exactly max_tokens long (greedy,
``ignore_eos``). A load phase then runs each target in turn at ``--concurrency`` open connections and reports
requests/s and latency percentiles. Prompts are support tickets, half of them carrying an e-mail address and a phone
number.

    python -m bench.gateway_overhead                          # SQLite + in-process limiter, or:
    WARDEN_DATABASE_URL=postgresql+psycopg://... WARDEN_REDIS_URL=redis://... python -m bench.gateway_overhead
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import random
import secrets
import shutil
import signal
import ssl
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Coroutine, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import openai

from bench import litellm_proxy
from bench.provenance import with_provenance
from bench.serve_stats import percentile
from gateway.background_server import free_port
from gateway.core.tls import ensure_certificate

RESULTS = Path(__file__).resolve().parent / "results" / "gateway_overhead.json"
STARTUP_TIMEOUT_S = 600.0
FEATURES = {
    "direct": "engine behind a bare OpenAI endpoint",
    "warden_core": "key check, policy, rate limits, hash-chained audit (fsync'd)",
    "warden_guarded": "warden_core + PII masking in and out + injection screening",
    "litellm": "master key, no database",
    "litellm_presidio": "litellm + Presidio guardrail (pre_call, HTTP)",
}
BENCH_POLICY = {"rate_limits": {"requests_per_minute": 1_000_000, "tokens_per_minute": 1_000_000_000,
                                "max_concurrent_requests": 10_000}}

_NAMES = ["Dana Kowalski", "Luis Ortega", "Mei Chen", "Amara Okafor", "Jonas Berg", "Priya Natarajan"]
_ISSUES = ["cannot log in after the password reset", "was charged twice for the March invoice",
           "sees a timeout when exporting the quarterly report", "wants the shipping address on order changed",
           "reports that the mobile app crashes on start", "asks why the API returns 429 at low volume"]


def ticket_prompts(count: int, seed: int = 0) -> list[list[dict[str, str]]]:
    """Chat requests of ~70 tokens; every other one names a customer with an e-mail address and a phone number."""
    rng = random.Random(seed)
    prompts = []
    for i in range(count):
        issue = rng.choice(_ISSUES)
        if i % 2 == 0:
            name = rng.choice(_NAMES)
            user = name.split()[0].lower()
            ticket = (f"Ticket {1000 + i}: {name} ({user}@example.org, +1 415 555 {rng.randrange(1000, 9999)}) "
                      f"{issue}. Priority {rng.choice(['low', 'normal', 'high'])}.")
        else:
            ticket = f"Ticket {1000 + i}: a customer {issue}. Priority {rng.choice(['low', 'normal', 'high'])}."
        prompts.append([{"role": "system", "content": "You are a support assistant. Reply with a one-line summary."},
                        {"role": "user", "content": ticket}])
    return prompts


@dataclass
class Target:
    name: str
    base_url: str  # https://127.0.0.1:PORT/v1
    api_key: str
    client: openai.AsyncOpenAI | None = None
    keep_alive: bool = True  # False: a new connection per request


@dataclass
class Sample:
    latency_s: float
    ttft_s: float | None  # streams: until the first chunk with content
    completion_tokens: int
    reported_overhead_ms: float | None  # the gateway's own figure, where it sends one
    content_chunks: int = 1  # streams: how many chunks carried content (1: the whole text arrived at once)
    prompt_tokens: int = 0


@dataclass
class Stack:
    """The processes a run starts, stopped together (each in its own session, killed as a group)."""

    workdir: Path
    processes: list[subprocess.Popen] = field(default_factory=list)
    cleanup: list[Path] = field(default_factory=list)  # directories outside workdir removed at the end

    def spawn(self, command: Sequence[str], env: dict[str, str], log_name: str) -> subprocess.Popen:
        log = (self.workdir / f"{log_name}.log").open("ab")
        process = subprocess.Popen(list(command), env=env, stdout=log, stderr=subprocess.STDOUT,
                                   start_new_session=True)
        self.processes.append(process)
        return process

    def stop_last(self, count: int) -> None:
        """Stop the ``count`` processes started last (a phase's own servers), leaving the others running."""
        last, self.processes = self.processes[-count:], self.processes[:-count]
        Stack(self.workdir, last).stop()

    def stop(self) -> None:
        """SIGTERM to every process group started, then SIGKILL to what is left of each after 30 s: a group outlives
        its leader where the leader started helpers (a gateway's audit drain process, granian's worker)."""
        for process in self.processes:
            _signal_group(process.pid, signal.SIGTERM)
        deadline = time.monotonic() + 30
        for process in self.processes:
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(max(0.1, deadline - time.monotonic()))
        for process in self.processes:
            while group_alive(process.pid) and time.monotonic() < deadline:
                time.sleep(0.05)
            _signal_group(process.pid, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(5)
        for directory in self.cleanup:
            shutil.rmtree(directory, ignore_errors=True)


def group_alive(pgid: int) -> bool:
    """Whether any process is left in process group ``pgid``."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # a member is not ours to signal, but it is there
        return True
    return True


def _signal_group(pgid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pgid, signum)


def is_engine_setting(name: str) -> bool:
    return name.startswith("WARDEN_ENGINE_") or name == "WARDEN_MODEL"


def served_engine_env(**settings: str) -> dict[str, str]:
    """This process's environment for a served engine: ``settings`` (``WARDEN_ENGINE_*`` defaults), overridden by
    the caller's engine settings, and nothing else of Warden's (each server gets its own database, data dir and
    secrets). One torch thread unless told otherwise: an engine whose threads share the cores with the gateways and
    the client stalls at every barrier when one is preempted, which swamps what is measured."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("WARDEN_") or is_engine_setting(k)}
    return {"WARDEN_ENGINE_NUM_THREADS": "1", **settings, **base, "PYTHONUNBUFFERED": "1"}


def _engine_env() -> dict[str, str]:
    # Prefix caching off: LiteLLM's requests reach direct's engine after direct's own request for the same prompt.
    return {**served_engine_env(), "WARDEN_ENGINE_ENABLE_PREFIX_CACHING": "false"}


def _warden_cli(env: dict[str, str], *args: str) -> str:
    result = subprocess.run([sys.executable, "-m", "gateway.cli", *args], env=env, check=True, capture_output=True,
                            text=True)
    return result.stdout.strip()


def provision_tenant(env: dict[str, str], data_dir: Path, name: str) -> str:
    """Migrate the target's database, create a tenant with the bench policy, and return a key issued to it."""
    _warden_cli(env, "db", "upgrade")
    tenant = f"bench-{name}-{secrets.token_hex(4)}"
    _warden_cli(env, "tenant", "create", tenant)
    policy = data_dir / "policy.json"
    policy.write_text(json.dumps(BENCH_POLICY))
    _warden_cli(env, "policy", "set", tenant, str(policy))
    return _warden_cli(env, "key", "issue", tenant)


def start_warden(stack: Stack, name: str, *, guardrails: bool, database_url: str | None,
                 redis_url: str | None, cert: Path, key: Path, engine_env: dict[str, str] | None = None) -> Target:
    """A ``warden serve`` process with its own data directory; a tenant with the bench policy and a key. The engine
    runs with ``engine_env`` (default: this bench's, ``_engine_env``)."""
    data_dir = stack.workdir / name
    env = dict(engine_env) if engine_env is not None else _engine_env()
    env.update({"WARDEN_DATA_DIR": str(data_dir), "WARDEN_GUARDRAILS": str(guardrails).lower(),
                "WARDEN_DATABASE_URL": database_url or f"sqlite:///{data_dir / 'warden.db'}",
                "WARDEN_AUDIT_MAINTENANCE_INTERVAL_S": "0", "WARDEN_TLS_CERT": str(cert),
                "WARDEN_TLS_KEY": str(key)})
    if redis_url:
        env["WARDEN_REDIS_URL"] = redis_url
    data_dir.mkdir(parents=True)
    api_key = provision_tenant(env, data_dir, name)
    port = free_port()
    stack.spawn([sys.executable, "-m", "gateway.cli", "serve", "--host", "127.0.0.1", "--port", str(port),
                 "--log-level", "warning"], env, name)
    return Target(name, f"https://127.0.0.1:{port}/v1", api_key)


def start_direct(stack: Stack, cert: Path, key: Path) -> tuple[Target, str]:
    """The bare engine server: its HTTPS target and the plain-HTTP base a proxy forwards to."""
    https_port, http_port = free_port(), free_port()
    env = _engine_env()
    stack.spawn([sys.executable, "-m", "bench.bare_engine_server", "--https-port", str(https_port),
                 "--http-port", str(http_port), "--certfile", str(cert), "--keyfile", str(key)], env, "direct")
    return Target("direct", f"https://127.0.0.1:{https_port}/v1", "none"), f"http://127.0.0.1:{http_port}/v1"


def start_presidio(stack: Stack) -> str:
    port = free_port()
    stack.spawn([sys.executable, "-m", "bench.presidio_service", "--port", str(port)], dict(os.environ), "presidio")
    return f"http://127.0.0.1:{port}/"


def start_litellm(stack: Stack, name: str, *, model: str, upstream: str, presidio: str | None,
                  cert: Path, key: Path) -> Target:
    executable = litellm_proxy.ensure_installed()
    master_key = f"sk-{secrets.token_hex(16)}"
    config = litellm_proxy.write_config(stack.workdir / f"{name}.yaml", model=model, upstream_base=upstream,
                                        master_key=master_key, presidio_base=presidio)
    port = free_port()
    stack.processes.append(litellm_proxy.start(executable, config, port=port, cert=cert, key=key,
                                               log=stack.workdir / f"{name}.log"))
    return Target(name, f"https://127.0.0.1:{port}/v1", master_key)


async def wait_ready(target: Target, stack: Stack, model: str) -> None:
    """Until one completion answers (the model is loaded and the whole path works), or a process died."""
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    last_error: Exception | None = None
    assert target.client is not None
    while time.monotonic() < deadline:
        dead = [p for p in stack.processes if p.poll() is not None]
        if dead:
            raise RuntimeError(f"a benchmark process exited ({str(dead[0].args)[:200]}); logs in {stack.workdir}")
        try:
            await target.client.chat.completions.create(model=model, max_tokens=1,
                                                        messages=[{"role": "user", "content": "ready?"}])
            return
        except (openai.APIConnectionError, openai.InternalServerError, openai.NotFoundError) as exc:
            last_error = exc
            await asyncio.sleep(1.0)
    raise RuntimeError(f"{target.name} not ready after {STARTUP_TIMEOUT_S:.0f} s: {last_error}")


async def connect_when_ready(targets: list[Target], stack: Stack, model: str, cert: Path, *,
                             timeout_s: float) -> None:
    """An ``openai`` client for each target (trusting ``cert``), then wait until every one answers."""
    tls = ssl.create_default_context(cafile=str(cert))
    for target in targets:
        limits = httpx.Limits(max_keepalive_connections=None if target.keep_alive else 0)
        client = httpx.AsyncClient(verify=tls, timeout=timeout_s, limits=limits)
        # openai's signature names httpx2's client, whose interface httpx's has.
        target.client = openai.AsyncOpenAI(base_url=target.base_url, api_key=target.api_key, max_retries=0,
                                           timeout=timeout_s, http_client=client)  # type: ignore[arg-type]
    started = time.monotonic()
    for target in targets:
        await wait_ready(target, stack, model)
    names = ", ".join(t.name for t in targets)
    print(f"{names} ready in {time.monotonic() - started:.0f} s", file=sys.stderr)


def _header_ms(headers: httpx.Headers) -> float | None:
    for name in ("x-warden-overhead-ms", "x-litellm-overhead-duration-ms"):
        if name in headers:
            return float(headers[name])
    return None


async def call(target: Target, model: str, messages: list[dict[str, str]], max_tokens: int, *,
               stream: bool) -> Sample:
    client = target.client
    assert client is not None
    # Greedy, and every output exactly max_tokens long (vLLM's ignore_eos, which LiteLLM forwards), so each target's
    # engine does the same work for the same prompt.
    request: dict[str, Any] = {"model": model, "messages": messages, "max_tokens": max_tokens, "temperature": 0,
                               "extra_body": {"ignore_eos": True}}
    start = time.perf_counter()
    if not stream:
        raw = await client.chat.completions.with_raw_response.create(**request)
        completion = raw.parse()
        latency = time.perf_counter() - start
        usage = completion.usage
        return Sample(latency, None, usage.completion_tokens if usage else 0, _header_ms(raw.headers),
                      prompt_tokens=usage.prompt_tokens if usage else 0)
    first: float | None = None
    chunks = tokens = prompt_tokens = 0
    response = await client.chat.completions.create(**request, stream=True, stream_options={"include_usage": True})
    async for chunk in response:
        if chunk.choices and chunk.choices[0].delta.content:
            chunks += 1
            if first is None:
                first = time.perf_counter() - start
        if chunk.usage is not None:
            tokens, prompt_tokens = chunk.usage.completion_tokens, chunk.usage.prompt_tokens
    return Sample(time.perf_counter() - start, first, tokens, None, content_chunks=chunks,
                  prompt_tokens=prompt_tokens)


async def paired_phase(targets: list[Target], model: str, prompts: list[list[dict[str, str]]], max_tokens: int, *,
                       stream: bool) -> dict[str, list[Sample]]:
    """One request at a time: prompt i goes to every target in an order rotated by i."""
    samples: dict[str, list[Sample]] = {t.name: [] for t in targets}
    for i, messages in enumerate(prompts):
        for target in targets[i % len(targets):] + targets[:i % len(targets)]:
            samples[target.name].append(await call(target, model, messages, max_tokens, stream=stream))
    return samples


def _paired(values: dict[str, list[float]], prefix: str) -> dict[str, dict[str, float | None]]:
    """Percentiles of each target's values and of their excess over direct's for the same prompt."""
    out: dict[str, dict[str, float | None]] = {}
    for name, rows in values.items():
        excess = [v - b for v, b in zip(rows, values["direct"], strict=True)]
        out[name] = {f"{prefix}p50_ms": statistics.median(rows), f"{prefix}p90_ms": percentile(rows, 90),
                     f"{prefix}overhead_p50_ms": statistics.median(excess),
                     f"{prefix}overhead_p90_ms": percentile(excess, 90)}
    return out


def overhead_stats(samples: dict[str, list[Sample]], *, stream: bool) -> dict[str, dict[str, float | None]]:
    """Per target: latency percentiles and the paired excess over direct's latency; for streams the same of the time
    to the first content (``ttft_`` keys) and how many chunks brought the content."""
    out = _paired({name: [s.latency_s * 1e3 for s in rows] for name, rows in samples.items()}, "")
    for name, rows in samples.items():
        reported = [s.reported_overhead_ms for s in rows if s.reported_overhead_ms is not None]
        out[name].update({"reported_overhead_p50_ms": statistics.median(reported) if reported else None,
                          "completion_tokens_mean": statistics.fmean(s.completion_tokens for s in rows)})
    if stream:
        ttft = _paired({name: [(s.ttft_s or s.latency_s) * 1e3 for s in rows] for name, rows in samples.items()},
                       "ttft_")
        for name, rows in samples.items():
            out[name].update(ttft[name], content_chunks_mean=statistics.fmean(s.content_chunks for s in rows))
    return out


async def closed_loop(target: Target, model: str, prompts: list[list[dict[str, str]]], max_tokens: int,
                      concurrency: int, *, stream: bool) -> tuple[list[Sample], float]:
    """``concurrency`` workers send the prompts back to back until they run out; the samples and the wall time."""
    queue: asyncio.Queue[list[dict[str, str]]] = asyncio.Queue()
    for messages in prompts:
        queue.put_nowait(messages)
    samples: list[Sample] = []

    async def worker() -> None:
        while not queue.empty():
            messages = queue.get_nowait()
            samples.append(await call(target, model, messages, max_tokens, stream=stream))

    start = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return samples, time.perf_counter() - start


async def load_phase(target: Target, model: str, prompts: list[list[dict[str, str]]], max_tokens: int,
                     concurrency: int) -> dict[str, float | None]:
    """Closed loop of whole responses at ``concurrency``: requests/s and latency percentiles."""
    samples, wall = await closed_loop(target, model, prompts, max_tokens, concurrency, stream=False)
    latencies = [s.latency_s * 1e3 for s in samples]
    return {"requests_per_s": len(prompts) / wall, "p50_ms": statistics.median(latencies),
            "p99_ms": percentile(latencies, 99)}


def _ms(value: float | None) -> str:
    return "" if value is None else f"{value:.1f}"


def print_table(result: dict[str, Any]) -> None:
    config = result["config"]
    whole, streamed, load = result["sequential"], result["sequential_stream"], result["load"]
    print(f"\nOne request at a time, paired with direct (ms): {config['requests']} whole responses of "
          f"{config['max_tokens']} tokens; {config['stream_requests']} streams of {config['stream_max_tokens']} tokens")
    print(f"{'target':<18}{'whole p50':>10}{'overhead p50':>13}{'p90':>7}{'self-reported':>14}"
          f"{'stream TTFT':>12}{'TTFT ovh p50':>13}{'chunks':>7}{'end ovh p50':>12}")
    for name in whole:
        w, st = whole[name], streamed[name]
        print(f"{name:<18}{w['p50_ms']:>10.1f}{w['overhead_p50_ms']:>13.1f}{w['overhead_p90_ms']:>7.1f}"
              f"{_ms(w['reported_overhead_p50_ms']):>14}{st['ttft_p50_ms']:>12.1f}{st['ttft_overhead_p50_ms']:>13.1f}"
              f"{st['content_chunks_mean']:>7.1f}{st['overhead_p50_ms']:>12.1f}")
    print(f"\nLoad: {config['concurrency']} connections, median of {config['rounds']} rounds")
    print(f"{'target':<18}{'req/s':>8}{'vs direct':>10}{'p50 ms':>8}{'p99 ms':>8}")
    for name, row in load.items():
        ratio = row["requests_per_s"] / load["direct"]["requests_per_s"]
        print(f"{name:<18}{row['requests_per_s']:>8.2f}{ratio:>10.2f}{row['p50_ms']:>8.0f}{row['p99_ms']:>8.0f}")


async def run(args: argparse.Namespace, stack: Stack) -> dict[str, Any]:
    # One development certificate for every server, which the clients verify.
    cert, key = ensure_certificate(stack.workdir / "tls", None, None)
    database_url = args.database_url or None
    direct, upstream = start_direct(stack, cert, key)
    targets = [direct,
               start_warden(stack, "warden_core", guardrails=False, database_url=database_url,
                            redis_url=args.redis_url, cert=cert, key=key),
               start_warden(stack, "warden_guarded", guardrails=True, database_url=database_url,
                            redis_url=args.redis_url, cert=cert, key=key)]
    if not args.no_litellm:
        presidio = start_presidio(stack)
        targets += [start_litellm(stack, "litellm", model=args.model, upstream=upstream, presidio=None,
                                  cert=cert, key=key),
                    start_litellm(stack, "litellm_presidio", model=args.model, upstream=upstream,
                                  presidio=presidio, cert=cert, key=key)]
    await connect_when_ready(targets, stack, args.model, cert, timeout_s=120)

    prompts = ticket_prompts(args.requests + args.warmup + args.concurrency * 8 * args.rounds, seed=args.seed)
    warmup, measured = prompts[:args.warmup], prompts[args.warmup:args.warmup + args.requests]
    load_prompts = prompts[args.warmup + args.requests:]
    await paired_phase(targets, args.model, warmup, args.max_tokens, stream=False)
    whole = await paired_phase(targets, args.model, measured, args.max_tokens, stream=False)
    streamed = await paired_phase(targets, args.model, measured[:args.stream_requests], args.stream_max_tokens,
                                  stream=True)
    per_round = args.concurrency * 8
    burst = (warmup * args.concurrency)[:2 * args.concurrency]
    for target in targets:  # the first concurrent burst meets new batch shapes in each engine: not measured
        await load_phase(target, args.model, burst, args.max_tokens, args.concurrency)
    rounds: dict[str, list[dict[str, float | None]]] = {t.name: [] for t in targets}
    for r in range(args.rounds):
        chunk = load_prompts[r * per_round:(r + 1) * per_round]
        for target in targets[r % len(targets):] + targets[:r % len(targets)]:
            rounds[target.name].append(await load_phase(target, args.model, chunk, args.max_tokens,
                                                        args.concurrency))
    load = {name: {k: statistics.median(float(row[k] or 0.0) for row in rows) for k in rows[0]}
            for name, rows in rounds.items()}
    for target in targets:
        assert target.client is not None
        await target.client.close()
    return {"config": {"requests": args.requests, "max_tokens": args.max_tokens,
                       "stream_requests": min(args.stream_requests, args.requests),
                       "stream_max_tokens": args.stream_max_tokens, "concurrency": args.concurrency,
                       "rounds": args.rounds, "database": "postgres" if database_url and
                       database_url.startswith("postgresql") else "sqlite",
                       "rate_limit_store": "redis" if args.redis_url else "in-process",
                       "litellm": None if args.no_litellm else "1.108.7",
                       "engine_env": {k: v for k, v in _engine_env().items() if is_engine_setting(k)},
                       "machine": {"cpus": os.cpu_count(), "python": platform.python_version()}},
            "features": {t.name: FEATURES[t.name] for t in targets},
            "sequential": overhead_stats(whole, stream=False),
            "sequential_stream": overhead_stats(streamed, stream=True), "load": load}


def main(argv: Sequence[str] | None = None) -> int:
    from bench import overhead_stub  # it builds on this module's stack and tenant set-up

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=100, help="prompts in each sequential phase")
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--max-tokens", type=int, default=4, help="tokens of each whole response")
    parser.add_argument("--stream-requests", type=int, default=30, help="prompts in the streamed phase")
    parser.add_argument("--stream-max-tokens", type=int, default=48,
                        help="tokens of each stream: longer than output guardrails' hold-back window (128 chars)")
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=3, help="load rounds (each target once per round)")
    parser.add_argument("--model", default="smollm2-135m-instruct")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--database-url", default=os.environ.get("WARDEN_DATABASE_URL"),
                        help="Warden's database (default: WARDEN_DATABASE_URL, else a SQLite file per server)")
    parser.add_argument("--redis-url", default=os.environ.get("WARDEN_REDIS_URL"),
                        help="Warden's rate-limit store (default: WARDEN_REDIS_URL, else in-process)")
    parser.add_argument("--no-litellm", action="store_true", help="Warden and direct only (no LiteLLM install)")
    parser.add_argument("--quick", action="store_true", help="20 prompts, 1 load round: a smoke run")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--stub-engine", action="store_true",
                        help="the stub engine, the floor and an open-loop load instead (bench.overhead_stub); its "
                             "options follow")
    stub_options = parser.add_argument_group("--stub-engine")
    overhead_stub.add_arguments(stub_options)
    args = parser.parse_args(argv)
    if args.stub_engine:
        if args.quick:
            args.duration, args.warmup_s, args.stream_duration, args.config_duration = 5.0, 1.0, 3.0, 5.0
            args.arm_warmup_s = 1.0
            args.light_duration = 5.0
        return run_in_stack(overhead_stub.run, args, overhead_stub.print_table, prefix="warden-gw-stub-",
                            write=overhead_stub.merge_into)
    if args.quick:
        args.requests, args.stream_requests, args.rounds, args.warmup = 20, 10, 1, 2
    return run_in_stack(run, args, print_table, prefix="warden-gw-bench-", write=_write_keeping_stub)


def _write_keeping_stub(path: Path, result: dict[str, Any]) -> None:
    """The real-engine run's results, keeping the stub-engine run's key (``bench.overhead_stub``) of the file."""
    if path.exists():
        previous = json.loads(path.read_text())
        if "stub_engine" in previous:
            result = {**result, "stub_engine": previous["stub_engine"]}
    path.write_text(json.dumps(result, indent=2) + "\n")


def _terminate(signum: int, _frame: object) -> None:
    raise SystemExit(128 + signum)


@contextlib.contextmanager
def stopped_by_signals() -> Iterator[None]:
    """SIGINT raises KeyboardInterrupt and SIGTERM SystemExit in the run, so its ``finally`` stops the processes it
    started. Python leaves SIGINT ignored where it started so (a background job of a non-interactive shell, nohup),
    and SIGTERM's default ends the process without unwinding it: in both cases the servers, each in its own session,
    would run on."""
    previous = {signum: signal.getsignal(signum) for signum in (signal.SIGINT, signal.SIGTERM)}
    signal.signal(signal.SIGINT, signal.default_int_handler)  # asyncio.run then cancels the run's task on SIGINT
    signal.signal(signal.SIGTERM, _terminate)
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


@contextlib.contextmanager
def signals_held() -> Iterator[None]:
    """SIGINT and SIGTERM ignored inside (the processes being stopped), restored after."""
    previous = {signum: signal.getsignal(signum) for signum in (signal.SIGINT, signal.SIGTERM)}
    for signum in previous:
        signal.signal(signum, signal.SIG_IGN)
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def run_in_stack(run: Callable[[argparse.Namespace, Stack], Coroutine[Any, Any, dict[str, Any]]],
                 args: argparse.Namespace,
                 print_table: Callable[[dict[str, Any]], None], *, prefix: str,
                 write: Callable[[Path, dict[str, Any]], None] | None = None) -> int:
    """A benchmark's lifecycle: ``run`` with a fresh stack of processes, stopped whatever happens; then its table,
    and its JSON written to ``args.out`` (by ``write``, if given). The work directory (logs) is kept when the run
    fails."""
    stack = Stack(Path(tempfile.mkdtemp(prefix=prefix)))
    try:
        with stopped_by_signals():
            result = asyncio.run(run(args, stack))
    except KeyboardInterrupt:
        print(f"interrupted: stopped every process it started; logs in {stack.workdir}", file=sys.stderr)
        return 128 + signal.SIGINT
    finally:
        with signals_held():  # a second Ctrl-C must not leave the servers running
            stack.stop()
    print_table(result)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    if write is not None:
        write(args.out, with_provenance(result))
    else:
        args.out.write_text(json.dumps(with_provenance(result), indent=2) + "\n")
    print(f"\nwrote {args.out}")
    shutil.rmtree(stack.workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
