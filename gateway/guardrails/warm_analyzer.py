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

log = logging.getLogger(__name__)

# Touches every detector and both NER models, so each lazily built part (name lists, the models' first-call set-up)
# is built here and not in a child's first scan, where it would be charged to that scan's budget.
WARM_UP_TEXTS = [
    "Hi, I'm Maria Garcia from Porto; mail maria.garcia@example.org or call (415) 555-0132. Card 4111 1111 1111 "
    "1111, IBAN GB82 WEST 1234 5698 7654 32, SSN 078-05-1120, born on 4 March 1985, 221B Baker Street, London.",
    "Bonjour, je suis Pierre Dupont de Lyon. Wiryanto Hadiyanto lives at 12 rue de la Paix, Paris; 10.0.0.1.",
]


def _build() -> PiiAnalyzer | None:
    try:
        analyzer = PiiAnalyzer()
        analyzer.analyze_many(WARM_UP_TEXTS, ner_enabled=True)
    except Exception:
        log.exception("the preloaded analyzer could not be built; analysis workers will build their own")
        return None
    # What is built now is shared with every child until one writes to it; the collector, reaching into it to
    # count references, would write to it (copying its pages into each child) and scan it on every full collection.
    gc.freeze()
    return analyzer


ANALYZER = _build()
BUILT_IN_PID = os.getpid()  # a worker forked from the fork server reads another pid here: its analyzer came built
