"""The gateway process's fork server and the one list of modules it imports before it forks its first child.

multiprocessing keeps one fork server per process (the "forkserver" context is a singleton) with one preload list,
read once, when the server starts (at the first child started through it); ``set_forkserver_preload`` replaces the
list, so two users each setting their own would drop the other's. Users (the audit drain, the guardrails' analysis
workers) add their modules here instead, before their first child. Modules added once the server runs are not
imported there: their children import what they need themselves (slower, the same result).

The server is started clean (a fresh interpreter, as ``spawn`` starts one), so a child forked from it inherits none
of the serving process's threads or locks, only what the preloaded modules built when they were imported.
"""

from __future__ import annotations

import logging
import multiprocessing
import threading
from collections.abc import Iterable
from multiprocessing import forkserver as _forkserver_module
from multiprocessing.context import ForkServerContext

log = logging.getLogger(__name__)

_CONTEXT = multiprocessing.get_context("forkserver")
# ``__main__`` first: a child would otherwise run a script's main module again on each start.
_preload: list[str] = ["__main__"]
_lock = threading.Lock()


def context() -> ForkServerContext:
    """The fork server's multiprocessing context (for ``Process``, ``Pipe``, ``ProcessPoolExecutor``)."""
    return _CONTEXT


def server_pid() -> int | None:
    """The fork server's pid once it has started (it lives as long as this process), else None."""
    # multiprocessing exposes no public way to ask; its server object records the pid once started.
    server = getattr(_forkserver_module, "_forkserver", None)
    pid = getattr(server, "_forkserver_pid", None)
    return pid if isinstance(pid, int) else None


def running() -> bool:
    """Whether this process's fork server has started (its preload list is then fixed)."""
    return server_pid() is not None


def preload(modules: Iterable[str]) -> bool:
    """Adds ``modules`` to what the fork server imports when it starts. Returns whether it will import them all:
    False where some are new and the server already runs (its children then import them on their own)."""
    with _lock:
        new = [name for name in modules if name not in _preload]
        _preload.extend(new)
        _CONTEXT.set_forkserver_preload(list(_preload))
        if new and running():
            log.warning("the fork server already runs: its children will import %s themselves", ", ".join(new))
            return False
        return True


def preloaded() -> list[str]:
    """The modules the fork server imports when it starts, in order."""
    with _lock:
        return list(_preload)
