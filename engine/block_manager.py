"""The paged KV block pool: fixed-size blocks, ref counts, an LRU free list, and the prefix-cache index.

A full block's key is ``SHA-256(parent_hash, block_tokens, extra_keys)``. The extra keys name the block's isolation
domain where a domain begins: the first block carries the request's ``cache_salt`` (a tenant's HMAC, set by the
gateway), or the public salt when it lies inside a published public prefix; the first block after a public prefix
carries the tenant's salt again. Every later block inherits its domain through the parent hash, so two requests
share a block only when their whole prefix *and* domain match: tenants share the public blocks and nothing else.

A hit is confirmed by comparing the cached block's (parent, tokens, extra keys) with the request's, so even a
hash collision can never serve another prompt's KV. Freed blocks keep their key and stay findable until the LRU
free list hands them out again; blocks that hold nothing reusable are handed out first.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict

from engine.sequence import Sequence

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


class BlockManager:
    def __init__(self, num_blocks: int, block_size: int, enable_prefix_caching: bool = True) -> None:
        self.num_blocks = num_blocks
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
        so the step that finishes the prompt has a position to sample from)."""
        if not self.enable_prefix_caching:
            return []
        hits: list[int] = []
        parent: bytes | None = None
        for i in range((len(seq) - 1) // self.block_size):
            key = self._block_key(seq, i, parent)
            parent = block_hash(*key)
            block = self.cached.get(parent)
            if block is None or self.keys[block] != key:  # a collision is a miss, never someone else's KV
                break
            hits.append(block)
        return hits

    def admit(self, seq: Sequence, hits: list[int], num_tokens: int) -> bool:
        """Give a waiting ``seq`` the cached blocks ``hits`` plus fresh blocks up to ``num_tokens``; all or nothing."""
        assert not seq.block_table, "admit() is for sequences without blocks"
        if self.new_blocks_to_admit(hits, num_tokens) > self.num_free_blocks:
            return False
        for b in hits:
            if self.ref_counts[b] == 0:
                del self.free[b]
            self.ref_counts[b] += 1
        seq.block_table = list(hits)
        seq.block_hashes = [self.hashes[b] for b in hits]  # type: ignore[misc]
        seq.num_computed_tokens = len(hits) * self.block_size
        self.allocate(seq, num_tokens)
        return True

    def new_blocks_to_admit(self, hits: list[int], num_tokens: int) -> int:
        """Free-list blocks ``admit(seq, hits, num_tokens)`` would take: fresh blocks plus hits nobody holds."""
        return -(-num_tokens // self.block_size) - len(hits) + sum(1 for b in hits if self.ref_counts[b] == 0)

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
                self.hashes[block] = None
                self.keys[block] = None
                self.num_evictions += 1
            self.ref_counts[block] = 1
            self.draft_filled[block] = False
            seq.block_table.append(block)

    def free_seq(self, seq: Sequence) -> None:
        """Drop ``seq``'s references. Blocks nobody holds go to the free list: cached ones at the back (least
        recently used first out; a prompt's tail before its head, so shared heads stay longest), blocks with
        nothing reusable at the front."""
        for block in reversed(seq.block_table):
            self.ref_counts[block] -= 1
            assert self.ref_counts[block] >= 0, f"block {block} freed twice"
            if self.ref_counts[block] == 0:
                self.free[block] = None
                if self.hashes[block] is None:
                    self.free.move_to_end(block, last=False)
        seq.block_table = []
        seq.block_hashes = []
        seq.num_computed_tokens = 0

    def commit_computed_blocks(self, seq: Sequence) -> None:
        """Hash and index every block of ``seq`` whose tokens are all in the cache now."""
        if not self.enable_prefix_caching:
            return
        num_full = seq.num_computed_tokens // self.block_size
        done = len(seq.block_hashes)
        if num_full <= done:
            return
        hashes, keys = self._chain(seq, num_full)
        for i in range(done, num_full):
            block = seq.block_table[i]
            # Two requests may compute the same block at once; the first indexed stays the cached copy and the
            # other is plain memory again once its holder lets go.
            if self.cached.setdefault(hashes[i], block) == block:
                self.hashes[block] = hashes[i]
                self.keys[block] = keys[i - done]
        seq.block_hashes = hashes
