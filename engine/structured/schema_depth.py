"""How deep a JSON schema nests once its local ``$ref``s are followed, checked before the grammar engine sees it.

llguidance refuses a schema whose JSON nests too deep, but follows ``$ref``s by recursion of its own: a flat
``$defs`` table whose entries refer to one another in a chain (a few thousand entries, ~150 KB) overflows its native
stack and takes the whole engine process down. The depth is counted here instead, one level per JSON container and
per ``$ref`` followed, and a schema deeper than ``MAX_SCHEMA_DEPTH`` is the request's 400. OpenAI's structured
outputs allow 10 levels of object nesting, so the bound is far above any schema written by hand.
"""

from __future__ import annotations

from typing import Any

from engine.structured.errors import GrammarCompileError

MAX_SCHEMA_DEPTH = 400  # JSON containers plus $ref hops on one path; far below where llguidance overflows


def _target(root: Any, ref: str) -> Any:
    """The local definition ``ref`` ("#/$defs/x", "#/definitions/x", any JSON pointer into the document) names;
    None for a remote or unresolvable one (llguidance reports those itself)."""
    if not ref.startswith("#"):
        return None
    node = root
    for raw in ref[1:].split("/")[1:]:
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return None
    return node


def check_schema_depth(schema: Any, limit: int = MAX_SCHEMA_DEPTH) -> None:
    """Raises ``GrammarCompileError`` when a path through ``schema``, following its local ``$ref``s, is deeper
    than ``limit``. A ``$ref`` back to a definition already on the path is recursion, which the grammar expresses
    without unrolling, so it is not followed again; each definition's depth is computed once."""
    depths: dict[str, int] = {}
    on_path: set[str] = set()

    def depth(node: Any, level: int) -> int:
        # Loops, not generator expressions: one interpreter frame per level keeps the walk within the
        # interpreter's own recursion limit at the deepest schema it accepts.
        if level > limit:
            raise GrammarCompileError(f"the JSON schema nests deeper than {limit} levels (counting $ref)")
        below = 0
        if isinstance(node, list):
            for item in node:
                below = max(below, depth(item, level + 1))
            return 1 + below
        if not isinstance(node, dict):
            return 0
        for key, item in node.items():
            if key != "$ref":
                below = max(below, depth(item, level + 1))
        ref = node.get("$ref")
        if isinstance(ref, str) and ref not in on_path:
            if ref not in depths:
                target = _target(schema, ref)
                on_path.add(ref)
                try:
                    depths[ref] = depth(target, level + 1) if target is not None else 0
                finally:
                    on_path.discard(ref)
            if level + depths[ref] > limit:
                raise GrammarCompileError(f"the JSON schema nests deeper than {limit} levels (counting $ref)")
            below = max(below, depths[ref])
        return 1 + below

    depth(schema, 0)
