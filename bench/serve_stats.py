"""From timed requests to the numbers a serving benchmark reports: per concurrency level TTFT and ITL
percentiles, tokens/s per user, output throughput and goodput (requests that met the SLO, per second); the best
level that holds the SLO; and the Pareto front of throughput against per-user speed.

The SLO has two parts, as a user of an agent feels them: output speed while streaming (tokens/s per user, from the
inter-token latency) and the wait for the first token. A request meets it when its own speed and TTFT both do; a
level holds it when it had no error, its median user gets the speed and its TTFT p90 is within the bound."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from bench.serve_replay import RequestResult


def percentile(values: Sequence[float], q: float) -> float | None:
    """Linear interpolation between closest ranks (numpy's default); None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    rank = (len(ordered) - 1) * q / 100
    low, high = math.floor(rank), math.ceil(rank)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def _ms(value: float | None) -> float | None:
    return None if value is None else round(value * 1e3, 1)


@dataclass(frozen=True, slots=True)
class Slo:
    tps_per_user: float  # output tokens/s after the first token, per request
    ttft_p90_s: float  # time to first token, at the 90th percentile of a level

    def met_by(self, result: RequestResult) -> bool:
        itl, ttft = result.itl_s, result.ttft_s
        return (result.ok and itl is not None and ttft is not None and itl > 0
                and 1.0 / itl >= self.tps_per_user and ttft <= self.ttft_p90_s)

    def to_json(self) -> dict[str, float]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class LevelSummary:
    concurrency: int
    requests: int
    errors: int
    wall_s: float
    ttft_p50_ms: float | None
    ttft_p90_ms: float | None
    ttft_p99_ms: float | None
    itl_p50_ms: float | None
    itl_p99_ms: float | None
    token_gap_p99_ms: float | None  # across every gap between streamed chunks: prefill stalls show here
    tps_per_user_p50: float | None  # per request: output tokens after the first / time after the first
    output_tok_s: float  # all output tokens / wall time
    goodput_rps: float  # requests that met the SLO / wall time
    meets_slo: bool  # no error, median user at the speed, TTFT p90 within the bound
    prompt_tokens: int
    cached_tokens: int
    mean_output_tokens: float

    @property
    def cache_hit_rate(self) -> float:
        return self.cached_tokens / self.prompt_tokens if self.prompt_tokens else 0.0

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "cache_hit_rate": round(self.cache_hit_rate, 4)}


def summarize(concurrency: int, results: Sequence[RequestResult], wall_s: float, slo: Slo) -> LevelSummary:
    ok = [r for r in results if r.ok]
    ttfts = [r.ttft_s for r in ok if r.ttft_s is not None]
    itls = [r.itl_s for r in ok if r.itl_s is not None]
    gaps = [g for r in ok for g in r.chunk_gaps_s]
    tps = [1.0 / v for v in itls if v > 0]
    output = sum(r.output_tokens for r in ok)
    tps_p50 = percentile(tps, 50)
    ttft_p90 = percentile(ttfts, 90)
    holds = (len(ok) == len(results) and tps_p50 is not None and ttft_p90 is not None
             and tps_p50 >= slo.tps_per_user and ttft_p90 <= slo.ttft_p90_s)
    return LevelSummary(
        concurrency=concurrency, requests=len(results), errors=len(results) - len(ok), wall_s=round(wall_s, 2),
        ttft_p50_ms=_ms(percentile(ttfts, 50)), ttft_p90_ms=_ms(ttft_p90), ttft_p99_ms=_ms(percentile(ttfts, 99)),
        itl_p50_ms=_ms(percentile(itls, 50)), itl_p99_ms=_ms(percentile(itls, 99)),
        token_gap_p99_ms=_ms(percentile(gaps, 99)),
        tps_per_user_p50=None if tps_p50 is None else round(tps_p50, 2),
        output_tok_s=round(output / wall_s, 2) if wall_s > 0 else 0.0,
        goodput_rps=round(sum(slo.met_by(r) for r in results) / wall_s, 4) if wall_s > 0 else 0.0,
        meets_slo=holds,
        prompt_tokens=sum(r.prompt_tokens for r in ok), cached_tokens=sum(r.cached_tokens for r in ok),
        mean_output_tokens=round(output / len(ok), 1) if ok else 0.0,
    )


def best_at_slo(levels: Sequence[LevelSummary]) -> LevelSummary | None:
    """The level with the highest goodput among those that hold the SLO (None: none does)."""
    return max((lv for lv in levels if lv.meets_slo), key=lambda lv: lv.goodput_rps, default=None)


def pareto_front(levels: Sequence[LevelSummary]) -> list[LevelSummary]:
    """Levels no other level beats on both throughput and tokens/s per user, by falling per-user speed."""
    points = [(lv, lv.output_tok_s, lv.tps_per_user_p50) for lv in levels if lv.tps_per_user_p50 is not None]
    front = [p for p, tok_s, user in points
             if not any(q is not p and q_tok_s >= tok_s and q_user >= user and (q_tok_s > tok_s or q_user > user)
                        for q, q_tok_s, q_user in points)]
    return sorted(front, key=lambda lv: -(lv.tps_per_user_p50 or 0.0))
