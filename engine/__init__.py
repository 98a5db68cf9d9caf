"""Warden's inference engine: paged KV cache, continuous batching, sampling, streaming.

The engine knows nothing of HTTP, tenants' keys or databases. A request carries an opaque
``cache_salt`` (prefix-cache isolation domain) and a ``tenant``/``priority`` tag for fairness.

Callers outside the engine (the gateway) import only ``PUBLIC_MODULES``; every other module is the engine's own
and may change shape freely. ``tests/test_import_arrows.py`` holds the gateway to this.
"""

PUBLIC_MODULES = frozenset({
    "engine.protocol",  # EngineClient, the async client of a running engine; TokenizerLike
    "engine.request",  # EngineRequest
    "engine.sampling_params",  # SamplingParams
    "engine.outputs",  # RequestOutput, Usage, TokenLogprob
    "engine.errors",  # InvalidRequestError (a 400), UnknownModelError, EngineDeadError
    "engine.metrics",  # EngineStats, RequestTimings, the stats source the client exposes
    "engine.config",  # EngineConfig, resolve_device
    "engine.launch",  # start_engine: an engine in its own process (or a thread)
    "engine.host",  # one engine served to several processes over a local socket
    "engine.tool_calls",  # the tool-call wire format the engine's grammar enforces
    "engine.generate",  # the engine's command line (`python -m engine.generate`, `warden generate`)
})
