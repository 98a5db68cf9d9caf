"""The '@'-anchored e-mail recognizer reports exactly what Presidio's EmailRecognizer reports."""

from __future__ import annotations

import random

import pytest
from presidio_analyzer.predefined_recognizers import EmailRecognizer

from gateway.guardrails.emails import AnchoredEmailRecognizer, _match_holding
from gateway.guardrails.offline import configure_offline

# Characters that make and break addresses: local-part signs, dots and dashes in domains, '@' twice, spaces,
# a combining mark and an accented letter (word characters to the regex), a full stop after a domain.
_ALPHABET = "abcxyz019@@@...--_+/'!#~ \n\u0301éß(),:<>"
_CASES = [
    "Mail dana@example.org or luis.ortega@mail.example.co.uk today.",
    "a@b.com@c.org and x@y.museum.",
    "a@b.com.xx@c.org",
    "first.@example.org .lead@example.org x..y@example.org",
    "user@localhost, user@no-suffix.invalidtld, user@exa-mple.com-",
    "über.straße@bücher.de and josé@ejemplo.es",
    "<dana@example.org>,(luis@example.net);mei@example.io:",
    "a/b@example.org q?x@example.org #tag@example.org",
    "@example.org @@ a@ @b.com a@b",
    "x" * 300 + "@example.org",
    "@team a@ b@. 5@pm " + "prose between them " * 20 + "dana@example.org, @x, me@ y@example.org",
]


def _spans(recognizer: EmailRecognizer, text: str) -> list[tuple[int, int, float, str]]:
    return [(r.start, r.end, r.score, r.recognition_metadata[r.RECOGNIZER_NAME_KEY])
            for r in recognizer.analyze(text, ["EMAIL_ADDRESS"])]  # fmt: skip


@pytest.fixture(scope="module")
def recognizers() -> tuple[EmailRecognizer, AnchoredEmailRecognizer]:
    configure_offline()
    return EmailRecognizer(), AnchoredEmailRecognizer()


@pytest.mark.parametrize("text", _CASES)
def test_same_findings_as_presidio(recognizers: tuple[EmailRecognizer, AnchoredEmailRecognizer], text: str) -> None:
    presidio, anchored = recognizers
    assert _spans(anchored, text) == _spans(presidio, text)


def _random_text(rng: random.Random) -> str:
    """Address-shaped pieces (local part, '@', labels, a suffix) among noise, then a few characters changed."""
    words = ["dana", "x", "o'neil", "a.b", "mail", "x-y", "é", "\u0301", "", "."]
    suffixes = ["org", "com", "co.uk", "de", "museum", "invalidtld", "com-", "org."]
    pieces = []
    for _ in range(rng.randrange(1, 6)):
        local = "".join(rng.choice(words) for _ in range(rng.randrange(1, 3)))
        labels = [rng.choice(words) for _ in range(rng.randrange(0, 3))]
        pieces.append(f"{local}@{'.'.join([*labels, 'example', rng.choice(suffixes)])}")
        pieces.append("".join(rng.choice(_ALPHABET) for _ in range(rng.randrange(3))))
    chars = list("".join(pieces))
    for _ in range(rng.randrange(3)):
        chars.insert(rng.randrange(len(chars) + 1), rng.choice(_ALPHABET))
    return "".join(chars)


def test_same_findings_on_random_text(recognizers: tuple[EmailRecognizer, AnchoredEmailRecognizer]) -> None:
    presidio, anchored = recognizers
    rng = random.Random(34)
    found = 0
    for _ in range(1500):
        text = _random_text(rng)
        expected = _spans(presidio, text)
        found += len(expected)
        assert _spans(anchored, text) == expected, text
    assert found > 500  # the random texts hold addresses, not only noise


def test_reports_presidios_name_and_score(recognizers: tuple[EmailRecognizer, AnchoredEmailRecognizer]) -> None:
    _, anchored = recognizers
    (result,) = anchored.analyze("write to dana@example.org", ["EMAIL_ADDRESS"])
    assert (result.entity_type, result.start, result.end, result.score) == ("EMAIL_ADDRESS", 9, 25, 1.0)
    assert anchored.name == "EmailRecognizer"


def test_a_dangling_at_sign_is_answered_from_its_own_local_part() -> None:
    # A '@' of a handle or a price that no address holds used to be searched on from, through all the prose after it
    # to the next address, at every position: a 2 KB prompt's worth of work for one '@'.
    anchored = AnchoredEmailRecognizer()
    text = "ping @team or me@ 5pm, " + "the quarterly numbers look off " * 60 + "dana@example.org"
    for at in (text.index("@"), text.index("@", text.index("@") + 1)):
        start = at
        while start > 0 and not text[start - 1].isspace():
            start -= 1
        assert _match_holding(anchored._compiled, text, start, at) is None
    at = text.rindex("@")
    assert _match_holding(anchored._compiled, text, at - 4, at).group() == "dana@example.org"  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a row of a pipe-delimited block: the '|' before the address ends its cell
        ("nombre|apellidos|municipio|correo|móvil\nMarino|Marín|Dasha|mmarin@example.com|011 15-4737-8797\n"
         "Stéphanie|Badan|Pet Care|sbadan@example.org|+39 312 798 5756",
         ["mmarin@example.com", "sbadan@example.org"]),
        ("MUÑOZ Manuel|manuel.munoz@example.net|San José", ["manuel.munoz@example.net"]),
        ("id|name|mail\nsee a|b@example.com", ["a|b@example.com"]),  # the lines' pipes differ: no row of a block
        # elsewhere RFC 5322 allows '|' in a local part, as Presidio reads it
        ("write to a|b@example.com please", ["a|b@example.com"]),
    ],
)  # fmt: skip
def test_a_pipe_delimited_row_ends_the_local_part(recognizers: tuple[EmailRecognizer, AnchoredEmailRecognizer],
                                                  text: str, expected: list[str]) -> None:  # fmt: skip
    anchored = recognizers[1]
    assert [text[r.start : r.end] for r in anchored.analyze(text, ["EMAIL_ADDRESS"])] == expected
