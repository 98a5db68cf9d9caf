"""``bench.guardrails_profile --agentic``'s timers: every stage is timed and put back as it was."""

from bench import guardrails_profile
from bench.guardrails_profile import Stages, instrumented_analyzer
from gateway.guardrails import analyzer, people, surnames
from gateway.guardrails.analyzer import PiiAnalyzer

TEXT = "Ruben Tadevosyan (ruben@example.com) called; the account is under pestov leonid bronislavovich."


def test_stages_are_timed_and_restored() -> None:
    pii = PiiAnalyzer()
    detectors = pii._detectors
    originals = {name: getattr(analyzer, name) for name in guardrails_profile.ANALYZER_STAGES}
    lower_runs = surnames._lower_case_runs
    stages = Stages()
    with instrumented_analyzer(pii, stages):
        found = analyzer.PiiAnalyzer.analyze(pii, TEXT, ner_enabled=False)
        assert people.more_people("a pestov leonid bronislavovich", frozenset(), [])
    keys = {stage for stage, _ in stages.ns}
    assert {"detector (pre-filter passed)", "pre-filter", "analyzer", "more_people", "suffixed_names"} <= keys
    assert ("suffixed_names", "_lower_case_runs") in stages.ns
    assert pii._detectors is detectors and surnames._lower_case_runs is lower_runs
    assert all(getattr(analyzer, name) is fn for name, fn in originals.items())
    assert found == pii.analyze(TEXT, ner_enabled=False)
