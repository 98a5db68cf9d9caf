"""Engine replicas (data parallel): ``start_replicas`` starts ``WARDEN_ENGINE_REPLICAS`` engines and serves them as
one ``EngineClient`` (``ReplicaPool``) that routes each request by prefix-cache affinity within its tenant
(``affinity``)."""

from gateway.replicas.launch import start_replicas
from gateway.replicas.pool import ReplicaPool

__all__ = ["ReplicaPool", "start_replicas"]
