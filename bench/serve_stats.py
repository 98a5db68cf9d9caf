"""From timed requests to the numbers a serving benchmark reports: per concurrency level TTFT and ITL
percentiles, tokens/s per user and output throughput; the best throughput that meets a tokens/s-per-user SLO; and
the Pareto front of throughput against per-user speed."""

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
class LevelSummary:
    concurrency: int
    requests: int
    errors: int
    wall_s: float
    ttft_p50_ms: float | None
    ttft_p99_ms: float | None
    itl_p50_ms: float | None
    itl_p99_ms: float | None
    token_gap_p99_ms: float | None  # across every gap between streamed chunks: prefill stalls show here
    tps_per_user_p50: float | None  # per request: output tokens after the first / time after the first
    output_tok_s: float  # all output tokens / wall time
    prompt_tokens: int
    cached_tokens: int
    mean_output_tokens: float

    @property
    def cache_hit_rate(self) -> float:
        return self.cached_tokens / self.prompt_tokens if self.prompt_tokens else 0.0

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "cache_hit_rate": round(self.cache_hit_rate, 4)}


def summarize(concurrency: int, results: Sequence[RequestResult], wall_s: float) -> LevelSummary:
    ok = [r for r in results if r.ok]
    ttfts = [r.ttft_s for r in ok if r.ttft_s is not None]
    itls = [r.itl_s for r in ok if r.itl_s is not None]
    gaps = [g for r in ok for g in r.chunk_gaps_s]
    tps = [1.0 / v for v in itls if v > 0]
    output = sum(r.output_tokens for r in ok)
    return LevelSummary(
        concurrency=concurrency, requests=len(results), errors=len(results) - len(ok), wall_s=round(wall_s, 2),
        ttft_p50_ms=_ms(percentile(ttfts, 50)), ttft_p99_ms=_ms(percentile(ttfts, 99)),
        itl_p50_ms=_ms(percentile(itls, 50)), itl_p99_ms=_ms(percentile(itls, 99)),
        token_gap_p99_ms=_ms(percentile(gaps, 99)),
        tps_per_user_p50=None if not tps else round(percentile(tps, 50) or 0.0, 2),
        output_tok_s=round(output / wall_s, 2) if wall_s > 0 else 0.0,
        prompt_tokens=sum(r.prompt_tokens for r in ok), cached_tokens=sum(r.cached_tokens for r in ok),
        mean_output_tokens=round(output / len(ok), 1) if ok else 0.0,
    )


def best_at_slo(levels: Sequence[LevelSummary], slo_tps_per_user: float) -> LevelSummary | None:
    """The level with the highest output throughput whose median user still gets ``slo_tps_per_user``, with no
    failed request (an error never meets an SLO)."""
    meeting = [lv for lv in levels if lv.errors == 0 and lv.tps_per_user_p50 is not None
               and lv.tps_per_user_p50 >= slo_tps_per_user]
    return max(meeting, key=lambda lv: lv.output_tok_s, default=None)


def pareto_front(levels: Sequence[LevelSummary]) -> list[LevelSummary]:
    """Levels no other level beats on both throughput and tokens/s per user, by falling per-user speed."""
    points = [lv for lv in levels if lv.tps_per_user_p50 is not None]
    front = [p for p in points
             if not any(q is not p and q.output_tok_s >= p.output_tok_s and q.tps_per_user_p50 >= p.tps_per_user_p50
                        and (q.output_tok_s > p.output_tok_s or q.tps_per_user_p50 > p.tps_per_user_p50)
                        for q in points)]
    return sorted(front, key=lambda lv: -(lv.tps_per_user_p50 or 0.0))
