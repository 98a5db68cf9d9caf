"""Prefix caching: exact ``cached_tokens``, identical outputs with and without it, tenant isolation by salt."""

from __future__ import annotations

from engine.request import EngineRequest
from engine.sampling_params import SamplingParams
from engine.scheduling.block_manager import BlockManager
from engine.scheduling.sequence import Sequence

GREEDY = SamplingParams(max_tokens=8, temperature=0, ignore_eos=True)


def finish(engine, request):
    engine.add_request(request)
    outs = []
    while engine.has_unfinished_requests():
        outs += engine.step()
    return outs


def test_cached_tokens_are_exact_and_outputs_unchanged(tiny_llm):
    engine = tiny_llm.engine
    bs = engine.config.block_size
    prompt = list(range(100, 100 + 6 * bs + 2))  # 6 full blocks + 2 tokens
    first = finish(engine, EngineRequest("p1", prompt, GREEDY, cache_salt="tenant-a"))
    assert first[-1].usage.cached_tokens == 0
    second = finish(engine, EngineRequest("p2", prompt, GREEDY, cache_salt="tenant-a"))
    assert second[-1].usage.cached_tokens == 6 * bs
    assert [t for o in second for t in o.token_ids] == [t for o in first for t in o.token_ids]
    # a prompt sharing 3 blocks then diverging reuses exactly those 3
    fork = prompt[: 3 * bs] + [7] * (2 * bs)
    third = finish(engine, EngineRequest("p3", fork, GREEDY, cache_salt="tenant-a"))
    assert third[-1].usage.cached_tokens == 3 * bs


def test_a_different_salt_never_shares_blocks(tiny_llm):
    engine = tiny_llm.engine
    prompt = list(range(200, 200 + 5 * engine.config.block_size))
    finish(engine, EngineRequest("a", prompt, GREEDY, cache_salt="tenant-a"))
    other = finish(engine, EngineRequest("b", prompt, GREEDY, cache_salt="tenant-b"))
    assert other[-1].usage.cached_tokens == 0
    unsalted = finish(engine, EngineRequest("c", prompt, GREEDY))
    assert unsalted[-1].usage.cached_tokens == 0


def test_fully_cached_prompt_still_computes_its_last_token():
    bm = BlockManager(num_blocks=8, block_size=4)
    seq = Sequence("x", list(range(8)), GREEDY)
    assert bm.admit(seq, bm.find_cached_prefix(seq), 8)
    seq.num_computed_tokens = 8
    bm.commit_computed_blocks(seq)
    bm.free_seq(seq)
    again = Sequence("y", list(range(8)), GREEDY)
    hits = bm.find_cached_prefix(again)
    assert len(hits) == 1  # the second block is recomputed so the last prompt token yields logits
    assert bm.admit(again, hits, 8) and again.num_computed_tokens == 4
    bm.free_seq(again)
    assert bm.num_free_blocks == 8


# --- the block pool alone -------------------------------------------------------------------------------------------
def committed(bm: BlockManager, rid: str, tokens: list[int], *, salt: str | None = None,
              public: int = 0) -> Sequence:
    """A request whose prompt has been fully computed (its full blocks indexed), still holding its blocks."""
    seq = Sequence(rid, tokens, GREEDY, cache_salt=salt, public_prefix_len=public)
    assert bm.admit(seq, bm.find_cached_prefix(seq), len(tokens))
    seq.num_computed_tokens = len(tokens)
    bm.commit_computed_blocks(seq)
    return seq


def test_block_keys_are_sha256_chains_over_parent_tokens_and_domain():
    from engine.scheduling.block_manager import block_hash

    root = block_hash(None, (1, 2, 3, 4), b"salt:a")
    assert len(root) == 32
    assert root != block_hash(None, (1, 2, 3, 4), b"salt:b")  # the domain is part of the key
    assert root != block_hash(None, (1, 2, 3, 4), None)
    assert block_hash(root, (5, 6, 7, 8), None) != block_hash(block_hash(None, (1, 2, 3, 5), b"salt:a"),
                                                              (5, 6, 7, 8), None)  # a block's key names its past


def test_a_hash_collision_is_a_miss_never_another_prompts_blocks(monkeypatch):
    import engine.scheduling.block_manager as block_manager

    monkeypatch.setattr(block_manager, "block_hash", lambda parent, tokens, extra: b"same-for-everything")
    bm = BlockManager(num_blocks=16, block_size=4)
    bm.free_seq(committed(bm, "a", list(range(9)), salt="t"))
    assert bm.find_cached_prefix(Sequence("b", list(range(100, 109)), GREEDY, cache_salt="t")) == []
    assert bm.find_cached_prefix(Sequence("c", list(range(9)), GREEDY, cache_salt="u")) == []
    assert len(bm.find_cached_prefix(Sequence("d", list(range(9)), GREEDY, cache_salt="t"))) == 1


def test_eviction_is_least_recently_used_and_spares_shared_heads():
    bm = BlockManager(num_blocks=6, block_size=4)
    a = list(range(8))
    b = list(range(50, 58))
    bm.free_seq(committed(bm, "a", [*a, 99], salt="t"))  # 2 cached blocks + 1 partial (nothing to reuse)
    bm.free_seq(committed(bm, "b", [*b, 99], salt="t"))
    bm.free_seq(committed(bm, "a-again", [*a, 98], salt="t"))  # a's blocks are hit: now b's are the oldest
    filler = Sequence("f", list(range(200, 208)), GREEDY)
    assert bm.admit(filler, [], 8)  # takes two free blocks: the partial ones first, no eviction
    assert bm.num_evictions == 0
    bm.allocate(filler, 12)  # one more: evicts b's *tail* (least recently used; its head stays longest)
    assert bm.num_evictions == 1
    assert len(bm.find_cached_prefix(Sequence("x", [*a, 1], GREEDY, cache_salt="t"))) == 2
    assert len(bm.find_cached_prefix(Sequence("y", [*b, 1], GREEDY, cache_salt="t"))) == 1


def test_public_prefix_blocks_are_shared_across_tenants_and_nothing_after_them():
    bm = BlockManager(num_blocks=32, block_size=4)
    system = list(range(1000, 1010))  # 10 tokens public: 2 full public blocks, the third block straddles
    question = list(range(1, 13))
    a = committed(bm, "a", system + question, salt="tenant-a", public=len(system))
    b = Sequence("b", system + question, GREEDY, cache_salt="tenant-b", public_prefix_len=len(system))
    hits = bm.find_cached_prefix(b)
    assert hits == a.block_table[:2]  # exactly the wholly public blocks
    assert bm.admit(b, hits, len(b)) and b.num_computed_tokens == 8
    assert all(bm.ref_counts[blk] == 2 for blk in hits)
    same_tenant = Sequence("a2", system + question, GREEDY, cache_salt="tenant-a", public_prefix_len=len(system))
    assert len(bm.find_cached_prefix(same_tenant)) == (len(system) + len(question) - 1) // 4  # all of its own
    private = Sequence("c", system + question, GREEDY, cache_salt="tenant-b")  # not published by its policy
    assert bm.find_cached_prefix(private) == []
    bm.free_seq(b)
    assert all(bm.ref_counts[blk] == 1 for blk in hits)  # b's references are gone, a's remain
    bm.free_seq(a)
    assert bm.num_free_blocks == bm.num_blocks


def test_a_public_prefix_shorter_than_a_block_shares_nothing():
    bm = BlockManager(num_blocks=16, block_size=4)
    bm.free_seq(committed(bm, "a", list(range(12)), salt="a", public=3))
    assert bm.find_cached_prefix(Sequence("b", list(range(12)), GREEDY, cache_salt="b", public_prefix_len=3)) == []
