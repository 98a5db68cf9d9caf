"""``bench.guardrails_profile`` prints what its timers' clock reads cost beside the table they inflate."""

import pytest

from bench import guardrails_profile


def test_a_clock_read_is_measured() -> None:
    assert guardrails_profile.clock_read_us(reads=200) > 0


def test_the_table_says_what_a_clock_read_costs(capsys: pytest.CaptureFixture[str]) -> None:
    result = {
        "end_to_end": {"cpu_ms_per_request_p50": 4.9, "input_screen_wall_ms_p50": 4.2, "rounds": [{}]},
        "stages_us_per_request": {"pre-filter": 1027.1},
        "clock_read_us": 0.7,
        "rows": [],
    }
    guardrails_profile.print_profile(result)
    assert "a thread-CPU clock read costs 0.70 us here" in capsys.readouterr().out
