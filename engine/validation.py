"""Request checks run before a request reaches the scheduler (in the caller's process and again in the core),
each failing with a specific ``InvalidRequestError`` subclass and a message a client can act on."""

from __future__ import annotations

from itertools import repeat

from engine.errors import EmptyPromptError, InvalidRequestError, PromptTooLongError
from engine.request import EngineRequest
from engine.sampling_params import SamplingParams


def validate_request(request: EngineRequest, *, max_model_len: int, vocab_size: int) -> None:
    if not isinstance(request.sampling_params, SamplingParams):
        raise InvalidRequestError("sampling_params must be a SamplingParams", param="sampling_params")
    request.sampling_params.validate()
    ids = request.prompt_token_ids
    if not ids:
        raise EmptyPromptError("the prompt is empty: at least one token is required", param="prompt")
    # Runs on the gateway's event loop for every call: C-level passes (type check, then min and max) take about half
    # the time of one Python-level pass over a long prompt's ids.
    if not all(map(isinstance, ids, repeat(int))) or min(ids) < 0 or max(ids) >= vocab_size:
        message = f"prompt token ids must be integers in the vocabulary [0, {vocab_size})"
        raise InvalidRequestError(message, param="prompt")
    if len(ids) >= max_model_len:
        raise PromptTooLongError(
            f"the prompt has {len(ids)} tokens; this model's context is {max_model_len} tokens "
            f"including the completion", param="prompt")
    max_tokens = request.sampling_params.max_tokens
    if len(ids) + max_tokens > max_model_len:
        raise PromptTooLongError(
            f"prompt ({len(ids)} tokens) + max_tokens ({max_tokens}) exceeds the context length of "
            f"{max_model_len} tokens; lower max_tokens to at most {max_model_len - len(ids)}", param="max_tokens")
    if any(not isinstance(t, int) or t < 0 for t in request.sampling_params.stop_token_ids):
        raise InvalidRequestError("stop_token_ids must be non-negative integers", param="stop_token_ids")
    if request.sampling_params.min_tokens and request.structured is not None:
        # The grammar decides where a constrained output ends; banning its end would leave nothing to sample.
        raise InvalidRequestError("min_tokens cannot be combined with a structured output constraint",
                                  param="min_tokens")
