"""Request bodies of the /v1 endpoints, validated strictly.

Unknown fields are rejected (400), because a field we do not understand may change what the caller expects
(legacy ``guided_json``, ``guided_regex``...): silently ignoring it would return the wrong thing. Fields that cannot
change the output are accepted and ignored; they are listed in ``HARMLESS_IGNORED_FIELDS`` and declared below.

Structured outputs: ``response_format`` (text, json_object, json_schema) and ``tools`` / ``tool_choice`` /
``parallel_tool_calls`` are enforced by the engine's grammar layer (``engine.structured``); ``structured_spec``
turns them into the engine's constraint (``gateway.openai.structured``).
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

# Accepted so current clients work unchanged; none of them alters tokens, sampling or the response shape.
# (parallel_tool_calls is honoured on /v1/chat/completions with tools, and meaningless elsewhere.)
HARMLESS_IGNORED_FIELDS = frozenset({"user", "metadata", "store", "service_tier", "parallel_tool_calls",
                                     "safety_identifier", "prompt_cache_key"})
FUNCTION_NAME_PATTERN = r"^[A-Za-z0-9_-]{1,64}$"  # OpenAI's rule for function and schema names

# OpenAI's documented bounds: up to 4 stop sequences; metadata of up to 16 pairs, keys up to 64 characters and
# values up to 512; a safety_identifier up to 128 characters; n from 1 to 128; best_of up to 20; a 64-bit seed.
MAX_STOP_SEQUENCES = 4
MAX_METADATA_PAIRS = 16
MAX_METADATA_KEY_CHARS = 64
MAX_METADATA_VALUE_CHARS = 512
MAX_SAFETY_IDENTIFIER_CHARS = 128
MAX_CHOICES = 128
MAX_BEST_OF = 20
SEED_RANGE = (-(2**63), 2**63 - 1)
# Warden's own bounds where OpenAI states none, so that no ignored or per-token-checked string is unbounded: an
# end-user id (``user``, ``prompt_cache_key``) and each stop sequence (matched against the output at every token).
MAX_USER_CHARS = 256
MAX_STOP_CHARS = 256


class _Strict(BaseModel):
    # strict: JSON types as declared, as OpenAI checks them; lax mode would read "top_p": true as 1.0 and
    # "max_tokens": "8" as 8, serving a request whose author meant something else.
    model_config = ConfigDict(extra="forbid", strict=True)


class StreamOptions(_Strict):
    include_usage: bool = False


class TextPart(_Strict):
    type: Literal["text"]
    text: str


class FunctionCall(_Strict):
    name: str = Field(pattern=FUNCTION_NAME_PATTERN)
    arguments: str  # JSON text, as the model produced it


class AssistantToolCall(_Strict):
    id: str = Field(min_length=1)
    type: Literal["function"] = "function"
    function: FunctionCall


_HAS_CONTENT: dict[str, Any] = {"required": ["content"], "properties": {"content": {"not": {"type": "null"}}}}
# What _fields_match_the_role enforces, stated in the JSON Schema too (OpenAPI clients and the schema fuzzer read
# it): a tool message answers a call (tool_call_id), other roles carry none; only assistants carry tool_calls; every
# message has content except an assistant's that calls tools (OpenAI's required fields per role).
_MESSAGE_RULES_BY_ROLE: dict[str, Any] = {"allOf": [
    {"if": {"properties": {"role": {"const": "tool"}}},
     "then": {"required": ["tool_call_id"], "properties": {"tool_call_id": {"type": "string", "minLength": 1}}},
     "else": {"properties": {"tool_call_id": {"type": "null"}}}},
    {"if": {"properties": {"role": {"not": {"const": "assistant"}}}},
     "then": {"properties": {"tool_calls": {"anyOf": [{"type": "null"}, {"type": "array", "maxItems": 0}]}}}},
    {"if": {"properties": {"role": {"const": "assistant"}}},
     "then": {"anyOf": [_HAS_CONTENT,
                        {"required": ["tool_calls"], "properties": {"tool_calls": {"type": "array", "minItems": 1}}}]},
     "else": _HAS_CONTENT},
]}


class ChatMessage(_Strict):
    model_config = ConfigDict(extra="forbid", json_schema_extra=_MESSAGE_RULES_BY_ROLE)

    role: Literal["system", "developer", "user", "assistant", "tool"]
    content: str | list[TextPart] | None = None
    name: str | None = None
    tool_calls: list[AssistantToolCall] | None = None  # assistant turns that called tools
    tool_call_id: str | None = None  # tool turns: the call this is the result of

    @model_validator(mode="after")
    def _fields_match_the_role(self) -> ChatMessage:
        if self.content is None and not (self.role == "assistant" and self.tool_calls):
            raise ValueError(f"{self.role} messages need content" if self.role != "assistant"
                             else "assistant messages need content or tool_calls")
        if self.tool_calls and self.role != "assistant":
            raise ValueError("only assistant messages may carry tool_calls")
        if self.role == "tool":
            if not self.tool_call_id:
                raise ValueError("tool messages need the tool_call_id they answer")
        elif self.tool_call_id is not None:
            raise ValueError("tool_call_id is only allowed on tool messages")
        return self

    def text(self) -> str:
        if self.content is None:
            return ""
        if isinstance(self.content, str):
            return self.content
        return "".join(part.text for part in self.content)


class ResponseFormatText(_Strict):
    type: Literal["text"]


class ResponseFormatJsonObject(_Strict):
    type: Literal["json_object"]


class JsonSchemaFormat(_Strict):
    name: str = Field(pattern=FUNCTION_NAME_PATTERN)
    # ``schema`` shadows a BaseModel attribute, hence the alias.
    schema_: dict[str, Any] = Field(alias="schema")
    description: str | None = None
    strict: bool | None = None  # the whole schema is enforced either way

    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class ResponseFormatJsonSchema(_Strict):
    type: Literal["json_schema"]
    json_schema: JsonSchemaFormat


ResponseFormat = Annotated[ResponseFormatText | ResponseFormatJsonObject | ResponseFormatJsonSchema,
                           Field(discriminator="type")]


class FunctionDefinition(_Strict):
    name: str = Field(pattern=FUNCTION_NAME_PATTERN)
    description: str | None = None
    parameters: dict[str, Any] | None = None  # a JSON schema; absent: no arguments
    strict: bool | None = None  # the parameters are enforced either way


class Tool(_Strict):
    type: Literal["function"]
    function: FunctionDefinition


class NamedFunction(_Strict):
    name: str = Field(pattern=FUNCTION_NAME_PATTERN)


class NamedToolChoice(_Strict):
    type: Literal["function"]
    function: NamedFunction


ToolChoice = Literal["none", "auto", "required"] | NamedToolChoice


StopSequence = Annotated[str, Field(min_length=1, max_length=MAX_STOP_CHARS)]
Stop = StopSequence | Annotated[list[StopSequence], Field(max_length=MAX_STOP_SEQUENCES)] | None
MetadataKey = Annotated[str, Field(max_length=MAX_METADATA_KEY_CHARS)]
MetadataValue = Annotated[str, Field(max_length=MAX_METADATA_VALUE_CHARS)]
Temperature = Annotated[float, Field(ge=0.0, le=2.0)]
TopP = Annotated[float, Field(gt=0.0, le=1.0)]
Penalty = Annotated[float, Field(ge=-2.0, le=2.0)]


def _requires(field: str, *, then: dict[str, Any]) -> dict[str, Any]:
    """JSON Schema: when ``field`` is present and not null, ``then`` holds too."""
    return {"if": {"required": [field], "properties": {field: {"not": {"type": "null"}}}}, "then": then}


# The cross-field rules the validators below enforce, stated in the JSON Schema too.
_STREAM_OPTIONS_NEED_STREAM = _requires("stream_options",
                                        then={"required": ["stream"], "properties": {"stream": {"const": True}}})


# OpenAI types these fields "boolean or null" / "integer or null" with a default: null is the default. They are
# declared without None (the code reads a value) and null is dropped before validation; the schema says nullable.
_NULLABLE_BOOL: dict[str, Any] = {"type": ["boolean", "null"]}
_NULLABLE_INT: dict[str, Any] = {"type": ["integer", "null"]}


class _SamplingFields(_Strict):
    _NULL_MEANS_DEFAULT: ClassVar[frozenset[str]] = frozenset({"n", "stream"})

    model_config = ConfigDict(extra="forbid", json_schema_extra={"allOf": [_STREAM_OPTIONS_NEED_STREAM]})

    model: str = Field(min_length=1)
    temperature: Temperature | None = None
    top_p: TopP | None = None
    n: int = Field(default=1, ge=1, le=MAX_CHOICES, json_schema_extra=_NULLABLE_INT)
    stream: bool = Field(default=False, json_schema_extra=_NULLABLE_BOOL)
    stream_options: StreamOptions | None = None
    stop: Stop = None
    seed: int | None = Field(default=None, ge=SEED_RANGE[0], le=SEED_RANGE[1])
    presence_penalty: Penalty | None = None
    frequency_penalty: Penalty | None = None
    logit_bias: dict[str, float] | None = Field(default=None, json_schema_extra={"maxProperties": 0})  # unsupported
    # Extensions current open-source clients send (vLLM's names); each changes sampling and is honoured.
    top_k: int | None = Field(default=None, ge=0)
    min_p: float | None = Field(default=None, ge=0.0, le=1.0)
    # Above 0.01: the engine divides logits by it in float32, where a tinier positive double is 0 (inf logits).
    repetition_penalty: float | None = Field(default=None, ge=0.01, le=2.0)
    min_tokens: int | None = Field(default=None, ge=0)  # no EOS / stop ends the output before this many tokens
    ignore_eos: bool | None = None  # generate through EOS (load tests that need exact lengths)
    # Harmless: accepted and ignored (see HARMLESS_IGNORED_FIELDS).
    user: str | None = Field(default=None, max_length=MAX_USER_CHARS)
    safety_identifier: str | None = Field(default=None, max_length=MAX_SAFETY_IDENTIFIER_CHARS)
    prompt_cache_key: str | None = Field(default=None, max_length=MAX_USER_CHARS)
    metadata: dict[MetadataKey, MetadataValue] | None = Field(default=None, max_length=MAX_METADATA_PAIRS)
    store: bool | None = None
    service_tier: Literal["auto", "default", "flex", "scale", "priority", "fast"] | None = None
    parallel_tool_calls: bool | None = None

    @field_validator("logit_bias")
    @classmethod
    def _no_logit_bias(cls, value: dict[str, float] | None) -> dict[str, float] | None:
        if value:
            raise ValueError("logit_bias is not supported")
        return value

    @model_validator(mode="before")
    @classmethod
    def _null_means_default(cls, data: Any) -> Any:
        if isinstance(data, dict) and any(data.get(name, False) is None for name in cls._NULL_MEANS_DEFAULT):
            return {key: value for key, value in data.items()
                    if not (value is None and key in cls._NULL_MEANS_DEFAULT)}
        return data

    @model_validator(mode="after")
    def _stream_options_need_stream(self) -> _SamplingFields:
        if self.stream_options is not None and not self.stream:
            raise ValueError("stream_options is only allowed when stream is true")
        return self

    def stop_list(self) -> list[str]:
        return [self.stop] if isinstance(self.stop, str) else list(self.stop or [])

    @property
    def include_usage(self) -> bool:
        return bool(self.stream_options and self.stream_options.include_usage)


class ChatCompletionRequest(_SamplingFields):
    model_config = ConfigDict(extra="forbid", json_schema_extra={"allOf": [
        _STREAM_OPTIONS_NEED_STREAM,
        _requires("top_logprobs", then={"required": ["logprobs"], "properties": {"logprobs": {"const": True}}}),
        _requires("tool_choice", then={"required": ["tools"], "properties": {"tools": {"type": "array"}}}),
    ]})

    _NULL_MEANS_DEFAULT: ClassVar[frozenset[str]] = frozenset({"n", "stream", "logprobs"})

    messages: list[ChatMessage] = Field(min_length=1)
    max_tokens: int | None = Field(default=None, ge=1)
    max_completion_tokens: int | None = Field(default=None, ge=1)
    logprobs: bool = Field(default=False, json_schema_extra=_NULLABLE_BOOL)
    top_logprobs: int | None = Field(default=None, ge=0, le=20)
    response_format: ResponseFormat | None = None
    tools: list[Tool] | None = Field(default=None, min_length=1, max_length=128)
    tool_choice: ToolChoice | None = None

    @model_validator(mode="after")
    def _top_logprobs_need_logprobs(self) -> ChatCompletionRequest:
        if self.top_logprobs is not None and not self.logprobs:
            raise ValueError("top_logprobs requires logprobs to be true")
        return self

    @property
    def calls_tools(self) -> bool:
        """Tools are offered and the model may (or must) call them: the output is held to the tool-call grammar."""
        return bool(self.tools) and self.tool_choice != "none"

    def requested_max_tokens(self) -> int | None:
        return self.max_completion_tokens if self.max_completion_tokens is not None else self.max_tokens

    def engine_logprobs(self) -> int | None:
        return (self.top_logprobs or 0) if self.logprobs else None


PromptInput = str | list[str] | list[int] | list[list[int]]


class CompletionRequest(_SamplingFields):
    _NULL_MEANS_DEFAULT: ClassVar[frozenset[str]] = frozenset({"n", "stream", "echo", "max_tokens"})

    prompt: PromptInput
    # OpenAI's default for /v1/completions, null included (chat's max_tokens has none: null there is the context left)
    max_tokens: int = Field(default=16, ge=1, json_schema_extra=_NULLABLE_INT)
    logprobs: int | None = Field(default=None, ge=0, le=20)
    echo: bool = Field(default=False, json_schema_extra=_NULLABLE_BOOL)
    suffix: str | None = Field(default=None, json_schema_extra={"maxLength": 0})  # insertion is unsupported
    best_of: int | None = Field(default=None, ge=1, le=MAX_BEST_OF)

    @field_validator("suffix")
    @classmethod
    def _no_suffix(cls, value: str | None) -> str | None:
        if value:
            raise ValueError("suffix (insertion) is not supported")
        return value

    @model_validator(mode="after")
    def _best_of_is_n(self) -> CompletionRequest:
        if self.best_of is not None and self.best_of != self.n:
            raise ValueError("best_of other than n is not supported")
        if self.echo and self.logprobs is not None:
            raise ValueError("echo with logprobs is not supported")
        return self

    def prompts(self) -> list[str | list[int]]:
        """The batch of prompts: text or token ids."""
        p: Any = self.prompt
        if isinstance(p, str):
            return [p]
        if not p:
            raise ValueError("prompt must not be empty")
        if all(isinstance(x, int) for x in p):
            return [list(p)]
        return list(p)


def openapi_request_body(model: type[BaseModel]) -> dict[str, Any]:
    """The OpenAPI ``requestBody`` of a /v1 route whose handler parses the body itself (so that a malformed one is
    refused and audited like any other outcome): the model's JSON Schema, its ``$defs`` inlined, since a route's
    extra OpenAPI cannot add components and a ``#/$defs/...`` reference would point at the document's root."""
    schema = model.model_json_schema(mode="validation")
    definitions = schema.pop("$defs", {})

    def inline(node: Any) -> Any:
        if isinstance(node, list):
            return [inline(item) for item in node]
        if not isinstance(node, dict):
            return node
        if set(node) == {"$ref"}:
            return inline(definitions[node["$ref"].removeprefix("#/$defs/")])
        # A discriminator's mapping names $defs entries; the inlined branches each carry their "type" const.
        return {key: inline(value) for key, value in node.items()
                if not (key == "discriminator" and isinstance(value, dict) and "propertyName" in value)}

    return {"requestBody": {"required": True, "content": {"application/json": {"schema": inline(schema)}}}}
