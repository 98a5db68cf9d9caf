"""Structured outputs on /v1/chat/completions: response_format (json_schema, json_object) and tool calling.

The first tests run the gateway's pieces alone (request validation, the engine constraint, how tool turns are
rendered for the model, how a stream holds back a tool call). The live ones use the official `openai` client against
the session's HTTPS server and the real model; every generation is greedy and short.
"""

from __future__ import annotations

import json
from typing import Literal

import jsonschema
import openai
import pytest
from pydantic import BaseModel, Field, ValidationError

from engine.structured import ToolCall
from gateway.core.errors import APIError
from gateway.openai import prompts, structured
from gateway.openai.schemas import ChatCompletionRequest

WEATHER = {"type": "function", "function": {
    "name": "get_weather", "description": "Current weather in a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string", "enum": ["Paris", "London", "Tokyo"]}},
                   "required": ["city"], "additionalProperties": False}}}
TIME = {"type": "function", "function": {
    "name": "get_time", "description": "Current local time in a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string", "maxLength": 12}},
                   "required": ["city"], "additionalProperties": False}}}
PERSON = {"type": "object",
          "properties": {"name": {"type": "string", "maxLength": 12}, "age": {"type": "integer", "minimum": 0,
                                                                              "maximum": 120}},
          "required": ["name", "age"], "additionalProperties": False}


def _chat(**fields) -> ChatCompletionRequest:  # type: ignore[no-untyped-def]
    return ChatCompletionRequest.model_validate({"model": "m", "messages": [{"role": "user", "content": "hi"}],
                                                 **fields})


# -- the gateway's pieces ------------------------------------------------------------------------------------------
def test_response_formats_become_the_engine_constraint() -> None:
    assert structured.engine_constraint(_chat()) is None
    assert structured.engine_constraint(_chat(response_format={"type": "text"})) is None
    assert structured.engine_constraint(_chat(response_format={"type": "json_object"})) == {"type": "json_object"}
    schema_format = {"type": "json_schema", "json_schema": {"name": "person", "schema": PERSON, "strict": True}}
    assert structured.engine_constraint(_chat(response_format=schema_format)) == schema_format
    tools = _chat(tools=[WEATHER, TIME], tool_choice={"type": "function", "function": {"name": "get_time"}},
                  parallel_tool_calls=False)
    assert structured.engine_constraint(tools) == {
        "type": "tool_calls", "tools": [WEATHER, TIME], "parallel_tool_calls": False,
        "tool_choice": {"type": "function", "function": {"name": "get_time"}}}
    assert structured.tools_prompt(tools) is not None and "get_time" in structured.tools_prompt(tools)
    # tool_choice "none": free text, and the model is not told to answer in calls.
    none = _chat(tools=[WEATHER], tool_choice="none", response_format={"type": "json_object"})
    assert structured.engine_constraint(none) == {"type": "json_object"} and structured.tools_prompt(none) is None


@pytest.mark.parametrize(("fields", "param"), [
    ({"tool_choice": "auto"}, "tool_choice"),
    ({"tools": [WEATHER], "tool_choice": {"type": "function", "function": {"name": "get_time"}}}, "tool_choice"),
    ({"tools": [WEATHER], "response_format": {"type": "json_object"}}, "response_format"),
])
def test_contradicting_fields_are_a_400_naming_the_field(fields: dict, param: str) -> None:
    with pytest.raises(APIError) as refused:
        structured.engine_constraint(_chat(**fields))
    assert refused.value.status == 400 and refused.value.body()["error"]["param"] == param


@pytest.mark.parametrize("fields", [
    {"guided_json": PERSON},  # legacy semantic fields stay refused
    {"response_format": {"type": "json_schema", "json_schema": {"name": "p"}}},  # no schema
    {"response_format": {"type": "json_schema", "json_schema": {"name": "p", "schema": PERSON, "x": 1}}},
    {"response_format": {"type": "grammar", "grammar": "start: 'a'"}},
    {"tools": [{"type": "retrieval"}]},
    {"tools": [{"type": "function", "function": {"name": "bad name"}}]},
    {"messages": [{"role": "tool", "content": "42"}]},  # a tool result must say which call it answers
    {"messages": [{"role": "user", "content": "x", "tool_calls": [
        {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}]},
])
def test_malformed_structured_fields_are_rejected(fields: dict) -> None:
    with pytest.raises(ValidationError):
        _chat(**fields)


def test_tool_turns_are_rendered_in_the_tool_prompt_format() -> None:
    request = _chat(messages=[
        {"role": "developer", "content": "Be brief."},
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function",
             "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "18 C, sunny"},
    ], tools=[WEATHER])
    messages = prompts.chat_messages(request.messages, [m.text() for m in request.messages])
    assert messages[2]["tool_calls"][0]["function"]["arguments"] == '{"city": "Paris"}'  # screened like content
    rendered = prompts.model_messages(messages, structured.tools_prompt(request))
    assert [m["role"] for m in rendered] == ["system", "user", "assistant", "user"]
    assert rendered[0]["content"].startswith("You are an expert in composing functions")
    assert rendered[0]["content"].endswith("\n\nBe brief.")
    assert rendered[2]["content"] == '<tool_call>[{"name": "get_weather", "arguments": {"city": "Paris"}}]</tool_call>'
    assert rendered[3]["content"] == '<tool_response>{"name": "get_weather", "content": "18 C, sunny"}</tool_response>'
    assert all(set(m) == {"role", "content"} for m in rendered)


def _held(chunks: list[str]) -> tuple[str, str, list[ToolCall] | None]:
    hold = structured.ToolCallHold()
    streamed = "".join(hold.feed(chunk) for chunk in chunks)
    tail, calls = hold.finish()
    return streamed, tail, calls


def test_a_streamed_tool_call_is_held_back_and_plain_text_is_not() -> None:
    call = '<tool_call>[{"name": "get_weather", "arguments": {"city": "Paris"}}]</tool_call>'
    streamed, tail, calls = _held([" ", "<tool", "_call>", call[len("<tool_call>"):]])
    assert streamed == "" and tail == "" and calls == [ToolCall("get_weather", '{"city": "Paris"}')]
    # Plain text is released as soon as it cannot be the tag, including a held "<to" that turned out to be text.
    hold = structured.ToolCallHold()
    assert hold.feed("<to") == "" and hold.feed("day") == "<today" and hold.feed(" is") == " is"
    assert hold.finish() == ("", None)
    # A call cut short (finish_reason "length") is returned as the text it was.
    streamed, tail, calls = _held([call[:30]])
    assert streamed == "" and tail == call[:30] and calls is None
    deltas = structured.stream_deltas([ToolCall("get_weather", '{"city": "Paris"}'), ToolCall("get_time", "{}")])
    assert [d["tool_calls"][0]["index"] for d in deltas] == [0, 0, 1, 1]
    assert deltas[0]["tool_calls"][0]["id"].startswith("call_")
    assert deltas[1]["tool_calls"][0]["function"] == {"arguments": '{"city": "Paris"}'}


# -- live ----------------------------------------------------------------------------------------------------------
class City(BaseModel):
    name: Literal["Paris", "London", "Tokyo"]
    population_millions: int = Field(ge=0, le=99)


@pytest.mark.slow
def test_json_schema_json_object_and_refusals(tenant_client, model_id: str) -> None:
    _, _, client = tenant_client
    chat = client.chat.completions.create(
        model=model_id, messages=[{"role": "user", "content": "Invent a person. Reply in JSON."}], max_tokens=40,
        temperature=0, response_format={"type": "json_schema",
                                        "json_schema": {"name": "person", "schema": PERSON, "strict": True}})
    assert chat.choices[0].finish_reason == "stop", chat.choices[0].message.content
    jsonschema.validate(json.loads(chat.choices[0].message.content), PERSON)

    parsed = client.chat.completions.parse(
        model=model_id, messages=[{"role": "user", "content": "Name a big city."}], max_tokens=40, temperature=0,
        response_format=City)
    assert isinstance(parsed.choices[0].message.parsed, City)

    obj = client.chat.completions.create(
        model=model_id, messages=[{"role": "user", "content": 'Reply with the JSON object {"ok": true}.'}],
        max_tokens=24, temperature=0, response_format={"type": "json_object"})
    assert obj.choices[0].finish_reason == "stop", obj.choices[0].message.content
    assert isinstance(json.loads(obj.choices[0].message.content), dict)

    with pytest.raises(openai.BadRequestError) as refused:
        client.chat.completions.create(
            model=model_id, messages=[{"role": "user", "content": "x"}], max_tokens=4,
            response_format={"type": "json_schema",
                             "json_schema": {"name": "c", "schema": {"type": "string", "format": "color"}}})
    assert refused.value.body["param"] == "response_format" and "color" in refused.value.body["message"]
    with pytest.raises(openai.BadRequestError) as legacy:
        client.chat.completions.create(model=model_id, messages=[{"role": "user", "content": "x"}], max_tokens=4,
                                       extra_body={"guided_json": PERSON})
    assert legacy.value.body["param"] == "guided_json"


def _validate_call(name: str, arguments: str) -> None:
    tool = {t["function"]["name"]: t for t in (WEATHER, TIME)}[name]
    jsonschema.validate(json.loads(arguments), tool["function"]["parameters"])


@pytest.mark.slow
def test_tool_calls_round_trip_plain_and_streamed(tenant_client, model_id: str) -> None:
    _, _, client = tenant_client
    question = [{"role": "user", "content": "What is the weather in Paris?"}]
    chat = client.chat.completions.create(model=model_id, messages=question, tools=[WEATHER, TIME],
                                          tool_choice="required", max_tokens=48, temperature=0)
    choice = chat.choices[0]
    assert choice.finish_reason == "tool_calls" and choice.message.content is None
    [call] = choice.message.tool_calls
    assert call.id.startswith("call_") and call.type == "function"
    _validate_call(call.function.name, call.function.arguments)

    chunks = list(client.chat.completions.create(
        model=model_id, messages=question, tools=[WEATHER, TIME], max_tokens=48, temperature=0, stream=True,
        tool_choice={"type": "function", "function": {"name": "get_time"}}))
    deltas = [c.choices[0].delta for c in chunks if c.choices]
    assert not any(d.content for d in deltas)  # the call never leaks out as text
    streamed = [t for d in deltas for t in d.tool_calls or []]
    assert streamed and {t.index for t in streamed} == {0}
    assert streamed[0].id.startswith("call_") and streamed[0].function.name == "get_time"
    _validate_call("get_time", "".join(t.function.arguments or "" for t in streamed))
    assert chunks[-1].choices[0].finish_reason == "tool_calls"

    history = [*question, choice.message.model_dump(exclude_none=True),
               {"role": "tool", "tool_call_id": call.id, "content": '{"temperature_c": 18, "sky": "sunny"}'}]
    answer = client.chat.completions.create(model=model_id, messages=history, tools=[WEATHER, TIME],
                                            tool_choice="none", max_tokens=16, temperature=0)
    assert answer.choices[0].message.content and not answer.choices[0].message.tool_calls
    assert answer.choices[0].finish_reason in ("stop", "length")
