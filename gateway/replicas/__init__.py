"""Engine replicas (data parallel): ``start_replicas`` starts ``WARDEN_ENGINE_REPLICAS`` engines and serves them as
one ``EngineClient`` (``ReplicaPool``) that routes each request by prefix-cache affinity within its tenant
(``affinity``). With several gateway workers the engines run in shared hosts (``hosts``, ``engine.host``) and each
worker's pool connects to them (``connect_replicas``)."""

from gateway.replicas.launch import connect_replicas, start_replicas
from gateway.replicas.pool import ReplicaPool

__all__ = ["ReplicaPool", "connect_replicas", "start_replicas"]
