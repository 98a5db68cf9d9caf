"""A ``PiiAnalyzer`` built, with its NER models and lazy tables loaded, when this module is imported.

The fork server imports it once (``processes`` adds it to the server's preload list), so an analysis worker forked
from the server starts with everything loaded: replacing a worker killed past its scan budget costs a fork, not a
fresh interpreter importing and building the detectors and models (seconds of CPU). Only a process that analyzes
(the fork server, a worker) may import it; the serving process never does.

A build that fails leaves ``ANALYZER`` None rather than raising: the fork server serves other children too (the
audit drain), and an import error would end it. A worker then builds its own analyzer and fails as it would have.
"""

from __future__ import annotations

import gc
import logging
import os

from gateway.guardrails.analyzer import PiiAnalyzer
from gateway.guardrails.warm_up import loaded_ner, warm_up

log = logging.getLogger(__name__)


def _build() -> PiiAnalyzer | None:
    try:
        # The NER models always, whatever the serving process loads at its start: a worker that loaded them in a
        # scan would spend their CPU (about a second) in the scan's worker, whose CPU past the scan's budget gets
        # it killed, and its replacement, forked from the same server, would load them again.
        analyzer = PiiAnalyzer(ner=loaded_ner())
        # Every lazily built part, the NER models' first-call set-up too: not in a child's first scan, where it
        # would be charged to that scan's budget.
        warm_up(analyzer, ner=True)
    except Exception:
        log.exception("the preloaded analyzer could not be built; analysis workers will build their own")
        return None
    # What is built now is shared with every child until one writes to it; the collector, reaching into it to
    # count references, would write to it (copying its pages into each child) and scan it on every full collection.
    gc.freeze()
    return analyzer


ANALYZER = _build()
BUILT_IN_PID = os.getpid()  # a worker forked from the fork server reads another pid here: its analyzer came built
