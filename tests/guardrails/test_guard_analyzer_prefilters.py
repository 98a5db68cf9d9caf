"""The analyzer asks each detector's pre-filter once a text, and calls into a detector only when it passes."""

from __future__ import annotations

import dataclasses

import pytest

from gateway.guardrails import analyzer as analyzer_module
from gateway.guardrails import recognizers
from gateway.guardrails.analyzer import PiiAnalyzer


def test_a_failing_pre_filter_is_asked_once_and_its_detector_not_called(monkeypatch: pytest.MonkeyPatch) -> None:
    phone = next(d for d in recognizers.build_detectors() if d.recognizer.name == "PhoneNumberRecognizer")
    asked: list[str] = []

    def prefilter(text: str) -> bool:
        asked.append(text)
        return phone.prefilter(text)

    called: list[str] = []
    plain = recognizers.run_detector

    def run_detector(detector: recognizers.Detector, text: str, *args: object, **kwargs: bool) -> list:
        called.append(text)
        return plain(detector, text, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(analyzer_module, "run_detector", run_detector)
    pii = PiiAnalyzer(detectors=[dataclasses.replace(phone, prefilter=prefilter)])
    assert pii.analyze("no number here", ner_enabled=False) == []
    assert (asked, called) == (["no number here"], [])
    found = pii.analyze("call 415 555 0132", ner_enabled=False)
    assert [f.entity_type for f in found] == ["PHONE_NUMBER"]
    assert (asked[1:], called) == (["call 415 555 0132"], ["call 415 555 0132"])  # asked once: not again inside
