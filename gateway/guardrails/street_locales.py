"""Street words of the locales whose addresses Faker's Latin-script providers do not write: those it has no address
provider for (Turkish, Latvian, Lithuanian, Estonian, Albanian, Kenyan and Nigerian English) and the romanised forms
of the types its Georgian, Thai and Korean providers write in their own scripts.

The words are each country's street types and house-number labels as its postal addressing standard writes them
(the Universal Postal Union's "Postal addressing systems" sheets), not street names: a type says that a name beside a
number is a street ("Kalniņa iela 12", "Öcalan Sokak No: 11/5", "Rruga Ismail Qemali, Nr. 3"), whoever the street is
named after. ``ROMANISED_FROM`` ties each romanised word to the provider word it renders, so that a test can check
the table against Faker's data. Armenian addresses carry no type at all: their street names are read from Faker's
hy_AM provider, romanised (``armenian_streets``).
"""

from __future__ import annotations

import importlib
from functools import cache

from gateway.guardrails.places import english_words
from gateway.guardrails.street_romanised import is_armenian, romanise_armenian

# Types written between a street's name and its house number ("Kalniņa iela 12", "Aksu Cad. No:17 D:3",
# "Nagio g. 4-2", "Pärnu mnt 45", "Rustavelis k. 12"): the abbreviations with their dot, which they need.
AFTER_NAME = frozenset({
    # Estonian: tänav, maantee, puiestee, põik, tee (tn, mnt, pst)
    "tn", "tänav", "mnt", "maantee", "pst", "puiestee", "põik", "tee",
    # Latvian: iela, gatve, bulvāris, prospekts, šoseja, laukums
    "iela", "gatve", "bulvāris", "prospekts", "šoseja", "laukums",
    # Lithuanian: gatvė, prospektas, alėja, plentas, skersgatvis (g., pr., al., pl., skg.)
    "g.", "gatvė", "pr.", "prospektas", "al.", "alėja", "pl.", "plentas", "skg.", "skersgatvis",
    # Turkish: sokak, cadde, bulvar (with and without the compound's possessive -ı/-si) and their abbreviations
    "Sokak", "Sokağı", "Sk.", "Sok.", "Cadde", "Caddesi", "Cad.", "Cd.", "Bulvar", "Bulvarı", "Blv.",
    # Georgian, romanised (ქ. = k., ქუჩა = kucha, გამზირი = gamziri)
    "k.", "kucha", "gamziri",
    # Basque: kalea, etorbidea, hiribidea, pasealekua, errepidea ("Antelo kalea 149", "Oses etorbidea 92")
    "kalea", "etorbidea", "hiribidea", "pasealekua", "errepidea",
})  # fmt: skip

# Types written before a street's name ("Rruga Ismail Qemali 3", "Str. Lipscani nr. 5", "Soi Sukhumvit 11").
BEFORE_NAME = frozenset({
    # Albanian: rruga, bulevardi (Rr., Blvd.)
    "Rruga", "Rr.", "Bulevardi",
    # Romanian abbreviations of Faker's ro_RO types (Strada, Bulevardul, Soseaua, Aleea, Intrarea)
    "Str.", "Bd.", "Bdul.", "Bld.", "Șos.", "Şos.", "Sos.", "Intr.",
    # Thai, romanised (ซอย = Soi, ถนน = Thanon)
    "Soi", "Thanon",
    # Catalan: carrer, avinguda, passeig, plaça, rambla, ronda, travessera, camí (C/, Av., Pg., Pl.)
    "Carrer", "C/", "Avinguda", "Passeig", "Pg.", "Plaça", "Rambla", "Ronda", "Travessera", "Camí",
    # Galician: rúa, avenida, praza, estrada, camiño, travesía (Avda.)
    "Rúa", "Avda.", "Praza", "Estrada", "Camiño", "Travesía",
    # Peruvian and Mexican Spanish: jirón (Jr.), cerrada (Cda.), privada (Priv.), prolongación (Prol.),
    # callejón (Cjón.), andador (And.)
    "Jirón", "Jr.", "Cda.", "Priv.", "Prol.", "Callejón", "Cjón.",
    # Swahili (Tanzania, Kenya): barabara ya (road of), mtaa wa (street of), njia ya (way of)
    "Barabara", "Mtaa", "Njia",
})  # fmt: skip

# Types glued to the end of a street's name: Icelandic -gata, -vegur, -braut, -stígur, -stræti, -tröð
# ("Skólabraut 189", "Tjarnarvegur 411").
GLUED_TYPES = frozenset({"gata", "vegur", "braut", "stígur", "stræti", "tröð"})

# House-number labels ("Sokak No: 11", "Rruga X, Nr. 3", "X Lane, Hse 84", "Plot 6, X Crescent", "16 Moo 11"): with
# their dot or colon where written.
NUMBER_LABELS = frozenset({"No", "Nr", "Hse", "House No", "Plot", "Moo", "Nyumba Na"})  # Swahili: house no.

# Labels that open an address, its street and a street type after them ("Plot 6, Adeyemi Crescent", "Moo 4,
# Titipatrayunyong Road", "Hse 12, Ngong Road").
LEAD_LABELS = frozenset({"Plot", "Moo", "Hse"})

# Unit labels after the house number, with their dot or colon ("D:4" Turkish daire, "ap. 5" Romanian apartament,
# "bl. 3", "sc. B", "Daire 4", "dz. 5" Latvian dzīvoklis, "k. 2" Estonian korter).
UNIT_LABELS = frozenset({"D", "Daire", "ap", "bl", "sc", "dz"})

# Korean road types, romanised by the Revised Romanization: the ko_KR provider's road suffixes 로 (ro) and 길 (gil),
# and 대로 (daero, a boulevard), which its road names carry split ("도산대" + "로"), written as one type after a
# hyphen ("Sejong-daero 35", "Hangang-ro 42-gil").
KOREAN_ROAD_TYPES = ("daero", "ro", "gil")

# The provider words of Faker's non-Latin locales that the romanised words above render.
ROMANISED_FROM = {
    "ka_GE": {"k.": "ქ."},
    "th_TH": {"Soi": "ซอย", "Thanon": "ถนน", "Moo": "หมู่"},
    "ko_KR": {"ro": "로", "gil": "길"},
}


@cache
def armenian_streets() -> frozenset[str]:
    """The street names of Faker's hy_AM provider, romanised ("Մյասնիկյան" -> "Myasnikyan", "Սևանի" -> "Sevani"):
    Armenian addresses write the name before the house number with no type ("Sevani 346"), so the name itself is
    what says it is a street. A name that is an English word ("Kori") or holds a digit is left out."""
    provider = importlib.import_module("faker.providers.address.hy_AM").Provider
    english = english_words().vocabulary
    names = {romanise_armenian(street) for street in provider.streets if is_armenian(street)}
    return frozenset(name for name in names if name.lower() not in english and not any(c.isdigit() for c in name))


# Street types written after the name in the Indian scripts whose Faker providers (hi_IN, ta_IN, mr_IN) name streets
# after people with no type, as India Post's addressing guidelines write them: road, street, lane in Devanagari
# (Hindi, Marathi), Tamil, Telugu, Kannada, Malayalam, Gujarati and Gurmukhi, the English "Road" transliterated
# beside each script's own word. Nepali and Bengali types are read from Faker's ne_NP and bn_BD providers.
INDIC_AFTER_NAME = frozenset({
    "रोड", "मार्ग", "गली", "सड़क", "पथ",  # Devanagari
    "சாலை", "தெரு", "வீதி", "ரோடு", "நெடுஞ்சாலை",  # Tamil
    "రోడ్డు", "రోడ్", "వీధి", "మార్గ్",  # Telugu
    "ರಸ್ತೆ", "ರೋಡ್", "ಬೀದಿ", "ಮಾರ್ಗ",  # Kannada
    "റോഡ്", "തെരുവ്", "പാത",  # Malayalam
    "રોડ", "માર્ગ", "શેરી",  # Gujarati
    "ਰੋਡ", "ਮਾਰਗ", "ਗਲੀ",  # Gurmukhi
})  # fmt: skip

# Labels of a house number written before it in those scripts: Hindi "मकान नं." (house no.) and "नं.", Tamil "எண்"
# (number) and "கதவு எண்" (door number).
INDIC_NUMBER_LABELS = frozenset({"मकान नं.", "मकान नंबर", "नं.", "எண்", "கதவு எண்"})

# Cyrillic street types written after the name, the house number after them (Kazakh "Абай даңғылы 3", "Төле би
# көшесі, 42"; Kyrgyz "Чүй проспектиси 12"; Mongolian "Сөүлийн гудамж 7"): street, avenue, square, boulevard,
# dead end, microdistrict. Faker has no kk_KZ, ky_KG nor mn_MN address provider; the words are the UPU sheets'.
CYRILLIC_AFTER_NAME = frozenset({
    "көшесі", "даңғылы", "алаңы", "бульвары", "тұйығы", "шағын ауданы",  # Kazakh
    "көчөсү", "проспектиси",  # Kyrgyz (бульвары as in Kazakh)
    "гудамж", "өргөн чөлөө",  # Mongolian
})  # fmt: skip

# Flat labels written after a flat's number in those locales ("23-пәтер": Kazakh flat 23; Kyrgyz "батир").
CYRILLIC_FLAT_AFTER = frozenset({"пәтер", "батир"})

# The parts of a Philippine and an Indonesian address that follow its street (or its block and lot) and name the
# area it lies in, each with its name or number: Philippine barangay ("Brgy. Pag-asa", "Bgy."), purok (a zone of
# a barangay: "Purok 3") and a subdivision's phase ("Phase 5"); Indonesian RT/RW (neighbourhood and community unit:
# "RT 03/RW 05"), kavling (a lot: "Kav. 3"), kelurahan and kecamatan (village and district: "Kel. Kendari", "Kec.
# Probolinggo") and desa (village). Faker's en_PH and id_ID providers write none of them (en_PH drops the barangay on
# purpose); the words are the Philippine Statistics Authority's and Indonesia's administrative divisions'.
NAMED_AREA_PARTS = frozenset({"Brgy", "Bgy", "Barangay", "Kel", "Kelurahan", "Kec", "Kecamatan", "Desa"})
NUMBERED_AREA_PARTS = frozenset({"Purok", "Phase", "Kav", "Kavling"})
# A Philippine subdivision's block and lot, which open an address ("Blk 8 Lot 2 Phase 5, Brgy. Pag-asa", "Blk 7 Lot
# 18, Acacia St."; en_PH's own "Block 3 Lot 7").
BLOCK_WORDS = frozenset({"Blk", "Block"})
LOT_WORDS = frozenset({"Lot"})
