"""The paged KV block pool: fixed-size blocks, ref counts, an LRU free list, and the prefix-cache index.

A full block's hash chains its parent's hash, its token ids and (first block only) the request's
``cache_salt``, so two requests share a block only when their whole prefix *and* isolation domain match.
Freed blocks keep their hash and stay findable until the LRU free list hands them out again.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict

from engine.sequence import Sequence


def block_hash(parent: bytes | None, tokens: list[int], extra: str | None) -> bytes:
    h = hashlib.blake2b(digest_size=16)
    h.update(parent or b"root")
    if extra is not None:
        encoded = extra.encode()
        h.update(len(encoded).to_bytes(4, "little") + encoded)
    h.update(b"|")
    h.update(b"".join(t.to_bytes(4, "little") for t in tokens))
    return h.digest()


class BlockManager:
    def __init__(self, num_blocks: int, block_size: int, enable_prefix_caching: bool = True) -> None:
        self.num_blocks = num_blocks
        self.block_size = block_size
        self.enable_prefix_caching = enable_prefix_caching
        self.ref_counts = [0] * num_blocks
        self.hashes: list[bytes | None] = [None] * num_blocks
        self.free: OrderedDict[int, None] = OrderedDict.fromkeys(range(num_blocks))  # front = evicted first
        self.cached: dict[bytes, int] = {}  # full-block hash -> block id

    @property
    def num_free_blocks(self) -> int:
        return len(self.free)

    def blocks_needed(self, seq: Sequence, num_tokens: int) -> int:
        return max(0, -(-num_tokens // self.block_size) - len(seq.block_table))

    # --- prefix cache -----------------------------------------------------------------------------
    def _chain_hashes(self, seq: Sequence, num_full_blocks: int) -> list[bytes]:
        hashes = list(seq.block_hashes[:num_full_blocks])
        bs = self.block_size
        for i in range(len(hashes), num_full_blocks):
            parent = hashes[-1] if hashes else None
            hashes.append(block_hash(parent, seq.token_ids[i * bs : (i + 1) * bs], seq.cache_salt if i == 0 else None))
        return hashes

    def find_cached_prefix(self, seq: Sequence) -> list[int]:
        """Block ids holding the longest cached prefix of ``seq`` (at least one token is always left to compute,
        so the step that finishes the prompt has a position to sample from)."""
        if not self.enable_prefix_caching:
            return []
        hits: list[int] = []
        for h in self._chain_hashes(seq, (len(seq) - 1) // self.block_size):
            block = self.cached.get(h)
            if block is None:
                break
            hits.append(block)
        return hits

    def admit(self, seq: Sequence, hits: list[int], num_tokens: int) -> bool:
        """Give a waiting ``seq`` the cached blocks ``hits`` plus fresh blocks up to ``num_tokens``; all or nothing."""
        assert not seq.block_table, "admit() is for sequences without blocks"
        free_hits = sum(1 for b in hits if self.ref_counts[b] == 0)
        new_blocks = -(-num_tokens // self.block_size) - len(hits)
        if new_blocks > self.num_free_blocks - free_hits:
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
            self.ref_counts[block] = 1
            seq.block_table.append(block)

    def free_seq(self, seq: Sequence) -> None:
        # Tail blocks first, so a prefix's head stays cached longest.
        for block in reversed(seq.block_table):
            self.ref_counts[block] -= 1
            assert self.ref_counts[block] >= 0, f"block {block} freed twice"
            if self.ref_counts[block] == 0:
                self.free[block] = None
        seq.block_table = []
        seq.block_hashes = []
        seq.num_computed_tokens = 0

    def commit_computed_blocks(self, seq: Sequence) -> None:
        """Hash and index every block of ``seq`` whose tokens are all in the cache now."""
        if not self.enable_prefix_caching:
            return
        num_full = seq.num_computed_tokens // self.block_size
        if num_full <= len(seq.block_hashes):
            return
        hashes = self._chain_hashes(seq, num_full)
        for i in range(len(seq.block_hashes), num_full):
            block = seq.block_table[i]
            self.hashes[block] = hashes[i]
            self.cached.setdefault(hashes[i], block)
        seq.block_hashes = hashes
