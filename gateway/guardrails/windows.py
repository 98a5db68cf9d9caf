"""Text windows around cheap anchors: the expensive recognizers and NER run only inside them."""

from __future__ import annotations


def add_window(windows: list[tuple[int, int]], text: str, start: int, end: int, margin: int) -> None:
    """Append [start - margin, end + margin) to `windows` (sorted by start), widened to whitespace so no word is
    cut in half (a cut word reads as a different token), and merged with the previous window if they touch."""
    start, end = max(0, start - margin), min(len(text), end + margin)
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    while end < len(text) and not text[end].isspace():
        end += 1
    if windows and start <= windows[-1][1]:
        windows[-1] = (windows[-1][0], max(end, windows[-1][1]))
    else:
        windows.append((start, end))
