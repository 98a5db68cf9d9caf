"""Warden's HTTP edge: OpenAI-compatible API, tenant-key auth, policies, audit, CLI."""
