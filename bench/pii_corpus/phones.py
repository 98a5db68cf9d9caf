"""Phone numbers of every region phonenumbers knows, valid per its metadata, in E.164, international or national
format."""

from __future__ import annotations

import random
from functools import cache

import phonenumbers
from phonenumbers import PhoneNumberFormat, PhoneNumberType

from bench.pii_corpus.model import Pii
from bench.pii_corpus.partition import draw_in_split

FORMATS = {"E164": PhoneNumberFormat.E164, "INTERNATIONAL": PhoneNumberFormat.INTERNATIONAL,
           "NATIONAL": PhoneNumberFormat.NATIONAL}  # fmt: skip
KINDS = {"MOBILE": PhoneNumberType.MOBILE, "FIXED_LINE": PhoneNumberType.FIXED_LINE}
# Regions whose numbers are also written in their national format: the languages the corpus writes in, and large
# English-speaking markets. A national number from elsewhere carries no clue to its country in an English text.
NATIONAL_FORMAT_REGIONS = ("US", "CA", "GB", "IE", "AU", "IN", "FR", "BE", "CH", "ES", "MX", "AR", "DE", "AT", "IT",
                           "PL", "BR", "NL")  # fmt: skip


@cache
def regions() -> tuple[str, ...]:
    """Regions with example numbers of both kinds (a few territories have none)."""

    def has_examples(region: str) -> bool:
        return all(phonenumbers.example_number_for_type(region, kind) for kind in KINDS.values())

    return tuple(sorted(filter(has_examples, phonenumbers.SUPPORTED_REGIONS)))


def random_number(region: str, kind: str, rng: random.Random) -> phonenumbers.PhoneNumber:
    """The region's example number of `kind` with its last digits drawn again until the result is still a valid
    number of that kind (so the corpus holds many numbers per region, each as valid as the example)."""
    example = phonenumbers.example_number_for_type(region, KINDS[kind])
    if example is None:  # REGIONS holds only regions with an example of every kind
        raise ValueError(f"phonenumbers has no {kind} example for {region}")
    national = str(example.national_number)
    keep = max(1, len(national) - 5)
    for _ in range(200):
        candidate = national[:keep] + "".join(rng.choice("0123456789") for _ in range(len(national) - keep))
        number = phonenumbers.PhoneNumber(country_code=example.country_code, national_number=int(candidate),
                                          italian_leading_zero=example.italian_leading_zero,
                                          number_of_leading_zeros=example.number_of_leading_zeros)  # fmt: skip
        if phonenumbers.is_valid_number_for_region(number, region) and (
            phonenumbers.number_type(number) in (KINDS[kind], PhoneNumberType.FIXED_LINE_OR_MOBILE)
        ):
            return number
    return example


def valid_mobile(region: str, rng: random.Random) -> phonenumbers.PhoneNumber:
    """A mobile number of `region`: its example mobile's first three national digits, the rest drawn until the number
    is valid for the region."""
    example = phonenumbers.example_number_for_type(region, PhoneNumberType.MOBILE)
    if example is None:
        raise ValueError(f"phonenumbers has no example mobile of {region}")
    digits = str(example.national_number)
    for _ in range(1000):
        national = digits[:3] + "".join(str(rng.randrange(10)) for _ in digits[3:])
        number = phonenumbers.parse(f"+{example.country_code}{national}", region)
        if phonenumbers.is_valid_number_for_region(number, region):
            return number
    raise RuntimeError(f"no valid mobile of {region} after 1000 draws")


def phone(rng: random.Random, split: str) -> Pii:
    if rng.random() < 0.5:
        region, style = rng.choice(NATIONAL_FORMAT_REGIONS), rng.choice(["NATIONAL", "INTERNATIONAL", "E164"])
    else:
        region, style = rng.choice(regions()), rng.choice(["INTERNATIONAL", "INTERNATIONAL", "E164"])
    kind = rng.choice(sorted(KINDS))
    number = draw_in_split(lambda: random_number(region, kind, rng), split,
                           key=lambda n: phonenumbers.format_number(n, PhoneNumberFormat.E164))  # fmt: skip
    return Pii("PHONE_NUMBER", phonenumbers.format_number(number, FORMATS[style]), f"phone:{region}:{kind}:{style}")
