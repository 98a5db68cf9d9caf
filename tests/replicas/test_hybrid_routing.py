"""Replicas of a hybrid model (Nemotron-H: Mamba2 + attention layers) with the block size left unset: each engine
raises it to the model's scan chunk, reports it in its greeting, and the pool's route keys span that block size, not
the default's. Two real in-process engines."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from engine.config import DEFAULT_BLOCK_SIZE, EngineConfig
from engine.outputs import RequestOutput
from engine.request import EngineRequest
from engine.sampling_params import SamplingParams
from gateway.replicas import ReplicaPool, affinity, start_replicas
from tests.engine.tiny_hybrid_models import write_tiny_state_space_checkpoint

pytestmark = pytest.mark.timeout(300)

CHUNK = 64  # the scan chunk, above the default block size: the engines serve with 64-token blocks


@pytest.fixture(scope="module")
def hybrid_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("hybrid-replicas")
    write_tiny_state_space_checkpoint(directory, "nemotron_h", chunk_size=CHUNK)
    return directory


@pytest.fixture
async def hybrid_pool(hybrid_dir: Path) -> AsyncIterator[ReplicaPool]:
    config = EngineConfig(model=str(hybrid_dir), show_progress=False, max_num_seqs=4, kv_cache_memory_mb=16)
    assert config.block_size is None
    pool = await start_replicas(config, 2, in_process=True, restart_dead=False)
    assert isinstance(pool, ReplicaPool)
    yield pool
    await pool.shutdown()


def request(request_id: str, prompt: list[int]) -> EngineRequest:
    params = SamplingParams(max_tokens=2, temperature=0, ignore_eos=True)
    return EngineRequest(request_id, prompt, params, cache_salt="acme", tenant="acme")


async def serve(pool: ReplicaPool, req: EngineRequest) -> tuple[int, RequestOutput]:
    """(the replica that served it, its last delta)."""
    before = list(pool.routed)
    outputs = [out async for out in pool.generate(req)]
    (served,) = [i for i, (a, b) in enumerate(zip(before, pool.routed, strict=True)) if a != b]
    return served, outputs[-1]


async def test_the_pool_routes_on_the_block_size_the_hybrid_engines_chose(hybrid_pool: ReplicaPool) -> None:
    pool = hybrid_pool
    assert [getattr(r, "block_size", None) for r in pool.replicas] == [CHUNK, CHUNK]
    assert pool.block_size == CHUNK and affinity.affinity_span(CHUNK) == CHUNK
    assert affinity.affinity_span(DEFAULT_BLOCK_SIZE) < CHUNK  # the span the pool used to route on

    # Prompts that agree on their first 32 tokens but not on the rest of their first 64-token block share no block
    # in any engine's cache: their keys differ, and they spread (on the default's 32-token span they would all be
    # sent to one replica).
    head = [(37 * i + 11) % 4000 + 50 for i in range(32)]
    prompts = [head + [(53 * i + 7 * k) % 3000 + 100 for i in range(40)] for k in range(1, 17)]
    homes = [pool.route(request(f"probe-{k}", p)) for k, p in enumerate(prompts)]
    assert set(homes) == {0, 1}, homes

    # Prompts that share the whole first block go to one replica, and the second finds that block's KV and Mamba
    # state there.
    block = prompts[0][:CHUNK]
    first_replica, first = await serve(pool, request("first", [*block, 5, 6, 7, 8]))
    second_replica, second = await serve(pool, request("second", [*block, 9, 10, 11]))
    assert first.usage is not None and first.usage.cached_tokens == 0
    assert second_replica == first_replica
    assert second.usage is not None and second.usage.cached_tokens == CHUNK
