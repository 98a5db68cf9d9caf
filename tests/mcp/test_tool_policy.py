"""The pure tool policy (policies/tools.py), the SSRF address rules and the credential sealing, without servers."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from gateway.mcp.credentials import CredentialsUnreadable, open_headers, seal_headers
from gateway.mcp.targets import TargetRefused, check_addresses, check_url
from policies import Policy, effective_policy
from policies.tools import (
    CallVerdict,
    ToolPolicy,
    decide_call,
    namespaced,
    split_namespaced,
    tool_allowed,
    valid_server_name,
)


def test_namespacing_round_trips_and_rejects_foreign_names() -> None:
    assert split_namespaced(namespaced("github", "create_issue")) == ("github", "create_issue")
    assert split_namespaced("github__a__b") == ("github", "a__b")  # the tool's own double underscores survive
    for name in ("add", "__add", "github__", "GitHub__x", "-x__y"):
        assert split_namespaced(name) is None
    assert valid_server_name("a") and valid_server_name("my-server-2")
    assert not valid_server_name("a__b") and not valid_server_name("a-") and not valid_server_name("x" * 33)


def test_allow_and_deny_globs() -> None:
    policy = ToolPolicy(allowed_servers=["github", "jira-*"], allowed_tools=["github__*", "jira-cloud__get_*"],
                        denied_tools=["github__delete_*"])
    assert tool_allowed(policy, "github", "create_issue")
    assert not tool_allowed(policy, "github", "delete_repo")  # denied wins over allowed
    assert tool_allowed(policy, "jira-cloud", "get_issue")
    assert not tool_allowed(policy, "jira-cloud", "create_issue")
    assert not tool_allowed(policy, "slack", "post")  # server not allowed
    assert tool_allowed(ToolPolicy(), "anything", "at_all")  # the default: every tool of registered servers
    assert not tool_allowed(ToolPolicy(allowed_servers=[]), "github", "x")


def test_decide_call_collects_every_matching_rule() -> None:
    policy = ToolPolicy(rules={
        "github__*": {"calls_per_minute": 60},
        "github__create_issue": {"arguments_schema": {"type": "object"}, "requires_approval": True},
    })
    refused = decide_call(policy, "github", "create_issue", None)
    assert refused.verdict is CallVerdict.NEEDS_APPROVAL
    assert decide_call(policy, "github", "create_issue", {"warden/approved": "true"}).verdict \
        is CallVerdict.NEEDS_APPROVAL  # only the JSON value true approves
    allowed = decide_call(policy, "github", "create_issue", {"warden/approved": True})
    assert allowed.verdict is CallVerdict.ALLOWED
    assert allowed.schemas == (("github__create_issue", {"type": "object"}),)
    assert allowed.rate_limits == (("github__*", 60),)
    assert decide_call(ToolPolicy(denied_tools=["*"]), "github", "x", None).verdict is CallVerdict.DENIED


def test_policy_documents_validate_the_tools_section() -> None:
    with pytest.raises(ValidationError):
        Policy.model_validate({"tools": {"allowed_tool": ["x"]}})  # a typo is refused, not ignored
    with pytest.raises(ValidationError):
        Policy.model_validate({"tools": {"max_result_bytes": 10}})
    with pytest.raises(ValidationError):
        Policy.model_validate({"tools": {"denied_tools": [""]}})
    policy = Policy.model_validate({"tools": {"denied_tools": ["a__*"]},
                                    "key_overrides": {"k1": {"tools": {"allowed_servers": []}}}})
    assert effective_policy(policy, "k1").tools.allowed_servers == []
    assert effective_policy(policy, "k2").tools.denied_tools == ["a__*"]
    assert Policy.model_validate(policy.model_dump(mode="json")) == policy


@pytest.mark.parametrize("host", ["127.0.0.1", "10.1.2.3", "192.168.0.10", "172.16.5.5", "169.254.169.254",
                                  "100.64.0.1", "0.0.0.0", "[::1]", "[fe80::1]", "[::ffff:127.0.0.1]",
                                  "[fd00::1]", "224.0.0.1", "localhost"])
async def test_private_and_special_addresses_are_refused(host: str) -> None:
    with pytest.raises(TargetRefused):
        await check_addresses(f"http://{host}:8080/mcp", allow_private_network=False)
    await check_addresses(f"http://{host}:8080/mcp", allow_private_network=True)


async def test_public_addresses_pass() -> None:
    await check_addresses("https://8.8.8.8/mcp", allow_private_network=False)
    await check_addresses("https://[2001:4860:4860::8888]/mcp", allow_private_network=False)


def test_url_rules() -> None:
    assert check_url("https://mcp.example.com/v1/mcp?x=1") == "https://mcp.example.com/v1/mcp?x=1"
    for bad in ("file:///etc/passwd", "https://a:b@example.com/", "https://example.com/#f", "https://:80/",
                "https://example.com:0/", "https://" + "a" * 3000 + ".com/"):
        with pytest.raises(TargetRefused):
            check_url(bad)


def test_sealed_credentials_open_only_for_their_record() -> None:
    headers = {"Authorization": "Bearer s3cret"}
    sealed = seal_headers(b"secret-1", "tenant-a", "github", headers)
    assert b"s3cret" not in sealed
    assert open_headers(b"secret-1", "tenant-a", "github", sealed) == headers
    assert open_headers(b"secret-1", "tenant-a", "github", None) == {}
    for secret, tenant, name in ((b"secret-2", "tenant-a", "github"), (b"secret-1", "tenant-b", "github"),
                                 (b"secret-1", "tenant-a", "jira")):
        with pytest.raises(CredentialsUnreadable):
            open_headers(secret, tenant, name, sealed)
    assert seal_headers(b"secret-1", "tenant-a", "github", headers) != sealed  # a fresh nonce each time
