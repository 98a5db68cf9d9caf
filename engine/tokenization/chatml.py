"""A compiled ChatML renderer for templates shown, by rendering, to be ChatML.

Rendering a chat template through sandboxed jinja costs tens of microseconds per request; ChatML is string
concatenation. A template earns the fast path only by rendering a fixed battery of probe conversations (every role,
empty / unicode / whitespace / jinja-looking / ChatML-looking / reasoning-tag contents, generation prompt on and off,
seeded random conversations) byte-identically to this renderer. The source text is only a cheap pre-filter. A call
the probes did not cover (tools, roles outside the verified set, extra message keys, non-string content) renders
through jinja as before.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jinja2
from jinja2 import nodes

START = "<|im_start|>"
END = "<|im_end|>\n"
# The roles a ChatML template may render as plain turns; a template that treats one of them specially (a ``tool``
# turn wrapped in a user turn, say) keeps the others on the fast path.
CANDIDATE_ROLES = ("system", "user", "assistant", "tool")
CORE_ROLES = frozenset({"system", "user", "assistant"})

# Contents chosen to catch templates that transform what they print: trimming, escaping, reasoning-block
# stripping, jinja evaluated twice, or role markers inside a message.
PROBE_CONTENTS = (
    "", "hello", "Hello, world.", "  padded both sides \n", "\n", "\n\nleading newlines", "trailing newlines\n\n",
    "héllo wörld 世界 🙂 \u200b\u00a0", "{{ 1 + 1 }} {% if x %}y{% endif %} {# comment #} {%- raw -%}",
    "<|im_start|>user\nfake turn<|im_end|>\n", "<|im_end|>", "<think>step by step</think>the answer",
    "</think>after", "<think>\nunfinished", "<tool_call>{\"name\": \"f\"}</tool_call>",
    "<tool_response>x</tool_response>",
    "'single' \"double\" `back` \\n \\\\", "system", "user\nassistant", "a" * 600, "\t\ttabs\t", "None", "true",
)

Renderer = Callable[[list[dict[str, Any]], bool], str]


@dataclass(frozen=True)
class ChatMLRenderer:
    """ChatML turns, with an optional default system turn when the conversation does not open with one."""

    default_system: str | None
    roles: frozenset[str]

    def render(self, messages: list[Any], add_generation_prompt: Any) -> str | None:
        """The prompt, or ``None`` when this conversation is outside what the probes verified."""
        if not messages or type(add_generation_prompt) is not bool:
            return None
        roles = self.roles
        parts: list[str] = []
        for message in messages:
            if type(message) is not dict or len(message) != 2:
                return None
            role = message.get("role")
            content = message.get("content")
            if type(role) is not str or role not in roles or type(content) is not str:
                return None
            parts.append(f"{START}{role}\n{content}{END}")
        if self.default_system is not None and messages[0]["role"] != "system":
            parts.insert(0, f"{START}system\n{self.default_system}{END}")
        if add_generation_prompt:
            parts.append(f"{START}assistant\n")
        return "".join(parts)


def recognise_chatml(source: str, env: jinja2.Environment, render: Renderer) -> ChatMLRenderer | None:
    """The fast renderer if ``render`` (the template through jinja) matches it on every probe, else ``None``."""
    if START not in source or not _deterministic(env, source):
        return None
    default_system = _default_system(render)
    if default_system is _NOT_CHATML:
        return None
    assert default_system is None or isinstance(default_system, str)
    for roles in (frozenset(CANDIDATE_ROLES), CORE_ROLES):
        candidate = ChatMLRenderer(default_system, roles)
        if all(_same(render, candidate, conversation) for conversation in probe_conversations(sorted(roles))):
            return candidate
    return None


_NOT_CHATML = object()


def _default_system(render: Renderer) -> object:
    """The system text the template inserts before a conversation that lacks one (``None``: it inserts none)."""
    try:
        text = render([{"role": "user", "content": "probe"}], False)
    except Exception:  # any failure to render a plain user turn means "not ChatML"
        return _NOT_CHATML
    turn = f"{START}user\nprobe{END}"
    if text == turn:
        return None
    head = f"{START}system\n"
    tail = f"{END}{turn}"
    if text.startswith(head) and text.endswith(tail) and len(text) >= len(head) + len(tail):
        return text[len(head): len(text) - len(tail)]
    return _NOT_CHATML


def _deterministic(env: jinja2.Environment, source: str) -> bool:
    """False for a template whose output can change between renders of the same input (clock, randomness): the
    probes would not vouch for the next render."""
    try:
        ast = env.parse(source)
    except jinja2.TemplateError:
        return False
    if any(node.name == "strftime_now" for node in ast.find_all(nodes.Name)):
        return False
    return not any(node.name == "random" for node in ast.find_all(nodes.Filter))


def _same(render: Renderer, candidate: ChatMLRenderer, conversation: list[dict[str, Any]]) -> bool:
    for add_generation_prompt in (False, True):
        try:
            expected = render(conversation, add_generation_prompt)
        except Exception:  # the template rejects what the fast path would accept: not equivalent
            return False
        if candidate.render(conversation, add_generation_prompt) != expected:
            return False
    return True


def probe_conversations(roles: list[str], *, seed: int = 34, random_count: int = 200) -> list[list[dict[str, Any]]]:
    """Hand-picked shapes (every role alone, first, repeated, out of order) plus seeded random conversations."""
    def turn(role: str, content: str) -> dict[str, Any]:
        return {"role": role, "content": content}

    conversations = [[turn(role, content)] for role in roles for content in PROBE_CONTENTS]
    for first in roles:
        conversations += [[turn(first, "one"), turn(second, "two")] for second in roles]
    conversations += [
        [turn("system", "sys"), turn("user", "hi"), turn("assistant", "hello"), turn("user", "again")],
        [turn("user", "hi"), turn("assistant", "hello"), turn("user", "again")],
        [turn("system", "a"), turn("system", "b"), turn("user", "c")],
        [turn("user", "a"), turn("system", "mid"), turn("user", "b")],
        [turn("assistant", "first"), turn("user", "then")],
        [turn("user", ""), turn("assistant", ""), turn("user", "")],
    ]
    conversations = [c for c in conversations if all(m["role"] in roles for m in c)]
    rng = random.Random(seed)
    for _ in range(random_count):
        length = rng.randint(1, 12)
        conversations.append([turn(rng.choice(roles), rng.choice(PROBE_CONTENTS)) for _ in range(length)])
    return conversations
