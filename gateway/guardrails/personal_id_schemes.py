"""The personal identity numbers python-stdnum validates, and the names each is written under.

stdnum holds some two hundred number formats by country, most of them of companies (VAT, trade registers), banks,
securities and invoices. A module's docstring opens with the number's names and what it is ("CNP (Cod Numeric
Personal, Romanian Numerical Personal Code).", "AMKA (Αριθμός Μητρώου Κοινωνικής Ασφάλισης, Greek social security
number).", "SIN (Canadian Social Insurance Number)."): a module is a person's number when that line says so
(``PERSONAL``) and names no company, employer, school or economic operator (``NOT_PERSONAL``); whether it has a
check digit is whether its module can reject a checksum. US_SSN is its own
entity type, reported by its own recognizer, and is left out.

A scheme's labels are its own names: the acronyms and local names before the parenthesis and the names inside it but
the last, the English description ("EGN", "ЕГН", "Единен граждански номер"; "Isikukood"; "RUT", "Rol Único
Tributario"), without a trailing "No."/"number", of three characters or more.

``python -m gateway.guardrails.personal_id_schemes`` walks stdnum once and writes
gateway/guardrails/data/personal_ids.json (read at run time by ``personal_id_schemes``): walking the package imports
every module of it, which the gateway should not pay for at start-up.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

SNAPSHOT = Path(__file__).parent / "data" / "personal_ids.json"
OTHER_NAMES = Path(__file__).parent / "data" / "identity_labels.json"

PERSONAL = re.compile(
    r"personal|\bperson\b|individual|identity|national (?:identif|number|tax number)|citizen|social security"
    r"|social insurance|resident registration|birth number|patient|foreigner",
    re.IGNORECASE,
)
NOT_PERSONAL = re.compile(r"compan|employer|preparer|school|student|pupil|corporate|enterpris|econom", re.IGNORECASE)
LEFT_OUT = frozenset({"us.ssn"})  # US_SSN, not NATIONAL_ID
_NUMBER_WORD = re.compile(r"\s+(?:No\.?|[Nn]umber)$")
# A nationality alone names no number ("Asmens kodas (Lithuanian, personal numbers)")
_NATIONALITY = re.compile(r"[A-Z][a-z]+(?:ian|ish|ese|ic)")
MIN_LABEL = 3  # two letters ("CC", "NI", "IN") are other words and marks as often


def is_personal(title: str) -> bool:
    """Whether a stdnum module's first docstring line describes a person's identity number."""
    return PERSONAL.search(title) is not None and NOT_PERSONAL.search(title) is None


def labels_of(title: str) -> list[str]:
    """The names a number is written under, from its module's first docstring line (see the module docstring)."""
    head, paren, rest = title.partition("(")
    names = [name.strip() for name in head.split(",")]
    if paren:
        inside = [name.strip() for name in rest.rsplit(")", 1)[0].split(",")]
        names += inside[:-1]
    labels = []
    for name in names:
        name = _NUMBER_WORD.sub("", name.strip(" .\"'"))
        if MIN_LABEL <= len(name) <= 40 and not _NATIONALITY.fullmatch(name) and name not in labels:
            labels.append(name)
    return labels


def build_snapshot() -> dict[str, object]:
    """Every personal identity number of the installed stdnum: its module (``ro.cnp``), title and labels."""
    import importlib
    import inspect
    import pkgutil

    import stdnum

    schemes = []
    for country in pkgutil.iter_modules(stdnum.__path__):
        if not country.ispkg:
            continue
        package = importlib.import_module(f"stdnum.{country.name}")
        for module in pkgutil.iter_modules(package.__path__):
            name = f"{country.name}.{module.name}"
            doc = (importlib.import_module(f"stdnum.{name}").__doc__ or "").strip()
            title = doc.splitlines()[0] if doc else ""
            if name not in LEFT_OUT and is_personal(title):
                source = inspect.getsource(importlib.import_module(f"stdnum.{name}"))
                schemes.append({"module": name, "title": title, "labels": labels_of(title),
                                "checked": "InvalidChecksum" in source})  # fmt: skip
    return {"source": f"python-stdnum {stdnum.__version__}", "schemes": schemes}


@cache
def personal_id_schemes() -> tuple[tuple[str, tuple[str, ...]], ...]:
    """(stdnum module, labels) of every personal identity number in the snapshot: its own names, and those its
    registry writes that stdnum's title leaves out (``OTHER_NAMES``' "schemes": "CPR-nummer")."""
    built = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    other = json.loads(OTHER_NAMES.read_text(encoding="utf-8"))["schemes"]
    return tuple(
        (scheme["module"], (*scheme["labels"], *other.get(scheme["module"], ()))) for scheme in built["schemes"]
    )


@cache
def identity_labels() -> tuple[str, ...]:
    """What an identity number or card is called in other languages (``OTHER_NAMES``' "labels", by language)."""
    other = json.loads(OTHER_NAMES.read_text(encoding="utf-8"))["labels"]
    return tuple(label for labels in other.values() for label in labels)


@cache
def checked_schemes() -> frozenset[str]:
    """The schemes with a check digit (their validator can reject a checksum): a number without one ("li.peid", four
    to twelve digits; an Argentinian DNI's seven or eight) is any number of its length."""
    built = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    return frozenset(scheme["module"] for scheme in built["schemes"] if scheme["checked"])


if __name__ == "__main__":
    SNAPSHOT.write_text(json.dumps(build_snapshot(), ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {SNAPSHOT} ({len(personal_id_schemes())} schemes)")
