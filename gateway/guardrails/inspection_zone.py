"""Visual inspection zones of travel documents (ICAO Doc 9303 parts 4-6): the holder's names and document number.

A passport's or ID card's data page prints each field of the holder under a label, in English and French or Spanish
("Surname / Nom / Apellidos", "Given names / Prénoms / Nombres", "Passport No. / No du passeport / Pasaporte No.");
copied as text the labels stand before their values on one line ("Surname: GRIGOLIA", "Surname : GRIGOLIA",
"Surname GRIGOLIA", several to a line with wide gaps: "Type P   Code GEO   Passport No. BFC6CTODN") or above them on
a line of their own, as the page prints them. A national label may open a label's row ("Name/Surname/Nom",
"Vornamen/Given names/Prénoms").

A page is recognised by its labels together: a name field (surname or given names) and at least two other of the
standard's fields within a few lines of each other. There the name fields hold a person's name whatever its
letters (one word in capitals: "TAXIR") and the document and personal number fields a national identifier.
The machine-readable zone below a page repeats its name (``mrz``): a surname both zones print scores higher, but
a page is read without one too (a zone cut off, a scan's text with its zone misread).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from gateway.guardrails.name_cues import phrase_pattern

# Doc 9303's field labels in its three languages, and their common variants on national pages, lower case; the
# field each names. "n°", "nº" and "no." are the same abbreviation.
_LABELS = {
    "surname": ("surname", "surnames", "family name", "last name", "primary identifier", "nom", "nom de famille",
                "apellidos", "apellido"),
    "given": ("given names", "given name", "first names", "first name", "forenames", "secondary identifier",
              "prénoms", "prénom", "prenoms", "prenom", "nombres", "nombre"),
    "number": ("passport no", "passport number", "passport nr", "document no", "document number", "document nr",
               "card no", "card number", "no du passeport", "no de passeport", "no du document", "passeport no",
               "no de pasaporte", "pasaporte no", "número de pasaporte", "numero de pasaporte",
               "no de documento", "número de documento", "numero de documento"),
    "personal": ("personal no", "personal number", "no personnel", "no personal", "número personal"),
    "type": ("type", "tipo"),
    "code": ("code", "country code", "code of issuing state", "issuing state code", "issuing state",
             "code de l'état émetteur", "code de l'etat emetteur", "código del estado emisor", "código", "codigo"),
    "nationality": ("nationality", "nationalité", "nationalite", "nacionalidad"),
    "birth": ("date of birth", "birth date", "date de naissance", "fecha de nacimiento"),
    "sex": ("sex", "sexe", "sexo"),
    "birthplace": ("place of birth", "birth place", "lieu de naissance", "lugar de nacimiento"),
    "issue": ("date of issue", "issue date", "date de délivrance", "date de delivrance", "fecha de expedición",
              "fecha de expedicion", "fecha de emisión", "fecha de emision"),
    "expiry": ("date of expiry", "expiry date", "date d'expiration", "fecha de caducidad", "fecha de vencimiento"),
    "authority": ("authority", "issuing authority", "autorité", "autorite", "autoridad"),
}  # fmt: skip
_FIELD_OF = {label: field for field, labels in _LABELS.items() for label in labels}
_NAME_FIELDS = frozenset({"surname", "given"})
_NUMBER_FIELDS = frozenset({"number", "personal"})
_OTHER_FIELDS_NEEDED = 2  # besides a name field: three of the standard's fields make a page
_LINES_APART = 3  # the most lines between two fields of one page (a field the standard has no label for between)

_LABEL = phrase_pattern(_FIELD_OF)
# A label where a line or a gap's cell starts: one of the standard's, with a national one before it and its other
# languages after it; the field number some pages print after it ("Surname/Nom (1)"); a colon, a space, or the end
# of the line (the value is then on the next line).
_FIELD = re.compile(
    rf"(?im)(?:^|(?<=\t)|(?<=[ ]{{2}}))[ \t]*(?:[^\W\d_]{{2,20}}[ \t]*/[ \t]*)?(?P<label>{_LABEL})\.?"
    rf"(?:[ \t]*/[ \t]*(?:{_LABEL}|[^\W\d_]+)\.?){{0,3}}(?:[ \t]*\(\d{{1,2}}\))?"
    rf"(?:[ \t]*[:：][ \t]*|[ \t]+(?=\S)|[ \t]*(?P<below>\r?\n))"
)
# A value: up to a gap of two spaces or a tab, or the line's end.
_VALUE = re.compile(r"[^\s](?:[^\t\n]*?[^\s])??(?=[ ]{2}|\t|[ \t]*\r?$|[ \t]*\Z)", re.MULTILINE)
_NAME = re.compile(r"[^\W\d_]+(?:(?:[ '’-]|, )[^\W\d_]+){0,5}")
_NUMBER = re.compile(r"[A-Z0-9]{5,12}|(?=[A-Z]*\d)[A-Z0-9]{1,6}(?:[ -][A-Z0-9]{1,6}){1,3}")
# The pre-filter: a name field's label, in the cases pages print it.
_NAME_LABEL_KEYS = ("urname", "URNAME", "iven name", "IVEN NAME", "pellido", "PELLIDO", "rénom", "RÉNOM", "renom",
                    "RENOM", "ast name", "AST NAME", "irst name", "IRST NAME")  # fmt: skip


def has_inspection_zone(text: str) -> bool:
    """The pre-filter: a name field's label stands in the text."""
    return any(key in text for key in _NAME_LABEL_KEYS)


@dataclass(frozen=True, slots=True)
class PageField:
    """A field of a data page: which of the standard's fields, its value's span, and the line it stands on."""

    field: str
    start: int
    end: int
    line: int


@dataclass(frozen=True, slots=True)
class PageValue:
    entity_type: str
    start: int
    end: int
    surname: bool  # the value of the surname field, which a machine-readable zone's name field opens with


def _fields(text: str) -> Iterator[PageField]:
    line, counted_to = 0, 0
    for match in _FIELD.finditer(text):
        field = _FIELD_OF.get(" ".join(match.group("label").lower().replace("°", "o").replace("º", "o").split()))
        if field is None:
            continue
        line += text.count("\n", counted_to, match.start())
        counted_to = match.start()
        at = match.end()
        if match.group("below") is not None:
            while at < len(text) and text[at] in " \t":  # the value's indent
                at += 1
            # The value below its label must not be the next label: an empty form's rows stand one under the other.
            if _FIELD.match(text, at) is not None:
                yield PageField(field, at, at, line)
                continue
        value = _VALUE.match(text, at)
        start, end = value.span() if value is not None else (at, at)
        yield PageField(field, start, end, line)


def _pages(text: str) -> Iterator[list[PageField]]:
    """The fields of each data page: runs of fields no more than a few lines apart that a page's labels make."""
    run: list[PageField] = []
    for field in _fields(text):
        if run and field.line - run[-1].line > _LINES_APART:
            yield run
            run = []
        run.append(field)
    if run:
        yield run


def _is_page(fields: list[PageField]) -> bool:
    names = {field.field for field in fields}
    return bool(names & _NAME_FIELDS) and len(names - _NAME_FIELDS) >= _OTHER_FIELDS_NEEDED


def page_values(text: str) -> Iterator[PageValue]:
    """The holder's names (PERSON) and document and personal numbers (NATIONAL_ID) of each data page in ``text``."""
    if not has_inspection_zone(text):
        return
    for fields in _pages(text):
        if not _is_page(fields):
            continue
        for field in fields:
            value = text[field.start : field.end]
            if field.field in _NAME_FIELDS and _NAME.fullmatch(value):
                yield PageValue("PERSON", field.start, field.end, field.field == "surname")
            elif field.field in _NUMBER_FIELDS and _NUMBER.fullmatch(value):
                yield PageValue("NATIONAL_ID", field.start, field.end, False)
