"""Where a value's context is besides the words before it: the clause after it, and its column's header in a CSV,
TSV or pipe-delimited block, a table of pipes (Markdown's, org-mode's, psql's) or a fixed-width report.

A CSV row or a table row holds a date of birth, an SSN or a token with no word beside it: the header row above
("id,dob,status", "| Client Secret | Email |"), an SQL INSERT's column list or a YAML list's key says what each cell
is. Recognizers ask for the column's name only for a value that has no context word of its own, and only in a text
with delimiters, pipes or list items (``may_have_columns``).

``header_cell`` is the one reader of a table's header: it says where the header cell of a value's column is, and
``column_name`` (the lower-cased name every recognizer asks for) and ``personal_ids`` (which matches its labels,
some of them acronyms in capitals, in the cell as written) read that cell.
"""

from __future__ import annotations

import re
from functools import lru_cache

from gateway.guardrails.fixed_columns import fixed_width_header
from gateway.guardrails.sql_values import column_at, may_hold_inserts

# The delimiters of a CSV block: commas, or semicolons as spreadsheets in French, Spanish or German locales (where
# the comma is the decimal separator) export them.
DELIMITERS = (",", ";")
# The delimiters whose blocks' headers name a value's column: a CSV block's, tabs (TSV, a spreadsheet's cells pasted
# as text) and pipes (a pipe-delimited export, "id|name|dob", read so when its lines are no table of pipes).
_ROW_DELIMITERS = (*DELIMITERS, "\t", "|")
# A header: three or more column names (identifiers, or a few words, in any script: "Összeg", "生年月日"; an
# abbreviation's dot, a parenthesis, a slash, a number sign: "Nr. (PESEL)", "SSN/SIN", "N°"), each quoted or not,
# between delimiters, nothing else on the line.
_HEADER_NAME = r'[ \t]*"?[^\W\d][\w .()/#°º№-]*"?[ \t]*'
_HEADERS = {d: re.compile(rf"{_HEADER_NAME}(?:{re.escape(d)}{_HEADER_NAME}){{2,}}\r?") for d in _ROW_DELIMITERS}
# A two-column header ("ref;dob", "patient_id,birthDate"): each cell one field name, a single identifier with no
# space. A line of prose with one comma ("Born in Paris, France") has the shape of a two-cell row too, so words with
# spaces between them name no column here.
_FIELD_NAME = r'[ \t]*"?[A-Za-z_][\w.-]{0,39}"?[ \t]*'
_PAIR_HEADERS = {d: re.compile(rf"{_FIELD_NAME}{re.escape(d)}{_FIELD_NAME}\r?") for d in _ROW_DELIMITERS}
_CELLS = {d: re.compile(rf'"(?:[^"\n]|"")*"|[^{d}\n]*') for d in _ROW_DELIMITERS}
# What may pad a value in its cell: spaces, a CSV cell's quotes, a line's carriage return.
_CELL_PADDING = re.compile(r"[ \t\r\"']*")
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


def _cell_at(line: str, offset: int, delimiter: str = ",") -> tuple[int, int, int] | None:
    """Which cell of `line` holds character `offset` and where it starts and ends, or None if `offset` is a
    delimiter."""
    index, position = 0, 0
    while position <= len(line):
        cell = _CELLS[delimiter].match(line, position)
        end = cell.end() if cell else position
        if position <= offset < end or (offset == position == end):
            return index, position, end
        if end >= len(line) or line[end] != delimiter:
            return None
        index, position = index + 1, end + 1
    return None


def _stripped(text: str, start: int, end: int) -> tuple[int, int]:
    """text[start:end] less the spaces and quotes around it."""
    while start < end and (text[start].isspace() or text[start] in "\"'"):
        start += 1
    while end > start and (text[end - 1].isspace() or text[end - 1] in "\"'"):
        end -= 1
    return start, end


def _fills(text: str, cell_start: int, cell_end: int, start: int, end: int | None) -> bool:
    """Whether text[start:end] is its cell's whole value (text[cell_start:cell_end]) but for padding; any value when
    `end` is None."""
    if end is None:
        return True
    return bool(_CELL_PADDING.fullmatch(text, cell_start, start) and _CELL_PADDING.fullmatch(text, end, cell_end))


def clause_after(text: str, end: int, limit: int, asides: bool = False) -> int:
    """Where the clause after a value that ends at `end` stops: at punctuation, or `limit` characters on.

    With `asides` (dates), the clause also goes on past a colon right after the value whose clause points back at
    it ("7 janv. 1973 : c'est la date de naissance"), and past an aside between two commas inside the value's own
    clause ("On 7/13/1963 a daughter, Julie Ward, was born"), the aside not counted in `limit`: only where no digit
    stands in what is bridged (no second date, whose own words those are: "hired 4 May 2021, her son, born 2 ...")."""
    bound = min(len(text), end + limit)
    stop = _CLAUSE_END.search(text, end, bound)
    if stop is None:
        return bound
    if asides:
        mark = stop.start()
        if text[mark] == ":" and not text[end:mark].strip() and _POINTS_BACK.match(text, stop.end()):
            return _undated_reach(text, stop.end(), min(len(text), stop.end() + limit), mark)
        if text[mark] == "," and text[end:mark].strip() and not _has_digit(text, end, mark):
            aside = _ASIDE.match(text, stop.end())
            if aside is not None:
                return _undated_reach(text, aside.end(), min(len(text), aside.end() + bound - mark), mark)
    return stop.start()


# What a clause past a colon opens with when it says what the value before the colon is: a demonstrative or a
# pronoun and its copula ("that's", "c'est", "das ist", "es la", "è la").
_POINTS_BACK = re.compile(
    r"[ \t\u00a0]*(?i:(?:that|this|it|which)(?:'s|’s|\s+is|\s+was)\b|c'est|c’est|ce (?:sont|fut)\b"
    r"|il s'agit|(?:das|dies|es) (?:ist|war)\b"
    r"|(?:esa|esta|ésa|ésta|essa|questa|quella|dat|dit|het) (?:es|fue|é|è|is|was)\b"
    r"|(?:es|fue|é|è|era) (?:la|a|el|o|il|su|sua)\b)"
)
# An aside between commas: a few words (a name in apposition, "Julie Ward"), no digit and no clause's end in them.
_ASIDE = re.compile(r"[^\d,;:!?\n.]{1,40},")
_DIGIT = re.compile(r"\d")


def _has_digit(text: str, start: int, end: int) -> bool:
    return _DIGIT.search(text, start, end) is not None


def _undated_reach(text: str, start: int, bound: int, fallback: int) -> int:
    """Where the clause that starts at `start` stops (punctuation, or `bound`); `fallback` if a digit is in it."""
    stop = _CLAUSE_END.search(text, start, bound)
    reach = stop.start() if stop else bound
    return fallback if _has_digit(text, start, reach) else reach


def may_have_columns(text: str) -> bool:
    return "," in text or "|" in text or ";" in text or "\t" in text or ("- " in text and "\n" in text)


def header_cell(text: str, start: int, end: int | None = None) -> tuple[int, int] | None:
    """Where the header cell of the column that character `start` of `text` is in stands (spaces and quotes around
    it left out), or None when its line is no row of a table of pipes (``_table_header``) nor of a delimited block
    (a header, then rows with as many cells as it, no blank line between; comma-, semicolon-, tab- or
    pipe-separated) nor of a fixed-width report (``fixed_columns``). Given `end`, only for a value that fills its
    cell (text[start:end], spaces and quotes around it aside): a number inside a longer cell is not the column's
    value ("8298 7575 9851"'s last two groups)."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", start)
    line = text[line_start : len(text) if line_end < 0 else line_end]
    if "|" in line and (cell := _table_header(text, line_start, line, start, end)) is not None:
        return cell
    for delimiter in _header_delimiters(text):  # a block's header is one of the text's lines: most texts have none
        if delimiter in line and (cell := _csv_header(text, line_start, line, start, end, delimiter)) is not None:
            return cell
    return fixed_width_header(text, start, end)


@lru_cache(maxsize=2)  # asked for each value of a text in turn (an e-mail or phone without a context word)
def _header_delimiters(text: str) -> tuple[str, ...]:
    """The delimiters (in ``_ROW_DELIMITERS``' order) for which some line of `text` that a line break ends is
    header-shaped (``_HEADERS`` or ``_PAIR_HEADERS``): ``_csv_header`` finds a header only on such a line, above the
    value's, so a delimiter with none needs no walk up the block (a ticket list's lines each hold a comma, and none
    is a header)."""
    # the last line has no line below it (no row hangs from it); a line with a character no header holds is none
    lines = [line for line in text.split("\n")[:-1] if _NO_HEADER_CHARACTER.search(line) is None]
    return tuple(
        delimiter
        for delimiter in _ROW_DELIMITERS
        if any(
            delimiter in line and (_HEADERS[delimiter].fullmatch(line) or _PAIR_HEADERS[delimiter].fullmatch(line))
            for line in lines
        )
    )


# A character that stands in no header line of any delimiter (``_HEADERS``, ``_PAIR_HEADERS``): what none of their
# names, quotes, padding, delimiters and carriage return is ("Ticket 1000: Jonas Berg (jonas@example.org, ...)").
_NO_HEADER_CHARACTER = re.compile(r'[^\w \t.()/#°º№"\r,;|-]')


def column_name(text: str, position: int) -> str | None:
    """The lower-cased header of the column that character `position` of `text` is in (``header_cell``), or else
    the column of a VALUES tuple of an SQL INSERT with a column list (``sql_values.column_at``) or the key of the
    YAML list an item is in (``list_key``); None when the line is none of these."""
    if not _may_name_a_column(text):
        return None
    cell = header_cell(text, position)
    if cell is not None:
        return text[cell[0] : cell[1]].lower()
    line_start = text.rfind("\n", 0, position) + 1
    line_end = text.find("\n", position)
    line = text[line_start : len(text) if line_end < 0 else line_end]
    if "(" in line and _may_hold_inserts(text):
        return column_at(text, position)
    if not _LIST_ITEM.match(line):
        return None
    key = list_key(text, line_start)
    return key.strip().lower() if key is not None else None


# Asked for each value of a text in turn: two substring tests over the whole text each time without the cache.
_may_hold_inserts = lru_cache(maxsize=2)(may_hold_inserts)


@lru_cache(maxsize=2)  # asked for each value of a text in turn
def _may_name_a_column(text: str) -> bool:
    """Whether some position of `text` may have a ``column_name``: a table of pipes has a delimiter row and a
    fixed-width report a rule (each holds '---', or a report's '==='), a delimited block a header line
    (``_header_delimiters``), an INSERT's values a quote and a parenthesis (``may_hold_inserts``), a YAML list an item
    ('- '). Most prose, tickets and logs hold none of them, and each of their e-mail addresses and phone numbers
    without a context word asked again."""
    return "---" in text or "===" in text or "- " in text or may_hold_inserts(text) or bool(_header_delimiters(text))


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


def _csv_header(
    text: str, line_start: int, line: str, start: int, end: int | None, delimiter: str
) -> tuple[int, int] | None:
    # The header first, the cell the position is in only under one: most lines with a comma are prose, whose line
    # above has another count of cells, and finding the cell walks the line cell by cell.
    cells = _cell_count(line, delimiter)
    header = None  # the topmost header-shaped line of the block: a row of words ("Lelystad,Estonia,ok") is no header
    above_end = line_start - 1  # the newline that ends the line above
    for _ in range(_MAX_ROWS_ABOVE):
        if above_end < 0:
            break
        above_start = text.rfind("\n", 0, above_end) + 1
        above = text[above_start:above_end]
        if _cell_count(above, delimiter) != cells:
            break
        if _HEADERS[delimiter].fullmatch(above) or (cells == 2 and _PAIR_HEADERS[delimiter].fullmatch(above)):
            header = (above_start, above_end)
        above_end = above_start - 1
    if header is None:
        return None
    cell = _cell_at(line, start - line_start, delimiter)
    if cell is None or not _fills(text, line_start + cell[1], line_start + cell[2], start, end):
        return None
    # a header's names hold no delimiter, quoted or not: its cells are split at each
    cell_start = header[0]
    for _ in range(cell[0]):
        cell_start = text.index(delimiter, cell_start, header[1]) + 1
    cell_end = text.find(delimiter, cell_start, header[1])
    return _stripped(text, cell_start, header[1] if cell_end < 0 else cell_end)


# A table's delimiter row: a Markdown table's ("|---|:---:|", "--- | ---"), and one whose dash runs meet at a '+'
# (an Emacs org-mode table's "|----+----|", psql's result grid's "----+-----", its header " id | name ").
_TABLE_DELIMITER = re.compile(r"[ \t]*[|+]?(?:[ \t]*:?-{3,}:?[ \t]*[|+])+(?:[ \t]*:?-{3,}:?[ \t]*)?\r?")


def _table_cells(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Where the cells of the table row text[start:end] start and end: between its pipes, the one before a leading
    pipe left out."""
    cells = []
    position = start
    while (bar := text.find("|", position, end)) >= 0:
        cells.append((position, bar))
        position = bar + 1
    cells.append((position, end))
    return cells[1:] if text[start:end].strip().startswith("|") else cells


def in_table_header(text: str, position: int) -> bool:
    """Whether character `position` of `text` is on a Markdown table's header line (the line right above its
    delimiter row): column names, not values."""
    line_end = text.find("\n", position)
    if line_end < 0 or "|" not in text[text.rfind("\n", 0, position) + 1 : line_end]:
        return False
    next_end = text.find("\n", line_end + 1)
    return _TABLE_DELIMITER.fullmatch(text, line_end + 1, len(text) if next_end < 0 else next_end) is not None


def _table_header(text: str, line_start: int, line: str, start: int, end: int | None) -> tuple[int, int] | None:
    """The header cell of the column of a table of pipes (Markdown's, org-mode's, psql's) that character `start` of
    `text` (on `line`, a row starting at `line_start`) is in: the line above the delimiter row, found by walking up
    the table's rows."""
    offset = start - line_start
    index = line.count("|", 0, offset) - (1 if line.lstrip().startswith("|") else 0)
    if end is not None:
        row = _table_cells(text, line_start, line_start + len(line))
        if not (0 <= index < len(row) and _fills(text, *row[index], start, end)):
            return None
    above_end = line_start - 1
    for _ in range(_MAX_ROWS_ABOVE):
        if above_end < 0:
            return None
        above_start = text.rfind("\n", 0, above_end) + 1
        above = text[above_start:above_end]
        delimiter_row = _TABLE_DELIMITER.fullmatch(above) is not None
        if "|" not in above and not delimiter_row:
            return None
        if delimiter_row:
            if above_start == 0:
                return None
            header_start = text.rfind("\n", 0, above_start - 1) + 1
            cells = _table_cells(text, header_start, above_start - 1)
            return _stripped(text, *cells[index]) if 0 <= index < len(cells) else None
        above_end = above_start - 1
    return None
