"""PERSON spans checked and extended with names-dataset's first and last names (``person_names``).

spaCy's small English model tags capitalised words of French, Spanish and German sentences as people ("Virez",
"Ahora", "Der Flug", "das Konto des Lieferanten") and misses names it has not seen in English context ("Bitte leite
das an Musa Adams weiter", "hey its chamo parraga here"). The rules, all run where NER runs:

- ``confirmed``: a PERSON span from NER is kept only when it is written as a name (letters, inner apostrophes,
  hyphens, spaces and initials' periods on one line; in text with capitals, starting and ending with a capitalised
  word), is not inside a place the gazetteer or a field found, holds a known first or last name that is no stop word
  of the languages the gateway reads (English, French, Spanish, German, Italian, Portuguese) or is two words or more
  that both NER models call a person, and, if it is one word opening a sentence ("Schick es an ...", "Ruf mich
  an"), is a known first name.
- ``name_pairs``: a known first name followed by a known last name (optionally with a middle initial) is a PERSON,
  and so, capitalised, is a known last name followed by a known first name (family name first: "Juhász Gábor"),
  capitalised ("Musa Adams", "Anna K. Nowak") or, with a lower score, in text typed in lower case ("chamo parraga",
  "hawa r. traore", whatever codes in capitals are pasted beside it) when neither word is an English dictionary
  word; so is a known first name followed by a capitalised word that is no dictionary word ("Nomasonto Gazu",
  "Наташа Петровска": the list cannot hold every surname).
- ``capitals_pairs``: a name printed in capitals, as receipts, tickets and forms print one ("CASHIER: ARBEN AGA",
  "MEMBER HYUNHEE MISUN"): two words in capitals of three letters or more (two are codes: "RM", "YY"), a known
  first name and a known last name in either order, neither a stop word nor a calendar or field word, one of four
  letters or more that is no English dictionary word ("HOME CITY", "TOTAL DUE" are words; but a common given name,
  ``person_names``' ``given``, before a known last name may be both: "CHRISTOPHER CHAMBERS"), no street type of
  Faker's locales beside it ("AKINWALE STREET", "CALLE MARTINA") and no place the gazetteer knows ("SAINT
  ANDREW"). Capitals carry no case signal, so both words must be known names.
- ``name_cues.cued_names``: names a greeting, title, verb of speaking or sign-off points at, known or not.
- ``line_parts``: a NER span that runs over a line break is judged line by line ("Suzanne Maire\nVAT").
- ``confirmed`` also drops what no name looks like, however the models read it: a sign-off ("Beste Grüße"), a
  column header or form label ("Payout Iban", "Trace Id"), a month or weekday alone or after a particle
  ("Janvier", "Gardêz le Vendredi"), a phrase with an ordinary lower-case word inside ("Notre agence de Luena").
- ``speakers``: the speaker of a chat export's line ("[10:42] Indrė Kazlauskienė: ...", "25/03/2025, 17:26 - Ana
  Lima: ..."), whatever the name, unless it names a relation ("Mum").
- ``surnames.suffixed_names``: names no list holds that a family name's or patronymic's ending marks ("Avetik
  Azanyan", "pestov leonid bronislavovich").
- ``confirmed`` takes a NER person written with initials ("J. T. Mascaró", "Çevregül E.") whose words are no English
  dictionary words ("Plan B." is none).
- ``name_lists``: an initial before a known last name, a family name in capitals or first (Hungarian, Chinese
  order), and every item of a list that holds a person ("Attendees: ...", "Cc: ...", "Dear X and Y").
- ``subject_names``: a given name alone as a clause's subject, right before its verb ("Prakosa rolled back the
  deploy", "Abiye reports better sleep", "Amado conducía, y Isidora iba durmiendo"): an English finite verb (the NER
  model's lemmatizer tables) after a known first name or a word no list holds, or a Romance imperfect or preterite
  after a known first name; a place NER or a cue-less gazetteer read on the word gives way (``recurring_names``).
- ``chat_names.addressed_names``: in text or a chat message typed in lower case, a common given name that no
  ordinary word spells, where chat addresses or talks about a person ("got it, fiona", "lol brenda 😂", "dmitri
  was late again").
"""

from __future__ import annotations

import bisect
import functools
import re
import unicodedata
from collections.abc import Iterable, Sequence

from spacy.lang.de.stop_words import STOP_WORDS as DE
from spacy.lang.en.stop_words import STOP_WORDS as EN
from spacy.lang.es.stop_words import STOP_WORDS as ES
from spacy.lang.fr.stop_words import STOP_WORDS as FR
from spacy.lang.it.stop_words import STOP_WORDS as IT
from spacy.lang.pt.stop_words import STOP_WORDS as PT

from gateway.guardrails.addresses import street_vocabulary
from gateway.guardrails.chat_names import addressed_names, follows_people_word, joined_names, labels_value
from gateway.guardrails.dates import calendar_words
from gateway.guardrails.findings import Finding
from gateway.guardrails.inverted_names import inverted_names
from gateway.guardrails.name_cues import (
    CUE_WORDS,
    MAX_PARTICLE_LETTERS,
    NameWords,
    cued_names,
    is_sign_off,
    is_vowelless,
)
from gateway.guardrails.name_lists import listed_names, shaped_names
from gateway.guardrails.ner import CONTINENTAL_NER_SOURCE, LOWER_LETTERS, NER_SOURCE, UPPER_LETTERS, starts_sentence
from gateway.guardrails.not_names import RELATION_WORDS
from gateway.guardrails.ordinary_phrases import holds_unnamed_word
from gateway.guardrails.person_names import known_names
from gateway.guardrails.places import CONNECTORS, LOWERCASE_MIN_POPULATION, english_words, gazetteer, opens_after_value
from gateway.guardrails.places import SCORE as PLACE_SCORE
from gateway.guardrails.prefilters import AfterNone, AtLineStarts
from gateway.guardrails.proper_nouns import proper_nouns
from gateway.guardrails.recurring_names import SUBJECT_SOURCE
from gateway.guardrails.surnames import has_surname_ending, suffixed_names

PAIR_SCORE = 0.7
LOWER_CASE_PAIR_SCORE = 0.6
FAMILY_FIRST_SCORE = 0.6
CAPITALS_PAIR_SCORE = 0.6
_MIN_CAPITALS_LETTERS = 3  # two capitals are a code far more often than a name ("RM", "YY", "HK")
_MIN_UNLISTED_LETTERS = 4
_STOP_WORDS = frozenset(word.casefold() for words in (EN, FR, ES, DE, IT, PT) for word in words)
_OTHER_STOP_WORDS = tuple(frozenset(word.casefold() for word in words) for words in (FR, ES, DE, IT, PT))
_WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")
_APOSTROPHES = str.maketrans(dict.fromkeys("’‘ʼ`´′", "'"))
# Two or three words: first name, optional middle initial, last name; capitalised, or all lower case. Where a text
# has capitalised words, only capitalised pairs are tried (few in code, JSON or logs); a text typed in lower case
# (chat, ``typed_in_lower_case``) carries no case signal, so there its lower-case pairs are tried.
_CAPITALISED = rf"[{UPPER_LETTERS}][{LOWER_LETTERS}]+(?:['’-][{UPPER_LETTERS}]?[{LOWER_LETTERS}]+)?"
_LOWER = rf"[{LOWER_LETTERS}]{{2,}}"
# The words of a name stand on one line ("Raimondo\nNotes:" is a name and a label).
# (Pairs searched as ``prefilters.AfterNone``: the look-behind tested at each match, not at every position.)
_CAPITALISED_PAIR = AfterNone(
    r"\w@.'’-", rf"({_CAPITALISED})[ \t]+(?:([{UPPER_LETTERS}])\.[ \t]+)?({_CAPITALISED})(?![\w@'’-])"
)
# A lower-case surname may be a double one ("kalevi auvinen-jäntti"): ``_hyphenated_surname`` reads its parts.
_LOWER_LAST = rf"{_LOWER}(?:-{_LOWER})?"
_LOWER_PAIR = AfterNone(r"\w@.'’-", rf"({_LOWER})[ \t]+(?:([{LOWER_LETTERS}])\.[ \t]+)?({_LOWER_LAST})(?![\w@'’-])")
# Two words in capitals ("ARBEN AGA", "ROŽĖ JANKAUSKAITĖ", "O'NEIL KAYE"), on one line, no code glued on.
_CAPITALS = rf"[{UPPER_LETTERS}]{{2,}}(?:['’-][{UPPER_LETTERS}]{{2,}})?"
_CAPITALS_PAIR = AfterNone(r"\w@.'’/-", rf"({_CAPITALS})[ \t]+({_CAPITALS})(?![\w@'’/-])")  # as ``_CAPITALISED_PAIR``
# A chat export's line ("[22:49] ate_j: ...", "10:42:07 - Ana: ..."): a clock time, the sender (any handle), a colon,
# the message.
_CHAT_MESSAGE = AtLineStarts(
    r"(?m)^[ \t]*[\[(]?(?:\d{4}-\d{2}-\d{2}[ \t]+|\d{1,2}[./]\d{1,2}[./]\d{2,4},?[ \t]+)?"
    r"\d{1,2}:\d{2}(?::\d{2})?(?:[ \t]*[AaPp][Mm])?[\])]?[ \t]*[-–]?[ \t]*[^\s:][^:\r\n]{0,40}:"
    r"[ \t]+(?P<message>[^\r\n]+)"
)
# A word written capitalised ("Maria", "Ops"), not all in capitals ("IBAN", "RK4UFZ") nor holding a digit.
_TITLE_WORD = re.compile(rf"(?<![\w'’-])[{UPPER_LETTERS}][{LOWER_LETTERS}]")


def typed_in_lower_case(text: str, values: Sequence[tuple[int, int]] = ()) -> bool:
    """Whether the text is typed in lower case, as chat is: no word of it is capitalised. Codes, tokens and
    acronyms pasted into it ("GB52 IMWV", "RK4UFZ", "SSN") are no capitalised words, nor is one inside the [start,
    end) spans of `values`, values the pattern detectors found: a date pasted or written by a form keeps its month's
    capital in chat typed in lower case ("dob August 14, 1938", "bday is Sep 19 1989")."""
    if not any(char.islower() for char in text):
        return False
    return all(any(start <= match.start() < end for start, end in values) for match in _TITLE_WORD.finditer(text))


def pasted_values(findings: Iterable[Finding]) -> list[tuple[int, int]]:
    """The [start, end) spans of the values in `findings` that are no person nor place (dates, numbers, codes):
    their capitals are no writer's (``typed_in_lower_case``)."""
    return [(f.start, f.end) for f in findings if f.entity_type not in ("PERSON", "LOCATION")]


# Words of data fields as column headers and form labels write them ("Payout Iban", "Trace Id", "Gh Token",
# "Client Ip", an e-mail's "Cc"): no person's name holds one.
FIELD_WORDS = frozenset({"id", "ip", "iban", "token", "url", "uri", "uuid", "sku", "ssn", "dob", "api", "sha", "jwt",
                         "vat", "otp", "email", "e-mail", "ipv4", "ipv6", "json", "http", "https", "cc",
                         "bcc"})  # fmt: skip
_CALENDAR_WORDS = calendar_words()
_NOT_GIVEN_NAMES = _CALENDAR_WORDS | FIELD_WORDS
# Lower-case words longer than MAX_PARTICLE_LETTERS that still stand inside names ("Maria della Rosa").
_LONG_PARTICLES = frozenset({"della", "delle", "dello", "degli", "binti", "verch"})


def is_stop_word(word: str) -> bool:
    """A stop word of English, French, Spanish, German, Italian or Portuguese (any case)."""
    return word.casefold() in _STOP_WORDS


def _is_name_word(word: str) -> bool:
    """A known name that is no stop word; a hyphenated word is one when a part of it is ("Holst-Hansen")."""
    return any(part.casefold() not in _STOP_WORDS and known_names().is_name(part)
               for part in ([word, *word.split("-")] if "-" in word else [word]))  # fmt: skip


# A person's name as written: words of letters joined by apostrophes, hyphens, spaces or an initial's period.
_WRITTEN_NAME = re.compile(r"[^\W\d_]+(?:(?:['’ʼ-]|\.?[ ]+)[^\W\d_]+)*\.?")


# A name written with initials: one or two before a capitalised surname ("J. T. Mascaró", "A. Ngigi") or one after
# a capitalised first name ("Çevregül E."). A NER person of this shape needs no listed name word.
_INITIALS_FIRST = re.compile(rf"(?:[{UPPER_LETTERS}]\.[ \t]*){{1,2}}{_CAPITALISED}(?:[ \t]+{_CAPITALISED})?")
_INITIAL_LAST = re.compile(rf"{_CAPITALISED}[ \t]+[{UPPER_LETTERS}]\.")
_CAPITALISED_BEFORE = re.compile(rf"(?<![\w'’-]){_CAPITALISED}[ ]+\Z")  # a tab parts columns, not a name's words


@functools.cache
def _dictionary() -> frozenset[str]:
    """English nouns, verbs, adjectives and adverbs (``places.english_words``, which the place recognizer loads)."""
    words = english_words()
    return words.nouns | words.verbs | words.modifiers


def _initialled_name(text: str, start: int, span: str, words: list[str]) -> bool:
    """Whether a span is written as a name with initials, its words no English dictionary words unless known names:
    "Plan B.", "Vitamin C.", "Appendix A." are things; "A. Smith" and "Maia K." are people. After a word, an
    initial follows a known first name or a word no dictionary holds ("Çevregül E."). Initials after a capitalised
    word are a middle initial of a longer name ("Vita G. Kalniņa"), left to the rules that read all of it."""
    dictionary = _dictionary()
    names = known_names()
    if _INITIALS_FIRST.fullmatch(span):
        if _CAPITALISED_BEFORE.search(text, max(0, start - 40), start):
            return False
        known = names.is_name
    elif _INITIAL_LAST.fullmatch(span):
        known = names.is_first
    else:
        return False
    return all(known(word) or word.casefold() not in dictionary for word in words if len(word) > 1)


def confirmed(text: str, finding: Finding, places: Iterable[Finding] = (), agreed: bool = False) -> bool:
    """Whether a NER PERSON span is written as a name, holds a known name that is no stop word, and is not inside a
    place another detector found (NER reads "Tsuen Wan", "Gómez Palacio" as people; a cue still makes a person of
    "Dear Florence", see ``name_cues``). A span of two words or more, none a stop word nor (the first) a greeting or
    sign-off word, that both NER models call a person and that holds no English dictionary word (`agreed`, decided
    by the caller) needs no known name: two readings of the sentence stand in for the list, which cannot hold every
    name ("Sittikorn Wannapaitoonsri")."""
    if any(place.start <= finding.start and finding.end <= place.end for place in places):
        return False
    span = text[finding.start : finding.end]
    if not _WRITTEN_NAME.fullmatch(span):
        return False  # "Settlement.run(Settlement.java:196", "order_id", "sha256 ee2442c", "Módena\nVAT"
    words = _WORD.findall(span)
    if not text.islower() and not (words[0][0].isupper() and words[-1][0].isupper()):
        return False  # "das Konto des Lieferanten", "el número de guardia", "laut"
    if len(words) == 1 and starts_sentence(text, finding.start) and not known_names().is_first(words[0]):
        return False  # a verb opening a sentence: "Schick es an ...", "Ruf mich unter ... an"
    if not _written_like_a_person(text, span, words):
        return False
    if agreed and len(words) >= 2 and not any(len(word) > 1 and word.casefold() in _STOP_WORDS for word in words) \
            and words[0].casefold() not in CUE_WORDS:
        return True  # not one word (a German noun: "Morgen"), nor a greeting or sign-off ("Liebe Grüße")
    if _initialled_name(text, finding.start, span, words):
        return True  # initials and a surname, a first name and an initial: how people, not things, are written
    return any(_is_name_word(word) for word in words)


def _ends_in_calendar_word(words: list[str]) -> bool:
    """A month or weekday alone, or after a lower-case particle ("le Vendredi", "im August"); "Theresa May" is
    still a person."""
    return words[-1].casefold() in _CALENDAR_WORDS and (len(words) == 1 or words[-2].islower())


def _written_like_a_person(text: str, span: str, words: list[str]) -> bool:
    """False for what the NER models call people that no name looks like: a sign-off ("Beste Grüße"), a column
    header or form label ("Payout Iban", "Trace Id"), a month or weekday alone ("Janvier", "August") or after a
    particle ("Gardêz le Vendredi"), and, in text with capitals, a phrase with an ordinary lower-case word inside
    ("Notre agence de Luena": names hold only short particles, "van", "de la", "della")."""
    folded = [word.casefold() for word in words]
    if is_sign_off(span) or any(word in FIELD_WORDS for word in folded):
        return False
    if _ends_in_calendar_word(words):
        return False
    return text.islower() or not any(word.islower() and len(word) > MAX_PARTICLE_LETTERS
                                     and word not in _LONG_PARTICLES for word in words[1:-1])  # fmt: skip


def line_parts(finding: Finding, text: str) -> list[Finding]:
    """A span cut at its line breaks, each part without its surrounding spaces (the small English model runs a
    signature's name into the next line's label: "Suzanne Maire\nVAT")."""
    parts: list[Finding] = []
    position = finding.start
    for line in text[finding.start : finding.end].splitlines(keepends=True):
        stripped = line.strip()
        if stripped:
            start = position + line.index(stripped)
            parts.append(Finding(finding.entity_type, start, start + len(stripped), finding.score, finding.source))
        position += len(line)
    return parts


# German, French, Spanish, Italian and Portuguese articles of two letters or more: the capitalised word after one is
# a noun (every German noun is capitalised), and a place after an article is one the gazetteer knows ("die Schweiz",
# "la Rioja"). English "the" is left out: "the Hague", "the Bronx".
_ARTICLE_BEFORE = re.compile(r"(?<![^\W\d_])(?:der|die|das|den|dem|des|ein|eine|einen|einem|einer|eines|le|la|les|un|"
                             r"une|du|el|los|las|una|del|al|il|lo|gli|um|uma|os|as)[ \t]+\Z", re.IGNORECASE)


def place_confirmed(text: str, finding: Finding, common_words: frozenset[str] = frozenset()) -> bool:
    """Whether a NER LOCATION span is written as a place name: words of letters on one line (not a stack frame or a
    file path: "java.base/java.lang.Thread.run(Thread.java:840"), capitalised at both ends where the text has capitals
    (the small English model calls French, Spanish and German phrases places: "compte du fournisseur", "las cifras"),
    and, if it opens a sentence, a name the place gazetteer knows (a capitalised first word is any word there:
    "Corrigé", "Bienvenida", "Die Karte"; and after a form's value: ``places.opens_after_value``). Nor, unless the
    gazetteer knows it, is a place one made of English dictionary words (`common_words`) only: a ticket's title or a
    team ("Billing", "Onboarding", "Help Desk", "Data Center")."""
    span = text[finding.start : finding.end]
    if not _WRITTEN_NAME.fullmatch(span):
        return False
    words = _WORD.findall(span)
    if not text.islower() and not (words[0][0].isupper() and words[-1][0].isupper()):
        return False
    if _ends_in_calendar_word(words):
        return False  # "Août", "Gardêz le Vendredi"
    key = " ".join(word.casefold() for word in words).translate(_APOSTROPHES)
    if starts_sentence(text, finding.start) or opens_after_value(text, finding.start):
        return key in gazetteer()
    if _ARTICLE_BEFORE.search(text, max(0, finding.start - 8), finding.start) and key not in gazetteer():
        return False  # a German noun after its article ("für die Verlängerung", "den Vertrag")
    significant = [word.casefold() for word in words if word.casefold() not in CONNECTORS]
    return not (significant and all(word in common_words for word in significant) and key not in gazetteer())


def more_people(text: str, common_words: frozenset[str], taken: list[Finding]) -> list[Finding]:
    """Names NER did not report: known pairs (``name_pairs``), Cyrillic or Greek names in Latin-script text
    (``other_script_names``), names spelled with rare Latin letters (``rare_letter_names``) or holding a family
    name's or patronymic's ending (``surnames.suffixed_names``), the speakers of a chat export (``speakers``), names
    written family name first with a comma (``inverted_names``), names a cue points at (``name_cues``), then
    initials, capitals and family-first orders and the other items of lists of people (``name_lists``), and given
    names chat addresses or talks about in what is typed in lower case (``chat_names``)."""
    lower = typed_in_lower_case(text, pasted_values(taken))
    messages = [] if lower else lower_case_messages(text)
    found = name_pairs(text, common_words, taken, lower=lower, messages=messages)
    found.extend(capitals_pairs(text, common_words, [*taken, *found]))
    found.extend(other_script_names(text, [*taken, *found]))
    found.extend(rare_letter_names(text, common_words, [*taken, *found]))
    found.extend(suffixed_names(text, _STOP_WORDS, common_words, [*taken, *found]))
    if ":" in text:
        found.extend(speakers(text, common_words, [*taken, *found]))
    names = known_names()
    found.extend(inverted_names(text, [*taken, *found], _STOP_WORDS, common_words, names))
    words = NameWords(_STOP_WORDS, common_words, names.is_name, names.is_first)
    found.extend(cued_names(text, words, [*taken, *found]))
    found.extend(subject_names(text, common_words, [*taken, *found]))
    found.extend(shaped_names(text, [*taken, *found], _STOP_WORDS, common_words, names))
    people = [f for f in (*taken, *found) if f.entity_type == "PERSON"]
    found.extend(listed_names(text, people, [*taken, *found], _STOP_WORDS, common_words, names))
    regions = [(0, len(text))] if lower else messages
    if regions:
        found.extend(addressed_names(text, regions, _STOP_WORDS, common_words, _NOT_GIVEN_NAMES, [*taken, *found]))
    if not lower and (lines := [line for line in lower_case_lines(text)
                                if not any(start < line[1] and line[0] < end for start, end in messages)]):
        # lines typed in lower case in a text with capitals: first names the lists hold only
        found.extend(addressed_names(text, lines, _STOP_WORDS, common_words, _NOT_GIVEN_NAMES, [*taken, *found],
                                     listed_only=True))  # fmt: skip
        regions = [*regions, *lines]
    if regions:  # a common given name joined by "and" to a person found there ("we met marissa and lyna")
        found.extend(joined_names(text, regions, _STOP_WORDS, common_words, _NOT_GIVEN_NAMES, [*taken, *found]))
    return found


def name_pairs(text: str, common_words: frozenset[str], taken: Iterable[Finding], *, lower: bool | None = None,
               messages: list[tuple[int, int]] | None = None) -> list[Finding]:  # fmt: skip
    """First-name + last-name pairs that no finding in `taken` overlaps: capitalised ones, and lower-case ones where
    the text, or a chat message of it (``lower_case_messages``), is typed in lower case (`lower` and `messages`, when
    the caller has read them: ``typed_in_lower_case`` and ``lower_case_messages`` of the text)."""
    taken = list(taken)
    spans = [(f.start, f.end) for f in taken]
    # A place NER read inside a family-first name ("Székely Csaba": "Csaba") yields to it.
    not_places = [(f.start, f.end) for f in taken if f.entity_type != "LOCATION"]
    found: list[Finding] = []
    if typed_in_lower_case(text) if lower is None else lower:
        _pairs_in(text, 0, len(text), True, common_words, spans, not_places, found)
        return found
    _pairs_in(text, 0, len(text), False, common_words, spans, not_places, found)
    for start, end in lower_case_messages(text) if messages is None else messages:
        in_message: list[Finding] = []
        _pairs_in(text, start, end, True, common_words, spans, not_places, in_message)
        # A message's language may be none the stop words cover: two short words are as often its own ("saa hii").
        found.extend(f for f in in_message if max(map(len, text[f.start : f.end].split())) >= _MIN_UNLISTED_LETTERS)
    return found


def _pairs_in(
    text: str,
    begin: int,
    stop: int,
    lower: bool,
    common_words: frozenset[str],
    spans: list[tuple[int, int]],
    not_places: list[tuple[int, int]],
    found: list[Finding],
) -> None:
    """The pairs of ``name_pairs`` in text[begin:stop], lower-case ones if `lower`, added to `found` (and their
    spans to `spans` and `not_places`)."""
    names = known_names()
    pair = _LOWER_PAIR if lower else _CAPITALISED_PAIR
    position = begin
    while (match := pair.search(text, position, stop)) is not None:
        first, last = match.group(1), match.group(3)
        position = match.start() + 1  # pairs overlap: "Maria Anna Nowak" tries "Anna Nowak" next
        if match.start() > begin and unicodedata.combining(text[match.start() - 1]):
            continue  # the rest of a word a combining mark splits ("i̇sparta": a dotted capital I, lower-cased)
        if not lower and _stop_word_given_pair(first, last, common_words):
            if not any(start < match.end() and match.start() < end for start, end in spans):
                _add_pair(match, lower, spans, not_places, found)
                position = match.end()
            continue  # "Per Hansen", "Will Jensen": a given name English spells as a function word
        if first.casefold() in _STOP_WORDS or (last.casefold() in _STOP_WORDS
                                                and not _foreign_stop_surname(first, last, text, begin, stop, match)):
            continue  # a function word ("maria que"), not a family name another language spells ("ahmad ali")
        if not names.is_first(first):
            if not lower and _family_first(first, last, common_words) \
                    and not any(start < match.end() and match.start() < end for start, end in not_places):
                found.append(Finding("PERSON", match.start(), match.end(), FAMILY_FIRST_SCORE, "name_pairs"))
                spans.append((match.start(), match.end()))
                not_places.append((match.start(), match.end()))
                position = match.end()
            continue
        if first.casefold() in FIELD_WORDS or last.casefold() in FIELD_WORDS or is_sign_off(match.group(0)):
            continue  # a column header ("Trace Id", "Key Id"), a sign-off ("Beste Grüße")
        if lower and (first.casefold() == last.casefold() or _ordinary_pair(first, last, common_words)):
            continue  # a word said twice ("ty ty", "bye bye"); dictionary words ("rose gold", "saw piotr")
        if lower and labels_value(text, match.end(), spans):
            continue  # a field's label before its value ("test data street: 4 Harris Inlet")
        if lower and "-" in last:
            if _hyphenated_surname(first, last, common_words) and _holds_stop_word(text, begin, stop, match) \
                    and not any(start < match.end() and match.start() < end for start, end in spans):
                _add_pair(match, lower, spans, not_places, found)
                position = match.end()
            continue  # a double surname only after a known first name, each part a surname's word ("follow-up")
        if lower and not (names.is_last(last) and not _dictionary_word(first, common_words)
                          and not _dictionary_word(last, common_words)) and not (
            (names.is_last(last) or _unlisted_surname(first, last, common_words))
            and _holds_stop_word(text, begin, stop, match)
        ):
            continue  # a dictionary noun or an unlisted word beside a name, in a language the stop words do not cover
        if not names.is_last(last) and last.casefold() in common_words and not _rare_noun(first, last, common_words):
            continue  # "Grace Street", "Frank Talk": a known first name before an ordinary word
        if any(start < match.end() and match.start() < end for start, end in spans):
            continue
        _add_pair(match, lower, spans, not_places, found)
        position = match.end()


def _stop_word_given_pair(first: str, last: str, common_words: frozenset[str]) -> bool:
    """Whether a first name English spells as a stop word ("Per", "Will", "May": ``person_names``' ``stop_given``, or
    a common given name that is a stop word) stands before a family name: a known last name of four letters or more
    that is no stop word, no calendar or field word and no English dictionary word but a proper noun
    (``proper_nouns``: "PER HANSEN", "MAY JENSEN"; not "PER UNIT", "WILL CALL", "MAY APPLY")."""
    names = known_names()
    given, family = first.casefold(), last.casefold()
    if not (given in names.stop_given or (given in names.given and given in _STOP_WORDS)):
        return False
    return (len(family) >= _MIN_UNLISTED_LETTERS and names.is_last(family) and family not in _STOP_WORDS
            and (family in proper_nouns() or (family not in common_words and family not in _dictionary()))
            and family not in _CALENDAR_WORDS and family not in FIELD_WORDS)  # fmt: skip


_REPEATED_SYLLABLE = re.compile(r"(..?)\1+")


def _foreign_stop_surname(first: str, last: str, text: str, begin: int, stop: int, pair: re.Match[str]) -> bool:
    """Whether a stop word after a first name is a family name still ("ahmad ali": "ali" is Portuguese for "there"):
    the first a common given name (``person_names``' ``given``) and no stop word, the word a known last name of three
    letters or more, no English stop word and a stop word of one other language only, of which text[begin:stop] holds
    no other stop word (a sentence of that language writes its own word: "o joão está ali"), and no laugh ("haha")."""
    names = known_names()
    folded = last.casefold()
    if len(folded) < 3 or folded in EN or not names.is_last(folded) or first.casefold() not in names.given:
        return False
    if _REPEATED_SYLLABLE.fullmatch(folded):
        return False  # a laugh ("anna haha")
    languages = [words for words in _OTHER_STOP_WORDS if folded in words]
    return len(languages) == 1 and not any(
        word.group().casefold() in languages[0] for word in _WORD.finditer(text, begin, stop)
        if not pair.start() <= word.start() < pair.end())  # fmt: skip


def _add_pair(
    match: re.Match[str],
    lower: bool,
    spans: list[tuple[int, int]],
    not_places: list[tuple[int, int]],
    found: list[Finding],
) -> None:
    found.append(Finding("PERSON", match.start(), match.end(), LOWER_CASE_PAIR_SCORE if lower else PAIR_SCORE,
                         "name_pairs"))  # fmt: skip
    spans.append((match.start(), match.end()))
    not_places.append((match.start(), match.end()))


def _rare_noun(first: str, last: str, common_words: frozenset[str]) -> bool:
    """Whether a capitalised word after a known first name no dictionary word is a noun WordNet holds alone that the
    English NER model's training text never wrote: a person WordNet lists ("Bartolomeo Tasso": Torquato Tasso), no
    word of anyone's prose ("Grace Street", "Frank Talk")."""
    folded, words = last.casefold(), english_words()
    return (len(folded) >= _MIN_UNLISTED_LETTERS and first.casefold() not in common_words
            and folded not in words.vocabulary and folded not in words.verbs and folded not in words.modifiers
            and folded not in _CALENDAR_WORDS and folded not in FIELD_WORDS)  # fmt: skip


def _hyphenated_surname(first: str, last: str, common_words: frozenset[str]) -> bool:
    """Whether a lower-case pair's hyphenated last word is a double surname after a known first name ("natalia
    zanzi-mocenigo", "simona říhová-sedláčková"): the first name no dictionary word, each part of two letters or more
    and no dictionary word, and each a known surname or a word of four letters or more that neither the English NER
    model's vocabulary, a calendar nor a field holds ("mocenigo"). A compound of ordinary words ("follow-up",
    "check-in", "co-op") is none."""
    names = known_names()
    if first.casefold() in common_words:
        return False
    for part in last.casefold().split("-"):
        if part in common_words or part in _CALENDAR_WORDS or part in FIELD_WORDS:
            return False
        if not names.is_last(part) and (len(part) < _MIN_UNLISTED_LETTERS or part in english_words().vocabulary):
            return False
    return True


def _ordinary_pair(first: str, last: str, common_words: frozenset[str]) -> bool:
    """Whether a lower-case pair of known names reads as ordinary words: both English dictionary words ("rose gold")
    unless both are names it holds as nouns alone (``_dictionary_word``: "petter nielsen"), or one a verb, an
    adjective or an adverb ("saw piotr gradzik": the verb before the name), or a dictionary word of two letters ("ok
    gracias"); or the first an irregular verb form of the lemmatizer's exceptions table that is no common given name
    ("met samir tabet-soltani": "met" is a first name names-dataset lists; not "rose", "drew"). One noun of three
    letters or more beside a word no dictionary holds stays a name: the dictionary's nouns hold many first names and
    surnames ("michael saha", "kellie roberts", "esther hurtado")."""
    held = [word for word in (first, last) if word in common_words]
    common = [word for word in held if _dictionary_word(word, common_words)]
    if len(held) == 2 and common:
        return True  # "georgia vibes": a place's name and a noun
    words = english_words()
    given = known_names().given
    if first in words.verb_exceptions and first not in given:
        return True  # "met samir", "saw piotr": the verb before the name
    return any(len(word) < 3 or word in words.verbs or word in words.modifiers for word in common)


def _dictionary_word(word: str, common_words: frozenset[str]) -> bool:
    """Whether a lower-case word of a pair reads as an English word: the dictionary holds it, and not only as a
    noun that names people. WordNet's noun index, which the dictionary is read from, holds people of its own
    ("schubert", "nielsen", "samuel", "charlotte", "viola"): a known first or last name of four letters or more that
    it holds as a noun alone, no verb, adjective or adverb, reads as the name ("petter nielsen", "florentina
    schubert", "charlotte lebel"). Names that are ordinary words are verbs or modifiers as well ("hope", "grace",
    "mark", "bill", "rose", "gold", "frank", "will"), and the name of a country, a state or a city that the places
    read in lower case (``places.LOWERCASE_MIN_POPULATION``) is a place's ("georgia"; "sana", Yemen's capital, in
    "asante sana": Swahili thanks)."""
    if word not in common_words:
        return False
    if len(word) < _MIN_UNLISTED_LETTERS or not known_names().is_name(word) \
            or gazetteer().get(word, 0) >= LOWERCASE_MIN_POPULATION:
        return True
    words = english_words()
    return word in words.verbs or word in words.modifiers


def _unlisted_surname(first: str, last: str, common_words: frozenset[str]) -> bool:
    """Whether, in text typed in lower case, a known first name of three letters or more that is no dictionary word
    (``_dictionary_word``) is followed by a surname the list does not hold ("stefan szajek", "giacomo ligorio",
    "qadeer fidvi": it holds a country's thousand most frequent): a word of four letters or more that the English NER
    model's vocabulary does not hold (nor its dictionary, a calendar or a field: "anna thanks", "maria tonight", "john
    haha", "sarah gonna" are words its training text wrote), nor a known name, which may start the next name ("kay
    eitan gabay"), nor one ending as a family name or patronymic does, which ``surnames.suffixed_names`` reads with
    the words around it ("gusev leonid prokhorovich"); the two no place the gazetteer knows ("seri kembangan"). Only
    in a text or message holding a stop word of the languages read besides: a language they do not cover writes its
    own words after a given name as often ("asante sana"). (A pair of a known first and last name one of which is a
    dictionary noun needs such a stop word too: "sana" is Yemen's capital in the dictionary.)"""
    folded = last.casefold()
    return (len(first) >= 3 and not _dictionary_word(first.casefold(), common_words)
            and len(last) >= _MIN_UNLISTED_LETTERS
            and folded not in common_words and folded not in english_words().vocabulary
            and not known_names().is_name(last) and not has_surname_ending(last)
            and folded not in _CALENDAR_WORDS and folded not in FIELD_WORDS
            and f"{first.casefold()} {folded}".translate(_APOSTROPHES) not in gazetteer())  # fmt: skip


def _holds_stop_word(text: str, begin: int, stop: int, pair: re.Match[str]) -> bool:
    """Whether text[begin:stop], outside `pair`, holds a stop word of the languages the gateway reads."""
    return any(word.group().casefold() in _STOP_WORDS for word in _WORD.finditer(text, begin, stop)
               if not pair.start() <= word.start() < pair.end())  # fmt: skip


def lower_case_messages(text: str) -> list[tuple[int, int]]:
    """[start, end) of each chat message typed in lower case ("[22:49] ate_j: pakisabi kay eitan gabay na late
    ako"), in a chat export whose other lines have capitals: a person types a message, so the case of the rest of
    the export tells nothing of it."""
    if ":" not in text:
        return []
    return [match.span("message") for match in _CHAT_MESSAGE.finditer(text)
            if typed_in_lower_case(match.group("message"))]  # fmt: skip


# What a line of code, markup or data holds and chat seldom does: assignment, call, block, tag and quote characters.
_CODE_CHARACTER = re.compile(r"[=(){}\[\];<>\"`\\|_$%]")
# A line that opens with a lower-case letter (searched from the line break before it, a literal the regex engine skips
# to).
_LOWER_LINE_START = re.compile(rf"\n(?=[{LOWER_LETTERS}])")
_LOWER_START = re.compile(rf"[{LOWER_LETTERS}]")
# A row of data: values a comma, semicolon or tab parts with no space after it ("prénom,nom,ville").
_DATA_ROW = re.compile(r"\w[,;\t]\w")
_SENTENCE_END = re.compile(r"[.!?…][\"')\]]*[ \t]*\Z")


def lower_case_lines(text: str) -> list[tuple[int, int]]:
    """[start, end) of the stretches typed in lower case in a text with capitals: a line that opens with a lower-case
    letter, up to its first capitalised word ("monica says vitry-sur-seine is overrated Boarding pass: FRA → LHR"),
    where a line opens a message: the text's first line, one after a blank line or a sentence's end, or after such a
    lower-case line ("stuck at the airport again\nmaria says crewe is overrated"); not a wrapped sentence's next line
    ("We met with\nmark on Monday"), where the writer's capitals say the lower-case words are no names. A line with a
    character of code or data (an assignment, a call, a tag, a quote: ``_CODE_CHARACTER``) or values parted by a
    comma, semicolon or tab alone (a CSV row) is none, nor does a line after it open a message."""
    starts = [match.end() for match in _LOWER_LINE_START.finditer(text)]
    if _LOWER_START.match(text):
        starts.insert(0, 0)
    stretches: list[tuple[int, int]] = []
    for start in starts:
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        if _CODE_CHARACTER.search(text, start, end) or _DATA_ROW.search(text, start, end):
            continue
        if start > 0:
            previous_start = text.rfind("\n", 0, start - 1) + 1
            previous = text[previous_start : start - 1]
            if previous.strip() and not (stretches and stretches[-1][0] == previous_start) and not (
                    _SENTENCE_END.search(previous) and not _CODE_CHARACTER.search(previous)):  # fmt: skip
                continue  # a wrapped sentence's next line
        title = _TITLE_WORD.search(text, start, end)
        stretches.append((start, end if title is None else title.start()))
    return stretches


def capitals_pairs(text: str, common_words: frozenset[str], taken: Iterable[Finding]) -> list[Finding]:
    """Names in capitals (see the module's docstring) that no finding in `taken` overlaps."""
    spans = [(f.start, f.end) for f in taken]
    found: list[Finding] = []
    position = 0
    while (match := _CAPITALS_PAIR.search(text, position)) is not None:
        position = match.start() + 1  # "CUSTOMER OSNAT HADAD" tries "OSNAT HADAD" next
        overlaps = any(start < match.end() and match.start() < end for start, end in spans)
        if not overlaps and _capitals_name(match.group(1), match.group(2), common_words) \
                and not _in_street_name(text, match):  # fmt: skip
            found.append(Finding("PERSON", match.start(), match.end(), CAPITALS_PAIR_SCORE, "capitals_pairs"))
            spans.append((match.start(), match.end()))
            position = match.end()
    return found


def _capitals_name(first: str, second: str, common_words: frozenset[str]) -> bool:
    """Whether two words in capitals are a first and a last name, in either order (``capitals_pairs``)."""
    names = known_names()
    folded = (first.casefold(), second.casefold())
    stop_given = _stop_word_given_pair(first, second, common_words)  # "PER HANSEN", "WILL JENSEN"
    if not stop_given and not (
            (names.is_first(first) and names.is_last(second)) or (names.is_last(first) and names.is_first(second))
            or (names.is_first(first) and _unlisted_family(second, folded[1], common_words))):  # fmt: skip
        return False
    if not stop_given and any(word in _STOP_WORDS or word in _CALENDAR_WORDS or word in FIELD_WORDS
                              for word in folded):  # fmt: skip
        return False
    longest_unlisted = max((len(word) for word in folded if word not in common_words and word not in _dictionary()),
                           default=0)  # fmt: skip
    if min(len(first), len(second)) < _MIN_CAPITALS_LETTERS:
        return False  # codes ("RM HOME", "YY HK")
    if longest_unlisted < _MIN_UNLISTED_LETTERS and not (folded[0] in names.given and names.is_last(second)):
        return False  # words ("TOTAL DUE", "HOME CITY"), unless a common given name before a family name
        # ("CHRISTOPHER CHAMBERS": the dictionary holds both)
    suffixes, prefixes = _street_types()
    if folded[1] in suffixes or folded[0] in prefixes:
        return False  # a street named after a person ("AKINWALE STREET", "CALLE MARTINA")
    return " ".join(folded).translate(_APOSTROPHES) not in gazetteer()


def _unlisted_family(word: str, folded: str, common_words: frozenset[str]) -> bool:
    """Whether a word in capitals after a known first name may be a family name no list holds ("EMMA BONOLIS", "MAJD
    UBAIDAH"): of ``_MIN_UNLISTED_LETTERS`` + 1 letters or more, a vowel among them, no name the list knows and no word
    the dictionary or the NER model's vocabulary holds (a heading's "JULIA TUTORIAL", "EMMA RELEASE")."""
    return (len(word) > _MIN_UNLISTED_LETTERS and not known_names().is_name(word) and not is_vowelless(word)
            and folded not in common_words and folded not in _dictionary()
            and folded not in english_words().vocabulary)  # fmt: skip


_WORD_BEFORE = re.compile(r"([^\W\d_]+)\.?[ \t]+\Z")
_WORD_AFTER = re.compile(r"[ \t]+([^\W\d_]+)")


def _in_street_name(text: str, match: re.Match[str]) -> bool:
    """Whether a street type stands right before or after the pair: a street named after a person ("CALLE MARTINA
    FIGUEROA", "DÓZSA GYÖRGY ÚT")."""
    suffixes, prefixes = _street_types()
    before = _WORD_BEFORE.search(text, max(0, match.start() - 30), match.start())
    after = _WORD_AFTER.match(text, match.end())
    return ((before is not None and before.group(1).casefold() in prefixes)
            or (after is not None and after.group(1).casefold() in suffixes))  # fmt: skip


@functools.cache
def _street_types() -> tuple[frozenset[str], frozenset[str]]:
    """The street-type words written after a street's name and before it (``addresses.street_vocabulary``),
    case-folded."""
    vocabulary = street_vocabulary()
    return (frozenset(word.casefold().rstrip(".") for word in vocabulary.suffixes),
            frozenset(word.casefold().rstrip(".") for word in vocabulary.prefixes))  # fmt: skip


def _family_first(family: str, given: str, common_words: frozenset[str]) -> bool:
    """A known last name before a known first name, as Hungarian, Chinese and Japanese write a name ("Juhász Gábor",
    "Tanaka Hiroshi"): neither word an English dictionary, calendar or field word, and no place the gazetteer knows."""
    names = known_names()
    if not (names.is_last(family) and names.is_first(given)):
        return False
    folded = (family.casefold(), given.casefold())
    if any(word in common_words or word in _CALENDAR_WORDS or word in FIELD_WORDS for word in folded):
        return False
    return " ".join(folded).translate(_APOSTROPHES) not in gazetteer()



# A chat export's line: a clock time ("[10:42]", "10:42:07 -", "(9:05 PM)"), maybe after a date as exports write
# one ("[2025-08-28 13:11]", WhatsApp's "25/03/2025, 17:26 -"), the speaker's name, a colon.
_NAME_WORD = r"[^\W\d_]+(?:['’ʼ-][^\W\d_]+)*"
_CHAT_DATE = r"(?:\d{4}-\d{2}-\d{2}|\d{1,2}[./]\d{1,2}[./]\d{2,4}),?[ \t]+"
_SPEAKER = AtLineStarts(rf"(?m)^[ \t]*[\[(]?(?:{_CHAT_DATE})?\d{{1,2}}:\d{{2}}(?::\d{{2}})?(?:[ \t]*[AaPp][Mm])?[\])]?"
                      rf"[ \t]*[-–]?[ \t]*"
                      rf"({_NAME_WORD}(?:\.?[ ]{_NAME_WORD}){{0,3}})[ \t]*:(?!\d)")
SPEAKER_SCORE = 0.7


def speakers(text: str, common_words: frozenset[str], taken: Iterable[Finding]) -> list[Finding]:
    """The speakers of a chat export ("[10:42] Indrė Kazlauskienė: sounds good"), whatever their names: the line's
    shape is the cue. Not a bot or a role ("Bot", "System", "Support Agent"): a speaker all of whose words are
    English dictionary words or stop words is one only when one of them is a known first name ("Grace"); nor a
    relation or role an address book names ("Mum", "Hubby", "Work": ``not_names.RELATION_WORDS``)."""
    spans = [(f.start, f.end) for f in taken]
    found = []
    for match in _SPEAKER.finditer(text):
        start, end = match.span(1)
        words = _WORD.findall(match.group(1))
        folded = [word.casefold() for word in words]
        if any(start < other_end and other_start < end for other_start, other_end in spans):
            continue
        if any(word in FIELD_WORDS for word in folded) or not words[0][0].isupper():
            continue
        ordinary = all(word in common_words or word in _STOP_WORDS for word in folded)
        if ordinary and not any(known_names().is_first(word) for word in words):
            continue
        if all(word in RELATION_WORDS for word in folded):
            continue
        found.append(Finding("PERSON", start, end, SPEAKER_SCORE, "speakers"))
    return found


# Cyrillic and Greek letters: names-dataset lists names in Latin script only, and the English NER model rarely
# tags a name written in another script.
_OTHER_UPPER = "".join(re.escape(char) for char in map(chr, range(0x0370, 0x0530)) if char.isupper())
_OTHER_LOWER = "".join(re.escape(char) for char in map(chr, range(0x0370, 0x0530)) if char.islower())
_OTHER_SCRIPT = re.compile(rf"[{_OTHER_UPPER}{_OTHER_LOWER}]")
_OTHER_WORD = rf"[{_OTHER_UPPER}][{_OTHER_LOWER}]+(?:['’ʼ-][{_OTHER_UPPER}]?[{_OTHER_LOWER}]+)?"
_OTHER_SCRIPT_NAME = re.compile(rf"(?<![\w'’ʼ-]){_OTHER_WORD}(?:[ \t]+{_OTHER_WORD}){{1,2}}(?![\w'’ʼ-])")
_LATIN_LETTER = re.compile(r"[A-Za-z\u00C0-\u024F]")
OTHER_SCRIPT_SCORE = 0.6
# Typed in lower case ("just got off a call with трофим тетерин"), two or three Cyrillic or Greek words are a name
# when one of them (or a hyphenated part) ends as family names and patronymics of those scripts end: Russian,
# Bulgarian and Ukrainian -ов/-ев/-ин and their feminines, -ский/-ская/-ська/-ски/-ска, -ич, -вна, -енко, -ук/-юк,
# Armenian -ян, Georgian -дзе/-швили; Greek -ης, -ος, -ου, -ας (accents aside: -ίδης, -άκης, -όπουλος) and the
# feminine -η of a word of five letters or more ("χατζηφώτη", "παπαδάκη"; not "στη"). A phrase of the language
# itself rarely ends so ("спасибо большое").
_OTHER_LOWER_WORD = rf"[{_OTHER_LOWER}]{{2,}}(?:['’ʼ-][{_OTHER_LOWER}]{{2,}})?"
_OTHER_SCRIPT_LOWER_NAME = re.compile(rf"(?<![\w'’ʼ-]){_OTHER_LOWER_WORD}(?:[ \t]+{_OTHER_LOWER_WORD}){{1,2}}"
                                      rf"(?![\w'’ʼ-])")  # fmt: skip
# (matched accents aside: "-ский" is "-скии")
_OTHER_FAMILY_ENDING = re.compile(r"(?:ов|ова|ев|ева|ин|ина|ын|ына|скии|ская|ськии|ська|цкии|цкая|ски|ска|ич|вна|енко|"
                                  r"ук|юк|ян|дзе|швили|ης|ος|ου|ας|(?<=\w{4})η)\Z")  # fmt: skip
_OTHER_RUN = re.compile(rf"[{_OTHER_UPPER}{_OTHER_LOWER}]+")
MAX_OTHER_RUNS = 4  # a lower-case name's words, a hyphenated surname's parts among them; more is prose of the script


# Latin letters that English, French, Spanish, German, Italian and Portuguese prose does not write (ə, ı, ş, ğ, ð,
# þ, ł, ř, ő, ț, ơ, đ, ...): their words are names, or words of the languages that write them.
_COMMON_ACCENTED = set("àáâãäåçèéêëìíîïñòóôõöùúûüýÿæœß")
_RARE_LATIN = "".join(char for char in map(chr, range(0x00C0, 0x0250))
                      if char.isalpha() and char.lower() not in _COMMON_ACCENTED and char not in "×÷")  # fmt: skip
_RARE_LATIN_WORD = re.compile(f"[{re.escape(_RARE_LATIN)}]")
_RARE_LETTER_NAME = re.compile(rf"(?<![\w@.'’-])({_CAPITALISED})(?:[ \t]+([{UPPER_LETTERS}])\.)?[ \t]+({_CAPITALISED})"
                               rf"(?![\w@'’-])")
RARE_LETTER_SCORE = 0.6


def rare_letter_names(text: str, common_words: frozenset[str], taken: Iterable[Finding]) -> list[Finding]:
    """Two capitalised words (maybe an initial between) in a text of another language, one of them spelled with a
    Latin letter the six languages the gateway reads do not write ("Sveinfríður Arnúlfsdóttir", "İnarə Qənizadə",
    "Arnþóra P. Karimsdóttir"): a proper name the name list does not hold, most often a person's. No word may be a
    stop word, an English dictionary word, a calendar word or a field word; places the gazetteer knows are taken
    before ("Łódź Fabryczna")."""
    if _RARE_LATIN_WORD.search(text) is None:
        return []
    spans = [(f.start, f.end) for f in taken]
    found = []
    for match in _RARE_LETTER_NAME.finditer(text):
        first, last = match.group(1), match.group(3)
        if not (_RARE_LATIN_WORD.search(first) or _RARE_LATIN_WORD.search(last)):
            continue
        if any(word.casefold() in _STOP_WORDS or word.casefold() in common_words or word.casefold() in _CALENDAR_WORDS
               or word.casefold() in FIELD_WORDS for word in (first, last)):  # fmt: skip
            continue
        if holds_unnamed_word(match.group()):
            continue  # ordinary words of some language (``ordinary_phrases``): "Szanowni Państwo", "Dział Kadr"
        if any(start < match.end() and match.start() < end for start, end in spans):
            continue
        found.append(Finding("PERSON", match.start(), match.end(), RARE_LETTER_SCORE, "rare_letter_names"))
        spans.append(match.span())
    return found


def other_script_names(text: str, taken: Iterable[Finding]) -> list[Finding]:
    """Two or three capitalised Cyrillic or Greek words in a row ("Сніжана Гречко-Жук", "Γιώργος Παπαδόπουλος")
    in a text written mostly in Latin script: a proper name, most often a person's; in a text typed in lower case
    whose only Cyrillic or Greek words they are, two or three lower-case ones of which one ends as a family name
    does (``_OTHER_FAMILY_ENDING``: "наум исаев", "φρίξος μιχαηλίδης") or that follow a word a person follows in chat
    (``chat_names.follows_people_word``: "on a call w леонтій шаповал"). In a text written in that script itself,
    capitalised word pairs open sentences and name things; those are left to the other rules."""
    if _OTHER_SCRIPT.search(text) is None:
        return []
    latin = len(_LATIN_LETTER.findall(text))
    spans = [(f.start, f.end) for f in taken]
    found = []
    if latin > len(_OTHER_SCRIPT.findall(text)):
        found = [Finding("PERSON", match.start(), match.end(), OTHER_SCRIPT_SCORE, "other_script_names")
                 for match in _OTHER_SCRIPT_NAME.finditer(text)
                 if not any(start < match.end() and match.start() < end for start, end in spans)]  # fmt: skip
    # A chat line in Latin script whose only Cyrillic or Greek words are the name's ("also φρίξος μιχαηλίδης").
    if latin and len(_OTHER_RUN.findall(text)) <= MAX_OTHER_RUNS and typed_in_lower_case(text):
        found.extend(Finding("PERSON", match.start(), match.end(), OTHER_SCRIPT_SCORE, "other_script_names")
                     for match in _OTHER_SCRIPT_LOWER_NAME.finditer(text)
                     if (any(_OTHER_FAMILY_ENDING.search(_unaccented(part))
                             for part in re.split(r"[ \t'’ʼ-]+", match.group()))
                         or follows_people_word(text, match.start()))
                     and not any(start < match.end() and match.start() < end for start, end in spans))  # fmt: skip
    return found


def _unaccented(word: str) -> str:
    """`word` without its combining accents ("μιχαηλίδης" -> "μιχαηλιδης", "тихий" -> "тихии")."""
    return "".join(char for char in unicodedata.normalize("NFD", word) if not unicodedata.combining(char))


# A clause's subject: a capitalised word before a lower-case word that may be its verb. The pattern opens with the
# capital (what the engine skips to); whether a clause opens before it (``_opens_clause``) is read after a match.
_SUBJECT = re.compile(rf"(?P<name>{_CAPITALISED})[ \t]+(?P<verb>[{LOWER_LETTERS}]+)(?:-[{LOWER_LETTERS}]+)?(?![\w'’@])")
_CONJUNCTIONS = frozenset({"and", "y", "e", "et", "und"})
_ARTICLES = frozenset({"A", "O"})  # Portuguese: "A Bianca esperava-nos"
SUBJECT_SCORE = 0.6
# English auxiliaries and modals: finite before a bare verb or a participle ("Kamil will read", "Abiye has agreed").
_AUXILIARIES = frozenset({"will", "would", "can", "could", "should", "shall", "must", "might", "has", "had", "is",
                          "was", "does", "did", "wants", "needs"})  # fmt: skip
# Romance imperfects and preterites by their regular endings (Spanish -aba/-ía/-ó, Portuguese and Italian
# -ava/-eva/-iva, Portuguese -ou, French -ait), and the irregular imperfects of "to be" and "to go" ("era", "iba").
_ROMANCE_FINITE = re.compile(r"(?:aba|ía|ó|ava|eva|iva|ou|ait)\Z")
_SIBILANTS = ("s", "x", "z", "ch", "sh")  # "es" -> "" only after these ("fixes", "pushes"; not "interes")
_ROMANCE_IRREGULAR = frozenset({"era", "iba", "estaba", "fue", "foi"})
_MIN_ROMANCE_VERB = 4
# German and Dutch finite verbs: weak pasts by their endings ("machte", "wartete", "wachtte"; not a Romance
# adjective's or participle's "-ante", "-ente", "-ende": "grande", "presente"), and the irregular pasts and presents
# of the auxiliaries, modals and verbs of going and coming ("hatte", "war", "heeft", "kwam", "kommt").
_GERMANIC_PAST = re.compile(r"(?<![aei]n)(?:te|de|ten|den)\Z")
_GERMANIC_IRREGULAR = frozenset({"hatte", "hat", "war", "ist", "wird", "wurde", "kam", "ging", "kommt", "geht", "muss",
                                 "kann", "will", "soll", "heeft", "wordt", "werd", "kwam", "gaat", "komt", "zou",
                                 "moet", "kan", "wil", "zal"})  # fmt: skip
_MIN_GERMANIC_PAST = 6  # "wartete", "machte", "wachtte"; not "leite" ("Bitte leite das an ... weiter": imperative)


@functools.cache
def _english_verb_forms() -> tuple[frozenset[str], tuple[tuple[str, str], ...], frozenset[str]]:
    """The English NER model's lemmatizer tables for verbs: irregular forms ("told", "wrote"), the suffix rules of
    regular ones ("ed" -> "", "ies" -> "y") and the lemmas (``places.english_words().verbs``)."""
    english = english_words()
    # Not a form another language's stop word spells ("am": German "Geboren am 21.10.1954").
    other = frozenset(word.casefold() for words in (FR, ES, DE, IT, PT) for word in words) - _AUXILIARIES
    irregular = frozenset(form for form in english.verb_exceptions if not form.endswith("ing") and form not in other)
    rules = tuple((old, new) for old, new in english.verb_rules if old != "ing")
    return irregular, rules, english.verbs


def _english_finite(word: str) -> bool:
    """Whether a lower-case word reads as a finite English verb: an auxiliary, an irregular past ("told"), or a
    regular past or third person ("rolled", "reports") of a verb the lemmatizer knows. Not a gerund."""
    if word in _AUXILIARIES:
        return True
    irregular, rules, lemmas = _english_verb_forms()
    if word in irregular:
        return True
    if not (word.endswith("ed") or word.endswith("s")):
        return False
    for old, new in rules:
        stem = word[: len(word) - len(old)]
        if word.endswith(old) and stem + new in lemmas and (old != "es" or new or stem.endswith(_SIBILANTS)):
            return True
    return False


def _people_words(text: str, taken: list[Finding]) -> set[str]:
    """The words of the persons of two words or more in `taken`."""
    words: set[str] = set()
    for finding in taken:
        if finding.entity_type == "PERSON" and len(found := _WORD.findall(text[finding.start : finding.end])) > 1:
            words.update(found)
    return words


def _word_before(text: str, start: int) -> str:
    """The one-letter word right before `start` past one space ("A" of "A Bianca"), or ""."""
    return text[start - 2] if start >= 2 and text[start - 1] == " " and (start < 3 or not text[start - 3].isalnum()) \
        else ""  # fmt: skip


def _opens_clause(text: str, start: int) -> bool:
    """Whether a clause opens at `start`: the text's or a line's start, or spaces after a sentence's end, a colon or
    a semicolon (not an initial's period: "P. Pereira"), or after a comma and a conjunction ("..., y Isidora")."""
    index = start
    while index > 0 and text[index - 1] in " \t":
        index -= 1
    if index == 0 or text[index - 1] in "\n\r":
        return True
    mark = text[index - 1]
    if mark in ".!?;:":
        return index < start and not (mark == "." and _after_initial(text, index - 1))
    word_start = index
    while word_start > 0 and text[word_start - 1].isalpha():
        word_start -= 1
    if index == start or text[word_start:index] not in _CONJUNCTIONS:
        return False
    before = word_start
    while before > 0 and text[before - 1] in " \t":
        before -= 1
    return before < word_start and before > 0 and text[before - 1] == ","


def _after_initial(text: str, period: int) -> bool:
    """Whether the period at `period` ends an initial: one capital letter after no letter ("P.", "K.")."""
    return period > 0 and text[period - 1].isupper() and (period < 2 or not text[period - 2].isalpha())


@functools.cache
def _sorted_vocabulary() -> tuple[str, ...]:
    return tuple(sorted(english_words().vocabulary))


def _english_form(folded: str) -> bool:
    """Whether a word no list holds is an English word still: an inflection of a lemma the lemmatizer knows
    ("kindest", "configs"), or the start of a longer word of the NER model's vocabulary, as code and chat cut words
    short ("config", "auth", "repo")."""
    _, rules, lemmas = _english_verb_forms()
    dictionary = _dictionary()
    for old, new in (*rules, ("est", ""), ("est", "e"), ("er", ""), ("er", "e"), ("iest", "y"), ("ier", "y")):
        lemma = folded[: len(folded) - len(old)] + new
        if folded.endswith(old) and (lemma in dictionary or lemma in lemmas):
            return True
    vocabulary = _sorted_vocabulary()
    at = bisect.bisect_right(vocabulary, folded)
    return at < len(vocabulary) and vocabulary[at].startswith(folded)


def _romance_finite(word: str) -> bool:
    return word in _ROMANCE_IRREGULAR or (len(word) >= _MIN_ROMANCE_VERB and _ROMANCE_FINITE.search(word) is not None)


def _germanic_finite(word: str) -> bool:
    return word in _GERMANIC_IRREGULAR or (len(word) >= _MIN_GERMANIC_PAST and _GERMANIC_PAST.search(word) is not None)


def _weak_place(finding: Finding) -> bool:
    """A place a NER model read, or one the gazetteer found with no location word before it: a person's name read
    as a town's ("Abiye", "Kamil") gives way to a person a clause's verb makes of it."""
    return finding.entity_type == "LOCATION" and (finding.source in (NER_SOURCE, CONTINENTAL_NER_SOURCE)
                                                  or (finding.source == "PlaceRecognizer"
                                                      and finding.score == PLACE_SCORE))  # fmt: skip


def subject_names(text: str, common_words: frozenset[str], taken: Iterable[Finding]) -> list[Finding]:
    """A given name alone as a clause's subject, right before its verb: "Prakosa rolled back the deploy", "Сања
    rolled back", "Abiye reports better sleep", "Amado conducía, y Isidora iba durmiendo", "A Bianca esperava-nos".
    The word opens a clause and no stop word, calendar, field or cue word, and either
    - an English finite verb follows (``_english_finite``) and the word is a known first name or a word neither the
      English NER model's vocabulary, its dictionary nor the gazetteer holds (a name no list holds: "Prakosa",
      "Τιμολέων"), or a word of a person of two words or more found in the text ("Sathvik Handa ... Handa told
      reporters"); or
    - a Romance imperfect or preterite (``_romance_finite``), or a German or Dutch weak past or irregular finite
      verb (``_germanic_finite``: "Jürgen hatte", "Jürgen wartete", "Anouk heeft ... gebeld") follows and the
      word is a known first name no English dictionary word.
    A place a NER model read there, or the gazetteer with no location word before it, gives way (``_weak_place``)."""
    taken = list(taken)
    names = known_names()
    vocabulary = english_words().vocabulary
    people_words: set[str] | None = None
    found: list[Finding] = []
    for match in _SUBJECT.finditer(text):
        name, verb = match.group("name"), match.group("verb")
        start, end = match.span("name")
        folded = name.casefold()
        if folded in _STOP_WORDS or folded in _NOT_GIVEN_NAMES or folded in CUE_WORDS or len(name) < 3:
            continue
        article = _word_before(text, start) in _ARTICLES
        if not _opens_clause(text, start - 2 if article else start):
            continue
        known_first = names.is_first(name) and folded not in common_words
        if not article and _english_finite(verb):
            unknown = (folded not in vocabulary and folded not in common_words and folded not in gazetteer()
                       and not _english_form(folded))  # fmt: skip
            if not ((known_first and folded not in vocabulary) or unknown):
                if people_words is None:
                    people_words = _people_words(text, taken)
                if name not in people_words:
                    continue
        elif not (known_first and (_romance_finite(verb) or _germanic_finite(verb))):
            continue
        if any(f.start < end and start < f.end and not _weak_place(f) for f in taken):
            continue
        found.append(Finding("PERSON", start, end, SUBJECT_SCORE, SUBJECT_SOURCE))
    return found
