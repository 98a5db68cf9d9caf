"""Names in the name slots of interchange standards, whose keys are no name word:

* ASC X12: an NM1 segment (individual or organizational name) whose entity type qualifier (NM102) is "1", a person:
  NM103 is the last name, NM104 the first, NM105 the middle (``NM1*IL*1*ENEVA*SEVERINA~``); the span runs from the
  last name to the last of them written, separators included. The element separator is the character after the
  segment id; a segment ends at "~" or a line break.
* SWIFT MT: the ordering customer and beneficiary fields. Option F (50F, 59F) numbers its lines, and line ``1/`` is
  the party's name; option K of field 50 and field 59 without option write an optional ``/account`` line, then
  the name on the next line, then the address.
* ISO 20022: a party's ``Nm`` (PartyIdentification: Dbtr, Cdtr, UltmtDbtr, InitgPty, ...), the first element in
  its party, so right after the party's opening tag; a financial institution's or an account's name comes after
  their identifiers, and a ``FinInstnId`` or ``BrnchId`` is no person.

A slot holds a person's or an organisation's name alike: a value that ends in a legal form ("ACME COMERCIO LTDA",
``legal_forms``) is an organisation. Any other value with a letter in it is a name, whatever its words: the
standard says what the slot holds.
"""

from __future__ import annotations

import re

from gateway.guardrails.legal_forms import ends_in_legal_form

_LETTER = re.compile(r"[^\W\d_]")
# NM1, its separator, the entity identifier code, the entity type qualifier "1", then last, first, middle names.
_X12_PERSON = re.compile(r"(?:^|(?<=[~\r\n]))[ \t]*NM1(?P<sep>[*|^:])[^~\r\n*|^:]*(?P=sep)1(?P=sep)"
                         r"(?P<names>[^~\r\n]*)")  # fmt: skip
_X12_NAME_ELEMENTS = 3  # last, first, middle
# A party field's tag, its body up to the next field's tag (":59:", ":71A:") or the block's end ("-}").
_SWIFT_PARTY = re.compile(r"(?m)^:(?P<tag>50F|59F|50K|59):(?P<body>(?:(?!^:\d\d[A-Z]?:|^-\}).*(?:\r?\n|$))*)")
_NUMBERED_NAME_LINE = re.compile(r"(?m)^1/(?P<value>[^\r\n]+)")
_FREE_NAME_LINE = re.compile(r"(?:/[^\r\n]*\r?\n)?(?P<value>[^/\r\n][^\r\n]*)")
_ISO20022_PARTY_NAME = re.compile(
    r"<(?:\w+:)?(?P<parent>\w+)(?:\s[^<>]*)?>\s*<(?P<prefix>\w+:)?Nm>(?P<value>[^<>]{1,140})</(?P=prefix)?Nm>"
)
_NOT_PARTIES = frozenset({"FinInstnId", "BrnchId", "Acct"})
_SWIFT_MARKERS = (":50F:", ":59F:", ":50K:", ":59:")
_SWIFT_FIELD_START = re.compile(r"(?m)^:(?:50F|59F|50K|59):")


def _has_swift_party(text: str) -> bool:
    """SWIFT's party field only where it opens a line, as ``_SWIFT_PARTY`` reads it: a log's "12:59:03" holds
    ":59:", and passing it would run every record-name reader over the log."""
    return any(marker in text for marker in _SWIFT_MARKERS) and _SWIFT_FIELD_START.search(text) is not None


def has_standard_name_slot(text: str) -> bool:
    return "NM1" in text or "Nm>" in text or _has_swift_party(text)


def _trimmed(text: str, start: int, end: int) -> tuple[int, int] | None:
    """The value's span without its outer spaces, if it holds a letter and no legal form ends it."""
    value = text[start:end]
    stripped = value.strip()
    if not _LETTER.search(stripped) or ends_in_legal_form(stripped):
        return None
    start += len(value) - len(value.lstrip())
    return start, start + len(stripped)


def x12_names(text: str) -> list[tuple[int, int]]:
    spans = []
    for match in _X12_PERSON.finditer(text):
        elements = match.group("names").split(match.group("sep"))[:_X12_NAME_ELEMENTS]
        while elements and not elements[-1].strip():
            elements.pop()
        if not elements or not elements[0].strip():
            continue
        names = match.group("sep").join(elements)
        span = _trimmed(text, match.start("names"), match.start("names") + len(names))
        if span is not None and not ends_in_legal_form(elements[0]):
            spans.append(span)
    return spans


def swift_names(text: str) -> list[tuple[int, int]]:
    spans = []
    for field in _SWIFT_PARTY.finditer(text):
        body_start = field.start("body")
        if field.group("tag").endswith("F"):
            lines = list(_NUMBERED_NAME_LINE.finditer(field.group("body")))
        else:
            first = _FREE_NAME_LINE.match(field.group("body"))
            lines = [first] if first is not None else []
        for line in lines:
            span = _trimmed(text, body_start + line.start("value"), body_start + line.end("value"))
            if span is not None:
                spans.append(span)
    return spans


def iso20022_names(text: str) -> list[tuple[int, int]]:
    spans = []
    for match in _ISO20022_PARTY_NAME.finditer(text):
        if match.group("parent") in _NOT_PARTIES:
            continue
        span = _trimmed(text, match.start("value"), match.end("value"))
        if span is not None:
            spans.append(span)
    return spans


def standard_names(text: str) -> list[tuple[int, int]]:
    """[start, end) of each person's name in an X12 NM1 segment, a SWIFT MT party field or an ISO 20022 party.
    Each standard's regex runs only where its own marker stands (the X12 one opens with an alternation the regex
    engine cannot skip to: ~50 us over a 2 KB text that holds no NM1)."""
    spans = x12_names(text) if "NM1" in text else []
    if _has_swift_party(text):
        spans += swift_names(text)
    if "Nm>" in text:
        spans += iso20022_names(text)
    return spans
