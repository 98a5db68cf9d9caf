"""Person names written in scripts without letter case: Arabic (and Persian), Hebrew, Devanagari, Bengali,
Gujarati, Oriya, Tamil, Sinhala and Thai.

The capital-letter windows that find most names never look at these scripts: no letter of theirs is a capital.
Here a name is read from tables instead: names-dataset's given and family names written wholly in one of these
scripts, for each country the ``NAMES_PER_COUNTRY`` most frequent of each kind in each script (a country's names in
its own script, and those that its people of other languages write: Bengali names in Saudi Arabia's records), less
the one-word names each language's spaCy stop-word list holds (a given name that is also "and", "with" or "today" in
its language; "آل علي", "أبو داوود" stay). names-dataset reads 2 GB at its start: ``python -m
gateway.guardrails.script_names`` reads it once and keeps the tables in gateway/guardrails/data/script_names.json.gz.
The data set holds few names in some of these scripts (a few dozen in Tamil, Sinhala and Gujarati, two in Oriya):
names there are mostly not found. The PII corpus's people are drawn from Faker's person tables; no table of those is
read here (tests/guardrails/test_no_faker_person_tables.py), so the dev splits that write names in these scripts
measure names the tables were not made from.

A name is a given name, optionally a second one, then a family name, the words split by single spaces (Thai writes no
space inside a name but one between given and family name) and no letter of the same script glued to either end (a
word of another script may be: "לমাধুরী বোস", a Hebrew preposition before a Bengali name). Han, kana and Hangul are
left out: they write family and given name without a space between them, so no word boundary says where a name
starts.

Arabic and Hebrew may carry vowel points that the tables do not (or the other way round): words are compared with
those points and the Arabic elongation mark removed.

The work costs nothing on text without these scripts: one search for a character of the tables comes first.
"""

from __future__ import annotations

import functools
import gzip
import importlib
import json
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

SNAPSHOT = Path(__file__).parent / "data" / "script_names.json.gz"
# Of each kind (given, family) and script. Further down names-dataset's ranks in these scripts, Facebook display names'
# words come in: Bengali "তোমাকে" ("to you") ranks 2,381st of Bangladesh's given names, Persian "روز" ("day") 583rd
# of Syria's; at 1000 a pair of two ordinary Persian words ("رمز سرور", "server password") reads as a name.
NAMES_PER_COUNTRY = 300
# Scripts whose names are split by spaces and that have no capitals (the first word of each character's Unicode name).
SPACED_SCRIPTS = frozenset({"ARABIC", "HEBREW", "DEVANAGARI", "BENGALI", "GUJARATI", "ORIYA", "TAMIL", "SINHALA",
                            "THAI"})  # fmt: skip
# spaCy's stop-word lists of the languages written in these scripts (Oriya has none).
_STOP_WORD_LANGUAGES = ("ar", "fa", "ur", "he", "hi", "ne", "mr", "bn", "gu", "ta", "si", "th")
_JOINERS = "\u200c\u200d"  # zero-width non-joiner and joiner: parts of Persian and Indic words
# Points the tables and texts write or leave out at will: Arabic harakat, superscript alef, tatweel; Hebrew niqqud.
_OPTIONAL_POINTS = re.compile("[\u064b-\u065f\u0670\u0640\u0591-\u05bd\u05bf\u05c1\u05c2\u05c4\u05c5\u05c7]")
# The code points whose NFKC form may be a letter of these scripts: the scripts' blocks and the Hebrew and Arabic
# presentation forms.
_UNFOLDED_RANGE = (*range(0x0590, 0x0E80), *range(0xFB1D, 0xFE00), *range(0xFE70, 0xFF00))
_MAX_ENTRY_WORDS = 6  # "آل محمد بن علي بن جماز"


def _script(char: str) -> str:
    return unicodedata.name(char, "").split(" ", 1)[0]


def _spaced_script_name(name: str) -> bool:
    """Letters and marks of one spaced, caseless script (and joiners), words split by single spaces."""
    letters = [char for char in name if char not in " " + _JOINERS]
    return (bool(letters) and "  " not in name and name == name.strip()
            and all(unicodedata.category(char)[0] in "LM" for char in letters)
            and _script(letters[0]) in SPACED_SCRIPTS
            and all(_script(char) == _script(letters[0]) for char in letters))  # fmt: skip


def key(word: str) -> str:
    """A word as compared: NFKC, as the analyzer's reader view folds it (Thai sara am is nikhahit and sara aa there),
    without joiners (the view drops format characters) and optional points."""
    folded = _OPTIONAL_POINTS.sub("", unicodedata.normalize("NFKC", word))
    return "".join(char for char in folded if unicodedata.category(char) != "Cf")


@dataclass(frozen=True)
class ScriptNames:
    """Given and family names as tuples of compared words, and every character they are written with."""

    given: frozenset[tuple[str, ...]]
    family: frozenset[tuple[str, ...]]
    characters: str
    # The first words of the names of more than one word: only at these is a longer entry looked for.
    openers: frozenset[str]

    def is_known(self, word: str) -> bool:
        return (key(word),) in self.given or (key(word),) in self.family


def _stop_words() -> frozenset[str]:
    words: set[str] = set()
    for language in _STOP_WORD_LANGUAGES:
        module = importlib.import_module(f"spacy.lang.{language}.stop_words")
        words.update(key(word) for word in module.STOP_WORDS)
    return frozenset(words)


def _snapshot_names() -> tuple[set[str], set[str]]:
    """The given and family names of the snapshot (``extract``)."""
    data = json.loads(gzip.decompress(SNAPSHOT.read_bytes()).decode("utf-8"))
    return set(data["given"]), set(data["family"])


def extract() -> dict[str, list[str]]:
    """For each country and spaced caseless script, the ``NAMES_PER_COUNTRY`` best-ranked given names and family names
    of names-dataset written in that script (NFKC: some entries carry a no-break space or presentation forms)."""
    from names_dataset import NameDataset

    dataset = NameDataset()
    tables = {}
    for kind, table in (("given", dataset.first_names), ("family", dataset.last_names)):
        ranked: dict[tuple[str, str], list[tuple[int, str]]] = {}
        for name, info in table.items():
            name = unicodedata.normalize("NFKC", name)
            if not _spaced_script_name(name):
                continue
            for country, rank in (info.get("rank") or {}).items():
                if rank:
                    ranked.setdefault((country, _script(name[0])), []).append((rank, name))
        tables[kind] = sorted({name for names in ranked.values() for _, name in sorted(names)[:NAMES_PER_COUNTRY]})
    return tables


@functools.cache
def script_names() -> ScriptNames:
    given, family = _snapshot_names()
    stop_words = _stop_words()

    def entries(names: set[str]) -> frozenset[tuple[str, ...]]:
        kept = set()
        for name in names:
            raw_characters.update(name)
            name = unicodedata.normalize("NFC", name)
            if not _spaced_script_name(name):
                continue
            words = tuple(key(word) for word in name.split(" "))
            if len(words) <= _MAX_ENTRY_WORDS and not (len(words) == 1 and words[0] in stop_words):
                kept.add(words)
        return frozenset(kept)

    raw_characters: set[str] = set()
    given_entries, family_entries = entries(given), entries(family)
    # The characters of the names as written and as compared: a raw text and the reader view's folded one.
    characters = {char for entry in given_entries | family_entries for word in entry for char in word}
    characters |= {char for char in raw_characters if _script(char) in SPACED_SCRIPTS}
    # The tables are kept folded (NFKC): a raw text may write a letter that folds into theirs (Thai sara am, Arabic
    # presentation forms).
    characters |= {char for char in map(chr, _UNFOLDED_RANGE)
                   if _script(char) in SPACED_SCRIPTS and unicodedata.normalize("NFKC", char) != char
                   and key(char) and set(key(char)) <= characters}  # fmt: skip
    openers = frozenset(entry[0] for entry in given_entries | family_entries if len(entry) > 1)
    return ScriptNames(given_entries, family_entries, "".join(sorted(characters)), openers)


@functools.cache
def _word_pattern() -> re.Pattern[str]:
    """A run of one script's characters of the tables, with their optional points and joiners: a word of another
    script glued on is another word ("לমাধুরী", a Hebrew preposition before a Bengali name)."""
    by_script: dict[str, str] = {}
    for char in script_names().characters:
        by_script[_script(char)] = by_script.get(_script(char), "") + char
    classes = [_char_class(characters + _JOINERS) + ("\u064b-\u065f\u0670\u0640\u0591-\u05c7"
                                                     if script in ("ARABIC", "HEBREW") else "")
               for script, characters in sorted(by_script.items())]  # fmt: skip
    return re.compile("|".join(f"[{each}]+" for each in classes))


@functools.cache
def _prefilter() -> re.Pattern[str]:
    return re.compile(f"[{_char_class(script_names().characters)}]")


def _char_class(characters: str) -> str:
    """Characters for a regex class: ranges ("a-z") kept, everything else escaped."""
    return "".join("-" if char == "-" and 0 < index < len(characters) - 1 else re.escape(char)
                   for index, char in enumerate(characters))  # fmt: skip


def has_script_letters(text: str) -> bool:
    """The pre-filter: a character any of the tables' names is written with (none in ASCII text, which most
    prompts are: that answer is a C-level scan)."""
    return not text.isascii() and _prefilter().search(text) is not None


def _glued(text: str, start: int, end: int) -> bool:
    """Whether a letter or mark of the word's own script stands right before or after [start, end) (the run is
    part of a longer word)."""
    script = _script(text[start])
    before = text[start - 1] if start > 0 else " "
    after = text[end] if end < len(text) else " "
    return any(unicodedata.category(char)[0] in "LM" and _script(char) == script for char in (before, after))


def _words(text: str) -> list[tuple[int, int, str]]:
    return [(match.start(), match.end(), key(match.group())) for match in _word_pattern().finditer(text)
            if not _glued(text, match.start(), match.end())]  # fmt: skip


def _entry_ends(entries: frozenset[tuple[str, ...]], words: list[tuple[int, int, str]], text: str,
                at: int) -> list[int]:  # fmt: skip
    """The word indexes right after each entry that starts at word `at` (its words split by single spaces)."""
    if at >= len(words):
        return []
    ends = [at + 1] if (words[at][2],) in entries else []
    if words[at][2] not in script_names().openers:
        return ends
    for last in range(at + 1, min(at + _MAX_ENTRY_WORDS, len(words))):
        if text[words[last - 1][1] : words[last][0]] != " ":
            break
        if tuple(word for _, _, word in words[at : last + 1]) in entries:
            ends.append(last + 1)
    return ends


def script_person_names(text: str) -> list[tuple[int, int]]:
    """[start, end) of each given name (one or two) followed by a family name, in a spaced caseless script."""
    if not has_script_letters(text):
        return []
    names = script_names()
    words = _words(text)
    spans = []
    index = 0
    while index < len(words):
        best = -1
        for given_end in _entry_ends(names.given, words, text, index):
            second_given = _spaced(_entry_ends(names.given, words, text, given_end), words, text, given_end)
            for family_start in [given_end, *second_given]:
                family = _entry_ends(names.family, words, text, family_start)
                best = max([best, *_spaced(family, words, text, family_start)])
        if best > index:
            start, end = words[index][0], words[best - 1][1]
            if not _HOUSE_NUMBER_BEFORE.search(text, max(0, start - 12), start) and not _house_number_after(text, end):
                spans.append((start, end))
            index = best
        else:
            index += 1
    return spans


# A street named after a person: a house number right after the name, or after one more word of it ("יהודה הלוי 85",
# "אהרון מאיר מזיא 02"), or right before it as Indian addresses write it ("83 मोहन सुब्रमण्यम").
_HOUSE_NUMBER_BEFORE = re.compile(r"(?<![\w.,:-])\d+(?:/\d+)?[ ]\Z")
_HOUSE_NUMBER_AFTER = re.compile(r"[ ](?:[^\W\d_][\w\u0900-\u0dff\u0e00-\u0e7f]*[ ])?\d+(?![\d.:,/-]?\d)")


def _house_number_after(text: str, end: int) -> bool:
    return _HOUSE_NUMBER_AFTER.match(text, end) is not None


def _next_spaced(words: list[tuple[int, int, str]], text: str, at: int) -> bool:
    return 0 < at < len(words) and text[words[at - 1][1] : words[at][0]] == " "


def _spaced(ends: list[int], words: list[tuple[int, int, str]], text: str, at: int) -> list[int]:
    """The ends of entries starting at word `at`, kept when one space parts that word from the word before it."""
    return ends if _next_spaced(words, text, at) else []


def main() -> None:
    names = extract()
    SNAPSHOT.parent.mkdir(parents=True, exist_ok=True)
    body = json.dumps(names, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    SNAPSHOT.write_bytes(gzip.compress(body, mtime=0))
    print(f"wrote {SNAPSHOT}: {len(names['given'])} given names, {len(names['family'])} family names")


if __name__ == "__main__":
    main()
