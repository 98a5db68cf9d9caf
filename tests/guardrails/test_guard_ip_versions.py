"""IP addresses that are part of a longer dotted number (a version) are dropped, judged from the characters beside
them only."""

import re

from hypothesis import given, settings
from hypothesis import strategies as st
from presidio_analyzer.predefined_recognizers import IpRecognizer

from gateway.guardrails.recognizers import _VersionFreeIpRecognizer


def plain_rule(text: str) -> list[tuple[int, int]]:
    """Presidio's addresses less those with "digit." anywhere right before them (searched over all the text before)
    or ".digit" right after."""
    return [(r.start, r.end) for r in IpRecognizer().analyze(text, ["IP_ADDRESS"])
            if not re.search(r"\d\.\Z", text[: r.start]) and not re.match(r"\.\d", text[r.end :])]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["1.2.3.4", "10.0.0.1", ".", "5", " ", "v", "::1", "7.2.9.1.865"]), max_size=12))
def test_version_free_addresses_are_those_of_the_plain_rule(parts: list[str]) -> None:
    text = "".join(parts)
    found = [(r.start, r.end) for r in _VersionFreeIpRecognizer().analyze(text, ["IP_ADDRESS"])]
    assert found == plain_rule(text)


def test_versions_are_no_addresses() -> None:
    assert _VersionFreeIpRecognizer().analyze("release 7.2.9.1.865 and 1.2.3.4.5", ["IP_ADDRESS"]) == []
    assert [(r.start, r.end) for r in _VersionFreeIpRecognizer().analyze("at 10.0.0.1.", ["IP_ADDRESS"])] == [(3, 11)]
