from collections.abc import Callable

import pytest

from gateway.guardrails import InputGuard, PiiAnalyzer
from gateway.guardrails.addresses import StreetAddressRecognizer
from gateway.guardrails.places import PlaceRecognizer


@pytest.fixture(scope="session")
def analyzer() -> PiiAnalyzer:
    """One analyzer (spaCy NER loaded once) for the whole session."""
    return PiiAnalyzer()


@pytest.fixture(scope="session")
def guard(analyzer: PiiAnalyzer) -> InputGuard:
    return InputGuard(b"test-server-secret", analyzer=analyzer)


@pytest.fixture(scope="session")
def place_recognizer() -> PlaceRecognizer:
    """One place recognizer (its gazetteer read once) for the place tests."""
    return PlaceRecognizer()


@pytest.fixture(scope="session")
def find_places(place_recognizer: PlaceRecognizer) -> Callable[[str], list[str]]:
    """The LOCATION spans the place recognizer finds in a text, as written."""

    def found(text: str) -> list[str]:
        return [text[r.start : r.end] for r in place_recognizer.analyze(text, ["LOCATION"])]

    return found


@pytest.fixture(scope="session")
def find_streets() -> Callable[[str], list[str]]:
    """The STREET_ADDRESS spans (score >= 0.5) one street recognizer finds in a text, as written."""
    addresses = StreetAddressRecognizer()

    def found(text: str) -> list[str]:
        return [text[r.start : r.end] for r in addresses.analyze(text, []) if r.score >= 0.5]

    return found
