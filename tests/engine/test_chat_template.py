"""The chat template environment's names (HF's globals and filters, jinja's own) reach every render."""

from __future__ import annotations

from datetime import datetime

import pytest

from engine.tokenization.chat_template import ChatTemplateError, render_chat

TEMPLATE = (
    "{% set ns = namespace(n=0) %}{% for m in messages %}{% set ns.n = ns.n + 1 %}"
    "{% if m['role'] == 'bad' %}{{ raise_exception('no bad roles') }}{% endif %}"
    "{{ bos_token }}{{ m['role'] }}:{{ m['content'] | tojson }}{{ eos_token }}{% endfor %}"
    "[{{ ns.n }}|{{ strftime_now('%Y') }}|{{ range(2) | list | length }}]"
    "{% if add_generation_prompt %}assistant:{% endif %}"
)
SPECIAL = {"bos_token": "<s>", "eos_token": "</s>", "pad_token": None}


def test_template_sees_globals_filters_and_special_tokens() -> None:
    messages = [{"role": "user", "content": "héllo"}, {"role": "assistant", "content": "hi"}]
    for _ in range(2):  # the compiled template is cached: a second render must see the same names
        rendered = render_chat(TEMPLATE, messages, add_generation_prompt=True, tools=None, special_tokens=SPECIAL)
        assert rendered == (f'<s>user:"héllo"</s><s>assistant:"hi"</s>[2|{datetime.now().year}|2]assistant:')


def test_raise_exception_is_a_chat_template_error() -> None:
    with pytest.raises(ChatTemplateError, match="no bad roles"):
        render_chat(TEMPLATE, [{"role": "bad", "content": "x"}], add_generation_prompt=False, tools=None,
                    special_tokens=SPECIAL)
