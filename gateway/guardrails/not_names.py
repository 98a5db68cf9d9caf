"""PERSON and LOCATION findings that stand in shapes no person's or place's name takes, dropped after every rule ran.

The NER models, the gazetteer and the name rules read a capitalised word as a name wherever it stands; names-dataset
lists "Bill", "Thu" and "Parker" as names, so the "holds a known name" check confirms them. The shape around the
finding tells a label, a date, a company or a business from a name, whatever detector reported it:

- a business named after its street ("King Street Dental", "Mill Lane Vets"): no person and no place inside it;
- a form's field label, a capitalised word and a preposition before a colon ("Bill to:", "Ship from:");
- a weekday, or its abbreviation, before a day's number ("Thu, 11 Jan 2024", "Mo. 3.4."): a date, not a person;
- a company: a person before a legal form ("Parker LLC", "Weber GmbH", "Barbier & Partners") or holding one;
- a key or column name: two words or more ending in a header noun ("Created Date", "Lead Source");
- an elided article before a lower-case word ("l'accord-cadre", "dell'assicurazione") in text with capitals.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache

from gateway.guardrails.dates import MONTH_LOCALES, is_month_word, weekday_names
from gateway.guardrails.findings import Finding

_NAME_TYPES = ("PERSON", "LOCATION")
_WORD = re.compile(r"[^\W\d_]+")

# A street word after one to four capitalised words, then a capitalised word, all on one line and in one table cell
# (spaces only: "Mill Lane<TAB>Kingston" is a street and its town): a business named after its street ("Church Street
# Deli"). Bounded: a long run of capitalised words costs
# each start a few words, not the run.
_STREET_BUSINESS = re.compile(
    r"(?<![\w-])(?:[A-Z][\w'’-]*[ ]+){1,4}(?:Street|Avenue|Road|Lane|Boulevard)[ ]+[A-Z][a-z]+(?![\w-])"
)
_STREET_WORD = re.compile(r"(?:Street|Avenue|Road|Lane|Boulevard)[ ]+[A-Z]")
_BUSINESS_REACH = 80  # characters either side of a finding searched for the run that holds it
_HOUSE_NUMBER_BEFORE = re.compile(r"(?<![\w./:-])\d{1,5}[A-Za-z]?,?[ ]+\Z")

# Prepositions of a form's labels ("Bill to:", "Ship from:", "Paid by:", "Liefern an:", "Envoyé à:").
_LABEL_AFTER = re.compile(r"[ \t]+(?:to|from|for|by|at|of|an|von|für|à|pour|para)[ \t]*:")

# A date after a weekday: its day and a month's name or number ("Thu, 11 Jan", "Mo. 3.4.", "sáb 12 de octubre").
# A bare number is no date ("Sam, 25, joined").
_DATE_AFTER = re.compile(r"\.?,?[ \t]*(?:0?[1-9]|[12]\d|3[01])(?:[./-]\d|\.?[ \t]+(?:de[ \t]+)?([^\W\d_]+))")
_WEEKDAY_ABBREVIATION_LETTERS = range(2, 5)  # "Mo", "Thu", "Thur", "Tues"
_WEEKDAY_LOCALES = (*MONTH_LOCALES, "pl_PL")

# Legal forms written after a company's name, with or without a comma ("Acme, Inc.", "Brandt GmbH"); the words that
# also title a person's role ("Anna Gruber, Company Secretary", "Group CFO") only without one.
_LEGAL_FORMS = (r"GmbH|AG|KG|OHG|Inc|Ltd|LLC|LLP|PLC|plc|Corp|S\.?A\.?S?|S\.?L|S\.?p\.?A|S\.?r\.?l|B\.?V|N\.?V|Oy|"
                r"AB|AS|A/S|Sp\.?[ ]z[ ]o\.?o")  # fmt: skip
_COMPANY_AFTER = re.compile(rf"[ \t]*,?[ \t]*(?:{_LEGAL_FORMS})(?![\w-])"
                            r"|[ \t]+(?:Company|Corporation|Group|Holdings?|Co)\b"
                            r"|[ \t]*&[ \t]*(?:Sons|Partners|Associates|Co)\b")  # fmt: skip
# Words of a company's name that no person's name holds (case-folded).
_COMPANY_WORDS = frozenset({"llc", "gmbh", "inc", "ltd", "plc", "corp", "sons", "partners", "associates", "holdings"})

# Nouns that end a key or column name: a person's name ending in one is a header ("Created Date", "Lead Source").
_HEADER_NOUNS = frozenset({"date", "name", "number", "source", "type", "status", "code", "id", "address", "email",
                           "phone"})  # fmt: skip

# Elided articles and prepositions of French and Italian ("l'", "d'", "dell'", "nell'", "qu'").
_ELIDED_LOWER = re.compile(r"(?i:l|d|dell|dall|nell|sull|all|un)['’][a-zà-ÿ][^A-ZÀ-Þ]*\Z")


def without_non_names(text: str, findings: list[Finding]) -> list[Finding]:
    """The findings less the PERSON and LOCATION ones that stand in a shape no name takes (the module's list)."""
    if not any(f.entity_type in _NAME_TYPES for f in findings):
        return findings
    capitals = not text.islower()
    streets = _STREET_WORD.search(text) is not None  # most texts name no street: their findings skip that search
    return [f for f in findings if f.entity_type not in _NAME_TYPES or not _not_a_name(text, f, capitals, streets)]


def _not_a_name(text: str, finding: Finding, capitals: bool, streets: bool) -> bool:
    if streets and in_street_business(text, finding.start, finding.end):
        return True
    if finding.entity_type != "PERSON":
        return False
    words = _WORD.findall(text, finding.start, finding.end)
    return (is_form_label(text, finding.end) or is_weekday_before_date(text, finding.end, words)
            or is_company(text, finding.end, words) or is_header(words)
            or (capitals and _ELIDED_LOWER.match(text, finding.start, finding.end) is not None))  # fmt: skip


def in_street_business(text: str, start: int, end: int) -> bool:
    """Whether start..end lies in a business named after a street ("King Street Dental"): a street with no house
    number before it ("12 Mill Lane Kingston" is an address and its town)."""
    for match in _STREET_BUSINESS.finditer(text, max(0, start - _BUSINESS_REACH), end + _BUSINESS_REACH):
        if match.start() > start:
            return False
        if end <= match.end() and not _HOUSE_NUMBER_BEFORE.search(text, max(0, match.start() - 12), match.start()):
            return True
    return False


def is_form_label(text: str, end: int) -> bool:
    """Whether a preposition and a colon follow: a form's field label ("Bill to:", "Ship from:")."""
    return _LABEL_AFTER.match(text, end, end + 12) is not None


def is_weekday_before_date(text: str, end: int, words: list[str]) -> bool:
    """Whether the words are weekdays or their abbreviations ("Thu", "Mi.", "sáb") and a day's number follows."""
    if not words or not all(_fold(word) in weekday_words() for word in words):
        return False
    date = _DATE_AFTER.match(text, end, end + 24)
    return date is not None and (date.group(1) is None or is_month_word(date.group(1)))


def is_company(text: str, end: int, words: list[str]) -> bool:
    """Whether a legal form follows ("Parker LLC", "Weber GmbH", "Barbier & Partners") or one is inside."""
    return (any(word.casefold() in _COMPANY_WORDS for word in words)
            or _COMPANY_AFTER.match(text, end, end + 16) is not None)  # fmt: skip


def is_header(words: list[str]) -> bool:
    """Whether two words or more end in a header noun ("Created Date", "Lead Source"): a key, not a name."""
    return len(words) >= 2 and words[-1].casefold() in _HEADER_NOUNS


@cache
def weekday_words() -> frozenset[str]:
    """Weekday names of English and the calendar locales (Faker's), folded, with their abbreviations: the first two
    to four letters ("mo", "thu", "thur", "mié", "czw")."""
    words = set()
    for name in weekday_names(_WEEKDAY_LOCALES):
        folded = name.casefold()
        for form in (folded, _fold(folded)):
            words.add(form)
            words.update(form[:letters] for letters in _WEEKDAY_ABBREVIATION_LETTERS if len(form) > letters)
    return frozenset(words)


def _fold(word: str) -> str:
    """Case-folded, without diacritics ("Mié" -> "mie")."""
    decomposed = unicodedata.normalize("NFD", word.casefold())
    return "".join(char for char in decomposed if not unicodedata.combining(char))
