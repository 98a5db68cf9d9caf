"""National identifiers, each valid per python-stdnum (UK NINO per HMRC's published allocation rules, which stdnum
does not implement), and US social security numbers.

US_SSN is its own entity type; every other identifier here, the US ITIN included, is NATIONAL_ID.
"""

from __future__ import annotations

import random
import re
import string
from collections.abc import Callable

from stdnum import verhoeff
from stdnum.br import cpf
from stdnum.de import idnr
from stdnum.es import dni, nie
from stdnum.fr import nir
from stdnum.in_ import aadhaar, pan
from stdnum.it import codicefiscale
from stdnum.us import itin, ssn

from bench.pii_corpus.model import Pii
from bench.pii_corpus.partition import draw_in_split

DIGITS = string.digits
UPPER = string.ascii_uppercase

# HMRC: the first prefix letter is not D, F, I, Q, U or V; the second not D, F, I, O, Q, U or V; a few pairs are
# never allocated; the suffix is A to D.
_NINO_FIRST = "".join(c for c in UPPER if c not in "DFIQUV")
_NINO_SECOND = "".join(c for c in UPPER if c not in "DFIOQUV")
_NINO_UNALLOCATED = {"BG", "GB", "KN", "NK", "NT", "TN", "ZZ"}
NINO = re.compile(rf"^[{_NINO_FIRST}][{_NINO_SECOND}]\d{{6}}[A-D]$")


def nino_is_valid(value: str) -> bool:
    compact = value.replace(" ", "").upper()
    return bool(NINO.match(compact)) and compact[:2] not in _NINO_UNALLOCATED


def _digits(rng: random.Random, count: int) -> str:
    return "".join(rng.choice(DIGITS) for _ in range(count))


def _uk_nino(rng: random.Random) -> tuple[str, str]:
    prefix = rng.choice([a + b for a in _NINO_FIRST for b in _NINO_SECOND if a + b not in _NINO_UNALLOCATED])
    body, suffix = _digits(rng, 6), rng.choice("ABCD")
    if rng.random() < 0.5:
        return f"{prefix} {body[:2]} {body[2:4]} {body[4:]} {suffix}", "gb.nino"
    return prefix + body + suffix, "gb.nino"


def _de_idnr(rng: random.Random) -> tuple[str, str]:
    while True:
        body = str(rng.randint(1, 9)) + _digits(rng, 9)
        for check in DIGITS:
            if idnr.is_valid(body + check):
                number = body + check
                return (idnr.format(number) if rng.random() < 0.5 else number), "de.idnr"


def _fr_nir(rng: random.Random) -> tuple[str, str]:
    body = f"{rng.choice('12')}{rng.randint(0, 99):02d}{rng.randint(1, 12):02d}{rng.randint(1, 95):02d}" \
           f"{rng.randint(1, 990):03d}{rng.randint(1, 999):03d}"  # fmt: skip
    number = body + nir.calc_check_digits(body)
    return (nir.format(number) if rng.random() < 0.5 else number), "fr.nir"


def _es_dni(rng: random.Random) -> tuple[str, str]:
    body = _digits(rng, 8)
    return body + dni.calc_check_digit(body), "es.dni"


def _es_nie(rng: random.Random) -> tuple[str, str]:
    body = rng.choice("XYZ") + _digits(rng, 7)
    return body + nie.calc_check_digit(body), "es.nie"


def _it_codicefiscale(rng: random.Random) -> tuple[str, str]:
    consonants = "BCDFGHJKLMNPQRSTVWXZ"
    letters = "".join(rng.choice(consonants) for _ in range(6))
    day = rng.randint(1, 28) + rng.choice([0, 40])  # women's day of birth is written plus 40
    body = f"{letters}{rng.randint(0, 99):02d}{rng.choice('ABCDEHLMPRST')}{day:02d}{rng.choice('ABCDEFGHILM')}" \
           f"{rng.randint(1, 999):03d}"  # fmt: skip
    return body + codicefiscale.calc_check_digit(body), "it.codicefiscale"


def _cpf_check_digits(body: str) -> str:
    """CPF's two mod-11 check digits (python-stdnum validates them but exposes no public calculator)."""
    first = sum((10 - i) * int(d) for i, d in enumerate(body)) * 10 % 11 % 10
    second = sum((11 - i) * int(d) for i, d in enumerate(body + str(first))) * 10 % 11 % 10
    return f"{first}{second}"


def _br_cpf(rng: random.Random) -> tuple[str, str]:
    body = _digits(rng, 9)
    number = body + _cpf_check_digits(body)
    return (cpf.format(number) if rng.random() < 0.7 else number), "br.cpf"


def _in_pan(rng: random.Random) -> tuple[str, str]:
    holder = rng.choice("ABCFGHJLPT")  # the fourth letter: the holder's kind (person, company, trust, ...)
    serial = f"{rng.randint(1, 9999):04d}"  # 0000 is never issued
    return "".join(rng.choice(UPPER) for _ in range(3)) + holder + rng.choice(UPPER) + serial + rng.choice(UPPER), \
        "in.pan"  # fmt: skip


def _in_aadhaar(rng: random.Random) -> tuple[str, str]:
    while True:
        body = str(rng.randint(2, 9)) + _digits(rng, 10)
        number = body + verhoeff.calc_check_digit(body)
        if aadhaar.is_valid(number):
            return (aadhaar.format(number) if rng.random() < 0.6 else number), "in.aadhaar"


def _us_itin(rng: random.Random) -> tuple[str, str]:
    group = rng.choice([*range(70, 89), 90, 91, 92, *range(94, 100)])
    number = f"9{_digits(rng, 2)}{group:02d}{_digits(rng, 4)}"
    return (itin.format(number) if rng.random() < 0.8 else number), "us.itin"


NATIONAL_ID_MAKERS: dict[str, Callable[[random.Random], tuple[str, str]]] = {
    "gb.nino": _uk_nino, "de.idnr": _de_idnr, "fr.nir": _fr_nir, "es.dni": _es_dni, "es.nie": _es_nie,
    "it.codicefiscale": _it_codicefiscale, "br.cpf": _br_cpf, "in.pan": _in_pan, "in.aadhaar": _in_aadhaar,
    "us.itin": _us_itin,
}  # fmt: skip
# The python-stdnum module that validates each scheme (None: validated by `nino_is_valid`).
VALIDATORS = {"gb.nino": None, "de.idnr": idnr, "fr.nir": nir, "es.dni": dni, "es.nie": nie,
              "it.codicefiscale": codicefiscale, "br.cpf": cpf, "in.pan": pan, "in.aadhaar": aadhaar, "us.itin": itin,
              "us.ssn": ssn}  # fmt: skip


def is_valid_id(scheme: str, value: str) -> bool:
    """`value` (spaces allowed between its groups, as people write them) is valid per its scheme's validator."""
    module, compact = VALIDATORS[scheme], value.replace(" ", "")
    return nino_is_valid(compact) if module is None else bool(module.is_valid(compact))


def national_id(rng: random.Random, split: str) -> Pii:
    scheme = rng.choice(sorted(NATIONAL_ID_MAKERS))
    value, scheme = draw_in_split(lambda: NATIONAL_ID_MAKERS[scheme](rng), split, key=lambda made: made[0])
    return Pii("NATIONAL_ID", value, f"id:{scheme}")


def _ssn(rng: random.Random) -> str:
    while True:
        number = f"{rng.randint(1, 899):03d}{rng.randint(1, 99):02d}{rng.randint(1, 9999):04d}"
        if ssn.is_valid(number):
            return number


def us_ssn(rng: random.Random, split: str) -> Pii:
    number = draw_in_split(lambda: _ssn(rng), split)
    style = rng.choice(["dashed", "dashed", "dashed", "spaced", "plain"])
    value = {"dashed": ssn.format(number), "spaced": f"{number[:3]} {number[3:5]} {number[5:]}", "plain": number}
    return Pii("US_SSN", value[style], f"id:us.ssn:{style}")
