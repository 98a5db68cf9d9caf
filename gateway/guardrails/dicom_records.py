"""DICOM header dumps (dcmdump / gdcmdump and pydicom's printout): people's names, birth dates, ids, phones, addresses.

A DICOM data set is a list of elements, each named by its tag (group, element), with a value representation (VR)
that says how the value is written (DICOM PS3.5 6.2) and a meaning the data dictionary gives the tag (PS3.6).
A dump writes one element a line:

- dcmdump (DCMTK) and gdcmdump: ``(0010,0010) PN [Van Dooren^Peter]   #  16, 1 PatientName`` (the keyword, after
  the value, is a comment: the tag alone says what the value is);
- pydicom: ``(0010, 0010) Patient's Name                      PN: 'Doe^John'``.

Every person name (VR ``PN``) is a person, whoever it names (the patient, the referring or performing physician, the
operator): its components, separated by ``^``, are the family name, given name, middle name, prefix and suffix
(PS3.5 6.2.1); the prefix ("Dr.") and suffix ("Jr.") are no name; ``=`` separates the alphabetic, ideographic and
phonetic forms of one name, ``\\`` the values of a multi-valued element. Of the other elements, those PS3.6 defines as
a patient's or a person's birth date, telephone numbers, address and place of residence are reported as such; the
patient's ids only when a personal identity number scheme (stdnum) validates one: a hospital's own record number is no
national id.

The tag, VR and keyword of each line are the dump's structure, never a value (``LO``, ``PatientComments``):
``without_dicom_syntax`` drops other detectors' findings that reach into them, and the places read inside a person's
name (``Van``, ``Rocha`` of ``da Rocha^Larissa``).

Read only in a text holding ``(00`` (``has_dicom``: one substring search, most texts' only cost).
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from functools import cache, lru_cache

from presidio_analyzer import EntityRecognizer, RecognizerResult

from gateway.guardrails.findings import Finding
from gateway.guardrails.personal_id_schemes import checked_schemes, personal_id_schemes

DICOM_SCORE = 0.85  # the standard says what the element holds, as for the other record standards' slots
DICOM_ENTITIES = ("PERSON", "DATE_OF_BIRTH", "NATIONAL_ID", "PHONE_NUMBER", "STREET_ADDRESS", "LOCATION")
_NAME = "DicomRecognizer"

# PS3.6 data dictionary: (group, element) -> what its value is (PN elements are people by their VR).
_ELEMENTS: dict[tuple[str, str], str] = {
    ("0010", "0030"): "DATE_OF_BIRTH",  # Patient's Birth Date (DA)
    ("0010", "0020"): "NATIONAL_ID",  # Patient ID (LO)
    ("0010", "1000"): "NATIONAL_ID",  # Other Patient IDs (LO, retired)
    ("0010", "2154"): "PHONE_NUMBER",  # Patient's Telephone Numbers (SH)
    ("0008", "0094"): "PHONE_NUMBER",  # Referring Physician's Telephone Numbers (SH)
    ("0040", "1103"): "PHONE_NUMBER",  # Person's Telephone Numbers (LO)
    ("0010", "1040"): "STREET_ADDRESS",  # Patient's Address (LO)
    ("0008", "0092"): "STREET_ADDRESS",  # Referring Physician's Address (ST)
    ("0040", "1102"): "STREET_ADDRESS",  # Person's Address (ST)
    ("0010", "2150"): "LOCATION",  # Country of Residence (LO)
    ("0010", "2152"): "LOCATION",  # Region of Residence (LO)
}
_TAG = r"\((?P<group>[0-9A-Fa-f]{4}),[ ]?(?P<element>[0-9A-Fa-f]{4})\)[ \t]+"
# dcmdump / gdcmdump: the VR, the value in brackets, a comment with its length, multiplicity and keyword.
_DCMDUMP = re.compile(_TAG + r"(?P<vr>[A-Z]{2})[ \t]+\[(?P<value>[^\]\r\n]*)\](?P<rest>[^\r\n]*)")
# pydicom: the element's name, then "VR: " and the value quoted (a multi-valued one as a list of quoted values).
_PYDICOM = re.compile(_TAG + r"(?P<label>[^\r\n]*?)[ \t](?P<vr>[A-Z]{2}): (?P<value>'[^'\r\n]*'|\"[^\"\r\n]*\""
                      r"|\[[^\]\r\n]*\])(?P<rest>[^\r\n]*)")  # fmt: skip
_LINE_START = re.compile(r"^[ \t>]*\((?=[0-9A-Fa-f]{4},)", re.MULTILINE)
_QUOTED = re.compile(r"'([^'\r\n]*)'|\"([^\"\r\n]*)\"")
_URI_SCHEME = re.compile(r"(?i)(?:tel|fax|sms):")
_DATE = re.compile(r"(?:1[89]|20)[0-9]{2}\.?(?:0[1-9]|1[0-2])\.?(?:0[1-9]|[12][0-9]|3[01])")
_NAME_COMPONENTS = 3  # family, given, middle; then prefix and suffix


@cache
def _id_validators() -> tuple[Callable[[str], bool], ...]:
    """``is_valid`` of each personal identity number scheme that can reject a number: by a check digit, or by the
    birth date it encodes (a Danish CPR number); a scheme that takes any number of its length would take a hospital's
    record number."""
    checked = checked_schemes()
    validators = []
    for module_name, _labels in personal_id_schemes():
        module = importlib.import_module(f"stdnum.{module_name}")
        if module_name in checked or hasattr(module, "get_birth_date"):
            validators.append(module.is_valid)
    return tuple(validators)


def validates_as_personal_id(value: str) -> bool:
    return any(is_valid(value) for is_valid in _id_validators())


def has_dicom(text: str) -> bool:
    """The pre-filter: a tag's opening "(00" (every tag this module reads is in groups 0008-0040)."""
    return "(00" in text


@lru_cache(maxsize=2)  # asked once per entity type of a text in turn, and by the analyzer's filter: read once
def dicom_elements(text: str) -> tuple[tuple[tuple[int, int], ...], tuple[tuple[str, int, int], ...]]:
    """The structure of each element line (the spans of its tag and VR, and of its comment or name), and each value
    the data dictionary says is personal: its entity type and span."""
    structure: list[tuple[int, int]] = []
    values: list[tuple[str, int, int]] = []
    if not has_dicom(text):
        return (), ()
    for head in _LINE_START.finditer(text):
        start = head.end() - 1
        match = _DCMDUMP.match(text, start) or _PYDICOM.match(text, start)
        if match is None:
            continue
        structure.append((start, match.end("vr")))
        if match.group("rest").strip():
            structure.append((match.start("rest"), match.end("rest")))
        vr = match.group("vr")
        entity = "PERSON" if vr == "PN" else _ELEMENTS.get((match.group("group"), match.group("element").upper()))
        if entity is None:
            continue
        for value_start, value_end in _element_values(text, match):
            values.extend(_typed(text, entity, value_start, value_end))
    return tuple(structure), tuple(values)


def _element_values(text: str, match: re.Match[str]) -> list[tuple[int, int]]:
    """The span of each value of the element (values are separated by a backslash; pydicom quotes each)."""
    start, end = match.span("value")
    spans: list[tuple[int, int]] = []
    if text[start] in "'\"[":
        for quoted in _QUOTED.finditer(text, start, end):
            group = 1 if quoted.group(1) is not None else 2
            spans.extend(_split(text, quoted.start(group), quoted.end(group), "\\"))
        return spans
    return _split(text, start, end, "\\")


def _split(text: str, start: int, end: int, separator: str) -> list[tuple[int, int]]:
    """The stripped, non-empty pieces of text[start:end] between separators."""
    spans: list[tuple[int, int]] = []
    position = start
    while position <= end:
        stop = text.find(separator, position, end)
        stop = end if stop < 0 else stop
        piece_start, piece_end = position, stop
        while piece_start < piece_end and text[piece_start] in " \t":
            piece_start += 1
        while piece_end > piece_start and text[piece_end - 1] in " \t":
            piece_end -= 1
        if piece_start < piece_end:
            spans.append((piece_start, piece_end))
        position = stop + 1
    return spans


def _typed(text: str, entity: str, start: int, end: int) -> list[tuple[str, int, int]]:
    value = text[start:end]
    if entity == "PERSON":
        found = []
        for group_start, group_end in _split(text, start, end, "="):  # alphabetic, ideographic, phonetic forms
            components = text[group_start:group_end].split("^")
            position = group_start
            for index, component in enumerate(components):
                if index < _NAME_COMPONENTS:
                    stripped = component.strip()
                    if any(char.isalpha() for char in stripped):
                        piece_start = position + len(component) - len(component.lstrip())
                        found.append(("PERSON", piece_start, piece_start + len(stripped)))
                position += len(component) + 1
        return found
    if entity == "DATE_OF_BIRTH":
        return [(entity, start, end)] if _DATE.fullmatch(value) else []
    if entity == "NATIONAL_ID":
        return [(entity, start, end)] if validates_as_personal_id(value) else []
    if entity == "PHONE_NUMBER":
        scheme = _URI_SCHEME.match(value)
        start += scheme.end() if scheme else 0
        return [(entity, start, end)] if sum(char.isdigit() for char in text[start:end]) >= 6 else []
    if not any(char.isalpha() for char in value):  # an address or a place is written in words
        return []
    return [(entity, start, end)]


def without_dicom_syntax(text: str, findings: list[Finding]) -> list[Finding]:
    """``findings`` less other detectors' findings reaching into an element line's tag, VR or keyword, and places
    read inside a person's name."""
    if not findings or not has_dicom(text):
        return findings
    structure, values = dicom_elements(text)
    if not structure:
        return findings
    names = [(start, end) for entity, start, end in values if entity == "PERSON"]
    return [
        finding
        for finding in findings
        if finding.source == _NAME
        or not (
            any(start < finding.end and finding.start < end for start, end in structure)
            or (finding.entity_type == "LOCATION"
                and any(start <= finding.start and finding.end <= end for start, end in names))
        )
    ]  # fmt: skip


class DicomRecognizer(EntityRecognizer):
    """The people, birth dates, ids, phones, addresses and places of a DICOM header dump, by their elements' tags."""

    def __init__(self) -> None:
        super().__init__(supported_entities=list(DICOM_ENTITIES), name=_NAME)

    def load(self) -> None:  # nothing to load: two regexes
        pass

    def analyze(self, text: str, entities: list[str], nlp_artifacts: object = None) -> list[RecognizerResult]:
        return [RecognizerResult(entity, start, end, DICOM_SCORE) for entity, start, end in dicom_elements(text)[1]
                if entity in entities]  # fmt: skip
