"""Request bodies of ``POST /v1/responses``, validated strictly (JSON types as declared, unknown fields a 400).

Only what Warden serves is declared. A feature it does not serve either is absent (an unknown field: 400
``Unrecognized request argument``) or is declared only so that its one meaningful value is refused naming the
param (``background: true``, ``reasoning``, ``truncation: "auto"``, a non-empty ``include``): nothing the caller
asked for is silently ignored. Input items are validated one by one (``parse_items``) so that an unsupported item
type is named as such rather than as a mismatch against every item model.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from gateway.core.errors import APIError, invalid_request, validation_error
from gateway.openai.schemas import FUNCTION_NAME_PATTERN, Temperature, TopP

MAX_INPUT_ITEMS = 2048
MAX_TOOLS = 128
# Tool types OpenAI hosts and runs itself; Warden runs none of them.
HOSTED_TOOL_HINT = "only function tools are supported (built-in tools such as web_search, file_search, " \
                   "computer_use, code_interpreter, image_generation, mcp are not)"


def _invalid(exc: ValidationError, name: str, data: Any, *at: int) -> APIError:
    """The 400 for a part of the body validated on its own: ``param`` named from the body's root
    (``input[2].call_id``)."""
    errors = [{**error, "loc": (name, *at, *error.get("loc", ()))} for error in exc.errors()]
    return validation_error(errors, {name: data})


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


# -- input items ---------------------------------------------------------------------------------------------------
class InputText(_Strict):
    type: Literal["input_text"]
    text: str


class OutputText(_Strict):
    """An assistant's earlier output passed back as input (a client appending ``response.output``)."""

    type: Literal["output_text"]
    text: str
    annotations: list[Any] | None = Field(default=None, max_length=0)  # Warden never produces annotations
    logprobs: list[Any] | None = None


class MessageItem(_Strict):
    type: Literal["message"] = "message"
    role: Literal["user", "assistant", "system", "developer"]
    content: str | list[Annotated[InputText | OutputText, Field(discriminator="type")]]
    id: str | None = None
    status: Literal["in_progress", "completed", "incomplete"] | None = None
    phase: Literal["final_answer"] | None = None  # Warden's answers have no commentary phase

    def text(self) -> str:
        if isinstance(self.content, str):
            return self.content
        return "".join(part.text for part in self.content)


class CallerDirect(_Strict):
    type: Literal["direct"]


class FunctionCallItem(_Strict):
    type: Literal["function_call"]
    call_id: str = Field(min_length=1)
    name: str = Field(pattern=FUNCTION_NAME_PATTERN)
    arguments: str
    id: str | None = None
    status: Literal["in_progress", "completed", "incomplete"] | None = None
    # What an SDK's output item carries back, unset: Warden's calls are synchronous, direct and unnamespaced.
    async_: Literal[False] | None = Field(default=None, alias="async")
    caller: CallerDirect | None = None
    namespace: None = None


class FunctionCallOutputItem(_Strict):
    type: Literal["function_call_output"]
    call_id: str = Field(min_length=1)
    output: str
    id: str | None = None
    status: Literal["in_progress", "completed", "incomplete"] | None = None


InputItem = MessageItem | FunctionCallItem | FunctionCallOutputItem
ITEM_MODELS: dict[str, type[InputItem]] = {"message": MessageItem, "function_call": FunctionCallItem,
                                           "function_call_output": FunctionCallOutputItem}
# Item types of the Responses API that Warden cannot take as input (what produces them is not served here).
UNSUPPORTED_ITEM_TYPES = frozenset({"reasoning", "item_reference", "file_search_call", "web_search_call",
                                    "computer_call", "computer_call_output", "image_generation_call",
                                    "code_interpreter_call", "local_shell_call", "local_shell_call_output",
                                    "mcp_list_tools", "mcp_approval_request", "mcp_approval_response", "mcp_call",
                                    "custom_tool_call", "custom_tool_call_output", "compaction"})
PART_HINT = "only input_text (and output_text on assistant messages) content parts are supported"


def parse_items(raw: Any) -> list[InputItem]:
    """``input`` as a list of items: each validated against its own type's model."""
    if isinstance(raw, str):
        return [MessageItem(role="user", content=raw)]
    if not isinstance(raw, list):
        raise invalid_request("input must be a string or a list of input items", param="input")
    if len(raw) > MAX_INPUT_ITEMS:
        raise invalid_request(f"input has more than {MAX_INPUT_ITEMS} items", param="input")
    items: list[InputItem] = []
    for index, item in enumerate(raw):
        where = f"input[{index}]"
        if not isinstance(item, dict):
            raise invalid_request(f"{where}: an input item must be an object", param=where)
        kind = item.get("type", "message")
        model = ITEM_MODELS.get(kind) if isinstance(kind, str) else None
        if model is None:
            reason = "is not supported by this server" if kind in UNSUPPORTED_ITEM_TYPES else "is not an item type"
            raise invalid_request(f"{where}.type: input item type {kind!r} {reason}", param=f"{where}.type")
        _refuse_unsupported_parts(item, where)
        try:
            parsed = model.model_validate(item)
        except ValidationError as exc:
            raise _invalid(exc, "input", raw, index) from None
        if isinstance(parsed, MessageItem) and parsed.role != "assistant" and not isinstance(parsed.content, str) \
                and any(isinstance(part, OutputText) for part in parsed.content):
            raise invalid_request(f"{where}.content: output_text parts belong to assistant messages",
                                  param=f"{where}.content")
        items.append(parsed)
    return items


def _refuse_unsupported_parts(item: dict[str, Any], where: str) -> None:
    content = item.get("content")
    if not isinstance(content, list):
        return
    for index, part in enumerate(content):
        kind = part.get("type") if isinstance(part, dict) else None
        if kind not in ("input_text", "output_text"):
            param = f"{where}.content[{index}].type"
            raise invalid_request(f"{param}: content part type {kind!r} is not supported; {PART_HINT}", param=param)


# -- tools and formats ---------------------------------------------------------------------------------------------
class FunctionTool(_Strict):
    type: Literal["function"]
    name: str = Field(pattern=FUNCTION_NAME_PATTERN)
    description: str | None = None
    parameters: dict[str, Any] | None = None
    strict: bool | None = None  # the parameters are enforced either way


class FunctionToolChoice(_Strict):
    type: Literal["function"]
    name: str = Field(pattern=FUNCTION_NAME_PATTERN)


class FormatText(_Strict):
    type: Literal["text"]


class FormatJsonObject(_Strict):
    type: Literal["json_object"]


class FormatJsonSchema(_Strict):
    model_config = ConfigDict(extra="forbid", strict=True, populate_by_name=True)

    type: Literal["json_schema"]
    name: str = Field(pattern=FUNCTION_NAME_PATTERN)
    schema_: dict[str, Any] = Field(alias="schema")
    description: str | None = None
    strict: bool | None = None  # the whole schema is enforced either way


TextFormat = Annotated[FormatText | FormatJsonObject | FormatJsonSchema, Field(discriminator="type")]


class TextConfig(_Strict):
    format: TextFormat | None = None


# -- the request -----------------------------------------------------------------------------------------------------
class ResponsesRequest(_Strict):
    model: str = Field(min_length=1)
    input: str | list[Any]  # items are validated by parse_items
    instructions: str | None = None
    max_output_tokens: int | None = Field(default=None, ge=1)
    temperature: Temperature | None = None
    top_p: TopP | None = None
    tools: list[dict[str, Any]] | None = Field(default=None, max_length=MAX_TOOLS)  # validated by function_tools
    tool_choice: Literal["none", "auto", "required"] | dict[str, Any] | None = None
    parallel_tool_calls: bool | None = None
    text: TextConfig | None = None
    stream: bool = False
    store: bool = True
    previous_response_id: str | None = Field(default=None, min_length=1, max_length=128)
    metadata: dict[str, str] | None = Field(default=None, max_length=16)
    # Accepted and ignored: none changes what is generated or the response's shape.
    user: str | None = Field(default=None, max_length=256)
    safety_identifier: str | None = Field(default=None, max_length=128)
    prompt_cache_key: str | None = Field(default=None, max_length=256)
    service_tier: Literal["auto", "default"] | None = None
    # Declared only so their meaningful values are refused by name (see unsupported()).
    background: bool | None = None
    reasoning: dict[str, Any] | None = None
    truncation: Literal["disabled", "auto"] | None = None
    include: list[str] | None = None


def parse_request(body: dict[str, Any]) -> ResponsesRequest:
    try:
        request = ResponsesRequest.model_validate(body)
    except ValidationError as exc:
        raise validation_error(exc.errors(), body) from None
    refusal = unsupported(request)
    if refusal is not None:
        raise refusal
    return request


def unsupported(request: ResponsesRequest) -> APIError | None:
    """A 400 naming the first requested feature this server does not serve, or None."""
    if request.background:
        return invalid_request("background mode is not supported; omit background or set it to false",
                               param="background")
    if request.reasoning is not None:
        return invalid_request("reasoning is not supported: the served model has no reasoning mode",
                               param="reasoning")
    if request.truncation == "auto":
        return invalid_request("truncation 'auto' is not supported; a prompt that does not fit is a 400",
                               param="truncation")
    if request.include:
        return invalid_request(f"include {request.include[0]!r} is not supported", param="include")
    return None


def function_tools(request: ResponsesRequest) -> list[FunctionTool]:
    tools: list[FunctionTool] = []
    for index, raw in enumerate(request.tools or []):
        kind = raw.get("type")
        if kind != "function":
            param = f"tools[{index}].type"
            raise invalid_request(f"{param}: tool type {kind!r} is not supported; {HOSTED_TOOL_HINT}", param=param)
        try:
            tools.append(FunctionTool.model_validate(raw))
        except ValidationError as exc:
            raise _invalid(exc, "tools", request.tools, index) from None
    return tools


def tool_choice(request: ResponsesRequest) -> str | FunctionToolChoice | None:
    choice = request.tool_choice
    if choice is None or isinstance(choice, str):
        return choice
    if choice.get("type") != "function":
        raise invalid_request(f"tool_choice.type: {choice.get('type')!r} is not supported; {HOSTED_TOOL_HINT}",
                              param="tool_choice.type")
    try:
        return FunctionToolChoice.model_validate(choice)
    except ValidationError as exc:
        raise _invalid(exc, "tool_choice", choice) from None
