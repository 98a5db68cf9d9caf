"""The chaos suite: ``python -m bench.chaos [--quick]`` (``make chaos``).

Real processes on loopback: ``warden serve`` (one worker, the real model, HTTPS) on a Postgres cluster and a Redis
server the suite starts for itself, Postgres reached through a TCP proxy the suite can blackhole, and a load
generator using the official ``openai`` client at a fixed rate. Faults are injected one at a time (see
``bench.chaos.scenarios``); each scenario's figures are printed and written to ``bench/results/chaos.json``.
Targets per scenario: no audit row lost for a response that reached a client, no 5xx but 503, a ``Retry-After`` on
every 503, ``warden audit verify`` passing, and recovery within 10 s of the fault's end. A missed target is
reported, never hidden: it is a finding about the gateway.

Modules: ``processes`` (Postgres, Redis), ``proxy`` (the blackhole), ``warden`` (the server under test),
``load`` (the generator), ``audit`` (rows and chain checks), ``scenarios``, ``report``, ``suite`` (setup, run,
teardown).
"""
