"""The Responses API surface's pieces without a server: request validation and refusals, the translation to the
internal chat request, the response object and the streamed events (read back through the official `openai`
client's own types and stream accumulator), and retention of stored responses on the real database."""

from __future__ import annotations

from datetime import timedelta

import orjson
import pytest
from gateway_support import new_tenant_with_key, tenant_with_retention
from openai import omit
from openai.lib.streaming.responses._responses import ResponseStreamState
from openai.types.responses import Response, ResponseItemList, ResponseStreamEvent
from pydantic import TypeAdapter
from sqlalchemy import select

from engine.tool_calls import ToolCall
from gateway.core.clock import utcnow
from gateway.core.db import Database
from gateway.core.errors import APIError
from gateway.core.settings import Settings
from gateway.openai.responses import ChoiceState, usage_body
from gateway.openai.surface import CallMeta
from gateway.responses_api.input_items import input_messages, items_of, page, parse_query
from gateway.responses_api.models import StoredResponse
from gateway.responses_api.render import ResponseShape, output_items, output_messages
from gateway.responses_api.retention import purge_expired_responses
from gateway.responses_api.schemas import parse_request
from gateway.responses_api.stream import ResponsesStreamEncoder
from gateway.responses_api.surface import in_responses_terms
from gateway.responses_api.translate import chat_request

WEATHER = {"type": "function", "name": "get_weather", "description": "Current weather in a city.",
           "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}


def _refused(body: dict) -> APIError:  # type: ignore[type-arg]
    with pytest.raises(APIError) as caught:
        request = parse_request({"model": "m", "input": "hi", **body})
        chat_request(request, [])
    assert caught.value.status == 400 and caught.value.type == "invalid_request_error"
    return caught.value


@pytest.mark.parametrize(("body", "param"), [
    ({"tools": [{"type": "web_search"}]}, "tools[0].type"),
    ({"tools": [WEATHER, {"type": "file_search", "vector_store_ids": ["vs_1"]}]}, "tools[1].type"),
    ({"tools": [{"type": "computer_use_preview"}]}, "tools[0].type"),
    ({"tool_choice": {"type": "web_search_preview"}}, "tool_choice.type"),
    ({"background": True}, "background"),
    ({"reasoning": {"effort": "low"}}, "reasoning"),
    ({"truncation": "auto"}, "truncation"),
    ({"include": ["reasoning.encrypted_content"]}, "include"),
    ({"stream": "yes"}, "stream"),
    ({"store": 1}, "store"),
    ({"max_output_tokens": "8"}, "max_output_tokens"),
    ({"temperature": True}, "temperature"),
    ({"prompt": {"id": "pmpt_1"}}, "prompt"),
    ({"conversation": "conv_1"}, "conversation"),
    ({"input": [{"type": "reasoning", "summary": []}]}, "input[0].type"),
    ({"input": [{"type": "item_reference", "id": "msg_1"}]}, "input[0].type"),
    ({"input": [{"role": "user", "content": [{"type": "input_image", "image_url": "https://x/y.png"}]}]},
     "input[0].content[0].type"),
    ({"input": [{"role": "user", "content": "hi"}, {"type": "function_call", "call_id": "c", "name": "f"}]},
     "input[1].arguments"),
    ({"input": [{"role": "user", "content": [{"type": "output_text", "text": "x"}]}]}, "input[0].content"),
    ({"input": 3}, "input"),
    ({"input": [{"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}", "async": True}]},
     "input[0].async"),
    ({"text": {"format": {"type": "json_schema", "name": "x"}}}, "text.format.schema"),
    ({"text": {"verbosity": "low"}}, "text.verbosity"),
])
def test_unsupported_or_malformed_requests_are_400s_naming_the_param(body: dict, param: str) -> None:  # type: ignore[type-arg]
    assert _refused(body).param == param


def test_input_items_become_the_internal_chat_request() -> None:
    request = parse_request({
        "model": "m", "instructions": "Be brief.", "max_output_tokens": 8, "temperature": 0, "top_p": 0.5,
        "tools": [WEATHER], "tool_choice": {"type": "function", "name": "get_weather"}, "parallel_tool_calls": False,
        "input": [
            {"role": "developer", "content": "Use tools."},
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Weather in "},
                                                            {"type": "input_text", "text": "Paris?"}]},
            {"type": "function_call", "call_id": "call_1", "name": "get_weather", "arguments": '{"city":"Paris"}',
             "id": "fc_1", "status": "completed"},
            {"type": "function_call", "call_id": "call_2", "name": "get_weather", "arguments": '{"city":"Rome"}',
             "async": None, "caller": None, "namespace": None},
            {"type": "function_call_output", "call_id": "call_1", "output": "sunny"},
            {"type": "message", "role": "assistant", "id": "msg_1", "status": "completed",
             "content": [{"type": "output_text", "text": "It is sunny.", "annotations": []}]},
        ]})
    replayed = [{"role": "user", "content": "earlier"}, {"role": "assistant", "content": "answer"}]
    chat, new = chat_request(request, replayed)
    roles = [(m.role, m.text()) for m in chat.messages]
    assert roles == [("system", "Be brief."), ("user", "earlier"), ("assistant", "answer"),
                     ("developer", "Use tools."), ("user", "Weather in Paris?"), ("assistant", ""),
                     ("tool", "sunny"), ("assistant", "It is sunny.")]
    calls = chat.messages[5].tool_calls or []
    assert [(c.id, c.function.name) for c in calls] == [("call_1", "get_weather"), ("call_2", "get_weather")]
    assert chat.messages[6].tool_call_id == "call_1"
    assert chat.max_completion_tokens == 8 and chat.temperature == 0 and chat.top_p == 0.5
    assert chat.tools and chat.tools[0].function.name == "get_weather" and chat.parallel_tool_calls is False
    assert chat.tool_choice is not None and chat.tool_choice.function.name == "get_weather"  # type: ignore[union-attr]
    assert len(new) == 5 and new[0] == {"role": "developer", "content": "Use tools."}


def test_text_format_json_schema_is_chat_response_format() -> None:
    schema = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
    request = parse_request({"model": "m", "input": "x",
                             "text": {"format": {"type": "json_schema", "name": "answer", "schema": schema,
                                                 "strict": True}}})
    chat, _ = chat_request(request, [])
    assert chat.response_format is not None
    assert chat.response_format.model_dump(by_alias=True, exclude_none=True) == {
        "type": "json_schema", "json_schema": {"name": "answer", "schema": schema, "strict": True}}


def test_chat_params_in_errors_are_named_as_the_responses_api_names_them() -> None:
    error = in_responses_terms(APIError(400, "too many", type="invalid_request_error", param="max_tokens"))
    assert error.param == "max_output_tokens"
    assert in_responses_terms(APIError(400, "x", type="t", param="response_format")).param == "text.format"
    assert in_responses_terms(APIError(400, "x", type="t", param="messages[3].content")).param == "input"
    assert in_responses_terms(APIError(400, "x", type="t", param="tools")).param == "tools"


def _shape(**body) -> ResponseShape:  # type: ignore[no-untyped-def]
    request = parse_request({"model": "m", "input": "hi", **body})
    return ResponseShape(request, response_id="resp_1", created=1, model="m")


def test_the_response_object_reads_back_through_the_official_client_types() -> None:
    text = ChoiceState(text="Hello", finish_reason="length")
    body = _shape(max_output_tokens=4).finished(output_items(text), "length", usage_body(5, 4, 2))
    response = Response.model_validate(body)
    assert response.output_text == "Hello" and response.status == "incomplete"
    assert response.incomplete_details is not None and response.incomplete_details.reason == "max_output_tokens"
    assert response.usage is not None and response.usage.input_tokens_details.cached_tokens == 2
    assert response.usage.total_tokens == 9

    called = ChoiceState(finish_reason="tool_calls", tool_calls=[
        {"id": "call_9", "type": "function", "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'}}])
    body = _shape(tools=[WEATHER]).finished(output_items(called), "tool_calls", usage_body(5, 9, 0))
    response = Response.model_validate(body)
    [item] = response.output
    assert response.status == "completed" and item.type == "function_call" and item.call_id == "call_9"
    assert output_messages(body["output"]) == [{"role": "assistant", "content": "", "tool_calls": [
        {"id": "call_9", "type": "function", "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'}}]}]


def _events(chunks: list[bytes]) -> list[dict]:  # type: ignore[type-arg]
    events = []
    for chunk in chunks:
        kind, data = chunk.decode().removesuffix("\n\n").split("\n")
        payload = orjson.loads(data.removeprefix("data: "))
        assert kind == f"event: {payload['type']}"
        events.append(payload)
    return events


def _replay_through_the_client(events: list[dict]) -> ResponseStreamState:  # type: ignore[type-arg]
    adapter: TypeAdapter[ResponseStreamEvent] = TypeAdapter(ResponseStreamEvent)
    state: ResponseStreamState = ResponseStreamState(input_tools=omit, text_format=omit)
    for event in events:
        state.handle_event(adapter.validate_python(event))
    return state


def _meta() -> CallMeta:
    request = chat_request(parse_request({"model": "m", "input": "hi"}), [])[0]
    return CallMeta(response_id="x", created=1, model="m", request=request, choices=1, prefixes=[""],
                    want_logprobs=False)


def test_a_streamed_text_answer_is_the_responses_event_sequence() -> None:
    encoder = ResponsesStreamEncoder(_shape(max_output_tokens=8))
    chunks = encoder.start() + encoder.text(0, "Hel", None) + encoder.text(0, "", None) + encoder.text(0, "lo", None)
    chunks += encoder.finish(0, "stop") + encoder.usage(usage_body(3, 2, 0)) + encoder.done()
    events = _events(chunks)
    assert [e["type"] for e in events] == [
        "response.created", "response.in_progress", "response.output_item.added", "response.content_part.added",
        "response.output_text.delta", "response.output_text.delta", "response.output_text.done",
        "response.content_part.done", "response.output_item.done", "response.completed"]
    assert [e["sequence_number"] for e in events] == list(range(len(events)))
    state = _replay_through_the_client(events)
    final = state._completed_response
    assert final is not None and final.output_text == "Hello" and final.usage is not None
    assert final.usage.output_tokens == 2


def test_a_streamed_tool_call_is_function_call_events() -> None:
    encoder = ResponsesStreamEncoder(_shape(tools=[WEATHER]))
    chunks = encoder.start() + encoder.tool_calls(0, [ToolCall("get_weather", '{"city": "Paris"}')])
    chunks += encoder.finish(0, "tool_calls") + encoder.usage(usage_body(3, 9, 0)) + encoder.done()
    events = _events(chunks)
    assert [e["type"] for e in events] == [
        "response.created", "response.in_progress", "response.output_item.added",
        "response.function_call_arguments.delta", "response.function_call_arguments.done",
        "response.output_item.done", "response.completed"]
    final = _replay_through_the_client(events)._completed_response
    assert final is not None
    [call] = final.output
    assert call.type == "function_call" and call.name == "get_weather" and call.arguments == '{"city": "Paris"}'
    assert call.call_id.startswith("call_")


def test_a_cut_output_ends_incomplete_and_an_error_is_an_error_event() -> None:
    encoder = ResponsesStreamEncoder(_shape(max_output_tokens=1))
    events = _events(encoder.start() + encoder.text(0, "A", None) + encoder.finish(0, "length")
                     + encoder.usage(usage_body(3, 1, 0)) + encoder.done())
    assert events[-1]["type"] == "response.incomplete"
    assert events[-1]["response"]["incomplete_details"] == {"reason": "max_output_tokens"}
    error, failed = _events(ResponsesStreamEncoder(_shape()).error(
        APIError(400, "too long", type="invalid_request_error", param="max_tokens", code="max_tokens_exceeds_cap")))
    assert error == {"type": "error", "sequence_number": 0, "code": "max_tokens_exceeds_cap",
                     "message": "too long", "param": "max_output_tokens"}
    assert failed["type"] == "response.failed" and failed["sequence_number"] == 1


def test_a_stream_failing_midway_ends_with_response_failed() -> None:
    encoder = ResponsesStreamEncoder(_shape(max_output_tokens=8))
    chunks = encoder.start() + encoder.text(0, "Hel", None)
    chunks += encoder.error(APIError(500, "The engine failed on this request: boom", type="server_error",
                                     code="engine_error"))
    events = _events(chunks)
    assert [e["type"] for e in events][-3:] == ["response.output_text.delta", "error", "response.failed"]
    assert events[-2]["code"] == "engine_error" and events[-2]["param"] is None
    failed = events[-1]["response"]
    assert failed["status"] == "failed" and failed["usage"] is None
    # The response's error code is one OpenAI's response object allows; the error event has Warden's own.
    assert failed["error"] == {"code": "server_error", "message": "The engine failed on this request: boom"}
    (item,) = failed["output"]  # the message cut short, with the text that was sent
    assert item["status"] == "incomplete" and item["content"][0]["text"] == "Hel"
    assert item["id"] == events[2]["item"]["id"]
    response = Response.model_validate(failed)  # the official client's type reads it
    assert response.status == "failed" and response.error is not None and response.output_text == "Hel"
    adapter: TypeAdapter[ResponseStreamEvent] = TypeAdapter(ResponseStreamEvent)
    assert [type(adapter.validate_python(e)).__name__ for e in events[-2:]] == ["ResponseErrorEvent",
                                                                                "ResponseFailedEvent"]


def _stored(db: Database, tenant_id: str, response_id: str, *, age_days: float) -> None:
    with db.transaction() as session:
        session.add(StoredResponse(id=response_id, tenant_id=tenant_id, request_id="req_x", model="m",
                                   created_at=utcnow() - timedelta(days=age_days), content_mode="full",
                                   conversation=[], body={"id": response_id}))


def test_retention_deletes_stored_responses_past_the_tenants_retention_unless_on_hold(db: Database,
                                                                                     settings: Settings) -> None:
    tenant = tenant_with_retention(db, 7, prefix="resp")
    held = tenant_with_retention(db, 7, legal_hold=True, prefix="resp-held")
    default, _ = new_tenant_with_key(db, settings)  # no policy: the default retention
    for tenant_id in (tenant, held, default.id):
        _stored(db, tenant_id, f"resp_old_{tenant_id}", age_days=8)
        _stored(db, tenant_id, f"resp_new_{tenant_id}", age_days=6)
    _stored(db, default.id, f"resp_older_{default.id}", age_days=31)
    purged = purge_expired_responses(db, default_days=30)
    assert purged[tenant] == 1 and held not in purged and purged[default.id] == 1
    with db.session() as session:
        left = set(session.scalars(select(StoredResponse.id).where(
            StoredResponse.tenant_id.in_([tenant, held, default.id]))))
    assert left == {f"resp_new_{tenant}", f"resp_old_{held}", f"resp_new_{held}", f"resp_old_{default.id}",
                    f"resp_new_{default.id}"}


# -- input items -----------------------------------------------------------------------------------------------------
CONVERSATION = [
    {"role": "user", "content": "Weather in Paris?"},
    {"role": "assistant", "content": "", "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}]},
    {"role": "tool", "content": "sunny", "tool_call_id": "call_1"},
    {"role": "developer", "content": "Answer in one word."},
    {"role": "assistant", "content": "Sunny."},  # the response's own output
]
OUTPUT = [{"type": "message", "id": "msg_out", "status": "completed", "role": "assistant",
           "content": [{"type": "output_text", "text": "Sunny.", "annotations": [], "logprobs": []}]}]


def test_input_items_are_the_stored_conversation_without_the_output() -> None:
    items = items_of("resp_1", input_messages(CONVERSATION, OUTPUT))
    assert [(i["type"], i.get("role")) for i in items] == [
        ("message", "user"), ("function_call", None), ("function_call_output", None), ("message", "developer")]
    assert items[0]["content"] == [{"type": "input_text", "text": "Weather in Paris?"}]
    assert (items[1]["call_id"], items[1]["arguments"]) == ("call_1", '{"city": "Paris"}')
    assert (items[2]["call_id"], items[2]["output"]) == ("call_1", "sunny")
    assert items == items_of("resp_1", input_messages(CONVERSATION, OUTPUT))  # ids are stable: a cursor
    assert len({i["id"] for i in items}) == 4 and items_of("resp_2", CONVERSATION[:1])[0]["id"] != items[0]["id"]
    listed = page(items, parse_query({"order": "asc"}))
    adapter: TypeAdapter[ResponseItemList] = TypeAdapter(ResponseItemList)
    assert [item.type for item in adapter.validate_python(listed).data] == [
        "message", "function_call", "function_call_output", "message"]
    assert input_messages(None, []) == []  # stored under "hashes": no content to list


def test_input_items_pages_by_limit_order_and_after() -> None:
    items = items_of("resp_1", input_messages(CONVERSATION, OUTPUT))
    ids = [i["id"] for i in items]
    newest = page(items, parse_query({}))  # OpenAI's default: desc, 20
    assert [i["id"] for i in newest["data"]] == ids[::-1]
    assert (newest["object"], newest["first_id"], newest["last_id"], newest["has_more"]) == (
        "list", ids[-1], ids[0], False)
    first = page(items, parse_query({"order": "asc", "limit": "3"}))
    assert [i["id"] for i in first["data"]] == ids[:3] and first["has_more"] is True
    rest = page(items, parse_query({"order": "asc", "limit": "3", "after": first["last_id"]}))
    assert [i["id"] for i in rest["data"]] == ids[3:] and rest["has_more"] is False
    empty = page([], parse_query({}))
    assert (empty["data"], empty["first_id"], empty["last_id"], empty["has_more"]) == ([], None, None, False)


@pytest.mark.parametrize(("query", "param"), [
    ({"limit": "0"}, "limit"), ({"limit": "101"}, "limit"), ({"limit": "x"}, "limit"), ({"limit": "-1"}, "limit"),
    ({"order": "up"}, "order"), ({"after": ""}, "after"), ({"include": "message.input_image.image_url"}, "include"),
    ({"before": "msg_1"}, "before"),
])
def test_input_items_refuses_bad_query_params_by_name(query: dict[str, str], param: str) -> None:
    with pytest.raises(APIError) as caught:
        parse_query(query)
    assert caught.value.status == 400 and caught.value.param == param


def test_input_items_after_an_unknown_item_is_a_400() -> None:
    with pytest.raises(APIError) as caught:
        page(items_of("resp_1", CONVERSATION[:1]), parse_query({"after": "msg_nope"}))
    assert caught.value.status == 400 and caught.value.param == "after"
