import json
from datetime import UTC, datetime, timedelta

import pytest
from pydantic import ValidationError

from policies import (
    SCHEMA_VERSION,
    AuditContent,
    InjectionAction,
    InjectionRules,
    KeyOverride,
    PiiAction,
    PiiRules,
    Policy,
    RateLimits,
    active_entity_types,
    effective_max_tokens,
    effective_policy,
    injection_action,
    model_allowed,
    needs_ner,
    pii_action,
    retention_cutoff,
)


def test_default_policy_is_conservative_and_round_trips_through_json():
    policy = Policy.default()
    assert policy.schema_version == SCHEMA_VERSION
    assert policy.audit_content is AuditContent.REDACTED
    assert policy.rate_limits.fail_open is False
    assert policy.pii_input.entities["EMAIL_ADDRESS"] is PiiAction.MASK
    assert Policy.model_validate_json(policy.model_dump_json()) == policy


def test_json_schema_is_exported_for_the_admin_api():
    schema = Policy.json_schema()
    json.dumps(schema)
    assert {"allowed_models", "rate_limits", "pii_input", "pii_output", "injection", "audit_content"} <= set(
        schema["properties"]
    )


@pytest.mark.parametrize(
    "document",
    [
        {"schema_version": 2},
        {"max_token_cap": 5},  # typo: unknown keys are refused, not ignored
        {"max_tokens_cap": 0},
        {"weight": 0},
        {"rate_limits": {"requests_per_minute": 0}},
        {"pii_input": {"entities": {"EMAIL_ADDRESS": "shred"}}},
        {"pii_input": {"score_threshold": 1.5}},
        {"injection": {"action": "maybe"}},
        {"audit_content": "everything"},
        {"output_deny_patterns": ["(unclosed"]},
        {"retention_days": 0},
    ],
)
def test_invalid_documents_are_rejected(document):
    with pytest.raises(ValidationError):
        Policy.model_validate(document)


def test_entity_names_are_normalised_to_upper_case():
    rules = PiiRules(entities={" email_address ": PiiAction.HASH})
    assert rules.entities == {"EMAIL_ADDRESS": PiiAction.HASH}


def test_key_override_replaces_only_the_fields_it_sets():
    policy = Policy(
        allowed_models=["a", "b"],
        max_tokens_cap=1000,
        weight=3,
        rate_limits=RateLimits(requests_per_minute=60),
        key_overrides={"k1": KeyOverride(max_tokens_cap=100, rate_limits=RateLimits(requests_per_minute=5))},
    )
    narrowed = effective_policy(policy, "k1")
    assert narrowed.max_tokens_cap == 100
    assert narrowed.rate_limits.requests_per_minute == 5
    assert narrowed.allowed_models == ["a", "b"] and narrowed.weight == 3
    assert effective_policy(policy, "other") is policy
    assert effective_policy(policy, None) is policy


def test_model_allow_list():
    assert model_allowed(Policy(), "anything")
    policy = Policy(allowed_models=["smollm2-135m"])
    assert model_allowed(policy, "smollm2-135m")
    assert not model_allowed(policy, "gpt-4")
    assert not model_allowed(Policy(allowed_models=[]), "smollm2-135m")


@pytest.mark.parametrize(
    ("cap", "requested", "expected"),
    [(None, None, None), (None, 50, 50), (100, None, 100), (100, 50, 50), (100, 500, 100)],
)
def test_max_tokens_is_clamped_to_the_cap(cap, requested, expected):
    assert effective_max_tokens(Policy(max_tokens_cap=cap), requested) == expected


def test_pii_action_applies_threshold_then_rule_then_default():
    rules = PiiRules(entities={"EMAIL_ADDRESS": PiiAction.HASH}, default_action=PiiAction.MASK, score_threshold=0.6)
    assert pii_action(rules, "EMAIL_ADDRESS", 0.9) is PiiAction.HASH
    assert pii_action(rules, "EMAIL_ADDRESS", 0.59) is PiiAction.ALLOW
    assert pii_action(rules, "IBAN_CODE", 0.9) is PiiAction.MASK


def test_ner_only_runs_when_a_name_or_place_could_change_the_outcome():
    assert not needs_ner(PiiRules())  # defaults allow PERSON and LOCATION
    assert needs_ner(PiiRules(entities={"PERSON": PiiAction.MASK}))
    assert not needs_ner(PiiRules(entities={"PERSON": PiiAction.MASK}, ner_enabled=False))
    assert needs_ner(PiiRules(entities={}, default_action=PiiAction.BLOCK))
    assert active_entity_types(PiiRules(entities={"US_SSN": PiiAction.BLOCK, "PERSON": PiiAction.ALLOW})) == {"US_SSN"}


@pytest.mark.parametrize(
    ("action", "score", "expected"),
    [
        (InjectionAction.OFF, 1.0, InjectionAction.OFF),
        (InjectionAction.FLAG, 0.79, InjectionAction.OFF),
        (InjectionAction.FLAG, 0.8, InjectionAction.FLAG),
        (InjectionAction.BLOCK, 0.95, InjectionAction.BLOCK),
    ],
)
def test_injection_action(action, score, expected):
    assert injection_action(InjectionRules(action=action, threshold=0.8), score) is expected


def test_retention_cutoff():
    now = datetime(2025, 3, 1, tzinfo=UTC)
    assert retention_cutoff(Policy(retention_days=30), now) == now - timedelta(days=30)


def test_policies_package_imports_only_stdlib_and_pydantic():
    import ast
    import sys
    from pathlib import Path

    package = Path(__file__).resolve().parents[2] / "policies"
    allowed = set(sys.stdlib_module_names) | {"pydantic", "policies"}
    for source in package.glob("*.py"):
        for node in ast.walk(ast.parse(source.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            for name in names:
                assert name.split(".")[0] in allowed, f"{source.name} imports {name}"
