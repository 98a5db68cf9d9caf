"""A worker of ``warden serve --workers N`` stops when ``warden serve`` itself is gone.

uvicorn's supervisor (``warden serve``'s main process) binds the listening socket and hands it to each worker. A
SIGKILL of that process alone (not its group) leaves the workers serving on that socket, unsupervised: none is
restarted when it dies, the engine hosts are no longer restarted, and a restarted ``warden serve`` cannot bind the
port while they hold it. So each worker watches its parent: when it is gone, the worker signals itself SIGTERM and
stops exactly as on a rollout (not ready at once, the calls in flight drain within the shutdown grace period and the
ones cut are audited ``shutdown``), which closes its copy of the socket. The detached engine hosts serve on and wait
``WARDEN_ENGINE_ORPHAN_S`` for the restarted ``warden serve``, which attaches to them.

The watch waits on the sentinel of ``multiprocessing``'s parent process (the worker is a ``spawn`` child: the parent
holds the other end of a pipe until it exits, so the kernel wakes the watch at the parent's death, however it died).
A process that is not a ``multiprocessing`` child (the one-worker server, which is ``warden serve`` itself) has no
parent to watch.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import threading
from multiprocessing.connection import wait

log = logging.getLogger(__name__)


def watch_parent() -> threading.Thread | None:
    """Start the watch in a daemon thread; None when this process is not a ``multiprocessing`` child."""
    parent = multiprocessing.parent_process()
    if parent is None:
        return None
    watcher = threading.Thread(target=_stop_when_gone, args=(parent.sentinel, parent.pid), name="parent-watch",
                               daemon=True)
    watcher.start()
    return watcher


def _stop_when_gone(sentinel: int, parent_pid: int | None) -> None:
    wait([sentinel])  # readable (EOF) once the parent has exited
    log.warning("the supervising process (pid %s) is gone: draining and stopping this worker, so that a restarted "
                "`warden serve` can bind the port", parent_pid)
    # The signal the supervisor would have sent: the lifecycle's drain runs in front of uvicorn's own stop.
    os.kill(os.getpid(), signal.SIGTERM)
