"""Values split across messages: "my card is 4111 1111" in one message and "1111 1111" in the next.

Each text of a request is analysed alone (and cached by its content), so a value cut in two is two harmless halves,
yet the model reads the texts one after the other and can put the halves back together. So the text around each
boundary between consecutive texts is analysed jointly as well: a window of up to ``width`` visible characters on
each side, reaching into up to ``max_texts`` texts on each side where the nearest are shorter (a value cut into
several short messages). Each window is read twice: its pieces joined by a space (digit groups or the words of a
spelled-out or street address cut between two groups), and joined directly (a value cut inside a token:
"dana.k@exam" + "ple.org"). The glued reading runs the pattern detectors only: values have shapes to look for
there, but NER reads "Maria Garcia." glued to "mail" as one name. Only findings that reach across a boundary count;
each is split into the part each text holds, and every part gets the finding's action.

A window's outer edges widen to whitespace (by up to ``width`` characters), so no word is read cut in half; where
an edge still falls inside a token, a finding that touches it is dropped (it may be the end of a longer token that
is no value at all). The windows are cached by content like the texts, so a resent history's boundaries cost a
lookup each, and an appended message adds at most ``max_texts`` + 1 new windows of bounded size, however long the
history.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gateway.guardrails.findings import Finding
from gateway.guardrails.normalize import visible_count, visible_head_end, visible_tail_start

# How a window's pieces are joined for each reading, and whether that reading may run NER (if the policy does).
READINGS: tuple[tuple[str, bool], ...] = ((" ", True), ("", False))


@dataclass(frozen=True, slots=True)
class Segment:
    """A slice of one of the request's texts."""

    text: int  # index of the text in the request
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class BoundaryWindow:
    segments: tuple[Segment, ...]  # consecutive texts' slices, in order; at least two
    cut_start: bool  # the window starts inside a token: a finding that starts there is not trusted
    cut_end: bool  # likewise at its end

    def pieces(self, texts: Sequence[str]) -> list[str]:
        return [texts[segment.text][segment.start : segment.end] for segment in self.segments]

    def cache_text(self, texts: Sequence[str]) -> str:
        """Everything the window's findings depend on, as one string to hash."""
        pieces = self.pieces(texts)
        lengths = ",".join(str(len(piece)) for piece in pieces)
        return f"{int(self.cut_start)}{int(self.cut_end)}:{lengths}:" + "".join(pieces)


@dataclass(frozen=True, slots=True)
class SplitFinding:
    """A finding that reaches across at least one boundary of its window, as the parts its segments hold."""

    entity_type: str
    score: float
    source: str
    parts: tuple[tuple[int, int, int], ...]  # (segment index in the window, start, end), offsets within the piece


def boundary_windows(texts: Sequence[str], width: int, max_texts: int) -> list[BoundaryWindow]:
    """One window per boundary between consecutive non-empty texts (an empty text holds and separates nothing)."""
    order = [index for index, text in enumerate(texts) if text]
    windows = []
    for position in range(len(order) - 1):
        before, cut_start = _reach_back(texts, order, position, width, max_texts)
        after, cut_end = _reach_forward(texts, order, position + 1, width, max_texts)
        windows.append(BoundaryWindow(before + after, cut_start, cut_end))
    return windows


def _reach_back(
    texts: Sequence[str], order: list[int], position: int, width: int, max_texts: int
) -> tuple[tuple[Segment, ...], bool]:
    segments: list[Segment] = []
    need = width
    for at in range(position, max(-1, position - max_texts), -1):
        text = texts[order[at]]
        start = visible_tail_start(text, need)
        need -= visible_count(text[start:])
        if need <= 0 and start > 0:
            start = _widen_back(text, start, width)
            segments.append(Segment(order[at], start, len(text)))
            return tuple(reversed(segments)), start > 0 and not text[start - 1].isspace()
        segments.append(Segment(order[at], 0, len(text)))
        if need <= 0:
            break
    return tuple(reversed(segments)), False


def _reach_forward(
    texts: Sequence[str], order: list[int], position: int, width: int, max_texts: int
) -> tuple[tuple[Segment, ...], bool]:
    segments: list[Segment] = []
    need = width
    for at in range(position, min(len(order), position + max_texts)):
        text = texts[order[at]]
        end = visible_head_end(text, need)
        need -= visible_count(text[:end])
        if need <= 0 and end < len(text):
            end = _widen_forward(text, end, width)
            segments.append(Segment(order[at], 0, end))
            return tuple(segments), end < len(text) and not text[end].isspace()
        segments.append(Segment(order[at], 0, len(text)))
        if need <= 0:
            break
    return tuple(segments), False


def _widen_back(text: str, start: int, limit: int) -> int:
    stop = max(0, start - limit)
    while start > stop and not text[start - 1].isspace():
        start -= 1
    return start


def _widen_forward(text: str, end: int, limit: int) -> int:
    stop = min(len(text), end + limit)
    while end < stop and not text[end].isspace():
        end += 1
    return end


def joined(pieces: Sequence[str], join: str) -> tuple[str, list[int]]:
    """The pieces joined, and where each begins in the result."""
    offsets = []
    position = 0
    for piece in pieces:
        offsets.append(position)
        position += len(piece) + len(join)
    return join.join(pieces), offsets


def crossing_findings(
    window: BoundaryWindow, pieces: Sequence[str], findings_per_join: Sequence[Sequence[Finding]]
) -> tuple[SplitFinding, ...]:
    """The findings (of the window read each of the ``READINGS`` ways) that reach across a boundary, as parts per
    piece; a value both readings find is kept once, with the higher score."""
    kept: dict[tuple[str, tuple[tuple[int, int, int], ...]], SplitFinding] = {}
    for (join, _), findings in zip(READINGS, findings_per_join, strict=True):
        text, offsets = joined(pieces, join)
        for finding in findings:
            if (window.cut_start and finding.start == 0) or (window.cut_end and finding.end == len(text)):
                continue
            parts = []
            for index, (piece, offset) in enumerate(zip(pieces, offsets, strict=True)):
                start, end = max(finding.start, offset), min(finding.end, offset + len(piece))
                if start < end:
                    parts.append((index, start - offset, end - offset))
            if len(parts) < 2:
                continue  # inside one text: that text's own analysis reports it
            key = (finding.entity_type, tuple(parts))
            if key not in kept or kept[key].score < finding.score:
                kept[key] = SplitFinding(finding.entity_type, finding.score, finding.source, key[1])
    return tuple(kept.values())
