"""Output redaction through the /v1 adapter runs on the guard's threads: the event loop keeps serving other requests."""

import asyncio
import threading
import time

import pytest
from guard_support import OUTPUT_POLICY as POLICY

from gateway.guardrails import InputGuard, redact_output_text
from gateway.guardrails.redaction import tenant_token_key
from gateway.openai.guardrails_adapter import GuardrailsOutput
from policies import PiiAction, PiiRules, Policy

SECRET = b"test-server-secret"
TEXT = (
    "Sure! You can reach the owner at dana.k@example.org or on (415) 555-0132. The card on file is "
    "4111 1111 1111 1111. Do not mention Project Bluebird to anyone. That is all the information I have, goodbye. "
) * 3
ANALYSIS_S = 0.25


class SlowAnalyzer:
    """The real analyzer plus a fixed delay (sleeping, like NER over a long output), recording its threads."""

    def __init__(self, analyzer) -> None:
        self._analyzer = analyzer
        self.threads: list[int] = []

    def analyze(self, text, *, ner_enabled=True):
        self.threads.append(threading.get_ident())
        time.sleep(ANALYSIS_S)
        return self._analyzer.analyze(text, ner_enabled=ner_enabled)


async def longest_stall(work) -> tuple[object, float]:
    """Run `work` while another task (a stand-in for other requests) ticks every 10 ms; the longest gap seen."""
    gaps: list[float] = []

    async def other_request() -> None:
        last = time.perf_counter()
        while True:
            await asyncio.sleep(0.01)
            now = time.perf_counter()
            gaps.append(now - last)
            last = now

    ticker = asyncio.create_task(other_request())
    await asyncio.sleep(0)
    try:
        result = await work
    finally:
        ticker.cancel()
    return result, max(gaps)


async def stream_through_filter(output_filter, chunks: list[str]) -> str:
    released = [await output_filter.feed(chunk) for chunk in chunks]
    return "".join(released) + await output_filter.finish()


# Pattern detectors only: the hold-back is the open tail, paced by time (every delta is due after a 0.25 s analysis).
PATTERN_POLICY = Policy(pii_output=PiiRules(entities={"EMAIL_ADDRESS": PiiAction.MASK, "CREDIT_CARD": PiiAction.MASK},
                                            ner_enabled=False))


@pytest.mark.parametrize(("policy", "chunk"), [(POLICY, 7), (PATTERN_POLICY, 60)], ids=["window", "open_tail"])
async def test_streamed_redaction_does_not_block_the_loop_and_keeps_order(analyzer, policy, chunk):
    slow = SlowAnalyzer(analyzer)
    guard = InputGuard(SECRET, analyzer=slow)
    output_filter = GuardrailsOutput(guard).open(tenant_id="t1", policy=policy)
    chunks = [TEXT[i : i + chunk] for i in range(0, len(TEXT), chunk)]  # token-sized deltas (window)
    expected, _ = redact_output_text(analyzer, policy, TEXT, tenant_token_key(SECRET, "t1"))

    streamed, stall = await longest_stall(stream_through_filter(output_filter, chunks))

    assert streamed == expected  # same text as whole-text redaction: order and hold-back kept
    assert "dana.k@" not in streamed and "<EMAIL_ADDRESS>" in streamed
    assert len(slow.threads) >= 3  # several analyses of ANALYSIS_S each ran during the stream ...
    assert threading.get_ident() not in slow.threads  # ... none of them on the loop's thread
    assert stall < ANALYSIS_S / 2, f"the event loop stalled {stall:.3f}s"
    assert {d["kind"] for d in output_filter.decisions()} == {"pii"}


async def test_whole_completion_redaction_does_not_block_the_loop(analyzer):
    slow = SlowAnalyzer(analyzer)
    guard = InputGuard(SECRET, analyzer=slow)
    output_filter = GuardrailsOutput(guard).open(tenant_id="t1", policy=POLICY)
    expected, _ = redact_output_text(analyzer, POLICY, TEXT, tenant_token_key(SECRET, "t1"))

    # The non-streamed path hands the whole completion to one filter as a single delta.
    whole, stall = await longest_stall(stream_through_filter(output_filter, [TEXT]))
    assert whole == expected and stall < ANALYSIS_S / 2

    (safe, decisions), stall = await longest_stall(guard.redact_output_async("t1", TEXT, POLICY))
    assert safe == expected and decisions and stall < ANALYSIS_S / 2
    assert threading.get_ident() not in slow.threads


async def test_small_deltas_are_buffered_without_a_thread_hop(analyzer):
    slow = SlowAnalyzer(analyzer)
    output_filter = GuardrailsOutput(InputGuard(SECRET, analyzer=slow)).open(tenant_id="t1", policy=POLICY)
    assert await output_filter.feed("Hello, ") == "" and await output_filter.feed("world.") == ""
    assert slow.threads == []  # nothing analysed yet: the hold-back window is not full
    assert await output_filter.finish() == "Hello, world."
    assert len(slow.threads) == 1


async def test_a_finish_whose_text_was_analysed_whole_is_not_analysed_again(analyzer):
    # The stub engine's completion: a stamp, then " done". The second delta's analysis reads the whole completion
    # (and releases what it can); the finish reads the same text, and releases the rest without a second analysis,
    # on the loop.
    slow = SlowAnalyzer(analyzer)
    output_filter = GuardrailsOutput(InputGuard(SECRET, analyzer=slow)).open(tenant_id="t1", policy=PATTERN_POLICY)
    expected, _ = redact_output_text(analyzer, PATTERN_POLICY, "t11903982085742 done", tenant_token_key(SECRET, "t1"))

    streamed = await stream_through_filter(output_filter, ["t11903982085742", " done"])

    assert streamed == expected
    assert len(slow.threads) == 1 and threading.get_ident() not in slow.threads


async def test_a_finish_after_more_text_is_analysed_on_the_output_threads(analyzer):
    slow = SlowAnalyzer(analyzer)
    output_filter = GuardrailsOutput(InputGuard(SECRET, analyzer=slow)).open(tenant_id="t1", policy=PATTERN_POLICY)
    text = "Write to dana.k@example.org today"
    expected, _ = redact_output_text(analyzer, PATTERN_POLICY, text, tenant_token_key(SECRET, "t1"))

    released = await output_filter.feed("Write to dana.k@")  # analysed: the first text leaves as soon as any can
    released += await output_filter.feed("example.org today")  # within the pacing interval: buffered only
    released += await output_filter.finish()

    assert released == expected and "<EMAIL_ADDRESS>" in released
    assert len(slow.threads) == 2 and threading.get_ident() not in slow.threads


class CountingAnalyzer:
    """The real analyzer, recording the thread of each analysis."""

    def __init__(self, analyzer) -> None:
        self._analyzer = analyzer
        self.threads: list[int] = []

    def analyze(self, text, *, ner_enabled=True):
        self.threads.append(threading.get_ident())
        return self._analyzer.analyze(text, ner_enabled=ner_enabled)


@pytest.mark.parametrize("policy", [POLICY, PATTERN_POLICY], ids=["window", "open_tail"])
async def test_a_whole_completion_is_analysed_once_at_its_end_off_the_loop(analyzer, policy):
    """A non-streamed completion (``whole``) releases nothing before its end: its deltas are buffered on the loop
    and it is analysed once, on an output thread, into the text and decisions of whole-text redaction."""
    counting = CountingAnalyzer(analyzer)
    output_filter = GuardrailsOutput(InputGuard(SECRET, analyzer=counting)).open(tenant_id="t1", policy=policy,
                                                                                  whole=True)
    expected, decisions = redact_output_text(analyzer, policy, TEXT, tenant_token_key(SECRET, "t1"))

    released = [await output_filter.feed(TEXT[i : i + 7]) for i in range(0, len(TEXT), 7)]
    assert released == [""] * len(released) and counting.threads == []  # buffered: no analysis, no thread hop
    assert await output_filter.finish() == expected
    assert len(counting.threads) == 1 and threading.get_ident() not in counting.threads
    assert output_filter.decisions() == [{"stage": "output_guardrails", **d} for d in decisions]
    assert output_filter.rewrote


async def test_a_whole_structured_completion_keeps_the_streamed_path(analyzer):
    """A structured completion (JSON) is analysed as it comes even when nothing leaves before its end: a value that
    cannot be masked in place withholds the rest at once, and the engine stops computing it."""
    counting = CountingAnalyzer(analyzer)
    output_filter = GuardrailsOutput(InputGuard(SECRET, analyzer=counting)).open(
        tenant_id="t1", policy=PATTERN_POLICY, shape="json", whole=True)
    text = '{"note": "' + TEXT.replace('"', "") + '"}'
    for i in range(0, len(text), 60):
        await output_filter.feed(text[i : i + 60])
    assert counting.threads  # analysed while fed
