"""A stand-in for a one-worker ``warden serve`` in the detached-engine tests: starts its engine the way the gateway
does (``spawn_early`` with a ``DetachedEngine``, then a supervised pool of one), serves one greedy request, prints
``{"host_pid", "tokens", "torch_loaded"}`` as one JSON line, then waits for a line on stdin and shuts down in order.
Killing it with SIGKILL is the crash the tests inject.

Usage: ``python -m tests.replicas.detached_gateway MODEL_DIR SOCKET ORPHAN_S`` with the key's hex on stdin's first
line (never on the command line).
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from engine.config import EngineConfig
from engine.request import EngineRequest
from engine.sampling_params import SamplingParams
from gateway.replicas import start_replicas
from gateway.replicas.launch import DetachedEngine, discard_early, spawn_early

PROMPT = [1, 2, 3, 4, 5, 6, 7, 8]


def engine_config(model_dir: str) -> EngineConfig:
    return EngineConfig(model=model_dir, show_progress=False, num_kv_blocks=64, block_size=16, max_num_seqs=8)


async def serve(config: EngineConfig) -> None:
    pool = await start_replicas(config, 1, supervise_one=True, standby=False)
    try:
        request = EngineRequest(request_id="r1", prompt_token_ids=PROMPT,
                                sampling_params=SamplingParams(max_tokens=4, temperature=0, ignore_eos=True))
        tokens = [t async for delta in pool.generate(request) for t in delta.token_ids]
        # A gateway that attaches to its engine loads no torch (seconds of a restart on a busy CPU).
        print(json.dumps({"host_pid": pool.replicas[0].core_pid, "tokens": tokens,  # type: ignore[attr-defined]
                          "torch_loaded": "torch" in sys.modules}), flush=True)
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    finally:
        await pool.shutdown()


def main() -> None:
    model_dir, socket, orphan_s = sys.argv[1], Path(sys.argv[2]), float(sys.argv[3])
    authkey = bytes.fromhex(sys.stdin.readline().strip())
    config = engine_config(model_dir)
    spawn_early(config, DetachedEngine(socket, authkey, orphan_s))
    try:
        asyncio.run(serve(config))
    finally:
        discard_early()
    print("stopped", flush=True)


if __name__ == "__main__":
    main()
