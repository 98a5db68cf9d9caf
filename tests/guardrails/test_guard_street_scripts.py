"""STREET_ADDRESS written in its own script, read from Faker's address providers of those locales: Chinese road
suffixes and number marks, Thai road and lane words, Cyrillic types and number labels, and the street-name tables of
Hebrew, Greek, Armenian and Georgian (whose streets carry no type); Greek streets named after people by the genitive
of names-dataset's family names or of a family-name suffix (no Faker person table); and the phrases of the same
shapes left alone."""

from collections.abc import Callable

import pytest


@pytest.mark.parametrize(
    ("text", "address"),
    [
        # Chinese: road suffix, section, number and its mark, no spaces; the words before the name left out
        ("请寄到中山路100號", "中山路100號"),
        ("office: 民生街2段18號之3, 2F", "民生街2段18號之3"),
        ("送到人民路8号", "人民路8号"),
        # Thai: the house number (and village number) before the road or lane word
        ("ส่งที่ 12/3 ถนนพหลโยธิน ครับ", "12/3 ถนนพหลโยธิน"),
        ("99 หมู่ 4 ซอยสุขุมวิท", "99 หมู่ 4 ซอยสุขุมวิท"),
        ("ship to 8 ถ.เพชรบุรี today", "8 ถ.เพชรบุรี"),
        # Cyrillic: the type, the name, the labelled number (Ukrainian, Russian) or a bare one (Bulgarian)
        ("живу: вулиця Хрещатик, буд. 22 кв. 5", "вулиця Хрещатик, буд. 22 кв. 5"),
        ("ул. Ленина, д. 5 к. 2", "ул. Ленина, д. 5 к. 2"),
        ("2/УЛ. ЛЕНИНА, Д. 5\n", "УЛ. ЛЕНИНА, Д. 5"),
        ("живея на бул. Витоша 45", "бул. Витоша 45"),
        # Hebrew: a street of he_IL's table, or a street type and any name
        ("הכתובת: שד' בן גוריון 4, תל אביב", "שד' בן גוריון 4"),
        ("the office moved to אביב 12", "אביב 12"),
        # Greek: a locality, or a family name in the genitive (a surname suffix's, accented or in plain capitals),
        # with or without a type
        ("μένω στην Αβραμίδου 3", "Αβραμίδου 3"),
        ("στην Τσαγκαράκη 12", "Τσαγκαράκη 12"),
        ("2/ΠΑΠΑΔΟΠΟΥΛΟΥ 41\n", "ΠΑΠΑΔΟΠΟΥΛΟΥ 41"),
        ("Λεωφόρος Άγρας 12, Αθήνα", "Λεωφόρος Άγρας 12"),
        # Armenian (in capitals "և" is "ԵՒ") and Georgian
        ("ապրում եմ Մաշտոցի 5", "Մաշտոցի 5"),
        ("2/ՀԻՆ ԵՐԵՒԱՆՑՈՒ 41\n", "ՀԻՆ ԵՐԵՒԱՆՑՈՒ 41"),
        ("ვცხოვრობ აბაშის ქ. 12", "აბაშის ქ. 12"),
    ],
)
def test_streets_in_their_own_script(find_streets: Callable[[str], list[str]], text: str, address: str) -> None:
    assert find_streets(text) == [address]


@pytest.mark.parametrize(
    "text",
    [
        "請看第1號文件",  # a number mark with no road before it
        "ถนนสุขุมวิท ไม่มีเลข",  # a road with no house number
        "ได้ 5 ถูกต้อง",  # a number before a word that opens with a road word's letter
        "парк 3 дні",  # a type then a lower-case word and a count
        "просп. 5 разів",
        "אביב 2024 היה קר",  # a year
        "η κυρία Αβραμίδου 3 φορές",  # a number that counts something: a lower-case word follows
        "Αθήνας 2004",
        "Έκδοση 2 του εγγράφου",  # a noun of the shape's letters but no family-name suffix ("version 2")
        "Մաշտոցի 5 անգամ",
    ],
)
def test_phrases_of_the_same_shapes(find_streets: Callable[[str], list[str]], text: str) -> None:
    assert find_streets(text) == []
