"""bench.prefix's own logic, small: synthesized prompts share exactly the blocks their hash ids say, and the
closed-loop replay and the flood scenario run to completion on the tiny engine with the cache visibly used."""

from __future__ import annotations

from bench.prefix import TokenSynthesizer, replay, victim_ttfts
from bench.traces.generate import TraceShape, generate
from bench.traces.mooncake import TraceEntry


def test_equal_hash_id_prefixes_give_equal_token_prefixes_and_nothing_more():
    synth = TokenSynthesizer(block_size=8, vocab_size=1000)
    a = synth.prompt(TraceEntry(0, 30, 4, (1, 2, 3, 4)))
    b = synth.prompt(TraceEntry(0, 30, 4, (1, 2, 9, 10)))
    assert len(a) == len(b) == 30
    assert a[:16] == b[:16] and a[16:24] != b[16:24]
    assert all(100 <= t < 900 for t in a)


def test_replay_and_flood_scenario_on_the_tiny_engine(tiny_llm):
    engine = tiny_llm.engine
    shape = TraceShape(context=48, output=3, reuse=0.5, block_size=8, sessions=2, turns=3, system_fraction=0.2)
    entries = generate(shape)
    synth = TokenSynthesizer(8, engine.vocab_size)
    result = replay(engine, entries, synth, concurrency=2, tenants=2, public_prefix_len=8)
    assert result["requests"] == 6
    assert 0 < result["cached_fraction"] < 1  # later turns reuse their session's blocks
    assert result["ttft_p50_s"] > 0 and result["output_tok_s"] > 0
    ttfts = victim_ttfts(engine, synth, victims=1, victim_len=20, flood_depth=4, flood_len=40, flood_output=3)
    assert sorted(ttfts) == ["alone", "flood_fair", "flood_fifo"]
    assert all(len(values) == 1 and values[0] > 0 for values in ttfts.values())
    assert not engine.has_unfinished_requests()  # the flood left behind was aborted
    assert engine.scheduler.fair  # the FIFO switch was put back
