"""``python -m engine.generate "prompt"`` (and ``warden generate``): stream one chat completion to stdout."""

from __future__ import annotations

import argparse
import asyncio
import sys
import uuid

from engine.config import EngineConfig
from engine.errors import EngineError
from engine.launch import start_engine
from engine.request import EngineRequest
from engine.sampling_params import SamplingParams


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="warden generate", description="Generate a chat completion locally.")
    p.add_argument("prompt", help="the user message")
    p.add_argument("--system", default=None, help="an optional system message")
    p.add_argument("--model", default="default", help="'default', a .gguf file or an HF checkpoint directory")
    p.add_argument("--max-tokens", type=int, default=256)
    p.add_argument("--temperature", type=float, default=0.0, help="0 = greedy (default)")
    p.add_argument("--top-p", type=float, default=1.0)
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--dtype", default="auto", choices=["auto", "float32", "bfloat16", "float16"])
    p.add_argument("--quantization", default=None, choices=["int8", "int4"])
    p.add_argument("--usage", action="store_true", help="print token usage to stderr")
    return p


async def _run(args: argparse.Namespace) -> int:
    config = EngineConfig(model=args.model, dtype=args.dtype, quantization=args.quantization, show_progress=False,
                          kv_cache_memory_mb=64)
    client = await start_engine(config, in_process=True)
    try:
        messages = ([{"role": "system", "content": args.system}] if args.system else []) + [
            {"role": "user", "content": args.prompt}]
        prompt = client.tokenizer.apply_chat_template(messages, add_generation_prompt=True)
        params = SamplingParams(max_tokens=args.max_tokens, temperature=args.temperature, top_p=args.top_p,
                                seed=args.seed)
        request = EngineRequest(uuid.uuid4().hex, client.tokenizer.encode(prompt), params)
        last = None
        async for delta in client.generate(request):
            sys.stdout.write(delta.text)
            sys.stdout.flush()
            last = delta
        sys.stdout.write("\n")
        if args.usage and last is not None and last.usage is not None:
            u = last.usage
            print(f"[{last.finish_reason}] prompt {u.prompt_tokens}, completion {u.completion_tokens} tokens",
                  file=sys.stderr)
        return 0 if last is not None and last.finish_reason != "error" else 1
    finally:
        await client.shutdown()


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return asyncio.run(_run(args))
    except EngineError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
