import pytest

from gateway.guardrails import InputGuard, PiiAnalyzer


@pytest.fixture(scope="session")
def analyzer() -> PiiAnalyzer:
    """One analyzer (spaCy NER loaded once) for the whole session."""
    return PiiAnalyzer()


@pytest.fixture(scope="session")
def guard(analyzer: PiiAnalyzer) -> InputGuard:
    return InputGuard(b"test-server-secret", analyzer=analyzer)
