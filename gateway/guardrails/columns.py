"""Where a value's context is besides the words before it: the clause after it, and its column's header in a CSV or
TSV block or a table of pipes (Markdown's, org-mode's, psql's).

A CSV row or a table row holds a date of birth, an SSN or a token with no word beside it: the header row above
("id,dob,status", "| Client Secret | Email |"), an SQL INSERT's column list or a YAML list's key says what each cell
is. Recognizers ask for the column's name only for a value that has no context word of its own, and only in a text
with delimiters, pipes or list items (``may_have_columns``).
"""

from __future__ import annotations

import re

from gateway.guardrails.fixed_columns import fixed_width_column_name
from gateway.guardrails.sql_values import column_at, may_hold_inserts

# The delimiters of a CSV block: commas, or semicolons as spreadsheets in French, Spanish or German locales (where
# the comma is the decimal separator) export them.
DELIMITERS = (",", ";")
# The delimiters whose blocks' headers name a value's column: a CSV block's, and tabs (TSV, a spreadsheet's cells
# pasted as text).
_ROW_DELIMITERS = (*DELIMITERS, "\t")
# A header: three or more column names (identifiers, or a few words, in any script: "Összeg", "生年月日") between
# delimiters, nothing else on the line.
_HEADERS = {
    d: re.compile(rf"[ \t]*[^\W\d][\w .-]*(?:{d}[ \t]*[^\W\d][\w .-]*){{2,}}[ \t]*\r?") for d in _ROW_DELIMITERS
}
# A two-column header ("ref;dob", "patient_id,birthDate"): each cell one field name, a single identifier with no
# space. A line of prose with one comma ("Born in Paris, France") has the shape of a two-cell row too, so words with
# spaces between them name no column here.
_FIELD_NAME = r"[ \t]*[A-Za-z_][\w.-]{0,39}[ \t]*"
_PAIR_HEADERS = {d: re.compile(rf"{_FIELD_NAME}{d}{_FIELD_NAME}\r?") for d in _ROW_DELIMITERS}
_CELLS = {d: re.compile(rf'"(?:[^"\n]|"")*"|[^{d}\n]*') for d in _ROW_DELIMITERS}
# Where the clause that follows a value ends: a context word past it belongs to the next value ("ssn 536-22-1234,
# call (415) ...").
_CLAUSE_END = re.compile(r"[,;:!?\n]|\.(?:\s|\Z)")
# How far up a header is looked for: a pasted table longer than this is read in parts (each with its header) anyway.
_MAX_ROWS_ABOVE = 200


def _cell_count(line: str, delimiter: str = ",") -> int:
    """The cells of a CSV line, a quoted cell ("28.95,91.86") counting once."""
    if '"' not in line:  # no quoted cell: every delimiter ends one
        return line.count(delimiter) + 1
    count, position = 0, 0
    while True:
        cell = _CELLS[delimiter].match(line, position)
        count += 1
        position = cell.end() if cell else position
        if position >= len(line) or line[position] != delimiter:
            return count
        position += 1


def _cell_index(line: str, offset: int, delimiter: str = ",") -> int | None:
    """Which cell of `line` holds character `offset`, or None if `offset` is a delimiter."""
    index, position = 0, 0
    while position <= len(line):
        cell = _CELLS[delimiter].match(line, position)
        end = cell.end() if cell else position
        if position <= offset < end or (offset == position == end):
            return index
        if end >= len(line) or line[end] != delimiter:
            return None
        index, position = index + 1, end + 1
    return None


def clause_after(text: str, end: int, limit: int) -> int:
    """Where the clause after a value that ends at `end` stops: at punctuation, or `limit` characters on."""
    stop = _CLAUSE_END.search(text, end, min(len(text), end + limit))
    return stop.start() if stop else min(len(text), end + limit)


def may_have_columns(text: str) -> bool:
    return "," in text or "|" in text or ";" in text or "\t" in text or ("- " in text and "\n" in text)


def column_name(text: str, position: int) -> str | None:
    """The lower-cased header of the column that character `position` of `text` is in, or None when the line is no
    row of a table of pipes (``table_column_name``) nor of a CSV block (a header, then rows with as many cells as it,
    no blank line between; comma-, semicolon- or tab-separated) nor a VALUES tuple of an SQL INSERT with a column
    list (``sql_values.column_at``) nor a row of a fixed-width report (``fixed_columns``) nor an item of a YAML list
    (``list_key``: the list's key)."""
    line_start = text.rfind("\n", 0, position) + 1
    line_end = text.find("\n", position)
    line = text[line_start : len(text) if line_end < 0 else line_end]
    if "|" in line:
        return table_column_name(text, line_start, line, position - line_start)
    for delimiter in _ROW_DELIMITERS:
        if delimiter in line and (name := _csv_column_name(text, line_start, line, position, delimiter)) is not None:
            return name
    if "(" in line and may_hold_inserts(text):
        return column_at(text, position)
    if (fixed := fixed_width_column_name(text, position)) is not None:
        return fixed
    if not _LIST_ITEM.match(line):
        return None
    key = list_key(text, line_start)
    return key.strip().lower() if key is not None else None


# A YAML block list's item ("  - 1987-10-14") and the key line it hangs from ("birth_dates:").
_LIST_ITEM = re.compile(r"[ \t]*- ")
_LIST_KEY = re.compile(r"[ \t]*(?P<key>[A-Za-z_][\w .-]{0,40}):[ \t]*\r?")


def list_key(text: str, line_start: int) -> str | None:
    """The key, as written, of the YAML block list whose item starts at `line_start`: up past the list's other items
    to the line that holds only a key; None when the line above the items is no key line."""
    end = line_start - 1
    for _ in range(_MAX_ROWS_ABOVE):
        if end < 0:
            return None
        start = text.rfind("\n", 0, end) + 1
        if not _LIST_ITEM.match(text, start, end):
            key = _LIST_KEY.fullmatch(text, start, end)
            return key.group("key") if key else None
        end = start - 1
    return None


def _csv_column_name(text: str, line_start: int, line: str, position: int, delimiter: str) -> str | None:
    # The header first, the cell the position is in only under one: most lines with a comma are prose, whose line
    # above has another count of cells, and finding the cell walks the line cell by cell.
    cells = _cell_count(line, delimiter)
    header = None  # the topmost header-shaped line of the block: a row of words ("Lelystad,Estonia,ok") is no header
    end = line_start - 1  # the newline that ends the line above
    for _ in range(_MAX_ROWS_ABOVE):
        if end < 0:
            break
        start = text.rfind("\n", 0, end) + 1
        above = text[start:end]
        if _cell_count(above, delimiter) != cells:
            break
        if _HEADERS[delimiter].fullmatch(above) or (cells == 2 and _PAIR_HEADERS[delimiter].fullmatch(above)):
            header = above
        end = start - 1
    if header is None:
        return None
    index = _cell_index(line, position - line_start, delimiter)
    return None if index is None else header.split(delimiter)[index].strip().lower()


# A table's delimiter row: a Markdown table's ("|---|:---:|", "--- | ---"), and one whose dash runs meet at a '+'
# (an Emacs org-mode table's "|----+----|", psql's result grid's "----+-----", its header " id | name ").
_TABLE_DELIMITER = re.compile(r"[ \t]*[|+]?(?:[ \t]*:?-{3,}:?[ \t]*[|+])+(?:[ \t]*:?-{3,}:?[ \t]*)?\r?")


def _table_cells(line: str) -> list[str]:
    cells = line.strip().split("|")
    if line.strip().startswith("|"):
        cells = cells[1:]
    return cells


def in_table_header(text: str, position: int) -> bool:
    """Whether character `position` of `text` is on a Markdown table's header line (the line right above its
    delimiter row): column names, not values."""
    line_end = text.find("\n", position)
    if line_end < 0 or "|" not in text[text.rfind("\n", 0, position) + 1 : line_end]:
        return False
    next_end = text.find("\n", line_end + 1)
    return _TABLE_DELIMITER.fullmatch(text, line_end + 1, len(text) if next_end < 0 else next_end) is not None


def table_column_name(text: str, line_start: int, line: str, offset: int) -> str | None:
    """The lower-cased header of the column of a table of pipes (Markdown's, org-mode's, psql's) that character
    `offset` of `line` (a row starting at `line_start` of `text`) is in: the line above the delimiter row, found by
    walking up the table's rows."""
    index = line.count("|", 0, offset) - (1 if line.lstrip().startswith("|") else 0)
    end = line_start - 1
    for _ in range(_MAX_ROWS_ABOVE):
        if end < 0:
            return None
        start = text.rfind("\n", 0, end) + 1
        above = text[start:end]
        delimiter_row = _TABLE_DELIMITER.fullmatch(above) is not None
        if "|" not in above and not delimiter_row:
            return None
        if delimiter_row:
            if start == 0:
                return None
            header_start = text.rfind("\n", 0, start - 1) + 1
            cells = _table_cells(text[header_start : start - 1])
            return cells[index].strip().lower() if 0 <= index < len(cells) else None
        end = start - 1
    return None
