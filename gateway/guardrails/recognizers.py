"""Warden's pattern detectors: Presidio recognizers behind cheap pre-filters, plus Warden's own recognizers.

Presidio's AnalyzerEngine runs the full spaCy pipeline over the whole text and then every recognizer, even on text
that cannot contain the entity (no '@' means no e-mail address). Here each recognizer sits behind a pre-filter that
is a substring test or one small regex, and context words are checked on a short window of raw text instead of on
spaCy lemmas, so a prompt of code or prose with no candidates costs a handful of regex scans.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import phonenumbers
import tldextract
from presidio_analyzer import AnalysisExplanation, EntityRecognizer, Pattern, RecognizerResult
from presidio_analyzer.predefined_recognizers import IpRecognizer, UsSsnRecognizer

from gateway.guardrails.addresses import StreetAddressRecognizer
from gateway.guardrails.cards import CardRecognizer, card_network
from gateway.guardrails.cldr_dates import CLDR_DATE_ANCHOR, CldrDateOfBirthRecognizer
from gateway.guardrails.code_names import CodeNameRecognizer, has_code_names
from gateway.guardrails.columns import clause_after, column_name, may_have_columns
from gateway.guardrails.credentials import SecretRecognizer
from gateway.guardrails.date_traditions import (
    CALENDAR_ANCHORS,
    CALENDAR_PATTERNS,
    TRADITION_ANCHORS,
    TRADITION_PATTERNS,
    RecordDateOfBirthRecognizer,
    TelexDocsRecognizer,
    has_docs_element,
    has_record_birth_field,
    may_hold_tradition_anchor,
)
from gateway.guardrails.datelines import DatelineRecognizer
from gateway.guardrails.dates import (
    BIRTH_YEAR,
    DATE_ALONE,
    MONTH_FIRST_LETTERS,
    MONTH_NAMES_AFTER_FIRST,
    WEAK_PATTERNS,
    YEAR,
    DateOfBirthRecognizer,
    FarCueDateOfBirthRecognizer,
    follows_death_cue,
    has_birth_word,
)
from gateway.guardrails.dates import MONTH_NAMES as MONTH_NAMES  # open_tail reads it here
from gateway.guardrails.dicom_records import DICOM_ENTITIES, DicomRecognizer, has_dicom
from gateway.guardrails.edi_records import EDIFACT_ENTITIES, EdifactRecognizer, has_edifact
from gateway.guardrails.emails import AnchoredEmailRecognizer
from gateway.guardrails.era_dates import EraDateOfBirthRecognizer, has_era_date
from gateway.guardrails.fields import FieldValueRecognizer
from gateway.guardrails.findings import Finding
from gateway.guardrails.gedcom import GEDCOM_ENTITIES, GedcomRecognizer, has_gedcom
from gateway.guardrails.identifiers import IbanCodeRecognizer, NationalIdRecognizer
from gateway.guardrails.mrz import MRZ_ENTITIES, MachineReadableZoneRecognizer, has_zone
from gateway.guardrails.offline import configure_offline
from gateway.guardrails.personal_ids import PersonalIdRecognizer, may_hold_personal_id
from gateway.guardrails.phones import CONTEXT as PHONE_CONTEXT
from gateway.guardrails.phones import CONTEXT_RESTS as PHONE_CONTEXT_RESTS
from gateway.guardrails.phones import NATIONAL_REGIONS, PhoneNumberRecognizer
from gateway.guardrails.places import PlaceRecognizer
from gateway.guardrails.prefilters import PerText, any_regex, any_word, case_partners, has_regex
from gateway.guardrails.record_names import RecordNameRecognizer, has_record_name_anchor
from gateway.guardrails.spoken_dates import SPOKEN_DATE_ANCHOR, SPOKEN_DATE_PATTERNS
from gateway.guardrails.windows import add_window

# Presidio's defaults for context enhancement (LemmaContextAwareEnhancer): +0.35, and at least 0.4 with context.
CONTEXT_BOOST = 0.35
MIN_SCORE_WITH_CONTEXT = 0.4
MAX_SCORE = 1.0  # a score context cannot raise: max(min(1.0, 1.0 + CONTEXT_BOOST), MIN_SCORE_WITH_CONTEXT)
CONTEXT_WINDOW_CHARS = 48
# After the value, a context word is looked for closer and in the same clause only: a sentence names what it just
# wrote ("... is his birthday"); past a comma or a full stop, a word belongs to the next value.
CONTEXT_AFTER_CHARS = 32


# Every IP address holds a dotted quad, a "::" or (IPv6 written in full) eight hex groups: the anchor. A looser one
# (any "hex:hex") anchored every clock time of a log ("19:49:04") and ran Presidio's IPv6 pattern over most of it.
_IP_ANCHOR = r"\d{1,3}(?:\.\d{1,3}){3}|::|[0-9a-fA-F]{1,4}(?::[0-9a-fA-F]{1,4}){7}"
# Whether the anchor occurs, each of its shapes searched alone and opening with what the regex engine skips to (a
# digit, a colon): the alternation is tried at every hex letter of prose. The full form is looked for from its first
# colon with one hex digit before it, which holds wherever the anchor's own form does; the dotted quad from its first
# dot with one digit before it (a text's digits are many, its dots few: from every digit the scan cost 25 times more).
_IP_ANCHOR_PARTS = (r"\.(?<=\d\.)\d{1,3}\.\d{1,3}\.\d", "::",
                    r":(?<=[0-9a-fA-F]:)[0-9a-fA-F]{1,4}(?::[0-9a-fA-F]{1,4}){6}")
# Three digits, or two pairs apart ("\d{3}|\d{2}[ .-]\d{2}"), written to open with one digit: an alternation is tried at
# every position of a text, a pattern that opens with a class only where the class holds.
_NATIONAL_ID_DIGITS = r"\d\d(?:\d|[ .-]\d\d)"
# The card and SSN pre-filters' digit chains, written out step by step: the regex engine takes a counted group's
# repeats ("(?:[ -]?\d){11,}", "\d{3}") two to three times slower than the same steps one after the other, from every
# digit of a text. Only whether a chain occurs is asked, so a card's "{11,}" is "{11}", and it is looked for from a
# chain's first digit only (no digit, nor a digit and a separator, before it): a chain of twelve digits from any digit
# is one from the first digit of its chain as well.
_CARD_DIGITS = r"\d(?<!\d\d)(?<!\d[ -]\d)" + r"[ -]?\d" * 11  # r"\d(?:[ -]?\d){11,}"
_SSN_DIGITS = r"\d\d\d[- .]?\d\d[- .]?\d\d\d\d"  # r"\d{3}[- .]?\d{2}[- .]?\d{4}"
# An IBAN's country code and check digits (a word's first two letters, two digits), looked for from the check
# digits: the regex engine skips to digits, and letters fill most of a text.
_IBAN_HEAD_ANCHOR = r"\d(?<=(?<!\w)[A-Za-z]{2}\d)\d"
# Whether any of the three chains occurs, in one search: each opens with a digit, so their alternation after it
# stops at each of a text's digits once (~200 in a 2 KB prompt) instead of three times; a text with none (most)
# asks no more, and one with any searches for each chain as before.
_ANY_DIGIT_CHAIN = (
    r"\d(?:" + "|".join(chain.removeprefix(r"\d") for chain in (_IBAN_HEAD_ANCHOR, _SSN_DIGITS, _CARD_DIGITS)) + ")"
)


def _digit_chains(chains: tuple[str, ...]) -> tuple[Callable[[str], bool], ...]:
    """The pre-filters of ``chains`` (each a pattern that opens with a digit), each asking first whether
    ``_ANY_DIGIT_CHAIN`` occurs: answered once per text for all of them (``PerText``)."""
    any_chain = PerText(has_regex(_ANY_DIGIT_CHAIN))

    def after_any(chain: str) -> Callable[[str], bool]:
        occurs = has_regex(chain)
        return lambda text: any_chain(text) and occurs(text)

    return tuple(after_any(chain) for chain in chains)


# Where a date pattern has its year: opening an ISO date ("1985-03-04", not a log's "2026-01-27T19:49:04") or a
# year-first date with slashes or dots ("1985/03/04"), or closing a date after a separator, a space or a comma
# ("04/03/1985", "March 4, 1985"), or opening a year-first date with its year's full stop and a space or with the
# kanji for year ("1952. szeptember 23.", "1980年8月25日"); never inside the digits of a card, phone or hash.
# Each shape's look-behind is read after the century's two digits, which all three open with, so the regex engine
# skips straight to a "19" or "20" (the same matches as the look-behinds written first).
_YEAR_ANCHOR = (r"(?:19|20)(?:(?<!\w\d\d)\d\d-[01]\d-[0-3]\d(?!\w)"
                r"|(?<![\w/.]\d\d)\d\d([/.])[01]?\d\1[0-3]?\d(?![\w/]|\.\d)"
                r"|(?<=[/.\-\s,]\d\d)\d\d(?![\w-])"
                r"|(?<![\w.]\d\d)\d\d\.\s|(?<!\d\d\d)\d\d\s?年)")
# Where the weak shapes of a date of birth (``dates.WEAK_PATTERNS``) are: an ISO date with its time, eight digits
# standing alone, a two-digit year after a day and a month ("04/03/85") or written "'85"; looked for in texts with a
# birth word only. Every shape opens with a digit or a space: that first character is read by one class, which the
# regex engine skips straight to, and each shape's look-behinds and its first character's own test are read after
# it (a year of birth's "19" or "200"; the same matches as the shapes' alternation written plainly: the "'85" after
# a space, tried first here, can never start where the others do).
_BIRTH_YEAR_AFTER_FIRST_DIGIT = r"(?:(?<=1)9\d\d|(?<=2)00\d)"  # ``dates.BIRTH_YEAR`` less its first digit
_WEAK_DATE_ANCHOR = (r"[\d\s](?:(?<=\s)['’]\d\d(?![\w'’])"
                     rf"|(?<=\d)(?:(?<!\w\d){_BIRTH_YEAR_AFTER_FIRST_DIGIT}-[01]\d-[0-3]\dT\d"
                     rf"|(?<![\w.+-]\d){_BIRTH_YEAR_AFTER_FIRST_DIGIT}[01]\d[0-3]\d(?![\w-]|\.\d)"
                     r"|(?<![\w./:-]\d)(?:(?<=[0-3])\d)?([/.-])[0-3]?\d\1\d\d(?![\w/:-]|\.\d)))")
# Where the shapes of ``_UNPADDED_DATE_PATTERNS`` are: a month name and the year after it, and an ISO date with a
# one-digit month or day. Each is searched apart from the anchor above: one alternation of all three scans a text
# at about the sum of the three's costs plus a half, and the ISO one, led by its year's digits, is skipped through
# fast on its own. A month name starts after a digit ("03MAY1984") or a non-letter, never inside a word. Its first
# letter is read by a case-sensitive class of every letter a name opens with in any case (``case_partners``), which
# the regex engine skips to, and the look-behind and the name's other letters after it (``dates.month_pattern``):
# the same matches as ``(?i:(?<![^\W\d_])(?:{MONTH_NAMES}))`` first, which the engine tries at every position.
_MONTH_OPENINGS = "".join(re.escape(char) for char in case_partners(MONTH_FIRST_LETTERS))
_MONTH_YEAR_ANCHOR = (rf"[{_MONTH_OPENINGS}](?<![^\W\d_][\s\S])(?i:{MONTH_NAMES_AFTER_FIRST})"
                      r"(?:\.?,?(?:\s+(?:del?\s+)?|[-/])\d\d|\d\d(?:\d\d)?)(?![\w'’-]|[.,:/]?\d)")
_UNPADDED_ISO_ANCHOR = rf"{BIRTH_YEAR}-[01]?\d-[0-3]?\d(?![\w/:-]|\.\d)"
_DAY_NUMBER = r"(?:0?[1-9]|[12]\d|3[01])"
# Dates of birth as forms and records write them in short, each a birth date only with a birth word, like the weak
# shapes (0.2 alone): a day, a month name and a two-digit year with no apostrophe ("3 mai 84", "3-May-84",
# "3 de mayo del 84"), a day, a month name and a year run together ("03MAY1984", as passports and airline
# records print them), and an ISO date with a one-digit month or day ("1984-5-3"; the padded one is a strong shape).
_UNPADDED_DATE_PATTERNS = [
    Pattern("date d month yy",
            rf"(?<![\w./:-]){_DAY_NUMBER}\.?(?:\s+(?:de\s+|of\s+)?|[-/])(?:{MONTH_NAMES})\.?,?(?:\s+(?:del?\s+)?|[-/])"
            r"\d{2}(?![\w'’-]|[.,:/]?\d)", 0.2),
    Pattern("date dMONyyyy", rf"(?<![\w.-]){_DAY_NUMBER}(?:{MONTH_NAMES})(?:{YEAR}|\d{{2}})(?![\w-])", 0.2),
    Pattern("date iso unpadded",
            rf"(?<![\w./:+-]){BIRTH_YEAR}-(?:[1-9]-{_DAY_NUMBER}|(?:0[1-9]|1[0-2])-[1-9])(?![\w/:-]|\.\d)", 0.2),
]  # fmt: skip


# Values written one digit at a time: "4 1 1 1 1 1 ...", "4-1-1-1-...", "4.1.1.1...". Each digit stands alone,
# with exactly one separator character between it and the next (the reader view has already dropped invisible ones
# and folded full-width digits and dash look-alikes). No comma: "[4,1,1,...]" is a JSON array of small numbers.
_DIGIT_SEP = r"[ \t\-./_|*\u00b7\u2022]"
# Ten single digits in a row: the pre-filter. A run as far as it goes: its edges are checked in Python
# (``_is_whole_run``); lookbehinds for them in the regex, tried at every position, made the scan 2.5x slower. Written
# out step by step: the regex engine takes a counted group's repeats slower than the same steps one after the other
# (``_CARD_DIGITS``).
SPELLED_DIGITS = re.compile(r"\d" + rf"{_DIGIT_SEP}\d" * 9)
_SPELLED_RUN = re.compile(rf"\+?\d(?:{_DIGIT_SEP}\d){{9,}}")
# An IBAN written the same way starts with its country code: "B E 3 1 0 4 ...". Its digits are no card (nor phone).
# Only the countries whose IBAN is all digits after the code and 13-19 of them (15-21 characters long) matter;
# the others' runs fail the length. A bare "CC" or "MC" (card words) is no such code.
_SHORT_NUMERIC_IBAN_COUNTRIES = ("AT", "BA", "BE", "CH", "DK", "EE", "FI", "FO", "GL", "HR", "LI", "LT", "NO", "SI",
                                 "XK")  # fmt: skip
_SPELLED_IBAN_HEAD = re.compile(
    r"(?<![A-Za-z])(?:" + "|".join(f"{code[0]}{_DIGIT_SEP}?{code[1]}" for code in _SHORT_NUMERIC_IBAN_COUNTRIES)
    + rf"){_DIGIT_SEP}?\Z"
)


def _spelled_runs(text: str, min_digits: int, max_digits: int) -> list[tuple[re.Match[str], str]]:
    """Each run of single digits with ``min_digits`` to ``max_digits`` digits, with its digits alone; not the digits
    of a spelled IBAN."""
    runs = []
    for match in _SPELLED_RUN.finditer(text):
        digits = "".join(char for char in match.group() if char.isdigit())
        if not min_digits <= len(digits) <= max_digits or not _is_whole_run(text, match.start(), match.end()):
            continue
        if not _SPELLED_IBAN_HEAD.search(text, max(0, match.start() - 4), match.start()):
            runs.append((match, digits))
    return runs


def _is_whole_run(text: str, start: int, end: int) -> bool:
    """Whether the run stands alone: not glued to a word, a '+' or a longer number on either side ("14 1 1 ...",
    "... 1 1 12" and "v4.1.1..." are no runs of single digits; a separator and a digit on either side would have
    been part of the run), and not an array as numpy prints one ("[4 1 1 1 ...]", a row of "[[...]]")."""
    before = text[start - 1] if start > 0 else " "
    after = text[end] if end < len(text) else " "
    return not (before.isalnum() or before in "_+[" or after.isalnum() or after == "_")


class _SpelledRunRecognizer(EntityRecognizer):
    """A value written one digit at a time: each run of ``DIGITS`` single digits that ``accepts`` is an ``ENTITY``."""

    ENTITY: str
    SCORE: float
    CONTEXT: list[str]
    DIGITS: tuple[int, int]  # fewest and most digits in a run
    PATTERN_NAME: str

    def __init__(self) -> None:
        super().__init__(supported_entities=[self.ENTITY], context=self.CONTEXT)

    def load(self) -> None:
        pass

    def accepts(self, run: str, digits: str) -> bool:
        raise NotImplementedError

    def analyze(self, text: str, entities: list[str], nlp_artifacts: object = None) -> list[RecognizerResult]:
        results = []
        for match, digits in _spelled_runs(text, *self.DIGITS):
            if self.accepts(match.group(), digits):
                explanation = AnalysisExplanation(self.name, self.SCORE, pattern_name=self.PATTERN_NAME)
                results.append(RecognizerResult(self.ENTITY, match.start(), match.end(), self.SCORE, explanation))
        return results


class SpelledCardRecognizer(_SpelledRunRecognizer):
    """A card number written digit by digit ("4 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1"), which Presidio's grouped pattern
    misses. A run of 13-19 single digits is a card when its length and leading digits are a card network's and it
    passes the Luhn check (``cards.card_network``); a run right after an IBAN's country code is that IBAN's
    digits."""

    ENTITY = "CREDIT_CARD"
    SCORE = 0.8  # one chance in ten for a random run: below a grouped card's 1.0; "card" nearby raises it
    CONTEXT = CardRecognizer.CONTEXT
    DIGITS = (13, 19)
    PATTERN_NAME = "card digit by digit"

    def accepts(self, run: str, digits: str) -> bool:
        return run[0] != "+" and card_network(digits) is not None


class SpelledPhoneRecognizer(_SpelledRunRecognizer):
    """A phone number written digit by digit ("4 1 5 5 5 5 0 1 3 2", "+4 4 2 0 7 9 4 6 0 9 5 8"): 10-15 single
    digits that phonenumbers validates for one of ``phones.NATIONAL_REGIONS``. Ten digits are a common shape for other
    things too, so alone it scores below the default threshold and counts only with a phone word nearby."""

    ENTITY = "PHONE_NUMBER"
    SCORE = 0.4  # + context (0.35): 0.75
    CONTEXT = PHONE_CONTEXT
    DIGITS = (10, 15)
    PATTERN_NAME = "phone digit by digit"

    def accepts(self, run: str, digits: str) -> bool:
        compact = ("+" if run[0] == "+" else "") + digits
        return any(_valid_in(compact, region) for region in NATIONAL_REGIONS)


@lru_cache(maxsize=2)  # the spelled card and the spelled phone detectors ask it of the same text in turn
def _has_spelled_digits(text: str) -> bool:
    return SPELLED_DIGITS.search(text) is not None


def _valid_in(number: str, region: str) -> bool:
    try:
        return phonenumbers.is_valid_number(phonenumbers.parse(number, region))
    except phonenumbers.NumberParseException:
        return False


# Obfuscated e-mail addresses: "dana [at] example [dot] org", "dana(at)example(dot)org", "dana dot k at example dot
# org", "dana @ example.org", "dana@example[.]org". Markers are case-insensitive; the view has already folded
# full-width brackets and dropped invisible characters.
OPEN_BRACKET, CLOSE_BRACKET = r"[\[({<]", r"[\])}>]"
_AT_MARK = re.compile(
    rf"(?P<bracket>\s*{OPEN_BRACKET}\s*(?:at|@)\s*{CLOSE_BRACKET}\s*)|(?P<spaced>\s+@\s*|\s*@\s+)|(?P<bare>\s+at\s+)|(?P<plain>@)",
    re.IGNORECASE,
)
_DOT_MARK = rf"(?:\s*{OPEN_BRACKET}\s*(?:dot|\.)\s*{CLOSE_BRACKET}\s*|\s+dot\s+|\.)"
_LABEL = re.compile(r"[^\W_](?:[\w-]{0,61}[^\W_])?")
_DOMAIN_STEP = re.compile(rf"({_DOT_MARK})([^\W_](?:[\w-]{{0,61}}[^\W_])?)", re.IGNORECASE)
_ATOM = r"[\w!#$%&'*+/=?^`{|}~-]+"
_LOCAL_BEFORE = re.compile(rf"{_ATOM}(?:{_DOT_MARK}{_ATOM})*\Z", re.IGNORECASE)
_SPELLED_DOT = re.compile(rf"\s*{OPEN_BRACKET}\s*(?:dot|\.)\s*{CLOSE_BRACKET}\s*|\s+dot\s+", re.IGNORECASE)
# Any marker but a bare " at " (which alone is ordinary English): the pre-filter and the windows' anchor. Spelled
# with explicit case classes, not (?i), and without a leading \b: 40% faster over text that holds none (~0.2 ms per
# 10 KB), and a few more anchors ("polkadot") only cost a window.
_OBFUSCATION_ANCHOR = rf"[dD][oO][tT]\b|{OPEN_BRACKET}\s*(?:[aA][tT]|@|[dD][oO][tT]|\.)\s*{CLOSE_BRACKET}|\s@|@\s"
# Its shapes one by one for the pre-filter, each opening with what the regex engine skips to; "@" with a space on
# either side is looked for from the "@".
_OBFUSCATION_ANCHOR_PARTS = (r"[dD][oO][tT]\b", rf"{OPEN_BRACKET}\s*(?:[aA][tT]|@|[dD][oO][tT]|\.)\s*{CLOSE_BRACKET}",
                             r"@(?:(?<=\s@)|\s)")
_SPELLED_DOT = re.compile(_OBFUSCATION_ANCHOR_PARTS[0])
_BRACKETED_OR_SPACED = [re.compile(part) for part in _OBFUSCATION_ANCHOR_PARTS[:0:-1]]  # "@" with a space first


def _may_hold_obfuscation(text: str) -> bool:
    """Whether any of ``_OBFUSCATION_ANCHOR_PARTS`` occurs (``any_regex``'s answer): the spelled dot's regex only in a
    text whose lower case holds "dot" (each of the word's cases lowers to it), a substring test that finds it fast,
    where the regex's first class of two letters has the engine stop and test at every "d" (~12 us per KB)."""
    if any(part.search(text) is not None for part in _BRACKETED_OR_SPACED):
        return True
    return "dot" in text.lower() and _SPELLED_DOT.search(text) is not None


_LOCAL_BEFORE_MAX = 96
# With a bare " at ", words prose puts on either side of it: "email me at", "at the dot com boom".
_PROSE_BEFORE_AT = frozenset({"me", "us", "you", "him", "her", "them", "it", "one", "look", "looking"})
_PROSE_AFTER_AT = frozenset(
    {"the", "a", "an", "this", "that", "these", "those", "my", "your", "our", "his", "her", "their", "its", "least",
     "most", "all", "any", "some", "no", "each", "every", "home", "work", "once", "first", "last"}
)  # fmt: skip


class ObfuscatedEmailRecognizer(EntityRecognizer):
    """E-mail addresses with "@" or "." spelled out, bracketed or spaced, reported as EMAIL_ADDRESS so the policy's
    e-mail action applies to them too.

    Every match holds at least one such marker (a literal address is Presidio's), and its domain must end in a
    real public suffix (tldextract, offline, as Presidio validates a literal one). A bare word " at " is ordinary
    English ("meet me at the office", "look at example.com"), so it makes an address only with a spelled or
    bracketed dot ("dana at example dot org"), not after a pronoun nor before a determiner ("at the dot com boom"),
    and scores lower (BARE_SCORE: above the default threshold, below the others). The domain's labels are tried
    from the longest, so a word after the address ("... dot org dot Then") is not taken for part of it.
    """

    SCORE = 0.8
    BARE_SCORE = 0.6
    CONTEXT = ["email", "e-mail", "mail", "contact", "write", "reach"]  # noqa: RUF012

    def __init__(self) -> None:
        super().__init__(supported_entities=["EMAIL_ADDRESS"], context=self.CONTEXT)

    def load(self) -> None:
        pass

    def analyze(self, text: str, entities: list[str], nlp_artifacts: object = None) -> list[RecognizerResult]:
        results: list[RecognizerResult] = []
        taken = 0  # the end of the last address found: its own markers do not start another
        for at in _AT_MARK.finditer(text):
            if at.start() < taken:
                continue
            found = self._address_at(text, at)
            if found is not None:
                results.append(found)
                taken = found.end
        return results

    def _address_at(self, text: str, at: re.Match[str]) -> RecognizerResult | None:
        local = _LOCAL_BEFORE.search(text, max(0, at.start() - _LOCAL_BEFORE_MAX), at.start())
        if local is None:
            return None
        labels, spelled_in_domain = self._domain_after(text, at.end())
        if len(labels) < 2:
            return None
        kind = at.lastgroup
        spelled = spelled_in_domain or _SPELLED_DOT.search(local.group()) is not None
        if kind == "plain" and not spelled:
            return None  # a literal address: Presidio's recognizer reports it
        if kind == "bare":
            if not spelled:
                return None
            if local.group().casefold() in _PROSE_BEFORE_AT or labels[0][0].casefold() in _PROSE_AFTER_AT:
                return None
        for count in range(len(labels), 1, -1):  # the longest domain that ends in a public suffix
            domain = ".".join(label for label, _ in labels[:count])
            if tldextract.extract(domain).fqdn:
                score = self.BARE_SCORE if kind == "bare" else self.SCORE
                return RecognizerResult("EMAIL_ADDRESS", local.start(), labels[count - 1][1], score,
                                        self._explanation(kind))
        return None

    @staticmethod
    def _domain_after(text: str, start: int) -> tuple[list[tuple[str, int]], bool]:
        """The domain's labels with the end of each, and whether a dot between them was spelled or bracketed."""
        first = _LABEL.match(text, start)
        if first is None:
            return [], False
        labels = [(first.group(), first.end())]
        spelled = False
        while (step := _DOMAIN_STEP.match(text, labels[-1][1])) is not None:
            labels.append((step.group(2), step.end()))
            spelled = spelled or step.group(1) != "."
        return labels, spelled

    def _explanation(self, kind: str | None) -> AnalysisExplanation:
        return AnalysisExplanation(self.name, self.BARE_SCORE if kind == "bare" else self.SCORE,
                                   pattern_name=f"obfuscated e-mail ({kind} at)")


# Every SECRET pattern holds one of these (a credential word, an issuer prefix, a JWT's or a PEM block's head, or
# the 32 characters in a row that a random token with no word naming it is at least). Searched for one after the
# other: the issuer prefixes alone are literals the regex engine skips to, and each search stops at its first hit.
_CREDENTIAL_WORDS = ("key", "secret", "token", "pass", "pwd", "auth", "cred", "bearer", "dsn", "conn", "kennwort",
                     "contraseña", "clé", "cle", "jeton", "schlüssel", "clave", "llave", "chiave")  # in any case
_CREDENTIAL_ANCHORS = (
    r"AKIA|ASIA|A[BCGINPR][A-Z]A|gh[pousr]_|github_pat_|glpat-|xox[abposr]-|sk_|rk_|sk-|AIza|eyJ|PRIVATE KEY",
    r"(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{32}",
)


def _credential_prefilter() -> Callable[[str], bool]:
    has_word, has_anchor = any_word(_CREDENTIAL_WORDS), any_regex(_CREDENTIAL_ANCHORS)
    return lambda text: has_word(text) or has_anchor(text)


@dataclass(frozen=True, slots=True)
class Detector:
    """One recognizer, the cheap test that must pass before it runs, and how its context words are matched.

    With `anchors`, the recognizer runs only on windows of `margin` characters around each anchor match (an
    e-mail address is never far from its '@'); Presidio's e-mail and date regexes are slow over long texts. With
    `prefilter_is_anchors`, the pre-filter tells only whether an anchor occurs, which the windows tell too: it is not
    asked, and the text is searched for the anchors once, not twice. With `more_entities`, the recognizer is asked
    for those types too in the same call (a record format's, which reads the record once for all its types).
    """

    entity_type: str
    recognizer: EntityRecognizer
    prefilter: Callable[[str], bool]
    context: re.Pattern[str] | None
    anchors: tuple[re.Pattern[str], ...] = ()
    margin: int = 0
    prefilter_is_anchors: bool = False
    more_entities: tuple[str, ...] = ()

    @property
    def entity_types(self) -> tuple[str, ...]:
        return (self.entity_type, *self.more_entities)


# Context words whose case tells them from other text, as the rest read after their first letter: "b." (born) in
# lower case, or capitalised after an opening parenthesis ("(B. 1941)"); a code's or an IBAN's last letter before a
# full stop is no birth word ("KEKFD2029B. The minutes were approved 31 August 2025.").
_CASED_RESTS = {"b.": r"(?:(?<=(?-i:b))|(?<=\((?-i:B)))\.", **PHONE_CONTEXT_RESTS}  # and phones' speaker labels


def _context_regex(words: list[str] | None) -> re.Pattern[str] | None:
    if not words:
        return None
    # Prefix match where no letter comes before: "ssn" also hits "ssns", "birth" hits "birthdate" and the
    # "date_of_birth" of a JSON key or a log field. A camelCase key's later word starts where a lower-case letter
    # meets an upper-case one: "patientDob", "userBirthDate" (case-sensitive there, so "ecobirth" stays no word).
    # Written so that the regex engine skips to the letters a word can open with: a case-sensitive class of them
    # first, then the boundary read behind it (no letter before the first one, or a lower-case letter before an
    # upper-case first one), then each word's rest behind its own first letter, case-insensitively. The plain form,
    # a leading look-behind and an ignore-case alternation, is tried at every position: 3-6 times the cost of the
    # searches around each value.
    rests: dict[str, list[str]] = {}
    for word in words:
        rests.setdefault(word[0], []).append(_CASED_RESTS.get(word, re.escape(word[1:])))
    openings = "".join(re.escape(char) for char in case_partners("".join(rests)))
    after_first = "|".join(f"(?<={re.escape(first)})(?:{'|'.join(group)})" for first, group in rests.items())
    return re.compile(rf"[{openings}](?:(?<![^\W\d_][\s\S])|(?<=[a-z][A-Z]))(?i:{after_first})")


class _VersionFreeIpRecognizer(IpRecognizer):
    """Presidio's IP recognizer without the dotted quads that are part of a longer dotted number: "7.2.9.1.865" and
    "1.2.3.4.5" are versions, not addresses; and with the IPv6 addresses written right after a field name's colon
    ("X-LAST-IP:2400:59d5::14a6", "addr:fe80::1"), which Presidio's pattern, that no colon may precede, misses."""

    def analyze(self, text: str, entities: list[str], nlp_artifacts: object = None) -> list[RecognizerResult]:
        return [result for result in super().analyze(_field_colons_spaced(text), entities, nlp_artifacts)
                if not _DOTTED_MORE_BEFORE.search(text, max(0, result.start - 2), result.start)
                and not _DOTTED_MORE_AFTER.match(text, result.end)]


_DOTTED_MORE_BEFORE = re.compile(r"\d\.\Z")
_DOTTED_MORE_AFTER = re.compile(r"\.\d")
# A field name and its colon before a hex group and another colon: the name is no group of the address when it is no
# run of one to four hex digits ("X-LAST-IP", "IPv6", "address").
_FIELD_COLON = re.compile(r"(?<![\w-])([\w-]+):(?=[0-9A-Fa-f]{0,4}:)")
_HEX_GROUP = re.compile(r"[0-9A-Fa-f]{1,4}")


def _field_colons_spaced(text: str) -> str:
    """The text with the colon after each field name that an IPv6 address may follow written as a space (the same
    length: the offsets stand), so the address after it reads as one that stands alone."""
    colons = [match.end() - 1 for match in _FIELD_COLON.finditer(text) if not _HEX_GROUP.fullmatch(match.group(1))]
    if not colons:
        return text
    chars = list(text)
    for colon in colons:
        chars[colon] = " "
    return "".join(chars)


def _ssn_recognizer() -> UsSsnRecognizer:
    """Presidio's SSN recognizer, with a bare run of nine digits at 0.2 instead of 0.05: with an SSN word nearby
    (+0.35) it reaches the default threshold ("SSN: 078051121"); alone it stays far below it. Presidio's checks
    (no 000/666 area, no 00 group, no 0000 serial, no sample numbers) still apply. Its context words, plus the French,
    Spanish and German names of social security."""
    patterns = [Pattern(p.name, p.regex, 0.2 if p.name.startswith("SSN4") else p.score)
                for p in UsSsnRecognizer.PATTERNS]
    return _SsnRecognizer(patterns=patterns, context=[*UsSsnRecognizer.CONTEXT, *_SSN_CONTEXT_ELSEWHERE])


class _SsnRecognizer(UsSsnRecognizer):
    """Presidio's checks, and no area 900-999: the SSA never issues those as SSNs; the IRS's ITINs (9xx-7x-xxxx,
    9xx-8x-xxxx) and ATINs are written in them, and are no SSN."""

    def invalidate_result(self, pattern_text: str) -> bool:
        digits = "".join(char for char in pattern_text if char.isdigit())
        return digits.startswith("9") or bool(super().invalidate_result(pattern_text))


# "Social security number" in the corpus' other languages: an SSN quoted in a French, Spanish or German sentence;
# and the W-2, the US wage statement whose box a is the employee's SSN ("Auf dem W-2 steht 873809982").
_SSN_CONTEXT_ELSEWHERE = ["sozialversicherung", "sécurité sociale", "securite sociale",
                          "seguridad social", "seguro social", "w-2"]


def build_detectors() -> list[Detector]:
    configure_offline()  # the e-mail recognizers validate domains through tldextract
    dates_of_birth = DateOfBirthRecognizer()
    traditions = DateOfBirthRecognizer(TRADITION_PATTERNS, name="TraditionDateOfBirthRecognizer")
    has_card_digits, has_iban_head, has_ssn_digits = _digit_chains((_CARD_DIGITS, _IBAN_HEAD_ANCHOR, _SSN_DIGITS))
    spec: list[tuple[str | tuple[str, ...], EntityRecognizer, Callable[[str], bool] | None,
                     str | tuple[str, ...] | None, int]] = [
        # (entity (or several, asked in one call), recognizer, pre-filter (None: whether an anchor occurs), anchor regex
        # (or several) or None, window margin around the anchor)
        ("EMAIL_ADDRESS", AnchoredEmailRecognizer(), lambda text: "@" in text, "@", 96),
        ("EMAIL_ADDRESS", ObfuscatedEmailRecognizer(), _may_hold_obfuscation, _OBFUSCATION_ANCHOR, 160),
        ("CREDIT_CARD", CardRecognizer(), has_card_digits, None, 0),
        ("CREDIT_CARD", SpelledCardRecognizer(), _has_spelled_digits, None, 0),
        ("PHONE_NUMBER", SpelledPhoneRecognizer(), _has_spelled_digits, None, 0),
        ("IBAN_CODE", IbanCodeRecognizer(), has_iban_head, None, 0),
        ("NATIONAL_ID", NationalIdRecognizer(), has_regex(_NATIONAL_ID_DIGITS), None, 0),
        # Every other personal identity number stdnum validates, next to a label naming it (``personal_ids``).
        ("NATIONAL_ID", PersonalIdRecognizer(), may_hold_personal_id, None, 0),
        ("US_SSN", _ssn_recognizer(), has_ssn_digits, None, 0),
        ("IP_ADDRESS", _VersionFreeIpRecognizer(), any_regex(_IP_ANCHOR_PARTS), _IP_ANCHOR, 48),
        # seven digits in a run of groups, an area code's slash between two ("0475/12 34 56": ``phones._CANDIDATE``)
        ("PHONE_NUMBER", PhoneNumberRecognizer(), has_regex(r"\d(?:[ \t()./-]{0,2}\d){6}"), None, 0),
        ("SECRET", SecretRecognizer(), _credential_prefilter(), None, 0),
        ("LOCATION", PlaceRecognizer(), lambda text: True, None, 0),
        # A news report's dateline: "BERGEN, Norway, March 3 (Reuters) —", "WINCHESTER, Mass. (AP) —" (``datelines``);
        # its search for a dash is its own pre-filter.
        ("LOCATION", DatelineRecognizer(), lambda text: True, None, 0),
        # A field value follows a separator, a tag or a printed form's dotted leader ("HOME TOWN ....... LARYNE").
        ("PERSON", FieldValueRecognizer(), has_regex(r"[:=,;|<]|\.\.\."), None, 0),
        ("PERSON", RecordNameRecognizer(), has_record_name_anchor, None, 0),
        # git blame's author slot and code literals that are wholly a person's name (``code_names``).
        ("PERSON", CodeNameRecognizer(), has_code_names, None, 0),
        ("STREET_ADDRESS", StreetAddressRecognizer(), has_regex(r"\d"), None, 0),
        ("DATE_OF_BIRTH", dates_of_birth, None, _YEAR_ANCHOR, 32),
        ("DATE_OF_BIRTH", DateOfBirthRecognizer([*WEAK_PATTERNS, *_UNPADDED_DATE_PATTERNS],
                                                      name="WeakDateOfBirthRecognizer"), has_birth_word,
         (_WEAK_DATE_ANCHOR, _MONTH_YEAR_ANCHOR, _UNPADDED_ISO_ANCHOR), 32),
        # Dates read aloud ("the fifth of march nineteen eighty"): a birth date only by its birth words, like the
        # written ones, so looked for only where one stands; each window reaches a day before its month's name.
        ("DATE_OF_BIRTH", DateOfBirthRecognizer(SPOKEN_DATE_PATTERNS, name="SpokenDateOfBirthRecognizer"),
         has_birth_word, SPOKEN_DATE_ANCHOR, 40),
        # Korean, Lithuanian and Latvian dates and day-first dates with an inflected month (``date_traditions``),
        # each anchored at its own shape; the Buddhist-era and Solar Hijri dates only where a birth word stands, as
        # the weak shapes; the telex passport element's date by its place in the element.
        ("DATE_OF_BIRTH", traditions, may_hold_tradition_anchor, TRADITION_ANCHORS, 40),
        ("DATE_OF_BIRTH", DateOfBirthRecognizer(CALENDAR_PATTERNS, name="CalendarDateOfBirthRecognizer"),
         has_birth_word, CALENDAR_ANCHORS, 32),
        # Dates in the Japanese eras' and the Minguo calendar's years ("昭和62年4月3日", "H3.4.3"): looked for only in a
        # text that holds a "年", or a birth word for the Latin form.
        ("DATE_OF_BIRTH", EraDateOfBirthRecognizer(), has_era_date, None, 0),
        ("DATE_OF_BIRTH", TelexDocsRecognizer(), has_docs_element, None, 0),
        # The X12 DMG segment's and SWIFT field 50F's birth dates, by their place in the record.
        ("DATE_OF_BIRTH", RecordDateOfBirthRecognizer(), has_record_birth_field, None, 0),
        # A birth word beyond the context window: "born" before an aside, a question the date answers (``dates``).
        ("DATE_OF_BIRTH", FarCueDateOfBirthRecognizer(), has_birth_word, None, 0),
        # A travel document's machine-readable zone (ICAO 9303) whose check digits hold: the holder's name,
        # document number and birth date. A record format's values of every type are read in one call: its pre-filter
        # asked once, the record read once.
        (MRZ_ENTITIES, MachineReadableZoneRecognizer(), has_zone, None, 0),
        # GEDCOM family trees' and UN/EDIFACT segments' names, birth dates, places and street lines, by their tags
        # and qualifiers (``gedcom``, ``edi_records``).
        (GEDCOM_ENTITIES, GedcomRecognizer(), has_gedcom, None, 0),
        (EDIFACT_ENTITIES, EdifactRecognizer(), has_edifact, None, 0),
        # DICOM header dumps' people (every PN element), birth dates, ids, phones and addresses, by their tags
        # (``dicom_records``).
        (DICOM_ENTITIES, DicomRecognizer(), has_dicom, None, 0),
        # A date with its month named as any CLDR locale writes one ("18 Φεβρουαρίου 1973", "15 בדצמבר 1986",
        # "1986ko apirilaren 28a"), read around each year that stands apart from other digits; less those the shapes
        # above report.
        ("DATE_OF_BIRTH", CldrDateOfBirthRecognizer((dates_of_birth, traditions)), None, CLDR_DATE_ANCHOR, 40),
    ]  # fmt: skip
    detectors = []
    # A pre-filter that several detectors use (the birth word's) answers once per text.
    uses = Counter(id(prefilter) for _, _, prefilter, _, _ in spec if prefilter is not None)
    shared = {id(f): PerText(f) for _, _, f, _, _ in spec if f is not None and uses[id(f)] > 1}
    for entity, recognizer, prefilter, anchor, margin in spec:
        prefilter = shared.get(id(prefilter), prefilter)
        anchors = (anchor,) if isinstance(anchor, str) else anchor or ()
        entities = (entity,) if isinstance(entity, str) else entity
        context = _context_regex(getattr(recognizer, "context", None))
        if len(entities) > 1 and context is not None:
            # a context word raises a score by the detector's type (``run_detector``): one type a detector then
            raise ValueError(f"{recognizer.name}: a detector of several types has no context words")
        # No pre-filter of its own: whether one of its anchors occurs (searched once, for its windows).
        anchored = prefilter is None
        detectors.append(Detector(entities[0], recognizer, any_regex(anchors) if prefilter is None else prefilter,
                                  context, tuple(re.compile(each) for each in anchors), margin, anchored,
                                  entities[1:]))  # fmt: skip
    return detectors


def _anchor_windows(text: str, anchors: tuple[re.Pattern[str], ...], margin: int) -> list[tuple[int, int]]:
    windows: list[tuple[int, int]] = []
    if len(anchors) == 1:
        for match in anchors[0].finditer(text):
            add_window(windows, text, match.start(), match.end(), margin)
        return windows
    # Windows are added in the order they start; several anchors' matches are merged first.
    for start, end in sorted(match.span() for anchor in anchors for match in anchor.finditer(text)):
        add_window(windows, text, start, end, margin)
    return windows


def has_context(context: re.Pattern[str], text: str, start: int, end: int, own_sentence: bool = False) -> bool:
    """Whether a context word stands shortly before the value, shortly after it in its clause ("12-19-1960 is his
    birthday", "Er wurde am 09.04.1965 geboren", "316481298 is the SSN on file"), or names its CSV column.

    With `own_sentence` (dates), a word before the value counts only in the value's sentence or line (or on the
    line above when the value opens its own: "Date of birth:\n1985-03-04") and after any other date: a date of
    birth and the invoice date written after it ("born 3 May 1961. Invoice dated 4 May 2021", "DOB 3 May 1961,
    hired 4 May 2021") each have their own words."""
    window_start = max(0, start - CONTEXT_WINDOW_CHARS)
    if own_sentence:
        window_start = _own_sentence_start(text, window_start, start, end)
    if context.search(text, window_start, start):
        return True
    if context.search(text, end, clause_after(text, end, CONTEXT_AFTER_CHARS, asides=own_sentence)):
        return True
    if own_sentence and _key_label_names_it(context, text, start):
        return True
    column = column_name(text, start) if _may_have_columns(text) else None
    return column is not None and context.search(column) is not None


# Asked for each value of a text without a context word: a text with no delimiter is read to its end by each ask
# (quadratic over a long text of many dates), so the answer is kept for the text (a string keeps its hash).
_may_have_columns = lru_cache(maxsize=2)(may_have_columns)


# A CEF extension's key right before its value ("flexDate1=20.01.1984"), and the label CEF gives a custom field's key
# as another pair of the same event ("flexDate1Label=Date of Birth"): the label up to the next key.
_CEF_KEY = re.compile(r"(?<![\w=])([A-Za-z]\w*)=\Z")
_CEF_LABEL = re.compile(r"(?<!\w)([A-Za-z]\w*)Label=((?:[^=\n\\]|\\.){0,80}?)(?=\s+\w+=|[ \t]*$)", re.MULTILINE)


def _key_label_names_it(context: re.Pattern[str], text: str, start: int) -> bool:
    """Whether the value at `start` is a CEF pair's value whose key's label, elsewhere in the event, is a context word
    ("flexDate1Label=Date of Birth ... flexDate1=20.01.1984")."""
    key = _CEF_KEY.search(text, max(0, start - 40), start)
    if key is None or "Label=" not in text:
        return False
    label = _cef_labels(text).get(key.group(1))
    return label is not None and context.search(label) is not None


@lru_cache(maxsize=2)  # asked for each date of a text in turn: the text is read once
def _cef_labels(text: str) -> dict[str, str]:
    """Each CEF custom field's label in the text, by the field's key ("flexDate1" -> "Date of Birth")."""
    return {match.group(1): match.group(2) for match in _CEF_LABEL.finditer(text)}


_REST_OF_LINE_EMPTY = re.compile(r"[ \t.,;)\]\"'}]*\r?(?:\n|\Z)")
_LABEL_LINE_END = re.compile(r":[ \t]*\r?\n\Z")


def _labelled_from_above(text: str, line_start: int, end: int) -> bool:
    """Whether the line above a value that opens the line at `line_start` may be its label: the value stands alone on
    its line, or the line above ends in a colon."""
    return (_REST_OF_LINE_EMPTY.match(text, end) is not None
            or _LABEL_LINE_END.search(text, max(0, line_start - 8), line_start) is not None)


# Where a sentence ends (a full stop after a word of four letters or a number, not an abbreviation's: "geb.",
# "nac.", "d.o.b."; "!" or "?" before a space; a line break), and where a date ends (a year).
_SENTENCE_END = re.compile(r"(?:(?<=[^\W\d_]{4})\.|(?<=\d)\.|[!?])[ \t]+(?=\S)|\n")
_DATE_END = re.compile(r"(?<!\d)(?:19|20)\d\d(?!\d)|['’]\d\d(?!\w)|(?<![\d.])\d{1,2}[/.-]\d{1,2}[/.-]\d\d(?![\d.])")


# A MIME part's header naming its field (RFC 7578's multipart/form-data: 'Content-Disposition: form-data;
# name="birthdate"'), an empty line between it and the part's value.
_PART_HEADER = re.compile(r"[Cc]ontent-[Dd]isposition:[^\n]*\bname=")
_BLANK_LINE = re.compile(r"[ \t]*\r?\n")


def _part_header_above(text: str, line_start: int) -> int:
    """Where the line at `line_start` starts, or, where it is the empty line under a MIME part's header, the header's
    line: the header names the value below the empty line."""
    if line_start and _BLANK_LINE.match(text, line_start) is not None:
        header_start = text.rfind("\n", 0, line_start - 1) + 1
        if _PART_HEADER.match(text, header_start, line_start) is not None:
            return header_start
    return line_start


_NAMED_ABOVE = re.compile(r"[ \t]*value:[ \t]*[\"']?")
_NAME_LINE = re.compile(r"[ \t]*(?:-[ \t]+)?name:[ \t]*[\"']?[\w.-]+[\"']?[ \t]*\r?")


def _own_sentence_start(text: str, window_start: int, start: int, end: int) -> int:
    """Where the words that may describe the value at [start, end) begin: after the last sentence end and the last
    date before it, not before `window_start`; a value alone on its line keeps the line above (a label), and so does
    one that opens its line under a line that ends in a colon. A value that opens a line with more after it and no
    label above is the line's own heading: a chat export's or a log's timestamp ("27/10/2025, 14:22 - Mum: ..."),
    whatever the message above it said."""
    line_start = text.rfind("\n", window_start, start) + 1
    if line_start and _NAMED_ABOVE.fullmatch(text, line_start, start) is not None:
        # A YAML list's value under its name ("- name: SEED_USER_DOB" / "  value: ..."), as Kubernetes and Compose
        # set environment variables: the name on the line above is the value's key.
        name_line = text.rfind("\n", 0, line_start - 1) + 1
        if _NAME_LINE.fullmatch(text, name_line, line_start - 1) is not None:
            return name_line
    if line_start and not text[line_start:start].strip() and _labelled_from_above(text, line_start, end):
        line_start = text.rfind("\n", window_start, line_start - 1) + 1
        return max(window_start, _part_header_above(text, line_start))
    for pattern in (_SENTENCE_END, _DATE_END):
        for match in pattern.finditer(text, window_start, start):
            window_start = max(window_start, match.end())
    return window_start


def run_detector(detector: Detector, text: str, entities: tuple[str, ...] | None = None, *,
                 prefiltered: bool = False) -> list[Finding]:  # fmt: skip
    """The detector's findings in ``text``: of its types (``Detector.entity_types``), or of those of ``entities``.
    A detector of several types gives them in its types' order, as one detector per type, run in turn, would.
    ``prefiltered``: the caller has asked the detector's pre-filter, which passed."""
    if not prefiltered and not detector.prefilter_is_anchors and not detector.prefilter(text):
        return []
    asked = detector.entity_types if entities is None else entities
    anchors = detector.anchors
    windows = _anchor_windows(text, anchors, detector.margin) if anchors else [(0, len(text))]
    findings = []
    for offset, window_end in windows:
        for result in detector.recognizer.analyze(text[offset:window_end], list(asked), None):
            start, end, score = result.start + offset, result.end + offset, result.score
            own_sentence = detector.entity_type == "DATE_OF_BIRTH"
            # A finding at the maximum score stays there with a context word or without one: not looked for (an
            # e-mail address's 1.0, each with its own search around it).
            if (detector.context is not None and score != MAX_SCORE
                    and has_context(detector.context, text, start, end, own_sentence)):
                score = max(min(1.0, score + CONTEXT_BOOST), MIN_SCORE_WITH_CONTEXT)
            if own_sentence and detector.context is not None and score > DATE_ALONE and follows_death_cue(text, start):
                score = DATE_ALONE  # the day of a death ("passed away on 3 May 2020", "† 2. Mai 2020"): ``dates``
            findings.append(Finding(result.entity_type, start, end, score, detector.recognizer.name))
    if len(asked) > 1 and len(findings) > 1:
        order = {entity: index for index, entity in enumerate(asked)}
        findings.sort(key=lambda finding: order.get(finding.entity_type, len(order)))  # stable: each type's in order
    return findings
