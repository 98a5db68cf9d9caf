"""The chat template render on the request path: sandboxed jinja against the compiled ChatML renderer, on the
default model's template, alternating in one process.

    python -m bench.chat_template [--rounds 9] [--calls 2000]

Conversations like chat requests: a system prompt plus 1-5 user turns with the assistant's answers between them,
generation prompt on (what ``gateway.openai.prompts.chat_prompt_ids`` renders). The jinja arm renders through the
same compiled template ``ChatTemplate`` falls back to; the fast arm is ``Tokenizer.apply_chat_template``, the
request path's call. The outputs are
checked equal first. Figures are medians over rounds of the calling thread's CPU time per render; nothing is
written: the numbers go to stdout.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable
from typing import Any

from engine.loader.gguf_metadata import read_gguf_metadata
from engine.loader.source import default_gguf_path
from engine.tokenization.chat_template import chatml_renderer, compile_template
from engine.tokenization.tokenizer import FastTokenizer, Tokenizer


def conversations() -> list[list[dict[str, Any]]]:
    out = []
    for turns in range(1, 6):
        messages = [{"role": "system", "content": "You are a careful support assistant for ACME. Answer briefly."}]
        for t in range(turns):
            messages.append({"role": "user", "content": f"Question {t}: how do I reset my password on the portal?"})
            if t < turns - 1:
                messages.append({"role": "assistant", "content": f"Answer {t}: open Settings, then Reset password."})
        out.append(messages)
    return out


def per_call_us(render: Callable[[list[dict[str, Any]]], str], convs: list[list[dict[str, Any]]], calls: int) -> float:
    rounds = max(1, calls // len(convs))
    start = time.thread_time_ns()
    for _ in range(rounds):
        for messages in convs:
            render(messages)
    return (time.thread_time_ns() - start) / (rounds * len(convs)) / 1000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--calls", type=int, default=2000, help="renders per arm per round")
    args = parser.parse_args(argv)

    metadata = read_gguf_metadata(default_gguf_path())
    tokenizer = Tokenizer(FastTokenizer.from_str(metadata.tokenizer_json), **metadata.tokenizer_fields)
    source = tokenizer.chat_template
    if source is None:
        raise SystemExit("the default model has no chat template")
    special = tokenizer.special_tokens_map()
    start = time.perf_counter()
    recognised = chatml_renderer(source, tuple(special.items()))
    recognise_ms = (time.perf_counter() - start) * 1000
    if recognised is None:
        raise SystemExit("the default model's template was not recognised as ChatML")
    template = compile_template(source)

    def jinja(messages: list[dict[str, Any]]) -> str:
        return template.render(messages=messages, tools=None, documents=None, add_generation_prompt=True, **special)

    def fast(messages: list[dict[str, Any]]) -> str:
        return tokenizer.apply_chat_template(messages, add_generation_prompt=True)

    convs = conversations()
    for messages in convs:
        if jinja(messages) != fast(messages):
            raise SystemExit("the fast renderer disagrees with jinja")
    arms = {"jinja": jinja, "fast": fast}
    for render in arms.values():
        per_call_us(render, convs, args.calls // 4)
    times: dict[str, list[float]] = {name: [] for name in arms}
    for _ in range(args.rounds):
        for name, render in arms.items():
            times[name].append(per_call_us(render, convs, args.calls))
    print(f"load {os.getloadavg()[0]:.2f}; recognition (probes, once per template): {recognise_ms:.1f} ms wall")
    for name, values in times.items():
        print(f"{name:6s} median {statistics.median(values):7.2f} us/render  "
              f"(min {min(values):.2f}, max {max(values):.2f}, {args.rounds} rounds, thread CPU)")
    ratio = statistics.median(times["jinja"]) / statistics.median(times["fast"])
    print(f"speed-up {ratio:.1f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
