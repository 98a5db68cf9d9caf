"""Card numbers: every network's issuer ranges and lengths with a valid Luhn digit, plain, spaced or dashed."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gateway.guardrails.cards import MAX_DIGITS, MIN_DIGITS, CardRecognizer, card_network, luhn_valid


def with_check_digit(body: str) -> str:
    """``body`` completed with its Luhn check digit (written out here, independent of the module under test)."""
    total = 0
    for index, char in enumerate(reversed(body)):
        digit = int(char) * (2 if index % 2 == 0 else 1)
        total += digit - 9 if digit > 9 else digit
    return body + str((10 - total % 10) % 10)


PRINT_GROUPS = {12: (4, 4, 4), 13: (4, 3, 3, 3), 14: (4, 6, 4), 15: (4, 6, 5), 16: (4, 4, 4, 4), 17: (4, 4, 4, 5),
                18: (4, 4, 4, 6), 19: (4, 4, 4, 4, 3)}  # fmt: skip


def grouped(number: str, sizes: tuple[int, ...], separator: str) -> str:
    groups, at = [], 0
    for size in sizes:
        groups.append(number[at : at + size])
        at += size
    return separator.join(groups)


# (network, a body without its check digit): prefixes from each range's ends and middle.
NUMBERS = [
    ("visa", "400000000000123"), ("visa", "4929000000001"[:12]), ("visa", "453201511283036"),
    ("mastercard", "510000000000123"), ("mastercard", "555555555555444"),
    ("mastercard", "222100000000001"), ("mastercard", "250000000000012"), ("mastercard", "272099999999999"),
    ("amex", "34000000000001"), ("amex", "37828224631000"),
    ("discover", "601100000000012"), ("discover", "644000000000001"), ("discover", "649999999999999"),
    ("discover", "650000000000003"),
    ("jcb", "352800000000001"), ("jcb", "358999999999999"),
    ("diners", "3000000000000"), ("diners", "3059999999999"), ("diners", "3600000000000"),
    ("diners", "3800000000000"), ("diners", "3900000000000"),
    ("unionpay", "620000000000001"), ("unionpay", "621234567890123"),
    ("maestro", "501800000000001"), ("maestro", "676100000000001"), ("maestro", "690000000000001"),
]  # fmt: skip


@pytest.mark.parametrize(("network", "body"), NUMBERS)
def test_every_network_range_is_a_card(network: str, body: str) -> None:
    number = with_check_digit(body)
    assert card_network(number) == network
    recognizer = CardRecognizer()
    sizes = PRINT_GROUPS[len(number)]
    for form in (number, grouped(number, sizes, " "), grouped(number, sizes, "-")):
        text = f"paid with {form}, thanks"
        found = [(text[r.start : r.end], r.entity_type) for r in recognizer.analyze(text, [])]
        assert found == [(form, "CREDIT_CARD")], form


def test_amex_in_its_printed_4_6_5_groups() -> None:
    number = with_check_digit("37144963539843")
    text = f"amex {grouped(number, (4, 6, 5), ' ')} on file"
    assert [text[r.start : r.end] for r in CardRecognizer().analyze(text, [])] == [grouped(number, (4, 6, 5), " ")]


@pytest.mark.parametrize(
    "body",
    [
        "222000000000000",  # 2220: just below Mastercard's 2-series
        "272100000000000",  # 2721: just above it
        "306000000000",  # 306: no Diners range (14 digits)
        "100000000000000",  # 1: no network
        "700000000000000",  # 7: no network
        "352700000000000",  # 3527: below JCB
        "3400000000000000",  # Amex is 15 digits, never 16
    ],
)
def test_luhn_valid_runs_outside_every_range_are_no_cards(body: str) -> None:
    number = with_check_digit(body)
    assert luhn_valid(number)
    assert card_network(number) is None
    assert CardRecognizer().analyze(f"order {number} shipped", []) == []


def test_a_wrong_check_digit_is_no_card() -> None:
    number = with_check_digit("411111111111111")
    wrong = number[:-1] + str((int(number[-1]) + 1) % 10)
    assert CardRecognizer().analyze(f"sku {wrong}", []) == []


@pytest.mark.parametrize(
    "text",
    [
        "build 4111-1111 1111-1111",  # mixed separators: no card's print form
        "uuid 4111111111111111-aaaa",  # glued to more of a token
        "v4111111111111111",  # inside a word
        "+4111111111111111",  # a phone's plus
        "4111.1111.1111.1111",  # dotted: a version or an address, not a card's form
    ],
)
def test_look_alikes_are_no_cards(text: str) -> None:
    assert CardRecognizer().analyze(text, []) == []


def test_two_cards_in_one_run_of_groups_are_two() -> None:
    first, second = with_check_digit("411111111111111"), with_check_digit("555555555555444")
    text = f"{grouped(first, (4, 4, 4, 4), ' ')} {grouped(second, (4, 4, 4, 4), ' ')}"
    assert len(CardRecognizer().analyze(text, [])) == 2


@pytest.mark.parametrize(
    ("before", "separator", "after"),
    [("SSN: 318-40-2291 ", " ", " was declined"), ("ssn 318402291 ", "-", ""), ("", "-", " 2291 44")],
)
def test_a_card_beside_a_number_written_with_other_separators(before: str, separator: str, after: str) -> None:
    card = grouped(with_check_digit("356600202036050"), (4, 4, 4, 4), separator)
    text = f"{before}{card}{after}"
    assert [text[r.start : r.end] for r in CardRecognizer().analyze(text, [])] == [card]


def test_mixed_separators_inside_one_number_are_no_card() -> None:
    number = with_check_digit("411111111111111")
    assert CardRecognizer().analyze(f"{number[:4]}-{number[4:8]} {number[8:12]} {number[12:]}", []) == []


def cards_by_every_end(text: str, offset: int, groups: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The plain rule: from each group, every later group tried as the card's end, longest first."""
    found, first = [], 0
    while first < len(groups):
        for last in range(len(groups) - 1, first - 1, -1):
            digits = "".join(text[offset + s : offset + e] for s, e in groups[first : last + 1])
            if len(digits) > MAX_DIGITS:
                continue
            if len(digits) < MIN_DIGITS:
                break
            if CardRecognizer._printed_groups(groups[first : last + 1]) and card_network(digits):
                found.append((offset + groups[first][0], offset + groups[last][1]))
                first = last
                break
        first += 1
    return found


GROUPS = ["4111", "1111", "5500", "0000", "0004", "378282246310005", "19840503", "4", "41", "411", "1"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(GROUPS), min_size=1, max_size=40))
def test_cards_in_a_run_of_groups_are_those_of_the_plain_rule(parts: list[str]) -> None:
    """Ends are tried only as far as a card can reach (MAX_DIGITS groups): the same cards as trying every one."""
    text = " ".join(parts)
    groups, position = [], 0
    for part in parts:
        groups.append((position, position + len(part)))
        position += len(part) + 1
    found = [(groups[first][0], groups[last][1]) for first, last, _ in CardRecognizer()._card_spans(text, 0, groups)]
    assert found == cards_by_every_end(text, 0, groups)


@pytest.mark.parametrize(("sku", "piece"), [("3974-6039-4405-8487", "6039-4405-8487"),
                                           ("6783 2552 6658 5581", "6783 2552 6658"),
                                           ("0000 6783 2552 6658", "6783 2552 6658")])  # fmt: skip
def test_a_card_that_a_group_of_four_goes_on_from_is_a_piece_of_a_longer_number(sku: str, piece: str) -> None:
    """A 12-digit Maestro inside a 16-digit SKU printed in fours is no card; alone it is one."""
    assert [r.start for r in CardRecognizer().analyze(f"card {piece}", [])] == [5]
    assert CardRecognizer().analyze(f"sku {sku} in stock", []) == []


def test_cards_listed_back_to_back_and_after_another_number_stay_cards() -> None:
    for text, cards in [("4111 1111 1111 1111 5500 0000 0000 0004", ["4111 1111 1111 1111", "5500 0000 0000 0004"]),
                        ("SSN: 745-67-1270 3570 6302 2234 6809", ["3570 6302 2234 6809"]),
                        ("card 4111 1111 1111 1111 exp 12/27", ["4111 1111 1111 1111"])]:  # fmt: skip
        assert [text[r.start : r.end] for r in CardRecognizer().analyze(text, [])] == cards


def test_a_json_records_id_is_no_card() -> None:
    """Teams and Graph exports give each message a long numeric "id", some of which pass Luhn in a card's range."""
    assert luhn_valid("6420879295149") and card_network("6420879295149")
    assert CardRecognizer().analyze('  {"id": "6420879295149", "createdDateTime": "2026-04-24T17:00"}', []) == []
    found = CardRecognizer().analyze('{"card": "6420879295149"}', [])
    assert [(r.start, r.end) for r in found] == [(10, 23)]  # another key's value stays a card
