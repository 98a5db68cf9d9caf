"""bench.chat_template at its smallest: both arms agree on every conversation and both are timed."""

from __future__ import annotations

import pytest

from bench import chat_template


def test_the_benchmark_times_jinja_and_the_fast_path(capsys: pytest.CaptureFixture[str]) -> None:
    assert chat_template.main(["--rounds", "1", "--calls", "20"]) == 0
    out = capsys.readouterr().out
    assert "jinja  median" in out and "fast   median" in out and "speed-up" in out


def test_conversations_are_chat_requests_of_one_to_five_user_turns() -> None:
    convs = chat_template.conversations()
    assert [sum(m["role"] == "user" for m in c) for c in convs] == [1, 2, 3, 4, 5]
    assert all(c[0]["role"] == "system" and c[-1]["role"] == "user" for c in convs)
