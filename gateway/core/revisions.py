"""The revision graph of Alembic's migration scripts, read from their source text.

Each script states ``revision = "…"`` and ``down_revision = …`` as literals, so the graph is known without
importing Alembic or executing the scripts (each imports Alembic's ``op`` and SQLAlchemy): what lets a restart
check "is the database at head?" in milliseconds. A script whose ids are not plain literals is read by Alembic
itself instead, so the answer never depends on the parse succeeding.
"""

from __future__ import annotations

import ast
import functools
import re
from dataclasses import dataclass
from pathlib import Path

# The files Alembic reads as revisions: every *.py but __init__ and editors' lock files (alembic.script.base).
_SCRIPT_NAME = re.compile(r"(?!\.#|__init__).*\.py$")


@dataclass(frozen=True)
class ScriptRevisions:
    revisions: frozenset[str]
    heads: frozenset[str]


class UnreadableScript(ValueError):
    """A migration script whose revision ids are not literal assignments."""


@functools.cache
def read_script_revisions(versions_dir: Path) -> ScriptRevisions:
    """Every revision in ``versions_dir`` and the heads among them (those no other revision names as its parent).
    Cached per process: the scripts do not change under a running server."""
    try:
        return _parse_scripts(versions_dir)
    except UnreadableScript:
        return _alembic_revisions(versions_dir)


def _parse_scripts(versions_dir: Path) -> ScriptRevisions:
    revisions: set[str] = set()
    parents: set[str] = set()
    for path in sorted(versions_dir.iterdir()):
        if not path.is_file() or not _SCRIPT_NAME.match(path.name):
            continue
        ids = _literal_assignments(path, ("revision", "down_revision"))
        revision = ids.get("revision")
        if not isinstance(revision, str):
            raise UnreadableScript(f"{path.name}: no literal revision id")
        revisions.add(revision)
        parents.update(_parent_ids(ids.get("down_revision"), path))
    return ScriptRevisions(revisions=frozenset(revisions), heads=frozenset(revisions - parents))


def _literal_assignments(path: Path, names: tuple[str, ...]) -> dict[str, object]:
    found: dict[str, object] = {}
    for node in ast.parse(path.read_text(encoding="utf-8"), filename=str(path)).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            target, value = node.target, node.value
        else:
            continue
        if isinstance(target, ast.Name) and target.id in names:
            try:
                found[target.id] = ast.literal_eval(value)
            except ValueError:
                raise UnreadableScript(f"{path.name}: {target.id} is not a literal") from None
    return found


def _parent_ids(down_revision: object, path: Path) -> tuple[str, ...]:
    if down_revision is None:
        return ()
    if isinstance(down_revision, str):
        return (down_revision,)
    if isinstance(down_revision, tuple | list) and all(isinstance(parent, str) for parent in down_revision):
        return tuple(down_revision)  # a merge revision
    raise UnreadableScript(f"{path.name}: down_revision is not a revision id or a sequence of them")


def _alembic_revisions(versions_dir: Path) -> ScriptRevisions:
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    config = Config()
    config.set_main_option("script_location", str(versions_dir.parent))
    scripts = ScriptDirectory.from_config(config)
    return ScriptRevisions(revisions=frozenset(script.revision for script in scripts.walk_revisions()),
                           heads=frozenset(scripts.get_heads()))
