"""The tool-call wire format, shared by the engine (its grammar holds a reply to it) and its callers (they describe
the tools in the prompt and turn the reply into OpenAI ``tool_calls``)::

    <tool_call>[{"name": "get_weather", "arguments": {"city": "Paris"}}]</tool_call>

The format lives with the grammar in ``engine.structured.tools``; this module is the part callers may use.
"""

from engine.structured.tools import (
    TOOL_CALL_CLOSE,
    TOOL_CALL_OPEN,
    FunctionSpec,
    ToolCall,
    normalize_tools,
    parse_tool_calls,
    tools_system_prompt,
)

__all__ = [
    "TOOL_CALL_CLOSE",
    "TOOL_CALL_OPEN",
    "FunctionSpec",
    "ToolCall",
    "normalize_tools",
    "parse_tool_calls",
    "tools_system_prompt",
]
