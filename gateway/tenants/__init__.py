"""Tenants: the unit of isolation, policy, rate limits and audit chains."""
