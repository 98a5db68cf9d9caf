"""Address lines that a record's structure marks as such, whatever script or words they are written in:

- ANSI X12's N3 segment (Party Location: ``N3*Skólavegur 251~``), whose one or two elements are address lines;
- SWIFT MT option F party fields (``:50F:``, ``:59F:``), whose numbered line ``2/`` is an address line;
- ISO 20022's postal-address elements ``<StrtNm>`` (street name) and ``<AdrLine>`` (address line);
- a field whose key names a street or an address line (``PostalStreet=``, ``address_line1 = "``,
  ``mailingAddress: "``, ``<AddressLine1>``): its whole value, when it holds words and a house number.

The street layouts of ``addresses`` need a street-type word or a Latin-script name; a value in one of these slots needs
neither ("ניר עם 96", "永安路1號", "Գրիգոր Լուսավորչի 2")."""

from __future__ import annotations

import re
from collections.abc import Iterator

# X12: the segment opens a line or follows the previous segment's terminator ("~"); elements are "*"-separated.
_X12_N3 = re.compile(r"(?:^|~)[ \t]*N3\*(?P<first>[^*~\r\n]+)(?:\*(?P<second>[^*~\r\n]+))?", re.MULTILINE)
# SWIFT: an option F party field, its numbered lines after the account line; "2/" is the address line.
_SWIFT_F = re.compile(r"^:(?:50|59)F:[^\r\n]*\r?\n(?:[1-8]/[^\r\n]*\r?\n)*?2/(?P<line>[^\r\n]+)", re.MULTILINE)
# ISO 20022: the elements of a PostalAddress that hold the street.
_ISO_ELEMENT = re.compile(r"<(?P<tag>StrtNm|AdrLine)>(?P<value>[^<]+)</(?P=tag)>")
# A key that names a street or an address line, alone or after the kind of address, in snake, kebab or camel case:
# "street", "PostalStreet", "postal_street", "AddressLine1", "mailing_address". Not after a letter or "_" ("ip_address",
# "bind_address", "emailAddress" name no street), nor the bare word "address" (a server's, a wallet's) unless a
# kind or "line" says it is postal.
_KINDS = r"postal|mailing|delivery|billing|shipping|home|residential|registered|street"
_KEY = (
    rf"(?<![^\W\d])(?i:(?:(?:{_KINDS})[ _-]?)?street(?:[ _-]?(?:address|line[ _-]?\d?|name))?"
    rf"|(?:{_KINDS})[ _-]?addr(?:ess)?(?:[ _-]?line[ _-]?\d?)?|addr(?:ess)?[ _-]?line[ _-]?\d?)"
)
# Its value: quoted, up to the closing quote; an XML element's text; or unquoted, up to the line's end.
_FIELD = re.compile(
    rf"(?P<key>{_KEY})(?:\"?[ \t]*[:=][ \t]*(?:\"(?P<quoted>[^\"\r\n]+)\"|'(?P<single>[^'\r\n]+)'|"
    rf"(?P<bare>[^\s\"'<{{\[][^\r\n;]*))|>(?P<element>[^<\r\n]+)</)"
)
_KEY_ONLY = re.compile(_KEY)
# What a field's key and the quote and spaces after it are written with (every character its case-insensitive words,
# joins and digits match is a word character), and what follows them: no field starts where these do not meet.
_KEY_RUN = re.compile(r'[\w \t"-]*')
_FIELD_JOIN = re.compile(r"[:=>]")
# How far before a key's "street" or "addr" its kind may start ("residential_" is 12 characters), and how far after
# its end the rest of the key may run ("Address" + "_line_1").
_KIND_REACH, _KEY_REACH = 16, 24
_LONGEST_VALUE = 100
# A run of two letters or more in any script ("Jr", "עם", "路" and its neighbour), and a house number: digits alone
# or beside a letter of a script written without spaces ("永安路1號", "77/26 ถนน").
_LETTERS = re.compile(r"[^\W\d_]{2,}")
_HOUSE_NUMBER = re.compile(
    r"(?<![\w.:/-])\d{1,5}(?:[-/]\d{1,4})?[^\W\d_]?(?![\w:.]*\d)|(?<=[^\W\d_])\d{1,5}(?=[^\W\d_])"
)
# What a street value never holds: an e-mail address, a URL, a path or a template.
_NOT_STREET = re.compile(r"[@{}\\]|://|\$\(")
# A word a street's name could be: two letters or more not glued after a digit, where a unit stands ("82809ms",
# "30s", "512MB" are measures); a script written without spaces may glue its words to a number ("永安路1號").
_STREET_WORD = re.compile(r"(?<!\d)[^\W\d_]{2,}")


def _is_street_value(value: str, numbered: bool) -> bool:
    if not 2 <= len(value) <= _LONGEST_VALUE or _NOT_STREET.search(value) or not _LETTERS.search(value):
        return False
    return not numbered or (_HOUSE_NUMBER.search(value) is not None and _STREET_WORD.search(value) is not None)


def _ldap_value_end(text: str, match: re.Match[str], start: int, end: int) -> int:
    """Where an unquoted value ends: in an LDAP filter's item ("(postalAddress=12 Main Street)", RFC 4515) at the
    parenthesis that closes it, which an unescaped value cannot hold; elsewhere at the line's end."""
    if match.start() > 0 and text[match.start() - 1] == "(":
        close = text.find(")", start, end)
        return end if close < 0 else close
    return end


def _stripped(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start] in " \t\"'":
        start += 1
    while end > start and text[end - 1] in " \t\"',":
        end -= 1
    return start, end


def slot_spans(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) of each address line a record's structure marks. The record slots (X12, SWIFT, ISO 20022) are
    address lines by their standard, so any value with letters is one; a field found by its key's name also needs a
    house number, since keys are named freely."""
    if "N3*" in text:
        for match in _X12_N3.finditer(text):
            for group in ("first", "second"):
                if match.group(group) and _is_street_value(match.group(group), numbered=False):
                    yield _stripped(text, *match.span(group))
    if "F:" in text and "2/" in text:
        for match in _SWIFT_F.finditer(text):
            if _is_street_value(match.group("line"), numbered=False):
                yield _stripped(text, *match.span("line"))
    if "<StrtNm>" in text or "<AdrLine>" in text:
        for match in _ISO_ELEMENT.finditer(text):
            if _is_street_value(match.group("value"), numbered=False):
                yield _stripped(text, *match.span("value"))
    for match in _field_matches(text):
        group = next(g for g in ("quoted", "single", "bare", "element") if match.group(g) is not None)
        start, end = match.span(group)
        if group == "bare":
            end = _ldap_value_end(text, match, start, end)
        if _is_street_value(text[start:end].strip(), numbered=True):
            yield _stripped(text, start, end)


def _field_matches(text: str) -> Iterator[re.Match[str]]:
    """``_FIELD``'s matches, looked for only around the words every key holds ("street", "addr"): tried at every
    position of a text, its case-insensitive key cost more than the rest of the street layouts. A text whose lower
    case is not as long as itself is searched whole."""
    lower = text.lower()
    if len(lower) != len(text):
        yield from _FIELD.finditer(text)
        return
    stems = sorted(p for stem in ("street", "addr") for p in _occurrences(lower, stem))
    done = 0
    for position in stems:
        if position < done:
            continue
        window_start, window_end = max(done, position - _KIND_REACH), min(len(text), position + _KEY_REACH)
        # A field starting in the window has its ":", "=" or ">" where the run of key characters from its start
        # ends: before the window's end, or where the run from there ends. Without one, no key is looked for ("the
        # shipping address on order", a ticket's words).
        reach = run.end() if (run := _KEY_RUN.match(text, window_end)) is not None else window_end
        if _FIELD_JOIN.search(text, window_start, reach + 1) is None:
            continue
        key = _KEY_ONLY.search(text, window_start, window_end)
        for start in sorted({key.start(), position}) if key else (position,):
            if (match := _FIELD.match(text, start)) is not None:
                yield match
                done = match.end()
                break


def _occurrences(text: str, word: str) -> Iterator[int]:
    position = text.find(word)
    while position >= 0:
        yield position
        position = text.find(word, position + 1)
