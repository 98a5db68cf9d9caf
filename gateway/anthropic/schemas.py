"""Request bodies of ``POST /v1/messages`` (Anthropic's Messages API), validated strictly.

As on the OpenAI surface, a field Warden does not understand is a 400 naming it, never ignored: it may change what
the caller expects. Fields that cannot change the output are accepted: ``cache_control`` markers (Warden's prefix
cache is automatic and per tenant, so every prefix is cached whether marked or not), ``metadata.user_id``,
``service_tier: "auto"``, a tool's ``strict`` (its ``input_schema`` is enforced either way). Features Warden cannot
serve (extended thinking, server tools, containers, MCP servers, images and documents, prefill...) are refused by
name before the body is validated (``unsupported_feature``) so the client learns exactly which part to drop.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

# The internal chat request's bounds, which every surface is served through.
from gateway.openai.schemas import MAX_STOP_CHARS, MAX_STOP_SEQUENCES, MAX_USER_CHARS

TOOL_NAME_PATTERN = r"^[A-Za-z0-9_-]{1,64}$"  # Anthropic's rule for tool names (OpenAI's for function names)
TOOL_USE_ID_PATTERN = r"^[A-Za-z0-9_-]+$"

# Top-level fields of Anthropic's request that change the output and that Warden cannot honour.
UNSUPPORTED_FIELDS: dict[str, str] = {
    "thinking": "extended thinking is not supported",
    "container": "containers (code execution) are not supported",
    "mcp_servers": "remote MCP servers are not supported on /v1/messages",
    "context_management": "context management is not supported",
    "diagnostics": "diagnostics are not supported",
    "inference_geo": "inference_geo is not supported: this gateway serves from its own host",
    "user_profile_id": "user_profile_id is not supported",
    "workspace_id": "workspaces are not supported: the API key selects the tenant",
}
# Content blocks Anthropic accepts that this gateway cannot take as input (the model reads text only).
UNSUPPORTED_BLOCKS = frozenset({
    "image", "document", "search_result", "thinking", "redacted_thinking", "server_tool_use",
    "web_search_tool_result", "web_fetch_tool_result", "code_execution_tool_result",
    "bash_code_execution_tool_result", "text_editor_code_execution_tool_result", "tool_search_tool_result",
    "mcp_tool_use", "mcp_tool_result", "container_upload",
})


class _Strict(BaseModel):
    # strict: JSON types as declared, as Anthropic checks them ("max_tokens": "8" is a 400, not 8).
    model_config = ConfigDict(extra="forbid", strict=True)


class CacheControl(_Strict):
    """Accepted and ignored: every prefix is cached automatically (per tenant), marked or not."""

    type: Literal["ephemeral"]
    ttl: Literal["5m", "1h"] | None = None


class TextBlock(_Strict):
    type: Literal["text"]
    text: str
    cache_control: CacheControl | None = None
    citations: list[Any] | None = Field(default=None, max_length=0)  # citations need documents, which are refused


class ToolUseBlock(_Strict):
    type: Literal["tool_use"]
    id: str = Field(pattern=TOOL_USE_ID_PATTERN)
    name: str = Field(pattern=TOOL_NAME_PATTERN)
    input: dict[str, Any]
    cache_control: CacheControl | None = None


class ToolResultBlock(_Strict):
    type: Literal["tool_result"]
    tool_use_id: str = Field(pattern=TOOL_USE_ID_PATTERN)
    content: str | list[TextBlock] = ""
    is_error: bool = False
    cache_control: CacheControl | None = None

    def text(self) -> str:
        return self.content if isinstance(self.content, str) else "".join(b.text for b in self.content)


ContentBlock = Annotated[TextBlock | ToolUseBlock | ToolResultBlock, Field(discriminator="type")]


class Message(_Strict):
    role: Literal["user", "assistant"]
    content: str | list[ContentBlock]

    @model_validator(mode="after")
    def _blocks_fit_the_role(self) -> Message:
        if isinstance(self.content, str):
            return self
        for block in self.content:
            if self.role == "user" and block.type == "tool_use":
                raise ValueError("tool_use blocks belong to assistant messages")
            if self.role == "assistant" and block.type == "tool_result":
                raise ValueError("tool_result blocks belong to user messages")
        return self

    def blocks(self) -> list[TextBlock | ToolUseBlock | ToolResultBlock]:
        if isinstance(self.content, str):
            return [TextBlock(type="text", text=self.content)]
        return list(self.content)


class Tool(_Strict):
    type: Literal["custom"] | None = None  # client tools; server tools (web_search_..., bash_...) are refused
    name: str = Field(pattern=TOOL_NAME_PATTERN)
    description: str | None = None
    input_schema: dict[str, Any]
    cache_control: CacheControl | None = None
    strict: bool | None = None  # the input_schema is enforced either way

    @model_validator(mode="after")
    def _schema_is_an_object(self) -> Tool:
        if self.input_schema.get("type") != "object":
            raise ValueError("input_schema must be a JSON schema of type 'object'")
        return self


class ToolChoiceAuto(_Strict):
    type: Literal["auto"]
    disable_parallel_tool_use: bool | None = None


class ToolChoiceAny(_Strict):
    type: Literal["any"]
    disable_parallel_tool_use: bool | None = None


class ToolChoiceTool(_Strict):
    type: Literal["tool"]
    name: str = Field(pattern=TOOL_NAME_PATTERN)
    disable_parallel_tool_use: bool | None = None


class ToolChoiceNone(_Strict):
    type: Literal["none"]


ToolChoice = Annotated[ToolChoiceAuto | ToolChoiceAny | ToolChoiceTool | ToolChoiceNone, Field(discriminator="type")]


class Metadata(_Strict):
    user_id: str | None = Field(default=None, max_length=MAX_USER_CHARS)


class JsonOutputFormat(_Strict):
    type: Literal["json_schema"]
    # ``schema`` shadows a BaseModel attribute, hence the alias.
    schema_: dict[str, Any] = Field(alias="schema")

    model_config = ConfigDict(extra="forbid", strict=True, populate_by_name=True)


class OutputConfig(_Strict):
    format: JsonOutputFormat | None = None
    # Effort steers a reasoning model's thinking budget, which this gateway's models do not have.
    effort: None = None


class ThinkingDisabled(_Strict):
    """What the model does anyway: accepted, like any default a client spells out."""

    type: Literal["disabled"]


class MessagesRequest(_Strict):
    model: str = Field(min_length=1)
    max_tokens: int = Field(ge=1)
    messages: list[Message] = Field(min_length=1)
    system: str | list[TextBlock] | None = None
    stop_sequences: list[Annotated[str, Field(min_length=1, max_length=MAX_STOP_CHARS)]] | None = Field(
        default=None, max_length=MAX_STOP_SEQUENCES)
    stream: bool = False
    temperature: float | None = Field(default=None, ge=0.0, le=1.0)
    top_p: float | None = Field(default=None, gt=0.0, le=1.0)
    top_k: int | None = Field(default=None, ge=0)
    tools: list[Tool] | None = Field(default=None, max_length=128)
    tool_choice: ToolChoice | None = None
    metadata: Metadata | None = None
    output_config: OutputConfig | None = None
    service_tier: Literal["auto"] | None = None
    speed: Literal["standard"] | None = None  # "fast" asks for a faster model tier, which this gateway does not have
    thinking: ThinkingDisabled | None = None  # extended thinking is refused by name before validation
    cache_control: CacheControl | None = None

    def system_text(self) -> str | None:
        if self.system is None:
            return None
        return self.system if isinstance(self.system, str) else "\n\n".join(b.text for b in self.system)
