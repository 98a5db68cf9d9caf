"""The Anthropic Messages surface without a server: the request translation and its 400s, the response body, the
error shape and the SSE events. The events and bodies are read back by the official ``anthropic`` client (its
stream accumulator and exception mapping), served from the bytes this surface produces."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import anthropic
import httpx2
import pytest
from starlette.requests import Request

from engine.tool_calls import ToolCall
from gateway.anthropic.errors import error_body, error_response, error_type
from gateway.anthropic.message import message_body, stop_reason, usage_body
from gateway.anthropic.stream import MessageStreamEncoder
from gateway.anthropic.surface import MessagesSurface
from gateway.anthropic.translate import TOOL_ERROR_PREFIX, to_chat_request
from gateway.core.errors import APIError, authentication_failed, invalid_request, rate_limited
from gateway.openai.responses import ChoiceState
from gateway.openai.surface import CallMeta, CallResult

BASE: dict[str, Any] = {"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": "hi"}]}
WEATHER_TOOL = {"name": "get_weather", "description": "Weather in a city",
                "input_schema": {"type": "object", "properties": {"city": {"type": "string"}},
                                 "required": ["city"]}}


def refused(body: dict[str, Any]) -> APIError:
    with pytest.raises(APIError) as caught:
        to_chat_request(body)
    assert caught.value.status == 400 and caught.value.type == "invalid_request_error"
    return caught.value


# -- translation ---------------------------------------------------------------------------------------------------
def test_a_plain_request_becomes_the_same_chat_request() -> None:
    chat = to_chat_request({**BASE, "system": [{"type": "text", "text": "Be brief.",
                                                "cache_control": {"type": "ephemeral"}}],
                            "stop_sequences": ["\n\n", "END"], "temperature": 0, "top_p": 0.9, "top_k": 5,
                            "metadata": {"user_id": "user-7"}, "service_tier": "auto",
                            "cache_control": {"type": "ephemeral", "ttl": "1h"}, "thinking": {"type": "disabled"},
                            "speed": "standard"})
    assert [(m.role, m.text()) for m in chat.messages] == [("system", "Be brief."), ("user", "hi")]
    assert chat.max_tokens == 8 and chat.stop_list() == ["\n\n", "END"]
    assert (chat.temperature, chat.top_p, chat.top_k, chat.user) == (0.0, 0.9, 5, "user-7")
    assert not chat.stream and chat.tools is None and chat.n == 1


def test_streaming_always_asks_for_usage() -> None:
    chat = to_chat_request({**BASE, "stream": True})
    assert chat.stream and chat.include_usage


def test_tool_use_and_tool_result_become_tool_calls_and_tool_messages() -> None:
    chat = to_chat_request({**BASE, "tools": [WEATHER_TOOL], "tool_choice": {"type": "auto"}, "messages": [
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "content": [{"type": "text", "text": "Let me look."},
                                          {"type": "tool_use", "id": "toolu_1", "name": "get_weather",
                                           "input": {"city": "Paris"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1",
                                      "content": [{"type": "text", "text": "18C, sunny"}]},
                                     {"type": "text", "text": "And so?"}]},
    ]})
    _user, assistant, tool, follow_up = chat.messages
    assert assistant.role == "assistant" and assistant.text() == "Let me look."
    (call,) = assistant.tool_calls or []
    assert (call.id, call.function.name, json.loads(call.function.arguments)) == ("toolu_1", "get_weather",
                                                                                  {"city": "Paris"})
    assert (tool.role, tool.tool_call_id, tool.text()) == ("tool", "toolu_1", "18C, sunny")
    assert (follow_up.role, follow_up.text()) == ("user", "And so?")
    (function_tool,) = chat.tools or []
    assert function_tool.function.name == "get_weather"
    assert function_tool.function.parameters == WEATHER_TOOL["input_schema"]
    assert chat.tool_choice == "auto" and chat.calls_tools


def test_a_failed_tool_result_tells_the_model_it_failed() -> None:
    chat = to_chat_request({**BASE, "messages": [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "timeout",
                                      "is_error": True}]}]})
    assert chat.messages[-1].text() == TOOL_ERROR_PREFIX + "timeout"
    assert chat.messages[1].content is None  # an assistant turn of only calls has no text


@pytest.mark.parametrize(("choice", "expected"), [
    ({"type": "auto"}, "auto"), ({"type": "any"}, "required"), ({"type": "none"}, "none"),
    ({"type": "tool", "name": "get_weather"}, {"type": "function", "function": {"name": "get_weather"}}),
])
def test_tool_choice(choice: dict[str, Any], expected: Any) -> None:
    chat = to_chat_request({**BASE, "tools": [WEATHER_TOOL], "tool_choice": choice})
    got = chat.tool_choice if isinstance(chat.tool_choice, str) else chat.tool_choice.model_dump()  # type: ignore[union-attr]
    assert got == expected
    assert chat.parallel_tool_calls is None


def test_disable_parallel_tool_use() -> None:
    chat = to_chat_request({**BASE, "tools": [WEATHER_TOOL],
                            "tool_choice": {"type": "any", "disable_parallel_tool_use": True}})
    assert chat.parallel_tool_calls is False


def test_output_config_format_is_a_json_schema_response_format() -> None:
    schema = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
    chat = to_chat_request({**BASE, "output_config": {"format": {"type": "json_schema", "schema": schema}}})
    assert chat.response_format is not None and chat.response_format.type == "json_schema"
    assert chat.response_format.json_schema.schema_ == schema  # type: ignore[union-attr]


# -- refusals: every one names its parameter --------------------------------------------------------------------------
@pytest.mark.parametrize(("change", "param"), [
    ({"max_tokens": None}, "max_tokens"),
    ({"max_tokens": "8"}, "max_tokens"),
    ({"max_tokens": 0}, "max_tokens"),
    ({"model": ""}, "model"),
    ({"messages": []}, "messages"),
    ({"temperature": 1.5}, "temperature"),
    ({"temperature": True}, "temperature"),
    ({"top_p": 0}, "top_p"),
    ({"top_k": -1}, "top_k"),
    ({"stop_sequences": [""]}, "stop_sequences.0"),
    ({"stop_sequences": ["x"] * 5}, "stop_sequences"),
    ({"stop_sequences": ["x" * 257]}, "stop_sequences.0"),
    ({"metadata": {"user_id": "u" * 257}}, "metadata.user_id"),
    ({"stream": "yes"}, "stream"),
    ({"thinking": {"type": "enabled", "budget_tokens": 2048}}, "thinking"),
    ({"thinking": {"type": "adaptive"}}, "thinking"),
    ({"container": "c1"}, "container"),
    ({"mcp_servers": [{"type": "url", "url": "https://x", "name": "x"}]}, "mcp_servers"),
    ({"service_tier": "standard_only"}, "service_tier"),
    ({"speed": "fast"}, "speed"),
    ({"output_config": {"effort": "high"}}, "output_config.effort"),
    ({"metadata": {"user_id": "u", "tier": "gold"}}, "metadata.tier"),
    ({"cache_salt": "x"}, "cache_salt"),
    ({"tools": [{"type": "web_search_20250305", "name": "web_search"}]}, "tools.0.type"),
    ({"tools": [{"type": "bash_20250124", "name": "bash"}]}, "tools.0.type"),
    ({"tools": [{"name": "f", "input_schema": {"type": "string"}}]}, "tools.0"),
    ({"tools": [{"name": "bad name", "input_schema": {"type": "object"}}]}, "tools.0.name"),
    ({"tools": [WEATHER_TOOL, WEATHER_TOOL]}, "tools"),
    ({"tool_choice": {"type": "auto"}}, "tool_choice"),
    ({"tools": [WEATHER_TOOL], "tool_choice": {"type": "tool", "name": "other"}}, "tool_choice.name"),
    ({"tools": [WEATHER_TOOL], "tool_choice": {"type": "tool"}}, "tool_choice.name"),
    ({"tools": [WEATHER_TOOL], "tool_choice": {"type": "sometimes"}}, "tool_choice"),
    ({"tools": [WEATHER_TOOL], "output_config": {"format": {"type": "json_schema", "schema": {}}}},
     "output_config.format"),
    ({"system": [{"type": "image", "source": {}}]}, "system.0"),
    ({"system": [{"type": "text"}]}, "system.0.text"),
])
def test_refusals_name_the_parameter(change: dict[str, Any], param: str) -> None:
    body = {key: value for key, value in {**BASE, **change}.items() if value is not None}
    assert refused(body).param == param


@pytest.mark.parametrize(("messages", "param"), [
    ([{"role": "user", "content": [{"type": "image", "source": {"type": "base64", "data": "x"}}]}],
     "messages.0.content.0"),
    ([{"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "document", "source": {}}]}],
     "messages.0.content.1"),
    ([{"role": "user", "content": "q"},
      {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": {}}]},
      {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1",
                                    "content": [{"type": "image", "source": {}}]}]}],
     "messages.2.content.0.content.0"),
    ([{"role": "user", "content": "q"},
      {"role": "assistant", "content": [{"type": "thinking", "thinking": "hm", "signature": "s"}]},
      {"role": "user", "content": "go on"}], "messages.1.content.0"),
    ([{"role": "user", "content": [{"type": "text"}]}], "messages.0.content.0.text"),
    ([{"role": "user", "content": [{"type": "text", "text": 1}]}], "messages.0.content.0.text"),
    ([{"role": "user", "content": [{"type": "bogus"}]}], "messages.0.content.0"),
    ([{"role": "user", "content": 5}], "messages.0.content"),
    ([{"role": "system", "content": "x"}], "messages.0.role"),
    ([{"role": "user", "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": {}}]}], "messages.0"),
    ([{"role": "user", "content": "q"},
      {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": []}]},
      {"role": "user", "content": "x"}], "messages.1.content.0.input"),
    ([{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "nobody", "content": "x"}]}],
     "messages.0.content.0.tool_use_id"),
    ([{"role": "user", "content": "q"}, {"role": "assistant", "content": "The answer is"}], "messages.1"),
])
def test_message_refusals_name_the_block(messages: list[dict[str, Any]], param: str) -> None:
    assert refused({**BASE, "messages": messages}).param == param


# -- response body ---------------------------------------------------------------------------------------------------
USAGE = {"prompt_tokens": 30, "completion_tokens": 5, "total_tokens": 35,
         "prompt_tokens_details": {"cached_tokens": 16}}


def test_usage_counts_cached_tokens_apart_from_input_tokens() -> None:
    assert usage_body(USAGE) == {"input_tokens": 14, "output_tokens": 5, "cache_read_input_tokens": 16,
                                 "cache_creation_input_tokens": 0, "service_tier": "standard"}


@pytest.mark.parametrize(("finish", "stop", "expected"), [
    ("stop", None, "end_turn"), ("stop", "END", "stop_sequence"), ("length", None, "max_tokens"),
    ("tool_calls", None, "tool_use"), ("content_filter", None, "refusal"), (None, None, None),
])
def test_stop_reasons(finish: str | None, stop: str | None, expected: str | None) -> None:
    assert stop_reason(finish, stop) == expected


def test_message_body_reads_back_as_the_clients_message() -> None:
    body = message_body(msg_id="msg_1", model="m", text="", tool_calls=[ToolCall("get_weather", '{"city": "Paris"}')],
                        finish_reason="tool_calls", stop_sequence=None, usage=USAGE)
    message = anthropic.types.Message.model_validate(body)
    (block,) = message.content
    assert block.type == "tool_use" and block.name == "get_weather" and block.input == {"city": "Paris"}
    assert block.id.startswith("toolu_") and message.stop_reason == "tool_use" and message.stop_sequence is None
    assert message.usage.input_tokens == 14 and message.usage.cache_read_input_tokens == 16

    text = anthropic.types.Message.model_validate(message_body(
        msg_id="msg_2", model="m", text="Hi", tool_calls=None, finish_reason="stop", stop_sequence="END", usage=USAGE))
    assert [b.type for b in text.content] == ["text"] and text.content[0].text == "Hi"  # type: ignore[union-attr]
    assert (text.stop_reason, text.stop_sequence) == ("stop_sequence", "END")


# -- errors ----------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("status", "expected"), [
    (400, "invalid_request_error"), (401, "authentication_error"), (403, "permission_error"),
    (404, "not_found_error"), (413, "request_too_large"), (429, "rate_limit_error"), (500, "api_error"),
    (503, "overloaded_error"), (504, "timeout_error"), (418, "invalid_request_error"), (502, "api_error"),
])
def test_error_types_by_status(status: int, expected: str) -> None:
    assert error_type(status) == expected


def test_error_body_and_headers() -> None:
    error = rate_limited("slow down", retry_after_s=2.0, headers={"x-ratelimit-limit-requests": "1"})
    response = error_response(error, "req_1")
    assert response.status_code == 429
    assert response.headers["retry-after"] == error.headers["retry-after"]
    assert response.headers["x-ratelimit-limit-requests"] == "1"
    assert json.loads(response.body) == {"type": "error", "request_id": "req_1",
                                         "error": {"type": "rate_limit_error", "message": "slow down"}}
    assert error_body(invalid_request("bad", param="x")) == {"type": "error", "error": {
        "type": "invalid_request_error", "message": "bad"}}


def _client(handler: Callable[[httpx2.Request], httpx2.Response]) -> anthropic.Anthropic:
    return anthropic.Anthropic(base_url="http://warden.test", api_key="wdn_x", max_retries=0,
                               http_client=httpx2.Client(transport=httpx2.MockTransport(handler)))


@pytest.mark.parametrize(("error", "exception"), [
    (invalid_request("bad", param="x"), anthropic.BadRequestError),
    (authentication_failed("no"), anthropic.AuthenticationError),
    (rate_limited("slow"), anthropic.RateLimitError),
    (APIError(403, "no", type="permission_error"), anthropic.PermissionDeniedError),
    (APIError(404, "no", type="invalid_request_error"), anthropic.NotFoundError),
])
def test_the_official_client_raises_its_exception_with_our_message(error: APIError,
                                                                   exception: type[Exception]) -> None:
    response = error_response(error)
    client = _client(lambda _req: httpx2.Response(response.status_code, content=response.body,
                                                 headers={"content-type": "application/json"}))
    with pytest.raises(exception) as caught:
        client.messages.create(model="m", max_tokens=4, messages=[{"role": "user", "content": "hi"}])
    assert caught.value.body["error"]["message"] == error.message  # type: ignore[attr-defined,index]


# -- stream ----------------------------------------------------------------------------------------------------------
def _events(raw: bytes) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for frame in raw.decode().strip().split("\n\n"):
        event_line, data_line = frame.split("\n")
        name, data = event_line.removeprefix("event: "), json.loads(data_line.removeprefix("data: "))
        assert data["type"] == name  # Anthropic repeats the event's name in its data
        out.append((name, data))
    return out


def _text_stream() -> bytes:
    encoder = MessageStreamEncoder(msg_id="msg_1", model="m")
    events = encoder.start() + encoder.text(0, "", None) + encoder.text(0, "Hel", None) + encoder.text(0, "lo", None)
    events += encoder.finish(0, "stop", "END") + encoder.usage(USAGE) + encoder.done()
    return b"".join(events)


def test_text_stream_event_sequence() -> None:
    events = _events(_text_stream())
    assert [name for name, _ in events] == ["message_start", "content_block_start", "ping", "content_block_delta",
                                            "content_block_delta", "content_block_stop", "message_delta",
                                            "message_stop"]
    assert events[1][1]["content_block"] == {"type": "text", "text": ""}
    assert events[3][1]["delta"] == {"type": "text_delta", "text": "Hel"}
    assert events[6][1]["delta"] == {"stop_reason": "stop_sequence", "stop_sequence": "END"}
    assert events[6][1]["usage"]["output_tokens"] == 5


def _serve_sse(raw: bytes) -> anthropic.Anthropic:
    return _client(lambda _req: httpx2.Response(200, content=raw, headers={"content-type": "text/event-stream"}))


def test_the_official_client_accumulates_a_text_stream() -> None:
    client = _serve_sse(_text_stream())
    with client.messages.stream(model="m", max_tokens=4, messages=[{"role": "user", "content": "hi"}]) as stream:
        assert "".join(stream.text_stream) == "Hello"
        message = stream.get_final_message()
    assert message.id == "msg_1" and message.content[0].text == "Hello"  # type: ignore[union-attr]
    assert (message.stop_reason, message.stop_sequence) == ("stop_sequence", "END")
    assert (message.usage.input_tokens, message.usage.output_tokens) == (14, 5)
    assert message.usage.cache_read_input_tokens == 16


def test_the_official_client_accumulates_tool_use_blocks() -> None:
    encoder = MessageStreamEncoder(msg_id="msg_2", model="m")
    calls = [ToolCall("get_weather", '{"city": "Paris"}'), ToolCall("get_weather", '{"city": "Rome"}')]
    raw = b"".join(encoder.start() + encoder.tool_calls(0, calls) + encoder.finish(0, "tool_calls")
                   + encoder.usage(USAGE) + encoder.done())
    names = [name for name, _ in _events(raw)]
    assert names.count("content_block_start") == 2 and names.count("content_block_stop") == 2
    with _serve_sse(raw).messages.stream(model="m", max_tokens=4,
                                         messages=[{"role": "user", "content": "hi"}]) as stream:
        message = stream.get_final_message()
    assert [(b.type, b.input) for b in message.content] == [("tool_use", {"city": "Paris"}),  # type: ignore[union-attr]
                                                           ("tool_use", {"city": "Rome"})]
    assert message.stop_reason == "tool_use" and message.content[0].id != message.content[1].id  # type: ignore[union-attr]


def test_an_error_mid_stream_is_an_error_event_the_client_raises() -> None:
    encoder = MessageStreamEncoder(msg_id="msg_3", model="m", request_id="req_9")
    raw = b"".join(encoder.start() + encoder.text(0, "Hi", None)
                   + encoder.error(APIError(503, "engine gone", type="service_unavailable_error")))
    assert encoder.done() == []  # nothing follows an error
    name, data = _events(raw)[-1]
    assert name == "error" and data["error"] == {"type": "overloaded_error", "message": "engine gone"}
    client = _serve_sse(raw)
    with pytest.raises(anthropic.APIStatusError, match="engine gone"), client.messages.stream(
            model="m", max_tokens=4, messages=[{"role": "user", "content": "hi"}]) as stream:
        stream.get_final_message()


# -- the surface -----------------------------------------------------------------------------------------------------
def _http_request(headers: dict[str, str]) -> Request:
    return Request({"type": "http", "method": "POST", "path": "/v1/messages", "query_string": b"",
                    "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()]})


@pytest.mark.parametrize(("headers", "expected"), [
    ({"x-api-key": "wdn_a"}, "Bearer wdn_a"),
    ({"Authorization": "Bearer wdn_b"}, "Bearer wdn_b"),
    ({"x-api-key": "wdn_a", "Authorization": "Bearer wdn_b"}, "Bearer wdn_a"),  # x-api-key is the one checked
    ({}, None),
])
def test_credentials(headers: dict[str, str], expected: str | None) -> None:
    assert MessagesSurface().credentials(_http_request(headers)) == expected


@pytest.mark.parametrize(("version", "served"), [
    (None, True), ("2023-06-01", True), ("2026-10-21", True), ("2023-01-01", False), ("latest", False),
    ("2023-6-1", False),
])
def test_anthropic_version(version: str | None, served: bool) -> None:
    surface = MessagesSurface(version=version)
    if served:
        assert surface.parse(BASE).max_tokens == 8
    else:
        with pytest.raises(APIError) as caught:
            surface.parse(BASE)
        assert caught.value.status == 400 and caught.value.param == "anthropic-version"


def test_render_keeps_the_call_ids_the_audit_holds() -> None:
    request = to_chat_request({**BASE, "tools": [WEATHER_TOOL]})
    meta = CallMeta(response_id="msg_abc", created=0, model="m", request=request, choices=1, prefixes=[""],
                    want_logprobs=False)
    calls = [{"id": "call_123", "type": "function",
              "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}]
    choice = ChoiceState(text='<tool_call>[{"name": "get_weather"}]</tool_call>', finish_reason="tool_calls",
                         tool_calls=calls)
    message = anthropic.types.Message.model_validate(
        MessagesSurface().render(CallResult(meta=meta, choices=[choice], usage=USAGE)))
    (block,) = message.content  # the call's raw text is not repeated as a text block
    assert block.type == "tool_use" and block.id == "toolu_123" and block.input == {"city": "Paris"}
    assert message.id == "msg_abc" and message.stop_reason == "tool_use"


def _meta(request: Any, **fields: Any) -> CallMeta:
    return CallMeta(response_id="msg_abc", created=0, model="m", request=request, choices=1, prefixes=[""],
                    want_logprobs=False, **fields)


@pytest.mark.parametrize(("finish", "engine_stop", "expected"), [
    ("stop", "END", ("stop_sequence", "END")),
    ("stop", None, ("end_turn", None)),  # EOS
    ("stop", 7, ("end_turn", None)),  # a stop token id is no stop sequence (Anthropic's requests name strings)
    ("length", None, ("max_tokens", None)),
    ("content_filter", "END", ("refusal", None)),
])
def test_the_engines_stop_reason_is_the_messages_stop_sequence(finish: str, engine_stop: str | int | None,
                                                               expected: tuple[str, str | None]) -> None:
    meta = _meta(to_chat_request({**BASE, "stop_sequences": ["END"]}))
    choice = ChoiceState(text="Hi", finish_reason=finish, stop_reason=engine_stop)
    message = anthropic.types.Message.model_validate(
        MessagesSurface().render(CallResult(meta=meta, choices=[choice], usage=USAGE)))
    assert (message.stop_reason, message.stop_sequence) == expected
    encoder = MessagesSurface().encoder(meta)
    raw = b"".join(encoder.start() + encoder.text(0, "Hi", None) + encoder.finish(0, finish, engine_stop)
                   + encoder.usage(USAGE) + encoder.done())
    delta = _events(raw)[-2][1]["delta"]
    assert (delta["stop_reason"], delta["stop_sequence"]) == expected


def test_message_start_carries_the_prompt_tokens() -> None:
    meta = _meta(to_chat_request({**BASE, "stream": True}), prompt_tokens=30, cached_tokens=16)
    raw = b"".join(MessagesSurface().encoder(meta).start())
    (name, data), = _events(raw)
    assert name == "message_start"
    usage = data["message"]["usage"]
    assert (usage["input_tokens"], usage["cache_read_input_tokens"]) == (14, 16)  # Anthropic's: uncached + cached
