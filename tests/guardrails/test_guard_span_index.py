"""SpanIndex answers whether a span overlaps any held one as a plain scan of every span would."""

import random

from gateway.guardrails.span_index import SpanIndex


def test_overlaps_as_a_plain_scan_does() -> None:
    rng = random.Random(7)
    given = [(start, start + rng.randint(1, 30)) for start in (rng.randint(0, 500) for _ in range(40))]
    index, held = SpanIndex(given), list(given)
    for _ in range(400):
        start = rng.randint(0, 520)
        end = start + rng.randint(1, 12)
        plain = any(s < end and start < e for s, e in held)
        assert index.overlaps(start, end) == plain
        if not plain:
            index.add(start, end)
            held.append((start, end))


def test_touching_spans_do_not_overlap() -> None:
    index = SpanIndex([(10, 20)])
    index.add(30, 40)
    assert not index.overlaps(20, 30)
    assert index.overlaps(19, 21) and index.overlaps(39, 45) and not index.overlaps(0, 10)
