"""Warden as a governed MCP gateway: the ``/mcp`` endpoint, the registry of upstream MCP servers, and the policy,
guardrails and audit applied to every tool call that passes through."""
