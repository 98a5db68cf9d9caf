"""The load generator: the official ``openai`` client (async) sending chat completions at a fixed rate, bounded in
count and time, every request with its own ``x-request-id`` so its audit row can be looked up later. Every fourth
request streams. Each outcome is kept: status, whether ``Retry-After`` came with it, whether any byte of the response
reached the client (then an audit row is owed), latency, and the phase (before / during / after the fault) it was
sent in."""

from __future__ import annotations

import asyncio
import itertools
import ssl
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
import openai

PROMPTS = ["Summarise: the invoice was paid twice.", "Translate 'good morning' into French.",
           "Name a prime number between 10 and 20.", "Say hello to the support team.",
           "What colour is the sky on a clear day?", "Give one word that rhymes with cat."]
RequestMaker = Callable[[int], tuple[dict[str, Any], bool]]  # index -> (create's arguments, stream)
NO_RESPONSE = 0  # status of a request that got no HTTP response at all (refused, reset, or timed out before headers)


@dataclass
class RequestResult:
    request_id: str
    phase: str
    sent_s: float  # on the generator's clock
    latency_s: float
    status: int  # NO_RESPONSE when no response head arrived
    stream: bool
    reached_client: bool  # the response head arrived: the gateway owes an audit row
    retry_after: bool
    completed: bool  # a 200 whose body (or whole stream, to its end) arrived
    error: str | None = None  # the error code, or the exception's class when no response arrived
    tenant: str = "good"


@dataclass
class LoadGenerator:
    base_url: str  # https://127.0.0.1:PORT/v1
    api_key: str
    model: str
    tls: ssl.SSLContext | bool
    max_tokens: int = 8
    timeout_s: float = 30.0
    stream_every: int = 4
    label: str = "chaos"
    tenant: str = "good"
    phase: str = "before"
    results: list[RequestResult] = field(default_factory=list)
    _ids: itertools.count = field(default_factory=itertools.count)
    _started: float = field(default_factory=time.monotonic)
    _client: openai.AsyncOpenAI | None = None
    _http: httpx.AsyncClient | None = None

    def now(self) -> float:
        return time.monotonic() - self._started

    @property
    def client(self) -> openai.AsyncOpenAI:
        if self._client is None:
            self._http = httpx.AsyncClient(verify=self.tls, timeout=self.timeout_s,
                                           limits=httpx.Limits(max_connections=512, max_keepalive_connections=64))
            self._client = openai.AsyncOpenAI(base_url=self.base_url, api_key=self.api_key, max_retries=0,
                                              timeout=self.timeout_s, http_client=self._http)
        return self._client

    async def close(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = self._http = None

    async def send_raw(self, body: bytes) -> RequestResult:
        """POSTs ``body`` as it is to /chat/completions: JSON the ``openai`` client would never encode (a lone
        surrogate's escape, for one)."""
        self.client  # noqa: B018 - makes the shared HTTP client
        assert self._http is not None
        request_id = self.next_request_id()
        phase, sent = self.phase, self.now()
        started = time.monotonic()
        status, reached, retry_after, completed, error = NO_RESPONSE, False, False, False, None
        try:
            response = await self._http.post(f"{self.base_url}/chat/completions", content=body, headers={
                "authorization": f"Bearer {self.api_key}", "content-type": "application/json",
                "x-request-id": request_id})
            status, reached = response.status_code, True
            retry_after = "retry-after" in response.headers
            completed = status == 200
            if not completed:
                error = str(_error_body_code(response))
        except httpx.HTTPError as exc:
            error = type(exc).__name__
        result = RequestResult(request_id, phase, sent, time.monotonic() - started, status, False, reached,
                               retry_after, completed, error, self.tenant)
        self.results.append(result)
        return result

    def next_request_id(self) -> str:
        return f"{self.label}-{self.tenant}-{next(self._ids):05d}"

    def default_request(self, index: int) -> tuple[dict[str, Any], bool]:
        """The ``create`` arguments of the ``index``-th request and whether it streams."""
        stream = self.stream_every > 0 and index % self.stream_every == self.stream_every - 1
        return ({"model": self.model, "max_tokens": self.max_tokens, "temperature": 0.0,
                 "messages": [{"role": "user", "content": PROMPTS[index % len(PROMPTS)]}]}, stream)

    async def send(self, request: dict[str, Any], *, stream: bool,
                   on_first_byte: Callable[[str], None] | None = None) -> RequestResult:
        request_id = self.next_request_id()
        phase, sent = self.phase, self.now()
        started = time.monotonic()
        status, reached, retry_after, completed, error = NO_RESPONSE, False, False, False, None
        try:
            raw = await self.client.chat.completions.with_raw_response.create(
                **request, stream=stream, extra_headers={"x-request-id": request_id},
                **({"stream_options": {"include_usage": True}} if stream else {}))
            status, reached = raw.http_response.status_code, True
            retry_after = "retry-after" in raw.headers
            if on_first_byte is not None:
                on_first_byte(request_id)
            body = raw.parse()
            if stream:
                async for _chunk in body:
                    pass
            completed = True
        except openai.APIStatusError as exc:
            status, reached = exc.status_code, True
            retry_after = "retry-after" in exc.response.headers
            error = _error_code(exc)
        except (openai.APIError, httpx.HTTPError) as exc:
            # Before the head: no response at all. After it: the body or stream was cut or broken.
            cause = "timeout" if isinstance(exc, openai.APITimeoutError | httpx.TimeoutException) else (
                type(exc.__cause__ or exc).__name__)
            error = f"stream_broken:{cause}" if reached else cause
        except (ValueError, UnicodeError) as exc:  # a body this client refuses to encode or decode
            error = f"client:{type(exc).__name__}"
        result = RequestResult(request_id, phase, sent, time.monotonic() - started, status, stream, reached,
                               retry_after, completed, error, self.tenant)
        self.results.append(result)
        return result

    async def run(self, rate_per_s: float | Callable[[], float], *, stop: Callable[[], bool], max_requests: int,
                  max_duration_s: float, make_request: RequestMaker | None = None) -> list[RequestResult]:
        """Sends at ``rate_per_s`` (a number, or a function read before each send so a scenario can change it; open
        loop: a slow answer never delays the next send) until ``stop()`` says so, ``max_requests`` were sent or
        ``max_duration_s`` passed; then waits for the answers still out (each bounded by the client's timeout).
        Returns this run's results."""
        make_request = make_request or self.default_request
        rate = rate_per_s if callable(rate_per_s) else (lambda: float(rate_per_s))
        begun = due = time.monotonic()
        tasks: list[asyncio.Task[RequestResult]] = []
        for index in range(max_requests):
            delay = due - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            if stop() or time.monotonic() - begun >= max_duration_s:
                break
            request, stream = make_request(index)
            tasks.append(asyncio.create_task(self.send(request, stream=stream)))
            due += 1.0 / rate()
        return list(await asyncio.gather(*tasks))


def _error_body_code(response: httpx.Response) -> str:
    try:
        error = response.json().get("error", {})
    except (ValueError, AttributeError):
        return str(response.status_code)
    return str(error.get("code") or error.get("type") or response.status_code) if isinstance(error, dict) else (
        str(response.status_code))


def _error_code(exc: openai.APIStatusError) -> str:
    body = exc.body if isinstance(exc.body, dict) else {}
    error = body.get("error", body) if isinstance(body, dict) else {}
    if isinstance(error, dict):
        return str(error.get("code") or error.get("type") or exc.status_code)
    return str(exc.status_code)


async def measure_capacity(generator: LoadGenerator, concurrency: int, duration_s: float) -> float:
    """Completed requests per second with ``concurrency`` requests always in flight (closed loop)."""
    deadline = time.monotonic() + duration_s
    done = 0

    async def worker(offset: int) -> None:
        nonlocal done
        index = offset
        while time.monotonic() < deadline:
            request, _ = generator.default_request(index)
            result = await generator.send(request, stream=False)
            done += result.completed
            index += concurrency

    begun = time.monotonic()
    await asyncio.gather(*(worker(i) for i in range(concurrency)))
    return done / (time.monotonic() - begun)
