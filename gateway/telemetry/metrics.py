"""Prometheus metrics: vLLM's serving metrics under a ``warden:`` prefix, per-tenant accounting, and the
gateway's own stage latencies.

Multi-worker safe: with ``PROMETHEUS_MULTIPROC_DIR`` set (``warden serve --workers N`` sets it before the workers
start) every value lives in that directory's per-process files, and ``render`` merges all workers' files on each
scrape, so a scrape that lands on any worker sees the whole server. Gauges use live modes: a worker that exits
stops counting (its files are marked dead on shutdown; those of a worker killed without a shutdown are removed by the
next worker to start or to render a scrape: ``dead_workers``).

Tenant labels come from a bounded set (``TenantLabels``): the first ``max_tenants`` tenants seen by a worker get
their own series, the rest share ``other``, so a flood of tenants can never blow up the time-series count.

The per-request metrics (a dozen observations and a few counts per call) are counted in plain Python on the event
loop (``BatchedHistogram``, ``BatchedCounter``) and added to their Prometheus children in one go by ``flush``: a
child's own ``observe`` takes a lock for its sum and another for its bucket, and in multiprocess mode writes both
to its file, on every call. ``render`` flushes first, so a scrape of this worker is exact; for the other workers'
scrapes (multiprocess mode) a worker flushes at the end of a call when ``FLUSH_INTERVAL_S`` has passed since its
last flush, at each engine stats poll (``gateway.telemetry.engine_stats``, every ``engine_stats_interval_s``) and
at shutdown, so what they merge lags its calls by at most the poll interval.
"""

from __future__ import annotations

import os
import shutil
import threading
import time
from bisect import bisect_left
from pathlib import Path
from typing import Any, NamedTuple

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest, values
from prometheus_client import multiprocess as prom_multiprocess

from engine.metrics import EngineStats
from gateway.telemetry.dead_workers import reap_dead_workers

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
PREFIX = "warden:"
# The model-server side of the Gateway API Inference Extension: its endpoint picker scrapes these vLLM names.
GIE_PREFIX = "vllm:"
OTHER_TENANT = "other"
UNKNOWN_TENANT = "unknown"

# vLLM's buckets, so dashboards built for vLLM read Warden's histograms unchanged.
TTFT_BUCKETS = (0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0,
                40.0, 80.0, 160.0, 640.0, 2560.0)
ITL_BUCKETS = (0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0,
               80.0)
REQUEST_BUCKETS = (0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0, 120.0, 240.0,
                   480.0, 960.0, 1920.0, 7680.0)
FLUSH_INTERVAL_S = 0.25  # the longest a finished call's metrics wait in this worker before the files have them
STAGE_BUCKETS = (0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)

# Refusal reasons are label values: only these (the gateway's decision stages and OpenAI error types) appear.
REFUSAL_REASONS = frozenset({
    "auth", "policy", "rate_limit", "input_guardrails", "output_guardrails", "body_size",
    "invalid_request_error", "authentication_error", "permission_error", "not_found_error", "rate_limit_error",
    "service_unavailable_error", "server_error",
})


def multiprocess_dir() -> str | None:
    return os.environ.get(MULTIPROC_ENV) or None


def _use_multiprocess_values() -> None:
    """prometheus_client picks its value storage when it is first imported; if that happened before the
    directory was configured, pick again so the metrics created next are file-backed."""
    if multiprocess_dir() and values.ValueClass is values.MutexValue:
        values.ValueClass = values.get_value_class()


class TenantLabels:
    def __init__(self, max_tenants: int) -> None:
        self.max_tenants = max_tenants
        self._seen: set[str] = set()
        self._lock = threading.Lock()

    def label(self, tenant_id: str | None) -> str:
        if not tenant_id:
            return UNKNOWN_TENANT
        if tenant_id in self._seen:
            return tenant_id
        with self._lock:
            if len(self._seen) < self.max_tenants:
                self._seen.add(tenant_id)
                return tenant_id
        return OTHER_TENANT


def refusal_reason(stage: str | None, error_type: str | None) -> str:
    for candidate in (stage, error_type):
        if candidate in REFUSAL_REASONS:
            return candidate
    return "other"


class BatchedHistogram:
    """A histogram child's observations, counted here until ``flush`` adds them to it. Like the child's ``observe``
    (an observation falls in the first bucket whose upper bound is not below it), without its locks and file writes.
    Used from the event loop's thread only (the request path, and ``/metrics``, which flushes)."""

    __slots__ = ("_bounds", "_child", "_counts", "_sum")

    def __init__(self, child: Any) -> None:
        self._child = child
        self._bounds: list[float] = list(child._upper_bounds)
        self._counts = [0] * len(self._bounds)
        self._sum = 0.0

    def observe(self, amount: float) -> None:
        self._counts[bisect_left(self._bounds, amount)] += 1
        self._sum += amount

    def flush(self) -> None:
        counts, total = self._counts, self._sum
        if not any(counts):
            return
        self._counts, self._sum = [0] * len(counts), 0.0
        child = self._child
        for bucket, count in zip(child._buckets, counts, strict=True):
            if count:
                bucket.inc(count)
        child._sum.inc(total)


class BatchedCounter:
    """A counter child's increments, summed here until ``flush`` adds them to it (see ``BatchedHistogram``)."""

    __slots__ = ("_child", "_pending")

    def __init__(self, child: Any) -> None:
        self._child = child
        self._pending = 0.0

    def inc(self, amount: float = 1) -> None:
        if amount < 0:
            raise ValueError("Counters can only be incremented by non-negative amounts.")
        self._pending += amount

    def flush(self) -> None:
        if self._pending:
            pending, self._pending = self._pending, 0.0
            self._child.inc(pending)


class ModelLatencies(NamedTuple):
    """A model's per-request latency histograms' children (batched): what each engine output observes."""

    ttft: Any
    itl: Any
    e2e: Any
    queue_time: Any
    prefill_time: Any
    decode_time: Any


class GatewayMetrics:
    """Every metric of one gateway process. Each instance has its own registry (tests build many apps); in
    multiprocess mode the values are shared through the directory regardless of the registry."""

    def __init__(self, *, max_tenants: int = 100) -> None:
        _use_multiprocess_values()
        directory = multiprocess_dir()
        if directory is not None:  # a worker starting in a dead one's place: its gauges go now, not at a scrape
            reap_dead_workers(directory)
        self.registry = CollectorRegistry(auto_describe=True)
        self.tenants = TenantLabels(max_tenants)
        r = self.registry
        model = ["model_name"]
        # --- serving (vLLM names) ---
        self.ttft = Histogram(PREFIX + "time_to_first_token_seconds", "Time to first token, from the request's "
                              "arrival at the gateway.", model, buckets=TTFT_BUCKETS, registry=r)
        self.itl = Histogram(PREFIX + "inter_token_latency_seconds", "Time between consecutive streamed outputs of "
                             "a request.", model, buckets=ITL_BUCKETS, registry=r)
        self.e2e = Histogram(PREFIX + "e2e_request_latency_seconds", "Request latency, arrival to last token.",
                             model, buckets=REQUEST_BUCKETS, registry=r)
        self.queue_time = Histogram(PREFIX + "request_queue_time_seconds", "Time a request waited in the engine "
                                    "before its first scheduled step.", model, buckets=REQUEST_BUCKETS, registry=r)
        self.prefill_time = Histogram(PREFIX + "request_prefill_time_seconds", "First scheduled step to first "
                                      "token.", model, buckets=REQUEST_BUCKETS, registry=r)
        self.decode_time = Histogram(PREFIX + "request_decode_time_seconds", "First token to last token.", model,
                                     buckets=REQUEST_BUCKETS, registry=r)
        self.running = Gauge(PREFIX + "num_requests_running", "Requests in the engine's running batch.", model,
                             multiprocess_mode="livesum", registry=r)
        self.waiting = Gauge(PREFIX + "num_requests_waiting", "Requests waiting for the engine.", model,
                             multiprocess_mode="livesum", registry=r)
        self.kv_usage = Gauge(PREFIX + "kv_cache_usage_perc", "Fraction of KV-cache blocks in use (1 = full); the "
                              "fullest engine when several serve.", model, multiprocess_mode="livemax", registry=r)
        # The same engine gauges under the names an inference gateway's endpoint picker reads (GIE model-server
        # protocol), so it can route by queue depth and KV-cache load; the warden: names above stay for dashboards.
        self.gie_running = Gauge(GIE_PREFIX + "num_requests_running", "Requests in the engine's running batch.",
                                 model, multiprocess_mode="livesum", registry=r)
        self.gie_waiting = Gauge(GIE_PREFIX + "num_requests_waiting", "Requests waiting for the engine.", model,
                                 multiprocess_mode="livesum", registry=r)
        self.gie_kv_usage = Gauge(GIE_PREFIX + "kv_cache_usage_perc", "Fraction of KV-cache blocks in use (1 = "
                                  "full).", model, multiprocess_mode="livemax", registry=r)
        self.gie_cache_config = Gauge(GIE_PREFIX + "cache_config_info", "The KV cache's shape (value 1): tokens per "
                                      "block and blocks in all engine replicas.", ["block_size", "num_gpu_blocks"],
                                      multiprocess_mode="livemax", registry=r)
        self._cache_config: tuple[str, str] | None = None
        self.engines_alive = Gauge(PREFIX + "engine_replicas_alive", "Engine replicas alive (WARDEN_ENGINE_REPLICAS); "
                                   "fewer than configured: degraded.", model, multiprocess_mode="livemax", registry=r)
        self.replica_restarts = Counter(PREFIX + "engine_replica_restarts", "Dead engine replicas brought back by "
                                        "the pool's supervisor.", model, registry=r)
        self.audit_quarantined = Counter(PREFIX + "audit_quarantined", "Audit records the store refused, set "
                                         "aside in the quarantine (admin API: GET /admin/audit/quarantine).",
                                         registry=r)
        self.prefix_queries = Counter(PREFIX + "prefix_cache_queries", "Prompt tokens looked up in the prefix "
                                      "cache.", model, registry=r)
        self.prefix_hits = Counter(PREFIX + "prefix_cache_hits", "Prompt tokens found in the prefix cache.", model,
                                   registry=r)
        self.prompt_tokens = Counter(PREFIX + "prompt_tokens", "Prompt tokens processed.", model, registry=r)
        self.generation_tokens = Counter(PREFIX + "generation_tokens", "Tokens generated.", model, registry=r)
        self.preemptions = Counter(PREFIX + "num_preemptions", "Sequences preempted (recomputed later).", model,
                                   registry=r)
        self.spec_draft_tokens = Counter(PREFIX + "spec_decode_num_draft_tokens", "Draft tokens verified "
                                         "(speculative decoding).", model, registry=r)
        self.spec_accepted_tokens = Counter(PREFIX + "spec_decode_num_accepted_tokens", "Draft tokens accepted "
                                            "(each a forward pass saved).", model, registry=r)
        self.spec_proposed_tokens = Counter(PREFIX + "spec_decode_num_proposed_tokens", "Draft tokens proposed; "
                                            "the adaptive budget verifies those expected to pay.", model, registry=r)
        # EngineStats' lifetime counters (engine.metrics.COUNTER_FIELDS), each advanced from its snapshots.
        self._engine_counters = {
            "prefix_cache_queries": self.prefix_queries, "prefix_cache_hits": self.prefix_hits,
            "prompt_tokens": self.prompt_tokens, "generation_tokens": self.generation_tokens,
            "num_preemptions": self.preemptions, "spec_draft_tokens": self.spec_draft_tokens,
            "spec_accepted_tokens": self.spec_accepted_tokens, "spec_proposed_tokens": self.spec_proposed_tokens}
        # --- per tenant ---
        self.tenant_requests = Counter(PREFIX + "tenant_requests", "/v1 requests by tenant, endpoint and HTTP "
                                       "status.", ["tenant", "endpoint", "status"], registry=r)
        self.tenant_tokens = Counter(PREFIX + "tenant_tokens", "Tokens by tenant and kind (prompt, completion, "
                                     "cached).", ["tenant", "kind"], registry=r)
        self.tenant_refusals = Counter(PREFIX + "tenant_refusals", "Requests the gateway refused, by tenant and "
                                       "reason.", ["tenant", "reason"], registry=r)
        # --- the gateway itself ---
        self.stage_seconds = Histogram(PREFIX + "gateway_stage_seconds", "Time spent in each gateway stage of a "
                                       "/v1 request.", ["stage"], buckets=STAGE_BUCKETS, registry=r)
        self.overhead_seconds = Histogram(PREFIX + "gateway_overhead_seconds", "Gateway time per /v1 request, "
                                          "engine time excluded.", ["endpoint"], buckets=STAGE_BUCKETS, registry=r)
        self._last_stats: dict[str, EngineStats] = {}
        self._stage_children: dict[str, BatchedHistogram] = {}
        self._children: dict[tuple[int, tuple[str, ...]], Any] = {}
        self._model_latencies: dict[str, ModelLatencies] = {}
        self._batched: list[BatchedHistogram | BatchedCounter] = []
        self._flushed_at = time.monotonic()

    def stage(self, name: str) -> BatchedHistogram:
        """The stage histogram's child for ``name``, resolved once (labels() takes a lock on every call), batched."""
        child = self._stage_children.get(name)
        if child is None:
            child = self._stage_children[name] = self._batch(self.stage_seconds.labels(name))
        return child

    def child(self, metric: Any, *values: str) -> Any:
        """``metric.labels(*values)``, resolved once per label set (labels() takes a lock and builds a key on every
        call, about ten times a request), batched. For the per-request histograms and counters, whose label values
        are bounded (tenants by ``TenantLabels``, models, endpoints, statuses, kinds) and whose children are never
        removed."""
        key = (id(metric), values)
        child = self._children.get(key)
        if child is None:
            child = self._children[key] = self._batch(metric.labels(*values))
        return child

    def model_latencies(self, model_name: str) -> ModelLatencies:
        """The six latency histograms' children for ``model_name`` (``child`` of each), looked up together: every
        engine output observes one or more of them."""
        latencies = self._model_latencies.get(model_name)
        if latencies is None:
            latencies = self._model_latencies[model_name] = ModelLatencies(*(
                self.child(histogram, model_name) for histogram in (
                    self.ttft, self.itl, self.e2e, self.queue_time, self.prefill_time, self.decode_time)))
        return latencies

    def _batch(self, child: Any) -> Any:
        batched = BatchedHistogram(child) if hasattr(child, "_upper_bounds") else BatchedCounter(child)
        self._batched.append(batched)
        return batched

    def flush(self) -> None:
        """Add what the batched children counted to their Prometheus children."""
        self._flushed_at = time.monotonic()
        for batched in self._batched:
            batched.flush()

    def flush_if_due(self) -> None:
        """``flush`` when ``FLUSH_INTERVAL_S`` has passed since the last one (at the end of each call)."""
        if time.monotonic() - self._flushed_at >= FLUSH_INTERVAL_S:
            self.flush()

    # --- engine snapshots -----------------------------------------------------------------------------------------
    def observe_engine_stats(self, model_name: str, stats: EngineStats) -> None:
        """Gauges are set; counters advance by the difference from the previous snapshot of this engine (a
        restarted engine starts again from zero)."""
        self.running.labels(model_name).set(stats.num_requests_running)
        self.waiting.labels(model_name).set(stats.num_requests_waiting)
        self.kv_usage.labels(model_name).set(stats.kv_cache_usage)
        self.gie_running.labels(model_name).set(stats.num_requests_running)
        self.gie_waiting.labels(model_name).set(stats.num_requests_waiting)
        self.gie_kv_usage.labels(model_name).set(stats.kv_cache_usage)
        if stats.num_blocks > 0:
            self._set_cache_config(str(stats.block_size), str(stats.num_blocks))
        last = self._last_stats.get(model_name)
        for attr, counter in self._engine_counters.items():
            now = getattr(stats, attr)
            before = getattr(last, attr) if last is not None else 0
            delta = now - before if now >= before else now
            if delta:
                counter.labels(model_name).inc(delta)
        self._last_stats[model_name] = stats

    def _set_cache_config(self, block_size: str, num_blocks: str) -> None:
        """One info series: a restarted engine with another KV budget replaces the old one's labels."""
        if self._cache_config == (block_size, num_blocks):
            return
        if self._cache_config is not None:
            self.gie_cache_config.remove(*self._cache_config)
        self.gie_cache_config.labels(block_size, num_blocks).set(1)
        self._cache_config = (block_size, num_blocks)

    # --- exposition -----------------------------------------------------------------------------------------------
    def render(self) -> bytes:
        self.flush()
        directory = multiprocess_dir()
        if directory is None:
            return generate_latest(self.registry)
        reap_dead_workers(directory)  # a killed worker's last gauges must not stay in the sums
        merged = CollectorRegistry()
        prom_multiprocess.MultiProcessCollector(merged, path=directory)
        return generate_latest(merged)


def prepare_multiprocess_dir(path: Path) -> Path:
    """Called once by the parent process before it starts the workers (``warden serve --workers N``): an empty
    directory (values of a previous run would otherwise be counted again) exported to every worker."""
    if path.exists():
        shutil.rmtree(path)
    path.mkdir(parents=True)
    os.environ[MULTIPROC_ENV] = str(path)
    return path


def mark_worker_dead(pid: int | None = None) -> None:
    """On worker shutdown: drop its live gauges from the merged view."""
    directory = multiprocess_dir()
    if directory is not None:
        prom_multiprocess.mark_process_dead(pid or os.getpid(), directory)
