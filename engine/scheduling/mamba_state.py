"""Recurrent-state slots of a model with Mamba2 layers, beside the paged KV pool: one live slot per running
sequence, and a bounded pool of state snapshots that makes prefix-cache hits usable for those layers.

Every Mamba2 layer keeps its per-sequence state (``conv`` + ``ssm``, constant in length) in a
``Mamba2StateCache``; all layers' caches share one slot numbering. Slots ``[0, num_live)`` are live: a sequence
takes one when it is admitted and gives it back when it finishes or is preempted (recompute preemption restarts
from a snapshot or from zero; a state cannot be rolled back). Slots ``[num_live, num_live + num_snapshots)`` hold
snapshots: the state of every layer right after a full KV block, keyed exactly like that block in the prefix
cache (``block_manager.block_hash(parent, block_tokens, extra_keys)``, the tenant's ``cache_salt`` included), so
another tenant's prompt can never find one.

A prefix hit restores the snapshot of its last block into the sequence's live slot and the sequence resumes from
there; a hit is therefore cut back to the last block that has both its KV (for attention layers) and a snapshot
(``restorable_blocks``). One snapshot per sequence and step, at the last block end the step reached (``stage``
after the forward, ``commit`` once the block is hashed): the end of each scheduled prefill chunk (as far as it
fills a block), so the prompt's last full block and the block ends where chunked prefill and decoding paused. A
later request resumes from the furthest of them its prompt shares; the block ends inside one step's span are
skipped, since a hit there is cut back by at most one chunk, where a snapshot at every block end would copy the
whole state once per block (at real block sizes, hundreds of KB per layer, most never read). One exception, at
most one more snapshot per sequence: the last block end inside its public prefix (``public_prefix_len``, a
published system prompt) when a step crosses it, since that is the prefix later prompts of every tenant share
and nothing else (``kept_block_ends``). Snapshots are evicted
least recently used when the pool is full, and dropped with their KV block when the block manager hands that block
out again: a snapshot whose block is gone can never be used. Restoring copies, so evicting a snapshot never
disturbs a running sequence.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence as Seq
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, cast

import torch

from engine.config import DEFAULT_BLOCK_SIZE
from engine.layers.mamba2 import BoundarySnapshot, Mamba2MixerConfig, Mamba2StateCache, MambaStep

if TYPE_CHECKING:
    from engine.config import EngineConfig
    from engine.models.config import ModelArchConfig
    from engine.scheduling.sequence import Sequence
    from kernels.attention_metadata import AttentionMetadata

LayerState = tuple[torch.Tensor, torch.Tensor]  # one layer's (conv, ssm) at one position


class StatefulModel(Protocol):
    """What the engine needs of a model with Mamba2 layers (``engine.models.mamba2``, ``nemotron_h``)."""

    state_chunk_size: int  # the scan's chunk: snapshots exist at its multiples

    def allocate_state(self, num_slots: int, *, device: torch.device | str = "cpu",
                       ssm_dtype: torch.dtype = torch.float32) -> list[Mamba2StateCache]: ...

    def forward_step(self, input_ids: torch.Tensor, positions: torch.Tensor, meta: AttentionMetadata | None,
                     step: MambaStep) -> torch.Tensor: ...


def has_state(model: object) -> bool:
    return callable(getattr(model, "forward_step", None))


def state_bytes_per_slot(model: StatefulModel) -> int:
    """Bytes one slot takes across every Mamba2 layer (measured on the meta device: nothing is allocated)."""
    return sum(c.conv[0].nbytes + c.ssm[0].nbytes for c in model.allocate_state(1, device="meta"))


def scan_chunk_size(arch: ModelArchConfig) -> int | None:
    """The Mamba2 scan chunk of a checkpoint's config (None: a model without Mamba2 layers), read before the model
    is built so the KV block size is settled before any process or cache exists."""
    if arch.architecture == "mamba2":
        return Mamba2MixerConfig.from_hf(arch.hf_config).chunk_size
    if arch.architecture == "nemotron_h":
        return Mamba2MixerConfig.from_nemotron_h(arch.hf_config).chunk_size
    return None


@dataclass(frozen=True, slots=True)
class BlockSizeChoice:
    block_size: int
    reason: str | None = None  # why it is not what was asked for (None: it is block_size, or the plain default)


def choose_block_size(requested: int | None, chunk: int | None, prefix_caching: bool) -> BlockSizeChoice:
    """Tokens per KV block for a model whose Mamba2 scan chunk is ``chunk`` (None: no Mamba2 layers).

    Prefix-cache state snapshots exist only at block ends the scan reaches as chunk ends, so under prefix caching
    the block size must be a multiple of the chunk; the attention kernels (paged KV, C++ and Triton) take any power
    of two. Unset (``requested`` None): ``DEFAULT_BLOCK_SIZE``, raised to the smallest power of two that is a
    multiple of both (real checkpoints: 256 for Mamba2, 128 for Nemotron-H). A power of two is a multiple of the
    chunk only when the chunk is one too; other chunks, and an explicit block size the chunk does not divide, are
    refused with both numbers (prefix caching off lifts the constraint)."""
    if chunk is None or not prefix_caching:
        return BlockSizeChoice(requested or DEFAULT_BLOCK_SIZE)
    if requested is not None:
        if requested % chunk:
            raise ValueError(f"block_size {requested} is not a multiple of the model's Mamba2 chunk_size {chunk}: "
                             "prefix-cache state snapshots are taken at block ends, which the scan reaches only at "
                             f"multiples of its chunk (leave block_size unset to use {chunk}, set a multiple of "
                             f"{chunk}, or disable prefix caching)")
        return BlockSizeChoice(requested)
    if chunk & (chunk - 1):
        raise ValueError(f"the model's Mamba2 chunk_size {chunk} is not a power of two, so no KV block size (a power "
                         "of two) is a multiple of it, and prefix-cache state snapshots need one: disable prefix "
                         "caching to serve this model")
    size = max(DEFAULT_BLOCK_SIZE, chunk)
    if size == DEFAULT_BLOCK_SIZE:
        return BlockSizeChoice(size)
    return BlockSizeChoice(size, f"raised from {DEFAULT_BLOCK_SIZE} to the model's Mamba2 scan chunk: prefix-cache "
                                 "state snapshots are taken at block ends")


@dataclass(frozen=True, slots=True)
class StatePlan:
    num_live: int
    num_snapshots: int
    num_blocks: int


def plan_state_memory(config: EngineConfig, slot_bytes: int, block_bytes: int, max_len: int,
                      block_size: int) -> StatePlan:
    """Split ``kv_cache_memory_mb`` between live slots, snapshots and KV blocks.

    Live slots come first (``max_num_seqs`` of them, fewer if the budget is small: sequences then wait for one);
    half of the rest goes to snapshots and half to KV blocks when the model has attention layers, all of it to
    snapshots when it has none (its blocks are then bookkeeping for the prefix cache only, and cost nothing).
    ``num_state_slots``, ``num_state_snapshots`` and ``num_kv_blocks`` override the split; counts set without
    ``num_kv_blocks`` must leave room for at least one KV block of a model with attention layers."""
    budget = config.kv_cache_memory_mb * 2**20
    live = config.num_state_slots or max(1, min(config.max_num_seqs, budget // slot_bytes))
    rest = max(0, budget - live * slot_bytes)
    share = rest // 2 if block_bytes else rest
    snapshots = config.num_state_snapshots if config.num_state_snapshots is not None else share // slot_bytes
    if not config.enable_prefix_caching:
        snapshots = 0
    explicit = config.num_state_slots is not None or (snapshots and config.num_state_snapshots is not None)
    if explicit and not config.num_kv_blocks and (live + snapshots) * slot_bytes + block_bytes > budget:
        needed_mb = -(-((live + snapshots) * slot_bytes + block_bytes) // 2**20)
        raise ValueError(f"{live} live state slots + {snapshots} snapshots of {slot_bytes / 2**20:.2f} MB each need "
                         f"{needed_mb} MB with one KV block, more than kv_cache_memory_mb {config.kv_cache_memory_mb}:"
                         " lower num_state_slots / num_state_snapshots or raise kv_cache_memory_mb")
    if config.num_kv_blocks:
        blocks = config.num_kv_blocks
    elif block_bytes:
        blocks = max(1, (budget - (live + snapshots) * slot_bytes) // block_bytes)
    else:  # no attention layer: enough blocks for every live sequence at full length
        blocks = live * -(-max_len // block_size)
    if block_bytes or config.num_kv_blocks:
        snapshots = min(snapshots, blocks)  # one snapshot per cached block at most: more could never be found
    return StatePlan(live, snapshots, blocks)


def kept_block_ends(reached: set[int], public_prefix_len: int, block_size: int) -> set[int]:
    """Of the block ends one step reached for a sequence, those whose state becomes a snapshot: the last, where the
    sequence paused (a later prompt that continues it, and its own resume after preemption, start there), and the
    last block end inside the sequence's public prefix when the step reached it: a published system prompt is what
    later prompts of every tenant share, and it often ends inside one prefill step, far from any other snapshot."""
    if not reached:
        return set()
    public_end = public_prefix_len // block_size * block_size
    return {max(reached)} | ({public_end} & reached)


class StateSlots:
    """Live slots and the snapshot pool over one slot numbering of ``caches`` (one cache per Mamba2 layer)."""

    def __init__(self, caches: list[Mamba2StateCache], num_live: int, num_snapshots: int, block_size: int) -> None:
        if not caches or any(c.num_slots != num_live + num_snapshots for c in caches):
            raise ValueError("every layer's state cache must hold num_live + num_snapshots slots")
        if num_live < 1:
            raise ValueError("at least one live state slot is needed")
        self.caches = caches
        self.num_live, self.num_snapshots, self.block_size = num_live, num_snapshots, block_size
        self._free_live = list(range(num_live - 1, -1, -1))  # popped from the end: slot 0 first
        self._free_snapshots = list(range(num_live + num_snapshots - 1, num_live - 1, -1))
        self.snapshots: OrderedDict[bytes, int] = OrderedDict()  # block hash -> slot, least recently used first
        self._pending: dict[Sequence, dict[int, list[LayerState]]] = {}  # block ends reached, not yet hashed
        self.num_restored = 0  # prefix hits whose state came from a snapshot (metrics, tests, benchmarks)
        self.num_snapshots_written = 0
        self.num_snapshot_evictions = 0

    @property
    def takes_snapshots(self) -> bool:
        return self.num_snapshots > 0

    @property
    def num_free_slots(self) -> int:
        return len(self._free_live)

    # --- live slots ---------------------------------------------------------------------------------
    def acquire(self, seq: Sequence) -> None:
        assert seq.state_slot < 0, f"{seq.request_id} already holds state slot {seq.state_slot}"
        seq.state_slot = self._free_live.pop()

    def release(self, seq: Sequence) -> None:
        self._pending.pop(seq, None)
        if seq.state_slot >= 0:
            self._free_live.append(seq.state_slot)
            seq.state_slot = -1

    # --- snapshots ------------------------------------------------------------------------------------
    def restorable_blocks(self, hashes: Seq[bytes]) -> int:
        """The longest prefix of ``hashes`` (a prompt's cached blocks, in order) whose last block has a snapshot."""
        for length in range(len(hashes), 0, -1):
            if hashes[length - 1] in self.snapshots:
                return length
        return 0

    def restore(self, seq: Sequence, block: bytes) -> None:
        """Load the snapshot after ``block`` into ``seq``'s live slot (every layer)."""
        slot = self.snapshots[block]
        self.snapshots.move_to_end(block)
        for cache in self.caches:
            cache.copy_slot(slot, seq.state_slot)
        self.num_restored += 1

    def stage(self, seqs: Seq[Sequence], snapshots: list[list[BoundarySnapshot]]) -> None:
        """Keep, per sequence, the state at the block ends ``commit`` may store (``snapshots``: the states at every
        chunk end the step's forward crossed, one list per layer, indices into ``seqs``) until it names their
        blocks: the last block end the step reached, and the last one inside the sequence's public prefix when
        the step crossed it (``kept_block_ends``)."""
        reached: dict[int, set[int]] = {}
        for snap in snapshots[0] if snapshots else ():
            if snap.position % self.block_size == 0:
                reached.setdefault(snap.sequence_index, set()).add(snap.position)
        kept = {index: kept_block_ends(ends, seqs[index].public_prefix_len, self.block_size)
                for index, ends in reached.items()}
        staged: dict[tuple[int, int], list[LayerState]] = {}
        for layer in snapshots:
            for snap in layer:
                if snap.position in kept.get(snap.sequence_index, ()):
                    staged.setdefault((snap.sequence_index, snap.position), []).append((snap.conv, snap.ssm))
        for (index, position), layers in staged.items():
            assert len(layers) == len(self.caches), "a block end without every layer's state"
            self._pending.setdefault(seqs[index], {})[position] = layers

    def commit(self, seq: Sequence, position: int, block: bytes) -> None:
        """Store ``seq``'s staged state at ``position`` (a block end) as the snapshot of ``block``, if it has one."""
        layers = self._pending.get(seq, {}).pop(position, None)
        if layers is None or not self.num_snapshots:
            return
        if block in self.snapshots:  # another sequence computed the same prefix first
            self.snapshots.move_to_end(block)
            return
        if not self._free_snapshots:
            _, evicted = self.snapshots.popitem(last=False)
            self._free_snapshots.append(evicted)
            self.num_snapshot_evictions += 1
        slot = self._free_snapshots.pop()
        for cache, (conv, ssm) in zip(self.caches, layers, strict=True):
            cache.conv[slot].copy_(conv)
            cache.ssm[slot].copy_(ssm)
        self.snapshots[block] = slot
        self.num_snapshots_written += 1

    def discard_pending(self, seq: Sequence) -> None:
        self._pending.pop(seq, None)

    def forget(self, block: bytes) -> None:
        """``block``'s KV is gone from the prefix cache: its snapshot can never be used again."""
        slot = self.snapshots.pop(block, None)
        if slot is not None:
            self._free_snapshots.append(slot)


@dataclass(frozen=True, slots=True)
class EngineStates:
    slots: StateSlots
    num_blocks: int  # the KV pool's size once the state has taken its share of the budget


def build_state_slots(model: object, config: EngineConfig, device: torch.device, block_bytes: int,
                      max_len: int, block_size: int) -> EngineStates | None:
    """The state slots for ``model`` with KV blocks of ``block_size`` tokens, sized from the memory budget, or None
    for an attention-only model. Refuses what a recurrent state cannot do: speculative decoding (rejected drafts
    would have to be rolled back), and snapshots at block ends the scan never reaches (``choose_block_size``)."""
    if not has_state(model):
        return None
    stateful = cast(StatefulModel, model)
    if config.speculative_method is not None:
        raise ValueError("speculative decoding is not supported for models with Mamba2 layers: their recurrent "
                         "state cannot be rolled back past rejected draft tokens")
    choose_block_size(block_size, stateful.state_chunk_size, config.enable_prefix_caching)  # raises on a conflict
    plan = plan_state_memory(config, state_bytes_per_slot(stateful), block_bytes, max_len, block_size)
    caches = stateful.allocate_state(plan.num_live + plan.num_snapshots, device=device)
    return EngineStates(StateSlots(caches, plan.num_live, plan.num_snapshots, block_size), plan.num_blocks)
