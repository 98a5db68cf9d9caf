"""A value's column header in a fixed-width report: the header line above a rule of dashes, one run of dashes under
each column, and the rows below it, each cell starting where its column's run does.

Report writers lay a table out this way when they pad columns rather than delimit them: SQL*Plus and ``sqlcmd``
output, COBOL and mainframe listings ("RPT421  CUSTOMER MASTER EXTRACT  PAGE 4"), ``column -t`` over a header and a
rule. A cell's column is the run of dashes its first character stands under, and the column's name is the header's
cell that opens over that run (to the next gap of two spaces: a header wider than its run runs past its end)::

    BIRTH_DATE  ISSUED_ON
    ----------  ---------------------
    26/09/1947  21 de janeiro de 2025

A rule may be of equals signs as well (reStructuredText's simple tables, some listings: "=====  ====="), and a one-
column report's rule is one run, with its header and the row read no wider than it ("PERSONAL_CODE" over
"-------------" over "6901089378"); a run under or over a longer line is no column (a Markdown heading's underline,
a thematic break, YAML's document start).

Asked (through ``columns.header_cell``) only for a value with no context word of its own; a text without three
dashes or equals signs in a row holds no rule and costs two substring tests.
"""

from __future__ import annotations

import bisect
import re
from functools import lru_cache

# A rule: runs of three or more dashes (or equals signs), spaces between them, nothing else on the line.
_RUN_PATTERN = r"(?:-{3,}|={3,})"
_RULE = re.compile(rf"^[ \t]*{_RUN_PATTERN}(?:[ \t]+{_RUN_PATTERN})*[ \t]*\r?$", re.MULTILINE)
_RUN = re.compile(_RUN_PATTERN)
# How far below its rule a row may stand: a longer report repeats its header on each page.
_MAX_ROWS_BELOW = 200
_BLANK_LINE = re.compile(r"\n[ \t]*\r?\n")


@lru_cache(maxsize=2)  # asked for each value of a text in turn
def _rules(text: str) -> tuple[list[int], list[tuple[int, int]]]:
    """The rules of `text`, each as where its line starts and ends, and their starts (sorted, for bisect)."""
    if "---" not in text and "===" not in text:
        return [], []
    spans = [match.span() for match in _RULE.finditer(text)]
    return [start for start, _ in spans], spans


def fixed_width_header(text: str, start: int, end: int | None = None) -> tuple[int, int] | None:
    """Where the header cell of the fixed-width column that character `start` of `text` starts a cell in stands, or
    None when its line is no row under a rule (a blank line or the text's start before one), or it stands under no
    run of the rule. Given `end`, only for a value that ends before the next column's run."""
    starts, spans = _rules(text)
    if not starts:
        return None
    line_start = text.rfind("\n", 0, start) + 1
    index = bisect.bisect_left(starts, line_start) - 1
    if index < 0:
        return None
    rule_start, rule_end = spans[index]
    if rule_end >= line_start or rule_start == 0:  # the rule itself, no line break after it, or no header above it
        return None
    if text.count("\n", rule_end, line_start) > _MAX_ROWS_BELOW or _BLANK_LINE.search(text, rule_end, line_start):
        return None
    header_start = text.rfind("\n", 0, rule_start - 1) + 1
    header_end = rule_start - 1
    if header_end > header_start and text[header_end - 1] == "\r":
        header_end -= 1
    if not text[header_start:header_end].strip():
        return None
    offset = start - line_start
    runs = [
        (match.start() - rule_start, match.end() - rule_start) for match in _RUN.finditer(text, rule_start, rule_end)
    ]
    if len(runs) == 1 and not (
        _within(text, header_start, header_end, runs[0])
        and _within(text, line_start, _line_end(text, line_start), runs[0])
    ):
        return None  # one run under a heading or over a paragraph: no one-column report
    for number, (run_start, run_end) in enumerate(runs):
        if run_start <= offset < run_end:
            stop = runs[number + 1][0] if number + 1 < len(runs) else header_end - header_start
            if end is not None and number + 1 < len(runs) and end - line_start > stop:
                return None  # the value runs into the next column
            # The header's cell that opens over the run: to the next gap of two spaces, past the run's end if it
            # is wider than its run.
            cell = _HEADER_CELL.search(text, header_start + run_start, header_end)
            if cell is None or cell.start() - header_start >= stop:
                return None
            return cell.span()
    return None


def _within(text: str, line_start: int, line_end: int, run: tuple[int, int]) -> bool:
    """Whether the words of the line text[line_start:line_end] all stand over or under `run` (offsets in a line)."""
    words = _HEADER_CELL.search(text, line_start, line_end)
    last = text[line_start:line_end].rstrip()
    return words is not None and run[0] <= words.start() - line_start and len(last) <= run[1]


def _line_end(text: str, position: int) -> int:
    end = text.find("\n", position)
    return len(text) if end < 0 else end


def fixed_width_column_name(text: str, position: int) -> str | None:
    """The lower-cased text of ``fixed_width_header``'s cell."""
    cell = fixed_width_header(text, position)
    return None if cell is None else text[cell[0] : cell[1]].lower()


_HEADER_CELL = re.compile(r"\S+(?: \S+)*")
