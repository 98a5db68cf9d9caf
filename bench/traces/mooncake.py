"""The Mooncake trace format (FAST'25; what AIPerf's ``mooncake_trace`` dataset type reads): JSON lines of
``{"timestamp": ms, "input_length": tokens, "output_length": tokens, "hash_ids": [block ids]}``.

``hash_ids[i]`` names the i-th ``block_size``-token block of the prompt *together with everything before it*: two
requests share a prefix exactly as far as their ``hash_ids`` agree, which is what prefix caching can reuse. The
block size is not in the format (AIPerf's ``--prompt-input-tokens-block-size``, 512 by default); our generator
writes it, with how the trace was made, to a ``<trace>.meta.json`` sidecar. ``session_id`` (optional) groups
the turns of one conversation: a replayer sends a session's turns in order, one at a time.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

DEFAULT_BLOCK_SIZE = 512  # Mooncake's and AIPerf's


@dataclass(frozen=True, slots=True)
class TraceEntry:
    timestamp: int  # ms since the trace's start
    input_length: int
    output_length: int
    hash_ids: tuple[int, ...]
    session_id: str | None = None

    def to_json(self) -> dict[str, Any]:
        entry = asdict(self)
        entry["hash_ids"] = list(self.hash_ids)
        if self.session_id is None:
            del entry["session_id"]
        return entry

    @classmethod
    def from_json(cls, obj: dict[str, Any], block_size: int) -> TraceEntry:
        try:
            entry = cls(timestamp=int(obj["timestamp"]), input_length=int(obj["input_length"]),
                        output_length=int(obj["output_length"]),
                        hash_ids=tuple(int(h) for h in obj.get("hash_ids") or ()),
                        session_id=None if obj.get("session_id") is None else str(obj["session_id"]))
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"not a Mooncake trace entry: {exc}") from None
        if entry.input_length < 1 or entry.output_length < 1 or entry.timestamp < 0:
            raise ValueError("input_length and output_length must be positive and timestamp non-negative")
        if entry.hash_ids and len(entry.hash_ids) != -(-entry.input_length // block_size):
            raise ValueError(f"{len(entry.hash_ids)} hash_ids do not cover {entry.input_length} tokens in blocks of "
                             f"{block_size}")
        return entry


def meta_path(trace: Path) -> Path:
    return trace.with_name(trace.name + ".meta.json")


def read_trace(path: Path, block_size: int | None = None) -> tuple[list[TraceEntry], dict[str, Any]]:
    """Entries in timestamp order (stable), and the sidecar's metadata ({} when there is none). ``block_size``
    overrides the sidecar's."""
    meta: dict[str, Any] = json.loads(meta_path(path).read_text()) if meta_path(path).exists() else {}
    size = block_size or int(meta.get("block_size", DEFAULT_BLOCK_SIZE))
    meta["block_size"] = size
    entries = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            entries.append(TraceEntry.from_json(json.loads(line), size))
        except ValueError as exc:
            raise ValueError(f"{path}:{number}: {exc}") from None
    entries.sort(key=lambda e: e.timestamp)
    return entries, meta


def write_trace(path: Path, entries: Iterable[TraceEntry], meta: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(e.to_json(), separators=(",", ":")) + "\n" for e in entries))
    meta_path(path).write_text(json.dumps(meta, indent=2) + "\n")


def block_reuse(entries: Sequence[TraceEntry]) -> float:
    """Fraction of prompt blocks whose hash id an earlier request already had: the hit rate of an unbounded prefix
    cache replaying the trace in order (what ``aiperf analyze-trace`` calls the cache hit rate)."""
    seen: set[int] = set()
    total = hits = 0
    for entry in entries:
        for h in entry.hash_ids:
            total += 1
            if h in seen:
                hits += 1
            else:
                seen.add(h)
    return hits / total if total else 0.0


def sessions_subset(entries: Sequence[TraceEntry], num_sessions: int, max_turns: int | None = None) -> list[TraceEntry]:
    """The first ``num_sessions`` sessions (by their first request), each cut to its first ``max_turns`` turns,
    in timestamp order. Entries without a session id count as one-turn sessions of their own."""
    turns: dict[str, list[TraceEntry]] = {}
    for index, entry in enumerate(entries):
        key = entry.session_id if entry.session_id is not None else f"#{index}"
        if key not in turns and len(turns) == num_sessions:
            continue
        session = turns.setdefault(key, [])
        if max_turns is None or len(session) < max_turns:
            session.append(entry)
    return sorted((e for session in turns.values() for e in session), key=lambda e: e.timestamp)
