"""gateway.core.protocols.ClassCheck answers as isinstance does for the Protocols of methods the request path asks
about, for every class that serves them, and stays bounded."""

from __future__ import annotations

from engine.metrics import EngineStats, EngineStatsSource
from gateway.core import protocols
from gateway.core.protocols import ClassCheck
from gateway.openai.openai_surfaces import CHAT_COMPLETIONS, COMPLETIONS
from gateway.openai.surface import PersistsResults, RecallsState
from gateway.responses_api.surface import ResponsesSurface


class _Reports:
    def stats(self) -> EngineStats | None:
        return None


class _Silent:
    pass


def test_agrees_with_isinstance_for_the_surfaces_and_engines() -> None:
    recalls, persists = ClassCheck[RecallsState](RecallsState), ClassCheck[PersistsResults](PersistsResults)
    reports = ClassCheck[EngineStatsSource](EngineStatsSource)
    responses = ResponsesSurface.__new__(ResponsesSurface)  # the class is what is checked: no store needed
    for surface in (CHAT_COMPLETIONS, COMPLETIONS, responses):
        for _ in range(2):  # the first answer is computed, the second remembered
            assert recalls(surface) is isinstance(surface, RecallsState)
            assert persists(surface) is isinstance(surface, PersistsResults)
    assert recalls(responses) and persists(responses) and not recalls(CHAT_COMPLETIONS)
    for engine, expected in ((_Reports(), True), (_Silent(), False), (None, False)):
        assert reports(engine) is expected is isinstance(engine, EngineStatsSource)


def test_remembers_a_bounded_number_of_classes(monkeypatch) -> None:
    monkeypatch.setattr(protocols, "MAX_CLASSES", 4)
    reports = ClassCheck[EngineStatsSource](EngineStatsSource)
    classes = [type(f"Reports{i}", (_Reports,), {}) for i in range(10)]
    for cls in classes:
        assert reports(cls())
    assert len(reports._answers) <= 4
    assert not reports(_Silent())
