"""Names in the fixed formats of records: HL7 v2 patient segments, airline tickets, and the name properties of
calendar, contact and directory entries.

Records print a name in a shape of their own, in capitals, with no words around it that NER could read:

* HL7 v2: the extended person name (XPN) of a PID segment's fields 5 (patient name), 6 (mother's maiden name) and
  9 (alias), and of an NK1 segment's field 2 (next of kin): ``FAMILY^GIVEN^MIDDLE^SUFFIX^PREFIX^...``, repetitions
  split by ``~``. The segment says what the field is, so every name with a letter in it counts; the components
  after the prefix (degree, name type code "L") are codes and are left out.
* A ticket or booking record (IATA form): ``FAMILY/GIVEN`` with an optional title after it (``ROMA/HASSIN MR``).
  A reservation's name element opens with the number of passengers who share the family name ("1ROMA/HASSIN MR",
  "1.1ROMA/HASSIN MR" in a display) and may glue the title to the given name ("ROMA/HASSINMR"). Capitals around a
  slash are also pairs of codes and words ("VAT/ID", "DNI/NIE", "READ/WRITE"): a pair counts when one side has four
  letters or more and a title follows it, or its given side holds a known first name (names-dataset). The title is
  not part of the name; a title glued on is cut off when a known first name, or a name element's number, is left.
* Calendar, contact and directory entries: an iCalendar attendee's or organizer's common name (RFC 5545
  ``ATTENDEE;ROLE=REQ-PARTICIPANT;CN=Ana Lima:mailto:...``), a vCard's formatted and structured name (RFC 6350
  ``FN:``, ``N:Family;Given;...``), an LDIF entry's name attributes (``cn:``, ``displayName:``, ``givenName:``,
  ``sn:``) and the common name of an LDAP distinguished name (``cn=Ana Lima,ou=People,...``); and a WebVTT
  caption's voice span, the speaker's name (W3C WebVTT ``<v Ana Lima>``, ``<v.loud Ana>``). Groups, rooms, hosts
  and numbered speakers stand there too ("cn=Domain Users", "CN=www.example.com", "<v Speaker 2>"): the value must
  read as a name, one to four capitalised words of letters (initials and short particles allowed), not only English
  dictionary and stop words unless a known first name opens it, and no team or desk ("Billing Team"); a single word
  must be a known name or no dictionary word.
* E-mail headers: the display name of a mailbox in a From, To, Cc, Reply-To or Sender header (RFC 5322 name-addr:
  ``From: "Ana Lima" <ana@example.org>``), quoted, bare or an RFC 2047 encoded word (``=?UTF-8?Q?...?=``, read
  decoded: the name in any script); a team or a service stands there too ("Acme Billing", "GitHub"), so the value
  must read as a name as above, and a single word must be a known name.
"""

from __future__ import annotations

import functools
import re
from email.errors import HeaderParseError
from email.header import decode_header

from presidio_analyzer import AnalysisExplanation, EntityRecognizer, RecognizerResult
from spacy.lang.en.stop_words import STOP_WORDS as ENGLISH_STOP_WORDS

from gateway.guardrails.name_cues import NameWords, names_a_group, ordinary_words
from gateway.guardrails.ner import UPPER_LETTERS
from gateway.guardrails.person_names import known_names
from gateway.guardrails.places import english_words
from gateway.guardrails.script_names import has_script_letters, script_person_names
from gateway.guardrails.standard_names import has_standard_name_slot, standard_names

HL7_SCORE = 0.85  # the segment's own field: as sure as NER's people
STANDARD_SCORE = 0.85  # an X12, SWIFT or ISO 20022 name slot: the standard says what it holds, as HL7's does
SCRIPT_SCORE = 0.7  # a given and a family name of the tables, in a script without capitals
TICKET_SCORE = 0.7
PROPERTY_SCORE = 0.7  # as sure as a form field's name (``fields``)
# Fields holding an XPN, per segment (1-based field numbers as HL7 counts them after the segment id).
_XPN_FIELDS = {"PID": (5, 6, 9), "NK1": (2,)}
_SEGMENT = re.compile(r"(?:^|(?<=[\r\n]))(PID|NK1)\|[^\r\n]*")  # segments end in "\r" (or a line break)
_NAME_COMPONENTS = 5  # family, given, middle, suffix, prefix
_LETTER = re.compile(r"[^\W\d_]")

_CAPITAL = UPPER_LETTERS  # capitals of every cased script: "ŁUCZAK/ŠIMON"
# FAMILY/GIVEN, each side capitals with inner hyphens or apostrophes, the given name up to three words (a title
# is one of them until it is cut off); no word or slash glued on either side (paths, "A/B/C" lists, dates) but a
# name element's passenger count before the family name ("1", or "1.1" as a display numbers it).
_TICKET = re.compile(
    rf"(?<![\w/.])(?P<count>\d{{1,2}}(?:\.\d{{1,2}})?)?(?P<family>[{_CAPITAL}]+(?:[-'’][{_CAPITAL}]+)*)/(?P<given>[{_CAPITAL}]+(?:[-'’][{_CAPITAL}]+)*"
    rf"(?:[ ][{_CAPITAL}]+(?:[-'’][{_CAPITAL}]+)*){{0,2}})(?![\w/])"
)
_TITLES = frozenset({"MR", "MRS", "MS", "MSTR", "MISS", "DR", "PROF", "CHD", "INF", "MME", "MLLE", "SR", "SRA", "HR",
                     "FR"})  # fmt: skip
_MIN_SIDE_LETTERS = 4
_MIN_GIVEN_LETTERS = 2  # what a glued title may leave: "LI/NAMR" is "LI/NA MR"
_MIN_UNTITLED_GIVEN_LETTERS = 3  # with no title, two capitals after a slash are a code ("VISA/MC", "MALE/FM")
_WORD = re.compile(r"[^\W\d_]+")


def has_record_name_anchor(text: str) -> bool:
    """The pre-filter: an HL7 name segment, a capital on each side of a slash, a name property's key, an X12, SWIFT
    or ISO 20022 name slot's marker, or a letter of a script without capitals that names are written in."""
    return (_has_hl7_segment(text) or _has_ticket_slash(text) or has_standard_name_slot(text)
            or has_script_letters(text) or _has_property_key(text) or _has_mail_header(text))  # fmt: skip


def _has_hl7_segment(text: str) -> bool:
    return "PID|" in text or "NK1|" in text


def _has_ticket_slash(text: str) -> bool:
    return _SLASH_BETWEEN_CAPITALS.search(text) is not None


def _has_property_key(text: str) -> bool:
    return any(marker in text for marker in _PROPERTY_MARKERS) and _PROPERTY_KEY.search(text) is not None


# The keys of name properties (see the module's docstring); a property's value runs to its line's end. Substrings
# first: a scan for them costs a small part of the regex's.
_PROPERTY_MARKERS = ("CN=", "cn=", "N:", "N;", "cn:", "displayName:", "givenName:", "sn:", "<v ", "<v.")
_PROPERTY_KEY = re.compile(r"(?im)^(?:FN|N|cn|displayName|givenName|sn)[;:]|CN=|<v[ .]")
_PARAMETER_CN = re.compile(  # an iCalendar property's CN parameter, quoted or not, before the next ';' or ':'
    r'(?im)^(?:ATTENDEE|ORGANIZER)(?:;[^\r\n]*?)?;CN=(?:"(?P<quoted>[^"\r\n]{1,80})"|(?P<bare>[^;:"\r\n]{1,80}))(?=[;:])'
)
_DN_CN = re.compile(r"(?i)(?<![\w-])cn=(?P<value>[^,+=\r\n]{1,80})(?=,[ \t]*(?:ou|o|dc|c|l|st)=)")
_LINE_VALUE = re.compile(  # vCard's FN (parameters allowed), LDIF's attributes ("::" is base64: not read)
    r"(?im)^(?:FN(?:;[^:\r\n]*)?|cn|displayName|givenName|sn):(?!:)[ \t]*(?P<value>[^\r\n]{1,80}?)[ \t]*\r?$"
)
_VOICE = re.compile(r"<v(?:\.[\w-]+)*[ \t]+(?P<value>[^<>\r\n]{1,80})>")  # classes after "v", then the name
_STRUCTURED_NAME = re.compile(r"(?m)^N(?:;[^:\r\n]*)?:(?P<family>[^;\r\n]*);(?P<given>[^;\r\n]*)")
_NAME_VALUE = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*\.?(?:[ ]+[^\W\d_]+(?:['’-][^\W\d_]+)*\.?){0,3}")
_MAX_PARTICLE_LETTERS = 3


@functools.cache
def _reader() -> NameWords:
    """Words read with English stop words and the NER model's dictionary (``places.english_words``)."""
    english, names = english_words(), known_names()
    return NameWords(frozenset(ENGLISH_STOP_WORDS), english.nouns | english.verbs | english.modifiers, names.is_name,
                     names.is_first)  # fmt: skip


def _reads_as_name(value: str) -> bool:
    """One to four capitalised words of letters (initials and short lower-case particles between them), that are a
    person's name rather than a group's, a room's or a host's."""
    if not _NAME_VALUE.fullmatch(value):
        return False
    words = [word.rstrip(".") for word in value.split()]
    if not (words[0][0].isupper() and words[-1][0].isupper()):
        return False
    if any(word.islower() and len(word) > _MAX_PARTICLE_LETTERS for word in words):
        return False
    reader = _reader()
    if len(words) == 1:
        return reader.is_name(words[0]) or not (reader.is_common(words[0]) or reader.is_stop(words[0]))
    return not ordinary_words(words, reader) and not names_a_group(words, reader)


def property_names(text: str) -> list[tuple[int, int]]:
    """[start, end) of each name in a calendar, contact or directory entry's name property."""
    spans = []
    for match in _PARAMETER_CN.finditer(text):
        group = "quoted" if match.group("quoted") is not None else "bare"
        if _reads_as_name(match.group(group).strip()):
            start = match.start(group) + len(match.group(group)) - len(match.group(group).lstrip())
            spans.append((start, start + len(match.group(group).strip())))
    for pattern in (_DN_CN, _LINE_VALUE, _VOICE):
        for match in pattern.finditer(text):
            value = match.group("value").rstrip()
            if _reads_as_name(value):
                spans.append((match.start("value"), match.start("value") + len(value)))
    for match in _STRUCTURED_NAME.finditer(text):
        family, given = match.group("family").strip(), match.group("given").strip()
        if family and _reads_as_name(family) and (not given or _reads_as_name(given)):
            spans.append((match.start("family"), match.end("given") if given else match.end("family")))
    return sorted(set(spans))


# A header line that names mailboxes, and in it each mailbox's display name before its address in angle brackets.
_MAIL_HEADER = re.compile(r"(?m)^(?:From|To|Cc|CC|Reply-To|Sender):[ \t]*(?P<value>[^\r\n]{1,1000})")
_MAILBOX = re.compile(
    r'(?:"(?P<quoted>[^"\r\n]{1,80})"|(?P<bare>[^\s"<>,:;@][^"<>,:;@\r\n]{0,199}?))[ \t]*<[^<>\s@]+@[^<>\s]+>'
)
_ENCODED_WORD = re.compile(r"=\?[\w-]+\?[QqBb]\?[^?\s]+\?=")
_CASELESS_NAME = re.compile(r"[^\W\d_]+(?:[ ][^\W\d_]+){1,3}")  # two to four words of a script without capitals


def _has_mail_header(text: str) -> bool:
    return "From:" in text  # every message has a From header: one substring scan, not one per header


def _decoded(value: str) -> str | None:
    """An RFC 2047 encoded word's text, or None where it does not decode."""
    try:
        parts = decode_header(value)
    except (HeaderParseError, ValueError):
        return None
    text = []
    for part, charset in parts:
        if isinstance(part, bytes):
            try:
                part = part.decode(charset or "ascii")
            except (LookupError, UnicodeDecodeError):
                return None
        text.append(part)
    return "".join(text).strip()


def _mailbox_name(value: str) -> bool:
    """Whether a mailbox's display name reads as a person's: two words or more that read as a name, or one that is
    a known name; in a script without capitals, two to four words of letters."""
    if " " not in value and not known_names().is_name(value):
        return False
    if _reads_as_name(value):
        return True
    return not any(char.isupper() or char.islower() for char in value) and _CASELESS_NAME.fullmatch(value) is not None


def mailbox_names(text: str) -> list[tuple[int, int]]:
    """[start, end) of each display name of a mailbox in an e-mail's From, To, Cc, Reply-To or Sender header."""
    spans = []
    for header in _MAIL_HEADER.finditer(text):
        for mailbox in _MAILBOX.finditer(text, header.start("value"), header.end("value")):
            group = "quoted" if mailbox.group("quoted") is not None else "bare"
            raw = mailbox.group(group)
            value = raw.strip()
            if not value:
                continue
            start = mailbox.start(group) + len(raw) - len(raw.lstrip())
            shown = _decoded(value) if _ENCODED_WORD.search(value) else value
            if shown and _mailbox_name(shown):
                spans.append((start, start + len(value)))
    return spans


_SLASH_BETWEEN_CAPITALS = re.compile(rf"/(?<=[{_CAPITAL}]/)[{_CAPITAL}]")


def hl7_names(text: str) -> list[tuple[int, int]]:
    """[start, end) of each person name in an XPN field of a PID or NK1 segment."""
    spans = []
    for segment in _SEGMENT.finditer(text):
        fields = segment.group().split("|")
        offsets = [segment.start()]
        for field in fields[:-1]:
            offsets.append(offsets[-1] + len(field) + 1)
        for number in _XPN_FIELDS[segment.group(1)]:
            if number >= len(fields):
                continue
            start = offsets[number]
            for repetition in fields[number].split("~"):
                components = repetition.split("^")[:_NAME_COMPONENTS]
                while components and not components[-1]:
                    components.pop()
                if components and _LETTER.search(components[0]):  # a family name: not "^^^" nor an id
                    spans.append((start, start + len("^".join(components))))
                start += len(repetition) + 1
    return spans


def _without_glued_title(word: str, counted: bool) -> str | None:
    """The given name left when a title is glued to its end ("HASSINMR" -> "HASSIN"), if what is left is a known
    first name or the element is a counted name element; else None ("AMIR" is a name, not "AMI" + "R")."""
    names = known_names()
    for title in sorted(_TITLES, key=len, reverse=True):
        rest = word[: -len(title)]
        if word.endswith(title) and len(rest) >= _MIN_GIVEN_LETTERS and (counted or names.is_first(rest)):
            return rest
    return None


def ticket_names(text: str) -> list[tuple[int, int]]:
    """[start, end) of each ``FAMILY/GIVEN`` name, its title left out: with a title after it, any pair with a side
    of four letters or more; without one, such a pair whose given side holds a known first name of three letters or
    more ("VISA/MC" is a code) and whose other side is no code (pairs of words: "LONG/SHORT", "READ/WRITE" hold last
    names, not first names after the slash)."""
    names = known_names()
    spans = []
    for match in _TICKET.finditer(text):
        given_words = match.group("given").split(" ")
        titled = len(given_words) > 1 and given_words[-1] in _TITLES
        while len(given_words) > 1 and given_words[-1] in _TITLES:
            given_words.pop()
        if not titled and not names.is_first(given_words[-1]):
            untitled = _without_glued_title(given_words[-1], counted=match.group("count") is not None)
            if untitled is not None:
                given_words[-1], titled = untitled, True
        given = " ".join(given_words)
        if max(len(match.group("family")), len(given)) < _MIN_SIDE_LETTERS:
            continue
        if titled or any(len(word) >= _MIN_UNTITLED_GIVEN_LETTERS and names.is_first(word)
                         for word in _WORD.findall(given)):  # fmt: skip
            spans.append((match.start("family"), match.start("given") + len(given)))
    return spans


class RecordNameRecognizer(EntityRecognizer):
    """PERSON: names in HL7 v2 name fields, in airline tickets' ``FAMILY/GIVEN`` form, in calendar, contact and
    directory entries' name properties, in X12, SWIFT MT and ISO 20022 name slots (``standard_names``), and names
    written in scripts without capitals (``script_names``)."""

    def __init__(self) -> None:
        super().__init__(supported_entities=["PERSON"], name="RecordNameRecognizer")

    def load(self) -> None:
        pass

    def analyze(self, text: str, entities: list[str], nlp_artifacts: object = None) -> list[RecognizerResult]:
        # Each reader only where its own anchor stands: a text of X12 segments or of Hebrew is read by their readers
        # alone, not by every reader the record pre-filter passes.
        results = []
        if _has_hl7_segment(text):
            results += [self._result(start, end, HL7_SCORE, "hl7 person name") for start, end in hl7_names(text)]
        if _has_ticket_slash(text):
            results += [self._result(start, end, TICKET_SCORE, "ticket name") for start, end in ticket_names(text)]
        if _has_property_key(text):
            results += [self._result(start, end, PROPERTY_SCORE, "name property")
                        for start, end in property_names(text)]  # fmt: skip
        if _has_mail_header(text):
            results += [self._result(start, end, PROPERTY_SCORE, "mailbox name") for start, end in mailbox_names(text)]
        results += [
            self._result(start, end, STANDARD_SCORE, "standard name slot") for start, end in standard_names(text)
        ]
        results += [self._result(start, end, SCRIPT_SCORE, "script name") for start, end in script_person_names(text)]
        return results

    def _result(self, start: int, end: int, score: float, name: str) -> RecognizerResult:
        return RecognizerResult("PERSON", start, end, score, AnalysisExplanation(self.name, score, pattern_name=name))
