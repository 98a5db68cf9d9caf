"""The paged KV block pool: fixed-size blocks, ref counts, an LRU free list, and the prefix-cache index.

A full block's key is ``SHA-256(parent_hash, block_tokens, extra_keys)``. The extra keys name the block's isolation
domain where a domain begins: the first block carries the request's ``cache_salt`` (a tenant's HMAC, set by the
gateway), or the public salt when it lies inside a published public prefix; the first block after a public prefix
carries the tenant's salt again. Every later block inherits its domain through the parent hash, so two requests
share a block only when their whole prefix *and* domain match: tenants share the public blocks and nothing else.

A hit is confirmed by comparing the cached block's (parent, tokens, extra keys) with the request's, so even a
hash collision can never serve another prompt's KV. Freed blocks keep their key and stay findable until the LRU
free list hands them out again; blocks that hold nothing reusable are handed out first.

Sliding windows: when every layer of the model attends through the same window of ``W`` keys (Mistral), a block
whose positions all lie before the window of a sequence's next query is never read again by that sequence, so it
is released while the sequence still runs (``release_out_of_window``): its table entry becomes ``NO_BLOCK`` and the
block goes back to the free list like a finished sequence's (still findable by its hash until it is handed out
again). A prefix hit likewise needs, and pins, only the blocks inside the window of its first token to compute;
the kernels never read an entry before the window. When any layer is global (Gemma 2 alternates windowed and global
layers), that layer reads every block: nothing can be released early, and the manager is built without a window.

Models with Mamba2 layers (``states``, ``engine.scheduling.mamba_state``): admission also takes a live state slot (no
slot, no admission), freeing a sequence gives it back, a hit is cut back to the last block with a state snapshot (whose
state it restores), committed blocks take the snapshots the step staged for their ends, and a cached block handed
out again drops its snapshot.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from typing import TYPE_CHECKING

from engine.scheduling.sequence import Sequence

if TYPE_CHECKING:
    from engine.scheduling.mamba_state import StateSlots

ROOT_HASH = b"warden/kv-root"
# Extra keys are tagged so that no tenant salt can ever spell the public domain.
PUBLIC_DOMAIN = b"public"


def tenant_domain(cache_salt: str) -> bytes:
    return b"salt:" + cache_salt.encode()


def block_hash(parent: bytes | None, tokens: tuple[int, ...], extra: bytes | None) -> bytes:
    h = hashlib.sha256()
    h.update(parent or ROOT_HASH)
    if extra is not None:
        h.update(len(extra).to_bytes(4, "little") + extra)
    else:
        h.update(b"\xff\xff\xff\xff")  # "no extra keys" differs from every length prefix
    h.update(b"".join(t.to_bytes(4, "little") for t in tokens))
    return h.digest()


BlockKey = tuple[bytes | None, tuple[int, ...], bytes | None]  # (parent hash, tokens, extra keys)
NO_BLOCK = -1  # a block-table entry whose block was released (out of every layer's sliding window)


class BlockManager:
    def __init__(self, num_blocks: int, block_size: int, enable_prefix_caching: bool = True,
                 sliding_window: int = 0, states: StateSlots | None = None) -> None:
        if states is not None and sliding_window:
            raise ValueError("a model with recurrent state is served without a shared sliding window")
        self.num_blocks = num_blocks
        self.states = states
        # The window every layer shares, in keys (0: some layer is global, or none is windowed: nothing is released
        # before a sequence ends).
        self.sliding_window = sliding_window
        self.num_released = 0  # blocks released out of the window while their sequence ran (metrics, tests)
        self.block_size = block_size
        self.enable_prefix_caching = enable_prefix_caching
        self.ref_counts = [0] * num_blocks
        self.hashes: list[bytes | None] = [None] * num_blocks
        self.keys: list[BlockKey | None] = [None] * num_blocks  # what each cached block holds (collision guard)
        self.free: OrderedDict[int, None] = OrderedDict.fromkeys(range(num_blocks))  # front = handed out first
        self.cached: dict[bytes, int] = {}  # full-block hash -> block id
        self.num_evictions = 0  # cached blocks overwritten (metrics, tests)
        # Whether the draft model's cache (speculative decoding) holds this block's KV too: set by the draft
        # proposer once it has computed every token of the block, cleared when the block takes new contents. A
        # prefix-cache hit on a block with it set saves the draft model that block as well.
        self.draft_filled = [False] * num_blocks
        # Full blocks running sequences are yet to compute, by hash (how many sequences will compute each), and each
        # sequence's share of them in block order: a waiting prompt whose next block is among them waits for it to
        # be cached rather than computing it a second time (``next_block_in_flight``).
        self.in_flight: dict[bytes, int] = {}
        self._promised: dict[Sequence, list[tuple[int, bytes]]] = {}

    @property
    def num_free_blocks(self) -> int:
        return len(self.free)

    def blocks_needed(self, seq: Sequence, num_tokens: int) -> int:
        return max(0, -(-num_tokens // self.block_size) - len(seq.block_table))

    # --- prefix cache -----------------------------------------------------------------------------
    def _extra_keys(self, seq: Sequence, index: int) -> bytes | None:
        """The isolation domain starting at block ``index`` (None: inherited from the parent)."""
        num_public = seq.public_prefix_len // self.block_size
        if index == 0 and num_public > 0:
            return PUBLIC_DOMAIN
        if index == num_public and seq.cache_salt is not None:
            return tenant_domain(seq.cache_salt)
        return None

    def _block_key(self, seq: Sequence, index: int, parent: bytes | None) -> BlockKey:
        bs = self.block_size
        return parent, tuple(seq.token_ids[index * bs : (index + 1) * bs]), self._extra_keys(seq, index)

    def _chain(self, seq: Sequence, num_full_blocks: int) -> tuple[list[bytes], list[BlockKey]]:
        """Hashes and keys of the first ``num_full_blocks`` blocks beyond those ``seq`` already has hashed."""
        hashes = list(seq.block_hashes[:num_full_blocks])
        keys: list[BlockKey] = []
        for i in range(len(hashes), num_full_blocks):
            key = self._block_key(seq, i, hashes[-1] if hashes else None)
            hashes.append(block_hash(*key))
            keys.append(key)
        return hashes, keys

    def find_cached_prefix(self, seq: Sequence) -> list[int]:
        """Block ids holding the longest cached prefix of ``seq`` (at least one token is always left to compute,
        so the step that finishes the prompt has a position to sample from).

        Under a shared sliding window only the blocks inside the window of the first token left to compute are
        ever read, so a prefix counts as cached when those are, whatever became of the blocks before them (released
        mid-decode and handed out since): their entries are ``NO_BLOCK``."""
        if not self.enable_prefix_caching:
            return []
        windowed = self.sliding_window > 0
        found: list[int] = []
        hashes: list[bytes] = []
        run_ends: list[int] = []  # per block, how many consecutive cached blocks end with it
        parent: bytes | None = None
        for i in range((len(seq) - 1) // self.block_size):
            key = self._block_key(seq, i, parent)
            parent = block_hash(*key)
            hashes.append(parent)
            block = self.cached.get(parent)
            if block is None or self.keys[block] != key:  # a collision is a miss, never someone else's KV
                if not windowed:
                    break
                block = NO_BLOCK
            found.append(block)
            run_ends.append(0 if block == NO_BLOCK else (run_ends[-1] if run_ends else 0) + 1)
        if not windowed:
            # The recurrent layers resume only from a snapshot: a hit ends at the last block that has one.
            return found if self.states is None else found[: self.states.restorable_blocks(hashes[: len(found)])]
        for length in range(len(found), 0, -1):
            first = self._blocks_before_window(length * self.block_size, length)
            if run_ends[length - 1] >= length - first:
                return [NO_BLOCK] * first + found[first:length]
        return []

    def next_block_in_flight(self, seq: Sequence, hits: list[int]) -> bool:
        """Whether the first block waiting ``seq`` would compute after its cached prefix ``hits`` is one a running
        sequence is computing (the same tokens after the same prefix, in the same domain): admitted once that block
        is cached, ``seq`` takes it as a hit instead of computing it again. Sequences that arrive together with a
        shared prefix (an agent fleet starting on one system prompt) then compute it once. Not under a shared
        sliding window, whose hits follow their own rule."""
        index = len(hits)
        if not self.in_flight or self.sliding_window > 0 or index >= (len(seq) - 1) // self.block_size:
            return False
        parent = self.hashes[hits[-1]] if hits else None
        if hits and parent is None:
            return False
        return self.in_flight.get(block_hash(*self._block_key(seq, index, parent)), 0) > 0

    def _promise(self, seq: Sequence) -> None:
        """Register the full blocks of ``seq``'s known tokens that it is about to compute (those past its hits)."""
        if not self.enable_prefix_caching or self.sliding_window > 0:
            return
        done = len(seq.block_hashes)
        hashes, _ = self._chain(seq, len(seq) // self.block_size)
        promised = list(enumerate(hashes))[done:]
        for _, digest in promised:
            self.in_flight[digest] = self.in_flight.get(digest, 0) + 1
        if promised:
            self._promised[seq] = promised

    def _settle(self, seq: Sequence, num_full: int | None = None) -> None:
        """Drop ``seq``'s promises for its blocks before ``num_full`` (all of them with None): computed, or never
        to be computed by it."""
        promised = self._promised.get(seq)
        if promised is None:
            return
        cut = len(promised) if num_full is None else sum(1 for index, _ in promised if index < num_full)
        for _, digest in promised[:cut]:
            left = self.in_flight[digest] - 1
            if left:
                self.in_flight[digest] = left
            else:
                del self.in_flight[digest]
        del promised[:cut]
        if not promised:
            del self._promised[seq]

    def admit(self, seq: Sequence, hits: list[int], num_tokens: int) -> bool:
        """Give a waiting ``seq`` the cached blocks ``hits`` plus fresh blocks up to ``num_tokens``; all or nothing."""
        assert not seq.block_table, "admit() is for sequences without blocks"
        if self.new_blocks_to_admit(hits, num_tokens) > self.num_free_blocks or not self.has_state_slot():
            return False
        # Hits wholly before the window of the first token to compute are never read: left where they are (in the
        # cache), their entries NO_BLOCK; their hashes still chain the blocks after them.
        skip = self._blocks_before_window(len(hits) * self.block_size, len(hits))
        for b in hits[skip:]:
            if self.ref_counts[b] == 0:
                del self.free[b]
            self.ref_counts[b] += 1
        seq.block_table = [NO_BLOCK] * skip + hits[skip:]
        if NO_BLOCK in hits:  # blocks before the window that are gone: their hashes from the tokens
            seq.block_hashes = self._chain(seq, len(hits))[0]
        else:
            seq.block_hashes = [self.hashes[b] for b in hits]  # type: ignore[misc]
        seq.num_computed_tokens = len(hits) * self.block_size
        if self.states is not None:
            self.states.acquire(seq)
            if hits:
                self.states.restore(seq, seq.block_hashes[-1])
        self.allocate(seq, num_tokens)
        self._promise(seq)
        return True

    def has_state_slot(self) -> bool:
        """Whether a sequence could be admitted as far as recurrent state goes (always, for attention-only models)."""
        return self.states is None or self.states.num_free_slots > 0

    def new_blocks_to_admit(self, hits: list[int], num_tokens: int) -> int:
        """Free-list blocks ``admit(seq, hits, num_tokens)`` would take: fresh blocks plus the hits it pins (those
        inside the window, all without one) that nobody holds."""
        skip = self._blocks_before_window(len(hits) * self.block_size, len(hits))
        pinned = sum(1 for b in hits[skip:] if self.ref_counts[b] == 0)
        return -(-num_tokens // self.block_size) - len(hits) + pinned

    def _blocks_before_window(self, position: int, limit: int) -> int:
        """How many leading blocks (at most ``limit``) lie wholly before the window of the query at ``position``,
        which sees keys from ``position - W + 1`` on; 0 without a window every layer shares."""
        if self.sliding_window <= 0:
            return 0
        return min(max(position - self.sliding_window + 1, 0) // self.block_size, limit)

    # --- allocation ---------------------------------------------------------------------------------
    def can_allocate(self, seq: Sequence, num_tokens: int) -> bool:
        return self.blocks_needed(seq, num_tokens) <= self.num_free_blocks

    def allocate(self, seq: Sequence, num_tokens: int) -> None:
        """Grow ``seq.block_table`` to hold ``num_tokens`` tokens."""
        for _ in range(self.blocks_needed(seq, num_tokens)):
            block, _ = self.free.popitem(last=False)
            stale = self.hashes[block]
            if stale is not None:  # evict: the block's old contents are about to be overwritten
                if self.cached.get(stale) == block:
                    del self.cached[stale]
                    if self.states is not None:
                        self.states.forget(stale)
                self.hashes[block] = None
                self.keys[block] = None
                self.num_evictions += 1
            self.ref_counts[block] = 1
            self.draft_filled[block] = False
            seq.block_table.append(block)

    def _unref(self, block: int) -> None:
        """Drop one reference. A block nobody holds goes to the free list: a cached one at the back (least recently
        used first out), one with nothing reusable at the front."""
        self.ref_counts[block] -= 1
        assert self.ref_counts[block] >= 0, f"block {block} freed twice"
        if self.ref_counts[block] == 0:
            self.free[block] = None
            if self.hashes[block] is None:
                self.free.move_to_end(block, last=False)

    def free_seq(self, seq: Sequence) -> None:
        """Drop ``seq``'s references, a prompt's tail before its head (so shared heads stay cached longest)."""
        for block in reversed(seq.block_table):
            if block != NO_BLOCK:
                self._unref(block)
        self._settle(seq)
        seq.block_table = []
        seq.block_hashes = []
        seq.num_computed_tokens = 0
        if self.states is not None:
            self.states.release(seq)

    def release_out_of_window(self, seq: Sequence) -> int:
        """Release the blocks of running ``seq`` that lie wholly before the window of its next query (position
        ``num_computed_tokens``, which sees keys from ``num_computed_tokens - W + 1`` on; every later query's
        window starts later still); how many. Released blocks were computed and indexed by earlier steps, so they
        stay findable in the prefix cache. Nothing without a window every layer shares."""
        end = self._blocks_before_window(seq.num_computed_tokens, len(seq.block_table))
        released = 0
        # Released entries form a prefix of the table: walk back from the window until the last one released.
        for index in range(end - 1, -1, -1):
            block = seq.block_table[index]
            if block == NO_BLOCK:
                break
            self._unref(block)
            seq.block_table[index] = NO_BLOCK
            released += 1
        self.num_released += released
        return released

    def num_held(self, seq: Sequence) -> int:
        """Blocks ``seq`` holds (its table less the entries released out of the window)."""
        return len(seq.block_table) - (seq.block_table.count(NO_BLOCK) if self.sliding_window > 0 else 0)

    def commit_computed_blocks(self, seq: Sequence) -> None:
        """Hash and index every block of ``seq`` whose tokens are all in the cache now."""
        if not self.enable_prefix_caching:
            return
        num_full = seq.num_computed_tokens // self.block_size
        done = len(seq.block_hashes)
        if num_full <= done:
            if self.states is not None:
                self.states.discard_pending(seq)
            return
        hashes, keys = self._chain(seq, num_full)
        for i in range(done, num_full):
            block = seq.block_table[i]
            # Two requests may compute the same block at once; the first indexed stays the cached copy and the
            # other is plain memory again once its holder lets go.
            if self.cached.setdefault(hashes[i], block) == block:
                self.hashes[block] = hashes[i]
                self.keys[block] = keys[i - done]
            if self.states is not None:  # the state at this block's end, staged by the step's forward
                self.states.commit(seq, (i + 1) * self.block_size, hashes[i])
        seq.block_hashes = hashes
        self._settle(seq, num_full)
        if self.states is not None:
            self.states.discard_pending(seq)
