"""Text windows around cheap anchors: the expensive recognizers and NER run only inside them."""

from __future__ import annotations

import re

# The rest of a word from a position: how far a window's end is pushed so that it does not cut a word (`\s` is
# Unicode whitespace, what str.isspace tests).
_REST_OF_WORD = re.compile(r"\S*")


def add_window(windows: list[tuple[int, int]], text: str, start: int, end: int, margin: int) -> None:
    """Append [start - margin, end + margin) to `windows` (sorted by start), widened to whitespace so no word is
    cut in half (a cut word reads as a different token), and merged with the previous window if they touch.

    Anchors come dense (every digit pair of a log line): most windows merge into the previous one, so that case
    only extends the end, scanned by the regex engine; the start is walked back only for a window of its own."""
    start, end = max(0, start - margin), min(len(text), end + margin)
    if windows and end <= windows[-1][1]:
        return  # inside the last window, which ends where a word does: widening it to a word's end adds nothing
    end = _REST_OF_WORD.match(text, end).end()  # type: ignore[union-attr]  # `\S*` matches at every position
    if windows and start <= windows[-1][1]:
        if end > windows[-1][1]:
            windows[-1] = (windows[-1][0], end)
        return
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    if windows and start <= windows[-1][1]:
        windows[-1] = (windows[-1][0], max(end, windows[-1][1]))
    else:
        windows.append((start, end))
