"""SQL INSERT statements read as tables: the column list names each position of every VALUES tuple.

``INSERT INTO patients (id, full_name, dob) VALUES (1, 'Ana Lima', '1984-05-03'), (2, ...)`` holds a name and a date
of birth with no word beside them; the column list far before them says what they are, as a CSV header names the
cells below it. Literals are read by SQL's grammar: strings in single quotes (a quote doubled inside), anything else
up to the next comma; a tuple with more or fewer literals than the column list is not read.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

_INSERT = re.compile(r"(?i)\binsert[ \t]+into[ \t]+[\w.\"`\[\]]+[ \t]*\((?P<columns>[^()]{1,2000})\)\s*values\s*")
_ROW = re.compile(r"\s*,?\s*\((?P<cells>(?:'(?:[^'\n]|'')*'|[^()'\n])*)\)")
_CELL = re.compile(r"\s*(?:'(?P<string>(?:[^'\n]|'')*)'|(?P<bare>[^,']*?))\s*(?:,|\Z)")
# How far before a value its statement's column list is looked for.
_MAX_STATEMENT_CHARS = 20_000


@dataclass(frozen=True, slots=True)
class Literal:
    column: str  # as the column list writes it, quotes and brackets dropped
    start: int
    end: int
    string: bool  # a quoted string (start and end inside the quotes)


def may_hold_inserts(text: str) -> bool:
    return "(" in text and "'" in text


def literals(text: str, statement: re.Match[str]) -> Iterator[Literal]:
    """Each literal of each VALUES tuple of an INSERT statement (an ``_INSERT`` match) that fits its column list."""
    columns = [name.strip().strip("\"`[]") for name in statement.group("columns").split(",")]
    position = statement.end()
    while (row := _ROW.match(text, position)) is not None:
        cells = _cells(text, row.start("cells"), row.end("cells"))
        if len(cells) == len(columns):
            for column, cell in zip(columns, cells, strict=True):
                string = cell.group("string") is not None
                group = "string" if string else "bare"
                yield Literal(column, cell.start(group), cell.end(group), string)
        position = row.end()


def inserts(text: str) -> Iterator[re.Match[str]]:
    return _INSERT.finditer(text)


def column_at(text: str, position: int) -> str | None:
    """The column (lower case) of the INSERT tuple literal that character `position` of `text` is in, or None."""
    window_start = max(0, position - _MAX_STATEMENT_CHARS)
    statements = list(_INSERT.finditer(text, window_start, position))
    if not statements:
        return None
    statement = statements[-1]
    for literal in literals(text, statement):
        if literal.start > position:
            return None
        if literal.start <= position < literal.end or position == literal.start == literal.end:
            return literal.column.lower()
    return None


def _cells(text: str, start: int, end: int) -> list[re.Match[str]]:
    cells = []
    position = start
    while position < end and (cell := _CELL.match(text, position, end)) is not None and cell.end() > position:
        cells.append(cell)
        position = cell.end()
    return cells
