"""Where a value's context is besides the words before it: the clause after it, and its CSV column's header.

A CSV row holds a date of birth, an SSN or a token with no word beside it: the header row above ("id,dob,status",
"client_secret,email") says what each cell is. Recognizers ask for the column's name only for a value that has no
context word of its own, so a text without commas costs nothing.
"""

from __future__ import annotations

import re

# A header: three or more comma-separated column names (identifiers, or a few words), nothing else on the line.
_HEADER = re.compile(r"[ \t]*[A-Za-z_][\w .-]*(?:,[ \t]*[A-Za-z_][\w .-]*){2,}[ \t]*\r?")
_CELL = re.compile(r'"(?:[^"\n]|"")*"|[^,\n]*')
# Where the clause that follows a value ends: a context word past it belongs to the next value ("ssn 536-22-1234,
# call (415) ...").
_CLAUSE_END = re.compile(r"[,;:!?\n]|\.(?:\s|\Z)")
# How far up a header is looked for: a pasted table longer than this is read in parts (each with its header) anyway.
_MAX_ROWS_ABOVE = 200


def _cell_count(line: str) -> int:
    """The cells of a CSV line, a quoted cell ("28.95,91.86") counting once."""
    count, position = 0, 0
    while True:
        cell = _CELL.match(line, position)
        count += 1
        position = cell.end() if cell else position
        if position >= len(line) or line[position] != ",":
            return count
        position += 1


def _cell_index(line: str, offset: int) -> int | None:
    """Which cell of `line` holds character `offset`, or None if `offset` is a delimiter."""
    index, position = 0, 0
    while position <= len(line):
        cell = _CELL.match(line, position)
        end = cell.end() if cell else position
        if position <= offset < end or (offset == position == end):
            return index
        if end >= len(line) or line[end] != ",":
            return None
        index, position = index + 1, end + 1
    return None


def clause_after(text: str, end: int, limit: int) -> int:
    """Where the clause after a value that ends at `end` stops: at punctuation, or `limit` characters on."""
    stop = _CLAUSE_END.search(text, end, min(len(text), end + limit))
    return stop.start() if stop else min(len(text), end + limit)


def column_name(text: str, position: int) -> str | None:
    """The lower-cased header of the column that character `position` of `text` is in, or None when the line is no
    row of a CSV block (a header, then rows with as many cells as it, no blank line between)."""
    line_start = text.rfind("\n", 0, position) + 1
    line_end = text.find("\n", position)
    line = text[line_start : len(text) if line_end < 0 else line_end]
    if "," not in line:
        return None
    index = _cell_index(line, position - line_start)
    if index is None:
        return None
    cells = _cell_count(line)
    header = None  # the topmost header-shaped line of the block: a row of words ("Lelystad,Estonia,ok") is no header
    end = line_start - 1  # the newline that ends the line above
    for _ in range(_MAX_ROWS_ABOVE):
        if end < 0:
            break
        start = text.rfind("\n", 0, end) + 1
        above = text[start:end]
        if _cell_count(above) != cells:
            break
        if _HEADER.fullmatch(above):
            header = above
        end = start - 1
    return None if header is None else header.split(",")[index].strip().lower()
