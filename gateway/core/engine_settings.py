"""The serving engine's settings, read from ``WARDEN_ENGINE_*`` environment variables (or ``.env``).

One field per ``engine.config.EngineConfig`` switch an operator tunes; the model itself stays ``WARDEN_MODEL``.
Values are validated here, at startup, so a typo (``WARDEN_ENGINE_DTYPE=bf16``) stops the gateway with a message
naming the variable instead of failing inside the engine process. ``engine_kwargs`` hands them to
``EngineConfig`` (which checks the cross-field rules once more); this module imports nothing from ``engine`` so the
gateway's settings stay cheap to load.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import Field, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


class EngineSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="WARDEN_ENGINE_", env_file=".env", extra="ignore")

    # What "auto" (dtype, quantization, compile_model) means. "fast": the fastest configuration this machine supports
    # (x86 CPUs with AVX2/AVX-512: bfloat16, int4 decoder layers, compiled decoder; CUDA: bfloat16); "exact": float32,
    # unquantized, eager (parity with float32; no compile at start). Explicit values below win over the profile.
    profile: Literal["fast", "exact"] = "fast"
    dtype: Literal["auto", "float32", "bfloat16", "float16"] = "auto"
    device: Literal["auto", "cpu", "cuda"] = "auto"
    # Weight-only int4 (llama.cpp's Q4_1 grid, so a Q4_1 GGUF loses nothing) or int8 for small decode batches (CPU);
    # fp8: e4m3 weights per channel and inputs per token through the FP8 tensor cores (CUDA compute capability 8.9+;
    # elsewhere a slower reference path).
    quantization: Literal["auto", "none", "int8", "int4", "fp8"] = "auto"
    served_model_name: str | None = Field(default=None, min_length=1, max_length=200)
    # Tensor parallelism: one model split over this many GPUs (cuda:0..N-1; each rank its own process). Must divide
    # the model's attention heads and intermediate size; checked against the model when the engine starts.
    tensor_parallel_size: int = Field(default=1, ge=1, le=64)
    kv_cache_memory_mb: int = Field(default=256, ge=1)
    # What the KV cache stores: auto (the serving dtype), bfloat16, or int8 (per-row scale; CPU engine only).
    kv_cache_dtype: Literal["auto", "bfloat16", "int8"] = "auto"
    # Tokens per KV block (a power of two); unset: 16, or a model with Mamba2 layers' scan chunk under prefix caching.
    block_size: int | None = Field(default=None, ge=1, le=1024)
    max_num_seqs: int = Field(default=64, ge=1)
    max_num_batched_tokens: int = Field(default=1024, ge=1)
    max_model_len: int | None = Field(default=None, ge=1)
    enable_prefix_caching: bool = True
    fair_scheduling: bool = True
    fairness_half_life_tokens: int = Field(default=16_384, ge=1)
    tenant_kv_quota: float = Field(default=1.0, gt=0.0, le=1.0)
    num_threads: int | None = Field(default=None, ge=1)  # torch intra-op threads on CPU; unset: torch's default
    cpu_prepack: bool = True
    # CPU int4: steps of up to this many tokens run Warden's int8-input int4 kernel (fastest at the smallest batches),
    # larger ones a float-input GEMM; unset: 2 on AVX512-BF16 CPUs serving bfloat16, 1 on AMX CPUs, else 8
    # (EngineConfig.cpu_small_batch_rows has the measurements).
    cpu_small_batch_rows: int | None = Field(default=None, ge=1)
    # CPU: torch.compile the decoder (fused small ops around the kernels; inductor's GEMMs where it lowers them):
    # faster batched decoding (docs/benchmarks.md), but the engine compiles for minutes at its first start (the
    # code is cached on disk for the next). auto: per profile.
    compile_model: bool | Literal["auto"] = "auto"
    # A persistent directory for the compiled code (inductor's and the C++ kernels'); unset: WARDEN_DATA_DIR's
    # compile-cache directory under the fast profile, torch's own cache directories under the exact one.
    compile_cache_dir: str | None = Field(default=None, min_length=1)
    # Grammar-forced tokens (JSON keys, punctuation) appended without a forward pass each; outputs are unchanged.
    structured_jump_forward: bool = True
    # Speculative decoding: drafts verified in the decode step (greedy outputs unchanged). "ngram": copied from the
    # context by prompt lookup, pays off where outputs quote their input (extraction, edits, agents);
    # "draft_model": written by ``speculative_model`` (a smaller model with the same tokenizer: a .gguf file, an
    # HF checkpoint dir or "default"), optionally quantized on its own; "suffix": prompt lookup, or what the same
    # tenant's earlier answers wrote after the same words where that matches longer (agent loops repeat
    # themselves; never another tenant's answers); "none": off; "auto": "suffix" under the fast profile on a CPU with
    # prompt_lookup_adaptive, for a model without Mamba2 layers, else off (``engine.config.auto_speculation`` has the
    # measurements).
    speculative_method: Literal["auto", "none", "ngram", "suffix", "draft_model"] = "auto"
    num_speculative_tokens: int = Field(default=4, ge=1, le=16)
    speculative_model: str | None = Field(default=None, min_length=1)
    speculative_model_quantization: Literal["none", "int8", "int4", "fp8"] = "none"
    prompt_lookup_min: int = Field(default=2, ge=1)
    prompt_lookup_max: int = Field(default=4, ge=1)
    # "ngram": verify only the drafts expected to pay on this machine (measured step costs, observed acceptance).
    prompt_lookup_adaptive: bool = True
    speculative_disable_by_batch_size: int | None = Field(default=None, ge=1)  # no drafts past this many decodes
    # "suffix": the index of finished answers, in tokens per tenant and over all tenants (least recently used tenant
    # evicted first), and the least chance a draft's tokens all follow before it stops.
    suffix_tenant_tokens: int = Field(default=16384, ge=1)
    suffix_total_tokens: int = Field(default=131072, ge=1)
    suffix_min_probability: float = Field(default=0.1, ge=0.0, le=1.0)
    # Block-sparse attention in the layers without a sliding window (EngineConfig.block_sparse_* says the pattern):
    # tokens per block, a power of two >= 16; 0 (the default): dense attention.
    # Models with Mamba2 layers: live recurrent-state slots (at most one per running sequence; unset or 0: sized from
    # kv_cache_memory_mb) and prefix-cache state snapshots (unset: sized from it; 0: none, prefixes are recomputed).
    num_state_slots: int | None = Field(default=None, ge=0)
    num_state_snapshots: int | None = Field(default=None, ge=0)
    block_sparse_block_size: int = Field(default=0, ge=0, le=4096)
    block_sparse_local_blocks: int = Field(default=16, ge=1)
    block_sparse_global_blocks: int = Field(default=1, ge=0)
    block_sparse_stride: int = Field(default=8, ge=0)
    seed: int = 0
    # Data parallel: this many independent engines, each a whole copy of the model (on CUDA, replica i starts at
    # cuda:i x tensor_parallel_size), behind one client that routes by prefix-cache affinity (``gateway.replicas``).
    replicas: int = Field(default=1, ge=1)

    # Fields the gateway acts on itself; the rest are EngineConfig's.
    GATEWAY_ONLY: ClassVar[frozenset[str]] = frozenset({"replicas"})

    @field_validator("block_size")
    @classmethod
    def _power_of_two(cls, value: int | None) -> int | None:
        if value is not None and value & (value - 1):
            raise ValueError("block_size must be a power of two")
        return value

    @field_validator("block_sparse_block_size")
    @classmethod
    def _sparse_block(cls, value: int) -> int:
        if value and (value < 16 or value & (value - 1)):
            raise ValueError("block_sparse_block_size must be 0 (dense attention) or a power of two >= 16")
        return value

    @model_validator(mode="after")
    def _prompt_lookup_range(self) -> EngineSettings:
        if self.prompt_lookup_min > self.prompt_lookup_max:
            raise ValueError("prompt_lookup_min must not exceed prompt_lookup_max")
        return self

    @model_validator(mode="after")
    def _state_slots_within_the_batch(self) -> EngineSettings:
        if self.num_state_slots and self.num_state_slots > self.max_num_seqs:
            raise ValueError(f"WARDEN_ENGINE_NUM_STATE_SLOTS ({self.num_state_slots}) exceeds "
                             f"WARDEN_ENGINE_MAX_NUM_SEQS ({self.max_num_seqs}): a running sequence holds one slot, "
                             "so the extra slots could never be used")
        return self

    @model_validator(mode="after")
    def _suffix_tenant_within_total(self) -> EngineSettings:
        if self.suffix_tenant_tokens > self.suffix_total_tokens:
            raise ValueError(f"WARDEN_ENGINE_SUFFIX_TENANT_TOKENS ({self.suffix_tenant_tokens}) exceeds "
                             f"WARDEN_ENGINE_SUFFIX_TOTAL_TOKENS ({self.suffix_total_tokens})")
        return self

    @model_validator(mode="after")
    def _draft_model_named(self) -> EngineSettings:
        if (self.speculative_method == "draft_model") != (self.speculative_model is not None):
            raise ValueError("WARDEN_ENGINE_SPECULATIVE_MODEL is required with speculative_method=draft_model, and "
                             "only then")
        return self

    def engine_kwargs(self, model: str) -> dict[str, Any]:
        """Keyword arguments for ``engine.config.EngineConfig``."""
        values = self.model_dump(exclude=set(self.GATEWAY_ONLY))
        values["quantization"] = None if self.quantization == "none" else self.quantization
        values["compile_model"] = None if self.compile_model == "auto" else self.compile_model
        values["speculative_method"] = None if self.speculative_method == "none" else self.speculative_method
        values["num_state_slots"] = self.num_state_slots or None  # 0: sized from the memory budget, as unset
        quantization = self.speculative_model_quantization
        values["speculative_model_quantization"] = None if quantization == "none" else quantization
        return {"model": model, **values}
