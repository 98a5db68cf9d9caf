"""From a validated /v1 request to token ids and sampling parameters for the engine."""

from __future__ import annotations

from engine.errors import InvalidRequestError
from engine.protocol import TokenizerLike
from engine.sampling_params import SamplingParams
from gateway.core.errors import invalid_request
from gateway.openai.schemas import ChatCompletionRequest, ChatMessage, CompletionRequest, _SamplingFields


def chat_messages(messages: list[ChatMessage], texts: list[str]) -> list[dict[str, str]]:
    """Template input: ``developer`` is the newer name of ``system``; contents replaced by the screened texts."""
    return [{"role": "system" if m.role == "developer" else m.role, "content": text}
            for m, text in zip(messages, texts, strict=True)]


def chat_prompt_ids(tokenizer: TokenizerLike, messages: list[dict[str, str]]) -> list[int]:
    rendered = tokenizer.apply_chat_template(messages, add_generation_prompt=True)
    return tokenizer.encode(rendered, add_special_tokens=False)


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

