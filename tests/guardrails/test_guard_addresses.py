"""STREET_ADDRESS by structure: house number + street name + a street-type word read from Faker's locale providers,
in each locale's layout; and the number-and-word phrases it leaves alone."""

import random

import pytest

from gateway.guardrails import addresses as addresses_module
from gateway.guardrails.addresses import _ANCHOR, StreetAddressRecognizer, _anchors, street_vocabulary


@pytest.fixture(scope="module")
def addresses() -> StreetAddressRecognizer:
    return StreetAddressRecognizer()


def found(addresses: StreetAddressRecognizer, text: str) -> list[str]:
    return [text[r.start : r.end] for r in addresses.analyze(text, []) if r.score >= 0.5]


def test_the_vocabulary_comes_from_the_locales_with_each_words_role() -> None:
    vocabulary = street_vocabulary()
    assert {"Street", "Avenue", "Meadow"} <= vocabulary.suffixes  # English: after the name
    assert {"rue", "Calle", "Via", "ulica", "Rua", "ul."} <= vocabulary.prefixes  # before the name
    assert {"straße", "str.", "weg", "straat"} <= vocabulary.glued  # glued to the name's end
    assert {"Apt.", "Suite", "Flat", "Piso"} <= vocabulary.units
    assert "Back" not in vocabulary.prefixes  # fi_FI's first halves of glued names are no street types


@pytest.mark.parametrize(
    ("text", "address"),
    [
        ("Ship it to 1600 Amphitheatre Parkway by Friday.", "1600 Amphitheatre Parkway"),
        ("She lives at 12 Birchwood Close Apt. 4B now", "12 Birchwood Close Apt. 4B"),
        ("Flat 3 Kingfisher Court, then left", "Flat 3 Kingfisher Court"),
        ("Nous habitons 18, boulevard Victor Hugo depuis mai.", "18, boulevard Victor Hugo"),
        ("Mi dirección es Calle de Alcalá 42 Piso 3, Madrid", "Calle de Alcalá 42 Piso 3"),
        ("Abito in Viale Monza, 118 da anni", "Viale Monza, 118"),
        ("Adres: ul. Piotrkowska 104/6, Łódź", "ul. Piotrkowska 104/6"),
        ("Anschrift: Hauptstr. 5/7, 10115 Berlin", "Hauptstr. 5/7"),
        ("Wir wohnen in der Karl-Marx-Allee 90", "Karl-Marx-Allee 90"),
        ("Ons adres is Kerkstraat 12", "Kerkstraat 12"),
        ("Moro na Rua Augusta, 1500 em São Paulo", "Rua Augusta, 1500"),
        ("id,address,status\n7,88 Willow Bend Suite 12,open", "88 Willow Bend Suite 12"),  # a CSV cell
        ("ok send it to 45 maple avenue pls", "45 maple avenue"),  # lower-case chat
    ],
)
def test_addresses_in_the_layouts_of_their_locales(addresses: StreetAddressRecognizer, text: str,
                                                   address: str) -> None:  # fmt: skip
    assert found(addresses, text) == [address]


@pytest.mark.parametrize(
    "text",
    [
        "took 5 ms to run the suite",  # number, words, a street word: stop words between
        "we need part 0027 356 466 cant reach it",  # lower case: only common English street types
        "send it via email 3 times",  # a prefix word, a word and a count
        "During 3 days the Ring 2024 release slipped",  # a stop word and a year beside glued types
        "worker-3 request completed status=200",  # numbers glued to words or symbols
        "Park Avenue is lovely",  # a street without a number
    ],
)
def test_numbers_beside_words_that_are_no_address(addresses: StreetAddressRecognizer, text: str) -> None:
    assert found(addresses, text) == []


@pytest.mark.parametrize(
    ("text", "address"),
    [
        ("deliver to ulica lipowa 12/4 pls thx", "ulica lipowa 12/4"),  # a word after the number
        ("im at travessa do carmo, 41 and its urgent", "travessa do carmo, 41"),
        ("ship it to via garibaldi, 8 appartamento 3 asap", "via garibaldi, 8 appartamento 3"),  # a unit, then words
        ("im at 14, rue de lourmel im in paris", "14, rue de lourmel"),  # an open layout, the sentence going on
        ("deliver to lindenstr. 5/2 pls", "lindenstr. 5/2"),  # a glued type in lower case
        ("im at karl-marx-allee 90", "karl-marx-allee 90"),
        ("im at aleja róż 7 / 10.0.0.1 is down", "aleja róż 7"),  # the IP after a slash is no flat number
        ("Exception: retry failed; shipping_address=12 Oak Tunnel; code=7", "12 Oak Tunnel"),  # a field's value
    ],
)
def test_lower_case_addresses_after_an_address_word_and_field_values(addresses: StreetAddressRecognizer, text: str,
                                                                     address: str) -> None:
    assert address in found(addresses, text)


@pytest.mark.parametrize(
    "text",
    [
        "sent it via email 3 times",  # no address word before it
        "go to string 5 then stop",  # a glued type ending an English word
        "listen to offering 3 songs",
        "status=200 OK retries=3 Max",  # field values with no street type
        "we talked via zoom 2 times at least",
    ],
)
def test_lower_case_phrases_that_stay_no_address(addresses: StreetAddressRecognizer, text: str) -> None:
    assert found(addresses, text) == []


_ANCHOR_ALPHABET = [*"0123456789aZé .,=\n\t\u00a0-/:#_", "addr=", "Address=", "STRASSE=", "straße=", "Apt. ", "  "]


@pytest.mark.parametrize("seed", range(4))
def test_anchors_found_from_the_digits_are_the_anchor_regexs_own(seed: int) -> None:
    """The street patterns' windows hang on ``_ANCHOR``'s matches; looking for them only next to digits must give
    exactly what scanning the whole text gives (the same spans, in the same order), whatever the text."""
    rng = random.Random(seed)
    texts = ["Ticket 1000: Luis (+1 415 555 7468)", "12 Elm St, addr=4, Apt.   7", "  9", "a\t\t 1 2 34", ""]
    texts += ["".join(rng.choice(_ANCHOR_ALPHABET) for _ in range(rng.randint(1, 40))) for _ in range(5000)]
    for text in texts:
        assert [m.span() for m in _anchors(text)] == [m.span() for m in _ANCHOR.finditer(text)], text


# Street-type words of every role as the patterns read them, in other cases, cut short, run into other words or
# numbers, and written with the characters case-insensitive matching pairs with letters apart from ``str.lower``
# ("ſ", "ı", "İ", the Kelvin sign).
_LAYOUT_ALPHABET = [*"0123456789aZé .,-/'\n", " 12 ", " 4B ", "Apt.", "apt", "Suite", "OF", "of", "Piso", "FLAT",
                    "rue", "RUE", "Rue", "Calle", "calle", "Via", "vIA", "ul.", "Ul", "C.", "c", "r", "Rua", "Av.",
                    "Viale", "allée", "Allé", "área", "Praça", "praca", "Maple", "de la", "Kerk", "straat", "str.",
                    "-Allee", "ſtrada", "Vıa", "İ", "\u212a", "Studio", "ſuite", "Boulevard", "Court", "avenue",
                    "Flat 3 Kingfisher Court", "apt 5 maple avenue", "Suite 7 Oak ", "Piso 9", "Kerkstraat 12",
                    "18, boulevard Victor", "93 rue Simon", "House No. ", "Số ", "Phố", "Đường", "ul. Mira, d. ",
                    "pr.", "k. ", "Jalan", "5th", "address: ", "ADR;TYPE=HOME:;;", "postalAddress:",
                    " is ", "iela", "Sokak", "TN", "No:", "D:", "g.", "Lane, Hse ", "Plot", "MOO", "Crescent",
                    "Hangang-ro", "-daero", " 42-gil", "Ngong Lane", "Sevani", "Marshal Baghramyan", "Carrera",
                    " # ", "12-34", "C-5", "Cl.", "Calle 45 # 12-34", "utca", "tér 3. 2. em. 4.",
                    "Ngong Lane, Hse 84", "Blk 8 Lot 2, Brgy. X", "blk", "Lot", "PKWY", "St", "7 MAIN ST",
                    "Ebisu 3-chome 5-7, Shibuya-ku"]  # fmt: skip


@pytest.mark.parametrize("seed", range(4))
def test_layouts_left_out_for_want_of_their_words_would_have_found_nothing(
    addresses: StreetAddressRecognizer, monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    """A layout that opens with a unit word or a prefix type is not searched in a text holding none of their runs
    of letters: the findings must be those of every layout searched, whatever the text."""
    rng = random.Random(seed)
    texts = ["".join(rng.choice(_LAYOUT_ALPHABET) for _ in range(rng.randint(1, 14))) for _ in range(3000)]
    skipped = [addresses.analyze(text, []) for text in texts]
    monkeypatch.setattr(addresses_module, "_letter_runs", lambda text: None)
    for text, found_skipping in zip(texts, skipped, strict=True):
        everything = addresses.analyze(text, [])
        assert [(r.start, r.end, r.score) for r in found_skipping] == [(r.start, r.end, r.score) for r in everything]
    for _, pattern in addresses_module._patterns():  # the texts do reach every layout
        assert any(pattern.search(text) for text in texts), pattern.pattern[:60]


# Glued and suffix types in several cases, with and without their dot, inside longer words and cut short; letters
# that fold apart from ``str.lower`` ("ẞ", "ſ", the Kelvin sign) and non-ASCII text.
_GLUED_ALPHABET = [*"0123456789aZé .,-/'\n", " 12 ", " 4B ", "Eberth", "str.", "Str", "STR.", "straße", "STRASSE",
                   "Straẞe", "ſtraat", "gasse", "Gasse", "weg", "-Weg", "WEG", "vägen", "Kerk", "gränd", "\u212a",
                   "Ring", "ring", "ringen", "highway", "Lane", "lane", "Court", "Avenue", "Road", "rd", "St", "Park",
                   "park", "Cul-de-sac", "Dato'Keramat", "Maple", "Ticket 10 ", "+1 415 555 1663", "1-2", "8a",
                   "12 Maple ", "4B Oak ", "7 maple ", "Lane", "COURT ", "Jennifer ", "Avenue, Apt. 4",
                   "Kerkstraat 3"]  # fmt: skip


@pytest.mark.parametrize("seed", range(3))
def test_glued_and_suffix_layouts_left_out_for_want_of_their_types_would_have_found_nothing(
    addresses: StreetAddressRecognizer, monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    """The layouts a suffix type ends (after a house number and a name) or a glued type ends (a name run into its
    type) are not searched in a text none of whose runs of letters is a suffix's first run or ends in a glued type's
    last one: the findings must be those of every layout searched."""
    rng = random.Random(seed)
    texts = ["".join(rng.choice(_GLUED_ALPHABET) for _ in range(rng.randint(1, 12))) for _ in range(3000)]
    skipped = [addresses.analyze(text, []) for text in texts]
    monkeypatch.setattr(addresses_module, "_letter_runs", lambda text: None)
    found = 0
    for text, found_skipping in zip(texts, skipped, strict=True):
        everything = addresses.analyze(text, [])
        assert [(r.start, r.end, r.score) for r in found_skipping] == [(r.start, r.end, r.score) for r in everything]
        found += bool(everything)
    assert found > 100  # the texts do hold addresses


# Address keys of every shape, their kinds and joins, words that name other addresses, values.
_FIELD_ALPHABET = [*"0123456789aZé .,-_/:;=>\"'\n<", " 12 ", "Main", "address", "Address", "ADDRESS", "addr", "adr",
                   "ADR", ";TYPE=HOME:;;", "postal", "shipping ", "home", "Home_", "street", "Street", "line", "Line1",
                   "adresse", "dirección", " is ", " est ", "email ", "ip ", "mail-", "osoite", "Anschrift", "endereço",
                   "9 H.SULTANOV", "Kalnina 12", "address: 12 Main", "postalAddress: Kalnina 12", "the address is ",
                   "ADR;TYPE=HOME:;;9 H.SULTANOV", "shipping_address=12 Main", "<AddressLine1>Kalnina 12<"]  # fmt: skip


@pytest.mark.parametrize("seed", range(3))
def test_field_keys_looked_for_at_the_stems_their_runs_hold_find_what_the_pattern_finds(seed: int) -> None:
    """The field layout's pattern is tried only at the stems of the key runs the text holds, and only where a key's
    word and its join follow the stem: the same matches as the pattern's ``finditer`` over the whole text."""
    pattern = dict(addresses_module._patterns())["field"]
    rng = random.Random(seed)
    found = 0
    for _ in range(3000):
        text = "".join(rng.choice(_FIELD_ALPHABET) for _ in range(rng.randint(1, 14)))
        spans = [m.span() for m in pattern.finditer(text)]
        assert [m.span() for m in addresses_module._field_matches(text, pattern, addresses_module._letter_runs(text))] \
            == spans, text  # fmt: skip
        assert [m.span() for m in addresses_module._field_matches(text, pattern)] == spans, text
        found += bool(spans)
    assert found > 100


def test_a_support_ticket_holds_no_unit_word_nor_street_type() -> None:
    """Ticket text (numbers beside words on every line, so the address windows cover all of it) is searched for no
    layout that a unit word, a prefix type, a suffix type or a glued type has to stand in."""
    ticket = (
        "Ticket 1016: Luis Ortega (luis@example.org, +1 415 555 7101) asks why the API returns 429 at low volume. "
        "Priority low.\nTicket 1017: a customer wants the shipping address on order 88 changed."
    )
    runs = addresses_module._letter_runs(ticket)
    assert runs is not None and "ticket" in runs
    needs = addresses_module._layout_words()
    assert needs[5] is None
    assert all(needs[layout] is not None and needs[layout].isdisjoint(runs) for layout in (0, 1, 2, 3, 4))  # type: ignore[union-attr]
    assert not addresses_module._ends_in_glued_type(runs)
    assert addresses_module._ends_in_glued_type(runs | {"eberthstr"})
    assert addresses_module._ends_in_glued_type(frozenset({"weg"}))
    assert addresses_module._letter_runs("Vıa Roma 5") is None  # a dotless i: the patterns themselves decide


def test_no_anchors_are_looked_for_where_no_layout_searched_in_their_windows_may_match(
    addresses: StreetAddressRecognizer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A support ticket holds a number beside a word on every line but no street type, unit or label: its windows
    (the anchors found digit by digit over all of it) are not worked out; a street type in it has them found."""
    ticket = "Ticket 1016: Luis Ortega (+1 415 555 7101) wants the shipping address on order 88 changed. Priority low."
    windows: list[str] = []

    def whole(text: str) -> list[tuple[int, int]]:
        windows.append(text)
        return [(0, len(text))]

    monkeypatch.setattr(addresses_module, "_windows", whole)
    assert addresses.analyze(ticket, []) == [] and windows == []
    moved = ticket + " He moved to 12 Maple Lane."
    assert [(r.start, r.end) for r in addresses.analyze(moved, [])] == [(len(ticket) + 13, len(moved))]  # with its dot
    assert windows == [moved]


@pytest.mark.parametrize(
    ("text", "address"),
    [
        # Romanised Cyrillic types (only with their dot) and house-number labels, from ru_RU's "ул." and "д."
        ("Deliver to ul. Lenina, d. 14 k. 2 by noon", "ul. Lenina, d. 14 k. 2"),
        ("Moved to pr. Mira, d. 7 last year", "pr. Mira, d. 7"),
        # Vietnamese types and its "Số" label (Latin Extended Additional letters)
        ("Giao hàng: 12 Đường Nguyễn Huệ, Quận 1", "12 Đường Nguyễn Huệ"),
        ("Gửi đến Số 45 Phố Hàng Bạc nhé", "Số 45 Phố Hàng Bạc"),
        # a street named by a number after a type that is no English word, the unit before it taken in
        ("Lot 12, Jalan 3/4 Taman Melati", "Lot 12, Jalan 3/4"),
        # a label that opens the address, and what comes before it
        ("Courier to House No. 14, GulshanPara today", "House No. 14, GulshanPara"),
        ("Flat 2, Building No. 7, Banani Road", "Flat 2, Building No. 7, Banani Road"),
        ("keys are at Flat\n12, Holding No. 4, Dhanmondi Lane.", "Flat\n12, Holding No. 4, Dhanmondi Lane"),
        ("Send it to 350 5th Avenue, New York", "350 5th Avenue"),  # an ordinal name
        ("LOCATION:221 Baker Street\nEND:VEVENT", "221 Baker Street"),  # after a key's colon
        ("Ship to 55 rue Lepic Apt. 3 today", "55 rue Lepic Apt. 3"),  # a unit after an open layout
        # values under an address key need no street-type word
        ("postalAddress: Ermou 45\nmail: x@y.org", "Ermou 45"),
        ("<AddressLine>Tsimiski 12</AddressLine>", "Tsimiski 12"),
        ("ADR;TYPE=HOME:;;3 Fizuli Rustamov;;;;", "3 Fizuli Rustamov"),
        ("caller: the address is patision 112\nagent: ok", "patision 112"),
        # lower case after an address word: any locale's types
        ("send it to 12 shaka indlela please", "12 shaka indlela"),
        ("the address is bahnhofstraße 7\n", "bahnhofstraße 7"),
    ],
)
def test_addresses_of_other_locales_labels_and_keys(addresses: StreetAddressRecognizer, text: str,
                                                    address: str) -> None:  # fmt: skip
    assert found(addresses, text) == [address]


@pytest.mark.parametrize(
    "text",
    [
        "Issue No. 5, Volume 3",  # "No." opens no address: no lead label of one English word
        "Lot 7, Batch 12 passed QA",
        "Build No. 5, Release Candidate",
        "we had all servers 3.",  # romanised "all." needs its dot
        "per day 5 times",
        "the email address is john 5\n",  # another kind of address
        "the IP address is Alpha 5\n",
        "E-Mail Address: Sales 5\n",
        "ip_address: Host 5\n",
        "address: see 2\n",  # stop words only
        "LOCATION:Room 5\n",  # a key that names no address
        "ERROR:404 Not Found",
        "Meeting at 12:30 Main Hall",
        "Jalan 5 minutes",  # a type and a count, no house number
        "4 via 2 hops",  # a street named by a number after an English word
    ],
)
def test_labels_keys_and_numbered_names_that_stay_no_address(addresses: StreetAddressRecognizer, text: str) -> None:
    assert found(addresses, text) == []


def test_romanised_and_label_vocabulary_comes_from_the_locales() -> None:
    vocabulary = street_vocabulary()
    assert {"ul.", "pr.", "per.", "bul."} <= vocabulary.dotted  # ru_RU's "ул.", "пр.", ... romanised
    assert {"d.", "k.", "No.", "Số", "House No.", "Lot"} <= vocabulary.labels
    assert {"House No.", "Số", "H.No."} <= vocabulary.lead_labels
    assert "No." not in vocabulary.lead_labels and "Lot" not in vocabulary.lead_labels
    assert {"Đường", "Phố"} <= vocabulary.prefixes  # vi_VN's, used by a method rather than a format


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a tab of a tab-delimited row ends a street: no match across cells
        ("id\tlabel\tvalue\tcol4\tnote\n55243\tZrealizowane\tLAROSE Robert\tXiazhen\tFollow Up", []),
        ("Record ID\tsku\tpickup_point\tLead Source\n625558245\t6753 3015 5288 1688\tQueen Street Physio\tReferral",
         []),
        # a street in its own cell stays one, and a single tab (no row) is space
        ("id\taddress\tcity\n7\t221 Baker Street\tLondon", ["221 Baker Street"]),
        ("Ship to:\t221 Baker Street", ["221 Baker Street"]),
    ],
)  # fmt: skip
def test_streets_end_at_a_tsv_rows_cell(addresses: StreetAddressRecognizer, text: str, expected: list[str]) -> None:
    assert found(addresses, text) == expected
