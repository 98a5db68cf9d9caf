"""The /v1 request path, in order (see docs/architecture.md):

    auth -> policy -> parse and validate -> model checks -> tokenize -> admission (rate limits)
    -> input guardrails -> engine -> output guardrails -> settle limits -> audit -> respond

Every call, admitted or refused, ends in exactly one audit record: ``_audited`` records refusals; the
completion paths record success (non-streamed: before the response is returned; streamed: before ``[DONE]``; a
stream cut short by the client: as its cleanup runs).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncGenerator, Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any

import orjson
from fastapi import Request
from fastapi.responses import JSONResponse
from starlette.requests import ClientDisconnect
from starlette.responses import Response
from starlette.types import Receive

from engine.errors import EngineDeadError, InvalidRequestError, UnknownModelError
from engine.outputs import RequestOutput
from engine.protocol import EngineClient
from engine.request import EngineRequest
from gateway.audit.writer import AuditUnavailableError
from gateway.core.errors import (
    APIError,
    audit_unavailable,
    authentication_failed,
    engine_unavailable,
    invalid_request,
    model_not_found,
    permission_denied,
    unexpected_error,
)
from gateway.core.middleware import RequestTiming
from gateway.core.protocols import ClassCheck
from gateway.keys.auth import AuthenticationFailed
from gateway.openai import prompts, responses, structured
from gateway.openai.call_record import CLIENT_CLOSED_REQUEST, SHUTDOWN, CallRecord, cut_short
from gateway.openai.call_watch import CallWatch, StreamDeadline
from gateway.openai.engine_call import EngineCall, finish_shielded, run_shielded
from gateway.openai.hooks import OutputFilter
from gateway.openai.openai_surfaces import MODELS
from gateway.openai.policy_view import PolicyView
from gateway.openai.schemas import ChatCompletionRequest, CompletionRequest
from gateway.openai.streaming import SSEResponse, wait_for_disconnect
from gateway.openai.surface import CallMeta, CallResult, PersistsResults, RecallsState, StreamEncoder, Surface
from gateway.policystore.service import ActivePolicy
from gateway.ratelimit import Admission, RateLimiterUnavailable, rate_limit_headers, refusal_body
from gateway.ratelimit.overload import Deadline, GateSlot, Overloaded, deadline_error, overloaded_error
from gateway.ratelimit.protocol import SettlesAtOnce
from gateway.services import GatewayServices
from policies.model import Policy

# Fields a client must never set: the gateway derives them itself.
GATEWAY_OWNED_FIELDS = ("cache_salt",)
recalls_state = ClassCheck[RecallsState](RecallsState)
persists_results = ClassCheck[PersistsResults](PersistsResults)
settles_at_once = ClassCheck[SettlesAtOnce](SettlesAtOnce)


def json_response(body: dict[str, Any], headers: dict[str, str] | None = None) -> Response:
    """A completion's body as compact JSON, encoded by orjson: the same document JSONResponse's stdlib encoder writes,
    in a fraction of its time on the request path. Like it, refuses what is not JSON (NaN, a lone surrogate).
    ``headers``' names must be lower-case (``RawJSONResponse``)."""
    return RawJSONResponse(orjson.dumps(body), headers)


class RawJSONResponse(Response):
    """A 200 whose body is already JSON bytes, its header list built in one pass: what ``Response(content,
    media_type=..., headers=...)`` sends, without its per-call rendering and header normalisation (every header
    name here is already lower-case ASCII: the x-ratelimit-* set)."""

    media_type = "application/json"

    def __init__(self, body: bytes, headers: dict[str, str] | None = None) -> None:
        self.status_code = 200
        self.background = None
        self.body = body
        # In Response's order: the given headers, then the body's length and type.
        raw = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in headers.items()] if headers else []
        raw.append((b"content-length", str(len(body)).encode("latin-1")))
        raw.append((b"content-type", b"application/json"))
        self.raw_headers = raw


async def read_body(receive: Receive) -> bytes:
    """The request's body, as ``Request.body()`` reads it, without its async generator: the body middleware hands
    it over in one message, so this is one ``receive`` on every call."""
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise ClientDisconnect()
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def engine_error(exc: Exception) -> APIError:
    if isinstance(exc, InvalidRequestError):
        return invalid_request(str(exc), param=exc.param)
    if isinstance(exc, UnknownModelError):
        return model_not_found(str(exc))
    if isinstance(exc, EngineDeadError):
        return engine_unavailable(f"The inference engine is unavailable: {exc}")
    raise exc


def tokens_used(states: list[responses.ChoiceState], n: int) -> int:
    """A call's tokens so far, as it is settled: each distinct prompt once (``n`` choices per prompt), every
    choice's output."""
    return (sum(s.usage.prompt_tokens for i, s in enumerate(states) if i % n == 0 and s.usage)
            + sum(s.usage.completion_tokens for s in states if s.usage))


def engine_failure(message: str | None) -> APIError:
    return APIError(500, f"The engine failed on this request: {message or 'unknown error'}", type="server_error",
                    code="engine_error")


@dataclass(slots=True)
class Prepared:
    """An admitted call, ready for the engine."""

    meta: CallMeta
    request: ChatCompletionRequest | CompletionRequest
    engine_requests: list[EngineRequest]
    filters: list[OutputFilter | None]
    admission: Admission
    headers: dict[str, str] = field(default_factory=dict)
    calls_tools: bool = False  # chat with tools: outputs that are tool calls become tool_calls
    settled: bool = False


class CallHandler:
    def __init__(self, services: GatewayServices, http_request: Request, surface: Surface) -> None:
        self.services = services
        self.http = http_request
        self.surface = surface
        self.endpoint = endpoint = surface.endpoint
        # The scope's state dict read directly: ``Request.state`` wraps it in a new object, read by __getattr__.
        state = http_request.scope["state"]
        timing: RequestTiming = state["timing"]
        self.record = CallRecord(endpoint=endpoint, request_id=state["request_id"], timing=timing)
        self.active: ActivePolicy | None = None  # the tenant's policy, once authenticated
        self.constraint: dict[str, Any] | None = None  # the engine's structured-output constraint (chat)
        self.tools_prompt: str | None = None  # the tools described to the model (chat with tools)
        # The chat prompt's pieces and lines as first encoded: encoding it again after the input guardrails rewrote
        # it re-encodes only what they changed (gateway.openai.prompt_tokens).
        self.prompt_pieces: dict[str, list[int]] = {}
        self.telemetry = http_request.app.state.telemetry.request(endpoint, timing.started_ns)
        self.deadline = Deadline.after(services.settings.request_timeout_s, started_ns=timing.started_ns)
        self.slot: GateSlot | None = None  # a place among this worker's calls in flight (gateway.ratelimit.overload)
        self.stream_holds_slot = False  # a streamed response gives its place back when the stream ends

    @property
    def engine(self) -> EngineClient:
        """The engine this call runs on; one that went away since the call was admitted is a 503, as at admission."""
        engine = self.services.engine
        if engine is None:
            raise engine_unavailable()
        return engine

    # -- the one place refusals are audited ----------------------------------------------------------------------
    async def run(self) -> Response:
        try:
            return await self._run()
        except APIError as exc:
            if exc.decision is not None:
                self.record.decisions.append(exc.decision)
            await self._audit(exc.status, exc.type)
            raise
        except asyncio.CancelledError:
            await run_shielded(self._audit(*self._cut_short()))
            raise
        except AuditUnavailableError:
            # Answered 503 audit_unavailable (fail closed); the refusal is recorded if a store took it back since.
            with contextlib.suppress(AuditUnavailableError):
                await self._audit(503, "service_unavailable_error")
            raise
        except Exception:
            await self._audit(500, "server_error")
            raise
        finally:
            if self.slot is not None and not self.stream_holds_slot:
                self.slot.release()

    def _cut_short(self) -> tuple[int, str]:
        """How this call, ending before its response did, is audited: ``shutdown`` if the server's shutdown cut it
        (``gateway.lifecycle``), else ``client_closed``."""
        lifecycle = getattr(self.http.app.state, "lifecycle", None)
        status, error_type = cut_short(lifecycle is not None and lifecycle.cutting)
        if error_type == SHUTDOWN:
            self.record.finish_reason = SHUTDOWN
        return status, error_type

    async def _audit(self, status: int, error_type: str | None = None) -> None:
        if self.record.recorded:
            return
        self.record.recorded = True
        record = self.record
        self.telemetry.finish(status=status, error_type=error_type, tenant_id=record.tenant_id,
                              decisions=record.decisions, prompt_tokens=record.prompt_tokens,
                              completion_tokens=record.completion_tokens, cached_tokens=record.cached_tokens,
                              overhead_s=record.timing.overhead_ms() / 1e3)
        with self.telemetry.stage("audit"):
            await self.services.audit.record(record.to_event(status, error_type))

    # -- steps ----------------------------------------------------------------------------------------------------
    async def _authenticate(self) -> None:
        try:
            principal = await self.services.authenticator.authenticate(self.surface.credentials(self.http))
        except AuthenticationFailed as exc:
            self.record.tenant_id, self.record.key_id = exc.tenant_id, exc.key_id
            self.record.decide("auth", decision="refused", reason=exc.reason)
            raise authentication_failed(exc.reason) from None
        self.record.tenant_id, self.record.key_id = principal.tenant_id, principal.key_id
        self.telemetry.set_tenant(principal.tenant_id)

    async def _parse(self) -> ChatCompletionRequest | CompletionRequest:
        try:
            body: Any = orjson.loads(await read_body(self.http.receive))
        except orjson.JSONDecodeError as exc:
            raise invalid_request(f"Request body is not valid JSON: {exc}") from None
        if not isinstance(body, dict):
            raise invalid_request("Request body must be a JSON object")
        for name in GATEWAY_OWNED_FIELDS:
            if name in body:
                raise invalid_request(f"{name} is set by the gateway and cannot be supplied", param=name)
        if isinstance(body.get("model"), str):
            self.record.model = body["model"][:200]
        if recalls_state(self.surface):
            assert self.record.tenant_id is not None
            await self.surface.recall(body, self.record.tenant_id)
        return self.surface.parse(body)

    async def _run(self) -> Response:
        services = self.services
        with self.telemetry.stage("auth"):
            await self._authenticate()
        tenant_id, key_id = self.record.tenant_id, self.record.key_id
        assert tenant_id is not None and key_id is not None
        with self.telemetry.stage("policy"):
            active = self.active = await services.policies.resolve(tenant_id)
        view = PolicyView.for_key(active.policy, key_id)
        self.record.policy_version = active.version
        self.record.audit_content = view.audit_content

        request = await self._parse()
        engine = services.engine
        if engine is None or not engine.is_alive():
            raise engine_unavailable()
        self.telemetry.model_name = engine.model_name
        if request.model != engine.model_name:
            raise model_not_found(request.model)
        if not view.allows_model(request.model):
            raise permission_denied(f"This key's policy does not allow the model '{request.model}'",
                                    decision={"stage": "policy", "decision": "refused", "reason": "model"})

        # Prompts as text (what guardrails and the audit see) and as token ids (what admission counts).
        if isinstance(request, ChatCompletionRequest):
            self.constraint = structured.engine_constraint(request)
            self.tools_prompt = structured.tools_prompt(request)
            texts = [m.text() for m in request.messages]
            self.record.prompt = prompts.chat_messages(request.messages, texts)
            prompt_ids = [prompts.chat_prompt_ids(engine.tokenizer, self.record.prompt, self.tools_prompt,
                                                  tenant_id=self.record.tenant_id, reuse=self.prompt_pieces)]
        else:
            texts = prompts.completion_prompt_texts(engine.tokenizer, request)
            self.record.prompt = texts
            prompt_ids = [p if isinstance(p, list) else engine.tokenizer.encode(p, add_special_tokens=False)
                          for p in request.prompts()]
        choices = len(prompt_ids) * request.n
        if choices > services.settings.max_choices:
            raise invalid_request(f"At most {services.settings.max_choices} choices per request (prompts x n)",
                                  param="n")
        longest = max(len(ids) for ids in prompt_ids)
        max_tokens = prompts.resolve_max_tokens(prompts.requested_max_tokens(request), prompt_len=longest,
                                                max_model_len=engine.max_model_len, cap=view.max_tokens_cap)

        with self.telemetry.stage("queue"):
            try:
                self.slot = services.gate.try_acquire() or await self._wait_in_line()
            except Overloaded as exc:
                raise overloaded_error(exc) from None
        if self.slot is None:  # the client left while waiting in line: nothing was reserved or computed for it
            await self._audit(*self._cut_short())
            return Response(status_code=CLIENT_CLOSED_REQUEST)
        with self.telemetry.stage("rate_limit"):
            admission = await self._admit(view, sum(len(ids) for ids in prompt_ids) + choices * max_tokens)
        try:
            with self.telemetry.stage("input_guardrails"):
                prompt_ids = await self._screen_input(request, texts, prompt_ids)
            prepared = self._prepare(request, prompt_ids, max_tokens, view, admission)
            if request.stream:
                return await self._stream(prepared)
            return await self._complete(prepared)
        except APIError as exc:
            # A refusal after admission (an input guardrail's block, the engine's 4xx/5xx, the deadline) tells the
            # client where its limits stand, as an answer would; a header the error sets itself (retry-after) wins.
            exc.headers = {**rate_limit_headers(admission), **exc.headers}
            if not admission.degraded:
                await run_shielded(services.limiter.release(admission))
            raise
        except BaseException:
            if not admission.degraded:
                await run_shielded(services.limiter.release(admission))
            raise

    async def _wait_in_line(self) -> GateSlot | None:
        """Wait for a place among the calls in flight while watching the client: None when it left first (its place
        in line goes to the next). Raises Overloaded when the line is full or the wait times out."""
        waiting = asyncio.ensure_future(self.services.gate.acquire())
        watcher = asyncio.ensure_future(wait_for_disconnect(self.http.receive))
        try:
            await asyncio.wait({waiting, watcher}, return_when=asyncio.FIRST_COMPLETED)
        except BaseException:
            if waiting.done() and not waiting.cancelled() and waiting.exception() is None:
                waiting.result().release()  # granted just as this call was cancelled: pass the place on
            raise
        finally:
            watcher.cancel()
            if not waiting.done():
                waiting.cancel()  # GateSlot-safe: a slot handed over mid-cancel is passed on by acquire()
                await asyncio.wait({waiting})
        return None if waiting.cancelled() else waiting.result()

    async def _admit(self, view: PolicyView, reserve_tokens: int) -> Admission:
        tenant_id, key_id = self.record.tenant_id, self.record.key_id
        assert tenant_id is not None and key_id is not None
        try:
            admission = await self.services.limiter.admit(tenant_id, key_id, view.tenant_limits, reserve_tokens,
                                                          key_limits=view.key_limits)
        except RateLimiterUnavailable as exc:
            raise APIError(503, f"{exc}. Requests are refused until it is back.", type="service_unavailable_error",
                           code="rate_limiter_unavailable", headers={"retry-after": "1"},
                           decision={"stage": "rate_limit", "decision": "unavailable"}) from None
        decision = {"stage": "rate_limit", **admission.audit_decision()}
        if not admission.admitted:
            error = refusal_body(admission)["error"]
            raise APIError(429, error["message"] or "Rate limit reached", type=error["type"] or "rate_limit_error",
                           code=error["code"], headers=rate_limit_headers(admission), decision=decision)
        self.record.decisions.append(decision)
        return admission

    async def _screen_input(self, request: ChatCompletionRequest | CompletionRequest, texts: list[str],
                            prompt_ids: list[list[int]]) -> list[list[int]]:
        guard = self.services.input_guard
        if guard is None:
            return prompt_ids
        assert self.active is not None and self.record.tenant_id is not None
        chat = isinstance(request, ChatCompletionRequest)
        # A completions prompt is screened as one user message per prompt.
        messages = self.record.prompt if chat else [{"role": "user", "content": text} for text in texts]
        screened = await guard.screen_input(messages, tenant_id=self.record.tenant_id, policy=self.active.policy)
        self.record.decisions.extend(screened.decisions)
        if screened.messages == messages:
            return prompt_ids
        engine = self.engine
        if chat:
            self.record.prompt_screened = screened.messages
            return [prompts.chat_prompt_ids(engine.tokenizer, screened.messages, self.tools_prompt,
                                            tenant_id=self.record.tenant_id, reuse=self.prompt_pieces)]
        self.record.prompt_screened = [m["content"] for m in screened.messages]
        return [engine.tokenizer.encode(text, add_special_tokens=False) for text in self.record.prompt_screened]

    def _prepare(self, request: ChatCompletionRequest | CompletionRequest, prompt_ids: list[list[int]],
                 max_tokens: int, view: PolicyView, admission: Admission) -> Prepared:
        tenant_id = self.record.tenant_id or ""
        cache_salt = self.services.secrets.cache_salt(tenant_id)
        logprobs = prompts.engine_logprobs(request)
        engine_requests: list[EngineRequest] = []
        prefixes: list[str] = []
        echo = isinstance(request, CompletionRequest) and request.echo
        assert self.active is not None
        public_len = self._public_prefix_len(request, prompt_ids[0], self.active.policy)
        for p, ids in enumerate(prompt_ids):
            for i in range(request.n):
                index = p * request.n + i
                engine_requests.append(EngineRequest(
                    request_id=f"{self.record.request_id}-{index}", prompt_token_ids=ids,
                    sampling_params=prompts.sampling_params(request, max_tokens=max_tokens, logprobs=logprobs,
                                                            choice=i),
                    cache_salt=cache_salt, tenant=tenant_id, priority=view.weight, public_prefix_len=public_len,
                    structured=self.constraint,
                ))
                prefixes.append(self.record.prompt[p] if echo else "")
        guard = self.services.output_guard
        assert self.active is not None
        filters: list[OutputFilter | None] = [
            guard.open(tenant_id=tenant_id, policy=self.active.policy, shape=structured.output_shape(self.constraint),
                       whole=not request.stream)
            if guard is not None else None
            for _ in engine_requests
        ]
        meta = CallMeta(response_id=self.surface.id_prefix + self.record.request_id.removeprefix("req_"),
                        created=int(time.time()), model=request.model, request=request,
                        choices=len(engine_requests), prefixes=prefixes,
                        want_logprobs=prompts.engine_logprobs(request) is not None,
                        prompt_tokens=sum(len(ids) for ids in prompt_ids))
        return Prepared(meta=meta, request=request, engine_requests=engine_requests, filters=filters,
                        admission=admission, headers=rate_limit_headers(admission),
                        calls_tools=isinstance(request, ChatCompletionRequest) and request.calls_tools)

    def _public_prefix_len(self, request: ChatCompletionRequest | CompletionRequest, prompt_ids: list[int],
                           policy: Policy) -> int:
        """How many leading prompt tokens are a system prompt the tenant's policy publishes as public (0: none).
        The hash is taken over the system prompt the model will see (after input guardrails), and the public
        region is confirmed token by token against the prompt, so a near miss is simply private."""
        if not isinstance(request, ChatCompletionRequest) or not policy.public_prefixes:
            return 0
        messages = self.record.prompt_screened if self.record.prompt_screened is not None else self.record.prompt
        if not messages or messages[0]["role"] != "system" or not policy.is_public_prefix(messages[0]["content"]):
            return 0
        tokenizer = self.engine.tokenizer
        head = tokenizer.encode(tokenizer.apply_chat_template(messages[:1], add_generation_prompt=False),
                                add_special_tokens=False)
        return len(head) if prompt_ids[: len(head)] == head else 0

    # -- shared by both response modes ---------------------------------------------------------------------------
    async def _absorb(self, prepared: Prepared, call: EngineCall, state: responses.ChoiceState, index: int,
                      output: RequestOutput) -> str:
        """Fold one engine delta into its choice; returns the text released to the client."""
        if output.finish_reason == "error":
            raise engine_failure(output.error)
        state.raw_text += output.text
        if output.logprobs:
            state.logprobs.extend(output.logprobs)
        if output.usage is not None:
            state.usage = output.usage
        self.telemetry.on_output(index, output)
        output_filter = prepared.filters[index]
        if output_filter is None:
            released = output.text
        else:
            with self.telemetry.accumulate("output_guardrails"):
                released = await output_filter.feed(output.text)
                if output.finished:
                    released += await output_filter.finish()
            if output_filter.withheld and not output.finished:
                await call.abort(index)  # nothing more of this choice will be sent: stop computing it
        state.text += released
        if output.finished:
            state.finish_reason = output.finish_reason
            state.stop_reason = output.stop_reason
            if output_filter is not None and self._filtered(output_filter, state, index):
                state.finish_reason = "content_filter"
        return released

    def _filtered(self, output_filter: OutputFilter, state: responses.ChoiceState, index: int) -> bool:
        """Whether the output guardrails changed a finished choice so that it no longer is what the request asked
        for: part of it withheld, or a masked value that breaks the response's schema (OpenAI's ``content_filter``
        finish reason, so a client never takes a redacted structured output for a conforming one)."""
        if output_filter.withheld:
            return True
        if state.finish_reason != "stop" or not output_filter.rewrote or self.constraint is None:
            return False
        if structured.conforms(self.constraint, state.text):
            return False
        self.record.decisions.append({"choice": index, "stage": "output_guardrails", "kind": "structured_output",
                                      "decision": "content_filter", "reason": "redaction broke the schema"})
        return True

    def _usage(self, prepared: Prepared, states: list[responses.ChoiceState]) -> dict[str, Any]:
        n = prepared.request.n
        # Like OpenAI: each distinct prompt counts once, every choice's completion counts.
        prompt_tokens = sum(s.usage.prompt_tokens for i, s in enumerate(states) if i % n == 0 and s.usage)
        cached = sum(s.usage.cached_tokens for i, s in enumerate(states) if i % n == 0 and s.usage)
        completion_tokens = sum(s.usage.completion_tokens for s in states if s.usage)
        self.record.prompt_tokens, self.record.completion_tokens = prompt_tokens, completion_tokens
        self.record.cached_tokens = cached
        return responses.usage_body(prompt_tokens, completion_tokens, cached)

    def _track_usage(self, prepared: Prepared, states: list[responses.ChoiceState]) -> None:
        """Each renewal of the call's rate-limit lease reports its tokens so far: if this worker dies, the lapsed
        lease is charged that, not the whole reservation."""
        if prepared.admission.admitted and not prepared.admission.degraded:
            n = prepared.request.n
            self.services.limiter.track_usage(prepared.admission, lambda: tokens_used(states, n))

    def _finish_record(self, prepared: Prepared, states: list[responses.ChoiceState]) -> None:
        self.record.completions = [s.raw_text for s in states]
        self.record.completions_screened = [s.text for s in states]
        reasons = {s.finish_reason for s in states if s.finish_reason}
        self.record.finish_reason = ",".join(sorted(reasons)) or None
        for index, output_filter in enumerate(prepared.filters):
            if output_filter is not None:
                self.record.decisions.extend({"choice": index, **d} for d in output_filter.decisions())

    async def _persist(self, result: CallResult) -> None:
        if persists_results(self.surface):
            with self.telemetry.stage("persist"):
                await self.surface.persist(result, self.record)

    async def _settle(self, prepared: Prepared) -> None:
        settling = self._start_settling(prepared)
        if settling is not None:
            await finish_shielded(settling)

    def _start_settling(self, prepared: Prepared) -> asyncio.Future[Any] | None:
        """The settlement of the call's reservation with its usage, started (None: already settled, or settled here
        and now by a limiter in this process)."""
        if prepared.settled:
            return None
        prepared.settled = True
        used = self.record.prompt_tokens + self.record.completion_tokens
        limiter = self.services.limiter
        if settles_at_once(limiter):
            limiter.settle_now(prepared.admission, used)
            return None
        return asyncio.ensure_future(limiter.settle(prepared.admission, used))

    # -- non-streamed ----------------------------------------------------------------------------------------------
    async def _collect(self, prepared: Prepared, states: list[responses.ChoiceState]) -> None:
        call = EngineCall(self.engine, prepared.engine_requests, self.record.timing)
        try:
            async for index, output in call:
                await self._absorb(prepared, call, states[index], index, output)
        except (InvalidRequestError, UnknownModelError, EngineDeadError) as exc:
            raise engine_error(exc) from None
        finally:
            await call.close()

    async def _complete(self, prepared: Prepared) -> Response:
        states = [responses.ChoiceState() for _ in prepared.engine_requests]
        self._track_usage(prepared, states)
        # Collected in this task, cut short by the watch (see gateway.openai.call_watch); a cut's cancellation
        # reaches the engine call, whose close() aborts its work, and is taken back here.
        watch = CallWatch(self.deadline, self.http.receive)
        try:
            await self._collect(prepared, states)  # raises the engine's or a guardrail's error
        except asyncio.CancelledError:
            if not watch.stop():
                raise
            # The client went away or the deadline passed.
            self._usage(prepared, states)
            self._finish_record(prepared, states)
            await self._settle(prepared)
            if not watch.client_gone:
                raise deadline_error(self.deadline) from None  # audited by run()
            await self._audit(CLIENT_CLOSED_REQUEST, "client_closed")
            return Response(status_code=CLIENT_CLOSED_REQUEST)
        finally:
            watch.stop()
        if prepared.calls_tools:
            for state in states:
                calls = structured.parse_calls(state.text)
                if calls:
                    state.tool_calls = structured.tool_calls_body(calls)
                    state.finish_reason = "tool_calls" if state.finish_reason == "stop" else state.finish_reason
        usage = self._usage(prepared, states)
        self._finish_record(prepared, states)
        result = CallResult(meta=prepared.meta, choices=states, usage=usage)
        body = self.surface.render(result)
        # Settling (a Redis round trip) and recording (a spool fsync in a thread) are independent: both finish
        # before the response leaves, side by side rather than one after the other (the settlement in a task of its
        # own, shielded like every settlement; the record in this one). Both always finish (a failed record must not
        # leave the settlement racing the release that follows the failure); the record's failure is the one raised.
        settling = self._start_settling(prepared)
        try:
            await self._persist_and_audit(result)
        except BaseException:
            if settling is not None:
                with contextlib.suppress(Exception):
                    await finish_shielded(settling)
            raise
        if settling is not None:
            await finish_shielded(settling)
        return json_response(body, prepared.headers)

    async def _persist_and_audit(self, result: CallResult) -> None:
        await self._persist(result)
        await self._audit(200)  # durable (fsync'd) before the response leaves

    # -- streamed --------------------------------------------------------------------------------------------------
    async def _stream(self, prepared: Prepared) -> Response:
        # A stream cannot be taken back: refuse it now, not after its tokens, if its record could not be kept.
        self.services.audit.ensure_available()
        call = EngineCall(self.engine, prepared.engine_requests, self.record.timing)
        outputs = aiter(call)
        try:
            first = await self._first_output(outputs)  # bad input surfaces here, as a proper 4xx, before any byte
        except (InvalidRequestError, UnknownModelError, EngineDeadError) as exc:
            await call.close()
            raise engine_error(exc) from None
        except BaseException:
            await call.close()
            raise
        if first is None:  # the client left while the request was queued or in prefill: nothing more is computed
            await self._abandon_stream(prepared, call)
            return Response(status_code=CLIENT_CLOSED_REQUEST)
        index, output = first
        if output.usage is not None and index == 0 and prepared.meta.choices == prepared.request.n:
            prepared.meta.cached_tokens = output.usage.cached_tokens  # one prompt: its cache hits are known now
        self.stream_holds_slot = True
        events = _StreamEvents(self._events(prepared, call, outputs, first),
                               on_unstarted=lambda: self._abandon_stream(prepared, call))
        self.services.audit.open_stream(self.record.provisional_event())  # the record if we die mid-stream
        return SSEResponse(events, headers=prepared.headers)  # type: ignore[arg-type]

    async def _first_output(self, outputs: Any) -> tuple[int, RequestOutput] | None:
        """The first engine output, read in this task under the call's watch (gateway.openai.call_watch): None when
        the client left first (so a client that gave up is not served a whole prefill); past the deadline, the 504.
        A cut's cancellation reaches the engine stream, which the caller then closes."""
        watch = CallWatch(self.deadline, self.http.receive)
        try:
            first: tuple[int, RequestOutput] = await anext(outputs)
        except asyncio.CancelledError:
            if not watch.stop():
                raise
            if watch.client_gone:
                return None
            raise deadline_error(self.deadline) from None
        finally:
            watch.stop()
        return first

    async def _abandon_stream(self, prepared: Prepared, call: EngineCall) -> None:
        """End a stream that never sent an event: abort its engine work, settle, and record how it ended."""
        await run_shielded(call.close())
        await run_shielded(self._settle(prepared))
        await run_shielded(self._audit(*self._cut_short()))
        if self.slot is not None:
            self.slot.release()

    async def _events(self, prepared: Prepared, call: EngineCall, outputs: Any, first: tuple[int, RequestOutput]):
        encoder: StreamEncoder = self.surface.encoder(prepared.meta)
        states = [responses.ChoiceState() for _ in prepared.engine_requests]
        self._track_usage(prepared, states)
        # Under the tool-call grammar a choice's text is held back while it may be a call (see structured.py).
        holds = [structured.ToolCallHold() if prepared.calls_tools else None for _ in states]
        error_type: str | None
        status, error_type = CLIENT_CLOSED_REQUEST, "client_closed"  # unless the stream completes
        want_logprobs = prepared.meta.want_logprobs
        # The events of one engine output leave as one write (one TLS record, one syscall); the stream's opening
        # events go with the first output's (or ahead of an error), so its first token is in the first bytes the
        # client receives.
        opening = list(encoder.start())
        deadline = StreamDeadline(self.deadline)  # over every wait for the engine's next output
        try:
            pending: tuple[int, RequestOutput] | None = first
            while True:
                if pending is not None:
                    (index, output), pending = pending, None
                else:
                    try:
                        index, output = await deadline.wait(anext(outputs))
                    except StopAsyncIteration:
                        break
                    except TimeoutError:
                        raise deadline_error(self.deadline) from None  # ends the stream with an error event
                state = states[index]
                released = await self._absorb(prepared, call, state, index, output)
                events = list(opening)
                hold = holds[index]
                if hold is not None:
                    released = hold.feed(released)
                    if output.finished:
                        tail, calls = hold.finish()
                        released += tail
                        if calls:
                            events += encoder.tool_calls(index, calls)
                            if state.finish_reason == "stop":
                                state.finish_reason = "tool_calls"
                logprobs = output.logprobs if want_logprobs else None
                if released or logprobs:
                    events += encoder.text(index, released, logprobs)
                if output.finished:
                    events += encoder.finish(index, state.finish_reason or "stop", state.stop_reason)
                if events:
                    opening = []
                    yield b"".join(events)
            closing = [*opening, *encoder.usage(self._usage(prepared, states))]  # opening: no output came
            opening = []
            if closing:
                yield b"".join(closing)
            status, error_type = 200, None
            self._finish_record(prepared, states)
            await self._settle(prepared)
            await self._persist(CallResult(meta=prepared.meta, choices=states, usage=self._usage(prepared, states)))
            await self._audit(200)  # durable before the stream's end: a client that saw it has an audit record
            for event in encoder.done():
                yield event
        except APIError as exc:
            status, error_type = exc.status, exc.type
            if exc.decision is not None:
                self.record.decisions.append(exc.decision)
            for event in [*opening, *encoder.error(exc)]:
                yield event
        except (InvalidRequestError, UnknownModelError, EngineDeadError) as exc:
            api_error = engine_error(exc)
            status, error_type = api_error.status, api_error.type
            for event in [*opening, *encoder.error(api_error)]:
                yield event
        except AuditUnavailableError:
            # Both stores failed during the stream: no end of stream (the writer holds the record and retries it).
            for event in [*opening, *encoder.error(audit_unavailable())]:
                yield event
        finally:
            deadline.close()
            await call.close()
            if not self.record.recorded:
                self._usage(prepared, states)
                self._finish_record(prepared, states)
                if status == CLIENT_CLOSED_REQUEST:
                    status, error_type = self._cut_short()
                await run_shielded(self._settle(prepared))
                await run_shielded(self._audit(status, error_type))
            if self.slot is not None:
                self.slot.release()


class _StreamEvents:
    """A stream's events whose cleanup always runs: an async generator closed before its first step skips its own
    ``finally`` (where the engine call is aborted and the call audited), which happens when the client leaves
    just as the response starts; closing one that never started runs ``on_unstarted`` instead."""

    def __init__(self, events: AsyncGenerator[bytes, None],
                 on_unstarted: Callable[[], Coroutine[Any, Any, None]]) -> None:
        self._events = events
        self._on_unstarted = on_unstarted
        self._started = False

    def __aiter__(self) -> _StreamEvents:
        return self

    async def __anext__(self) -> bytes:
        self._started = True
        return await self._events.__anext__()

    async def aclose(self) -> None:
        await self._events.aclose()
        if not self._started:
            await self._on_unstarted()


class ModelsHandler(CallHandler):
    """GET /v1/models: the served model, if this key's policy allows it. Audited like every /v1 call."""

    async def _run(self) -> Response:
        await self._authenticate()
        assert self.record.tenant_id is not None and self.record.key_id is not None
        active = await self.services.policies.resolve(self.record.tenant_id)
        view = PolicyView.for_key(active.policy, self.record.key_id)
        self.record.policy_version = active.version
        engine = self.services.engine
        if engine is None:
            raise engine_unavailable()
        served = [engine.model_name] if view.allows_model(engine.model_name) else []
        body = {"object": "list",
                "data": [{"id": name, "object": "model", "created": 0, "owned_by": "warden"} for name in served]}
        await self._audit(200)
        return JSONResponse(body)


async def handle_call(services: GatewayServices, request: Request, surface: Surface) -> Response:
    """Serve one call on ``surface``; a refusal leaves in the surface's error shape (audited by ``run``)."""
    try:
        return await CallHandler(services, request, surface).run()
    except APIError as exc:
        return surface.error_response(exc)
    except AuditUnavailableError:
        return surface.error_response(audit_unavailable())  # fail closed: no response without its record
    except Exception as exc:  # audited by ``run``; answered here so it leaves in the surface's shape (Anthropic's too)
        return surface.error_response(
            unexpected_error(exc, request, store_retry_after_s=services.settings.store_retry_after_s))


async def handle_models(services: GatewayServices, request: Request) -> Response:
    return await ModelsHandler(services, request, MODELS).run()
