"""Structured outputs: JSON-schema / regex / tool-call constrained decoding on llguidance.

Flow: ``parse_structured(request.structured)`` → ``GrammarCompiler.compile`` (cached by canonical schema hash,
size- and time-capped; a refusal is a ``GrammarCompileError``, HTTP 400) → ``CompiledGrammar.new_matcher()`` per
sequence → each step ``BatchBitmask.fill_async`` while the forward runs → ``kernels.token_bitmask`` applies it.
``EngineCore`` parses and compiles through ``pending.PendingGrammars`` on worker threads, so the step loop never
waits on a compile.
"""

from engine.structured.bitmask import BatchBitmask
from engine.structured.compiler import CompiledGrammar, GrammarCompiler, StructuredConfig
from engine.structured.errors import GrammarCompileError
from engine.structured.matcher import GrammarMatcher
from engine.structured.spec import GrammarSpec, parse_structured
from engine.structured.tokenizer import bitmask_words, build_ll_tokenizer
from engine.structured.tools import ToolCall, parse_tool_calls, tools_system_prompt

__all__ = [
    "BatchBitmask",
    "CompiledGrammar",
    "GrammarCompileError",
    "GrammarCompiler",
    "GrammarMatcher",
    "GrammarSpec",
    "StructuredConfig",
    "ToolCall",
    "bitmask_words",
    "build_ll_tokenizer",
    "parse_structured",
    "parse_tool_calls",
    "tools_system_prompt",
]
