"""Payment card numbers from every major network's issuer (BIN) ranges, Luhn-valid, plain, spaced or dashed."""

from __future__ import annotations

import random

from stdnum import luhn

from bench.pii_corpus.model import Pii
from bench.pii_corpus.partition import draw_in_split

# network -> (issuer prefix ranges as (low, high) of equal digit count, card lengths). Ranges follow the networks'
# published IIN tables (ISO/IEC 7812 prefixes as listed by each network's acceptance guides).
NETWORKS: dict[str, tuple[list[tuple[int, int]], list[int]]] = {
    "visa": ([(4, 4)], [16, 16, 16, 13, 19]),
    "mastercard": ([(51, 55)], [16]),
    "mastercard-2series": ([(2221, 2720)], [16]),
    "amex": ([(34, 34), (37, 37)], [15]),
    "discover": ([(6011, 6011), (644, 649), (65, 65)], [16, 16, 19]),
    "jcb": ([(3528, 3589)], [16, 16, 19]),
    "diners": ([(300, 305), (36, 36), (38, 39)], [14, 16]),
    "unionpay": ([(62, 62)], [16, 16, 19]),
    "maestro": ([(5018, 5018), (5020, 5020), (5038, 5038), (5893, 5893), (6304, 6304), (6759, 6759),
                 (6761, 6763)], [16, 13, 19]),
}  # fmt: skip


def luhn_complete(body: str) -> str:
    return body + luhn.calc_check_digit(body)


def card_digits(network: str, rng: random.Random) -> str:
    ranges, lengths = NETWORKS[network]
    low, high = rng.choice(ranges)
    prefix = str(rng.randint(low, high))
    length = rng.choice(lengths)
    if network == "diners" and prefix == "36":
        length = 14
    body = prefix + "".join(rng.choice("0123456789") for _ in range(length - len(prefix) - 1))
    return luhn_complete(body)


def groups_of(digits: str) -> list[str]:
    """The groups a card is printed in: 4-6-5 (15 digits), 4-6-4 (14), 4-3-3-3 (13), otherwise fours with the rest
    last (16: 4-4-4-4, 19: 4-4-4-4-3)."""
    if len(digits) in (14, 15):
        return [digits[:4], digits[4:10], digits[10:]]
    if len(digits) == 13:
        return [digits[:4], digits[4:7], digits[7:10], digits[10:]]
    return [digits[i : i + 4] for i in range(0, len(digits), 4)]


def card(rng: random.Random, split: str) -> Pii:
    network = rng.choice(sorted(NETWORKS))
    digits = draw_in_split(lambda: card_digits(network, rng), split)
    style = rng.choice(["plain", "spaced", "spaced", "dashed"])
    value = {"plain": digits, "spaced": " ".join(groups_of(digits)), "dashed": "-".join(groups_of(digits))}[style]
    return Pii("CREDIT_CARD", value, f"card:{network}:{style}")
