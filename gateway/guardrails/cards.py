"""Payment card numbers: every network's issuer ranges (BIN) and lengths, plus the Luhn check digit.

A digit run is a card when its length and leading digits belong to a network and its Luhn digit is right: one
random 16-digit run in ten passes Luhn, and the ranges below cut that further, so an order id or SKU shaped like a
card is rarely taken for one. Digits may be written plain ("4111111111111111"), in groups separated by single
spaces or dashes ("4111 1111 1111 1111", "3782-822463-10005"); several cards in one run of groups are split at group
boundaries ("4111 1111 1111 1111 5500 0000 0000 0004").
"""

from __future__ import annotations

import itertools
import re

from presidio_analyzer import AnalysisExplanation, EntityRecognizer, RecognizerResult

# (network, first digits as inclusive ranges of equal-width prefixes, allowed lengths)
_NETWORKS: tuple[tuple[str, tuple[tuple[int, int], ...], frozenset[int]], ...] = (
    ("visa", ((4, 4),), frozenset({13, 16, 19})),
    ("mastercard", ((51, 55), (2221, 2720)), frozenset({16})),
    ("amex", ((34, 34), (37, 37)), frozenset({15})),
    ("discover", ((6011, 6011), (644, 649), (65, 65)), frozenset(range(16, 20))),
    ("jcb", ((3528, 3589),), frozenset(range(16, 20))),
    ("diners", ((300, 305), (36, 36), (38, 39)), frozenset(range(14, 20))),
    ("unionpay", ((62, 62),), frozenset(range(16, 20))),
    ("maestro", ((50, 50), (56, 69)), frozenset(range(12, 20))),
)
MIN_DIGITS, MAX_DIGITS = 12, 19

# Runs of digit groups joined by one space or dash, not glued to a word, a '+' (a phone), a dot or another group.
# A JSON record's own "id" member right before a value: the record's identifier (a chat message's, an event's), which
# Teams and Graph exports write as a long run of digits, whatever checksum or dialling plan it happens to fit.
_RECORD_ID_BEFORE = re.compile(r"\"id\"[ \t]*:[ \t]*\"?\Z")
_RECORD_ID_REACH = 12


def is_record_id(text: str, start: int) -> bool:
    """Whether the value at `start` is a JSON object's "id" member ('"id": "9928351761442"')."""
    return _RECORD_ID_BEFORE.search(text, max(0, start - _RECORD_ID_REACH), start) is not None


_RUN = re.compile(r"(?<![\w+.-])[0-9]+(?:[ -][0-9]+)*(?![\w]|[.-]\w)")
_GROUP = re.compile(r"[0-9]+")


def luhn_valid(digits: str) -> bool:
    total = 0
    for index, char in enumerate(reversed(digits)):
        digit = ord(char) - 48
        if index % 2 == 1:
            digit = digit * 2 - 9 if digit > 4 else digit * 2
        total += digit
    return total % 10 == 0


def card_network(digits: str) -> str | None:
    """The network whose issuer range and length ``digits`` fits and whose Luhn digit is right, else None."""
    for network, ranges, lengths in _NETWORKS:
        if len(digits) not in lengths:
            continue
        for low, high in ranges:
            width = len(str(low))
            if low <= int(digits[:width]) <= high:
                return network if luhn_valid(digits) else None
    return None


def _stretches(run: str, groups: list[tuple[int, int]]) -> list[list[tuple[int, int]]]:
    """The longest stretches of consecutive groups joined by one kind of separator (neighbouring stretches share
    their border group); a run with one kind is one stretch."""
    stretches = [[groups[0]]]
    for previous, group in itertools.pairwise(groups):
        current = stretches[-1]
        if len(current) > 1 and run[previous[1]] != run[current[-2][1]]:
            stretches.append([previous])
        stretches[-1].append(group)
    return stretches


class CardRecognizer(EntityRecognizer):
    """CREDIT_CARD for every network's ranges and lengths with a valid Luhn digit, plain, spaced or dashed."""

    SCORE = 0.9  # Luhn and a network's range: still one in a few hundred random runs; "card" nearby raises it
    CONTEXT = ["card",  # noqa: RUF012 - Presidio declares context as a class attribute
               "credit", "debit", "visa", "mastercard", "amex", "cc", "pan", "payment", "carte", "tarjeta",
               "karte"]  # fmt: skip

    def __init__(self) -> None:
        super().__init__(supported_entities=["CREDIT_CARD"], context=self.CONTEXT, name="CardRecognizer")

    def load(self) -> None:
        pass

    def analyze(self, text: str, entities: list[str], nlp_artifacts: object = None) -> list[RecognizerResult]:
        results = []
        for run in _RUN.finditer(text):
            if run.end() - run.start() < MIN_DIGITS or is_record_id(text, run.start()):
                continue
            groups = [(group.start(), group.end()) for group in _GROUP.finditer(run.group())]
            # Mixed separators are no card's print form ("4111-1111 1111"), but a run may join a card to a number
            # before or after it ("SSN: 745-67-1270 3570 6302 2234 6809"): each stretch of groups joined by one
            # kind of separator is read on its own.
            for index, stretch in enumerate(_stretches(run.group(), groups)):
                results.extend(self._cards_in(text, run.start(), stretch, joined_before=index > 0))
        return results

    @staticmethod
    def _printed_groups(groups: list[tuple[int, int]]) -> bool:
        """Groups as cards are printed: three digits or more each, but the last (4-4-4-4-3 of 19 digits). Single
        digits apart ("4 1 1 1 ...") are a number spelled digit by digit, ``SpelledCardRecognizer``'s to judge."""
        return all(end - start >= 3 for start, end in groups[:-1]) and groups[-1][1] - groups[-1][0] >= 2

    def _cards_in(self, text: str, offset: int, groups: list[tuple[int, int]],
                  joined_before: bool = False) -> list[RecognizerResult]:  # fmt: skip
        """The cards among a stretch's groups (``joined_before``: its first group is the last of the stretch before,
        joined to it by another separator), less those a group of four goes on from (``_goes_on``)."""
        spans = self._card_spans(text, offset, groups)
        starts = {first for first, _, _ in spans}
        ends = {last for _, last, _ in spans}
        results = []
        for first, last, network in spans:
            if self._goes_on(groups, first, last, starts, ends, joined_before):
                continue
            start, end = offset + groups[first][0], offset + groups[last][1]
            explanation = AnalysisExplanation(self.name, self.SCORE, pattern_name=network)
            results.append(RecognizerResult("CREDIT_CARD", start, end, self.SCORE, explanation))
        return results

    @staticmethod
    def _goes_on(groups: list[tuple[int, int]], first: int, last: int, starts: set[int], ends: set[int],
                 joined_before: bool) -> bool:  # fmt: skip
        """Whether a group of four digits that is no other card's goes on right before or after the card's groups: the
        card is a piece of a longer number printed in fours, a SKU's or an IBAN's ("3974-6039-4405-8487" holds a
        12-digit Maestro "6039-4405-8487"; "... 6312 3983 2977 ..." of an IBAN), not a card."""
        after = last + 1
        if after < len(groups) and after not in starts and groups[after][1] - groups[after][0] == 4:
            return True
        before = first - 1
        if before < 0 or before in ends or (before == 0 and joined_before):
            return False
        return groups[before][1] - groups[before][0] == 4

    def _card_spans(self, text: str, offset: int, groups: list[tuple[int, int]]) -> list[tuple[int, int, str]]:
        """Each card's first and last group index and network: the longest card from each group on, the next one tried
        after it."""
        found: list[tuple[int, int, str]] = []
        first = 0
        while first < len(groups):
            # The longest card that starts at this group: it ends at most MAX_DIGITS groups on (a group holds a
            # digit at least), so a long run of groups costs a bounded number of tries per group, not one per group
            # after it, each joining all their digits.
            for last in range(min(len(groups) - 1, first + MAX_DIGITS - 1), first - 1, -1):
                digits = "".join(text[offset + s : offset + e] for s, e in groups[first : last + 1])
                if len(digits) > MAX_DIGITS:
                    continue
                if len(digits) < MIN_DIGITS:
                    break
                network = card_network(digits) if self._printed_groups(groups[first : last + 1]) else None
                if network is not None:
                    found.append((first, last, network))
                    first = last
                    break
            first += 1
        return found
