"""The compiled ChatML renderer: used only for templates that render like it, and then byte-identical to jinja."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.loader.gguf_metadata import read_gguf_metadata
from engine.loader.source import default_gguf_path
from engine.tokenization.chat_template import ChatTemplateError, chatml_renderer, compile_template, render_chat
from engine.tokenization.tokenizer import FastTokenizer, Tokenizer

SPECIAL: dict[str, str | None] = {"bos_token": "<s>", "eos_token": "<|im_end|>", "pad_token": None}

TURN = "{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n'}}"
GENERATION = "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
PLAIN_CHATML = "{% for message in messages %}" + TURN + "{% endfor %}" + GENERATION
# Qwen2.5's shape: a default system turn, a tools block when tools are given, tool results wrapped in a user turn.
QWEN_LIKE = (
    "{%- if tools %}<|im_start|>system\n# Tools\n{{ tools | tojson }}<|im_end|>\n"
    "{%- elif messages[0]['role'] != 'system' %}{{- '<|im_start|>system\nYou are Qwen.<|im_end|>\n' }}{%- endif %}"
    "{%- for message in messages %}"
    "{%- if message.role == 'tool' %}{{- '<|im_start|>user\n<tool_response>\n' + message.content"
    " + '\n</tool_response><|im_end|>\n' }}"
    "{%- else %}{{- '<|im_start|>' + message.role + '\n' + message.content + '<|im_end|>' + '\n' }}{%- endif %}"
    "{%- endfor %}{%- if add_generation_prompt %}{{- '<|im_start|>assistant\n' }}{%- endif %}"
)

# ChatML look-alikes that render differently somewhere: none may take the fast path.
NOT_CHATML = {
    "llama3": "{% for m in messages %}<|start_header_id|>{{ m['role'] }}<|end_header_id|>\n\n{{ m['content'] }}"
              "<|eot_id|>{% endfor %}{% if add_generation_prompt %}<|start_header_id|>assistant<|end_header_id|>"
              "\n\n{% endif %}",
    "trims": PLAIN_CHATML.replace("message['content']", "(message['content'] | trim)"),
    "escapes": PLAIN_CHATML.replace("message['content']", "(message['content'] | e)"),
    "strips_reasoning": PLAIN_CHATML.replace("message['content']", "message['content'].split('</think>')[-1]"),
    "bos_first": "{{ bos_token }}" + PLAIN_CHATML,
    "dated": "<|im_start|>system\nToday is {{ strftime_now('%d %B %Y') }}<|im_end|>\n" + PLAIN_CHATML,
    "always_system": "<|im_start|>system\nBe brief.<|im_end|>\n" + PLAIN_CHATML,
    "no_generation_prompt": "{% for message in messages %}" + TURN + "{% endfor %}",
    "renames_assistant": PLAIN_CHATML.replace(
        "message['role'] + '\\n'", "(message['role'] | replace('assistant', 'gpt')) + '\\n'"),
    "drops_empty": "{% for message in messages %}{% if message['content'] %}" + TURN + "{% endif %}{% endfor %}"
                   + GENERATION,
    "keeps_ten_turns": "{% for message in messages %}{% if loop.index <= 10 %}" + TURN + "{% endif %}{% endfor %}"
                       + GENERATION,
    "last_turn_only": "{% for message in messages %}{% if loop.last %}" + TURN + "{% endif %}{% endfor %}" + GENERATION,
}


def smol_template_and_tokens() -> tuple[str, dict[str, str | None]]:
    metadata = read_gguf_metadata(default_gguf_path())
    tokenizer = Tokenizer(FastTokenizer.from_str(metadata.tokenizer_json), **metadata.tokenizer_fields)
    assert tokenizer.chat_template is not None
    return tokenizer.chat_template, tokenizer.special_tokens_map()


def jinja(source: str, messages: Any, add_generation_prompt: bool, special: dict[str, str | None]) -> str | None:
    """The reference: the template through sandboxed jinja (``None``: it refused these messages)."""
    try:
        return compile_template(source).render(messages=messages, tools=None, documents=None,
                                               add_generation_prompt=add_generation_prompt, **special)
    except Exception:  # whatever jinja raised, render_chat must refuse too
        return None


def test_the_default_model_template_is_fast_pathed_with_its_default_system_turn() -> None:
    source, special = smol_template_and_tokens()
    fast = chatml_renderer(source, tuple(special.items()))
    assert fast is not None
    assert fast.default_system is not None and "SmolLM" in fast.default_system
    assert fast.roles == {"system", "user", "assistant", "tool"}
    messages = [{"role": "user", "content": "hi"}]
    assert render_chat(source, messages, add_generation_prompt=True, tools=None, special_tokens=special) == (
        f"<|im_start|>system\n{fast.default_system}<|im_end|>\n<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n")


def test_the_tokenizer_renders_what_jinja_renders() -> None:
    metadata = read_gguf_metadata(default_gguf_path())
    tokenizer = Tokenizer(FastTokenizer.from_str(metadata.tokenizer_json), **metadata.tokenizer_fields)
    assert tokenizer.chat_template is not None
    special = tokenizer.special_tokens_map()
    for messages in ([{"role": "user", "content": "hi"}],
                     [{"role": "system", "content": "s"}, {"role": "user", "content": "{{ q }}"}],
                     [{"role": "user", "content": "q", "name": "ann"}]):
        for add_generation_prompt in (True, False):
            expected = jinja(tokenizer.chat_template, messages, add_generation_prompt, special)
            assert tokenizer.apply_chat_template(messages, add_generation_prompt=add_generation_prompt) == expected
    with pytest.raises(ChatTemplateError):
        tokenizer.apply_chat_template([{"role": "user", "content": [{"type": "text", "text": "parts"}]}])


def test_plain_chatml_has_no_default_system_turn() -> None:
    fast = chatml_renderer(PLAIN_CHATML, tuple(SPECIAL.items()))
    assert fast is not None and fast.default_system is None


def test_a_template_that_treats_tool_turns_specially_keeps_the_other_roles_fast() -> None:
    fast = chatml_renderer(QWEN_LIKE, tuple(SPECIAL.items()))
    assert fast is not None
    assert fast.default_system == "You are Qwen." and fast.roles == {"system", "user", "assistant"}
    tool_turn = [{"role": "user", "content": "q"}, {"role": "tool", "content": "42"}]
    assert fast.render(tool_turn, True) is None
    assert "<tool_response>\n42\n</tool_response>" in render_chat(
        QWEN_LIKE, tool_turn, add_generation_prompt=True, tools=None, special_tokens=SPECIAL)


REJECTS_TOOL = ("{% for message in messages %}{% if message['role'] == 'tool' %}{{ raise_exception('no tool turns') }}"
                "{% endif %}" + TURN + "{% endfor %}" + GENERATION)


def test_a_role_the_template_rejects_is_left_to_jinja_which_rejects_it() -> None:
    fast = chatml_renderer(REJECTS_TOOL, tuple(SPECIAL.items()))
    assert fast is not None and fast.roles == {"system", "user", "assistant"}
    with pytest.raises(ChatTemplateError, match="no tool turns"):
        render_chat(REJECTS_TOOL, [{"role": "tool", "content": "x"}], add_generation_prompt=True, tools=None,
                    special_tokens=SPECIAL)


@pytest.mark.parametrize("name", sorted(NOT_CHATML))
def test_templates_that_render_differently_are_never_fast_pathed(name: str) -> None:
    assert chatml_renderer(NOT_CHATML[name], tuple(SPECIAL.items())) is None


def test_tools_render_through_jinja() -> None:
    tools = [{"type": "function", "function": {"name": "lookup"}}]
    rendered = render_chat(QWEN_LIKE, [{"role": "user", "content": "q"}], add_generation_prompt=False, tools=tools,
                           special_tokens=SPECIAL)
    assert rendered.startswith('<|im_start|>system\n# Tools\n[{"type": "function"')


@pytest.mark.parametrize("messages", [
    [{"role": "user", "content": [{"type": "text", "text": "parts"}]}],
    [{"role": "user", "content": None}],
    [{"role": "user"}],
])
def test_what_jinja_refuses_is_still_refused(messages: list[dict[str, Any]]) -> None:
    source, special = smol_template_and_tokens()
    with pytest.raises(ChatTemplateError):
        render_chat(source, messages, add_generation_prompt=True, tools=None, special_tokens=special)


# Pieces that could trip a renderer: markers, jinja syntax, escapes, non-ASCII, plus any short text at all.
PIECE = st.sampled_from([*"ab \n\t{}%#<>|/'\"\\é世🙂\u200b", "<|im_start|>", "<|im_end|>", "<think>", "</think>",
                         "{{ x }}", "{% if %}", "system", "assistant"]) | st.text(max_size=3)
TEXT = st.lists(PIECE, max_size=12).map("".join)
ROLE = st.sampled_from(["system", "user", "assistant", "tool", "developer", "function", "ipython", ""])
MESSAGE = st.one_of(
    st.fixed_dictionaries({"role": ROLE, "content": TEXT}),
    st.fixed_dictionaries({"role": ROLE, "content": TEXT, "name": TEXT}),
    st.fixed_dictionaries({"role": ROLE, "content": st.lists(st.fixed_dictionaries({"type": st.just("text"),
                                                                                   "text": TEXT}), max_size=2)}),
)
# Half the conversations hold only turns the fast path takes; the rest mix in what it must hand to jinja.
PLAIN_TURN = st.fixed_dictionaries({"role": st.sampled_from(["system", "user", "assistant", "tool"]), "content": TEXT})
CONVERSATION = st.lists(PLAIN_TURN, max_size=7) | st.lists(PLAIN_TURN | MESSAGE, max_size=7)
SOURCES = {"smol": smol_template_and_tokens(), "plain": (PLAIN_CHATML, SPECIAL), "qwen_like": (QWEN_LIKE, SPECIAL),
           "rejects_tool": (REJECTS_TOOL, SPECIAL)}


@pytest.mark.parametrize("name", sorted(SOURCES))
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(messages=CONVERSATION, add_generation_prompt=st.booleans())
def test_fast_renderer_matches_jinja_on_random_conversations(name: str, messages: list[dict[str, Any]],
                                                             add_generation_prompt: bool) -> None:
    source, special = SOURCES[name]
    fast = chatml_renderer(source, tuple(special.items()))
    assert fast is not None
    expected = jinja(source, messages, add_generation_prompt, special)
    fast_text = fast.render(messages, add_generation_prompt)
    if fast_text is not None:
        assert fast_text == expected
    if expected is None:
        with pytest.raises(ChatTemplateError):
            render_chat(source, messages, add_generation_prompt=add_generation_prompt, tools=None,
                        special_tokens=special)
    else:
        assert render_chat(source, messages, add_generation_prompt=add_generation_prompt, tools=None,
                           special_tokens=special) == expected
