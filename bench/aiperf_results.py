"""Read AIPerf's summary export (``profile_export_aiperf.json``) and set its figures beside bench.serve's for the
same level: TTFT p50/p90, ITL p50 and output tokens/s, each with its relative difference.

Both tools time a request the same way (TTFT to the first streamed content, ITL = (last - first content) /
(output tokens - 1) per request, percentiles over requests, output tokens/s = all output tokens / the level's wall
time), so a gap between them is the load generators' own cost or a real difference in what they sent, not a
difference in definitions. This module needs nothing of AIPerf's: its tests run without it installed.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

AGREEMENT = 0.10  # the largest relative difference at which the two tools count as agreeing
# (our name, bench.serve's LevelSummary field): the figures compared.
COMPARED = (("ttft_p50_ms", "ttft_p50_ms"), ("ttft_p90_ms", "ttft_p90_ms"), ("itl_p50_ms", "itl_p50_ms"),
            ("output_tok_s", "output_tok_s"))


class ExportError(ValueError):
    """The export is not a complete AIPerf run of a streaming endpoint."""


@dataclass(frozen=True, slots=True)
class AiperfLevel:
    """One AIPerf run's figures, in bench.serve's units (ms, tokens/s)."""
    requests: int
    errors: int
    duration_s: float
    ttft_p50_ms: float
    ttft_p90_ms: float
    ttft_p99_ms: float
    first_output_token_p50_ms: float | None  # TTFT to the first non-empty content (AIPerf reports both)
    itl_p50_ms: float
    itl_p99_ms: float
    tps_per_user_p50: float | None
    output_tok_s: float
    mean_output_tokens: float
    cached_prompt_fraction: float | None  # the server's cached prompt tokens / prompt tokens (usage)

    def to_json(self) -> dict[str, Any]:
        return {key: (round(value, 2) if isinstance(value, float) else value) for key, value in asdict(self).items()}


def _metric(export: Mapping[str, Any], name: str, stat: str, unit: str) -> float:
    metric = export.get(name)
    if not isinstance(metric, Mapping) or metric.get(stat) is None:
        raise ExportError(f"the export has no {name}.{stat} (was the run streaming, with server token counts?)")
    if metric.get("unit") != unit:
        raise ExportError(f"{name} is in {metric.get('unit')!r}, expected {unit!r}")
    return float(metric[stat])


def _optional(export: Mapping[str, Any], name: str, stat: str, unit: str) -> float | None:
    try:
        return _metric(export, name, stat, unit)
    except ExportError:
        return None


def parse_export(export: Mapping[str, Any]) -> AiperfLevel:
    """The figures of a summary export (the parsed ``profile_export_aiperf.json``)."""
    if export.get("was_cancelled") or export.get("is_complete") is False:
        raise ExportError("the AIPerf run was cancelled or did not complete")
    requests = int(_metric(export, "request_count", "avg", "requests"))
    errors = sum(int(item.get("count", 0)) for item in export.get("error_summary") or ())
    cache_pct = _optional(export, "overall_usage_prompt_cache_read_pct", "avg", "%")
    return AiperfLevel(
        requests=requests, errors=errors,
        duration_s=_metric(export, "benchmark_duration", "avg", "sec"),
        ttft_p50_ms=_metric(export, "time_to_first_token", "p50", "ms"),
        ttft_p90_ms=_metric(export, "time_to_first_token", "p90", "ms"),
        ttft_p99_ms=_metric(export, "time_to_first_token", "p99", "ms"),
        first_output_token_p50_ms=_optional(export, "time_to_first_output_token", "p50", "ms"),
        itl_p50_ms=_metric(export, "inter_token_latency", "p50", "ms"),
        itl_p99_ms=_metric(export, "inter_token_latency", "p99", "ms"),
        tps_per_user_p50=_optional(export, "output_token_throughput_per_user", "p50", "tokens/sec/user"),
        output_tok_s=_metric(export, "output_token_throughput", "avg", "tokens/sec"),
        mean_output_tokens=_metric(export, "output_sequence_length", "avg", "tokens"),
        cached_prompt_fraction=None if cache_pct is None else cache_pct / 100,
    )


def read_export(path: Path) -> AiperfLevel:
    return parse_export(json.loads(path.read_text(encoding="utf-8")))


def relative_difference(aiperf: float | None, serve: float | None) -> float | None:
    """(AIPerf - bench.serve) / bench.serve; None where either is missing or bench.serve's is zero."""
    if aiperf is None or serve is None or serve == 0:
        return None
    return round((aiperf - serve) / serve, 4)


def median_of(rounds: Sequence[Mapping[str, Any]], key: str) -> float | None:
    values = [float(r[key]) for r in rounds if r.get(key) is not None]
    return round(statistics.median(values), 2) if values else None


def compare(serve_rounds: Sequence[Mapping[str, Any]], aiperf_rounds: Sequence[Mapping[str, Any]],
            tolerance: float = AGREEMENT) -> dict[str, Any]:
    """Each compared figure as the median over rounds from either tool, their relative difference, and whether
    every figure is within ``tolerance``."""
    figures: dict[str, Any] = {}
    for name, serve_key in COMPARED:
        serve, aiperf = median_of(serve_rounds, serve_key), median_of(aiperf_rounds, name)
        figures[name] = {"bench_serve": serve, "aiperf": aiperf, "relative_difference": relative_difference(aiperf,
                                                                                                            serve)}
    differences = [f["relative_difference"] for f in figures.values()]
    agree = all(d is not None and abs(d) <= tolerance for d in differences)
    known = [abs(d) for d in differences if d is not None]
    return {"figures": figures, "max_abs_relative_difference": max(known) if known else None,
            "within_tolerance": agree}
