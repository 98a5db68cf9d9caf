"""STREET_ADDRESS in the slots a record's structure marks as an address line (X12 N3, SWIFT option F line 2/,
ISO 20022 StrtNm/AdrLine, a field keyed as a street or address line), whatever script or words the value holds;
and the fields of the same shapes that hold no street."""

import re
from collections.abc import Iterator

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from gateway.guardrails import address_slots
from gateway.guardrails.address_slots import slot_spans
from gateway.guardrails.addresses import StreetAddressRecognizer


@pytest.fixture(scope="module")
def addresses() -> StreetAddressRecognizer:
    return StreetAddressRecognizer()


def found(addresses: StreetAddressRecognizer, text: str) -> list[str]:
    return [text[r.start : r.end] for r in addresses.analyze(text, []) if r.score >= 0.5]


@pytest.mark.parametrize(
    ("text", "streets"),
    [
        # X12: both elements of N3 are address lines, whatever their words
        ("NM1*IL*1*DOE*JANE~\nN3*רחוב הרצל 12*דירה 4~\nN4*TEL AVIV*61000~", ["רחוב הרצל 12", "דירה 4"]),
        ("NM1*IL*1~N3*ΟΔΟΣ ΕΡΜΟΥ~N4*ATHINA*10563~", ["ΟΔΟΣ ΕΡΜΟΥ"]),
        # SWIFT MT option F: line 2/ of the ordering or beneficiary customer
        (":50F:/12345678\n1/JOHN SMITH\n2/ՄԱՇՏՈՑԻ 12\n3/AM/YEREVAN\n:59:/998877", ["ՄԱՇՏՈՑԻ 12"]),
        (":59F:/DE44500105175407324931\n1/ANNA WEBER\n2/OKÄNDA VÄGEN 7\n3/SE/MALMO\n", ["OKÄNDA VÄGEN 7"]),
        # ISO 20022 postal-address elements
        ("<PstlAdr><StrtNm>Rua das Flores 8</StrtNm><TwnNm>Porto</TwnNm></PstlAdr>", ["Rua das Flores 8"]),
        ("<PstlAdr><AdrLine>Kaiser-Weg 12</AdrLine></PstlAdr>", ["Kaiser-Weg 12"]),
        # fields keyed as a street or address line: the whole value
        ("[Profile]\nPostalStreet=Hafnarstræti 5, íbúð 2\nCity=Reykjavík", ["Hafnarstræti 5, íbúð 2"]),
        ('address_line1 = "ул. Пушкина 10"\n', ["ул. Пушкина 10"]),
        ('  mailingAddress: "Harborview 9"\n', ["Harborview 9"]),
        ("<AddressLine1>Kerkplein 3</AddressLine1>", ["Kerkplein 3"]),
        ("shipping_street: 'Rua Augusta 274'", ["Rua Augusta 274"]),
        ('[meta@32473 postal_street="77/26 ถนนพระราม 4" seq="1"]', ["77/26 ถนนพระราม 4"]),
    ],
)
def test_a_slot_of_an_address_line_is_one(addresses: StreetAddressRecognizer, text: str, streets: list[str]) -> None:
    assert found(addresses, text) == streets


@pytest.mark.parametrize(
    "text",
    [
        'bind_address = "0.0.0.0:8080"',  # a server's address, not a postal one
        "ip_address: 10.1.2.3",
        "email_address=jane@example.org",
        'street_view_url = "https://maps.example/x/1"',
        "PostalStreet=Main Street\n",  # a key named freely needs a house number in its value
        'street = "{{ address.line1 }}"',  # a template
        'home_address: "${ADDRESS_1}"',
        "the N3*2 value",  # no segment: not at a line's start or after "~"
        "N3*5~",  # no letters
        ":59:/123\nJOHN\n2/3 shares",  # not an option F field
        "<StrtNm>4</StrtNm>",
    ],
)
def test_slots_that_hold_no_street(text: str) -> None:
    assert list(slot_spans(text)) == []


@pytest.mark.parametrize(
    "text",
    [
        "(&(objectClass=inetOrgPerson)(postalAddress=82809ms))",  # an LDAP filter's value: a measure, no street
        "mailing_address=512MB",
    ],
)
def test_a_number_with_a_unit_glued_on_is_no_street(addresses: StreetAddressRecognizer, text: str) -> None:
    assert list(slot_spans(text)) == []
    assert found(addresses, text) == []


def test_an_ldap_filters_value_ends_at_its_closing_parenthesis(addresses: StreetAddressRecognizer) -> None:
    text = "(&(cn=Jane Doe)(postalAddress=12 Main Street)(l=Springfield))"
    assert [text[start:end] for start, end in slot_spans(text)] == ["12 Main Street"]
    assert found(addresses, text) == ["12 Main Street"]


def _field_matches_as_first_written(text: str) -> Iterator[re.Match[str]]:
    """``address_slots._field_matches`` before a window without a ":", "=" or ">" after its key characters was
    skipped: the key looked for around every stem."""
    lower = text.lower()
    if len(lower) != len(text):
        yield from address_slots._FIELD.finditer(text)
        return
    stems = sorted(p for stem in ("street", "addr") for p in address_slots._occurrences(lower, stem))
    done = 0
    for position in stems:
        if position < done:
            continue
        key = address_slots._KEY_ONLY.search(text, max(done, position - address_slots._KIND_REACH),
                                             min(len(text), position + address_slots._KEY_REACH))  # fmt: skip
        for start in sorted({key.start(), position}) if key else (position,):
            if (match := address_slots._FIELD.match(text, start)) is not None:
                yield match
                done = match.end()
                break


_SLOT_PIECES = ["street", "Street", "addr", "address", "Address", "shipping ", "postal_", "mailing", "line", "_1",
                "Line2", "name", " ", "  ", "\t", '"', "'", ":", "=", ">", "</", "<", "12", "7b", "Main", "on order",
                ", ", ".", "\n", "-", "(", ")", "é", "ſ"]  # fmt: skip


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(_SLOT_PIECES), max_size=24))
@example(["Ticket 1005: a customer wants the ", "shipping ", "address", " ", "on order", " changed."])
@example(["shipping ", "address", "  ", "  ", "  ", "  ", "  ", "  ", "  ", "  ", "  ", "  ", "  ", ":", " 12 Main"])
@example(["address", ", ", "street", ":", " 7b Main"])
def test_a_key_is_looked_for_only_where_a_join_may_follow_it(pieces: list[str]) -> None:
    """Skipping the stems whose window holds no ":", "=" or ">" where its key characters end finds the same fields
    as looking for a key around every stem (a key, its quote and its spaces are all word characters, spaces, tabs,
    quotes or dashes)."""
    text = "".join(pieces)
    expected = [m.span() for m in _field_matches_as_first_written(text)]
    assert [m.span() for m in address_slots._field_matches(text)] == expected, text


def test_a_tickets_address_words_are_not_read_as_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """'the shipping address on order changed' holds a key's words but no join after them: no key is looked for."""
    searched: list[int] = []
    key_only = address_slots._KEY_ONLY

    class Counting:
        def search(self, text: str, pos: int, endpos: int) -> re.Match[str] | None:
            searched.append(pos)
            return key_only.search(text, pos, endpos)

    monkeypatch.setattr(address_slots, "_KEY_ONLY", Counting())
    ticket = "Ticket 1005: a customer wants the shipping address on order changed. Priority low.\n"
    assert list(address_slots._field_matches(ticket * 3)) == []
    assert searched == []
    assert [m.group("bare") for m in address_slots._field_matches(ticket + "shipping_address: 12 Main St\n")] == [
        "12 Main St"
    ]
    assert len(searched) == 1
