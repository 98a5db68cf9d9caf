"""Stored tenant policies: versioned JSON documents validated through ``policies.Policy``; one active per tenant."""
