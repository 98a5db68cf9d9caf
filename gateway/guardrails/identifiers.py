"""IBANs of every country and national identifiers, validated by python-stdnum.

A shape regex finds candidates; stdnum's validator (check digits, country formats, date and region rules) decides.
The validators differ in strength, and the scores follow: an IBAN's mod-97 check or a French NIR's two-digit key
leave about one random string in a hundred, a Spanish DNI's letter one in 23, a UK National Insurance number has no
check digit at all. A value written as its issuer prints it (groups, dots, a dash) scores higher than the same
digits as a bare run, which order ids and phone numbers share; a bare run counts only with context words nearby.
The printings people write besides are read too: a NIR's groups joined by dots or dashes, a DNI with its thousands'
dots ("12.345.678-Z"), a NINO's pairs joined by dashes, a CPF's check digits after a dot, a codice fiscale in its
four groups ("RSS MRA 85T10 A562S"), and a PAN in lower case (chat; with a context word only).

NATIONAL_ID covers the identifiers below, US ITINs included: an ITIN is no Social Security number (it is issued to
those who cannot have one), so it is reported apart from US_SSN, and scores above the SSN recognizer's 3-2-4 shape
so the overlap goes to it.
"""

from __future__ import annotations

import ipaddress
import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass

from presidio_analyzer import AnalysisExplanation, EntityRecognizer, RecognizerResult
from stdnum import iban
from stdnum.br import cpf
from stdnum.de import idnr
from stdnum.es import dni, nie
from stdnum.fr import nir
from stdnum.in_ import aadhaar, pan
from stdnum.it import codicefiscale
from stdnum.us import itin, ssn

from gateway.guardrails.prefilters import AfterNonWord
from gateway.guardrails.windows import add_window

# An IBAN: country code, check digits, then up to 30 letters and digits, grouped by single spaces or dashes or not.
# Case-insensitive (lower-case chat); the exact end is found by validation.
_IBAN_CANDIDATE = re.compile(r"(?<![A-Za-z0-9])[A-Za-z]{2}[0-9]{2}(?:[ -]?[A-Za-z0-9]){10,30}")
_IBAN_MIN_CHARS = 15  # Norway's 15 characters is the shortest IBAN


class IbanCodeRecognizer(EntityRecognizer):
    """IBAN_CODE for every country stdnum knows, with its mod-97 check and the country's own BBAN format."""

    SCORE = 1.0
    CONTEXT = ["iban", "bank", "account", "transfer", "wire", "sepa", "compte", "cuenta", "konto", "bic"]  # noqa: RUF012

    def __init__(self) -> None:
        super().__init__(supported_entities=["IBAN_CODE"], context=self.CONTEXT, name="IbanCodeRecognizer")

    def load(self) -> None:
        pass

    def analyze(self, text: str, entities: list[str], nlp_artifacts: object = None) -> list[RecognizerResult]:
        results = []
        for candidate in _IBAN_CANDIDATE.finditer(text):
            end = self._valid_end(text, candidate.start(), candidate.end())
            if end is not None:
                explanation = AnalysisExplanation(self.name, self.SCORE, pattern_name="iban (stdnum)")
                results.append(RecognizerResult("IBAN_CODE", candidate.start(), end, self.SCORE, explanation))
        return results

    @staticmethod
    def _valid_end(text: str, start: int, end: int) -> int | None:
        """The longest valid IBAN from ``start`` that ends before a non-alphanumeric character (a trailing word the
        candidate swallowed, "DE89 3704 0044 0532 0130 00 for", is cut off)."""
        for stop in range(end, start + _IBAN_MIN_CHARS - 1, -1):
            if stop < len(text) and text[stop].isalnum():
                continue
            if not text[stop - 1].isalnum():
                continue
            if iban.is_valid(text[start:stop]):
                return stop
        return None


@dataclass(frozen=True, slots=True)
class IdScheme:
    """One national identifier: its shape, its validator, and the scores of a printed and a bare form."""

    name: str
    pattern: re.Pattern[str]
    is_valid: Callable[[str], bool]
    score: float  # as the issuer prints it (with its separators, or a shape that is never a plain number)
    bare_score: float  # a run of digits alone: common shapes, below the default threshold without context


def _uk_nino_valid(value: str) -> bool:
    """HMRC's rules for a National Insurance number's prefix (no check digit exists)."""
    compact = re.sub(r"[\s-]", "", value).upper()
    return compact[:2] not in {"BG", "GB", "KN", "NK", "NT", "TN", "ZZ"}


def _shape(first: str, rest: str) -> re.Pattern[str]:
    """An identifier whose first character is ``first`` (one character class) and the rest ``rest``, standing alone:
    after no word character, dot or dash, and before none. The look-behind is read after the first character, so
    the pattern opens with a character class and the regex engine skips straight to the positions that hold one
    (the same matches as the look-behind written first)."""
    return re.compile(rf"{first}(?<![\w.-][\s\S]){rest}(?![\w]|[.-]\w)")


def _itin_valid(value: str) -> bool:
    return itin.is_valid(re.sub(r"[\s-]", "", value))  # stdnum reads dashes but not spaces


def _nir_valid(value: str) -> bool:
    return nir.is_valid(value.replace("-", ""))  # stdnum reads spaces and dots but not dashes


def _cpf_valid(value: str) -> bool:
    """A CPF, but no IPv4 address: a CPF's check digits after a dot ("390.533.447.05") give its dotted quad's shape
    ("150.239.176.73")."""
    if value.count(".") == 3:
        try:
            ipaddress.IPv4Address(value)
        except ValueError:
            pass
        else:
            return False
    return cpf.is_valid(value)


def _dni_valid(value: str) -> bool:
    return dni.is_valid(value.replace(".", ""))  # stdnum reads spaces and dashes but not the thousands' dots


_D = "[0-9]"  # ASCII digits: the detectors read the reader view, where other scripts' digits are already folded


def _nir_groups(separator: str) -> str:
    """A NIR after its first digit, its groups apart by ``separator``."""
    return (rf"{separator}{_D}{{2}}{separator}(?:0[1-9]|1[0-2]|[2-9]{_D}){separator}(?:{_D}{{2}}|2[ABab])"
            rf"{separator}{_D}{{3}}{separator}{_D}{{3}}{separator}{_D}{{2}}")  # fmt: skip


# after its first digit, a NIR's groups apart by spaces (or none), by dots or by dashes, each printing its own
_NIR_REST = f"(?:{_nir_groups(' ?')}|{_nir_groups(re.escape('.'))}|{_nir_groups('-')})"
_CF_DIGIT = "[0-9LMNP-Vlmnp-v]"  # a codice fiscale digit, or the letter that replaces it for a homonym

SCHEMES: tuple[IdScheme, ...] = (
    IdScheme("uk_nino", _shape("[A-CEGHJ-PR-TW-Z]", rf"[A-CEGHJ-NPR-TW-Z](?: ?{_D}{{2}} ?{_D}{{2}} ?{_D}{{2}} ?"
                                                    rf"|-{_D}{{2}}-{_D}{{2}}-{_D}{{2}}-)[A-D]"),
             _uk_nino_valid, 0.7, 0.7),
    IdScheme("de_idnr", _shape(_D, rf"{_D} ?{_D}{{3}} ?{_D}{{3}} ?{_D}{{3}}"), idnr.is_valid, 0.6, 0.4),
    IdScheme("fr_nir", _shape("[12]", _NIR_REST), _nir_valid, 0.85, 0.85),
    IdScheme("es_dni", _shape(_D, rf"(?:{_D}{{7}}[ -]?[A-Za-z]|{_D}?\.{_D}{{3}}\.{_D}{{3}}(?:-[A-Za-z]| ?[A-Z]))"),
             _dni_valid, 0.75, 0.75),
    IdScheme("es_nie", _shape("[XYZxyz]", rf"[ -]?{_D}{{7}}[ -]?[A-Za-z]"), nie.is_valid, 0.75, 0.75),
    IdScheme("it_codice_fiscale", _shape("[A-Za-z]", rf"(?:[A-Za-z]{{5}}{_CF_DIGIT}{{2}}[A-Za-z]{_CF_DIGIT}{{2}}"
                                         rf"[A-Za-z]{_CF_DIGIT}{{3}}|[A-Za-z]{{2}} [A-Za-z]{{3}} {_D}{{2}}[A-Za-z]"
                                         rf"{_D}{{2}} [A-Za-z]{_CF_DIGIT}{{3}})[A-Za-z]"), codicefiscale.is_valid,
             0.85, 0.85),
    IdScheme("br_cpf", _shape(_D, rf"{_D}{{2}}\.?{_D}{{3}}\.?{_D}{{3}}[.-]?{_D}{{2}}"), _cpf_valid, 0.8, 0.4),
    IdScheme("in_pan", _shape("[A-Z]", rf"[A-Z]{{4}}{_D}{{4}}[A-Z]"), pan.is_valid, 0.7, 0.7),
    # in lower case (chat): with a context word only
    IdScheme("in_pan", _shape("[a-z]", rf"[a-z]{{4}}{_D}{{4}}[a-z]"), pan.is_valid, 0.4, 0.4),
    IdScheme("us_itin", _shape("9", rf"{_D}{{2}}[ -]?(?:5{_D}|6[0-5]|7{_D}|8[0-8]|9[0-24-9])[ -]?{_D}{{4}}"),
             _itin_valid, 0.8, 0.4),
    IdScheme("in_aadhaar", _shape("[2-9]", rf"{_D}{{3}}[ -]?{_D}{{4}}[ -]?{_D}{{4}}"), aadhaar.is_valid, 0.7, 0.4),
)  # fmt: skip


# Whether a text may hold any scheme's shape: one search opening with a digit (the regex engine skips to digits) and
# one opening with a character an identifier may stand behind, instead of ten scans, most of them led by a letter
# class tried at every letter. Each branch, read after the first digit, is a scheme or a looser shape that every
# match of one holds: the digit schemes as written but for their trailing look-ahead (so no match inside a window is
# missed), a NINO's three digit pairs and its letter, a NIE's seven digits and letter (which a DNI's eight digits
# and letter hold too), a dotted DNI's last two groups and letter, a PAN's four digits behind five letters of one
# case, a codice fiscale's last two groups as it is written in four. A codice fiscale may hold no digit at all (a
# homonym's digits are letters), so it is looked for after the non-word character or the start it follows, only in the
# runs of non-space characters long enough to hold its 16.
_DIGIT_LED_SHAPES = re.compile(
    rf"{_D}(?:(?<![\w.-]{_D})(?:{_D} ?{_D}{{3}} ?{_D}{{3}} ?{_D}{{3}}"  # de_idnr
    rf"|(?<=[12]){_NIR_REST}"  # fr_nir
    rf"|{_D}{{2}}\.?{_D}{{3}}\.?{_D}{{3}}[.-]?{_D}{{2}}"  # br_cpf
    rf"|(?<=9){_D}{{2}}[ -]?(?:5{_D}|6[0-5]|7{_D}|8[0-8]|9[0-24-9])[ -]?{_D}{{4}}"  # us_itin
    rf"|(?<=[2-9]){_D}{{3}}[ -]?{_D}{{4}}[ -]?{_D}{{4}})"  # in_aadhaar
    rf"|{_D}(?: ?{_D}{{2}} ?{_D}{{2}} ?[A-D]|-{_D}{{2}}-{_D}{{2}}-[A-D]"  # uk_nino's digits and last letter
    rf"|[A-Za-z]{_D}{{2}} [A-Za-z]{_CF_DIGIT}{{3}}[A-Za-z])"  # it_codice_fiscale in groups: its last two
    rf"|{_D}{{2}}(?:{_D}{{4}}[ -]?[A-Za-z]"  # es_nie's digits and letter, es_dni's too
    rf"|\.{_D}{{3}}(?:-[A-Za-z]| ?[A-Z]))"  # es_dni's last digits and letter as dotted
    rf"|{_D}{{3}}(?<=[A-Za-z]{{5}}{_D}{{4}})[A-Za-z])"  # in_pan, in either case
)  # fmt: skip
_CODICE_FISCALE_SHAPE = AfterNonWord(
    rf"[A-Za-z]{{6}}{_CF_DIGIT}{{2}}[A-Za-z]{_CF_DIGIT}{{2}}[A-Za-z]{_CF_DIGIT}{{3}}"
    rf"[A-Za-z]"
)
_CODICE_FISCALE_LENGTH = 16


def may_hold_national_id(text: str) -> bool:
    """Whether any scheme's shape may occur in ``text`` (true wherever one does: ``SCHEMES``' matches in any window
    of the text lie inside one of these searches' matches)."""
    if _DIGIT_LED_SHAPES.search(text) is not None:
        return True
    return any(_CODICE_FISCALE_SHAPE.search(word) is not None
               for word in text.split() if len(word) >= _CODICE_FISCALE_LENGTH)  # fmt: skip


# The digit pairs of a run, back to back, as one match: the windows the pairs one by one would open merge into the
# window of their stretch (``add_window``), which is opened at once.
_DIGIT_PAIRS = re.compile(r"[0-9]{2}(?:[0-9]{2})*")
_WINDOW_MARGIN = 24  # the longest identifier (a spaced NIR, 21 characters) fits on either side of a digit pair


# A digit group joined to an identifier by a space or a dash, after it or before it: the identifier's groups are part
# of a longer number ("6497 4787 2068" of a card's "6497 4787 2068 6802", an IBAN's "... 7245 2155 4750 5329", a SKU).
# Only an identifier written in groups of four is read so (an Aadhaar's "2341 2341 2346"): the runs of cards, IBANs
# and SKUs are grouped in fours, and another value listed after an identifier ("... 19.68.33.175") is no group.
_FOUR_GROUPS = re.compile(r"[0-9]{4}(?: [0-9]{4})+")
_GROUP_AFTER = re.compile(r" [0-9]{2,4}(?![\w.:/-])")
_GROUP_BEFORE = re.compile(r"(?<![\w.:/-])[A-Z0-9]{0,2}[0-9]{2,4} \Z")


def _in_longer_run(text: str, start: int, end: int) -> bool:
    """Whether text[start:end] is written in groups of four and another such group goes on before or after it."""
    if not _FOUR_GROUPS.fullmatch(text, start, end):
        return False
    return _GROUP_AFTER.match(text, end) is not None or _GROUP_BEFORE.search(text, max(0, start - 8), start) is not None


# Record slots whose standard says what the value in them is (a bare run of digits there needs no context word):
# - SWIFT MT field 50F: line 7 is a national identity number after its issuing country ("7/BR/40571553260"), line 6 a
#   customer identification number after its country and issuer; the party identifier names its kind with the ISO
#   20022 codes ("NIDN/DE/...", "SOSE/US/...").
# - ISO 20022's external person identification codes in an <Othr> identification: <Id>value</Id> then
#   <SchmeNm><Cd>CODE</Cd>.
# - X12's REF segment, by its reference qualifier: SY social security number, 0F subscriber number, 1W member
#   identification number, 23 client number, F6 health insurance claim number, Q4 prior identifier number (the
#   person identifiers of an 834 enrolment or an 837 claim).
# Codes: NIDN national identity number, SOSE social security number, TXID tax identification number, ARNU alien
# registration number. A value in a social security slot that is a valid SSN is reported as one.
_ID_CODES = ("NIDN", "SOSE", "TXID", "ARNU")
_SSN_CODES = frozenset({"SOSE", "SY", "0F"})
_X12_QUALIFIERS = ("SY", "0F", "1W", "23", "F6", "Q4")
_SLOT_VALUE = r"(?P<value>[0-9A-Za-z][0-9A-Za-z .-]{2,30}[0-9A-Za-z])"
_SLOT_BEFORE = re.compile(
    rf"(?m)(?:^(?P<line>[67])/[A-Z]{{2}}/(?:[^/\n]{{1,35}}/)?|(?:^|:50F:)/?(?P<party>{'|'.join(_ID_CODES)})/[A-Z]{{2}}/)"
    rf"{_SLOT_VALUE}(?=[\r\n~*|^]|\Z)"
)
# An X12 REF segment: its tag (no letter before it: "HREF*" is no segment), the element separator the interchange
# chose ('*', '|' or '^'), the reference qualifier and the reference value, up to the next element or the segment's
# end; the value as X12's AN elements hold it, a slash included ("996214/5314").
_X12_REF = re.compile(
    rf"REF(?<![A-Za-z]REF)(?P<sep>[*|^])(?P<qualifier>{'|'.join(_X12_QUALIFIERS)})(?P=sep)"
    r"(?P<value>[0-9A-Za-z][0-9A-Za-z ./-]{2,30}[0-9A-Za-z])(?=[\r\n~*|^]|\Z)"
)
_SLOT_AFTER = re.compile(
    rf"<Id>[ \t]*{_SLOT_VALUE}[ \t]*</Id>\s*<SchmeNm>\s*<Cd>(?P<code>{'|'.join(_ID_CODES)})</Cd>"
)
SLOT_SCORE = 0.85


def _slot_markers(text: str) -> bool:
    """Whether the text may hold a record slot (``_X12_REF``, ``_SLOT_BEFORE``, ``_SLOT_AFTER``): substring tests
    before any regex."""
    return "REF" in text or "</Cd>" in text or ":50F:" in text  # SWIFT's numbered lines and party codes are 50F's


def x12_ref_values(text: str) -> list[tuple[int, int, str]]:
    """The values of ``text``'s X12 REF segments of a person's identifier (``_X12_QUALIFIERS``): (start, end, the
    qualifier). The one reader of these segments: ``personal_ids`` reads the subscriber's, member's and social
    security numbers' values from it too."""
    if "REF" not in text:
        return []
    return [(m.start("value"), m.end("value"), m.group("qualifier")) for m in _X12_REF.finditer(text)]


def slot_values(text: str) -> list[tuple[int, int, str]]:
    """The values of ``text``'s identity slots: (start, end, the code or qualifier that names the slot, "7"/"6" for
    SWIFT's numbered lines)."""
    if not _slot_markers(text):
        return []
    found = x12_ref_values(text)
    for match in _SLOT_BEFORE.finditer(text):
        code = match.group("line") or match.group("party")
        found.append((match.start("value"), match.end("value"), code))
    if "</Cd>" in text:
        found.extend((m.start("value"), m.end("value"), m.group("code")) for m in _SLOT_AFTER.finditer(text))
    return found


def _slot_finding(schemes: tuple[IdScheme, ...], value: str, code: str) -> tuple[str, str] | None:
    """The entity and the scheme a slot's value is, by the validators of every scheme (the country a slot names is
    often not the one that issued the number), or None."""
    if code in _SSN_CODES and ssn.is_valid(value):
        return "US_SSN", "us_ssn"
    for scheme in schemes:
        if scheme.pattern.fullmatch(value) and scheme.is_valid(value):
            return "NATIONAL_ID", scheme.name
    return None


class NationalIdRecognizer(EntityRecognizer):
    """NATIONAL_ID: UK NINO, German tax IdNr, French NIR, Spanish DNI/NIE, Italian codice fiscale, Brazilian CPF,
    US ITIN, Indian PAN and Aadhaar, each as its stdnum validator accepts it."""

    CONTEXT = ["national insurance",  # noqa: RUF012
               "nino", "ni number", "insurance number", "steuer", "idnr", "identifikations",
               "tax id", "tax number", "taxpayer", "sécurité sociale", "securite sociale", "sécu", "nir", "insee",
               "numéro", "dni", "nie", "nif", "documento", "identidad", "codice fiscale", "fiscal", "cpf", "pan",
               "cadastro de pessoa",  # the CPF's name, Cadastro de Pessoas Físicas
               "aadhaar", "aadhar", "uidai", "itin", "national id", "national_id", "nationalid", "identity",
               "id number", "id_number", "id no", "id card", "id:", "id=", "id ", "personal number", "personal_id",
               "personnummer", "tax_id", "tax-id", "steuer-id", "personalausweis", "ausweis",
               # "identification number", "número de identificación", "numéro d'identification", "identifiant",
               # "Identifikationsnummer", "identificazione": one stem, as context words match from a word's start
               "identifica", "identifiant", "identifika", "identità", "identidade",
               # the national numbers' own names: Indonesian NIK on the KTP card, Hungarian personal id, Danish CPR,
               # Finnish and Norwegian personal numbers
               "identitas", "ktp", "személyi", "szemelyi", "id-nr", "cpr", "henkilötunnus",
               "fødselsnummer",
               # a record's key as code writes it ("IdNumber", "personal_code", "personalCode", "document_no"): the
               # words joined, which a context word's start matches case-insensitively
               *(joiner.join(words) for words in (("id", "number"), ("personal", "code"), ("document", "no"),
                                                  ("document", "number"), ("identity", "number"),
                                                  # Dutch and the Nordic languages' "ID-nummer"
                                                  ("id", "nummer"))
                 for joiner in ("", "_", "-", " ")),
               # the identity card's name elsewhere: Hebrew teudat zehut (ת.ז., ת"ז), Vietnamese căn cước / CMND /
               # CCCD, Greek ταυτότητα and AMKA, Bulgarian ЕГН and лична карта, Arabic and Persian national number
               "ת.ז", "ת\"ז", "תעודת זהות", "מספר זהות", "căn cước", "cmnd", "cccd", "ταυτότητ", "αμκα", "егн",
               "лична карта", "رقم الهوية", "کد ملی",
               # the national number, the personal number and the identity document as records key them
               # ("National No", "national_no", "Personal No.", "id_doc"), and a taxpayer identification number's
               # abbreviation as a whole word ("TIN:", "export TIN=", "record['tin']": a bare "tin" opens "tiny")
               *(f"{first}{joiner}{second}" for first, second in (("national", "no"), ("national", "number"),
                                                                  ("personal", "no"), ("id", "doc"))
                 for joiner in ("", "_", "-", " ")),
               *(f"tin{mark}" for mark in " :=_'\")}]|"),
               # Japanese: the identity card (身分証明書), the individual number (個人番号, マイナンバー)
               "身分証", "個人番号", "マイナンバー"]  # fmt: skip

    def __init__(self, schemes: tuple[IdScheme, ...] = SCHEMES) -> None:
        self._schemes = schemes
        super().__init__(supported_entities=["NATIONAL_ID"], context=self.CONTEXT, name="NationalIdRecognizer")

    def load(self) -> None:
        pass

    def analyze(self, text: str, entities: list[str], nlp_artifacts: object = None) -> list[RecognizerResult]:
        results: list[RecognizerResult] = []
        slotted: set[tuple[int, int]] = set()
        for start, end, code in slot_values(text):
            found = _slot_finding(self._schemes, text[start:end], code)
            if found is not None:
                explanation = AnalysisExplanation(self.name, SLOT_SCORE, pattern_name=f"{found[1]} (record slot)")
                results.append(RecognizerResult(found[0], start, end, SLOT_SCORE, explanation))
                slotted.add((start, end))
        if not may_hold_national_id(text):
            return results
        # Every identifier holds two digits in a row: the schemes run only on windows around such pairs (widened to
        # whitespace, so a window's edges are where the schemes' own boundaries could be), not over all the text.
        windows: list[tuple[int, int]] = []
        for pairs in _DIGIT_PAIRS.finditer(text):
            add_window(windows, text, pairs.start(), pairs.end(), _WINDOW_MARGIN)
        for scheme, (start, end) in itertools.product(self._schemes, windows):
            for match in scheme.pattern.finditer(text, start, end):
                value = match.group()
                if ((match.start(), match.end()) in slotted or _in_longer_run(text, match.start(), match.end())
                        or not scheme.is_valid(value)):
                    continue
                score = scheme.bare_score if value.isdigit() else scheme.score
                explanation = AnalysisExplanation(self.name, score, pattern_name=scheme.name)
                results.append(RecognizerResult("NATIONAL_ID", match.start(), match.end(), score, explanation))
        return results
