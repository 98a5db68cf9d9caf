"""Warden's inference engine: paged KV cache, continuous batching, sampling, streaming.

The engine knows nothing of HTTP, tenants' keys or databases. A request carries an opaque
``cache_salt`` (prefix-cache isolation domain) and a ``tenant``/``priority`` tag for fairness.
"""
