"""A scenario's figures from the load generator's outcomes and the audit trail, the targets each one is held to,
and the printed table."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.chaos.load import NO_RESPONSE, RequestResult
from bench.provenance import with_provenance
from bench.serve_stats import percentile

PHASES = ("before", "during", "after")
RECOVERY_TARGET_S = 10.0


@dataclass
class AuditCheck:
    expected: set[str]
    present: set[str]
    verify_ok: bool | None
    verify_output: str
    outcomes: dict[str, int] = field(default_factory=dict)

    @property
    def missing(self) -> list[str]:
        return sorted(self.expected - self.present)


def failure_label(result: RequestResult) -> str:
    if result.status == NO_RESPONSE:
        return f"no_response:{result.error}"
    if result.status == 200:
        return f"200_{result.error or 'incomplete'}"
    return str(result.status)


def recovery_seconds(results: Sequence[RequestResult], fault_end_s: float) -> float | None:
    """From the fault's end to the send of the first request from which every later one succeeded (0 when no request
    sent after the end failed); None when the last request sent still failed (not recovered within the scenario)."""
    after = sorted((r for r in results if r.sent_s >= fault_end_s), key=lambda r: r.sent_s)
    if not after:
        return None
    failed = [i for i, r in enumerate(after) if not r.completed]
    if not failed:
        return 0.0
    if failed[-1] + 1 >= len(after):
        return None
    return round(max(0.0, after[failed[-1] + 1].sent_s - fault_end_s), 2)


def _p99_ms(results: Sequence[RequestResult], phase: str) -> float | None:
    latencies = [r.latency_s for r in results if r.phase == phase and r.status == 200 and r.completed]
    value = percentile(latencies, 99)
    return None if value is None else round(value * 1000, 1)


def summarise(name: str, description: str, results: Sequence[RequestResult], audit: AuditCheck,
              recovery_s: float | None, *, recovery_applies: bool = True, extra: dict[str, Any] | None = None,
              ) -> dict[str, Any]:
    failed = Counter(failure_label(r) for r in results if not r.completed)
    other_5xx = sum(1 for r in results if r.status >= 500 and r.status != 503)
    unavailable = [r for r in results if r.status == 503]
    without_retry_after = sum(1 for r in unavailable if not r.retry_after)
    missing = audit.missing
    targets = {
        "zero_audit_rows_lost": not missing,
        "zero_500s": other_5xx == 0,
        "every_503_has_retry_after": without_retry_after == 0,
        "chain_verifies": bool(audit.verify_ok),
    }
    if recovery_applies:
        targets["recovered_within_10s"] = recovery_s is not None and recovery_s <= RECOVERY_TARGET_S
    return {
        "scenario": name,
        "fault": description,
        "requests": {"sent": len(results), "succeeded": sum(r.completed for r in results),
                     "failed_by_status": dict(sorted(failed.items())),
                     "streams": sum(r.stream for r in results),
                     "by_tenant": dict(Counter(r.tenant for r in results))},
        "five_xx_other_than_503": other_5xx,
        "responses_503": len(unavailable),
        "responses_503_without_retry_after": without_retry_after,
        "p99_ms": {phase: _p99_ms(results, phase) for phase in PHASES},
        "audit": {"expected": len(audit.expected), "present": len(audit.present & audit.expected),
                  "missing": len(missing), "missing_sample": missing[:5], "row_outcomes": audit.outcomes},
        "audit_verify": {"ok": audit.verify_ok, "output": audit.verify_output},
        "recovery_s": recovery_s,
        "targets": targets,
        "passed": all(targets.values()),
        **(extra or {}),
    }


def print_scenario(entry: dict[str, Any]) -> None:
    requests, audit, p99 = entry["requests"], entry["audit"], entry["p99_ms"]
    status = "PASS" if entry["passed"] else "FAIL " + ",".join(k for k, ok in entry["targets"].items() if not ok)
    p99_text = " / ".join("-" if p99[p] is None else f"{p99[p]:.0f}" for p in PHASES)
    print(f"\n== {entry['scenario']}: {entry['fault']}  [{status}]")
    print(f"   sent {requests['sent']}  ok {requests['succeeded']}  failed {requests['failed_by_status']}")
    print(f"   5xx!=503 {entry['five_xx_other_than_503']}  503 {entry['responses_503']} "
          f"(without Retry-After {entry['responses_503_without_retry_after']})  p99 ms before/during/after {p99_text}")
    print(f"   audit rows {audit['present']}/{audit['expected']} (missing {audit['missing']})  "
          f"verify: {entry['audit_verify']['output']}  recovery {entry['recovery_s']} s")
    for key in ("notes", "detail"):
        if entry.get(key):
            print(f"   {key}: {entry[key]}")


def write_results(path: Path, document: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(with_provenance(document), indent=2, sort_keys=False) + "\n")
