"""A structural diff of two policy documents: one entry per changed leaf, with a JSON-pointer-like path."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from gateway.admin.schemas import PolicyChange


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def diff_documents(before: Any, after: Any, path: str = "") -> Iterator[PolicyChange]:
    if isinstance(before, dict) and isinstance(after, dict):
        for key in sorted(set(before) | set(after)):
            child = f"{path}/{_escape(str(key))}"
            if key not in before:
                yield PolicyChange(path=child, after=after[key], kind="added")
            elif key not in after:
                yield PolicyChange(path=child, before=before[key], kind="removed")
            else:
                yield from diff_documents(before[key], after[key], child)
    elif before != after:
        # Lists are compared whole: a policy's lists (models, patterns) read best as before/after.
        yield PolicyChange(path=path or "/", before=before, after=after, kind="changed")
