"""Which slice of each weight a tensor-parallel rank holds (Megatron-LM's split, vLLM's layer names).

* Attention: every rank gets ``heads / size`` query heads and the key/value heads they read. With fewer KV heads
  than ranks each KV head is replicated on ``size / kv_heads`` ranks (GQA keeps every rank's query heads reading
  the one KV head it holds). ``qkv_proj`` is column-parallel, ``o_proj`` row-parallel.
* MLP: ``gate_up_proj`` column-parallel over the intermediate size, ``down_proj`` row-parallel. A mixture of experts
  splits every expert (and the shared expert) the same way over its own intermediate size; the router is whole.
* Vocabulary: the embedding and the LM head are split into equal row ranges, the last padded with zero rows when
  the vocabulary does not divide (padded logits are cut off after the gather).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.models.config import STATE_SPACE_ARCHITECTURES, ModelArchConfig


def check_tensor_parallel(cfg: ModelArchConfig, size: int) -> None:
    """Raise ``ValueError`` naming what does not divide (checked before any process starts)."""
    if size == 1:
        return
    if cfg.architecture in STATE_SPACE_ARCHITECTURES:  # in_proj packs z/x/B/C/dt, each sharded differently
        raise ValueError(f"tensor parallelism is not supported for {cfg.architecture!r} (Mamba2 layers)")
    problems = []
    if cfg.num_attention_heads % size:
        problems.append(f"{cfg.num_attention_heads} attention heads")
    kv = cfg.num_key_value_heads
    if kv % size and size % kv:
        problems.append(f"{kv} key/value heads (neither divides the other)")
    if cfg.intermediate_size % size:
        problems.append(f"intermediate size {cfg.intermediate_size}")
    if cfg.num_experts and cfg.moe_intermediate_size % size:  # each expert splits by its width
        problems.append(f"expert intermediate size {cfg.moe_intermediate_size}")
    if cfg.shared_expert_intermediate_size % size:
        problems.append(f"shared expert intermediate size {cfg.shared_expert_intermediate_size}")
    if problems:
        raise ValueError(f"tensor_parallel_size {size} does not divide the model's {', '.join(problems)}")


@dataclass(frozen=True, slots=True)
class AttentionShard:
    num_heads: int  # query heads on this rank
    num_kv_heads: int  # key/value heads on this rank
    head_start: int  # first query head
    kv_head_start: int  # first key/value head


def attention_shard(cfg: ModelArchConfig, rank: int, size: int) -> AttentionShard:
    heads = cfg.num_attention_heads // size
    kv = cfg.num_key_value_heads
    if kv >= size:
        kv_heads, kv_start = kv // size, rank * (kv // size)
    else:  # replicated: ranks r*size/kv .. share KV head r
        kv_heads, kv_start = 1, rank // (size // kv)
    return AttentionShard(heads, kv_heads, rank * heads, kv_start)


@dataclass(frozen=True, slots=True)
class VocabShard:
    start: int  # first token id held
    end: int  # one past the last real token id held
    padded_size: int  # rows every rank allocates (equal, so gathers line up)


def vocab_shard(vocab_size: int, rank: int, size: int) -> VocabShard:
    per_rank = -(-vocab_size // size)
    start = min(rank * per_rank, vocab_size)
    return VocabShard(start, min(start + per_rank, vocab_size), per_rank)
