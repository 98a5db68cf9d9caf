"""A stand-in for a one-worker ``warden serve`` in the detached-engine tests: starts its engine the way the gateway
does (``spawn_early`` with a ``DetachedEngine``, then a supervised pool of one, with a standby when asked), serves one
greedy request and prints ``{"host_pid", "standby_pid", "tokens", "torch_loaded"}`` as one JSON line (with a standby:
once it is up), then reads commands from stdin: ``serve`` does that again (after a promotion: from the promoted
engine), ``stop`` (or EOF) shuts down in order. Killing it with SIGKILL is the crash the tests inject.

Usage: ``python -m tests.replicas.detached_gateway MODEL_DIR SOCKET ORPHAN_S [standby]`` with the key's hex on
stdin's first line (never on the command line).
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from engine.config import EngineConfig
from engine.request import EngineRequest
from engine.sampling_params import SamplingParams
from gateway.replicas import ReplicaPool, launch, start_replicas
from gateway.replicas.launch import DetachedEngine, discard_early, spawn_early

PROMPT = [1, 2, 3, 4, 5, 6, 7, 8]
STANDBY_WAIT_S = 120.0


def engine_config(model_dir: str) -> EngineConfig:
    return EngineConfig(model=model_dir, show_progress=False, num_kv_blocks=64, block_size=16, max_num_seqs=8)


async def _report(pool: ReplicaPool, served: int, with_standby: bool) -> None:
    """Serve one greedy request and print what served it."""
    request = EngineRequest(request_id=f"r{served}", prompt_token_ids=PROMPT,
                            sampling_params=SamplingParams(max_tokens=4, temperature=0, ignore_eos=True))
    tokens = [t async for delta in pool.generate(request) for t in delta.token_ids]
    standby_pid = None
    if with_standby:  # the standby loads in the background: report it once it is up
        deadline = asyncio.get_running_loop().time() + STANDBY_WAIT_S
        while (pool.standby is None or not pool.standby.is_alive()) and asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(0.2)
        standby_pid = getattr(pool.standby, "core_pid", None)
    # A gateway that attaches to its engine loads no torch (seconds of a restart on a busy CPU).
    print(json.dumps({"host_pid": pool.replicas[0].core_pid, "standby_pid": standby_pid,  # type: ignore[attr-defined]
                      "tokens": tokens, "torch_loaded": "torch" in sys.modules}), flush=True)


async def serve(config: EngineConfig, with_standby: bool) -> None:
    launch.STANDBY_START_DELAY_S = 0.0  # the tests wait for the standby; nothing competes with it here
    pool = await start_replicas(config, 1, supervise_one=True, standby=with_standby)
    assert isinstance(pool, ReplicaPool)
    try:
        served = 1
        await _report(pool, served, with_standby)
        while (await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)).strip() == "serve":
            served += 1
            await _report(pool, served, with_standby)
    finally:
        await pool.shutdown()


def main() -> None:
    model_dir, socket, orphan_s = sys.argv[1], Path(sys.argv[2]), float(sys.argv[3])
    with_standby = sys.argv[4:] == ["standby"]
    authkey = bytes.fromhex(sys.stdin.readline().strip())
    config = engine_config(model_dir)
    spawn_early(config, DetachedEngine(socket, authkey, orphan_s))
    try:
        asyncio.run(serve(config, with_standby))
    finally:
        discard_early()
    print("stopped", flush=True)


if __name__ == "__main__":
    main()
