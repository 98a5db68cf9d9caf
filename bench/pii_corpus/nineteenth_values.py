"""The values of `dev-19` (``dev_nineteenth``): phone numbers of every region and number type phonenumbers knows,
written the ways people write them; national identifiers of the ten schemes in their printed variants; and hard
negatives shaped like them (order, invoice and tracking numbers, part numbers, timestamps, versions, coordinates,
prices, ISBNs and EANs, sort codes, postcodes, phone-shaped numbers that are no valid number, ids failing their check
digit).

Every phone here is a valid number of its region and type per phonenumbers (its digits, however they are grouped);
every id is valid per python-stdnum (or HMRC's rules for the NINO) once its separators are removed.
"""

from __future__ import annotations

import random
import string
from functools import cache

import phonenumbers
from phonenumbers import PhoneNumberFormat, PhoneNumberType
from stdnum import ean, isbn, luhn, verhoeff
from stdnum.br import cpf
from stdnum.de import idnr
from stdnum.fr import nir

from bench.pii_corpus.national_ids import NATIONAL_ID_MAKERS, is_valid_id
from bench.pii_corpus.partition import draw_in_split

TYPES = {"MOBILE": PhoneNumberType.MOBILE, "FIXED_LINE": PhoneNumberType.FIXED_LINE,
         "TOLL_FREE": PhoneNumberType.TOLL_FREE, "PREMIUM_RATE": PhoneNumberType.PREMIUM_RATE,
         "SHARED_COST": PhoneNumberType.SHARED_COST, "VOIP": PhoneNumberType.VOIP,
         "PERSONAL_NUMBER": PhoneNumberType.PERSONAL_NUMBER, "PAGER": PhoneNumberType.PAGER,
         "UAN": PhoneNumberType.UAN, "VOICEMAIL": PhoneNumberType.VOICEMAIL}  # fmt: skip
# How a phone is written. National forms only for a region of the text's language (a national number carries no
# clue to its country elsewhere).
INTERNATIONAL_FORMS = ("e164", "international", "rfc3966", "intl_dotted", "intl_dashed", "intl_00", "intl_paren_zero",
                       "intl_compact_spaced")  # fmt: skip
NATIONAL_FORMS = ("national", "national_dotted", "national_dashed", "national_compact", "national_slash")
FORMS = INTERNATIONAL_FORMS + NATIONAL_FORMS + ("wa_digits",)


@cache
def region_types(region: str) -> tuple[str, ...]:
    """The number types `region` has an example number of."""
    return tuple(name for name, kind in TYPES.items() if phonenumbers.example_number_for_type(region, kind))


@cache
def all_regions() -> tuple[str, ...]:
    return tuple(sorted(r for r in phonenumbers.SUPPORTED_REGIONS if region_types(r)))


def _number(region: str, kind: str, rng: random.Random) -> phonenumbers.PhoneNumber:
    """The region's example of `kind` with its last digits drawn again until the number is still valid and of that
    kind (or the example itself)."""
    example = phonenumbers.example_number_for_type(region, TYPES[kind])
    assert example is not None
    national = str(example.national_number)
    keep = max(1, len(national) - 4)
    for _ in range(200):
        candidate = national[:keep] + "".join(rng.choice(string.digits) for _ in range(len(national) - keep))
        number = phonenumbers.PhoneNumber(country_code=example.country_code, national_number=int(candidate),
                                          italian_leading_zero=example.italian_leading_zero,
                                          number_of_leading_zeros=example.number_of_leading_zeros)  # fmt: skip
        if phonenumbers.is_valid_number_for_region(number, region) and phonenumbers.number_type(number) in (
            TYPES[kind],
            PhoneNumberType.FIXED_LINE_OR_MOBILE,
        ):
            return number
    return example


def written_phone(number: phonenumbers.PhoneNumber, form: str) -> str:
    """`number` written in `form` (None-free: a form a number cannot take falls back to its international form)."""
    intl = phonenumbers.format_number(number, PhoneNumberFormat.INTERNATIONAL)
    national = phonenumbers.format_number(number, PhoneNumberFormat.NATIONAL)
    if form == "e164":
        return phonenumbers.format_number(number, PhoneNumberFormat.E164)
    if form == "wa_digits":
        return phonenumbers.format_number(number, PhoneNumberFormat.E164)[1:]
    if form == "rfc3966":
        return phonenumbers.format_number(number, PhoneNumberFormat.RFC3966).removeprefix("tel:")
    if form == "intl_dotted":
        return intl.replace(" ", ".").replace("-", ".")
    if form == "intl_dashed":
        return "+" + intl[1:].replace(" ", "-")
    if form == "intl_00":
        return "00" + intl[1:]
    if form == "intl_paren_zero":
        if national.startswith("0") and national[1:2].isdigit():
            return f"+{number.country_code} (0){national[1:]}"
        return intl
    if form == "intl_compact_spaced":
        digits = phonenumbers.format_number(number, PhoneNumberFormat.E164)[1 + len(str(number.country_code)) :]
        return f"+{number.country_code} {digits}"
    if form == "national":
        return national
    if form == "national_dotted":
        return national.replace(" ", ".").replace("-", ".").replace("(", "").replace(")", "")
    if form == "national_dashed":
        return national.replace(" ", "-").replace("(", "").replace(")", "").replace("--", "-")
    if form == "national_compact":
        return "".join(c for c in national if c.isdigit())
    if form == "national_slash":
        parts = national.replace("(", "").replace(")", "").split(" ", 1)
        return f"{parts[0]}/{parts[1]}" if len(parts) == 2 else national
    return intl


def phone(rng: random.Random, home_regions: tuple[str, ...], forms: tuple[str, ...] | None) -> tuple[str, str]:
    """A dev-half phone and its subtype ``region:type:form``: half of a region of the text's language (`home_regions`,
    national forms allowed), half of any region (international forms); `forms` restricts the forms."""
    home = bool(home_regions) and rng.random() < 0.5
    region = rng.choice(home_regions) if home else rng.choice(all_regions())
    allowed = FORMS if home else (*INTERNATIONAL_FORMS, "wa_digits")
    wanted = forms or tuple(f for f in allowed if f != "wa_digits")  # bare digits only where a template asks
    choices = tuple(f for f in wanted if f in allowed) or ("international",)
    kind = rng.choice(region_types(region)) if rng.random() < 0.45 else (
        "MOBILE" if "MOBILE" in region_types(region) else region_types(region)[0])  # fmt: skip
    form = rng.choice(choices)

    def draw() -> str:
        return written_phone(_number(region, kind, rng), form)

    return draw_in_split(draw, "dev"), f"{region}:{kind}:{form}"


# National ids: each scheme's printed variants, from the compact valid number.
def _id_variants(scheme: str, compact: str) -> dict[str, str]:
    c = compact
    if scheme == "gb.nino":
        return {
            "compact": c,
            "spaced": f"{c[:2]} {c[2:4]} {c[4:6]} {c[6:8]} {c[8]}",
            "lower": c.lower(),
            "spaced3": f"{c[:2]} {c[2:8]} {c[8]}",
            "dashed": f"{c[:2]}-{c[2:4]}-{c[4:6]}-{c[6:8]}-{c[8]}",
        }
    if scheme == "de.idnr":
        return {
            "compact": c,
            "grouped": idnr.format(c),
            "grouped3": f"{c[:3]} {c[3:6]} {c[6:9]} {c[9:]}",
        }  # no slashes: "12/345/67890" is how a Steuernummer is printed, another number
    if scheme == "fr.nir":
        return {
            "compact": c,
            "spaced": nir.format(c),
            "dotted": nir.format(c, separator="."),
            "dashed": nir.format(c, separator="-"),
            "key_apart": f"{c[:13]} {c[13:]}",
        }
    if scheme == "es.dni":
        return {
            "compact": c,
            "dashed": f"{c[:8]}-{c[8]}",
            "dotted": f"{c[:2]}.{c[2:5]}.{c[5:8]}-{c[8]}",
            "spaced": f"{c[:8]} {c[8]}",
            "lower": c.lower(),
        }
    if scheme == "es.nie":
        return {
            "compact": c,
            "dashed": f"{c[0]}-{c[1:8]}-{c[8]}",
            "spaced": f"{c[0]} {c[1:8]} {c[8]}",
            "lower": c.lower(),
        }
    if scheme == "it.codicefiscale":
        return {"compact": c, "lower": c.lower(), "spaced": f"{c[:3]} {c[3:6]} {c[6:11]} {c[11:]}"}
    if scheme == "br.cpf":
        return {
            "compact": c,
            "dotted": cpf.format(c),
            "dash_only": f"{c[:9]}-{c[9:]}",
            "spaced": f"{c[:3]} {c[3:6]} {c[6:9]} {c[9:]}",
            "dots_no_dash": f"{c[:3]}.{c[3:6]}.{c[6:9]}.{c[9:]}",
        }
    if scheme == "in.pan":
        return {"compact": c, "lower": c.lower(), "spaced": f"{c[:5]} {c[5:9]} {c[9]}"}
    if scheme == "in.aadhaar":
        return {"compact": c, "spaced": f"{c[:4]} {c[4:8]} {c[8:]}", "dashed": f"{c[:4]}-{c[4:8]}-{c[8:]}"}
    if scheme == "us.itin":
        return {"compact": c, "dashed": f"{c[:3]}-{c[3:5]}-{c[5:]}", "spaced": f"{c[:3]} {c[3:5]} {c[5:]}"}
    raise ValueError(scheme)


def _compact(value: str) -> str:
    return "".join(ch for ch in value if ch.isalnum()).upper()


def national_id(rng: random.Random, scheme: str, lower: bool) -> tuple[str, str]:
    """A dev-half id of `scheme` in one of its printed variants (the lower-case one only where `lower`: chat), and
    the variant's name."""

    def draw() -> tuple[str, str]:
        compact = _compact(NATIONAL_ID_MAKERS[scheme](rng)[0])
        variants = {k: v for k, v in _id_variants(scheme, compact).items() if lower or k != "lower"}
        variant, value = rng.choice(sorted(variants.items()))
        return value, variant

    value, variant = draw_in_split(draw, "dev", key=lambda made: made[0])
    assert is_valid_id(scheme, _compact(value)), (scheme, value)
    return value, variant


# Hard negatives: each maker returns text that is no phone, id, card or IBAN.
def _digits(rng: random.Random, count: int) -> str:
    return "".join(rng.choice(string.digits) for _ in range(count))


def _invalid_phone(rng: random.Random) -> str:
    """A phone-shaped string phonenumbers does not hold valid for the region it claims (nor as a bare number)."""
    for _ in range(1000):
        region = rng.choice(all_regions())
        code = phonenumbers.country_code_for_region(region)
        digits = _digits(rng, rng.randint(5, 11))
        text = f"+{code} {digits[:3]} {digits[3:]}"
        try:
            number = phonenumbers.parse(text, None)
        except phonenumbers.NumberParseException:
            continue
        if not phonenumbers.is_possible_number(number) and not phonenumbers.is_valid_number(number):
            return text
    raise RuntimeError("no invalid phone")


def _bad_check(rng: random.Random) -> str:
    """An id of a checked scheme whose check digit is wrong (and no valid id of any other scheme either)."""
    scheme = rng.choice(["es.dni", "es.nie", "br.cpf", "in.aadhaar", "fr.nir", "de.idnr"])
    while True:
        compact = _compact(NATIONAL_ID_MAKERS[scheme](rng)[0])
        last = compact[-1]
        pool = string.ascii_uppercase if last.isalpha() else string.digits
        bad = compact[:-1] + rng.choice([c for c in pool if c != last])
        if not any(is_valid_id(other, bad) for other in NATIONAL_ID_MAKERS):
            variants = _id_variants(scheme, compact)
            printed = rng.choice(sorted(variants.values()))
            # the same printing with its last character replaced
            return printed[:-1] + bad[-1] if printed[-1].upper() == last else bad


def _isbn(rng: random.Random) -> str:
    body = "978" + _digits(rng, 9)
    return isbn.format(body + ean.calc_check_digit(body))


def _ean(rng: random.Random) -> str:
    body = rng.choice(["40", "30", "80", "84", "87", "590", "73"]) + _digits(rng, 10)
    body = body[:12]
    return body + ean.calc_check_digit(body)


def _not_luhn(value: str) -> bool:
    digits = "".join(c for c in value if c.isdigit())
    return len(digits) < 13 or not luhn.is_valid(digits)


NEGATIVE_KINDS = ("order", "invoice", "tracking", "part", "timestamp", "version", "coordinates", "price", "isbn", "ean",
                  "sort_code", "postcode", "invalid_phone", "bad_check", "ticket", "build")  # fmt: skip


def negative(rng: random.Random, kind: str) -> str:
    """A hard negative of `kind` (never a run of 13+ digits passing Luhn, nor a Verhoeff-valid 12 digits)."""
    while True:
        value = _negative(rng, kind)
        digits = "".join(c for c in value if c.isdigit())
        if kind != "bad_check" and len(digits) == 12 and verhoeff.is_valid(digits):
            continue
        if kind in ("isbn", "ean") or _not_luhn(value):
            return value


def _negative(rng: random.Random, kind: str) -> str:
    if kind == "order":
        return rng.choice(
            [
                f"{_digits(rng, 3)}-{_digits(rng, 7)}-{_digits(rng, 7)}",
                f"#{_digits(rng, 8)}",
                f"ORD-{_digits(rng, 6)}",
                f"{_digits(rng, 4)} {_digits(rng, 4)} {_digits(rng, 2)}",
            ]
        )
    if kind == "invoice":
        return rng.choice(
            [
                f"INV-{rng.randint(2019, 2026)}-{_digits(rng, 5)}",
                f"F{_digits(rng, 9)}",
                f"{rng.randint(2019, 2026)}/{_digits(rng, 6)}",
                f"RE-{_digits(rng, 4)}/{_digits(rng, 2)}",
            ]
        )
    if kind == "tracking":
        return rng.choice(
            [
                "1Z" + "".join(rng.choice(string.ascii_uppercase + string.digits) for _ in range(16)),
                f"{_digits(rng, 4)} {_digits(rng, 4)} {_digits(rng, 4)} {_digits(rng, 4)} {_digits(rng, 2)}",
                f"JD{_digits(rng, 18)}",
                f"RR{_digits(rng, 9)}DE",
                f"00{_digits(rng, 18)}",
            ]
        )
    if kind == "part":
        return rng.choice(
            [
                f"{rng.choice(['A', 'B', 'K', 'X'])}{_digits(rng, 3)}-{_digits(rng, 4)}-{_digits(rng, 2)}",
                f"{_digits(rng, 3)}.{_digits(rng, 3)}.{_digits(rng, 3)}",
                f"P/N {_digits(rng, 2)}-{_digits(rng, 5)}-{_digits(rng, 3)}",
            ]
        )
    if kind == "timestamp":
        return rng.choice(
            [
                f"{rng.randint(1600000000, 1790000000)}",
                f"{rng.randint(1600000000000, 1790000000000)}",
                f"2025-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d} {rng.randint(0, 23):02d}:"
                f"{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}.{_digits(rng, 3)}",
                f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}",
            ]
        )
    if kind == "version":
        return rng.choice(
            [
                f"{rng.randint(1, 20)}.{rng.randint(0, 40)}.{rng.randint(0, 300)}",
                f"v{rng.randint(1, 9)}.{rng.randint(0, 99)}.{rng.randint(0, 999)}-rc{rng.randint(1, 5)}",
                f"{rng.randint(10, 30)}.{rng.randint(1, 12):02d}.{rng.randint(1000, 99999)}",
            ]
        )
    if kind == "coordinates":
        return f"{rng.uniform(-80, 80):.6f}, {rng.uniform(-170, 170):.6f}"
    if kind == "price":
        return rng.choice(
            [
                f"€{rng.randint(1, 99999):,}.{_digits(rng, 2)}",
                f"{rng.randint(100, 999)} {_digits(rng, 3)},{_digits(rng, 2)} zł",
                f"$ {rng.randint(1000, 999999):,}.00",
                f"{rng.randint(10, 999)}.{_digits(rng, 3)},{_digits(rng, 2)} EUR",
            ]
        )
    if kind == "isbn":
        return _isbn(rng)
    if kind == "ean":
        return _ean(rng)
    if kind == "sort_code":
        return f"{_digits(rng, 2)}-{_digits(rng, 2)}-{_digits(rng, 2)}"
    if kind == "postcode":
        return rng.choice(
            [
                f"{_digits(rng, 2)}-{_digits(rng, 3)}",
                f"{_digits(rng, 4)} {rng.choice('ABCDEFGH')}{rng.choice('JKLMNPRS')}",
                f"{_digits(rng, 5)}",
                f"{_digits(rng, 3)} {_digits(rng, 2)}",
                f"{_digits(rng, 5)}-{_digits(rng, 4)}",
            ]
        )
    if kind == "invalid_phone":
        return _invalid_phone(rng)
    if kind == "bad_check":
        return _bad_check(rng)
    if kind == "ticket":
        return rng.choice([f"INC{_digits(rng, 7)}", f"CASE-{_digits(rng, 8)}", f"#{_digits(rng, 5)}-{_digits(rng, 3)}"])
    if kind == "build":
        return rng.choice([f"build {_digits(rng, 5)}.{_digits(rng, 4)}", f"{_digits(rng, 8)}.{_digits(rng, 6)}"])
    raise ValueError(kind)


def is_valid_phone_text(value: str, region: str, form: str) -> bool:
    """`value`, written in `form`, parses (in `region` where it has no country code) to a valid number: what the
    corpus guarantees."""
    text = "+" + value if form == "wa_digits" else value
    if form == "intl_00":
        text = "+" + text[2:]
    try:
        number = phonenumbers.parse(text.replace("(0)", ""), region)
    except phonenumbers.NumberParseException:
        return False
    return phonenumbers.is_valid_number(number)
