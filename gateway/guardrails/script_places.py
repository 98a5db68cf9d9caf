"""Country names written in the scripts other than Latin ("Сао Томе и Принсипи", "סרי לנקה", "Χιλή", "মালি",
"موزمبیق"), for the place recognizer: its gazetteer keys Latin-script names only, by their capitals.

The names are every language's that the iso-codes catalogues (pycountry's iso3166-1 translations) and CLDR (Babel's
territory names of every locale) give, in another script than Latin (``python -m gateway.guardrails.script_places``
writes them once to gateway/guardrails/data/country_names_scripts.json; the gateway needs neither package at run time).
A one-word name that is a stop word of a language spaCy ships ("Того", Russian "of that") or shorter than
``MIN_LETTERS`` is left out.

Most of these scripts have no capitals, so a name is read as a place wherever its words stand alone (not inside a
longer word), and, in a script with capitals (Cyrillic, Greek, Armenian), where it is written capitalised. Hebrew and
Arabic glue their one-letter prepositions and conjunctions to the noun ("במוזמביק", in Mozambique; "والمغرب", and
Morocco): a word that is no name is looked up again without one or two of them.

Text in Latin script only (nearly all) is answered by one ``str.isascii`` or one scan of a character class: the table
is read on the first text that holds a word of another script.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Iterator
from pathlib import Path

from gateway.guardrails.country_names import read_names, write_names
from gateway.guardrails.normalize import latin_skeleton  # as the reader's view folds look-alike letters

SNAPSHOT = Path(__file__).parent / "data" / "country_names_scripts.json"
MIN_LETTERS = 3
MAX_NAME_WORDS = 6
# A letter of no Latin script: not ASCII, Latin-1, Latin Extended-A/-B, IPA or the Latin Extended Additional block,
# nor a space, punctuation, symbol or digit of the blocks every script shares (General Punctuation to Miscellaneous
# Symbols and Arrows, CJK punctuation, full-width forms) nor the punctuation of Hebrew, Arabic and Devanagari (maqaf,
# geresh, gershayim, Arabic comma, semicolon, question mark and full stop, danda).
_OTHER_SCRIPT = (r"[^\s\x00-\x7f\u0080-\u02ff\u1e00-\u1eff\u2000-\u2bff\u3000-\u303f\ufe30-\ufe4f\ufe50-\ufe6f"
                 r"\uff00-\uff20\uff3b-\uff40\uff5b-\uff65\u05be\u05c0\u05c3\u05c6\u05f3\u05f4\u060c\u061b\u061f"
                 r"\u066a-\u066d\u06d4\u0964\u0965\u0660-\u0669\u06f0-\u06f9\u0966-\u096f\u09e6-\u09ef]")  # fmt: skip
_OTHER_LETTER = re.compile(_OTHER_SCRIPT)
# A word of such letters; an apostrophe or a geresh ("צ'ילה"), a hyphen ("Шрі-Ланка", "Гвинея-Бисау") or a Hebrew
# maqaf inside it joins its parts. ASCII letters are read too: the reader's view (``normalize.reader_view``) spells a
# token that mixes scripts with the Latin look-alikes of its letters ("N4*Сао Томе" -> "N4*Cao Томе", "BR/ГРЧКА" ->
# "BR/ГPЧKA"), so a name's words are matched by their skeletons (``_key``), and a name found must keep one letter of
# its own script.
_LETTERS = rf"(?:{_OTHER_SCRIPT}|[A-Za-z])+"
_WORD = re.compile(rf"{_LETTERS}(?:['’\u05f3\u05be-]{_LETTERS})*")
# Hebrew's glued prefixes (in, to, from, the, and, as, that) and Arabic's and Urdu's (and, in/by, to, as, so).
_GLUED_PREFIXES = frozenset("בלמהוכש") | frozenset("وبلكف")
SCORE = 0.7  # a gazetteer place's (``places.SCORE``): below NER's


@functools.cache
def script_country_names() -> dict[str, int]:
    """Each name's key (``name_key``) -> its number of words."""
    return {key: key.count(" ") + 1 for key in map(name_key, read_names(SNAPSHOT)) if key}


@functools.cache
def _longest_from() -> dict[str, int]:
    """First word of a name -> the most words a name opening with it has."""
    longest: dict[str, int] = {}
    for key, count in script_country_names().items():
        first = key.split(" ", 1)[0]
        longest[first] = max(count, longest.get(first, 0))
    return longest


def name_key(name: str) -> str:
    """A name as its words, case-folded, joined by one space ('' unless the name is words of other scripts only)."""
    words = _WORD.findall(name)
    latin = any(char.isascii() and char.isalpha() for char in "".join(words))
    if not words or latin or _WORD.sub("", name).strip(" .\u00a0"):
        return ""  # Latin letters, digits or marks besides its words: no name of this table
    return _key(" ".join(words))


def _key(words: str) -> str:
    """Words as a key: in capitals, each letter that has a Latin look-alike spelled as it ("ГРЧКА" and the view's
    "ГPЧKA" are both "ГPЧKA"), case-folded."""
    return latin_skeleton(words.upper()).casefold()


def _capitalised(word: str) -> bool:
    """Written as a name in its script: capitalised where the script has capitals, any way where it has none."""
    first = word[0]
    return first.isupper() or first.lower() == first.upper()


def script_places(text: str) -> Iterator[tuple[int, int]]:
    """The spans of the country names of other scripts in `text` (see the module's docstring), longest first at each
    word, none overlapping."""
    if text.isascii() or _OTHER_LETTER.search(text) is None:
        return
    words = list(_WORD.finditer(text))
    if not words:
        return
    longest = _longest_from()
    names = script_country_names()
    index = 0
    while index < len(words):
        found = _name_at(text, words, index, longest, names)
        if found is None:
            index += 1
            continue
        count, start = found
        yield start, words[index + count - 1].end()
        index += count


def _name_at(text: str, words: list[re.Match[str]], index: int, longest: dict[str, int],
             names: dict[str, int]) -> tuple[int, int] | None:  # fmt: skip
    """(words, start) of the longest name opening at ``words[index]``, the word as written or without a glued
    prefix of one or two letters."""
    first = words[index]
    word = first.group()
    if not _capitalised(word) or (first.start() and text[first.start() - 1].isalnum()):
        return None  # inside a longer word of letters of both scripts, or a word in lower case
    for cut in range(3):
        if cut and (len(word) - cut < MIN_LETTERS or word[cut - 1] not in _GLUED_PREFIXES):
            break
        head = _key(word[cut:])
        most = longest.get(head, 0)
        for count in range(min(most, len(words) - index), 0, -1):
            span = words[index : index + count]
            if any(text[a.end() : b.start()] not in (" ", "\u00a0") for a, b in itertools.pairwise(span)):
                continue  # a name's words stand one space apart, on one line
            key = " ".join((head, *(_key(w.group()) for w in span[1:])))
            if key in names and not text[first.start() + cut : span[-1].end()].isascii():
                return count, first.start() + cut
    return None


def build_snapshot() -> dict[str, object]:
    """Every country's name (ISO 3166-1 short, common and official; CLDR's territory names of every locale) in the
    scripts other than Latin, less one-word names that are a stop word of some language or shorter than
    MIN_LETTERS."""
    import gettext

    import babel
    import pycountry  # build time only, like Babel: the snapshot is built on a machine with both
    from babel import Locale, localedata

    from gateway.guardrails.place_stop_words import every_stop_word

    stop_words = {_key(word) for word in every_stop_word()}  # as keys: look-alike letters spelled as their keys'
    written: set[str] = set()
    catalogues = sorted(path.parent.parent.name
                        for path in Path(pycountry.LOCALES_DIR).glob("*/LC_MESSAGES/iso3166-1.mo"))  # fmt: skip
    for language in catalogues:
        catalogue = gettext.translation("iso3166-1", pycountry.LOCALES_DIR, languages=[language])
        for country in pycountry.countries:
            for part in ("name", "common_name", "official_name"):
                if hasattr(country, part):
                    written.add(catalogue.gettext(getattr(country, part)))
    codes = {country.alpha_2 for country in pycountry.countries}
    for identifier in localedata.locale_identifiers():
        territories = Locale.parse(identifier).territories
        written.update(name for code, name in territories.items() if code in codes)
    names: set[str] = set()
    for name in written:
        if any(mark in name for mark in ",()[]/"):
            continue  # catalogue order or a note ("Корея, Республика")
        key = name_key(name)
        if not key:
            continue  # Latin script (``country_names``), or a name mixing scripts
        if " " not in key and (len(key) < MIN_LETTERS or key in stop_words):
            continue
        names.add(name.strip())
    return {"source": f"pycountry {pycountry.__version__} iso3166-1 ({len(catalogues)} catalogues) and Babel "
                      f"{babel.__version__} CLDR territories ({len(localedata.locale_identifiers())} locales), "
                      "scripts other than Latin",
            "names": sorted(names)}  # fmt: skip


if __name__ == "__main__":
    write_names(SNAPSHOT, build_snapshot())
    print(f"wrote {SNAPSHOT} ({len(script_country_names())} names)")
