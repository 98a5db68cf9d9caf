"""Chat templates rendered exactly as HF's ``apply_chat_template`` renders them.

Same jinja2 environment (sandboxed, ``trim_blocks``, ``lstrip_blocks``, loop controls), the same ``tojson``
filter and ``raise_exception`` / ``strftime_now`` globals, and the tokenizer's special tokens as variables.
A template that renders as ChatML on every probe (``engine.tokenization.chatml``) is rendered without jinja for
the conversations the probes cover.
"""

from __future__ import annotations

import json
from datetime import datetime
from functools import lru_cache
from typing import Any

import jinja2
import jinja2.ext
from jinja2.sandbox import ImmutableSandboxedEnvironment

from engine.errors import InvalidRequestError
from engine.tokenization.chatml import ChatMLRenderer, recognise_chatml


class ChatTemplateError(InvalidRequestError):
    """The template rejected the conversation (``raise_exception``) or failed to render."""


def _raise_exception(message: str) -> None:
    raise ChatTemplateError(message, param="messages")


def _tojson(x: Any, ensure_ascii: bool = False, indent: int | None = None, separators: Any = None,
            sort_keys: bool = False) -> str:
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


def _strftime_now(fmt: str) -> str:
    return datetime.now().strftime(fmt)


def _environment() -> ImmutableSandboxedEnvironment:
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[jinja2.ext.loopcontrols])
    env.filters["tojson"] = _tojson
    env.globals["raise_exception"] = _raise_exception
    env.globals["strftime_now"] = _strftime_now
    return env


@lru_cache(maxsize=8)
def compile_template(source: str) -> jinja2.Template:
    template = _environment().from_string(source)
    # Every render copies the template's globals into a fresh context; jinja keeps them as a ChainMap over the
    # environment's, which copies at Python speed (a third of a render). This environment is never changed again,
    # so one flat dict holds the same names.
    template.globals = dict(template.globals)
    return template


@lru_cache(maxsize=8)
def chatml_renderer(source: str, special_tokens: tuple[tuple[str, str | None], ...]) -> ChatMLRenderer | None:
    """The fast renderer for this template and these special tokens, if the probes vouch for it (decided once)."""
    template = compile_template(source)
    variables = dict(special_tokens)

    def render(messages: list[dict[str, Any]], add_generation_prompt: bool) -> str:
        return template.render(messages=messages, tools=None, documents=None,
                               add_generation_prompt=add_generation_prompt, **variables)

    return recognise_chatml(source, template.environment, render)


class ChatTemplate:
    """One template rendered with one tokenizer's special tokens; whether it takes the ChatML fast path is decided
    on the first render without tools and kept, so a request pays no cache look-up for it."""

    def __init__(self, source: str, special_tokens: dict[str, str | None]) -> None:
        self.source = source
        self._special_tokens = dict(special_tokens)
        self._fast: ChatMLRenderer | None = None
        self._decided = False

    def render(self, messages: list[dict[str, Any]], *, add_generation_prompt: bool,
               tools: list[dict[str, Any]] | None) -> str:
        try:
            if tools is None:
                if not self._decided:
                    self._fast = chatml_renderer(self.source, tuple(self._special_tokens.items()))
                    self._decided = True
                rendered = None if self._fast is None else self._fast.render(messages, add_generation_prompt)
                if rendered is not None:
                    return rendered
            return compile_template(self.source).render(
                messages=messages, tools=tools, documents=None, add_generation_prompt=add_generation_prompt,
                **self._special_tokens,
            )
        except ChatTemplateError:
            raise
        except (jinja2.TemplateError, TypeError, KeyError) as exc:
            raise ChatTemplateError(f"chat template failed to render these messages: {exc}",
                                    param="messages") from exc


def render_chat(
    source: str,
    messages: list[dict[str, Any]],
    *,
    add_generation_prompt: bool,
    tools: list[dict[str, Any]] | None,
    special_tokens: dict[str, str | None],
) -> str:
    return ChatTemplate(source, special_tokens).render(messages, add_generation_prompt=add_generation_prompt,
                                                       tools=tools)
