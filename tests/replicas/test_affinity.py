"""The routing rule on its own: what the key covers, rendezvous ranking, and the load bound."""

from __future__ import annotations

from engine.request import EngineRequest
from gateway.replicas import affinity

BS = 16
SPAN = affinity.affinity_span(BS)


def key(tokens: list[int], salt: str | None = "tenant-a", public: int = 0) -> bytes:
    return affinity.route_key(EngineRequest("r", tokens, cache_salt=salt, public_prefix_len=public), BS)


def test_the_span_is_whole_blocks_and_at_least_one() -> None:
    assert affinity.affinity_span(16) == 32 and affinity.affinity_span(4) == 32
    assert affinity.affinity_span(64) == 64 and affinity.affinity_span(1) == 32


def test_the_key_covers_the_salt_and_the_leading_span_only() -> None:
    prompt = list(range(100, 200))
    assert key(prompt) == key([*prompt[:SPAN], 7, 8, 9])  # a later turn of the conversation keeps its key
    assert key(prompt) != key([*prompt[:SPAN - 1], 7, *prompt[SPAN:]])  # a difference inside the span moves it
    assert key(prompt) != key(prompt, salt="tenant-b")
    assert key(prompt, salt=None) != key(prompt, salt="")
    assert key(prompt[:10]) != key(prompt[:11])  # shorter than the span: the whole prompt


def test_a_public_prefix_routes_without_the_salt() -> None:
    prompt = list(range(100, 200))
    public = 2 * BS + 5  # two whole public blocks, then the tenant's own tokens
    assert key(prompt, "tenant-a", public) == key(prompt, "tenant-b", public)
    assert key(prompt, "tenant-a", public) == key([*prompt[:public], 1, 2, 3], "tenant-c", public)
    one_block = BS + 3  # the key stops at the public blocks: the tenant's tokens after them do not split it
    assert key(prompt, "tenant-a", one_block) == key([*prompt[:BS], 9, 9, 9, 9], "tenant-b", one_block)
    # less than one whole block is public: nothing is shared in the engine, so the tenant's salt routes it
    assert key(prompt, "tenant-a", BS - 1) != key(prompt, "tenant-b", BS - 1)
    assert key(prompt, "tenant-a", BS - 1) == key(prompt, "tenant-a")


def test_rendezvous_moves_only_the_removed_replicas_keys() -> None:
    keys = [key([1, 2, 3], salt=f"tenant-{i}") for i in range(400)]
    before = {k: affinity.ranking(k, [0, 1, 2, 3])[0] for k in keys}
    after = {k: affinity.ranking(k, [0, 1, 3])[0] for k in keys}  # replica 2 died
    assert all(after[k] == before[k] for k in keys if before[k] != 2)
    assert {before[k] for k in keys} == {0, 1, 2, 3}  # and they spread over all four
    assert min(sum(1 for k in keys if before[k] == r) for r in range(4)) > 50


def test_the_load_bound() -> None:
    k = key([1, 2, 3])
    home, other = affinity.ranking(k, [0, 1])
    loads = [0, 0]
    loads[home] = affinity.SPILL_MIN
    assert affinity.choose(k, loads, [True, True]) == home  # within the slack: the cache wins
    loads[home] += 1
    assert affinity.choose(k, loads, [True, True]) == other
    loads[other] = 40
    loads[home] = 40 + affinity.spill_allowance(40)  # the slack grows with the load (25% of the least)
    assert affinity.spill_allowance(40) == 10
    assert affinity.choose(k, loads, [True, True]) == home
    loads[home] += 1
    assert affinity.choose(k, loads, [True, True]) == other
    live = [True, True]
    live[home] = False
    assert affinity.choose(k, [0, 100], live) == other  # only live replicas count, however loaded
    assert affinity.choose(k, [0, 0], [False, False]) is None


def test_spill_goes_to_the_next_in_the_keys_ranking() -> None:
    k = key([5, 6, 7])
    first, second, third = affinity.ranking(k, [0, 1, 2])
    loads = [0, 0, 0]
    loads[first] = 30
    loads[second] = 2
    loads[third] = 0
    assert affinity.choose(k, loads, [True] * 3) == second  # within least + 2, and its cache is this key's next
