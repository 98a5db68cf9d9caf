"""Hard negatives: text shaped like PII that is not PII, each generated so that it fails the check that would
make it PII (a SKU laid out like a card fails Luhn, a part number laid out like a phone is no valid number, a
version string has more than four parts or a part above 255)."""

from __future__ import annotations

import random
import string
import uuid

import phonenumbers
from stdnum import luhn

from bench.pii_corpus.model import Decoy

# Regions a phone-shaped part number is checked against: those whose numbers the corpus writes nationally.
PHONE_CHECK_REGIONS = ("US", "GB", "FR", "DE", "ES", "IT", "PL", "BR", "IN", "CA", "AU", "NL", "CH", "MX")
KINDS = ("order_id", "invoice_id", "version", "sku", "part_number", "hash", "uuid", "duration", "coordinates",
         "price")  # fmt: skip


def _digits(rng: random.Random, count: int) -> str:
    return "".join(rng.choice(string.digits) for _ in range(count))


def is_phone_anywhere(text: str) -> bool:
    """True when `text` parses as a valid number in one of PHONE_CHECK_REGIONS or as an international number."""
    for region in PHONE_CHECK_REGIONS:
        try:
            if phonenumbers.is_valid_number(phonenumbers.parse(text, region)):
                return True
        except phonenumbers.NumberParseException:
            continue
    return False


def _sku(rng: random.Random) -> str:
    """16 digits laid out like a card, whose Luhn check fails."""
    while True:
        digits = rng.choice("3456") + _digits(rng, 15)
        if not luhn.is_valid(digits):
            return rng.choice([" ", "-"]).join(digits[i : i + 4] for i in range(0, 16, 4))


def _part_number(rng: random.Random) -> str:
    while True:
        value = rng.choice([f"{_digits(rng, 3)}-{_digits(rng, 3)}-{_digits(rng, 4)}",
                            f"{_digits(rng, 4)} {_digits(rng, 3)} {_digits(rng, 3)}",
                            f"{_digits(rng, 2)}-{_digits(rng, 4)}-{_digits(rng, 4)}"])  # fmt: skip
        if not is_phone_anywhere(value):
            return value


def _version(rng: random.Random) -> str:
    return rng.choice([
        f"v{rng.randint(0, 12)}.{rng.randint(0, 40)}.{rng.randint(0, 30)}",
        f"{rng.randint(1, 9)}.{rng.randint(0, 40)}.{rng.randint(0, 30)}-rc.{rng.randint(1, 5)}",
        f"{rng.randint(1, 20)}.{rng.randint(0, 9)}.{rng.randint(1000, 30000)}",
        f"{rng.randint(1, 9)}.{rng.randint(0, 9)}.{rng.randint(0, 9)}.{rng.randint(0, 9)}.{rng.randint(1, 999)}",
    ])  # fmt: skip


def _duration(rng: random.Random) -> str:
    return rng.choice([f"{rng.randint(1, 23)}h {rng.randint(1, 59)}m", f"{rng.randint(10, 99999)}ms",
                       f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}.{_digits(rng, 3)}",
                       f"{rng.randint(1, 900)}s", f"PT{rng.randint(1, 12)}H{rng.randint(1, 59)}M"])  # fmt: skip


def _coordinates(rng: random.Random) -> str:
    latitude, longitude = rng.uniform(-80, 80), rng.uniform(-179, 179)
    return rng.choice([f"{latitude:.4f}, {longitude:.4f}", f"{latitude:.6f},{longitude:.6f}"])


def _price(rng: random.Random) -> str:
    amount = rng.randint(1, 999_999) / 100
    return rng.choice([f"${amount:,.2f}", f"€{amount:,.2f}", f"{amount:,.2f} EUR", f"£{amount:.2f}",
                       f"{amount:,.2f} €".replace(",", " ").replace(".", ",")])  # fmt: skip


def decoy(kind: str, rng: random.Random) -> Decoy:
    if kind == "order_id":
        value = rng.choice([f"ORD-{rng.randint(2019, 2026)}-{_digits(rng, 6)}", f"#{_digits(rng, 8)}",
                            f"SO{_digits(rng, 9)}"])  # fmt: skip
    elif kind == "invoice_id":
        value = rng.choice([f"INV-{_digits(rng, 7)}", f"F{rng.randint(2019, 2026)}/{_digits(rng, 5)}",
                            f"RE-{_digits(rng, 4)}-{_digits(rng, 3)}"])  # fmt: skip
    elif kind == "version":
        value = _version(rng)
    elif kind == "sku":
        value = _sku(rng)
    elif kind == "part_number":
        value = _part_number(rng)
    elif kind == "hash":
        value = rng.choice([rng.randbytes(32).hex(), rng.randbytes(20).hex(), rng.randbytes(20).hex()[:7]])
    elif kind == "uuid":
        value = str(uuid.UUID(bytes=rng.randbytes(16), version=4))
    elif kind == "duration":
        value = _duration(rng)
    elif kind == "coordinates":
        value = _coordinates(rng)
    elif kind == "price":
        value = _price(rng)
    else:
        raise ValueError(kind)
    return Decoy(kind, value)
