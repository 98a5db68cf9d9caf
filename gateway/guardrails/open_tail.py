"""Where an entity could still be in the middle of being written, at the end of a streamed text.

A streamed completion is redacted before it leaves, but the end of the text so far may be the first half of an
e-mail address or a card number that is not recognisable yet. The output redactor must hold back at least from the
earliest position where such an entity could have begun; everything before it can leave now. A fixed window
(``holdback_chars``) holds back ~30 tokens of every stream; most of the time the only open candidate is the word
being written.

``open_entity_start`` answers for every pattern detector of ``recognizers.build_detectors`` at once, on the text as
the detectors read it (``normalize.reader_view``). Each rule below describes, generously, every *prefix* of what its
detectors can match: a superset costs a few held characters, a gap would let the start of a value leave before the
value is recognised. tests/guardrails/test_guard_open_tail.py checks the rules against every finding of the PII test
set and the agentic corpus, at every prefix length. Output deny-patterns are arbitrary regexes: policies with them
keep the fixed window.

NER entities (PERSON, LOCATION) depend on context in both directions. The analyser runs NER only on windows of
``ner.WINDOW_MARGIN`` characters around capitalised words, widened to whitespace, so ``name_context_start`` holds
back what a window around a word not yet whole could still read: from ``WINDOW_MARGIN`` characters before the word
being written. spaCy's small NER reads about four tokens either side of each token, within that reach.
"""

from __future__ import annotations

import re
from bisect import bisect_left

from gateway.guardrails.addresses import street_words_regex, usps_suffixes_regex
from gateway.guardrails.credentials import CREDENTIAL_WORDS, LOGIN_WORDS
from gateway.guardrails.ner import LOWER_LETTERS, UPPER_LETTERS
from gateway.guardrails.normalize import reader_view
from gateway.guardrails.places import CONNECTORS, MAX_NAME_WORDS
from gateway.guardrails.recognizers import CLOSE_BRACKET, CONTEXT_AFTER_CHARS, MONTH_NAMES, OPEN_BRACKET

# The token being written (a run without whitespace, as normalize folds look-alikes per token): whether its
# look-alikes read as Latin is only settled once it is whole ("а::" is Cyrillic until ASCII joins it, then an IPv6).
_LAST_RUN = r"(?<!\S)\S+"

# E-mail addresses, literal ("dana.k@example.org") or obfuscated ("dana dot k [at] example dot org"): a chain of
# atoms joined by at- and dot-markers reaching the end, possibly ending on a marker or on the start of one (" d",
# " [a"). Atoms take every character either e-mail recognizer allows in a local part or a label, '@' and '.'
# included, so a literal address is one atom: at the least, the word being written is always held.
_ATOM = r"[\w!#$%&'*+/=?^`{|}~.@-]+"
_MARK = rf"(?:\s*{OPEN_BRACKET}\s*(?:at|dot|@|\.)\s*{CLOSE_BRACKET}\s*|\s+(?:at|dot)\s+|\s*@\s*)"
_PARTIAL_MARK = rf"(?:\s*{OPEN_BRACKET}\s*(?:a|at|@|d|do|dot|\.)?\s*|\s+(?:a|at|d|do|dot|@)?\s*)?"
# A chain never starts inside an atom: a chain starting one character earlier (or at the searched slice's start)
# would reach the end as well.
_EMAIL = rf"(?<![\w!#$%&'*+/=?^`{{|}}~.@-]){_ATOM}(?:{_MARK}{_ATOM})*(?:{_MARK}|{_PARTIAL_MARK})"

# A context word may follow a value in its clause ("12-19-1960 is his birthday", "... is the deploy token"): the
# value is held until the clause ends or CONTEXT_AFTER_CHARS have followed it.
_CLAUSE_ON = rf"(?:(?!\.\s)[^,;:!?\n]){{0,{CONTEXT_AFTER_CHARS}}}"

# Digit-based values: cards (grouped or digit by digit), SSNs, phone numbers (digits, spaces, brackets, dots,
# dashes; a '+' or bracket before, alone at the end too), IPv4 addresses, numeric dates, digits spelled one at a time
# with any of the spelled-run separators. Then up to 6 characters of anything (what decides a value's end is at most
# a few characters after its last digit: a word boundary, a glued letter, an extension the phone matcher's window
# reaches), or, after six digits or more, the rest of the clause (a context word after the value).
_DIGIT_RUN_CHARS = r"\s().\-/_|*\u00b7\u2022+\[\]{}~#x"
_DIGITS_ON = rf"\d[\d{_DIGIT_RUN_CHARS}]*.{{0,6}}|\d(?:[{_DIGIT_RUN_CHARS}]*\d){{5,}}{_CLAUSE_ON}"
_NUMERIC = rf"[+(\[{{][\s+(\[{{]{{0,3}}(?:{_DIGITS_ON})?|{_DIGITS_ON}"

# IBANs: a country code, check digits, then groups of capitals and digits with single spaces or dashes (up to 34
# characters), which also covers national ids that open with capitals ("AB 12 34 56 C"); or all in lower case, the
# code glued to its check digits ("de89 3704 ...").
_IBAN = (r"(?-i:(?<![A-Z0-9])[A-Z]{2}[ -]?\d(?:[ -]?[A-Z0-9]){0,40}[ -]?"
         r"|(?<![a-z0-9])[a-z]{2}\d(?:\d(?:[ -]?[a-z0-9]){0,40}[ -]?)?)")
# A Spanish NIE: one letter, then its digits and check letter, dashed or spaced ("X-1234567-L").
_NIE = r"(?<![\w])[XYZ][ -](?:\d[\d -]*[A-Z]?)?"

# Place names of several words, capitalised ("Rio de Janeiro", "San Fr"): the name so far, with its connectors.
_CAPITALISED = rf"[{UPPER_LETTERS}][{UPPER_LETTERS}{LOWER_LETTERS}'’.-]*"
_CONNECTOR = "(?:" + "|".join(sorted(CONNECTORS)) + ")"
_PLACE = rf"(?-i:(?<!\w){_CAPITALISED}(?:[ -]+(?:{_CONNECTOR}[ -]+)*{_CAPITALISED}){{0,{MAX_NAME_WORDS - 1}}}" \
         rf"(?:[ -]+(?:{_CONNECTOR}[ -]*)*)?)"

# Credentials: a credential-named key with its quoted value not yet closed (the value may hold spaces), from the
# key; and a private key block from its BEGIN line (or the start of one) until its END line is whole.
_KEYED_VALUE = rf"(?:{LOGIN_WORDS}|{CREDENTIAL_WORDS})[\w.-]*[\"']?\s*(?::=|=>|[:=]|\s+is)\s*[\"'][^\"'\r\n]*"
_PEM = (r"-----BEGIN(?:[A-Z0-9 ]*-{0,5}|[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"
        r"(?:(?!-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----)[\s\S])*)")

# IPv6 addresses start with a hex group or ':' (after no word character or colon, as Presidio's patterns) and hold
# no whitespace ("fe80::1ff:fe23:4567:890a%eth0", "::ffff:192.0.2.1/96").
_IPV6 = r"(?<![\w:])[0-9A-Fa-f:][\w:.%/]*"

# Street addresses in addresses.py's layouts, with its street-type words of every Faker locale and USPS's suffix
# abbreviations: a house number and a direction, then up to four words (three and the suffix) being written, or a
# whole street with what may follow its suffix (", Apt 4B", ", Suite #1200", "St. Apt 4"); a street-type word written
# first ("Via Chittolini, 725 Piano 6", "ul. Baczyńskiego 34/47") with up to four words, its number and a unit; a type
# glued to the name ("Eberthstr. 68").
_STREET = (
    rf"\b\d{{1,6}}(?:\s+[NSEW]\.?)?"
    rf"(?:(?:\s+[\w'’-]*){{0,4}}|(?:\s+[\w'’-]+){{1,3}}\s+(?:{street_words_regex('suffixes')}|{usps_suffixes_regex()})\b\.?"
    rf"[\s,.#\w]{{0,20}})"
    rf"|\b\d{{1,6}},(?:\s+\w*)?|\b\d{{1,6}},\s+(?:{street_words_regex('prefixes')})\.?(?:\s+[\w'’-]*){{0,4}}"
    rf"|(?<!\w)(?:{street_words_regex('prefixes')})\.?(?:\s+[\w'’-]*){{0,4}},?(?:\s+\d[\w/-]*[\s,.#\w]{{0,20}})?"
    rf"|(?<!\w)[\w'’-]*?(?:{street_words_regex('glued')})\.?\s*(?:\d[\w/-]*)?"
)

# Dates of birth in words: "March 3rd, 1990" (a month, then a day and a year) and "3 March 1990" (a day, a word).
_MONTH = rf"\b(?:{MONTH_NAMES})\.?(?:\s+(?:\d[\w,\s]{{0,13}}|\d[\w,\s]{{0,9}}\d{{4}}{_CLAUSE_ON})?)?"
_DAY_MONTH = (rf"\b\d{{1,2}}[A-Za-z]{{0,2}}\.?\s+(?:de\s+)?\w{{0,10}}\.?,?"
              rf"(?:\s+(?:de\s+|de?)?(?:\d{{0,3}}|\d{{4}}{_CLAUSE_ON}))?")
# A generated-looking token with a credential word maybe still to come in its clause ("... is the deploy token").
_TOKEN_THEN_CLAUSE = rf"(?<![A-Za-z0-9+/_=-])[A-Za-z0-9+/_=-]{{32,128}}{_CLAUSE_ON}"

_RULES = (_LAST_RUN, _EMAIL, _NUMERIC, _IBAN, _NIE, _IPV6, _STREET, _MONTH, _DAY_MONTH, _PLACE, _KEYED_VALUE, _PEM,
          _TOKEN_THEN_CLAUSE)
_OPEN_TAIL = re.compile("(?:" + "|".join(f"(?:{rule})" for rule in _RULES) + r")\Z", re.IGNORECASE)


def open_entity_start(text: str, begin: int = 0) -> int:
    """The earliest index at or after ``begin`` where an entity some pattern detector could match may have started
    and not yet ended at the end of ``text``; ``len(text)`` when none can. ``text`` is raw: the rules read its
    reader view, and the index is mapped back to the raw character the view's character came from."""
    view = reader_view(text)
    # The view's first character at or after raw ``begin`` (origins only grow: the view drops or folds characters).
    start = begin if view.origin is None else bisect_left(view.origin, begin)
    # Searched in the slice, not from ``pos``: at the slice's start the rules' lookbehinds and word boundaries see
    # nothing before, so a match may begin right at ``begin`` (generous), and a window cut that falls inside a word
    # cannot hide the word's start from the rule that needs it.
    match = _OPEN_TAIL.search(view.text[start:])
    if match is None or start + match.start() == len(view.text):
        return len(text)
    found = start + match.start()
    return found if view.origin is None else view.origin[found]


def name_context_start(text: str, begin: int, margin: int) -> int:
    """The earliest index at or after ``begin`` that a NER window around a word not yet whole could read: ``margin``
    characters before the start of the trailing whitespace-free run (the word being written, or the end after
    whitespace), widened to whitespace as the windows are; ``len(text)`` when that is the end."""
    word = len(text)
    while word > begin and not text[word - 1].isspace():
        word -= 1
    start = max(begin, word - margin)
    while start > begin and not text[start - 1].isspace():
        start -= 1
    return start
