"""A value's column name in a fixed-width report: the header line above a rule of dashes, one run of dashes under each
column, and the rows below it, each cell starting where its column's run does.

Report writers lay a table out this way when they pad columns rather than delimit them: SQL*Plus and ``sqlcmd``
output, COBOL and mainframe listings ("RPT421  CUSTOMER MASTER EXTRACT  PAGE 4"), ``column -t`` over a header and a
rule. A cell's column is the run of dashes its first character stands under, and the column's name is the header's
cell that opens over that run (to the next gap of two spaces: a header wider than its run runs past its end)::

    BIRTH_DATE  ISSUED_ON
    ----------  ---------------------
    26/09/1947  21 de janeiro de 2025

Asked (through ``columns.column_name``) only for a value with no context word of its own; a text without three dashes
in a row holds no rule and costs one substring test.
"""

from __future__ import annotations

import bisect
import re
from functools import lru_cache

# A rule: two or more runs of three or more dashes, spaces between them, nothing else on the line. One run alone is
# Markdown's (a thematic break, a Setext heading's underline, YAML's document start), no table's.
_RULE = re.compile(r"^[ \t]*-{3,}(?:[ \t]+-{3,})+[ \t]*\r?$", re.MULTILINE)
_RUN = re.compile(r"-{3,}")
# How far below its rule a row may stand: a longer report repeats its header on each page.
_MAX_ROWS_BELOW = 200


@lru_cache(maxsize=2)  # asked for each value of a text in turn
def _rules(text: str) -> tuple[list[int], list[tuple[int, int]]]:
    """The rules of `text`, each as where its line starts and ends, and their starts (sorted, for bisect)."""
    if "---" not in text:
        return [], []
    spans = [match.span() for match in _RULE.finditer(text)]
    return [start for start, _ in spans], spans


def fixed_width_column_name(text: str, position: int) -> str | None:
    """The lower-cased header text of the fixed-width column that character `position` of `text` starts a cell in,
    or None when its line is no row under a rule (a blank line or the text's start before one), or it stands under
    no run of the rule."""
    starts, spans = _rules(text)
    if not starts:
        return None
    line_start = text.rfind("\n", 0, position) + 1
    index = bisect.bisect_left(starts, line_start) - 1
    if index < 0:
        return None
    rule_start, rule_end = spans[index]
    if rule_end >= line_start:  # the rule itself, or no line break between it and the value
        return None
    rows = text[rule_end:line_start]
    if rows.count("\n") > _MAX_ROWS_BELOW or re.search(r"\n[ \t]*\r?\n", rows):
        return None
    if rule_start == 0:
        return None
    header_start = text.rfind("\n", 0, rule_start - 1) + 1
    header = text[header_start : rule_start - 1].rstrip("\r")
    if not header.strip():
        return None
    offset = position - line_start
    runs = [match.span() for match in _RUN.finditer(text, rule_start, rule_end)]
    for number, (run_start, run_end) in enumerate(runs):
        start, end = run_start - rule_start, run_end - rule_start
        if start <= offset < end:
            stop = runs[number + 1][0] - rule_start if number + 1 < len(runs) else len(header)
            # The header's cell that opens over the run: to the next gap of two spaces, past the run's end if it
            # is wider than its run.
            cell = _HEADER_CELL.search(header, start)
            if cell is None or cell.start() >= stop:
                return None
            return cell.group().lower()
    return None


_HEADER_CELL = re.compile(r"\S+(?: \S+)*")
