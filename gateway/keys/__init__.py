"""Tenant API keys: ``wdn_<key id>_<secret>``, stored as a peppered HMAC of the secret only."""
