"""Street addresses of many locales, found by their structure: a house number beside a street name that carries a
street-type word ("4192 Rhonda Village Apt. 349", "Flat 50 Carol Fields", "981, avenue de Chartier",
"C. de Pastora Oliveras 340 Piso 9", "Via Chittolini, 725", "ul. Baczyńskiego 34/47", "Eberthstr. 68/57",
"Arnd-Buchholz-Weg 6").

The street-type words are not a hand-written list: they are read at import time from Faker's address providers of
every Latin-script locale, and each word's role comes from the locale's own street-name formats:

- a type written after the name as a word of its own ("Jennifer Meadow", English-speaking locales): ``SUFFIX``;
- a type written before the name ("rue", "Calle", "Via", "ulica", "Rua"): ``PREFIX``, with the abbreviations a
  locale derives from them ("ul.", "al.");
- a type glued to the end of the name ("Eberthstr.", "Kadering", "Herma-Speer-Weg", Dutch "-straat"): ``GLUED``;
- unit designators of secondary addresses ("Apt.", "Suite", "Flat", "Piso", "Piano"): ``UNIT``.

A street-type word and a name alone are no address ("Park Avenue", "via email"): a house number must sit on the
number's side of the locale's layout. In lower-case text (chat) a name word may not be an English stop word, so
"took 5 ms to run" (number, words, "run") is not an address. Lower case is ambiguous in two more layouts, which count
only right after an address word ("im at", "deliver to", "ship to", "lives at"): a type written first whose number a
word follows ("aleja grabowa 353 pls", against "via email 3 times"), and a type glued to a name that is no English
word ("kühnertgasse 52", "albersstr. 89", against "string 5"). Without that word they count where they are written
as only streets are (``_written_as_street``, ``_street_only_glued``): the number after a comma ("via pomponio, 41
btw"), or a type that is no English word nor stop word and a name word rare in every language of
``frequent_words`` ("ulica witosa 57 btw", not Spanish "conjunto de datos 3 veces"), or a glued type written with
its dot, joined by hyphens or of five letters or more that no English word is ("kuhlstraße 77 now").
"""

from __future__ import annotations

import importlib
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from faker import Generator
from faker.config import AVAILABLE_LOCALES
from presidio_analyzer import AnalysisExplanation, EntityRecognizer, RecognizerResult
from spacy.lang.en.stop_words import STOP_WORDS

from gateway.guardrails import street_locales
from gateway.guardrails.address_slots import slot_spans
from gateway.guardrails.common_nouns import chat_stop_words
from gateway.guardrails.frequent_words import frequent_in_any, frequent_words
from gateway.guardrails.person_names import known_names
from gateway.guardrails.places import english_and_stop_words, english_words
from gateway.guardrails.prefilters import FOLDS_APART
from gateway.guardrails.street_romanised import is_cyrillic_or_greek, romanise
from gateway.guardrails.street_scripts import script_spans
from gateway.guardrails.word_trie import alternation

_FIELD = re.compile(r"\{\{(\w+)\}\}")
# Latin letters, Vietnamese's included (Latin Extended Additional: "Đường", "Phố").
_LATIN = "A-Za-z\u00c0-\u024f\u1e00-\u1eff"
_LATIN_WORD = re.compile(rf"^[{_LATIN}][{_LATIN}'.\-]*/?$")  # Catalan's "C/" (carrer) ends in a slash
# A house-number label: a word or two of letters and dots ("d.", "No.", "House No.", "H.No.", "Số").
_LABEL_WORDS = re.compile(rf"^[{_LATIN}][{_LATIN}.]*(?: [{_LATIN}][{_LATIN}.]*)?$")
# The fields of a street-address format whose values stand before its house number ("House No.", "Lot").
_LEAD_FIELDS = re.compile(r"\{\{(building_name|building_prefix)\}\}")
# How often a provider's abbreviation method is called to see every abbreviation it can return.
_ABBREVIATION_DRAWS = 64


@dataclass(frozen=True)
class StreetVocabulary:
    suffixes: frozenset[str]
    prefixes: frozenset[str]
    glued: frozenset[str]
    units: frozenset[str]
    common_suffixes: frozenset[str]  # en_US's (the USPS street suffixes), lower case: the types chat writes
    # Romanised abbreviations of Cyrillic- and Greek-script locales ("ul.", "pr.", "Leof."): written before the name,
    # and only with their dot ("all. Shkolnaya", never "all servers").
    dotted: frozenset[str]
    # Labels of a house number inside an address ("d. 94 k. 644", "No. 12", "Nr. 5").
    labels: frozenset[str]
    # Labels that open an address, its street after them ("House No. 2, KarimNagar", "Số 979 Đồng Khởi"): those of
    # two words or of no English word, since "No. 5, Volume" and "Lot 3, Batch" are not addresses.
    lead_labels: frozenset[str]
    # Types written between the name and the house number: the suffixes of the locales whose street address writes
    # the number after the street's name (hu_HU's "Kossuth Lajos utca 12."), and ``street_locales.AFTER_NAME``.
    after_name: frozenset[str]


def _values(provider: type, field: str) -> list[str]:
    """The words a format field draws from: ``street_suffix`` -> ``street_suffixes``; a field that is a method
    computing abbreviations (pl_PL's ``street_prefix_short``: "ul.") is called until it has shown them all."""
    for name in (field + "es", field + "s", field.replace("prefix", "prefixes").replace("suffix", "suffixes")):
        words = getattr(provider, name, None)
        if isinstance(words, list | tuple | dict):  # a dict weighs its words (es_CO's, hu_HU's OrderedDict)
            return _strings(words)
    if field.endswith("_short") and callable(getattr(provider, field, None)):
        instance = provider(Generator())
        instance.generator.seed_instance(0)
        return sorted({getattr(instance, field)() for _ in range(_ABBREVIATION_DRAWS)})
    return []


def _roles(format_: str) -> list[tuple[str, str]]:
    """(field, role) for each street-type field of a street-name or street-address format."""
    roles = []
    for match in _FIELD.finditer(format_):
        field = match.group(1)
        if not field.startswith(("street_suffix", "street_prefix")):
            continue
        before, after = format_[: match.start()], format_[match.end() :]
        if before.endswith("}}") or before.endswith("-"):
            roles.append((field, "glued"))
        elif after.startswith("{{"):
            continue  # the first half of a word whose end is another field (fi_FI's "{{street_prefix}}{{...}}")
        elif field.startswith("street_prefix") or (after.strip() and not before.strip()):
            roles.append((field, "prefix"))
        else:
            roles.append((field, "suffix"))
    return roles


def _strings(values: object) -> list[str]:
    """The strings of a provider's tuple, list or weighted dict."""
    return [v for v in values if isinstance(v, str)] if isinstance(values, list | tuple | dict) else []


def _number_labels(provider: type) -> tuple[list[str], list[str]]:
    """(labels inside an address, labels opening one): the word right before ``{{building_number}}`` in a
    street-address format (ru_RU's "д." and "к.", id_ID's "No."), the words a building-number format opens with
    (vi_VN's "Số", en_IN's "H.No."), and the values of the fields that stand before the number (en_BD's "House No.",
    en_MS's "Lot")."""
    inside: list[str] = []
    leading: list[str] = []
    for format_ in _strings(getattr(provider, "street_address_formats", ())):
        for match in re.finditer(r"\{\{building_number\}\}", format_):
            words = format_[: match.start()].rsplit("}}", 1)[-1].replace(",", " ").split()
            inside.extend(words[-1:])
        for match in _LEAD_FIELDS.finditer(format_):
            plural = match.group(1).replace("prefix", "prefixe") + "s"  # building_names, building_prefixes
            leading.extend(w.strip() for w in _strings(getattr(provider, plural, ())))
    for format_ in _strings(getattr(provider, "building_number_formats", ())):
        leading.append(re.split(r"[#%?@{]", format_)[0].strip())
    return inside, leading


def _latin(words: list[str]) -> list[str]:
    return [romanise(w) if is_cyrillic_or_greek(w) else w for w in words]


def _unit_words(provider: type) -> list[str]:
    formats = getattr(provider, "secondary_address_formats", ()) or ()
    return [f.split()[0] for f in formats if isinstance(f, str) and f.split() and f.split()[0][:1].isalpha()]


@cache
def street_vocabulary() -> StreetVocabulary:
    """Street-type words of every Latin-script Faker locale, by role."""
    roles: dict[str, set[str]] = {
        "suffix": set(),
        "prefix": set(),
        "glued": set(),
        "unit": set(),
        "dotted": set(),
        "after": set(street_locales.AFTER_NAME),
    }
    labels: set[str] = set()
    leading: set[str] = set()
    for locale in AVAILABLE_LOCALES:
        try:
            provider = importlib.import_module(f"faker.providers.address.{locale}").Provider
        except ModuleNotFoundError:
            continue
        addresses = _strings(getattr(provider, "street_address_formats", ()))
        formats = [*_strings(getattr(provider, "street_name_formats", ())), *addresses]
        name_first = any(f.strip().startswith("{{street_name}}") for f in addresses)
        for field, role in {r for f in formats if isinstance(f, str) for r in _roles(f)}:
            if role == "suffix" and name_first and not any(is_cyrillic_or_greek(w) for w in _values(provider, field)):
                roles["after"].update(_values(provider, field))  # never before a name that a number opens
                continue
            for word in _values(provider, field):
                if is_cyrillic_or_greek(word):
                    # Romanised, an abbreviation stands first whatever the format says (ru_RU's street_name()
                    # writes "ул. Ленина" though its format puts the type last).
                    latin = romanise(word.strip())
                    roles["dotted" if latin.endswith(".") else role].add(latin)
                else:
                    roles[role].add(word)
        if not any("street_prefix" in str(f) for f in formats):  # vi_VN's "Đường", "Phố": used by a method
            roles["prefix"].update(_strings(getattr(provider, "street_prefixes", ())))
        roles["unit"].update(_unit_words(provider))
        inside, lead = _number_labels(provider)
        labels.update(_latin(inside))
        leading.update(_latin(lead))
    # The locales Faker writes no Latin-script address for (``street_locales``).
    roles["prefix"].update(street_locales.BEFORE_NAME)
    roles["glued"].update(street_locales.GLUED_TYPES)
    labels.update(street_locales.NUMBER_LABELS)
    clean = {role: frozenset(w.strip() for w in words if _LATIN_WORD.match(w.strip()) and len(w.strip()) >= 2)
             for role, words in roles.items()}  # fmt: skip
    labels = {w for w in labels | leading if _LABEL_WORDS.match(w)}
    english = english_words().vocabulary
    lead_labels = {w for w in leading if _LABEL_WORDS.match(w)
                   and (len(_LETTER_RUN.findall(w)) > 1 or w.lower().rstrip(".") not in english)}  # fmt: skip
    # A glued type shorter than three letters ends too many ordinary words.
    clean["glued"] = frozenset(w for w in clean["glued"] if len(w.rstrip(".")) >= 3)
    us = importlib.import_module("faker.providers.address.en_US").Provider
    return StreetVocabulary(clean["suffix"], clean["prefix"], frozenset(w.lower() for w in clean["glued"]),
                            clean["unit"], frozenset(w.lower() for w in us.street_suffixes), clean["dotted"],
                            frozenset(labels), frozenset(lead_labels), clean["after"])  # fmt: skip


def _alternation(words: frozenset[str]) -> str:
    """One regex for the words, as a trie, lower case; a word's trailing dot is optional."""
    return alternation(words)


def street_words_regex(role: str) -> str:
    """One regex (lower case: match it ignoring case) for the street-type words of a role: "suffixes", "prefixes",
    "glued" or "units"."""
    return _alternation(getattr(street_vocabulary(), role))


def usps_suffixes_regex() -> str:
    """One regex (lower case: match it ignoring case) for USPS Publication 28's standard suffix abbreviations that the
    "usps" layout reads ("pkwy", "st", "blvd")."""
    return _alternation(frozenset(word.lower() for word in usps_tables().suffixes))


# Space inside one line: an address's parts never span lines here ("490s\navenue Bouvier, 261" is two things).
_SP = r"[^\S\r\n]"
# A house number, with a flat or second number after a dash or slash ("36/72", "12-14"); that part is no number
# a longer one or an IP address goes on from ("00 / 131.181.129.80").
_NUMBER_TAIL = r"[A-Za-z]?(?:[ ]?[-/][ ]?\d{1,4}(?![\d]|[.:]\d)[A-Za-z]?)?"
_NUMBER = r"\d{1,5}" + _NUMBER_TAIL
# The same number where no word, dot, slash or dash runs into it, nor a time's hour ("9:00 la via è chiusa"), the
# look-behinds read after its first digit: a pattern that opens with a digit lets the regex engine skip to the next
# digit instead of trying every position.
_LONE_NUMBER = r"\d(?<![\w./-]\d)(?<!\d:\d)\d{0,4}" + _NUMBER_TAIL
# What a glued street name needs ahead of it: its house number, inside the same run of non-space characters or after
# spaces on the line (a word with none is given up after one pass over it, not tried at each of its letters).
_NUMBER_AHEAD = r"(?=[^\s\d]*+(?:\d|[^\S\r\n]+\d))"
_NAME_WORD = r"[^\W\d_][\w'’\-]*"
# A name word that is an ordinal number ("47th Street", "Calle 4ª").
_ORDINAL = r"\d{1,3}(?:st|nd|rd|th|ª|º)\b"
# A street named by a number after its type ("Jalan 4/36", "Jln 43Z", "Phố 63", "Đường số 8").
_NUMBER_NAME = r"\d{1,4}(?:/\d{1,4})*[A-Za-z]{0,2}\b"
# The repetition index after a French or Italian house number: the second, third, fourth house of that number ("12
# bis rue de Rivoli", "147 ter avenue Foch"; NF Z 10-011, the French postal addressing standard).
_REPETITION = r"(?i:bis|ter|quater)\b"
# Particles between a street type and the name: "avenue de Chartier", "Calle de la Paz", "Largo do Machado".
_PARTICLES = rf"(?:(?:de|del|de la|de los|de las|da|do|das|dos|di|della|delle|degli|des|du|le|la|von|van|der){_SP}+)"


@cache
def _patterns() -> tuple[tuple[str, re.Pattern[str]], ...]:
    """(layout, pattern) pairs. "glued" is scored by ``_glued_score``; an "open" match has nothing after the name to
    end it, so it is cut back to the name's capitalised words (``_open_end``)."""
    vocabulary = street_vocabulary()
    suffix, glued = (_alternation(words) for words in (vocabulary.suffixes, vocabulary.glued))
    opening = _alternation(vocabulary.units | street_locales.LEAD_LABELS)
    prefix = rf"(?:(?i:{_alternation(vocabulary.prefixes)})\.?|(?i:{_alternation(vocabulary.dotted)})\.)"
    label, lead = _label_regex(vocabulary.labels), _label_regex(vocabulary.lead_labels)
    after_label = rf"(?:(?i:{_alternation(street_locales.NUMBER_LABELS | vocabulary.labels)})[.:]?|#|N[°º]\.?|№)"
    after_unit = rf"(?i:{_alternation(street_locales.UNIT_LABELS)})[.:]"
    korean = "|".join(street_locales.KOREAN_ROAD_TYPES)
    own_label = rf"(?i:{_alternation(street_locales.LEAD_LABELS | {'House No'})})[.:]?"
    unit_part = _unit_part()
    cardinal = _grid_cardinals()
    names = rf"(?:{_NAME_WORD}{_SP}+){{0,3}}"
    ordinal_names = rf"(?:(?:{_NAME_WORD}|{_ORDINAL}){_SP}+){{0,3}}"
    usps = usps_tables()
    usps_types, usps_units = _alternation(usps.suffixes), _alternation(usps.units)
    usps_directions = _alternation(usps.directions)
    areas = _alternation(street_locales.NAMED_AREA_PARTS | street_locales.NUMBERED_AREA_PARTS)
    # A house number with its label, and the building's further numbers ("d. 94 k. 644", "N° 53").
    labelled = rf"(?:{label}{_SP}*)?{_NUMBER}(?:{_SP}+{label}{_SP}*{_NUMBER})*"
    return tuple((layout, re.compile(pattern)) for layout, pattern in (
        # 4192 Rhonda Village Apt. 349 / 0 Allen Summit / 8288 47th Street
        ("words", rf"(?P<number>{_LONE_NUMBER}){_SP}+(?P<name>{ordinal_names}(?:{_NAME_WORD}|{_ORDINAL})){_SP}+"
                  rf"(?P<type>(?i:{suffix}))\b\.?{unit_part}?"),
        # Flat 50 Carol Fields / Studio 07p Cheryl Summit (the unit before the street, no house number)
        # Plot 6, Adeyemi Crescent / Moo 4, Titipatrayunyong Road (a label that opens an address, then the street)
        ("words", rf"(?<![\w.])(?P<number>(?i:{opening})\.?{_SP}*\d{{1,5}}[A-Za-z]?),?{_SP}+"
                  rf"(?P<name>{names}{_NAME_WORD}){_SP}+(?P<type>(?i:{suffix}))\b\.?"),
        # 981, avenue de Chartier / 93, chemin Geneviève Moreno / 12 bis rue de Rivoli
        # 84 Đường Bà Triệu / 8, Jalan 4/36 / 41 Đường số 8
        ("open", rf"(?P<number>{_LONE_NUMBER}(?:{_SP}+{_REPETITION})?),?{_SP}+(?P<type>{prefix}){_SP}+{_PARTICLES}?"
        rf"(?P<name>{names}{_NAME_WORD}|(?P<numbered>(?:{label}{_SP}*)?{_NUMBER_NAME}))"),
        # Via Chittolini, 725 Piano 6 / C. de Pastora Oliveras 340 Piso 9 / ul. Baczyńskiego 34/47 / rue Simon, 320
        # / pr. Privolnyy, d. 4 str. 89 / Av. Córdoba N° 53
        # A type glued to a word by a hyphen is none: Romanian's article ("IBAN-ul e FI36", "CNP-ul vechi 93").
        # / Jl. M.T Haryono No. 201 / Gg. S. Parman No. 112 (a name after its initials)
        ("prefix", rf"(?<![\w.-])(?P<type>{prefix}){_SP}+{_PARTICLES}?(?P<name>{_INITIALS}{names}{_NAME_WORD}),?{_SP}+"
        rf"(?P<number>{labelled})(?![\w.,/-]\d){unit_part}?"),
        # Calle 45 # 12-34 / Carrera 29 No. 12-30, Apto 504 / Avenida calle 47 # 36-66 Este / Calle 84 C-56 (a grid:
        # the street named by its number, the house by the cross street's number, a dash and the distance from it)
        ("grid", rf"(?<![\w.-])(?P<type>{prefix})(?:{_SP}+{prefix})?{_SP}+(?P<name>{_GRID_STREET}(?:{_SP}+{cardinal})?)"
                 rf",?{_SP}+(?:{label}{_SP}*)?(?P<number>{_GRID_HOUSE})(?![\w.,/-]*\d)(?:{_SP}+{cardinal})?{unit_part}?"),
        # Eberthstr. 68/57 / Kadering 19-46 / Arnd-Buchholz-Weg 6
        ("glued", rf"(?<![\w.-]){_NUMBER_AHEAD}(?P<name>[^\W\d_][\w'’\-]+?)(?P<type>(?i:{glued}))\.?{_SP}*"
                  rf"(?P<number>{_NUMBER})(?![\w.,/-]\d)"),
        # House No. 2, KarimNagar / Số 979 Đồng Khởi (a label that opens an address, then its street)
        ("lead", rf"(?<![\w.])(?P<number>{lead}{_SP}*{_NUMBER}),?{_SP}+(?P<name>{names}{_NAME_WORD})"),
        # ADR;TYPE=HOME:;;9 H.SULTANOV / postalAddress: Favvata 987-026 / <AddressLine>Artikiou 9< / the address
        # is koutouzidou 77 (a field or a sentence that names the address: its value needs no street-type word)
        ("field", _FIELD_VALUE),
        # Kalniņa iela 102-2 / Öcalan Sokak No: 115/52 / Aksu Cad. No:17 D:3 / Nagio g. 4-2 (the locale's type
        # between the name and the number)
        ("after", rf"(?<![\w.-])(?<!\w['’])(?P<name>(?:{_NAME_WORD}{_SP}+){{0,2}}{_NAME_WORD}){_SP}+"
                  rf"(?P<type>{_after_types()})(?P<comma>,)?{_SP}+(?P<label>{after_label}{_SP}*)?"
                  rf"(?P<number>{_NUMBER}){_ORDINAL_FLOOR}?(?:,?{_SP}+{after_unit}{_SP}*\w{{1,4}}\b)*(?![\w.,/-]\d)"),
        # Oyoo Lane, Hse 84 (any suffix type, then a comma and a house-number label of the locales' own: searched
        # only where such a label stands, suffix types being common words)
        ("after", rf"(?<![\w.-])(?<!\w['’])(?P<name>(?:{_NAME_WORD}{_SP}+){{0,2}}{_NAME_WORD}){_SP}+"
                  rf"(?P<type>(?i:{suffix})\b\.?)(?P<comma>,){_SP}+(?P<label>{own_label}{_SP}*)"
                  rf"(?P<number>{_NUMBER})(?![\w.,/-]\d)"),
        # 149, Hangang-ro 42-gil / Sejong-daero 35 (Korean road names, romanised: the type after a hyphen)
        ("korean", rf"(?<![\w.-])(?:(?P<lead>\d{{1,5}}),?{_SP}+)?(?P<name>[^\W\d_]{{2,}})-"
                   rf"(?P<type>(?i:{korean}))\b(?P<gil>{_SP}+\d{{1,4}}(?i:beon)?-(?i:gil)\b)?"
                   rf"(?:{_SP}+(?P<number>\d{{1,5}})(?![\w.,/-]\d))?"),
        # 7631 ORTEGA PKWY / 3466 NE BROWN PKWY APT 29A / 450 Oak Blvd Ste 12 (USPS Publication 28's standard
        # abbreviations: the suffix, then at most a unit, and the line, field or cell ends)
        ("usps", rf"(?P<number>{_LONE_NUMBER}){_SP}+(?P<name>{ordinal_names}(?:{_NAME_WORD}|{_ORDINAL})){_SP}+"
                 rf"(?P<type>(?i:{usps_types}))\b\.?(?:{_SP}+(?i:{usps_directions})\b)?"
                 rf"(?:,?{_SP}+(?:(?i:{usps_units})\b\.?{_SP}*#?|#){_SP}*[A-Za-z]?\d{{1,5}}[A-Za-z]?\b)?"
                 rf"(?={_SP}*(?:[,;|\\\"'<>)\]}}]|\r?\n|\Z))"),
        # Blk 8 Lot 2 Phase 5, Brgy. Pag-asa / Blk 32 Lot 54, Mabini St., Brgy. Malinis (a Philippine subdivision's
        # block and lot, then its street or an area part, which ``_area_end`` takes in)
        ("block", rf"(?<![\w.])(?P<number>(?i:{_alternation(street_locales.BLOCK_WORDS)})\.?{_SP}*\d{{1,4}}[A-Za-z]?"
                  rf",?{_SP}+(?i:{_alternation(street_locales.LOT_WORDS)})\.?{_SP}*\d{{1,4}}[A-Za-z]?)"
                  rf"(?:(?:\\?,)?{_SP}+(?P<street>{names}{_NAME_WORD}{_SP}+(?i:{usps_types}|{suffix})\b\.?))?"
                  rf"(?(street)|(?=(?:\\?,)?{_SP}+(?i:{areas})\b))"),
        # Nishi-Shinjuku 7-chome 27-9, Shinjuku-ku / 5-9-15 Nihonbashi, Chuo-ku (a romanised Japanese address: its
        # district, chōme, block and building, and its ward; the numbers first only before a ward)
        ("japanese", _JAPANESE),
        # Sevani 346 / Marshal Baghramyan 24 (a romanised Armenian street name, which carries no type)
        ("named", rf"(?<![\w.-])(?P<name>(?i:{_alternation(street_locales.armenian_streets())}))(?![\w'’-])"
                  rf"{_SP}+(?P<number>{_NUMBER})(?![\w.,/-]\d)"),
    ))  # fmt: skip


@dataclass(frozen=True)
class UspsTables:
    """USPS Publication 28's tables (``data/usps_pub28.json``), upper case: the standard abbreviations of the street
    suffixes (Appendix C1) that are not the suffix's own name ("PKWY", "ST"; "PARK" and "WAY" are the words layout's),
    the secondary unit designators and their abbreviations (Appendix C2: "APT", "STE", "RM", "BLDG") and the
    directionals ("N", "NE")."""

    suffixes: frozenset[str]
    units: frozenset[str]
    directions: frozenset[str]


@cache
def usps_tables() -> UspsTables:
    data = json.loads((Path(__file__).parent / "data" / "usps_pub28.json").read_text(encoding="utf-8"))
    # Not a suffix's own name ("PARK", also PARKS's abbreviation), nor another locale's type written first ("VIA",
    # VIADUCT's: Italian "Via Roma 5").
    prefixes = {word.upper() for word in street_vocabulary().prefixes}
    suffixes = frozenset(abbr for abbr in data["street_suffixes"].values()
                         if abbr not in data["street_suffixes"] and abbr not in prefixes)  # fmt: skip
    units = frozenset(word for pair in data["secondary_units"].items() for word in pair)
    directions = frozenset(word for pair in data["directionals"].items() for word in pair)
    return UspsTables(suffixes, units, directions)


# A romanised Japanese address (the Hepburn romanisation of 丁目 chōme, a district's numbered part, and 区 ku, a
# city's ward): "Jingumae 6-chome 27-7, Shibuya-ku", "EBISU 8-CHOME 9-19", or the chōme, block and building numbers
# before the district, a ward after it ("1-19-2 Umeda, Kita-ku"). An LDAP DN escapes the comma ("\\,").
_JAPANESE_NAME = r"(?:[A-Z][a-z]+(?:-[A-Z][a-z]+)?|[A-Z]+(?:-[A-Z]+)?)"
_JAPANESE = (
    rf"(?<![\w.-])(?:(?P<name>{_JAPANESE_NAME}){_SP}+\d{{1,2}}-(?i:chome)(?:{_SP}+\d{{1,4}}(?:-\d{{1,4}})?)?"
    rf"|(?P<numbers>\d{{1,2}}-\d{{1,4}}-\d{{1,4}}){_SP}+{_JAPANESE_NAME})"
    rf"(?P<ward>(?:\\?,)?{_SP}+{_JAPANESE_NAME}-(?:ku|KU)\b)?"
)


def _japanese_marked(text: str, words: frozenset[str] | None) -> bool:
    """Whether a Japanese address may stand in the text, which is then searched for it whole (its numbers first are
    glued by dashes that no anchor of ``_windows`` opens on): a ward ("-ku") in it, or "chome" among its runs of
    letters."""
    if "-ku" in text or "-KU" in text:
        return True
    return "chome" in words if words is not None else ("chome" in text or "CHOME" in text)


# A person's initials before a street named after them ("M.T Haryono", "S. Parman", "W.R. SUPRATMAN").
_INITIALS = rf"(?:[A-Z]\.(?:[A-Z]\.?)?{_SP}*)?"

# A grid address's street number ("45", "15A", "4ª", "175 C") and house number ("12-34", "94A-23", "C-56"): the cross
# street's number or a block's letter, a dash, and the distance from the corner.
_GRID_STREET = r"\d{1,3}(?:[ªº]|[ ]?[A-Z](?![\w-]))?"
_GRID_HOUSE = r"(?:\d{1,3}[A-Z]?|[A-Z])-\d{1,3}[A-Z]?"


@cache
def _grid_cardinals() -> str:
    """The words a grid street or house number is followed by (es_CO's street suffixes: "Sur", "Este", "Bis A")."""
    provider = importlib.import_module("faker.providers.address.es_CO").Provider
    words = {_FIELD.sub("", word).strip() for word in provider.street_suffixes}
    return rf"(?:{'|'.join(sorted(words))})(?:{_SP}+[A-Z]\b)?"


# The dot that makes a Hungarian house number an ordinal ("utca 12."), and the floor and door that may follow it, each
# an ordinal too ("tér 174. 5. em. 40.": emelet, floor; "3. ajtó": door).
_ORDINAL_FLOOR = rf"(?:\.(?:{_SP}+\d{{1,3}}\.{_SP}*(?i:em\.|emelet)(?:{_SP}+\d{{1,3}}\.?(?:{_SP}*(?i:ajtó))?)?)?)"


# A value that a key naming an address holds: a house number and the street's words, either way round ("9 H.SULTANOV",
# "Apostolidou 21", "Agiou Dimitriou Monemvasias 62"), and nothing else up to the field's end.
_FIELD_WORD = r"[^\W\d_][\w'’.\-]*"
_FIELD_NUMBER = r"\d{1,5}[A-Za-z]?(?:[-/]\d{1,4}[A-Za-z]?)*"
_KEY_KINDS = ("postal", "street", "mailing", "delivery", "billing", "shipping", "home", "work")
_KEY_WORDS = ("address", "addr", "adr", "adresse", "adressen", "adres", "dirección", "direccion", "indirizzo",
              "endereço", "anschrift", "osoite", "street")  # fmt: skip
# A key's address word and the "line" after it ("AddressLine1").
_KEY_WORD = rf"(?i:{'|'.join(sorted(_KEY_WORDS, key=len, reverse=True))})(?i:[ _-]?line[ _-]?\d?)?"
# What joins a key to its value: vCard's ";TYPE=HOME:;;", a colon or an equals sign (quoted or not), an XML tag's
# end, or a copula in prose ("the address is", "adressen er").
_KEY_JOIN = rf"(?P<join>(?:;[\w=,-]*)*:;*|[\"']?{_SP}*[:=]{_SP}*[\"']?|>|{_SP}+(?i:is|er|ist|est|es|è|é){_SP}+)"
# A key's word and its join: what follows a key's stem in a match of the field layout, kind or none before it.
_WORD_AND_JOIN = re.compile(_KEY_WORD + _KEY_JOIN)
_FIELD_VALUE = (
    # The key: an address word, alone or after what kind ("postalAddress", "delivery_address", "AddressLine1"), not
    # after a letter or an underscore ("emailAddress", "ip_address" name no street), nor after a word that names
    # another kind of address ("e-mail address", "IP address").
    r"(?<![^\W\d])(?<!(?i:mail)[ -])(?<!(?i:\bip)[ -])(?<!(?i:mac)[ -])(?<!(?i:web)[ -])"
    rf"(?P<key>(?i:(?:{'|'.join(_KEY_KINDS)})[ _-]?)?{_KEY_WORD})"
    rf"{_KEY_JOIN}"
    rf"(?P<value>{_FIELD_NUMBER}(?:,?{_SP}+{_FIELD_WORD}){{1,4}}|{_FIELD_WORD}(?:{_SP}+{_FIELD_WORD}){{0,3}},?{_SP}+"
    rf"{_FIELD_NUMBER})(?={_SP}*(?:[;\"'<|\r\n]|\Z))"
)


def _after_types() -> str:
    """The types written between a street's name and its number (``StreetVocabulary.after_name``), case ignored; an
    abbreviation only with its dot ("Nagio g. 4", not "500 g 4")."""
    words = sorted(street_vocabulary().after_name, key=len, reverse=True)
    return "(?i:" + "|".join(re.escape(w) if w.endswith(".") else re.escape(w) + r"\b" for w in words) + ")"


def _label_regex(labels: frozenset[str]) -> str:
    """House-number labels, case ignored, and the signs every locale writes for "number" ("#", "N°", "№")."""
    return rf"(?:(?i:{_alternation(labels)})[.:]?|#|N[°º]\.?|№)"


@cache
def _unit_part() -> str:
    """A secondary address after a street: ", Apt. 349", " Piso 9", " suite 062"."""
    return rf"(?:,?{_SP}+(?i:{_alternation(street_vocabulary().units)})\.?{_SP}*#?{_SP}*\w{{1,6}}\b)"


@cache
def _unit_after() -> re.Pattern[str]:
    return re.compile(_unit_part())


@cache
def _lead_part() -> re.Pattern[str]:
    """A unit or labelled number right before a street address, the text's end closing it: "Lot 406, ", "Flat 9,
    Building No. 98, ", "Số ", "Block 23 Lot 10 ". A PDF line break may fall between the word and its number
    ("Flat\n52")."""
    vocabulary = street_vocabulary()
    words = _alternation(vocabulary.units | vocabulary.labels | _LEAD_AREA_WORDS)
    return re.compile(rf"(?<![\w.])(?i:{words})\.?{_SP}*(?:\r?\n{_SP}*)?#?(?:[A-Za-z]?\d[\w/-]{{0,7}},?{_SP}+)?\Z")


# A Philippine address's block, lot, phase and purok before its street ("Blk 7 Lot 18, Acacia St.").
_LEAD_AREA_WORDS = street_locales.BLOCK_WORDS | street_locales.LOT_WORDS | {"Phase", "Purok"}

# The most units and labels an address opens with ("Block 23 Lot 10", "Flat 9, Building No. 98,"): a bound, so that
# a run of them ("Số 1 Số 1 ...") is not walked back over again from each match inside it.
_LEAD_PARTS = 3


def _lead_start(text: str, start: int) -> int:
    """Where an address starts that `start` is inside of, once its leading units and labels are taken in."""
    pattern = _lead_part()
    for _ in range(_LEAD_PARTS):
        part = pattern.search(text, max(0, start - 32), start)
        if part is None or part.start() == start:
            break
        start = part.start()
    return start


# A run of letters: what a street-type word that a layout opens with is, whole or up to its first dot, hyphen or
# apostrophe ("ul.", "C. de", "Apt."), with no letter on either side.
_LETTER_RUN = re.compile(r"[^\W\d_]+")


def _first_runs(words: frozenset[str]) -> frozenset[str]:
    """Each word's first run of letters, lower case, as the trie reads the word (without its trailing dot)."""
    runs = (_LETTER_RUN.match(word.rstrip(".").lower()) for word in words)
    return frozenset(run.group() for run in runs if run is not None)


@cache
def _layout_words() -> tuple[frozenset[str] | None, ...]:
    """For each of ``_patterns``' layouts, the runs of letters one of which a text must hold for it to match: the
    first run of its unit word (a unit before the street), its prefix type (a type written first) or its suffix type
    (after the name a house number leads: the type stands after spaces and ends on a non-word character, its first
    run whole in the text); None for the layouts a type glued to a name ends (``_glued_ends``) and the others
    searched otherwise."""
    vocabulary = street_vocabulary()
    units = _first_runs(vocabulary.units | street_locales.LEAD_LABELS)
    prefixes = _first_runs(vocabulary.prefixes | vocabulary.dotted)
    after = _first_runs(vocabulary.after_name)
    own_labels = _first_runs(street_locales.LEAD_LABELS | {"House No"})
    korean = frozenset(street_locales.KOREAN_ROAD_TYPES)
    named = _first_runs(street_locales.armenian_streets())
    lead = _first_runs(vocabulary.lead_labels) | _NUMBER_SIGNS
    usps = frozenset(word.lower() for word in usps_tables().suffixes)
    return (_first_runs(vocabulary.suffixes), units, prefixes, prefixes, prefixes, None, lead, _key_runs(), after,
            own_labels, korean, usps, _first_runs(street_locales.BLOCK_WORDS), None, named)  # fmt: skip


# What every key word of the field layout holds, lower case ("adr" in "address", "adresse", "ADR;TYPE=HOME").
_KEY_STEMS = ("adr", "addr", "street", "direcci", "indirizzo", "endere", "anschrift", "osoite")


def _field_matches(text: str, pattern: re.Pattern[str],
                   words: frozenset[str] | None = None) -> Iterator[re.Match[str]]:  # fmt: skip
    """The field layout's matches, looked for only next to its keys' stems: its pattern opens with a
    case-insensitive alternation that tried at every position of the windows cost more than every other layout
    together. A text whose lower case is not as long as itself is searched whole. Given the text's runs of letters
    (``_letter_runs``), only the stems that one of its key runs holds are looked for: a key's word opens at its
    stem and stands in a run that is a key run ("shipping address" holds "addr", never "adr" nor "street")."""
    lower = text.lower()
    if len(lower) != len(text):
        yield from pattern.finditer(text)
        return
    stems = _KEY_STEMS if words is None else _stems_in(words & _key_runs())
    positions = sorted({found for stem in stems for found in _occurrences(lower, stem)})
    done = 0
    for position in positions:
        if position < done or _WORD_AND_JOIN.match(text, position) is None:
            continue  # inside the last match, or no key's word and join start at the stem ("address on order")
        # The key starts with its kind ("delivery_address", "postalAddress") or with its word: a kind right before
        # the stem or one character before it, read only where that character is a kind's last letter.
        starts = [start for gap in (0, 1) if position - gap >= 1
                  for kind in _KINDS_ENDING.get(lower[position - gap - 1], ())
                  if (start := position - gap - len(kind)) >= done and lower.startswith(kind, start)]  # fmt: skip
        for start in (*sorted(starts), position):
            if (match := pattern.match(text, start)) is not None:
                yield match
                done = match.end()
                break


# The key kinds by their last letter.
_KINDS_ENDING = {last: tuple(kind for kind in _KEY_KINDS if kind[-1] == last) for last in {k[-1] for k in _KEY_KINDS}}


def _occurrences(text: str, stem: str) -> Iterator[int]:
    position = text.find(stem)
    while position >= 0:
        yield position
        position = text.find(stem, position + 1)


def _stems_in(runs: frozenset[str]) -> tuple[str, ...]:
    """The key stems that stand in one of the runs."""
    return tuple(stem for stem in _KEY_STEMS if any(stem in run for run in runs))


@cache
def _key_runs() -> frozenset[str]:
    """The runs of letters an address key of the field layout stands in, lower case: its word alone ("address" in
    "delivery_address") or run together with its kind or "line" ("postaladdress", "addressline")."""
    runs = set()
    for kind in ("", *_KEY_KINDS):
        for word in _KEY_WORDS:
            for line in ("", "line"):
                runs.update({kind + word + line, kind + word, word + line, word})
    return frozenset(runs)


# The signs every locale writes for "number" that a label of the lead layout may be ("# 4, Residency Road"): no run of
# letters, so a text holding one is searched for that layout as if it held a label word ("N°" is the run "n").
_NUMBER_SIGNS = frozenset({"#", "№"})


def _letter_runs(text: str) -> frozenset[str] | None:
    """The text's runs of letters, lower case, and the number signs it holds; None where the text holds a character
    that case-insensitive matching pairs with a letter other than through ``str.lower`` (``FOLDS_APART``), where they
    cannot tell what the patterns match. A street-type word the patterns match case-insensitively stands in the
    text as a whole run (nothing of a word before it, its dot, a space or its number after), so a layout whose
    words' first runs are none of these finds nothing: most text holds no "rue", "Calle" or "Apt." at all, and the
    patterns that open with one are tried at every position of the windows."""
    if text.isascii():  # its runs of letters are those of A-Z and a-z: the lower case's words once the rest is spaced
        runs = frozenset(text.lower().translate(_ASCII_SPACED).split())
        return runs | {"#"} if "#" in text else runs
    if not FOLDS_APART.isdisjoint(text):
        return None
    lowered = {run.lower() for run in _LETTER_RUN.findall(text)}
    return frozenset(lowered | {sign for sign in _NUMBER_SIGNS if sign in text})


# Every ASCII character but a letter, made a space: an ASCII text's runs of letters are then its words.
_ASCII_SPACED = str.maketrans({chr(code): " " for code in range(128) if not chr(code).isalpha()})


@cache
def _glued_last_runs() -> re.Pattern[str]:
    """The glued types' last runs of letters, each written backwards after a line break: searched in the windows'
    runs written backwards (``_ends_in_glued_type``), a literal the regex engine skips to."""
    runs = (_LETTER_RUN.findall(word.rstrip(".").lower()) for word in street_vocabulary().glued)
    return re.compile("\n" + alternation(frozenset(found[-1][::-1] for found in runs if found), fold=False))


def _ends_in_glued_type(words: frozenset[str]) -> bool:
    """Whether one of the runs of letters ends in a glued type's last run: the glued layout's type stands at the end
    of a run (a dot, a space or the house number's digit after it), so a text whose runs end in none finds nothing
    there. Most text holds a number after a word somewhere ("Ticket 1000"), and that layout opens with a look-behind
    tried at every position of the windows."""
    return _glued_last_runs().search(("\n".join(words) + "\n")[::-1]) is not None


# The layouts searched in the whole text, not in the windows around the anchors.
_WHOLE_TEXT = frozenset({"field", "japanese"})


def _may_match(text: str, layout: str, needs: frozenset[str] | None, words: frozenset[str] | None,
               needed: frozenset[str]) -> bool:  # fmt: skip
    """Whether a layout may match in the text, told by its runs of letters (``_letter_runs``, None where they cannot
    tell): the layout's street-type words, unit or label (``_layout_words``; ``needed``: the runs that are any
    layout's), a glued type's end (``_ends_in_glued_type``), or the Japanese layout's marks (``_japanese_marked``).
    Each such word stands whole in any match (a run of the text), so a layout none of whose words is a run finds
    nothing."""
    if layout == "japanese":
        return _japanese_marked(text, words)
    if words is None:
        return True
    if needs is not None and needs.isdisjoint(needed):
        return False
    return layout != "glued" or _ends_in_glued_type(words)


@cache
def _any_layouts_words() -> frozenset[str]:
    """The runs of letters one of which some layout needs (``_layout_words``): a text's runs are compared with them
    once, not with each layout's (a few hundred words each)."""
    return frozenset().union(*(needs for needs in _layout_words() if needs is not None))


def _crosses_tsv_cells(text: str, start: int, end: int) -> bool:
    """Whether text[start:end] holds a tab of a tab-delimited row (two tabs or more on its line): a tab ends a street,
    which a row holds in one cell ("55243\tZrealizowane\tLAROSE Robert\tXiazhen\tFollow Up", "...\t1688\tQueen
    Street Physio" are no street)."""
    tab = text.find("\t", start, end)
    if tab < 0:
        return False
    line_end = text.find("\n", tab)
    return text.count("\t", text.rfind("\n", 0, tab) + 1, len(text) if line_end < 0 else line_end) >= 2


class StreetAddressRecognizer(EntityRecognizer):
    """STREET_ADDRESS: house number + street name + street-type word, in any of Faker's locales' layouts."""

    SCORE = 0.7
    LOWER_CASE_SCORE = 0.55  # all lower case (chat): still above the default threshold, below a written address
    CONTEXT = ["address", "addr", "adresse", "dirección", "direccion", "indirizzo", "anschrift", "endereço",  # noqa: RUF012
               "adres", "live", "lives", "living", "reside", "ship", "deliver", "located", "habite", "vive", "wohnt",
               "street", "rue", "calle", "via", "straße"]  # fmt: skip

    def __init__(self) -> None:
        super().__init__(supported_entities=["STREET_ADDRESS"], context=self.CONTEXT)

    def load(self) -> None:
        _patterns()
        _layout_words()
        _glued_last_runs()
        _any_layouts_words()

    def analyze(self, text: str, entities: list[str], nlp_artifacts: object = None) -> list[RecognizerResult]:
        spans: list[tuple[int, int, float]] = []
        words = _letter_runs(text)
        needed = frozenset() if words is None else _any_layouts_words().intersection(words)
        layouts = [(layout, pattern) for (layout, pattern), needs in zip(_patterns(), _layout_words(), strict=True)
                   if _may_match(text, layout, needs, words, needed)]  # fmt: skip
        # The windows around the anchors, only where a layout searched in them may match: in most text no street
        # type stands at all, and finding the anchors costs more than telling that.
        windows = _windows(text) if any(layout not in _WHOLE_TEXT for layout, _ in layouts) else []
        for layout, pattern in layouts:
            if layout == "field":
                matches: Iterator[re.Match[str]] = _field_matches(text, pattern, words)
            elif layout == "japanese":
                matches = pattern.finditer(text)
            else:
                matches = (m for start, end in windows for m in pattern.finditer(text, start, end))
            for match in matches:
                start = _lead_start(text, match.start())
                if layout == "glued":
                    score = self._glued_score(match, text, start)
                elif layout == "lead":
                    score = self._lead_score(match, text, start)
                elif layout == "field":
                    score = self._field_score(match)
                elif layout == "after":
                    start, score = self._after_score(match, text)
                elif layout == "korean":
                    score = self._korean_score(match, text, start)
                elif layout == "named":
                    score = self._named_score(match)
                elif layout == "block":
                    score = self.SCORE if match.group("number")[:1].isupper() else self.LOWER_CASE_SCORE
                elif layout == "japanese":
                    score = None if match.group("numbers") and not match.group("ward") else self.SCORE
                elif layout == "usps":
                    score = self._usps_score(match, text, start)
                elif layout == "grid":
                    score = self._grid_score(match, text, start)
                else:
                    score = self._score(match, layout, text, start)
                if score is not None:
                    start = match.start("value") if layout == "field" else start
                    end = _area_end(text, _end(match, layout, text))
                    if not _crosses_tsv_cells(text, start, end):
                        spans.append((start, end, score))
        # Addresses that a record's structure marks, and those written in their own scripts.
        spans.extend((start, end, self.SCORE) for start, end in (*slot_spans(text), *script_spans(text)))
        return [RecognizerResult("STREET_ADDRESS", start, end, score,
                                 AnalysisExplanation(self.name, score, pattern_name="street address"))
                for start, end, score in _longest(spans)]  # fmt: skip

    def _score(self, match: re.Match[str], layout: str, text: str, start: int) -> float | None:
        name_words = match.group("name").replace("-", " ").split()
        street_type = match.group("type")
        if not name_words:
            return None
        if layout == "open" and match.group("numbered"):
            # "Jalan 4/36", "Phố 63": a type named by a number is no English word ("via 2 hops", "Park 3").
            if street_type.lower().rstrip(".") in english_words().vocabulary:
                return None
            return self.SCORE if street_type[:1].isupper() else self.LOWER_CASE_SCORE
        written = [w for w in (*name_words, street_type) if w[:1].isalpha()]
        capitalised = any(w[:1].isupper() for w in written)
        if not capitalised:
            # An open match keeps only its first name word in lower case (``_open_end``): the words after it are
            # the sentence going on ("55, rue de alexandre im in ...").
            kept = name_words[:1] if layout == "open" else name_words
            if any(w.lower().strip(".") in STOP_WORDS for w in kept):
                return None
            # Every locale's street words in lower case end too many phrases ("466 cant reach"): only the common
            # English ones after a name, or any locale's right after an address word ("send it to 323 grey
            # isitaladi").
            if (layout == "words" and street_type.lower() not in street_vocabulary().common_suffixes
                    and not _after_address_word(text, start)):  # fmt: skip
                return None
            # "via email 3 times": in lower case, a number that a word follows on its line counts something; a
            # house number ends the address (or a unit follows it, which the match already holds) unless an
            # address word stands right before it or it is written as only a street is (``_written_as_street``).
            # Ending its line, an English type and name are no street either ("via email 3").
            if layout == "prefix" and not _after_address_word(text, start):
                if _WORD_AFTER.match(text, match.end()):
                    if not _written_as_street(match, text):
                        return None
                elif _english_street(street_type, name_words):
                    return None  # "sent via email 3\nok": an English type and name, ending the line
            return self.LOWER_CASE_SCORE
        # Written text: the name itself is capitalised ("avenue de Chartier", "rue Simon", "Jennifer Meadow"); an
        # open match is cut back to its capitalised words. An ordinal name ("47th Street") is written in digits.
        lettered = [w for w in name_words if w[:1].isalpha()]
        if layout != "open" and not (lettered[-1][:1].isupper() if lettered else street_type[:1].isupper()):
            return None
        if layout == "open" and not name_words[0][:1].isupper():
            return None
        return self.SCORE

    def _lead_score(self, match: re.Match[str], text: str, start: int) -> float | None:
        """A label that opens an address ("House No. 2, KarimNagar"): its street capitalised, or in lower case
        right after an address word ("the address is flat 7, building no. 5, north daudplaza")."""
        first = match.group("name").split()[0]
        if first.lower() in STOP_WORDS:
            return None
        if first[:1].isupper():
            return self.SCORE
        return self.LOWER_CASE_SCORE if _after_address_word(text, start) else None

    def _after_score(self, match: re.Match[str], text: str) -> tuple[int, float | None]:
        """(where the address starts, its score) for a type between the name and the number ("Kalniņa iela 12",
        "Oyoo Lane, Hse 84"). The name is its last words that are written as a name: capitalised ones (all of them
        capitals where the type is), or in lower case (chat) the last word alone, and only beside a type of three
        letters or more that is no English word ("rozīte iela 137", not "the g. 5" nor "fix pr. 12").
        A suffix type ("Lane") counts here only before a comma and a house-number label ("Part no. 5" is none),
        and a number with no label is no year."""
        street_type = match.group("type")
        bare = street_type.lower().rstrip(".")
        own = street_type.lower() in _after_lower()
        label = (match.group("label") or "").strip().lower().rstrip(".:")
        if not own and not (label and match.group("comma")):
            return match.start(), None
        if not match.group("label") and _YEAR.fullmatch(match.group("number")):
            return match.start(), None
        words = list(re.finditer(r"\S+", match.group("name")))
        base = match.start("name")
        english = english_words().vocabulary
        if street_type[:1].islower() and not any(c.isupper() for c in match.group("name")):
            last = words[-1]
            # A suffix type before a label of the locales' own ("lane, hse 97") is as plain as a type of theirs.
            plain = (own and len(bare) >= 3 and bare not in english) or (not own and label in _OWN_LABELS)
            if last.group().lower() in STOP_WORDS or not (plain or _after_address_word(text, base + last.start())):
                return match.start(), None
            return base + last.start(), self.LOWER_CASE_SCORE
        upper_type = street_type.isupper()
        kept: list[re.Match[str]] = []
        for word in reversed(words):
            written = word.group()
            if not written[:1].isupper() or (upper_type and not written.isupper()):
                break
            kept.insert(0, word)
        keys = [index for index, word in enumerate(kept) if word.group().lower() in _ADDRESS_KEYS]
        kept = kept[keys[-1] + 1 :] if keys else kept
        while kept and kept[0].group().lower() in STOP_WORDS:
            kept.pop(0)
        if not kept:
            return match.start(), None
        # A type of one or two letters ("g.", "k.", "pr.", "tn") after an English word is rather a unit, an initial
        # or a reference ("Merged pr. 75").
        if len(bare) <= 2 and kept[-1].group().lower() in english:
            return match.start(), None
        return base + kept[0].start(), self.SCORE

    def _usps_score(self, match: re.Match[str], text: str, start: int) -> float | None:
        """A USPS abbreviated suffix ("7631 ORTEGA PKWY", "221B Baker St"): written as its name is (in capitals
        after a name in capitals, else capitalised after a capitalised name); in lower case (chat) after a name that
        holds no English stop word, the suffix or the name's last word no English word ("1035 schmidt blvd") or the
        address right after an address word ("ship to 3356 main st")."""
        street_type = match.group("type").rstrip(".")
        words = [w for w in match.group("name").replace("-", " ").split() if w[:1].isalpha()]
        if not words:
            return None
        if street_type.isupper() and len(street_type) > 1:
            return self.SCORE if all(w.isupper() for w in words) else None
        if street_type[:1].isupper() and street_type[1:].islower():
            return self.SCORE if words[-1][:1].isupper() else None
        if not street_type.islower() or any(not w.islower() or w in STOP_WORDS for w in words):
            return None
        english = english_words().vocabulary
        if street_type in english and words[-1] in english and not _after_address_word(text, start):
            return None
        return self.LOWER_CASE_SCORE

    def _korean_score(self, match: re.Match[str], text: str, start: int) -> float | None:
        """A romanised Korean road ("Sejong-daero 35", "149, Hangang-ro 42-gil"): with a building number before or
        after it or a numbered side road, its name capitalised, or in lower case no English word after a boulevard's
        or side road's type ("jungang-daero 30") or right after an address word."""
        if not (match.group("lead") or match.group("number") or match.group("gil")):
            return None
        name = match.group("name")
        if name[:1].isupper():
            return self.SCORE
        if name.lower() in english_words().vocabulary and not _after_address_word(text, start):
            return None
        specific = match.group("type").lower() == "daero" or match.group("gil")
        return self.LOWER_CASE_SCORE if specific or _after_address_word(text, start) else None

    def _grid_score(self, match: re.Match[str], text: str, start: int) -> float | None:
        """A grid address ("Calle 45 # 12-34"): its type capitalised, or in lower case right after an address word."""
        if match.group("type")[:1].isupper():
            return self.SCORE
        return self.LOWER_CASE_SCORE if _after_address_word(text, start) else None

    def _named_score(self, match: re.Match[str]) -> float | None:
        """A street known by its name alone ("Sevani 346"): capitalised, or in lower case (chat); its number no
        year ("Tumanyan 1915")."""
        if _YEAR.fullmatch(match.group("number")):
            return None
        return self.SCORE if match.group("name")[:1].isupper() else self.LOWER_CASE_SCORE

    def _field_score(self, match: re.Match[str]) -> float | None:
        """A value under an address key: in a field ("postalAddress: 9 H.SULTANOV"), or in lower-case speech after
        "address is"; its words are not only English stop words ("address: see 2 below")."""
        value = match.group("value")
        words = [w for w in re.findall(r"[^\W\d_]+", value)]
        if all(w.lower() in STOP_WORDS for w in words):
            return None
        return self.SCORE if any(c.isupper() for c in value) else self.LOWER_CASE_SCORE

    def _glued_score(self, match: re.Match[str], text: str, start: int) -> float | None:
        """A street name with its type glued on: written capitalised (German, Dutch and Nordic street names are),
        not an English stop word ("During 3 days"), and its number no year ("Spring 2024"); in lower case, right
        after an address word and no English word ("deliver to albersstr. 89", not "go to string 5")."""
        word = match.group("name") + match.group("type")
        if word.lower() in STOP_WORDS or _YEAR.fullmatch(match.group("number")):
            return None
        if word[:1].isupper():
            return self.SCORE
        if not word[:1].islower() or not (_after_address_word(text, start) or _street_only_glued(match, text)):
            return None
        return None if word.lower().rstrip(".") in english_words().vocabulary else self.LOWER_CASE_SCORE


_SPACE = re.compile(_SP)
# A name after an area word: its capitalised words, or in lower case (chat) two words at most ("Brgy. Pag-asa",
# "Kec. Probolinggo", "brgy. bagong silang").
_AREA_NAME = rf"(?:[A-Z][\w'’\-]*(?:{_SP}+[A-Z][\w'’\-]*){{0,3}}|[a-z][\w'’\-]*(?:{_SP}+[a-z][\w'’\-]*)?)"


@cache
def _area_parts() -> re.Pattern[str]:
    """The area parts that follow a Philippine or Indonesian street address (``street_locales.NAMED_AREA_PARTS``,
    ``NUMBERED_AREA_PARTS``, and RT/RW): ", Brgy. Malinis", " Kav. 3, RT 03/RW 05, Kel. Kendari, Kec. Probolinggo"."""
    named = _alternation(street_locales.NAMED_AREA_PARTS)
    numbered = _alternation(street_locales.NUMBERED_AREA_PARTS)
    part = (
        rf"(?:(?i:{named})\b\.?{_SP}+{_AREA_NAME}|(?i:{numbered})\b\.?{_SP}*\d{{1,4}}[A-Za-z]?\b"
        rf"|(?i:rt)\.?{_SP}*\d{{1,3}}{_SP}*/?{_SP}*(?i:rw)\.?{_SP}*\d{{1,3}}\b)"
    )
    return re.compile(rf"(?:(?:\\?,)?{_SP}+{part}){{1,6}}")  # an LDAP DN escapes its commas ("\\,")


def _area_end(text: str, end: int) -> int:
    """Where an address that ends at `end` ends once the area parts after it are taken in."""
    area = _area_parts().match(text, end)
    return area.end() if area else end


def _end(match: re.Match[str], layout: str, text: str) -> int:
    """Where a match's address ends: an open one's name is cut back (``_open_end``) and takes in a unit after it
    ("7197 rue Alain Apt. 040")."""
    if layout not in ("open", "lead"):
        return match.end()
    end = match.end() if layout == "open" and match.group("numbered") else _open_end(match)
    # The unit may already be among the name's capitalised words ("rue Lepic Apt. 3": "Apt" ended the name).
    for space in _SPACE.finditer(text, match.start("name"), end):
        if unit := _unit_after().match(text, space.start()):
            return unit.end()
    unit = _unit_after().match(text, end)
    return unit.end() if unit else end


# Every layout has a house number beside a word: "12 Elm", "212, avenue", "Chittolini, 725", "Eberthstr. 68". A
# number glued to a word or a symbol ("worker-3", "status=200", "v1.2") is none, but after a key that names an
# address it is the field's value ("shipping_address=0 Woods Tunnel;"), which the layouts still have to find whole.
# The patterns run only on windows around these anchors: the street-type alternations are long, and most text (code,
# JSON, logs) holds none.
_ANCHOR = re.compile(
    r"(?<![\w./=#-])(?:(?<!:)|(?<=[A-Za-z]:))\d{1,5}[A-Za-z]?(?:[-/]\d{1,4}[A-Za-z]?)?,?\s+[^\W\d_]|[^\W\d_][.:]?,?\s+\d"
    r"|(?i:addr|address|adresse|street|strasse|straße)=\d"
)
_WINDOW_BEFORE, _WINDOW_AFTER = 72, 96  # a street name and its type before the number; name, type and unit after
# A digit an anchor can hold: a house number's first digit (also a field's value after its key's colon:
# "LOCATION:89 West Indlela"), or the digit closing "Apt. 4" or "address=0". One glued to a word, a dot, a colon
# after a digit ("12:30"), a slash, a hash or a dash can be neither (after a word character, no digit run
# starts; "Apt.4" has no space), so the digits of versions, times, paths and identifiers are passed over.
_DIGIT = re.compile(r"\d(?<![\w./#-]\d)(?:(?<!:\d)|(?<=[A-Za-z]:\d))")  # the common refusals first
# Of those digits, the ones an anchor can hold: one an anchor closes stands after spaces (a letter, a dot, colon or
# comma, or more space before them: "Apt. 4") or after "="; one an anchor opens has its number's letters and spaces,
# then a letter, after it (``_ANCHOR``'s first branch, read ahead). A phone number's groups ("+1 415 555 1663") are
# none: each stands after a digit and a space, and a digit follows it. The others hold no anchor, and passing them
# over changes none found: no anchor spans one (``_anchors``).
_ANCHOR_DIGIT = re.compile(
    r"\d(?<![\w./#-]\d)(?:(?<!:\d)|(?<=[A-Za-z]:\d))"
    r"(?:(?<=[^\W\d_]\s\d)|(?<=[.:,\s]\s\d)|(?<==\d)|(?=\d{0,4}[A-Za-z]?(?:[-/]\d{1,4}[A-Za-z]?)?,?\s+[^\W\d_]))"
)
_DIGIT_RUN = re.compile(r"\d+")
# The most characters an anchor holds before its first digit besides the spaces right before it: "address=" (8),
# or a letter, a dot and a comma before the spaces (3).
_ANCHOR_REACH = 8


def _anchors(text: str) -> Iterator[re.Match[str]]:
    """The matches ``_ANCHOR.finditer(text)`` gives, the regex tried only next to the digits an anchor can hold
    (``_DIGIT``). Every anchor opens with a digit (a house number) or ends with its first one ("Apt. 4",
    "address=0"), so after the previous anchor only the stretch before the next such digit (its spaces and
    ``_ANCHOR_REACH`` more) or the digit itself can start one; scanning all text for it cost as much as every street
    pattern together. Only the digits ``_ANCHOR_DIGIT`` finds are looked at: at another, nothing ends (no letter and
    spaces before it, no "=") and nothing starts (no spaces and a letter after its number), and no anchor that
    starts before it can reach past its digits, so the anchors found after it are those found had it been looked
    at (a phone number's groups, a ticket's amounts: on a 2 KB support prompt, 24 digits looked at of 64)."""
    position = 0
    while (digit := _ANCHOR_DIGIT.search(text, position)) is not None:
        first = digit.start()
        spaces = first
        while spaces > position and text[spaces - 1].isspace():
            spaces -= 1
        start = max(position, min(spaces - 3, first - _ANCHOR_REACH))
        # One closed by this digit ends right after it; one opened by it is looked for at the digit itself.
        anchor = _ANCHOR.search(text, start, first + 1) if start < first else None
        anchor = anchor or _ANCHOR.match(text, first)
        if anchor is None:  # no anchor starts inside a run of digits either: the next one starts past it
            position = _DIGIT_RUN.match(text, first).end()  # type: ignore[union-attr]  # a digit is there
            continue
        yield anchor
        position = anchor.end()


def _windows(text: str) -> list[tuple[int, int]]:
    windows: list[tuple[int, int]] = []
    for anchor in _anchors(text):
        start, end = max(0, anchor.start() - _WINDOW_BEFORE), min(len(text), anchor.end() + _WINDOW_AFTER)
        if windows and start <= windows[-1][1]:
            windows[-1] = (windows[-1][0], end)
        else:
            windows.append((start, end))
    return windows


def _open_end(match: re.Match[str]) -> int:
    """Where a street name with nothing after it ends: after its last capitalised word when it has one ("93, chemin
    Geneviève Moreno habite" ends at "Moreno"), else (lower-case chat) after its first word and the words after it
    that are a first or last name names-dataset knows and rare in every language of ``frequent_words`` ("48, rue
    margaret vasseur is" ends at "vasseur"; "55, rue de alexandre im in" and "16, rue de salmon pls" after the
    first)."""
    name_start = match.start("name")
    words = list(re.finditer(r"\S+", match.group("name")))
    capitalised = [w for w in words if w.group()[:1].isupper()]
    last = capitalised[-1] if capitalised else words[0]
    if not capitalised:
        for word in words[1:]:
            written = word.group().lower()
            if (written in frequent_in_any() or written in chat_stop_words() or not written.isalpha()
                    or not known_names().is_name(written)):  # fmt: skip
                break
            last = word
    # The first non-capitalised word after the name's capitalised ones ends the name.
    for word in words:
        if capitalised and word.start() > capitalised[0].start() and not word.group()[:1].isupper():
            last = max((w for w in capitalised if w.start() < word.start()), key=lambda w: w.start())
            break
    return name_start + last.end()


# A word after a house number on its line: a word on the next one is the next message of a chat ("r. abreu
# 147\neu: ok").
_WORD_AFTER = re.compile(rf"{_SP}+[^\W\d_]")
# Words after which a lower-case street is one: "im at", "deliver to", "ship it to", "lives at", "address:"; and
# Indonesian and Malay "alamat" (address; "alamatnya", its address) and "ke" (to: "antar ke", deliver to). Dutch,
# Polish and German write "address" as the last part of a compound ("afleveradres", "lieferadresse"; Polish "pod
# adresem"), Portuguese also as "morada"; the word may end the line above the street ("het adres is\n...").
_ADDRESS_WORD_BEFORE = re.compile(
    r"(?:^|[^\w])(?:at|to|ke|deliver|ship|send|(?:address|addr|[^\W\d_]*adresse|[^\W\d_]*adres(?:em|u)?|dirección|"
    r"direccion|indirizzo|endereço|morada|anschrift|alamat(?:nya)?)(?:[ \t]+(?:is|was|er|ist|est|es|é|è))?|lives|"
    r"live|living|located|moved)[ \t]*:?(?:[ \t]+|[ \t]*\n[ \t]*)\Z",
    re.IGNORECASE,
)


def _written_as_street(match: re.Match[str], text: str) -> bool:
    """Whether a lower-case street that a type opens and a word follows ("via pomponio, 41 now", "ul. witosa 57
    btw", "avenida de barros, 186 now") is written as a street, with no address word before it: its name is one to
    three words, none a stop word of the languages chat is written in (``_chat_stop_words``: "vale nos vemos 5
    minutos"), its number no year. Then either the number is written after a comma, as Italian, French and
    Portuguese addresses write it, and the type is no English word ("viale", "travessa") or the name's last word is
    no frequent English word and a word of it is rare in every language of ``frequent_words`` ("via pomponio, 41";
    not "via email, 3 times" nor "via whatsapp, 3 times"); or a word of the name is rare so ("conjunto de datos 3
    veces" is Spanish "data set, 3 times") and the type is no English word nor stop word ("ulica", "travessa") or an
    abbreviation of two letters or more written with its dot ("ul.", "al.")."""
    if _YEAR.fullmatch(match.group("number")[:4]):
        return False
    names = [word for word in match.group("name").lower().split() if word not in _PARTICLE_WORDS]
    if not 1 <= len(names) <= 3 or any(word.strip(".") in chat_stop_words() for word in names):
        return False
    street_type = match.group("type").lower()
    bare = street_type.rstrip(".")
    english = english_and_stop_words()
    rare = not all(word in frequent_in_any() for word in names)
    if "," in text[match.end("name") : match.start("number")]:
        return bare not in english or (rare and names[-1] not in frequent_words("en"))
    if not rare:
        return False
    dotted = street_type.endswith(".") and len(bare) >= 2 and bare.isalpha()
    return dotted or (bare not in english and bare not in chat_stop_words())


def _english_street(street_type: str, name_words: list[str]) -> bool:
    """Whether a type is an English word and every word of a name a frequent one ("via email", "via zoom"; not "via
    bertolucci", whom WordNet lists too)."""
    english = frequent_words("en")
    return street_type.lower().rstrip(".") in english_and_stop_words() and all(w.lower() in english for w in name_words)


def _street_only_glued(match: re.Match[str], text: str) -> bool:
    """Whether a lower-case name with a street type glued to it ("kuhlstraße 77", "franz-hentschel-allee 10",
    "kochstr. 315", "hendriklaan 168c") is a street with no address word before it, after a name of three letters
    or more: the type is an abbreviation written with its dot, or glued by a hyphen to a name of two words
    ("resi-striebitz-weg"), or four letters or more and no English word nor stop word ("straße", "gasse", "laan";
    not "ring", "park", "square", nor "weg", German "away"), and the whole word no frequent word of the languages
    of ``frequent_words`` (Dutch "loopbaan", career; "verslaan", to beat)."""
    street_type = match.group("type").lower()
    dotted = street_type.endswith(".") or text[match.end("type") : match.end("type") + 1] == "."
    bare = street_type.rstrip(".")
    name = match.group("name")
    if len(re.sub(r"[\W\d_]", "", name)) < 3:
        return False
    if dotted or (name.endswith("-") and len(re.findall(r"[^\W\d_]{2,}", name)) >= 2):
        return True  # "kochstr. 315"; a street named after a person, hyphens joining it ("resi-striebitz-weg 8")
    word = (name + bare).lower()
    return (len(bare) >= 4 and bare not in english_and_stop_words() and bare not in chat_stop_words()
            and word not in frequent_in_any())  # fmt: skip


# The particles between a street type and its name ("avenida de barros"), which a name may hold too.
_PARTICLE_WORDS = frozenset(re.findall(r"[a-z]+", _PARTICLES))


def _after_address_word(text: str, start: int) -> bool:
    return _ADDRESS_WORD_BEFORE.search(text, max(0, start - 24), start) is not None


_YEAR = re.compile(r"(?:19|20)\d\d")


@cache
def _after_lower() -> frozenset[str]:
    return frozenset(word.lower() for word in street_vocabulary().after_name)


# The locales' house-number labels that no other use shares ("Hse", "Plot", "Moo"), unlike "No" and "Nr".
_OWN_LABELS = frozenset(word.lower() for word in street_locales.LEAD_LABELS)
# Words that name the address rather than being its street's ("ADDR LEBEDEV TN 68-14", "Address Kalniņa iela 4").
_ADDRESS_KEYS = frozenset({"addr", "address", "adresa", "adres", "adrese", "aadress", "adresas", "adresi"})


def _longest(spans: list[tuple[int, int, float]]) -> list[tuple[int, int, float]]:
    """Overlapping spans merged into one (the address as a whole), with the highest score among them."""
    merged: list[tuple[int, int, float]] = []
    for start, end, score in sorted(spans):
        if merged and start < merged[-1][1]:
            last = merged[-1]
            merged[-1] = (last[0], max(last[1], end), max(last[2], score))
        else:
            merged.append((start, end, score))
    return merged
