"""Street words of Cyrillic- and Greek-script locales as Latin-script text writes them ("ул." is "ul.", "д." is "d.",
"Λεωφ." is "Leof."): addresses from those countries reach an English prompt romanised, in forms, exports and CRM
records. The tables are the usual letter-for-letter ones (BGN/PCGN for Russian, Ukrainian and Bulgarian, ELOT 743
for Greek); a word that holds a letter of neither script is returned unchanged."""

from __future__ import annotations

import unicodedata

_CYRILLIC = dict(zip("абвгґдеёжзийклмнопрстуфхцчшщъыьэюяєії", ["a", "b", "v", "g", "g", "d", "e", "e", "zh", "z", "i",
                 "y", "k", "l", "m", "n", "o", "p", "r", "s", "t", "u", "f", "kh", "ts", "ch", "sh", "shch", "", "y",
                 "", "e", "yu", "ya", "ye", "i", "yi"], strict=True))  # fmt: skip
_GREEK = dict(zip("αβγδεζηθικλμνξοπρσςτυφχψω", ["a", "v", "g", "d", "e", "z", "i", "th", "i", "k", "l", "m", "n",
              "x", "o", "p", "r", "s", "s", "t", "y", "f", "ch", "ps", "o"], strict=True))  # fmt: skip
# Greek pairs read as one sound ("ου" is "ou", not "oy").
_GREEK_PAIRS = {"ου": "ou", "αι": "ai", "ει": "ei", "οι": "oi", "αυ": "av", "ευ": "ev", "μπ": "mp", "ντ": "nt"}


def _strip_accents(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", text) if not unicodedata.combining(c))


def is_cyrillic_or_greek(word: str) -> bool:
    lower = _strip_accents(word.lower())
    return any(char in _CYRILLIC or char in _GREEK for char in lower)


def romanise(word: str) -> str:
    """`word` in Latin letters, in the case of its first letter ("Пр." -> "Pr.", "ул." -> "ul.")."""
    lower = _strip_accents(word.lower())
    out: list[str] = []
    index = 0
    while index < len(lower):
        pair = lower[index : index + 2]
        if pair in _GREEK_PAIRS:
            out.append(_GREEK_PAIRS[pair])
            index += 2
            continue
        char = lower[index]
        out.append(_CYRILLIC.get(char, _GREEK.get(char, char)))
        index += 1
    latin = "".join(out)
    return latin[:1].upper() + latin[1:] if word[:1].isupper() else latin


# Armenian letters in Latin (BGN/PCGN): "ու" is "u", "և" "ev"; "ե" and "ո" opening a word are "ye" and "vo".
_ARMENIAN = dict(zip("աբգդեզէըթժիլխծկհձղճմյնշոչպջռսվտրցւփքօֆ", ["a", "b", "g", "d", "e", "z", "e", "y", "t", "zh",
                 "i", "l", "kh", "ts", "k", "h", "dz", "gh", "ch", "m", "y", "n", "sh", "o", "ch", "p", "j", "r", "s",
                 "v", "t", "r", "ts", "v", "p", "k", "o", "f"], strict=True))  # fmt: skip
_ARMENIAN_OPENING = {"ե": "ye", "ո": "vo"}


def is_armenian(text: str) -> bool:
    return any("\u0531" <= char <= "\u058f" for char in text)


def romanise_armenian(text: str) -> str:
    """`text` in Latin letters, each word in the case of its first letter ("Մյասնիկյան" -> "Myasnikyan",
    "Սևանի" -> "Sevani")."""
    words = []
    for word in text.split(" "):
        lower = word.lower()
        out: list[str] = []
        index = 0
        while index < len(lower):
            if lower.startswith("ու", index):
                out.append("u")
                index += 2
                continue
            char = lower[index]
            opening = index == 0 or not lower[index - 1].isalpha()
            out.append(_ARMENIAN_OPENING[char] if opening and char in _ARMENIAN_OPENING else
                       "ev" if char == "և" else _ARMENIAN.get(char, char))  # fmt: skip
            index += 1
        latin = "".join(out)
        words.append(latin[:1].upper() + latin[1:] if word[:1].isupper() else latin)
    return " ".join(words)
