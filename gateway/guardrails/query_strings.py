"""URL query strings read as their values: ``?login=a%40b.com&assignee=Txemi+Matei`` as ``login= a@b.com; assignee=
Txemi Matei``.

A query string writes a space as ``+`` and other characters as ``%XX`` UTF-8 escapes (RFC 3986, and the form encoding
browsers send): a name, an address or a grouped number inside one is not written as the detectors read it. The view
decodes each value (``urllib.parse.unquote_plus`` rules), sets it off from its key by a space (an e-mail address's
local part may hold ``=``, so ``login=a@b.com`` would otherwise read as one address) and ends each pair with ``;``
(so a field rule reads ``assignee=Txemi+Matei&status=open`` as a value and then another key). Every view character
keeps the first and last raw index it came from, so a finding covers the raw escapes whole and redaction masks them.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass

from gateway.guardrails.normalize import ReaderView

# A query: what follows a "?" up to the URL's end, or a token of two or more key=value pairs joined by "&" (a form
# body, a query pasted without its path).
_KEY = r"[\w.~%+\[\]-]+"
_VALUE = r"[^\s&#\"'<>`]*"
_QUERY = re.compile(rf"{_KEY}={_VALUE}(?:&{_KEY}={_VALUE})*")
_FORM = re.compile(rf"(?:{_KEY}={_VALUE}&)+{_KEY}={_VALUE}")
# Queries and forms are found from each "?" and "&" (str.find) rather than by one search of the whole text: a pattern
# tried at every position of a 2 KB text cost most of the view's time. A form's token starts after whitespace, a
# quote or a parenthesis.
_FORM_EDGES = " \t\n\"'("
_ESCAPE = re.compile(r"(?:%[0-9A-Fa-f]{2})+")


@dataclass(frozen=True, slots=True)
class DecodedView(ReaderView):
    last: list[int]  # per character of ``text``, the last raw index it came from (an escape's final hex digit)

    def raw_span(self, start: int, end: int) -> tuple[int, int]:
        assert self.origin is not None
        return self.origin[start], self.last[end - 1] + 1


def may_hold_query(text: str) -> bool:
    return "=" in text and ("?" in text or "&" in text)


def decoded_view(view: ReaderView) -> ReaderView:
    """`view` with each query string's values decoded (``DecodedView``), or `view` itself when it holds none that
    decoding would change."""
    text = view.text
    if not may_hold_query(text):
        return view
    pieces: list[str] = []
    first: list[int] = []
    last: list[int] = []
    done = 0
    for start, end in _queries(text):
        _copy(text, done, start, pieces, first, last)
        _decode_query(text, start, end, pieces, first, last)
        done = end
    if done == 0:
        return view
    _copy(text, done, len(text), pieces, first, last)
    if view.origin is not None:  # composed with the reader view's own mapping to the raw text
        origin = view.origin
        first = [origin[index] for index in first]
        last = [origin[index] for index in last]
    return DecodedView("".join(pieces), first, last)


def _queries(text: str) -> list[tuple[int, int]]:
    """The (start, end) of each query: after a "?", or a whitespace-delimited token of "&"-joined pairs. Linear in the
    text's length whatever it holds (a prompt of "?a=b&" or "&" repeated included): the edge before each "&" is
    looked for only in the stretch since the previous one, the queries a "&" may fall in are walked once in order,
    and a form is matched at most once per edge."""
    queries: list[tuple[int, int]] = []
    mark = text.find("?")
    while mark >= 0:
        query = _QUERY.match(text, mark + 1)
        if query is not None:
            queries.append(query.span())
        mark = text.find("?", query.end() if query is not None else mark + 1)
    forms: list[tuple[int, int]] = []
    following = 0  # the first query that does not end before the "&" at hand
    edge = scanned = -1  # the last form edge before the "&" at hand, and how far edges have been looked for
    tried_edge, form = -2, None  # the edge the last form match started after, and its result
    amp = text.find("&")
    while amp >= 0:
        while following < len(queries) and queries[following][1] <= amp:
            following += 1
        if following == len(queries) or amp < queries[following][0]:  # in no query
            edge = max(edge, *(text.rfind(char, scanned + 1, amp) for char in _FORM_EDGES))
            scanned = amp - 1
            if edge != tried_edge:
                tried_edge, form = edge, _FORM.match(text, edge + 1)
            if form is not None and form.end() > amp:
                forms.append(form.span())
                amp = form.end()
        amp = text.find("&", amp + 1)
    return sorted(queries + forms)


def _copy(text: str, start: int, end: int, pieces: list[str], first: list[int], last: list[int]) -> None:
    pieces.append(text[start:end])
    first.extend(range(start, end))
    last.extend(range(start, end))


def _decode_query(text: str, start: int, end: int, pieces: list[str], first: list[int], last: list[int]) -> None:
    position = start
    while position < end:
        amp = text.find("&", position, end)
        pair_end = end if amp < 0 else amp
        equals = text.find("=", position, pair_end)
        if equals < 0:
            _copy(text, position, pair_end, pieces, first, last)
        else:
            _copy(text, position, equals + 1, pieces, first, last)
            if equals + 1 < pair_end:
                _emit(" ", equals, equals, pieces, first, last)
                _decode_value(text, equals + 1, pair_end, pieces, first, last)
        if amp >= 0:
            _emit(";", amp, amp, pieces, first, last)
            _emit(" ", amp, amp, pieces, first, last)
        position = pair_end + 1


def _emit(char: str, raw_first: int, raw_last: int, pieces: list[str], first: list[int], last: list[int]) -> None:
    pieces.append(char)
    first.append(raw_first)
    last.append(raw_last)


def _decode_value(text: str, start: int, end: int, pieces: list[str], first: list[int], last: list[int]) -> None:
    position = start
    while position < end:
        escape = _ESCAPE.match(text, position, end) if text[position] == "%" else None
        if escape is None:
            _emit(" " if text[position] == "+" else text[position], position, position, pieces, first, last)
            position += 1
            continue
        # UTF-8 bytes, decoded one at a time so each character knows the escapes it came from; a byte that is no
        # UTF-8 becomes U+FFFD, as unquote_plus reads it.
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        char_start = position
        for byte_start in range(escape.start(), escape.end(), 3):
            decoded = decoder.decode(bytes([int(text[byte_start + 1 : byte_start + 3], 16)]))
            for char in decoded:
                _emit(char, char_start, byte_start + 2, pieces, first, last)
            if decoded:
                char_start = byte_start + 3
        for char in decoder.decode(b"", final=True):
            _emit(char, char_start, escape.end() - 1, pieces, first, last)
        position = escape.end()
