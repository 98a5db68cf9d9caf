"""From a validated /v1 request to token ids and sampling parameters for the engine."""

from __future__ import annotations

import json
from typing import Any

from engine.errors import InvalidRequestError
from engine.protocol import TokenizerLike
from engine.sampling_params import SamplingParams
from engine.tool_calls import TOOL_CALL_CLOSE, TOOL_CALL_OPEN
from gateway.core.errors import invalid_request
from gateway.openai.prompt_tokens import segment_encoder
from gateway.openai.schemas import ChatCompletionRequest, ChatMessage, CompletionRequest, _SamplingFields
from gateway.openai.structured import arguments_json


def chat_messages(messages: list[ChatMessage], texts: list[str]) -> list[dict[str, Any]]:
    """The conversation as guardrails screen it and the audit keeps it: ``developer`` is the newer name of
    ``system``; contents are plain text; assistant tool calls and tool results keep their OpenAI fields (the input
    guard screens call arguments too)."""
    out: list[dict[str, Any]] = []
    for m, text in zip(messages, texts, strict=True):
        message: dict[str, Any] = {"role": "system" if m.role == "developer" else m.role, "content": text}
        if m.tool_calls:
            message["tool_calls"] = [call.model_dump() for call in m.tool_calls]
        if m.tool_call_id is not None:
            message["tool_call_id"] = m.tool_call_id
        out.append(message)
    return out


def _calls_json(tool_calls: list[dict[str, Any]]) -> str:
    """An assistant turn's calls as the tools block asks for them; arguments parsed just under the parser's depth
    limit can still be too deep for the encoder once inside the call list, and then go as the client wrote them."""
    try:
        return json.dumps([{"name": c["function"]["name"], "arguments": arguments_json(c["function"]["arguments"])}
                           for c in tool_calls], ensure_ascii=False)
    except RecursionError:
        return json.dumps([{"name": c["function"]["name"], "arguments": c["function"]["arguments"]}
                           for c in tool_calls], ensure_ascii=False)


def model_messages(messages: list[dict[str, Any]], tools_prompt: str | None = None) -> list[dict[str, str]]:
    """Template input for a model whose template knows only role and content: the tools block joins the system
    message; an assistant's tool calls are written in the format the tools block asks for; a tool result is a user
    turn wrapped in ``<tool_response>`` naming the function it answers."""
    names = {call["id"]: call["function"]["name"] for m in messages for call in m.get("tool_calls") or []}
    out: list[dict[str, str]] = []
    for m in messages:
        content = m.get("content") or ""
        if m.get("tool_calls"):
            block = f"{TOOL_CALL_OPEN}{_calls_json(m['tool_calls'])}{TOOL_CALL_CLOSE}"
            content = f"{content}\n{block}" if content else block
        if m["role"] == "tool":
            result = {"name": names.get(m.get("tool_call_id", ""), ""), "content": content}
            out.append({"role": "user",
                        "content": f"<tool_response>{json.dumps(result, ensure_ascii=False)}</tool_response>"})
        else:
            out.append({"role": m["role"], "content": content})
    if tools_prompt:
        if out and out[0]["role"] == "system":
            out[0] = {"role": "system", "content": f"{tools_prompt}\n\n{out[0]['content']}"}
        else:
            out.insert(0, {"role": "system", "content": tools_prompt})
    return out


def chat_prompt_ids(tokenizer: TokenizerLike, messages: list[dict[str, Any]],
                    tools_prompt: str | None = None, *, tenant_id: str | None = None,
                    reuse: dict[str, list[int]] | None = None) -> list[int]:
    """The prompt's ids. With ``tenant_id``, the pieces that repeat across that tenant's calls (system prompt,
    earlier turns) are encoded once (``gateway.openai.prompt_tokens``); the ids are the same either way. One
    request's ``reuse`` dict, passed to each encoding of its prompt, lets a later one (after the input guardrails
    rewrote a message) take what the rewrite left alone from an earlier one."""
    rendered = tokenizer.apply_chat_template(model_messages(messages, tools_prompt), add_generation_prompt=True)
    encoder = segment_encoder(tokenizer) if tenant_id is not None else None
    if encoder is None or tenant_id is None:
        return tokenizer.encode(rendered, add_special_tokens=False)
    newest = messages[-1].get("content") if messages else None
    return encoder.encode(rendered, scope=tenant_id, fresh=newest if isinstance(newest, str) else "", reuse=reuse)


def completion_prompt_texts(tokenizer: TokenizerLike, request: CompletionRequest) -> list[str]:
    """Each prompt as text (token-id prompts decoded), so guardrails and audit see text in every case."""
    try:
        prompts = request.prompts()
    except ValueError as exc:
        raise invalid_request(str(exc), param="prompt") from exc
    vocab_checked: list[str] = []
    for prompt in prompts:
        if isinstance(prompt, str):
            vocab_checked.append(prompt)
        else:
            if not prompt or any(t < 0 for t in prompt):
                raise invalid_request("token-id prompts must be non-empty lists of non-negative ids", param="prompt")
            vocab_checked.append(tokenizer.decode(prompt, skip_special_tokens=False))
    return vocab_checked


def resolve_max_tokens(requested: int | None, *, prompt_len: int, max_model_len: int, cap: int | None) -> int:
    """The caller's max_tokens, checked against the policy's cap; when absent, what the context has left."""
    if cap is not None and requested is not None and requested > cap:
        raise invalid_request(f"max_tokens {requested} exceeds this key's policy cap of {cap}", param="max_tokens",
                              code="max_tokens_exceeds_cap")
    if requested is not None:
        return requested
    room = max_model_len - prompt_len
    if room < 1:
        raise invalid_request(f"The prompt has {prompt_len} tokens; this model's context is {max_model_len}",
                              param="messages", code="context_length_exceeded")
    return min(room, cap) if cap is not None else room


def sampling_params(request: _SamplingFields, *, max_tokens: int, logprobs: int | None,
                    choice: int) -> SamplingParams:
    # With n > 1 and a seed, each choice gets its own seed: n identical answers would defeat the point of n.
    seed = None if request.seed is None else request.seed + choice
    try:
        return SamplingParams(
            max_tokens=max_tokens,
            temperature=1.0 if request.temperature is None else request.temperature,
            top_p=1.0 if request.top_p is None else request.top_p,
            top_k=request.top_k or 0,
            min_p=request.min_p or 0.0,
            seed=seed,
            repetition_penalty=request.repetition_penalty or 1.0,
            presence_penalty=request.presence_penalty or 0.0,
            frequency_penalty=request.frequency_penalty or 0.0,
            stop=request.stop_list(),
            logprobs=logprobs,
            min_tokens=request.min_tokens or 0,
            ignore_eos=bool(request.ignore_eos),
        )
    except InvalidRequestError as exc:
        raise invalid_request(str(exc), param=exc.param) from exc


def requested_max_tokens(request: ChatCompletionRequest | CompletionRequest) -> int | None:
    if isinstance(request, ChatCompletionRequest):
        return request.requested_max_tokens()
    return request.max_tokens


def engine_logprobs(request: ChatCompletionRequest | CompletionRequest) -> int | None:
    if isinstance(request, ChatCompletionRequest):
        return request.engine_logprobs()
    return request.logprobs

