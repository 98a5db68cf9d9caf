"""resolve_overlaps indexes the kept findings (bisect on start) instead of comparing each new finding with every kept
one (#34): for any input it keeps the same findings, the very same objects, in the same order as the pairwise scan it
replaced, kept here as the reference."""

from __future__ import annotations

from collections.abc import Collection

from hypothesis import given, settings
from hypothesis import strategies as st

from gateway.guardrails.findings import Finding, resolve_overlaps

TYPES = ["PERSON", "PHONE_NUMBER", "CREDIT_CARD", "LOCATION"]


def pairwise_resolve_overlaps(findings: list[Finding], first: Collection[str] = ()) -> list[Finding]:
    """The function as it was before #34: each ranked finding against every finding kept so far."""
    ranked = sorted(findings, key=lambda f: (f.entity_type not in first, -f.score, -(f.end - f.start), f.start))
    kept: list[Finding] = []
    for finding in ranked:
        if not any(finding.overlaps(other) for other in kept):
            kept.append(finding)
    return sorted(kept, key=lambda f: f.start)


def _same(findings: list[Finding], first: Collection[str] = ()) -> list[Finding]:
    got = resolve_overlaps(findings, first)
    want = pairwise_resolve_overlaps(findings, first)
    assert got == want
    assert [id(f) for f in got] == [id(f) for f in want]  # the same objects, not just equal ones
    return got


@st.composite
def _findings(draw: st.DrawFn, min_length: int = 0) -> Finding:
    start = draw(st.integers(min_value=0, max_value=40))
    length = draw(st.integers(min_value=min_length, max_value=15))
    score = draw(st.sampled_from([0.3, 0.5, 0.85, 1.0]) | st.floats(min_value=0.0, max_value=1.0))
    return Finding(draw(st.sampled_from(TYPES)), start, start + length, score, draw(st.sampled_from(["a", "b"])))


FIRST = st.sampled_from([(), ("CREDIT_CARD",), frozenset({"PERSON", "LOCATION"}), TYPES])


@settings(max_examples=1500, deadline=None)
@given(st.lists(_findings(min_length=0), max_size=40), FIRST)
def test_same_as_the_pairwise_scan_on_random_spans_ties_nesting_and_empty_spans(
    findings: list[Finding], first: Collection[str]
) -> None:
    kept = _same(findings, first)
    assert all(not a.overlaps(b) for i, a in enumerate(kept) for b in kept[i + 1 :])


@settings(max_examples=300, deadline=None)
@given(st.lists(_findings(min_length=-4), max_size=25), FIRST)
def test_same_as_the_pairwise_scan_with_reversed_spans(findings: list[Finding], first: Collection[str]) -> None:
    _same(findings, first)


@settings(max_examples=300, deadline=None)
@given(st.lists(_findings(min_length=1), min_size=1, max_size=8), st.integers(min_value=2, max_value=6))
def test_same_as_the_pairwise_scan_on_duplicated_findings(findings: list[Finding], copies: int) -> None:
    """Equal findings (distinct objects) and exact repeats of one object: the first in rank order wins, as before."""
    clones = [Finding(f.entity_type, f.start, f.end, f.score, f.source) for f in findings]
    _same(findings * copies + clones)


def test_a_card_over_the_phone_inside_it_and_points_at_the_edges() -> None:
    card = Finding("CREDIT_CARD", 10, 29, 0.9, "card")
    phone = Finding("PHONE_NUMBER", 15, 27, 0.9, "phone")
    edge = Finding("PERSON", 29, 29, 0.2, "empty")  # an empty span at the card's end overlaps nothing
    inside = Finding("PERSON", 12, 12, 0.95, "empty")  # ranked first, strictly inside the card only: the card goes
    assert _same([phone, card, edge]) == [card, edge]
    assert _same([phone, card, edge, inside]) == [inside, phone, edge]
    assert _same([phone, card], first=("PHONE_NUMBER",)) == [phone]
    assert _same([]) == [] and _same([card]) == [card]
