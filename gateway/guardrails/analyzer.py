"""Warden's PII analyzer: pattern detectors behind pre-filters, plus gated spaCy NER when a policy enables it."""

from __future__ import annotations

import threading

from gateway.guardrails.findings import Finding
from gateway.guardrails.ner import NerModel
from gateway.guardrails.recognizers import Detector, build_detectors, run_detector

PATTERN_ENTITIES = frozenset(
    {"EMAIL_ADDRESS", "CREDIT_CARD", "IBAN_CODE", "US_SSN", "IP_ADDRESS", "PHONE_NUMBER", "STREET_ADDRESS",
     "DATE_OF_BIRTH"}
)  # fmt: skip
NER_ENTITIES = frozenset({"PERSON", "LOCATION"})
SUPPORTED_ENTITIES = PATTERN_ENTITIES | NER_ENTITIES


class PiiAnalyzer:
    """Finds every supported entity with its raw score; policies apply thresholds and actions afterwards.

    Returning raw findings (not policy-filtered ones) is what lets the cache serve any policy version.
    The NER model loads lazily on first use so a deployment whose policies all disable NER never pays for it.
    """

    def __init__(self, detectors: list[Detector] | None = None, ner: NerModel | None = None) -> None:
        self._detectors = detectors if detectors is not None else build_detectors()
        self._ner = ner
        self._ner_lock = threading.Lock()

    @property
    def ner(self) -> NerModel:
        if self._ner is None:
            with self._ner_lock:
                if self._ner is None:
                    self._ner = NerModel()
        return self._ner

    def analyze(self, text: str, *, ner_enabled: bool = True) -> list[Finding]:
        findings: list[Finding] = []
        for detector in self._detectors:
            findings.extend(run_detector(detector, text))
        if ner_enabled:
            # A name inside an e-mail address or a place inside a street address is already covered: NER reads
            # those spans masked, and a name it still reports across one's edge is dropped.
            pattern_spans = [f for f in findings if f.score >= 0.5]
            found = self.ner.find(text, [(p.start, p.end) for p in pattern_spans])
            findings.extend(f for f in found if not any(f.overlaps(p) for p in pattern_spans))
        return findings
