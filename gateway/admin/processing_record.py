"""A GDPR Art. 30-style record of processing for one tenant, generated from its active policy and from what the
audit trail shows was actually processed (PII categories detected, models that received data)."""

from __future__ import annotations

from collections import Counter, defaultdict
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from gateway.admin.service import ADMIN_ENDPOINT_PREFIX
from gateway.audit.models import AuditRecord
from gateway.core.clock import utcnow
from gateway.policystore.service import load_active_policy
from gateway.tenants.models import Tenant
from policies import AuditContent, InjectionAction, PiiAction, Policy

PURPOSES = [
    "Generating text with large language models for the tenant's applications (OpenAI-compatible API)",
    "Enforcing the tenant's usage policy: model allow-list, token caps and rate limits",
    "Protecting data subjects and the service: personal-data redaction and prompt-injection screening",
    "Accountability: a tamper-evident audit trail of every request and administrative action",
]


def _observed_pii(tenant_id: str, start: datetime, *, session: Session) -> dict[str, dict[str, Any]]:
    """Entity types the guardrails reported, with counts per side and action. Reads the decisions column page
    by page (the JSON layout differs between backends, so it is tallied here rather than in SQL)."""
    seen: dict[str, dict[str, Any]] = defaultdict(lambda: {"count": 0, "sides": set(), "actions": Counter()})
    rows = session.scalars(
        select(AuditRecord.decisions)
        .where(AuditRecord.tenant_id == tenant_id, AuditRecord.chain_id == tenant_id,
               AuditRecord.created_at >= start, AuditRecord.endpoint.not_like(f"{ADMIN_ENDPOINT_PREFIX}%"))
        .execution_options(yield_per=1000))
    for decisions in rows:
        for decision in decisions or []:
            if not isinstance(decision, dict) or decision.get("kind") != "pii":
                continue
            for entity in decision.get("entities", []):
                entry = seen[str(entity.get("entity_type"))]
                count = int(entity.get("count", 1))
                entry["count"] += count
                entry["sides"].add(str(decision.get("side", "input")))
                entry["actions"][str(entity.get("action"))] += count
    return {name: {"detections": v["count"], "sides": sorted(v["sides"]), "actions": dict(v["actions"])}
            for name, v in sorted(seen.items())}


def _recipients(tenant_id: str, start: datetime, *, session: Session) -> list[dict[str, Any]]:
    rows = session.execute(
        select(AuditRecord.model, func.count(), func.max(AuditRecord.created_at))
        .where(AuditRecord.tenant_id == tenant_id, AuditRecord.chain_id == tenant_id,
               AuditRecord.created_at >= start, AuditRecord.http_status < 400, AuditRecord.model.is_not(None),
               AuditRecord.endpoint.not_like(f"{ADMIN_ENDPOINT_PREFIX}%"))
        .group_by(AuditRecord.model).order_by(AuditRecord.model))
    return [{"model": model, "requests": int(count), "last_used": last,
             "processor": "Warden co-located inference engine (same host; no third-party transfer)"}
            for model, count, last in rows]


def _safeguards(policy: Policy) -> list[str]:
    safeguards = [
        "API keys stored only as peppered HMAC-SHA256; TLS on the API",
        "Per-tenant isolated prefix cache: one tenant's prompts never serve another's",
        "Hash-chained audit records per tenant, with periodically signed (Ed25519) chain-head checkpoints",
        "Role-scoped admin access through OIDC-issued tokens; every admin action audited",
    ]
    protected = sorted(e for e, a in policy.pii_input.entities.items() if a is not PiiAction.ALLOW)
    if protected:
        safeguards.append("Input personal data masked, tokenised or blocked before the model sees it: "
                          + ", ".join(f"{e} ({policy.pii_input.entities[e].value})" for e in protected))
    out_protected = sorted(e for e, a in policy.pii_output.entities.items() if a is not PiiAction.ALLOW)
    if out_protected:
        safeguards.append("Model output redacted for: " + ", ".join(out_protected))
    if policy.injection.action is not InjectionAction.OFF:
        safeguards.append(f"Prompt-injection screening ({policy.injection.action.value} at score "
                          f"{policy.injection.threshold:g})")
    content = {AuditContent.FULL: "full prompt and completion text",
               AuditContent.REDACTED: "text after personal-data redaction",
               AuditContent.HASHES: "content hashes only (no text)"}[policy.audit_content]
    safeguards.append(f"Audit records keep {content}")
    return safeguards


def processing_record(tenant: Tenant, *, session: Session, now: datetime | None = None) -> dict[str, Any]:
    now = now or utcnow()
    active = load_active_policy(tenant.id, session=session)
    policy = active.policy
    start = now - timedelta(days=policy.retention_days)
    return {
        "record_type": "GDPR Art. 30(2) record of processing activities (processor)",
        "generated_at": now,
        "tenant": {"id": tenant.id, "name": tenant.name, "role": "controller"},
        "processor": "Warden LLM gateway operator",
        "policy_version": active.version,
        "observation_window": {"from": start, "to": now},
        "purposes": PURPOSES,
        "categories_of_personal_data": {
            "observed": _observed_pii(tenant.id, start, session=session),
            "policy_input_actions": {k: v.value for k, v in sorted(policy.pii_input.entities.items())},
            "note": "Prompts may contain any personal data the tenant's users submit; 'observed' lists what the "
                    "detectors found in this window.",
        },
        "recipients": _recipients(tenant.id, start, session=session),
        "retention": {"audit_records_days": policy.retention_days, "legal_hold": bool(tenant.legal_hold),
                      "audit_content": policy.audit_content.value,
                      "erasure": "monthly partitions past retention are dropped (unless on legal hold)"},
        "safeguards": _safeguards(policy),
    }
