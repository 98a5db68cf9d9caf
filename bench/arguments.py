"""Command-line argument types the benchmarks share."""

from __future__ import annotations

import argparse


def positive_ints(text: str) -> list[int]:
    """``"1,4,16"`` -> ``[1, 4, 16]``; anything else is argparse's usage error, not a traceback."""
    try:
        values = [int(v) for v in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated positive integers, got {text!r}") from None
    if min(values) < 1:
        raise argparse.ArgumentTypeError(f"expected comma-separated positive integers, got {text!r}")
    return values
