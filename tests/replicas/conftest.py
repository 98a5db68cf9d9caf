"""Fixtures for the replica tests: a tiny random Llama (SmolLM2's tokenizer and chat template; loads in well under a
second, and cache behaviour does not depend on the weights) and a pool of two real in-process engines serving it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from engine.config import EngineConfig
from gateway.replicas import ReplicaPool, start_replicas
from tests.engine.tiny_models import write_tiny_checkpoint

BLOCK_SIZE = 16  # the engine's default: route keys span 32 tokens, two blocks


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_tiny_checkpoint(tmp_path_factory.mktemp("tiny-replicas"))


@pytest.fixture
def tiny_config(tiny_model_dir: Path) -> EngineConfig:
    return EngineConfig(model=str(tiny_model_dir), show_progress=False, num_kv_blocks=128, block_size=BLOCK_SIZE,
                        max_num_seqs=32)


@pytest.fixture
async def pool(tiny_config: EngineConfig) -> AsyncIterator[ReplicaPool]:
    # No supervisor: these tests kill replicas and look at the pool with one dead (test_restarts.py restarts them).
    engine = await start_replicas(tiny_config, 2, in_process=True, restart_dead=False)
    assert isinstance(engine, ReplicaPool)
    yield engine
    await engine.shutdown()
