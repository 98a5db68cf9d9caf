"""``bench.serve_reuse``: the prefix reuse a replay offers (longest common prefix with an earlier prompt, in tokens
and in whole blocks) against the prefix cache's hits."""

from __future__ import annotations

import pytest

from bench.serve_reuse import ReuseTally, common_prefix


def test_common_prefix_stops_at_the_first_difference() -> None:
    assert common_prefix([1, 2, 3, 4], [1, 2, 9, 4]) == 2
    assert common_prefix([1, 2], [1, 2, 3]) == 2
    assert common_prefix([], [1]) == 0


def test_each_prompt_reuses_its_longest_prefix_with_any_earlier_prompt() -> None:
    tally = ReuseTally(block_size=4)
    system = list(range(100, 110))  # 10 tokens every session shares
    tally.sent("s0-t0", [*system, 1, 2, 3])  # nothing before it
    tally.sent("s1-t0", [*system, 7, 8])  # the system prompt: 10 tokens, 2 whole blocks
    tally.sent("s0-t1", [*system, 1, 2, 3, 4, 5, 6, 7])  # its previous turn: 13 tokens, 3 whole blocks
    assert tally.ideal_tokens == 0 + 10 + 13
    assert tally.ideal_block_tokens == 0 + 8 + 12
    assert tally.prompt_tokens == 13 + 12 + 17


def test_a_prompt_resent_whole_still_computes_its_last_token() -> None:
    tally = ReuseTally(block_size=4)
    tally.sent("a", [1, 2, 3, 4, 5, 6, 7, 8])
    tally.sent("b", [1, 2, 3, 4, 5, 6, 7, 8])
    assert tally.ideal_tokens == 7 and tally.ideal_block_tokens == 4


def test_hits_are_tallied_against_the_ideal() -> None:
    tally = ReuseTally(block_size=2)
    tally.sent("a", [1, 2, 3, 4])
    tally.sent("b", [1, 2, 3, 5])
    tally.finished("a", 0)
    tally.finished("b", 2)
    summary = tally.as_dict()
    assert summary["ideal_tokens"] == 3 and summary["ideal_block_tokens"] == 2 and summary["cached_tokens"] == 2
    assert summary["cached_share"] == 0.25
    assert "prefix cache hits 2 (25.0%)" in tally.line()
    with pytest.raises(KeyError):
        tally.finished("never-sent", 0)
