"""Prefix-affinity routing vs a plain load balancer's policies, over the same two engine replicas in one run.

    python -m bench.replica_routing [--quick] [--rounds N] [--policies affinity,round_robin,...] [--out PATH]

Two replica engines start once, each in its own process (``gateway.replicas.start_replicas``, the gateway's path),
on the real model with the engine settings the other CPU benches use (bfloat16 + int4, the decoder compiled, one
torch thread per replica: this box has two cores). Every policy routes over those same two engines:

- ``affinity``: ``ReplicaPool`` itself (``gateway.replicas.affinity.choose``: tenant salt + the prompt's first 32
  tokens, rendezvous-ranked, within the load bound).
- ``affinity_loose``: the same with the first, looser load bound (least loaded + max(8, 50%)): more cache hits,
  less balance (see gateway.replicas.affinity for what that cost).
- ``round_robin``: the next replica in turn, whatever the request (an L4 balancer's default).
- ``least_busy``: the replica with the fewest requests in flight, ties at random (LiteLLM's ``least-busy``).
- ``random``: a uniform choice (LiteLLM's default ``simple-shuffle`` over equal weights).

The baselines are ``ReplicaPool`` subclasses that override ``route`` only, so everything else (in-flight counting,
streaming, release at the last delta) is the production pool's code, and the gateway needs no policy hook.

Workload: multi-tenant chat. Each tenant has its own system prompt (a support manual of varied sentences, 300-600
tokens) and its own cache salt; several users per tenant hold multi-turn conversations, and every later turn
resends the history. The assistant turns in that history are scripted replies, not the model's outputs, so every
policy sees exactly the same token sequences (bfloat16 near-ties would otherwise make the histories differ between
runs). Outputs are a fixed ``--max-tokens`` (``ignore_eos``), so the decode work is the same too. Conversations run
closed-loop, ``--concurrency`` at a time, each sending its next turn as soon as the previous one finishes.

Cold caches: each round gives every policy a fresh salt namespace (``r{round}-{policy}-{tenant}``), so no run can
hit blocks an earlier one computed (the engine hashes the salt into the first block, so a new salt shares nothing)
without restarting the engines and recompiling between runs. Earlier runs' blocks only take up free KV space that
the allocator evicts least-recently-used first. A new salt also re-draws which replica affinity's hash gives each
tenant, so the rounds sample different placements (the per-round replica split is in the JSON). Policies alternate
within every round, so drifting load from other processes on a shared box falls on all alike; the report takes
the median over rounds.

Reported per policy: prefix-cache hit rate (``usage.cached_tokens`` / prompt tokens), prompt tokens computed, TTFT
p50/p90 (client side: the pool call to the first delta with a token, queueing included), completion tok/s and
requests/s (over the round's wall time), and ratios affinity / baseline. Writes bench/results/replica_routing.json
(``--quick`` writes to the temp directory unless ``--out`` says otherwise).
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import os
import random
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import torch

from bench.machine import cpu_description
from bench.prefix import percentile
from bench.provenance import write_results
from engine.config import DEFAULT_BLOCK_SIZE, EngineConfig
from engine.errors import EngineDeadError
from engine.protocol import EngineClient
from engine.request import EngineRequest
from engine.sampling_params import SamplingParams
from gateway.replicas import ReplicaPool, start_replicas

RESULTS = Path(__file__).parent / "results" / "replica_routing.json"


# --- baselines ------------------------------------------------------------------------------------------------------
class RoundRobinPool(ReplicaPool):
    """The next live replica in turn, whatever the request."""

    def __init__(self, replicas: Sequence[EngineClient], *, block_size: int) -> None:
        super().__init__(replicas, block_size=block_size)
        self._next = 0

    def route(self, request: EngineRequest, exclude: set[int] | frozenset[int] = frozenset()) -> int:
        live = self.live()
        for _ in range(len(live)):
            index = self._next % len(live)
            self._next += 1
            if live[index] and index not in exclude:
                return index
        raise EngineDeadError("every engine replica is dead")


class _SeededPool(ReplicaPool):
    """A baseline that picks among the live replicas with its own seeded generator (reproducible runs)."""

    def __init__(self, replicas: Sequence[EngineClient], *, block_size: int, seed: int = 0) -> None:
        super().__init__(replicas, block_size=block_size)
        self._rng = random.Random(seed)

    def _live_indexes(self, exclude: set[int] | frozenset[int]) -> list[int]:
        candidates = [i for i, alive in enumerate(self.live()) if alive and i not in exclude]
        if not candidates:
            raise EngineDeadError("every engine replica is dead")
        return candidates


class LeastBusyPool(_SeededPool):
    """The live replica with the fewest requests in flight (the pool's own count), ties at random."""

    def route(self, request: EngineRequest, exclude: set[int] | frozenset[int] = frozenset()) -> int:
        candidates = self._live_indexes(exclude)
        least = min(self.in_flight[i] for i in candidates)
        return self._rng.choice([i for i in candidates if self.in_flight[i] == least])


class RandomPool(_SeededPool):
    """A uniform choice among the live replicas."""

    def route(self, request: EngineRequest, exclude: set[int] | frozenset[int] = frozenset()) -> int:
        return self._rng.choice(self._live_indexes(exclude))


POLICIES: dict[str, Callable[..., ReplicaPool]] = {
    "affinity": ReplicaPool,
    # The first load bound tried (least loaded + max(8, 50%)), kept to show why the default is tighter.
    "affinity_loose": functools.partial(ReplicaPool, spill_min=8, spill_fraction=0.5),
    "round_robin": RoundRobinPool, "least_busy": LeastBusyPool, "random": RandomPool}


# --- workload -------------------------------------------------------------------------------------------------------
COMPANIES = ["Northwind Freight", "Bluebird Telecom", "Cedar Health", "Orbit Bank", "Lumen Energy", "Atlas Travel",
             "Kite Software", "Harbor Insurance", "Maple Grocers", "Summit Fitness", "Quartz Logistics", "Pine Hotels"]
MANUAL = [
    "Refunds for {product} are granted within {days} days of purchase when the customer still has the receipt.",
    "Never promise a delivery date for {product}; quote the carrier's estimate and say it may change.",
    "If a customer mentions a chargeback, stay polite, do not argue, and hand the case to the {team} team.",
    "Our support hours are {start}:00 to {end}:00 on weekdays; outside them, offer a callback.",
    "A customer who reports a safety problem with {product} must be escalated to {team} at once.",
    "Discounts above {pct} percent need a supervisor's approval, and you must not hint that one is possible.",
    "Account changes require the customer to confirm the last {digits} digits of the card on file.",
    "When a {product} order arrives damaged, ask for a photo and offer a replacement or a full refund.",
    "Do not share internal ticket numbers; give the public case reference that starts with {prefix}.",
    "Customers on the {plan} plan get priority handling and a reply within {hours} hours.",
    "Explain fees in plain words: the {fee} fee covers handling and is refundable only within {days} days.",
    "For questions about data privacy, point to the privacy center and never read personal data aloud.",
    "If the customer writes in {language}, answer in {language} and keep the same level of formality.",
    "Warranty claims for {product} are valid for {months} months and need the serial number.",
    "A cancelled subscription stays active until the end of the billing period; no partial refunds apply.",
    "Never blame another department; say that the {team} team is looking into it and give a time frame.",
    "Loyalty points expire after {months} months without a purchase, and expired points cannot be restored.",
    "When a customer is upset, acknowledge the problem first, then give one concrete next step.",
    "Invoices can be resent to the billing address on file, never to a new address given in the chat.",
    "Price matching applies to {product} only when a competitor sells the same model in stock.",
    "Business customers with more than {seats} seats have an account manager; offer to connect them.",
    "Outages are announced on the status page; do not speculate about causes or repair times.",
]
FILLERS = {
    "product": ["the premium router", "the annual pass", "the travel adapter", "the standing desk", "gift cards",
                "the family plan", "the espresso machine", "the smart thermostat", "the hiking boots"],
    "team": ["billing", "logistics", "safety", "escalations", "accounts", "quality"],
    "days": ["14", "30", "45", "60"], "start": ["7", "8", "9"], "end": ["17", "18", "20"],
    "pct": ["10", "15", "20", "25"], "digits": ["four", "six"], "prefix": ["CS-", "REF-", "HX-", "Q-"],
    "plan": ["Gold", "Business", "Plus", "Enterprise"], "hours": ["2", "4", "12", "24"],
    "fee": ["restocking", "service", "booking", "handling"], "language": ["Spanish", "French", "German"],
    "months": ["6", "12", "18", "24"], "seats": ["20", "50", "100"],
}
QUESTIONS = [
    "My {product} stopped working after a week. What can I do?",
    "Can I get a refund? I bought it {n} days ago.",
    "Why was I charged a fee on my last invoice?",
    "How do I change the card on my account?",
    "When will my order arrive? It has been {n} days.",
    "Is there a discount if I buy {n} of them?",
    "The package was damaged when it arrived. What now?",
    "Can you send my invoice to my office address instead?",
    "I want to cancel my subscription today.",
    "Do my loyalty points expire?",
    "Who do I talk to about a contract for {n} seats?",
    "Your service was down this morning. What happened?",
]
REPLIES = [
    "I am sorry about that. I can help: could you confirm the order number so I can look into it?",
    "Thanks for waiting. I checked your account and passed the case to the right team; you will hear back soon.",
    "I understand. Here is what happens next: we review the request and reply by email within two days.",
    "Happy to help with that. Please confirm the last digits of the card on file first.",
]


def manual(company: str, rng: random.Random, tokenizer, target_tokens: int) -> str:
    """A support manual for ``company`` of at least ``target_tokens`` tokens, from shuffled, filled sentences."""
    sentences = [f"You are the customer support assistant of {company}. Follow this manual in every answer."]
    templates = rng.sample(MANUAL, len(MANUAL))
    while len(tokenizer.encode(" ".join(sentences), add_special_tokens=False)) < target_tokens:
        template = templates[len(sentences) % len(templates)]
        sentences.append(template.format(**{k: rng.choice(v) for k, v in FILLERS.items()}))
    return " ".join(sentences)


@dataclass(frozen=True)
class Conversation:
    tenant: int
    user: int
    # The prompt of each turn: system, then the history so far, then the turn's question (chat template applied).
    prompts: tuple[tuple[int, ...], ...]


def workload(tokenizer, *, tenants: int, users: int, turns: int, system_tokens: tuple[int, int],
             seed: int = 0) -> list[Conversation]:
    """Every conversation, in the order they start (shuffled once, the same for every policy and round)."""
    rng = random.Random(seed)
    conversations = []
    for t in range(tenants):
        system = manual(COMPANIES[t % len(COMPANIES)] + (f" {t // len(COMPANIES) + 1}" if t >= len(COMPANIES)
                                                         else ""), rng, tokenizer, rng.randint(*system_tokens))
        for u in range(users):
            messages = [{"role": "system", "content": system}]
            prompts = []
            for k in range(turns):
                question = rng.choice(QUESTIONS).format(product=rng.choice(FILLERS["product"]), n=rng.randint(2, 40))
                messages.append({"role": "user", "content": question})
                text = tokenizer.apply_chat_template(messages)
                prompts.append(tuple(tokenizer.encode(text, add_special_tokens=False)))
                messages.append({"role": "assistant", "content": REPLIES[(t + u + k) % len(REPLIES)]})
            conversations.append(Conversation(t, u, tuple(prompts)))
    rng.shuffle(conversations)
    return conversations


# --- one run --------------------------------------------------------------------------------------------------------
@dataclass
class Served:
    replica: int
    ttft_s: float
    prompt_tokens: int
    cached_tokens: int
    completion_tokens: int


async def serve(pool: ReplicaPool, request: EngineRequest) -> Served:
    start = time.perf_counter()
    ttft = None
    replica = -1
    last = None
    async for out in pool.generate(request):
        owner = pool.replica_of(request.request_id)  # known until the last delta (max_tokens >= 2)
        replica = owner if owner is not None else replica
        if ttft is None and out.token_ids:
            ttft = time.perf_counter() - start
        last = out
    assert last is not None and last.usage is not None and ttft is not None, last
    assert last.finish_reason == "length", last  # ignore_eos: every request decodes exactly max_tokens
    usage = last.usage
    return Served(replica, ttft, usage.prompt_tokens, usage.cached_tokens, usage.completion_tokens)


async def run_policy(pool: ReplicaPool, conversations: list[Conversation], *, namespace: str, concurrency: int,
                     max_tokens: int) -> dict[str, object]:
    """Closed loop: ``concurrency`` conversations in flight, each sending its turns back to back."""
    params = SamplingParams(max_tokens=max_tokens, temperature=0, ignore_eos=True)
    queue = list(conversations)
    served: list[Served] = []

    async def worker() -> None:
        while queue:
            conv = queue.pop(0)
            salt = f"{namespace}-tenant{conv.tenant}"
            for k, prompt in enumerate(conv.prompts):
                request = EngineRequest(f"{namespace}-t{conv.tenant}-u{conv.user}-k{k}", list(prompt), params,
                                        cache_salt=salt, tenant=f"tenant{conv.tenant}")
                served.append(await serve(pool, request))

    start = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    wall = time.perf_counter() - start
    return summarize(served, wall, replicas=len(pool.replicas))


def summarize(served: list[Served], wall: float, *, replicas: int) -> dict[str, object]:
    prompt = sum(s.prompt_tokens for s in served)
    cached = sum(s.cached_tokens for s in served)
    completion = sum(s.completion_tokens for s in served)
    ttfts = [s.ttft_s for s in served]
    return {"requests": len(served), "prompt_tokens": prompt, "cached_tokens": cached,
            "computed_prompt_tokens": prompt - cached, "completion_tokens": completion,
            "hit_rate": round(cached / prompt, 4), "ttft_p50_s": round(statistics.median(ttfts), 4),
            "ttft_p90_s": round(percentile(ttfts, 90), 4), "completion_tok_s": round(completion / wall, 2),
            "requests_s": round(len(served) / wall, 3), "wall_s": round(wall, 2),
            "routed": [sum(s.replica == i for s in served) for i in range(replicas)]}


# --- report ---------------------------------------------------------------------------------------------------------
METRICS = ("hit_rate", "computed_prompt_tokens", "ttft_p50_s", "ttft_p90_s", "completion_tok_s", "requests_s")


def medians(rounds: list[dict[str, object]]) -> dict[str, float]:
    def median(values: list[float]) -> float:
        value = statistics.median(values)
        return int(value) if float(value).is_integer() else round(value, 4)  # counts stay counts
    return {m: median([r[m] for r in rounds])  # type: ignore[misc]
            for m in (*METRICS, "prompt_tokens", "cached_tokens", "completion_tokens", "requests", "wall_s")}


def print_table(summary: dict[str, dict[str, float]], ratios: dict[str, dict[str, float]]) -> None:
    print(f"\n{'policy':<12}{'hit rate':>9}{'computed':>10}{'TTFT p50':>10}{'TTFT p90':>10}{'tok/s':>8}{'req/s':>7}")
    for name, m in summary.items():
        print(f"{name:<12}{m['hit_rate']:>9.1%}{m['computed_prompt_tokens']:>10.0f}{m['ttft_p50_s']:>9.3f}s"
              f"{m['ttft_p90_s']:>9.3f}s{m['completion_tok_s']:>8.1f}{m['requests_s']:>7.2f}")
    for name, r in ratios.items():
        print(f"affinity / {name}: " + ", ".join(f"{m} {r[m]:.2f}x" for m in METRICS if m != "hit_rate")
              + f", hit rate {summary['affinity']['hit_rate']:.1%} vs {summary[name]['hit_rate']:.1%}")


async def bench(args: argparse.Namespace, policies: list[str]) -> dict[str, object]:
    config = EngineConfig(model=args.model, dtype=args.dtype, quantization=args.quantization,
                          compile_model=not args.no_compile, num_threads=args.threads, show_progress=False,
                          kv_cache_memory_mb=args.kv_cache_mb, max_num_seqs=16, max_num_batched_tokens=1024)
    started = time.perf_counter()
    first = await start_replicas(config, args.replicas, in_process=args.in_process)
    startup_s = time.perf_counter() - started
    assert isinstance(first, ReplicaPool), "the bench needs at least two replicas"
    engines = first.replicas
    try:
        tokenizer = first.tokenizer
        conversations = workload(tokenizer, tenants=args.tenants, users=args.users, turns=args.turns,
                                 system_tokens=tuple(args.system_tokens))  # type: ignore[arg-type]
        system_lengths = sorted({len(c.prompts[0]) for c in conversations})
        print(f"{len(engines)} replicas started in {startup_s:.0f} s; {len(conversations)} conversations x "
              f"{args.turns} turns, first prompts {system_lengths[0]}-{system_lengths[-1]} tokens", flush=True)
        rounds: dict[str, list[dict[str, object]]] = {p: [] for p in policies}
        for round_ in range(args.rounds):
            order = policies if round_ % 2 == 0 else policies[::-1]  # alternate who goes first
            for name in order:
                pool = POLICIES[name](engines, block_size=config.block_size or DEFAULT_BLOCK_SIZE)
                result = await run_policy(pool, conversations, namespace=f"r{round_}-{name}",
                                          concurrency=args.concurrency, max_tokens=args.max_tokens)
                rounds[name].append(result)
                print(f"  round {round_ + 1} {name:<12} hit {result['hit_rate']:.1%}  computed "
                      f"{result['computed_prompt_tokens']}  TTFT p50 {result['ttft_p50_s']:.3f} s  "
                      f"{result['completion_tok_s']:.1f} tok/s  routed {result['routed']}", flush=True)
    finally:
        await asyncio.gather(*(e.shutdown() for e in engines), return_exceptions=True)

    summary = {name: medians(per) for name, per in rounds.items()}
    ratios = {name: {m: round(summary["affinity"][m] / summary[name][m], 3) if summary[name][m] else None
                     for m in METRICS} for name in policies if name != "affinity"}
    print_table(summary, ratios)  # type: ignore[arg-type]
    return {
        "policies": summary, "affinity_over_baseline": ratios, "rounds": rounds,
        "workload": {"tenants": args.tenants, "users_per_tenant": args.users, "turns": args.turns,
                     "requests_per_round": sum(len(c.prompts) for c in conversations),
                     "system_prompt_tokens": list(args.system_tokens), "first_prompt_tokens_min_max":
                         [system_lengths[0], system_lengths[-1]], "max_tokens": args.max_tokens,
                     "concurrency": args.concurrency},
        "cold_caches": "a fresh cache-salt namespace per round and policy (r{round}-{policy}-tenant{t})",
        "settings": {"model": args.model, "replicas": args.replicas, "in_process": args.in_process,
                     "dtype": args.dtype, "quantization": args.quantization, "compile": not args.no_compile,
                     "threads_per_replica": args.threads, "kv_cache_memory_mb": args.kv_cache_mb,
                     "max_num_seqs": 16, "max_num_batched_tokens": 1024, "rounds": args.rounds,
                     "startup_s": round(startup_s, 1), "cpus": os.cpu_count(),
                     "cpu": cpu_description(), "torch": torch.__version__},
        "engine_config": {k: v for k, v in asdict(config).items() if isinstance(v, (int, float, str, bool))},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.replica_routing", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="4 tenants x 2 users x 2 turns, 1 round")
    parser.add_argument("--policies", default=",".join(POLICIES),
                        help=f"comma-separated, affinity first; from {', '.join(POLICIES)}")
    parser.add_argument("--rounds", type=int, default=None, help="default 3 (1 with --quick)")
    parser.add_argument("--tenants", type=int, default=None, help="default 8 (4 with --quick)")
    parser.add_argument("--users", type=int, default=None, help="conversations per tenant (default 3; 2 quick)")
    parser.add_argument("--turns", type=int, default=None, help="turns per conversation (default 3; 2 quick)")
    parser.add_argument("--system-tokens", type=int, nargs=2, default=[300, 600], metavar=("MIN", "MAX"))
    parser.add_argument("--max-tokens", type=int, default=24)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--replicas", type=int, default=2)
    parser.add_argument("--model", default="default")
    parser.add_argument("--dtype", default="bfloat16")
    parser.add_argument("--quantization", default="int4", help="int4, int8 or none")
    parser.add_argument("--no-compile", action="store_true", help="run the decoder eagerly (starts in seconds)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads per replica")
    parser.add_argument("--kv-cache-mb", type=int, default=256, help="KV cache per replica")
    parser.add_argument("--in-process", action="store_true", help="engine cores as threads here (tests)")
    parser.add_argument("--note", default="", help="machine state to record beside the numbers")
    parser.add_argument("--out", type=Path, default=None,
                        help=f"default {RESULTS} (with --quick: the temp directory, never the committed file)")
    args = parser.parse_args(argv)
    args.rounds = args.rounds or (1 if args.quick else 3)
    args.tenants = args.tenants or (4 if args.quick else 8)
    args.users = args.users or (2 if args.quick else 3)
    args.turns = args.turns or (2 if args.quick else 3)
    args.quantization = None if args.quantization in ("none", "") else args.quantization
    out = args.out or (Path(tempfile.gettempdir()) / "replica_routing_quick.json" if args.quick else RESULTS)
    policies = [p.strip() for p in args.policies.split(",") if p.strip()]
    if args.max_tokens < 2:
        parser.error("--max-tokens must be at least 2 (the pool forgets a request's replica at its last delta)")
    if policies[:1] != ["affinity"] or len(policies) < 2 or not set(policies) <= set(POLICIES):
        baselines = ", ".join(p for p in POLICIES if p != "affinity")
        parser.error(f"--policies: affinity first, then at least one of {baselines}")

    load_before = os.getloadavg()
    report = asyncio.run(bench(args, policies))
    report["machine"] = {"load_average_1_5_15_start": [round(x, 2) for x in load_before],
                         "load_average_1_5_15_end": [round(x, 2) for x in os.getloadavg()], "note": args.note}
    write_results(out, report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
