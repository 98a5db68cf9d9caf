"""Phone numbers of every region, validated by phonenumbers (Google's libphonenumber metadata).

A phone-shaped run of digits is a cheap regex; phonenumbers decides. A number written with its country code ("+33 1
23 45 67 89", "0044 20 7946 0958") is parsed for whichever region that code belongs to, so every region's numbers
are found in international form. A number in national form ("01 23 45 67 89", "(415) 555-0132") carries no region,
and nearly any run of 8-12 digits is a valid national number somewhere, so national forms are tried for a fixed set
of regions (``NATIONAL_REGIONS``) only, and a bare unformatted run needs a phone word nearby to count. A national
form counts on its own only as libphonenumber's own matcher accepts one at its EXACT_GROUPING leniency: written
with the national prefix where the region's numbers need it (a French number starts "0", so "596-11-6181", an SSN,
is no French number), in the digit groups the region writes ("845 30 2474" is no Spanish "845 30 24 74").
Otherwise it too needs a phone word. Runs that are IPv4 addresses are left to the IP detector, and a run is split
into several numbers only when what follows the first is long enough to be a number too (a national id's "8561 7882
5567" is no list of numbers).
"""

from __future__ import annotations

import ipaddress
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import phonenumbers
from phonenumbers import (
    COUNTRY_CODE_TO_REGION_CODE,
    REGION_CODE_FOR_NON_GEO_ENTITY,
    Leniency,
    PhoneMetadata,
    PhoneNumber,
    PhoneNumberMatcher,
    ValidationResult,
)
from phonenumbers.phonenumbermatcher import _PATTERN as _MATCHER_CANDIDATE
from phonenumbers.phonenumbermatcher import _SLASH_SEPARATED_DATES
from phonenumbers.phonenumberutil import (
    _MAX_INPUT_STRING_LENGTH,
    _MAX_LENGTH_COUNTRY_CODE,
    _MAX_LENGTH_FOR_NSN,
    _MIN_LENGTH_FOR_NSN,
    _SECOND_NUMBER_START_PATTERN,
    _build_national_number_for_parsing,
    _is_number_matching_desc,
    _is_valid_region_code,
    _is_viable_phone_number,
    _match_national_number,
    _maybe_strip_extension,
    _maybe_strip_national_prefix_carrier_code,
    _normalize,
    _set_italian_leading_zeros_for_phone_number,
    _test_number_length,
    country_code_for_valid_region,
    region_code_for_country_code,
)
from phonenumbers.re_util import re_compile
from presidio_analyzer import AnalysisExplanation, EntityRecognizer, RecognizerResult

from gateway.guardrails import budget
from gateway.guardrails.cards import card_network, is_record_id
from gateway.guardrails.identifiers import SCHEMES

# Validating a number for the national regions reads a few thousand metadata patterns, more than the ``re`` module's
# cache of 512 holds, so without phonenumbers' own cache of compiled patterns each parse recompiled patterns that had
# been pushed out (40% of the detector's CPU on PII-dense text). The patterns are fixed metadata: the cache is bounded.
phonenumbers.enable_pattern_cache()

# Regions whose national formats are tried, in order: North America first (the commonest in English text), then
# the larger European, Latin American and Asia-Pacific numbering plans.
NATIONAL_REGIONS = ("US", "GB", "DE", "FR", "ES", "IT", "NL", "BE", "CH", "AT", "PL", "PT", "IE", "SE", "NO", "DK",
                    "FI", "AU", "NZ", "IN", "BR", "MX", "AR", "CO", "CL", "JP", "SG", "ZA")  # fmt: skip

CONTEXT = ["phone", "call", "tel", "mobile", "cell", "fax", "contact", "whatsapp", "sms", "text me",
           "telephone",
           "téléphone", "teléfono", "telefon", "telefono", "portable", "móvil", "handy", "ring"]  # fmt: skip
# A context word's rest after its first letter, where the word alone says too much: a transcript's speaker label
# ("caller: part no 57-8568-8396", "Caller (turn 3): my social is ...") names who speaks, not a phone, so "call" is no
# context word where "caller:" opens a turn of words; before a number it stays one ("Caller: 0612345678", a caller-ID
# field). Read by ``recognizers``' context regex, case-insensitively.
CONTEXT_RESTS = {"call": r"all(?!ers?[ \t]*(?:\([^)\n]{0,24}\)[ \t]*)?:[ \t]*[^\W\d_])"}

# A phone-shaped run: an optional '+' or international '00', digits in groups joined by at most two of space,
# brackets, dot or dash, ending in a group of two or more digits; not glued to letters, colons, slashes (times,
# paths, URLs) nor to a version's dots. A '+' may follow the colon of a URI scheme that carries a global number
# (RFC 3966's "tel:+45-34-48-64-72", the links web pages and vCards write; "sms:", "fax:", "callto:", "sip:").
_PHONE_URI_SCHEME = r"(?i:(?<=tel:)|(?<=sms:)|(?<=fax:)|(?<=sip:)|(?<=sips:)|(?<=callto:))"
# A national number's area code may end in a slash ("030/1234567", "0475/12 34 56", "011/4321-5678", the US's older
# "212/555-0132"): an area code with its trunk prefix 0, or North America's three digits, then the subscriber number.
_CANDIDATE = re.compile(
    rf"(?:(?:(?<![\w:.+-])|{_PHONE_URI_SCHEME})(?<!://)\+|(?<![\w:/.+-])(?:\b00)?)"
    r"\s?\(?(?:(?:0[0-9]{1,4}|[2-9][0-9]{2})/(?=[0-9]))?[0-9](?:[ \t().-]{0,2}[0-9]){5,16}(?<=[0-9][0-9])"
    r"(?![\w:/]|\.[0-9])"
)  # a '+' may follow a slash: an airline message's "HK1/+44 7400 114680", a path's "/+" is rare
# What every candidate holds from at most its fifth character on (after '00', a space of any kind and a bracket):
# six digits of its run, or from at most its eleventh after an area code and its slash. The regex engine skips ahead
# to a digit, where it tries the candidate's leading look-behind and optional parts at every position, so the
# candidate is searched for only from four characters before the next six digits of a run (ten after a slash): no
# candidate starts earlier.
_DIGITS_OF_A_RUN = re.compile(r"[0-9](?:[ \t().-]{0,2}[0-9]){5}")
_LEAD_REACH = 4
_LEAD_REACH_AFTER_SLASH = 10


def candidate_search_start(text: str, run_start: int) -> int:
    """Where to search for the candidate that holds the run of six digits at `run_start`: no candidate starts
    earlier."""
    after_slash = text[run_start - 1 : run_start] == "/"
    return run_start - (_LEAD_REACH_AFTER_SLASH if after_slash else _LEAD_REACH)


_DIGIT_GROUP = re.compile(r"[0-9]+")
# A candidate that stops where its run goes on with a dash, a dot or a slash and more digits was cut short of a token
# glued to a letter or a colon, or of a run longer than any number (its trailing look-ahead backtracked): a
# timestamp's "1 2026-03" of a syslog header's "<134>1 2026-03-02T10:11:12Z". No phone number ends inside one.
_RUN_GOES_ON = re.compile(r"[./-][0-9]")
_MIN_DIGITS = 7  # the shortest subscriber numbers of the national plans
# The rest of a run of digit groups, past the candidate's cap too, read up to its first _MIN_DIGITS digits: all the
# caller asks is whether a number could follow, and reading the whole run made a text that is one long run of
# digit groups ("1919-19-19 1919-19-19 ...") quadratic.
_RUN_ON = re.compile(rf"(?:[ \t().-]{{0,2}}[0-9]){{0,{_MIN_DIGITS}}}")


def _digits_running_on(text: str, start: int) -> int:
    """Digits in the run of digit groups that continues at ``start``, counted up to ``_MIN_DIGITS`` (none: 0)."""
    run = _RUN_ON.match(text, start)
    return 0 if run is None else _digit_count(run.group())
# The start of an IBAN right before a run of digits: its country code and check digits, and maybe more of its
# groups of four ("DE89 ", glued "DE89", "NL91 ABNA ").
_IBAN_HEAD = re.compile(r"(?<![A-Za-z0-9])[A-Z]{2}[0-9]{2}(?:[ -]?[A-Z0-9]{4})*[ -]?\Z")
_IBAN_HEAD_REACH = 36
_DECIMAL = re.compile(r"[+-]?[0-9]+\.[0-9]+")  # "48.858370": a coordinate or a measure
_MAX_SPLIT_TRIES = 4
_MAX_DIGITS = 15  # E.164's longest number, country code included
_NANP_REGIONS = frozenset({"US", "CA"})  # shorter prefixes of a run tried when the whole run is no number
_INTERNATIONAL_PREFIX = re.compile(r"\+|00(?=[1-9])")
# Calendar dates and times of day written with separators are no phone numbers, whatever a region's plan allows; a
# dot may take a space after it, as Korean, Czech and Hungarian dates do ("2016. 4. 11.", "5. 10. 2023").
_DATE_SEPARATOR = r"(?:[./-]|\. )"
_DATE_LIKE = re.compile(
    rf"(?:(?:19|20)[0-9][0-9]{_DATE_SEPARATOR}(?:0?[1-9]|1[0-2]){_DATE_SEPARATOR}(?:0?[1-9]|[12][0-9]|3[01])"
    rf"|(?:0?[1-9]|[12][0-9]|3[01]){_DATE_SEPARATOR}(?:0?[1-9]|1[0-2]){_DATE_SEPARATOR}(?:19|20)[0-9][0-9]"
    rf"|(?:0?[1-9]|1[0-2]){_DATE_SEPARATOR}(?:0?[1-9]|[12][0-9]|3[01]){_DATE_SEPARATOR}(?:19|20)[0-9][0-9])"
)
_DATE_SEPARATORS = frozenset("./-")  # one of which every date ``_DATE_LIKE`` reads holds
# Numbers a bare run's shape or label gives to something else: an SSN's groups ("482-73-2115", "455 90 9585"), a Unix
# time in milliseconds (13 digits from 1, 2001 to 2033: logs' "rt=1701045457979"), and a run right after an SSN's
# own word ("SSN 498356041"). A region's own grouping or an international form still makes a phone of them.
_SSN_GROUPS = re.compile(r"[0-9]{3}([ -])[0-9]{2}\1[0-9]{4}")
_EPOCH_MILLISECONDS = re.compile(r"1[0-9]{12}")
# A day, a month and a year written with spaces between ("10 7 1964", "13 10 1952": speech to text's dates): no bare
# phone number, as the dates with separators above are none.
_DAY = r"(?:0?[1-9]|[12][0-9]|3[01])"
_MONTH = r"(?:0?[1-9]|1[0-2])"
_SPACED_DATE = re.compile(rf"(?:{_DAY} {_MONTH}|{_MONTH} {_DAY}) (?:19|20)[0-9][0-9]")

# The names of the references a business gives an order, a case or a booking, by which a bare run of digits after
# one is that reference, no phone number ("case number is 4958496575", "votre numéro de dossier\nappelant: euh
# #7854386310"): the kinds of reference UN/EDIFACT's reference code qualifiers (data element 1153) list that a
# customer reads out (order, invoice, customer, contract and policy numbers, a booking's, a consignment's tracking
# number, a case or file, a ticket, a claim, a confirmation, a reference as such), in each language's usual word for
# it (the eight languages the chat splits write). Words that name a telephone number ("Rufnummer", "telefoonnummer")
# are none of them, and a phone word after the label gives the number back to it ("order 4411, call me on ...").
REFERENCE_LABELS = {
    "en": ("reference", "order number", "order no", "order id", "order #", "case number",
           "case no", "case id", "case #", "ticket", "ticket number", "booking number", "booking reference",
           "confirmation number", "confirmation code", "tracking number", "invoice number", "invoice no",
           "claim number", "policy number", "customer number", "account number", "reservation number"),
    "fr": ("référence", "reference", "numéro de dossier", "dossier", "numéro de commande", "commande",
           "numéro de suivi", "numéro de facture", "numéro de ticket", "ticket", "numéro de réservation",
           "numéro client", "numéro de contrat", "numéro de sinistre"),
    "es": ("referencia", "número de pedido", "pedido", "expediente", "número de caso", "número de incidencia",
           "incidencia", "ticket", "número de factura", "número de reserva", "localizador", "número de seguimiento",
           "número de cliente", "número de póliza"),
    "de": ("referenz", "referenznummer", "aktenzeichen", "bestellnummer", "bestellung", "auftragsnummer",
           "vorgangsnummer", "ticketnummer", "ticket", "fallnummer", "kundennummer", "rechnungsnummer",
           "buchungsnummer", "sendungsnummer", "vertragsnummer", "schadennummer", "versicherungsnummer"),
    "it": ("riferimento", "numero di riferimento", "numero d'ordine", "numero ordine", "ordine", "pratica",
           "numero di pratica", "ticket", "numero di fattura", "numero di prenotazione", "codice cliente",
           "numero di spedizione", "numero di tracking", "numero di polizza", "numero di sinistro"),
    "pt": ("referência", "referencia", "número do pedido", "pedido", "encomenda", "protocolo", "número do processo",
           "processo", "ticket", "número da fatura", "número da reserva", "código de rastreamento", "rastreio",
           "número de cliente", "número da apólice"),
    "nl": ("referentie", "referentienummer", "kenmerk", "dossiernummer", "ordernummer", "bestelnummer", "bestelling",
           "zaaknummer", "ticketnummer", "ticket", "klantnummer", "factuurnummer", "boekingsnummer",
           "reserveringsnummer", "trackingnummer", "polisnummer", "schadenummer"),
    "pl": ("numer referencyjny", "numer zamówienia", "zamówienie", "zamówienia", "numer sprawy", "numer zgłoszenia",
           "zgłoszenie", "zgłoszenia", "ticket", "numer faktury", "numer rezerwacji", "numer klienta",
           "numer przesyłki", "numer polisy", "numer szkody"),
}
# A label right before the number on its line, the words between it and the number no more than a verb and a few
# short words ("case number is #", "reference: ", "encomenda #"), or a label that ends the line above a line the number
# answers: a speaker's label ("caller:"), at most three short words ("uh its") and maybe a number sign.
# The names of an item's numbers, which a bare run after one is as well: the item number types of UN/EDIFACT's data
# element 7143 a customer or a stock list reads out (a part's, an article's, a serial number, a stock-keeping unit),
# in the same eight languages ("part no 57-8568-8396", "part_number: '103-466-4221'", "La pièce n° 10-4664-5176").
ITEM_LABELS = {
    "en": ("part no", "part number", "part nr", "part_no", "part_number", "item number", "article number",
           "serial number", "sku"),
    "fr": ("numéro de pièce", "pièce n", "numéro d'article", "numéro de série"),
    "es": ("número de pieza", "pieza n", "número de artículo", "número de serie"),
    "de": ("teilenummer", "artikelnummer", "seriennummer"),
    "it": ("numero di parte", "codice articolo", "numero di serie"),
    "pt": ("número da peça", "peça n", "número do artigo", "número de série"),
    "nl": ("onderdeelnummer", "artikelnummer", "serienummer"),
    "pl": ("numer części", "numer katalogowy", "numer seryjny"),
}  # fmt: skip
_LABELS = sorted({re.escape(label) for table in (REFERENCE_LABELS, ITEM_LABELS) for labels in table.values()
                  for label in labels}, key=len, reverse=True)  # fmt: skip
_REFERENCE_LABEL = re.compile(r"(?<![^\W\d_])(?:" + "|".join(_LABELS) + r")(?![^\W\d_])")
_REFERENCE_GAP = re.compile(r"[^\w\n]*(?:[^\W\d_]{1,6}[^\w\n]+){0,3}\Z")  # "number is #", ": ", " nr. "
_ANSWER_LEAD = re.compile(r"[ \t]*(?:[^\W\d_][^\W\d_'’.-]{0,19}(?:[ \t][^\W\d_]{1,20})?[ \t]*:[ \t]*|>[ \t]*)?"
                          r"(?:[^\W\d_]{1,5}(?:['’][^\W\d_]{1,2})?,?[ \t]+){0,3}#?\Z")
_REFERENCE_REACH = 40
# Words that name a phone or calling (``CONTEXT`` and the other languages' words for a phone, its number and the
# verb: "llamar", "rappeler", "chiamare", "ligar", "bellen", "anrufen", "zadzwonić").
_PHONE_WORDS = re.compile(r"phone|call|tel[eé]?f|\btel\b|mobil|m[oó]vil|cell|celular|fax|contact|whatsapp|sms|handy"
                          r"|portable|gsm|komórk|rufnummer|llam|appel|chiam|ligar|ligue|bel(?:len)?\b|anruf|rufen"
                          r"|zadzwo|dzwoń|reach")
# Two places a number's '+' or its absence says nothing the candidate reads. A vCard's TEL property (RFC 6350 6.4.1,
# RFC 2426 3.3.1) holds the number after the colon that ends its parameters, a global number with its '+'
# ("TEL;TYPE=CELL:+1-506-234-6803", "item1.TEL;type=WORK:+44 20 7946 0958"): the candidate takes no '+' after a colon
# but a URI scheme's ("uri:+45 ..." is no number). WhatsApp's click-to-chat links give the international number's
# digits without its '+' ("https://wa.me/34612345678", "api.whatsapp.com/send?phone=34612345678"). Each is judged as
# an international number; a text holds neither without ":+", "wa.me/" or "phone=".
_VCARD_TEL = re.compile(
    r"(?im)^[ \t]*(?:[a-z0-9-]+\.)?TEL(?:;[^:\r\n]*)?:"
    r"(?P<number>\+[0-9](?:[ \t().-]{0,2}[0-9]){5,16})(?![\w:/]|\.[0-9])"
)
_CHAT_LINK = re.compile(
    r"(?:wa\.me/|whatsapp\.com/send/?\?phone=|whatsapp://send/?\?phone=)(?P<digits>[1-9][0-9]{6,14})(?![0-9])"
)
_SSN_WORD_BEFORE = re.compile(r"(?i)(?<![\w])(?:ssn|social security(?: number| no\.?)?)[ \t]*[:#=]?[ \t]*\Z")
_LABEL_REACH = 28


# The judgements of this thread's current scan (``judgements_shared``), per set of national regions; None: no scan.
_scan = threading.local()


@contextmanager
def judgements_shared() -> Iterator[None]:
    """Within the block, the phone detectors of this thread keep each candidate's judgement for the texts that
    follow: a request's message and the windows read around its boundaries hold the same numbers, and validating one
    costs tens of microseconds. Kept for one scan only, never across requests: how fast a number is judged would
    tell one tenant that another had just sent it."""
    if getattr(_scan, "judged", None) is not None:
        yield  # an outer scan's block already shares them
        return
    _scan.judged = {}
    try:
        yield
    finally:
        _scan.judged = None


def _valid_region(candidate: str, region: str | None, national: NationalForm | None = None) -> str | None:
    """The region of ``candidate`` read as dialled from ``region`` when it is a valid number there (None: unreadable
    or invalid); ``national``: the candidate's ``national_form``, where the caller tries it in several regions.
    ``phonenumbers.is_valid_number``'s own steps, its region kept: ``region_code_for_number``, then
    ``is_valid_number_for_region``. A country code shared by several regions (North America's +1) has its region
    found by validating the number in each in turn, the dearest part of validating one; the region found that way
    is valid by that very test, which is not run a second time."""
    number: PhoneNumber | None
    if region is None and _PLAIN_INTERNATIONAL.issuperset(candidate) and candidate.rfind("+") == 0:
        number = _parsed_international(candidate)
    elif region is not None and national is not None:
        number = _parsed_national(national, region)
    else:
        try:
            number = phonenumbers.parse(candidate, region)
        except phonenumbers.NumberParseException:
            return None
    if number is None:
        return None
    regions = COUNTRY_CODE_TO_REGION_CODE.get(number.country_code) if number.country_code is not None else None
    if not regions:
        return None
    number_region = regions[0]
    if len(regions) > 1:
        national_number = phonenumbers.national_significant_number(number)
        for number_region in regions:  # ``region_code_for_number``'s own search
            metadata = PhoneMetadata.metadata_for_region(number_region.upper(), None)
            if metadata is None:
                continue
            if metadata.leading_digits is not None:
                if re_compile(metadata.leading_digits).match(national_number):
                    break
            elif _has_type(national_number, metadata):
                return number_region  # ``is_valid_number_for_region``'s test, just passed
        else:
            return None
    return number_region if _valid_for_region(number, number_region) else None


def _valid_for_region(number: PhoneNumber, region: str) -> bool:
    """``phonenumbers.is_valid_number_for_region``, its type test ``_has_type``."""
    if number.country_code is None:
        return False  # no region's number: its metadata is none, or its region's country code another
    metadata = PhoneMetadata.metadata_for_region_or_calling_code(number.country_code, region.upper())
    if metadata is None or (
        region != REGION_CODE_FOR_NON_GEO_ENTITY and number.country_code != country_code_for_valid_region(region)
    ):
        return False
    return _has_type(phonenumbers.national_significant_number(number), metadata)


# The number types a region's metadata describes besides fixed lines and mobiles.
_RARER_TYPES = ("premium_rate", "toll_free", "shared_cost", "voip", "personal_number", "pager", "uan", "voicemail")


def _has_type(national_number: str, metadata: PhoneMetadata) -> bool:
    """``_number_type_helper(national_number, metadata) != PhoneNumberType.UNKNOWN``: the number fits the region's
    general description and one of its types'. The helper reads eight rarer types' patterns before a fixed line's and
    a mobile's, which most numbers are: here those two are read first (the mobile's only where its pattern is not the
    fixed line's, as the helper reads it), the others only for a number that is neither."""
    if not _is_number_matching_desc(national_number, metadata.general_desc):
        return False
    if _is_number_matching_desc(national_number, metadata.fixed_line):
        return True
    if not metadata.same_mobile_and_fixed_line_pattern and _is_number_matching_desc(national_number, metadata.mobile):
        return True
    return any(_is_number_matching_desc(national_number, getattr(metadata, name)) for name in _RARER_TYPES)



# An international number written with a '+' and digits joined by spaces, brackets, dots and dashes only: what
# ``phonenumbers.parse`` does with one, without its steps for text around a number (extraction, RFC 3966, extensions,
# letters, other scripts' digits), none of which such a string holds. Half of parsing one was those steps.
_PLAIN_INTERNATIONAL = frozenset("+0123456789 ().-")
_NOT_DIGITS = str.maketrans("", "", "+ ().-")
_NOT_PLAIN_LENGTHS = (ValidationResult.TOO_SHORT, ValidationResult.IS_POSSIBLE_LOCAL_ONLY,
                      ValidationResult.INVALID_LENGTH)  # fmt: skip


# Every country calling code as the digits that write it: ``_country_code``'s lookups.
_COUNTRY_CODES = {str(code): code for code in COUNTRY_CODE_TO_REGION_CODE}


def _country_code(digits: str) -> tuple[int, str]:
    """``phonenumbers``' ``_extract_country_code(digits)`` for a string of ASCII digits: the country code its first one
    to three digits write, and the digits after it ((0, digits): none). Its ``int`` of each prefix (in a ``try``) is a
    dictionary lookup of the prefix here: no code opens with a '0', so a prefix writes a code only as ``str`` does."""
    if not digits or digits[0] == "0":
        return 0, digits
    for size in range(1, min(len(digits), _MAX_LENGTH_COUNTRY_CODE) + 1):
        code = _COUNTRY_CODES.get(digits[:size])
        if code is not None:
            return code, digits[size:]
    return 0, digits


def _parsed_international(candidate: str) -> PhoneNumber | None:
    """``phonenumbers.parse(candidate, None)`` for a '+' at the start of `candidate` and only ``_PLAIN_INTERNATIONAL``
    after it (None: it raises), step by step as ``parse`` takes them for such a string."""
    digits = candidate.translate(_NOT_DIGITS)
    if len(digits) <= _MIN_LENGTH_FOR_NSN or len(candidate) > 250:  # parse's TOO_SHORT_AFTER_IDD, its input limit
        return None
    country_code, national = _country_code(digits)
    if country_code == 0:
        return None  # not a country code: parse's INVALID_COUNTRY_CODE
    number = PhoneNumber(country_code=country_code)
    metadata = PhoneMetadata.metadata_for_region_or_calling_code(
        country_code, region_code_for_country_code(country_code)
    )
    return _with_national_number(number, national, metadata)


def _with_national_number(number: PhoneNumber, national: str, metadata: PhoneMetadata | None) -> PhoneNumber | None:
    """``parse``'s last steps: `number` with the national number `national` holds once the national prefix and
    carrier code that `metadata` names are stripped where what is left has a length of the region's (None: parse
    raises, the national number too short or too long)."""
    if len(national) < _MIN_LENGTH_FOR_NSN:
        return None
    if metadata is not None:
        _, stripped, _ = _maybe_strip_national_prefix_carrier_code(national, metadata)
        if _test_number_length(stripped, metadata) not in _NOT_PLAIN_LENGTHS:
            national = stripped
    if not _MIN_LENGTH_FOR_NSN <= len(national) <= _MAX_LENGTH_FOR_NSN:
        return None
    _set_italian_leading_zeros_for_phone_number(national, number)
    number.national_number = int(national)
    return number


# A national form is tried in each of ``NATIONAL_REGIONS``: ``phonenumbers.parse`` would redo, for every region, the
# steps that read no region (extracting the number from the string, the viability and extension patterns, and
# normalising its digits twice, a Python loop over each character), over half of parsing one. Those are taken once
# (``national_form``), the region's own steps after them (``_parsed_national``). A candidate holds no '+' and no
# letter on this path, so its digits are all its normalised form holds.
_PLAIN_NATIONAL = frozenset("0123456789 \t().-/")


@dataclass(frozen=True, slots=True)
class NationalForm:
    """What ``phonenumbers.parse`` reads of a national form before it looks at the region: its extension, the
    number string left of it, and that string's digits."""

    extension: str
    number: str
    digits: str


def national_form(candidate: str) -> NationalForm | None:
    """``phonenumbers.parse(candidate, region)``'s region-free steps, for a candidate of ``_PLAIN_NATIONAL`` only
    (None: another candidate, or one that ``parse`` rejects in every region before reading its region)."""
    if not _PLAIN_NATIONAL.issuperset(candidate) or len(candidate) > _MAX_INPUT_STRING_LENGTH:
        return None
    try:
        number = _build_national_number_for_parsing(candidate)
    except phonenumbers.NumberParseException:
        return None
    if not _is_viable_phone_number(number):
        return None  # parse's NOT_A_NUMBER
    extension, number = _maybe_strip_extension(number)
    return NationalForm(extension, number, _normalize(number))


def _parsed_national(form: NationalForm, region: str) -> PhoneNumber | None:
    """``phonenumbers.parse(candidate, region)`` from the candidate's ``national_form`` (None: it raises), step by step
    as ``parse`` and its ``_maybe_extract_country_code`` take them for a string with no '+'."""
    if not _is_valid_region_code(region):
        return None  # parse's INVALID_COUNTRY_CODE: no region, and no '+' to read one from
    metadata = PhoneMetadata.metadata_for_region(region.upper(), None)
    if metadata is None:
        return None  # none for a supported region
    number = PhoneNumber()
    if form.extension:
        number.extension = form.extension
    country_code, national = _country_code_dialled(form, metadata, number)
    if country_code is None:
        return None
    if country_code != 0:
        number_region = region_code_for_country_code(country_code)
        if number_region != region:
            metadata = PhoneMetadata.metadata_for_region_or_calling_code(country_code, number_region)
    else:
        national = form.digits
        number.country_code = metadata.country_code
    return _with_national_number(number, national, metadata)


def _country_code_dialled(form: NationalForm, metadata: PhoneMetadata,
                          number: PhoneNumber) -> tuple[int | None, str]:  # fmt: skip
    """``_maybe_extract_country_code(form.number, metadata, False, number)`` with the form's digits normalised once:
    the country code and the national number after it, (0, "") for none, (None, "") where it raises (and ``parse``
    with it: its retry after a '+' has none to strip)."""
    if not form.number:
        return 0, ""
    digits = form.digits
    idd = re_compile(metadata.international_prefix) if metadata.international_prefix is not None else None
    prefix = idd.match(digits) if idd is not None else None
    if prefix is not None and digits[prefix.end() : prefix.end() + 1] != "0":  # no country code opens with a 0
        dialled = digits[prefix.end() :]
        if len(dialled) <= _MIN_LENGTH_FOR_NSN:
            return None, ""  # TOO_SHORT_AFTER_IDD
        country_code, rest = _country_code(dialled)
        if country_code == 0:
            return None, ""  # INVALID_COUNTRY_CODE
        number.country_code = country_code
        return country_code, rest
    own_code = str(metadata.country_code)
    if digits.startswith(own_code):
        general_desc = metadata.general_desc
        _, national, _ = _maybe_strip_national_prefix_carrier_code(digits[len(own_code) :], metadata)
        fits_as_written = _match_national_number(digits, general_desc, False)
        if ((not fits_as_written and _match_national_number(national, general_desc, False))
                or _test_number_length(digits, metadata) == ValidationResult.TOO_LONG):  # fmt: skip
            number.country_code = metadata.country_code
            return metadata.country_code, national
    number.country_code = 0
    return 0, ""

class PhoneNumberRecognizer(EntityRecognizer):
    """PHONE_NUMBER: international forms of every region, national forms of ``NATIONAL_REGIONS``.

    Scores: international form 0.75; national form in groups that libphonenumber's matcher accepts for the region
    ("(415) 555-0132", "06 12 34 56 78", "030 1234567") 0.6; a bare run of ten digits that is a valid North American
    number ("4155550132": area code and exchange rules leave few random runs valid) 0.55; any other bare run, or one
    without the national prefix its region needs, or grouped otherwise, 0.4, which counts only with a phone word
    nearby (+0.35).
    """

    INTERNATIONAL_SCORE = 0.75
    FORMATTED_SCORE = 0.6
    NANP_BARE_SCORE = 0.55
    BARE_SCORE = 0.4

    def __init__(self, national_regions: tuple[str, ...] = NATIONAL_REGIONS) -> None:
        self._regions = national_regions
        super().__init__(supported_entities=["PHONE_NUMBER"], context=CONTEXT, name="PhoneNumberRecognizer")

    def load(self) -> None:
        pass

    def analyze(self, text: str, entities: list[str], nlp_artifacts: object = None) -> list[RecognizerResult]:
        results = []
        position = 0
        # A text that repeats a number, or one long run of digit groups, offers the same candidate string many times;
        # its judgement depends on the string (and the national regions) alone. Within a scan, the texts share them.
        shared: dict[tuple[str, ...], dict[str, tuple[float, str] | None]] | None = getattr(_scan, "judged", None)
        judged = {} if shared is None else shared.setdefault(self._regions, {})
        scan_budget = budget.current()  # looked up once: checked at each candidate
        while (digits := _DIGITS_OF_A_RUN.search(text, position)) is not None:
            candidate = _CANDIDATE.search(text, max(position, candidate_search_start(text, digits.start())))
            if candidate is None:
                break
            if scan_budget is not None:
                scan_budget.check()  # a scan past its CPU budget stops at the next candidate, not at a long text's end
            matched = candidate.group()
            start = candidate.start() + (len(matched) - len(matched.lstrip()))
            position = candidate.end()
            # A run cut short of a token that goes on ends no number: only the numbers listed before that token may
            # (a phone before an SSN or a card in one run of groups: "+973 3608 4533\t707-14-1645").
            goes_on = _RUN_GOES_ON.match(text, position) is not None
            if text[start] != "+":
                if _IBAN_HEAD.search(text, max(0, start - _IBAN_HEAD_REACH), start):
                    continue  # an IBAN's digits after its country code and check digits ("DE89 3704 0044 ...")
                if is_record_id(text, start):
                    continue  # a JSON record's "id" ('"id": "9928351761442"'): an identifier, dialled by nobody
                groups = _DIGIT_GROUP.findall(text, start, position)
                if card_network("".join(groups)):
                    continue  # a card number: its leading groups are no phone number
                if len(groups) >= 4 and all(len(group) == 4 for group in groups):
                    continue  # four-digit groups of card length that fail Luhn: a SKU or a reference, no phone
            # Several numbers in one run ("415 555 0132 415 555 0199"): the best-scoring valid number from the run's
            # start that ends at a group boundary (the longest of equals), then the rest of the run on its own.
            best: tuple[float, int, str] | None = None
            # A shorter end replaces the best only with a higher score: once the best is the highest any end of this
            # run can score, the shorter ends are not judged.
            top = self.INTERNATIONAL_SCORE if _INTERNATIONAL_PREFIX.match(text, start) else self.FORMATTED_SCORE
            for end in self._group_ends(text, start, candidate.end()):
                if goes_on and end == candidate.end():
                    continue
                if end < candidate.end() and _digits_running_on(text, end) < _MIN_DIGITS:
                    continue  # what would follow is too short to be a number: the run is one value, not a list
                number = text[start:end]
                if number in judged:
                    found = judged[number]
                else:
                    found = judged[number] = self._judge(number)
                if found is not None and (best is None or found[0] > best[0]):
                    best = (found[0], end, found[1])
                    if best[0] >= top:
                        break
            if best is not None:
                score, end, region = best
                if score == self.BARE_SCORE and _SSN_WORD_BEFORE.search(text, max(0, start - _LABEL_REACH), start):
                    continue  # "SSN 498356041": the number's own label says what it is
                if score <= self.NANP_BARE_SCORE and _named_a_reference(text, start):
                    continue  # "case number is 4958496575": a reference, unless written as a phone is
                explanation = AnalysisExplanation(self.name, score, pattern_name=f"phone ({region})")
                results.append(RecognizerResult("PHONE_NUMBER", start, end, score, explanation))
                position = end
        if ":+" in text or "wa.me/" in text or "phone=" in text:
            results = self._vcard_and_chat_link_numbers(text, results, judged)
        return results

    def _vcard_and_chat_link_numbers(
        self, text: str, results: list[RecognizerResult], judged: dict[str, tuple[float, str] | None]
    ) -> list[RecognizerResult]:
        """``results`` with the numbers of vCard TEL properties and WhatsApp links (``_VCARD_TEL``, ``_CHAT_LINK``)
        in place of whatever part of them the candidates found."""
        numbers: list[tuple[int, int, str]] = []
        if ":+" in text:
            numbers += [(m.start("number"), m.end("number"), m.group("number")) for m in _VCARD_TEL.finditer(text)]
        if "wa.me/" in text or "phone=" in text:
            numbers += [
                (m.start("digits"), m.end("digits"), "+" + m.group("digits")) for m in _CHAT_LINK.finditer(text)
            ]
        for start, end, number in numbers:
            found = judged[number] if number in judged else judged.setdefault(number, self._judge(number))
            if found is None or found[0] < self.INTERNATIONAL_SCORE:
                continue
            explanation = AnalysisExplanation(self.name, found[0], pattern_name=f"phone ({found[1]})")
            results = [r for r in results if r.end <= start or r.start >= end]
            results.append(RecognizerResult("PHONE_NUMBER", start, end, found[0], explanation))
        return sorted(results, key=lambda r: r.start)

    @staticmethod
    def _group_ends(text: str, start: int, end: int) -> Iterator[int]:
        """Where a number may end inside the run, longest first: the run's end, then the end of each digit group
        followed by a space (numbers listed one after the other; a dash or dot joins the groups of one token). The
        others are read only when asked for: a number whose whole run scores the best any end can is not split."""
        yield end
        ends = [group.end() for group in _DIGIT_GROUP.finditer(text, start, end) if text[group.end() : group.end() + 1]
                in (" ", "\t")]
        ends.reverse()
        yield from [e for e in ends if e != end][:_MAX_SPLIT_TRIES]

    def _judge(self, candidate: str) -> tuple[float, str] | None:
        if not _MIN_DIGITS <= _digit_count(candidate) <= _MAX_DIGITS:
            return None
        if not _DATE_SEPARATORS.isdisjoint(candidate) and _DATE_LIKE.search(candidate):
            return None
        if _DECIMAL.fullmatch(candidate) or _is_ipv4(candidate):
            return None
        if _INTERNATIONAL_PREFIX.match(candidate):
            international = "+" + candidate[2:] if candidate.startswith("00") else candidate
            region = _valid_region(international, None)
            if region is not None:
                return self.INTERNATIONAL_SCORE, region
            if candidate.startswith("+"):
                return None
        groups = _DIGIT_GROUP.findall(candidate)
        grouped = len(groups) >= 2
        if grouped and _printed_national_id(candidate):
            return None
        bare_region = None
        national = national_form(candidate)
        for region in self._regions:
            # One group can score above a bare run only as a North American ten-digit number: once a bare region is
            # found, the other regions cannot change the answer and are not parsed.
            nanp_bare = region in _NANP_REGIONS and len(groups[0]) == 10
            if bare_region is not None and not grouped and not nanp_bare:
                continue
            if _valid_region(candidate, region, national) is None:
                continue
            if (grouped or nanp_bare) and _written_as_dialled(candidate, region):
                if len(groups) >= 2:
                    return self.FORMATTED_SCORE, region
                if region in _NANP_REGIONS and len(groups[0]) == 10:
                    return self.NANP_BARE_SCORE, region
            bare_region = bare_region or region
        if (bare_region is None or _SSN_GROUPS.fullmatch(candidate) or _EPOCH_MILLISECONDS.fullmatch(candidate)
                or _SPACED_DATE.fullmatch(candidate)):  # fmt: skip
            return None
        return self.BARE_SCORE, bare_region


def _printed_national_id(candidate: str) -> bool:
    """Whether a national form is a national identifier as its issuer prints it, which its validator accepts: a
    Brazilian CPF's "489.986.937-12", a German IdNr's "40 790 083 151" (a bare run is left to the phone rules: its
    shape is any number's)."""
    return any(scheme.pattern.fullmatch(candidate) is not None and scheme.is_valid(candidate) for scheme in SCHEMES)


def _digit_count(text: str) -> int:
    return sum(map(str.isdigit, text))


# What an IPv4 address is written with; ``ipaddress`` raises on anything else (a space, a '+', a bracket).
_IPV4_CHARS = frozenset("0123456789.")


def _is_ipv4(candidate: str) -> bool:
    if not _IPV4_CHARS.issuperset(candidate):
        return False  # a phone number's usual case, told without raising and catching ipaddress's ValueError
    try:
        return ipaddress.ip_address(candidate).version == 4
    except ValueError:
        return False


def _written_as_dialled(candidate: str, region: str) -> bool:
    """Whether libphonenumber's matcher, at EXACT_GROUPING, reads all of `candidate` as one number of `region`:
    valid, with the national prefix where the region's format needs it, in the digit groups the region writes.

    Only the matcher's first match can span the whole text (each later one starts after the one before it ends),
    and it does only when the matcher's own candidate pattern spans it and the whole of it verifies: the "inner
    matches" the matcher tries once it does not are shorter pieces of it. So the matcher's steps for its first
    candidate are taken (``PhoneNumberMatcher._find`` and ``_extract_match``) without those for the pieces, nor the
    search on for further matches (a third of the matcher's time)."""
    found = _MATCHER_CANDIDATE.search(candidate)
    if found is None or found.span() != (0, len(candidate)) or _SECOND_NUMBER_START_PATTERN.search(candidate):
        return False  # the matcher's first candidate is shorter than the text
    if _SLASH_SEPARATED_DATES.search(candidate):
        return False  # a date: the matcher reads no number in it (its time-stamp test reads the text after it: none)
    matcher = PhoneNumberMatcher(candidate, region, leniency=Leniency.EXACT_GROUPING)
    return matcher._parse_and_verify(candidate, 0) is not None


def _named_a_reference(text: str, start: int) -> bool:
    """Whether a reference's or an item's label (``REFERENCE_LABELS``, ``ITEM_LABELS``) names the number at `start`:
    right before it on its line, or ending the line above a line the number answers, with no phone word after the
    label."""
    line_start = text.rfind("\n", 0, start) + 1
    lead_start = max(line_start, start - _REFERENCE_REACH)
    lead = text[lead_start:start].lower()
    label = _last(_REFERENCE_LABEL.finditer(lead))
    if label is not None:
        return _REFERENCE_GAP.match(lead, label.end()) is not None and _PHONE_WORDS.search(lead, label.end()) is None
    if not line_start or _ANSWER_LEAD.match(text, line_start, start) is None:
        return False
    above_start = max(text.rfind("\n", 0, line_start - 1) + 1, line_start - 1 - _REFERENCE_REACH)
    above = text[above_start : line_start - 1].lower()
    label = _last(_REFERENCE_LABEL.finditer(above))
    return (label is not None and _REFERENCE_GAP.match(above, label.end()) is not None
            and _PHONE_WORDS.search(above, label.end()) is None)  # fmt: skip


def _last(matches: Iterator[re.Match[str]]) -> re.Match[str] | None:
    last = None
    for last in matches:  # noqa: B007
        pass
    return last
