"""Greek, Cyrillic, Armenian and Georgian names and places written in Latin letters, as passports, bank records and
e-mail addresses write them (ELOT 743 for Greek, BGN/PCGN-like tables for Russian, Ukrainian and Bulgarian, the
Armenian and Georgian national systems without their apostrophes). Not a full standard: enough to write Faker's
names and towns of those locales the way a Latin-script form would hold them."""

from __future__ import annotations

import unicodedata

# Greek pairs read as one sound, before the single letters (accents are stripped first).
_GREEK_PAIRS = {"ου": "ou", "αι": "ai", "ει": "ei", "οι": "oi", "αυ": "av", "ευ": "ev", "ηυ": "iv", "γγ": "ng",
                "γκ": "gk", "μπ": "mp", "ντ": "nt", "τσ": "ts", "τζ": "tz"}  # fmt: skip
# "μπ", "ντ" and "γκ" open a word as b, d and g ("Μπακογιάννης" is Bakogiannis).
_GREEK_OPENINGS = {"μπ": "b", "ντ": "d", "γκ": "g"}
_GREEK = dict(zip("αβγδεζηθικλμνξοπρσςτυφχψω", ["a", "v", "g", "d", "e", "z", "i", "th", "i", "k", "l", "m", "n",
              "x", "o", "p", "r", "s", "s", "t", "y", "f", "ch", "ps", "o"], strict=True))  # fmt: skip
_CYRILLIC = dict(zip("абвгґдеёжзийклмнопрстуфхцчшщъыьэюяєії", ["a", "b", "v", "g", "g", "d", "e", "e", "zh", "z", "i",
                 "y", "k", "l", "m", "n", "o", "p", "r", "s", "t", "u", "f", "kh", "ts", "ch", "sh", "shch", "", "y",
                 "", "e", "yu", "ya", "ye", "i", "yi"], strict=True))  # fmt: skip
# Ukrainian's apostrophe (ʼ, before a iotated vowel) is dropped, as its national romanisation does ("Vyacheslav").
_CYRILLIC.update({"ʼ": "", "'": "", "’": ""})
# Where Ukrainian and Bulgarian write a letter otherwise than Russian.
_CYRILLIC_BY_LANGUAGE = {"uk": {"г": "h", "и": "y", "х": "kh"}, "bg": {"щ": "sht", "ъ": "a", "ж": "zh", "ц": "ts"}}
_ARMENIAN = dict(zip("աբգդեզէըթժիլխծկհձղճմյնշոչպջռսվտրցւփքօֆ", ["a", "b", "g", "d", "e", "z", "e", "y", "t", "zh",
                 "i", "l", "kh", "ts", "k", "h", "dz", "gh", "ch", "m", "y", "n", "sh", "o", "ch", "p", "j", "r", "s",
                 "v", "t", "r", "ts", "v", "p", "k", "o", "f"], strict=True))  # fmt: skip
_GEORGIAN = dict(zip("აბგდევზთიკლმნოპჟრსტუფქღყშჩცძწჭხჯჰ", ["a", "b", "g", "d", "e", "v", "z", "t", "i", "k", "l",
                 "m", "n", "o", "p", "zh", "r", "s", "t", "u", "p", "k", "gh", "q", "sh", "ch", "ts", "dz", "ts", "ch",
                 "kh", "j", "h"], strict=True))  # fmt: skip
SCRIPTS = ("greek", "russian", "ukrainian", "bulgarian", "armenian", "georgian")


def _strip_accents(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", text) if not unicodedata.combining(c))


def _word(word: str, script: str) -> str:
    lower = word.lower()
    out: list[str] = []
    index = 0
    while index < len(lower):
        pair = lower[index : index + 2]
        char = lower[index]
        if script == "greek" and pair in _GREEK_PAIRS:
            out.append(_GREEK_OPENINGS.get(pair, _GREEK_PAIRS[pair]) if index == 0 else _GREEK_PAIRS[pair])
            index += 2
            continue
        if script == "armenian" and pair == "ու":
            out.append("u")
            index += 2
            continue
        if script == "greek":
            out.append(_GREEK.get(char, char))
        elif script in ("russian", "ukrainian", "bulgarian"):
            language = {"ukrainian": "uk", "bulgarian": "bg"}.get(script, "ru")
            out.append(_CYRILLIC_BY_LANGUAGE.get(language, {}).get(char, _CYRILLIC.get(char, char)))
        elif script == "armenian":
            # a word-initial ե and ո are said "ye" and "vo" (Երևան is Yerevan)
            initial = {"ե": "ye", "ո": "vo"}.get(char) if index == 0 else None
            out.append(initial or ("ev" if char == "և" else _ARMENIAN.get(char, char)))
        else:
            out.append(_GEORGIAN.get(char, char))
        index += 1
    return "".join(out)


def romanise(text: str, script: str) -> str:
    """`text` in Latin letters, each word capitalised as `text` has it (Georgian has no case: every word is)."""
    if script not in SCRIPTS:
        raise ValueError(f"script must be one of {SCRIPTS}, got {script!r}")
    text = _strip_accents(text) if script == "greek" else unicodedata.normalize("NFC", text)
    words = []
    for word in text.split(" "):
        parts = [_word(part, script) for part in word.split("-")]
        capitalised = script == "georgian" or word[:1].isupper()
        words.append("-".join(p[:1].upper() + p[1:] if capitalised else p for p in parts))
    return " ".join(words)
