"""Drop the live gauges of gateway workers that died without saying so.

In Prometheus' multiprocess mode each worker's gauges live in files named by its pid, and the live modes
(``livesum``, ``livemax``) count a worker's files until they are removed. A worker that exits in order removes its
own (``metrics.mark_worker_dead``); one that is SIGKILLed, or replaced by uvicorn's supervisor after a hang, never
does, and its last values (a running-requests count, say) would stay in every scrape's sums for good. So each worker
removes the files of pids that no longer run, when it starts and before every scrape it renders.

A pid the system has since given to another process keeps its dead worker's gauges until that process ends too: the
files carry no more than the pid to tell them apart, and pids are reused only after the pid space wraps.
"""

from __future__ import annotations

import contextlib
import os
import re
from pathlib import Path

from prometheus_client import multiprocess as prom_multiprocess

# prometheus_client's file of one process's gauges in one live mode: gauge_<mode>_<pid>.db
_LIVE_GAUGE_FILE = re.compile(r"gauge_live[a-z]+_(\d+)\.db")


def _gone(pid: int) -> bool:
    """Whether ``pid`` no longer runs: no such process, or a zombie (it died; its parent has not reaped it yet)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return True
    except OSError:  # no /proc (not Linux): ask the kernel
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        except PermissionError:  # another user's process holds the pid: it runs
            return False
        return False
    return stat.rsplit(")", 1)[1].split()[0] == "Z"  # the state follows the command name, which may hold ")"


def reap_dead_workers(directory: str) -> list[int]:
    """Remove the live-gauge files of the processes in ``directory`` that no longer run; their pids."""
    try:
        names = os.listdir(directory)
    except FileNotFoundError:
        return []
    pids = {int(match.group(1)) for name in names if (match := _LIVE_GAUGE_FILE.fullmatch(name))}
    dead = sorted(pid for pid in pids if pid != os.getpid() and _gone(pid))
    for pid in dead:
        with contextlib.suppress(FileNotFoundError):  # another worker reaped it first
            prom_multiprocess.mark_process_dead(pid, directory)
    return dead
