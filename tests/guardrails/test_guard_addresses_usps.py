"""STREET_ADDRESS in USPS Publication 28's abbreviated form ("7631 ORTEGA PKWY", "450 Oak Blvd Ste 12"), and the
Philippine and Indonesian area parts after a street or a block and lot ("Blk 8 Lot 2 Phase 5, Brgy. Pag-asa",
"Jl. Sudirman No. 45 Kav. 3, RT 03/RW 05, Kel. Kendari")."""

import pytest

from gateway.guardrails.addresses import StreetAddressRecognizer, usps_tables


@pytest.fixture(scope="module")
def addresses() -> StreetAddressRecognizer:
    return StreetAddressRecognizer()


def found(addresses: StreetAddressRecognizer, text: str) -> list[str]:
    return [text[r.start : r.end] for r in addresses.analyze(text, []) if r.score >= 0.5]


def test_the_tables_are_publication_28s() -> None:
    tables = usps_tables()
    assert {"PKWY", "ST", "BLVD", "XING", "SPGS", "HTS", "TRL", "CT"} <= tables.suffixes
    assert not {"PARK", "WAY", "RUN"} & tables.suffixes  # a suffix's own name is the words layout's
    assert {"APT", "STE", "RM", "BLDG", "FL", "SUITE"} <= tables.units
    assert {"NE", "SW", "N"} <= tables.directions


@pytest.mark.parametrize(
    ("text", "address"),
    [
        ("tuo se osoitteeseen 7631 ORTEGA PKWY", "7631 ORTEGA PKWY"),
        ('home: "5771 EDWARDS BLVD RM 47A"\n---', "5771 EDWARDS BLVD RM 47A"),
        ("| 3466 NE BROWN PKWY APT 29A | x |", "3466 NE BROWN PKWY APT 29A"),
        ("7193 SANDERS SPGS BLDG 50A", "7193 SANDERS SPGS BLDG 50A"),
        ("Ship it to 450 Oak Blvd Ste 12, Springfield", "450 Oak Blvd Ste 12"),
        ("4 Privet Dr\nLittle Whinging", "4 Privet Dr"),
        ("im at 1035 schmidt blvd", "1035 schmidt blvd"),
        ("ship to 3356 main st", "3356 main st"),
        ("Bos, [28.03.2026 05:45]\nalamatnya 3356 main st\n", "3356 main st"),  # Indonesian: its address
        ("antar ke 4129 ne lewis sq", "4129 ne lewis sq"),  # Indonesian: deliver to
    ],
)
def test_usps_abbreviated_addresses(addresses: StreetAddressRecognizer, text: str, address: str) -> None:
    assert found(addresses, text) == [address]


@pytest.mark.parametrize(
    "text",
    [
        "we have 12 CT scans",
        "I ran 5 km at St Mary",
        "took 5 ms to run",
        "Figure 3 shows PT",  # a name in capitals, its suffix not
        "Page 2 of the Dr",  # "of the": English stop words
        "ok 3 more st\n",  # lower case: "more" and "st" English words, no address word before them
        "Step 4 CT\nnext",  # "CT" after a capitalised word, not in capitals like it
    ],
)
def test_abbreviations_outside_an_address(addresses: StreetAddressRecognizer, text: str) -> None:
    assert found(addresses, text) == []


@pytest.mark.parametrize(
    ("text", "address"),
    [
        ("| Blk 8 Lot 2 Phase 5, Brgy. Pag-asa | 6011", "Blk 8 Lot 2 Phase 5, Brgy. Pag-asa"),
        ("alamatnya blk 38 lot 9 phase 1, brgy. bagong silang\n", "blk 38 lot 9 phase 1, brgy. bagong silang"),
        ("Blk 32 Lot 54, Mabini St., Brgy. Malinis", "Blk 32 Lot 54, Mabini St., Brgy. Malinis"),
        ("Address: 218 MABINI ST., BRGY. MALINIS", "218 MABINI ST., BRGY. MALINIS"),
        ("dn: Blk 38 Lot 4\\, Molave St.\\, Brgy. San Jose,ou=x", "Blk 38 Lot 4\\, Molave St.\\, Brgy. San Jose"),
        ("street=7 ELM CT\\, x", "7 ELM CT"),
        ("Gg. S. Parman No. 112 RT 007/RW 003", "Gg. S. Parman No. 112 RT 007/RW 003"),
        (
            "JL. W.R. SUPRATMAN NO. 190, RT 007/RW 011, KEL. BANJARBARU, KEC. BANDAR LAMPUNG",
            "JL. W.R. SUPRATMAN NO. 190, RT 007/RW 011, KEL. BANJARBARU, KEC. BANDAR LAMPUNG",
        ),
        (
            "Jl. Sudirman No. 45 Kav. 3, RT 03/RW 05, Kel. Kendari, Kec. Probolinggo.",
            "Jl. Sudirman No. 45 Kav. 3, RT 03/RW 05, Kel. Kendari, Kec. Probolinggo",
        ),
    ],
)
def test_philippine_and_indonesian_area_parts(addresses: StreetAddressRecognizer, text: str, address: str) -> None:
    assert found(addresses, text) == [address]


def test_a_block_and_lot_alone_is_no_address(addresses: StreetAddressRecognizer) -> None:
    assert found(addresses, "Block 3 Lot 7 of the sample failed QC") == []


@pytest.mark.parametrize(
    ("text", "address"),
    [
        (
            '"msg": "billing address now Nishi-Shinjuku 7-chome 27-9, Shinjuku-ku"}',
            "Nishi-Shinjuku 7-chome 27-9, Shinjuku-ku",
        ),
        ("send it to 5-9-15 Nihonbashi, Chuo-ku please", "5-9-15 Nihonbashi, Chuo-ku"),
        ("dn: l=2-2-20 Kabukicho\\, Shinjuku-ku,ou=x", "2-2-20 Kabukicho\\, Shinjuku-ku"),
        ("EBISU 8-CHOME 9-19, SHIBUYA-KU", "EBISU 8-CHOME 9-19, SHIBUYA-KU"),
    ],
)
def test_romanised_japanese_addresses(addresses: StreetAddressRecognizer, text: str, address: str) -> None:
    assert found(addresses, text) == [address]


def test_dashed_numbers_before_a_word_need_a_ward(addresses: StreetAddressRecognizer) -> None:
    assert found(addresses, "see version 1-2-3 Release, then 4-5-6 Build") == []
