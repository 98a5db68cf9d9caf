"""Windows around anchors: ``add_window`` gives the windows the plain widen-then-merge rule gives."""

from __future__ import annotations

import random
import re

from gateway.guardrails.windows import add_window


def _reference(text: str, anchors: list[tuple[int, int]], margin: int) -> list[tuple[int, int]]:
    """Each anchor widened by ``margin`` and then to whole words, merged with the window before it if they touch."""
    windows: list[tuple[int, int]] = []
    for start, end in anchors:
        start, end = max(0, start - margin), min(len(text), end + margin)
        end = re.compile(r"\S*").match(text, end).end()  # type: ignore[union-attr]
        while start > 0 and not text[start - 1].isspace():
            start -= 1
        if windows and start <= windows[-1][1]:
            windows[-1] = (windows[-1][0], max(end, windows[-1][1]))
        else:
            windows.append((start, end))
    return windows


def test_same_windows_as_the_plain_rule() -> None:
    rng = random.Random(29)
    for _ in range(2000):
        text = "".join(rng.choice("ab12 \n\t") for _ in range(rng.randrange(1, 200)))
        anchors = [m.span() for m in re.finditer(r"\d\d?", text)]
        margin = rng.randrange(0, 30)
        windows: list[tuple[int, int]] = []
        for start, end in anchors:
            add_window(windows, text, start, end, margin)
        assert windows == _reference(text, anchors, margin), (text, margin)
