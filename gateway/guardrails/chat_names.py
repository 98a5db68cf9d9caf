"""PERSON from how chat addresses or talks about someone by a given name typed in lower case, with no cue word.

Chat typed in lower case names people with nothing around them a cue list could hold: "got it, fiona", "sure.
yusuf. for real", "lol brenda 😂", "pues rodrigo y nada más", "dmitri was late again", "i guess svetlana left". The
name list (``person_names``) holds tens of thousands of first names, many of them words of some language ("coffee",
"mic", "bon", "matin", "jeton"), so a word it holds is no name by itself. Here a word is one when:

- it is a common given name: among the ``person_names.GIVEN_NAMES_PER_GENDER`` most frequent first names of a gender
  in some country (names-dataset's ranks, the snapshot's ``given``), of four letters or more, in lower case;
- no stop word of the languages read, no calendar or field word, no place the places read in lower case
  (``places.LOWERCASE_MIN_POPULATION``: "georgia"), no laugh written as a repeated syllable ("jaja",
  "haha"), and no English dictionary word, unless the dictionary holds it as a noun alone and it is a common given
  name of the English-speaking countries too (the snapshot's ``given_english``: "karen", "shannon"; not "coffee",
  "juice") or a noun WordNet writes capitalised only that names no town of ``places.SMALL_TOWN_POPULATION`` or more
  (``proper_nouns``: "samuel", "esther"; not "enid", Oklahoma's);
- or it is a rarer first name names-dataset lists that no English dictionary or the NER model's vocabulary, no
  frequent word of the languages chat is written in (``frequent_words``) and no place spells ("olegario",
  "giulietta"), where a context below names a person, never alone in its segment (Swahili's "sawa", "ok");
- it stands where a person is addressed or talked about, in its segment of the message (a line without a chat
  speaker's prefix, cut at sentence marks, commas, semicolons and " / "):
  - the segment's other words are only function words, adverbs and chat's own short words ("ok so vanessa then",
    "hmm natasha maybe", "sure. yusuf. for real", "got it, fiona", "pues rodrigo y nada más", "brenda mdr"): the
    name is all the segment says;
  - a verb follows it as its subject ("dmitri was late again", "patricia fixed the flaky test", "i guess svetlana
    left early", "alors mathilde est partie"), the word before it no article or possessive ("the mic is broken"
    names a thing); or
  - a verb follows it before a clause's opening word ("antonio dice que ...", "esther dit qu'elle ..."), or a
    negation particle ("inga nie chciała", "marc ne vient pas"), or an elided French object pronoun ("martin m'a
    dit"), or a relative pronoun that stands for a person ("c'est emma qui gère"); a common given name stands
    between a question's auxiliary and its verb ("did attila reply yet");
  - it is the object of a verb or of a preposition of people right before it ("saw estelle at the gym", "wait
    alexandra or the other one", "coffee with pauline", "meeting w/ ana", "diz à erica", "zeg tegen maria", the
    Romance personal "a" or German's "an" after a word English does not write: "dile a vicenta", "schick das an
    lea"), or follows a greeting or thanks ("hi graham", "cześć joanna", "thanks jonas"); after a preposition of
    people English does not write, a common given name English holds as a noun only counts too ("se lo mandé a
    alexia", "demander à lucas");
  - it is a chat line's speaker label ("marta: omw"), a common given name, not a role ("agent:", "mam:").

A known surname, a word no dictionary holds, or a proper noun of WordNet that is no frequent word ("lisa parrish"),
right after the given name belongs to the name ("monika kowalczyk lol"), and so do a family name's particles before a
known surname ("rosa van der ploeg"). A name before "and i" is a subject too ("daksh bassi and i are doing the demo").
Before a family name (a known last name, or a word ending as family names do: ``surnames``), a first name
need not be a common one: one names-dataset knows that no dictionary word spells but as a noun, or a word no list,
vocabulary nor gazetteer holds ("maftuna solihayeva left already", "artawan damanik wants the slides"); that last
one alone in its segment only before a family name that is no given name ("nirja banerjee"; "nimefika salama" is
Swahili, "salama" a given name too). Two words no frequent-word list holds, one of them a name names-dataset knows or
written with a letter English does not write, are a name where a verb or a preposition of people says so
("forwarding to aahil wahhaaj", "envoie ça à jakobs avotiņš"; not "switch to pytest xdist"); two in ASCII that no
list knows only where nothing but a person stands ("moradeke olubode and i will handle it"), or where a verb or a
preposition of people says so when the second is two such parts joined by a hyphen, a double-barrelled family name
("coffee with tumaini odera-achieng"; not a tool and its plugin, "pytest pytest-xdist"). A common given name
of the English-speaking countries that is a stop word of one other language read and no English one ("dan", Spanish;
"sara", Italian; ``foreign_stop_given_names``) is a first name there too, before a family name. Where a verb
follows a common given name's next word as their subject, that word is its family name even where the surname reader
leaves it: a double-barrelled one of dictionary words ("dylan marsh-hunt is running late") or a known last name the
dictionary holds as an adjective ("akwasi omani is the best manager").
A common given name joined by a conjunction ("and", "und", "y", "et", "e", "&") to a person found in lower-case text
is a person too ("we met marissa and lyna", "wir haben daniele und zahide": ``joined_names``).
A word another detector took (a place, an address) is left to it, and a name read with a calendar or field word
for its family name is a label ("test data ip: ..."), no name.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

from spacy.lang.en.stop_words import STOP_WORDS as ENGLISH_STOP_WORDS

from gateway.guardrails.common_nouns import language_stop_words
from gateway.guardrails.findings import Finding
from gateway.guardrails.frequent_words import frequent_in_any
from gateway.guardrails.name_cues import is_vowelless
from gateway.guardrails.person_names import known_names
from gateway.guardrails.place_stop_words import place_given_names
from gateway.guardrails.places import (
    LOWERCASE_MIN_POPULATION,
    REGION,
    SMALL_TOWN_POPULATION,
    EnglishWords,
    english_and_stop_words,
    english_words,
    gazetteer,
)
from gateway.guardrails.proper_nouns import proper_nouns
from gateway.guardrails.surnames import has_surname_ending

ADDRESSED_SCORE = 0.6
MIN_LETTERS = 4
MAX_SURNAME_WORDS = 2
MAX_CHAT_WORD_LETTERS = 3  # chat's own words: "lol", "mdr", "omg", "ok"
MIN_PAIR_LETTERS = 3  # a first name before a family name: "tao ding" (not "li", "al")

# A word of a name in lower-case chat, not glued to a handle, an address, a path or a code ("vlad_", "a@b", "x/y").
_WORD = re.compile(r"(?<![\w@#/'’.:=+-])[^\W\d_]+(?:['’-][^\W\d_]+)*(?![\w@/'’+=:-])")
_GLUED = "@#/'’.:=+-_<>\"\\"
_GLUED_BEFORE_A_CHARACTER = ".:-"  # "x.org", "k:v", "a-b"; a sentence's full stop or a colon before a space is none


def _glued(text: str, start: int, end: int) -> bool:
    """Whether the word at [start, end) is glued to what stands around it by a character of an address, a handle,
    a key or a path."""
    before = text[start - 1 : start]
    after = text[end : end + 1]
    if before and before in _GLUED:
        return True
    if not after or after not in _GLUED:
        return False
    return after not in _GLUED_BEFORE_A_CHARACTER or text[end + 1 : end + 2].isalnum()


_ANY_WORD = re.compile(r"[^\W_]+(?:['’-][^\W_]+)*")
# What cuts a message into segments: a sentence's end (not a middle initial's period), a comma, a semicolon, a " / "
# or " - " between chat lines.
_SEGMENT_END = re.compile(r"[.!?…]+(?<!\b[^\W\d_]\.)(?=\s|\Z)|[,;:()]|[ \t]+[/|–—-][ \t]+|\n")
# A chat line's speaker or quote prefix: "<op> ", "[17:22] them: ", "agent: ", "> ", "- ".
_SPEAKER_PREFIX = re.compile(r"[ \t]*(?:(?:[>*•-]+|<[^<>\s]{1,24}>|\[[^\[\]\n]{1,24}\])[ \t]*)*"
                             r"(?:(?P<speaker>[^\s:<>\[\]]{1,24}):[ \t]+)?")  # fmt: skip
_GAP = re.compile(r"[ \t]+")
# A middle initial between a first name and a family name ("qaseem d. zaafir", "dórothea p. vífillsdóttir").
_MIDDLE_INITIAL = re.compile(r"[ \t]+[^\W\d_]\.(?=[ \t])")
_REPEATED_SYLLABLE = re.compile(r"(..?)\1+")
# Words before a name that make it a thing's: an article, a possessive, a preposition of a thing ("the mic is ...").
_THING_BEFORE = frozenset({"the", "a", "an", "my", "your", "his", "her", "its", "our", "their", "this", "that",
                           "these", "those", "of", "le", "la", "les", "un", "une", "el", "los", "las", "der", "die",
                           "das", "ein", "eine", "mon", "ma", "mein", "meine", "mi", "su"})  # fmt: skip
# Verbs after a subject that are function words: English auxiliaries and the adverbs that stand between a subject
# and its verb, and their French, Spanish and German counterparts.
_AUXILIARIES = frozenset({"is", "was", "has", "had", "will", "can", "could", "would", "should", "did", "does",
                          "just", "already", "never", "always", "still", "isn't", "wasn't", "hasn't", "won't",
                          "can't", "didn't", "doesn't", "a", "est", "était", "va", "sera", "ist", "hat", "war",
                          "wird", "kann", "está", "fue", "ha", "ya", "no",
                          # the negation particles a subject stands before ("inga nie chciała", "marc ne vient pas")
                          "ne", "non", "não", "nicht", "niet", "nie"})  # fmt: skip
# Words that open a clause a verb of saying or thinking takes, one word after its subject ("antonio dice que ...",
# "esther dit qu'elle ...", "riccardo dice che ...", "jonas sagt dass ...", "fenne zegt dat ...", "ola mówi że ...").
# The particles family names hold before or inside them ("van der ploeg", "huigín-ó frithile", "da costa"): a
# family name follows them, no frequent word of a language ("di chiamare la nonna").
_PARTICLES = frozenset({"van", "der", "den", "ter", "ten", "de", "del", "della", "di", "da", "do", "dos", "das", "du",
                        "la", "le", "von", "zu", "ó", "ní", "bin", "binti", "ibn", "al", "el"})  # fmt: skip
MAX_PARTICLES = 2
_FIRST_PERSON = frozenset({"i", "me"})
_COMPLEMENTIZERS = frozenset({"que", "qu", "che", "dass", "dat", "że"})
# French object pronouns elided before the verb a subject stands before ("martin m'a dit", "lea s'est trompée", "paul
# l'a vu", "zoé n'a pas répondu"): the verb after the apostrophe is the one read.
_ELIDED_PRONOUNS = frozenset({"m", "t", "s", "l", "n"})
# Relative pronouns that stand for a person only ("c'est emma qui gère le dossier", "ask tomás who knows"), not
# "que", "che" or "that", which stand for anything.
_PERSON_RELATIVES = frozenset({"who", "whom", "qui", "quien", "quienes", "quem", "chi"})
# English auxiliaries a question puts before its subject, whose verb then follows the subject ("did attila reply
# yet", "has natalia signed it", "can dita check", "is maria coming").
_QUESTION_AUXILIARIES = frozenset({"did", "does", "do", "has", "have", "had", "is", "was", "will", "would", "can",
                                   "could", "should", "shall"})  # fmt: skip
# Greetings, thanks and farewells that address the person named right after them ("hi graham", "thanks jonas",
# "cześć apolonia"), in the languages chat is mostly written in.
_GREETINGS = frozenset({"hi", "hey", "hello", "hiya", "yo", "thanks", "thx", "ty", "cheers", "bye", "morning",
                        "salut", "coucou", "bonjour", "bonsoir", "merci", "hola", "gracias", "adiós", "hallo", "moin",
                        "servus", "danke", "tschüss", "ciao", "grazie", "olá", "oi", "obrigado", "obrigada", "hoi",
                        "doei", "bedankt", "dank", "cześć", "hej", "dzięki", "dziękuję"})  # fmt: skip
# Prepositions a person follows in chat ("coffee with pauline", "waiting on samarth", "a call with purity"), in the
# languages read.
_PEOPLE_PREPOSITIONS = frozenset({"with", "to", "for", "from", "about", "on", "by", "avec", "pour", "con", "para",
                                  "mit", "für", "von", "met", "voor", "com", "per", "à", "tegen", "aan"})  # fmt: skip
# Romance languages mark a person as a verb's object with "a" ("dile a vicenta", "di a antonio", "diz a erica"), and
# German sends a thing to a person with "an" ("schick das bitte an karlukhan sezer"), which English writes as its
# articles: they count after a word of no English dictionary only.
_PERSONAL_ARTICLES = frozenset({"a", "an"})
# Function words of the other languages chat is often written in, for reading what says nothing in a segment.
_OTHER_STOP_WORDS = language_stop_words()["pl"] | language_stop_words()["nl"]


@functools.cache
def _verb_forms() -> frozenset[str]:
    """English verb forms a subject stands before: third person singular and past forms of the English NER model's
    verbs (its lemma index), regular ones ("fixed", "wants") and irregular ones (its exceptions table: "left",
    "said", "broke")."""
    verbs = english_words().verbs
    forms = {f"{verb}s" for verb in verbs} | {f"{verb}es" for verb in verbs}
    forms |= {f"{verb}ed" for verb in verbs} | {f"{verb}d" for verb in verbs if verb.endswith("e")}
    forms |= {f"{verb[:-1]}ies" for verb in verbs if verb.endswith("y")}
    forms |= {f"{verb[:-1]}ied" for verb in verbs if verb.endswith("y")}
    forms |= english_words().verb_exceptions  # its exceptions table: "left", "said", "broke"
    return frozenset(forms)


@functools.cache
def _verbs_and_nouns() -> frozenset[str]:
    """The English dictionary's verbs and nouns, one set (read per word: a union of some 100,000 words each time)."""
    english = english_words()
    return english.verbs | english.nouns


def _is_filler(word: str, stop_words: frozenset[str]) -> bool:
    """A word that says nothing of its own in a chat segment: a function word of the languages read, an English
    adverb or adjective, a laugh ("jaja"), or one of chat's short words ("lol", "hmm", "tbh", "ok")."""
    folded = word.casefold()
    base = re.split(r"['’]", folded)[0]
    if any(char.isdigit() for char in folded):
        return False  # a number, a code, a version
    if folded in stop_words or base in ENGLISH_STOP_WORDS or folded in _OTHER_STOP_WORDS:
        return True
    if "-" in folded and all(part in stop_words for part in folded.split("-")):
        return True  # "peut-être"
    if folded in english_words().modifiers or (len(folded) >= MIN_LETTERS and _REPEATED_SYLLABLE.fullmatch(folded)):
        return True  # an adverb, an adjective, a laugh ("haha", "jaja"; not "rr")
    if is_vowelless(folded):
        return len(folded) >= MAX_CHAT_WORD_LETTERS  # "hmm", "tbh", "pls"; not an abbreviation's "rr", "nr"
    return len(folded) > 1 and folded.isascii() and folded.isalpha() and len(folded) <= MAX_CHAT_WORD_LETTERS \
        and folded not in english_words().nouns and folded not in english_words().verbs  # fmt: skip


def _large_place(word: str) -> bool:
    """Whether a lower-case word is a country's, a state's or a city's name of ``places.LOWERCASE_MIN_POPULATION`` or
    more ("georgia", "dallas"), but a city's that is a common given name where English is written
    (``place_stop_words.place_given_names``) and that English text seldom writes (no word of the NER model's
    vocabulary: "sophia", "adan"; not "charlotte", "austin")."""
    population = gazetteer().get(word, 0)
    if population < LOWERCASE_MIN_POPULATION:
        return False
    return population >= REGION or word not in place_given_names() or word in english_words().vocabulary


def _is_given_name(word: str, stop_words: frozenset[str], common_words: frozenset[str], banned: frozenset[str]) -> bool:
    """Whether a lower-case word is a common given name no ordinary word spells (see the module's docstring)."""
    if len(word) < MIN_LETTERS or not word.islower() or word in stop_words or word in banned:
        return False
    names = known_names()
    if _REPEATED_SYLLABLE.fullmatch(word):
        return False
    if word not in names.given:
        return _rare_given_name(word, common_words)
    if _large_place(word):
        return False  # a country's, a state's or a large city's name, which the places read in lower case ("nebraska")
    if word not in common_words:
        return True
    english = english_words()
    if word in english.verbs or word in english.modifiers:
        return False
    return word in names.given_english or (word in proper_nouns()
                                           and gazetteer().get(word, 0) < SMALL_TOWN_POPULATION)  # fmt: skip


def _rare_given_name(word: str, common_words: frozenset[str]) -> bool:
    """Whether a lower-case word is a first name names-dataset lists outside the common given names that no word of
    the languages chat is mostly written in spells: no English dictionary word nor one of the NER model's vocabulary,
    no frequent word of a language of ``frequent_words`` (wordfreq's), no place the gazetteer knows ("olegario",
    "apolonia", "giulietta")."""
    return (word in known_names().first and word not in common_words and word not in english_words().vocabulary
            and word not in frequent_in_any() and word not in gazetteer())  # fmt: skip


def _surname_words(text: str, end: int, stop: int, stop_words: frozenset[str], common_words: frozenset[str],
                   particles_allowed: bool = False) -> int:  # fmt: skip
    """Where the name that ends at `end` ends with the surname after it: known last names that are no English verb,
    adjective or adverb (a noun may be one: WordNet holds "baker"), or words no dictionary holds (nor a stop
    word, nor a place the gazetteer knows), up to ``MAX_SURNAME_WORDS``; `end` when none follows. With
    `particles_allowed` (after a common given name), a family name's particles before a surname belong to it ("rosa
    van der ploeg"; a dictionary noun the name list holds would make a name of a phrase: "data de nascimento")."""
    names = known_names()
    english = english_words()
    position = end
    for _ in range(MAX_SURNAME_WORDS):
        word = _next_word(text, position, stop)
        particles = 0
        while particles_allowed and word is not None and word.group() in _PARTICLES and particles < MAX_PARTICLES:
            word, particles = _next_word(text, word.end(), stop), particles + 1  # "rosa van der ploeg"
        if word is None or not word.group().islower() or _glued(text, word.start(), word.end()):
            break
        parts = word.group().split("-")
        if particles and any(part in frequent_in_any() and not names.is_last(part) for part in parts):
            break  # particles before a family name ("van der ploeg"), not a phrase of the language ("di chiamare")
        if all(part in _PARTICLES for part in parts) or not all(
                part in _PARTICLES or _surname_part(part, stop_words, common_words, names.is_last(part), english,
                                                    gazetteer()) for part in parts):  # fmt: skip
            break
        position = word.end()
    return position


def _proper_family_name(part: str) -> bool:
    """Whether a lower-case word may be a family name the dictionary holds as a proper noun only ("parrish",
    "thorpe"): one ``proper_nouns`` holds, of four letters or more ("ur", a city, is chat's "your"), that is no
    frequent word of a language of ``frequent_words``."""
    return len(part) >= MIN_LETTERS and part in proper_nouns() and part not in frequent_in_any()


def _next_word(text: str, position: int, stop: int) -> re.Match[str] | None:
    """The word of a name right after `position` past spaces or tabs, if any."""
    gap = _GAP.match(text, position, stop)
    return None if gap is None else _WORD.match(text, gap.end(), stop)


def _surname_part(part: str, stop_words: frozenset[str], common_words: frozenset[str], known: bool,
                  english: EnglishWords, places: dict[str, int]) -> bool:  # fmt: skip
    if part in stop_words or part in english.verbs or part in english.modifiers:
        return False
    if places.get(part, 0) >= LOWERCASE_MIN_POPULATION:
        return False  # a large city's name ("sana", Yemen's capital, in "asante sana": Swahili thanks)
    if known:
        return True
    if _proper_family_name(part) and part not in english.vocabulary and part not in places:
        return True  # a family name WordNet holds as a person's only ("lisa parrish": Maxfield Parrish)
    plural = part.endswith("s") and part[:-1] in common_words  # "vibes", "thanks"
    return (len(part) >= MIN_LETTERS and part not in common_words and not plural and part not in english.vocabulary
            and not is_vowelless(part) and part not in places)  # fmt: skip


def addressed_names(
    text: str,
    regions: list[tuple[int, int]],
    stop_words: frozenset[str],
    common_words: frozenset[str],
    banned: frozenset[str],
    taken: Iterable[Finding],
    *,
    listed_only: bool = False,
) -> list[Finding]:
    """PERSON spans of given names chat addresses or talks about (see the module's docstring) in the lower-case
    `regions` of `text`, that no finding in `taken` overlaps. `banned` holds calendar and field words. With
    `listed_only` (lines typed in lower case in a text with capitals), a first name must be one names-dataset knows."""
    spans = [(f.start, f.end) for f in taken]
    found: list[Finding] = []
    for begin, stop in regions:
        line_start = begin
        while line_start < stop:
            line_end = text.find("\n", line_start, stop)
            line_end = stop if line_end < 0 else line_end
            prefix = _SPEAKER_PREFIX.match(text, line_start, line_end)
            message_start = line_start if prefix is None else prefix.end()
            if prefix is not None and prefix.group("speaker") is not None:
                _speaker(text, prefix.span("speaker"), stop_words, common_words, banned, spans, found)
            _in_line(text, message_start, line_end, stop_words, common_words, banned, spans, found, listed_only)
            line_start = line_end + 1
    return found


def _speaker(text: str, span: tuple[int, int], stop_words: frozenset[str], common_words: frozenset[str],
             banned: frozenset[str], spans: list[tuple[int, int]], found: list[Finding]) -> None:  # fmt: skip
    """A chat line's speaker label that is a common given name ("marta: ok omw"), not a role ("agent:", "mam:")."""
    start, end = span
    if not _WORD.fullmatch(text, start, end) or not _is_given_name(text[start:end], stop_words, common_words, banned):
        return
    if any(s < end and start < e for s, e in spans):
        return
    found.append(Finding("PERSON", start, end, ADDRESSED_SCORE, "addressed_names"))
    spans.append(span)


def _in_line(text: str, start: int, end: int, stop_words: frozenset[str], common_words: frozenset[str],
             banned: frozenset[str], spans: list[tuple[int, int]], found: list[Finding],
             listed_only: bool = False) -> None:  # fmt: skip
    segment_start = start
    for cut in [*_SEGMENT_END.finditer(text, start, end), None]:
        segment_end = end if cut is None else cut.start()
        _in_segment(text, segment_start, segment_end, stop_words, common_words, banned, spans, found, listed_only)
        if cut is not None:
            segment_start = cut.end()


def _subject_before(before: list[re.Match[str]], after: list[re.Match[str]], *, common: bool = False) -> bool:
    """Whether a name with the words `before` it stands as the subject of the verb right `after` it: an English verb
    form or an auxiliary, or any word before a clause's opening word ("antonio dice que", "esther dit qu'elle"), a
    French object pronoun elided before the verb ("martin m'a dit"), or a relative pronoun that stands for a person
    ("c'est emma qui gère"); a `common` given name also between a question's auxiliary and its verb ("did attila reply
    yet": a rarer one is as often a tool's name, "will redis restart")."""
    if not after or (before and before[-1].group().casefold() in _THING_BEFORE):
        return False  # "the mic is broken"
    following = after[0].group().casefold()
    pronoun, _, verb = following.replace("’", "'").partition("'")
    if verb and pronoun in _ELIDED_PRONOUNS:
        following = verb  # "m'a", "s'est", "l'a"
    if following in _AUXILIARIES or following in _verb_forms() or following in _PERSON_RELATIVES:
        return True
    if common and before and before[-1].group().casefold() in _QUESTION_AUXILIARIES and _bare_or_participle(following):
        return True  # "did attila reply yet", "is maria coming"
    if following == "and" and len(after) > 1 and after[1].group().casefold() in _FIRST_PERSON:
        return True  # one of two subjects: "daksh bassi and i are doing the demo"
    return len(after) > 1 and re.split(r"['’]", after[1].group().casefold())[0] in _COMPLEMENTIZERS


def _bare_or_participle(word: str) -> bool:
    """Whether a lower-case word is an English verb, as a question puts one after its subject: the base form ("did
    attila reply"), the -ing form ("is maria coming") or the past participle of a regular verb or one of the
    exceptions table ("has natalia signed", "has lucas sent")."""
    english = english_words()
    return word in english.verbs or _present_participle(word) or word in _verb_forms()


def _object_after(text: str, before: list[re.Match[str]]) -> bool:
    """Whether a name with the words `before` it stands as the object of a verb or a preposition of people right
    before it ("grabbing coffee with pauline", "been texting hreindís álfgeirsdóttir", "saw estelle at the gym",
    "waiting on samarth", "meeting w/ ana", "wait alexandra or the other one")."""
    if not before:
        return False
    previous = before[-1].group().casefold()
    if previous == "w" and text[before[-1].end() : before[-1].end() + 1] == "/":
        return True  # "w/ ana"
    if _with_shorthand(text, before):
        return True  # "on a call w vittorio toscanini rn"
    if previous in _PEOPLE_PREPOSITIONS or previous in _GREETINGS:
        return True
    if previous in _PERSONAL_ARTICLES and len(before) > 1 \
            and before[-2].group().casefold() not in english_and_stop_words():  # fmt: skip
        return True  # "dile a vicenta", "schick das an lea"; not "call a maria"
    if previous in _THING_BEFORE or previous in ENGLISH_STOP_WORDS:
        return False
    if _present_participle(previous, _verbs_and_nouns()):
        return True  # "texting" (the dictionary's "text" is a noun alone), "calling", "grabbing"
    return previous in english_words().verbs or previous in _verb_forms()


def _with_shorthand(text: str, before: list[re.Match[str]]) -> bool:
    """Whether the last of the words `before` a name is chat's "w" for "with", a word of its own after an English
    word ("on a call w vittorio", "lunch w sam"); not Polish's "w" ("in"), which follows a word English does not write
    ("jestem w pracy")."""
    if len(before) < 2 or before[-1].group().casefold() != "w":
        return False
    return (text[before[-1].end() : before[-1].end() + 1] in (" ", "\t")
            and before[-2].group().casefold() in english_and_stop_words())  # fmt: skip


def follows_people_word(text: str, start: int) -> bool:
    """Whether the word right before `start` (past spaces or tabs, in its line) is one a person follows in chat: a
    preposition of people, a greeting or thanks, or chat's "w" for "with" after an English word ("on a call w
    леонтій шаповал", "thx φρίξος")."""
    line_start = text.rfind("\n", 0, start) + 1
    before = list(_ANY_WORD.finditer(text, line_start, start))
    if not before or text[before[-1].end() : start].strip(" \t"):
        return False
    previous = before[-1].group().casefold()
    return previous in _PEOPLE_PREPOSITIONS or previous in _GREETINGS or _with_shorthand(text, before)


def _after_foreign_people_word(text: str, before: list[re.Match[str]]) -> bool:
    """Whether a name with the words `before` it follows a preposition of people that English does not write ("con",
    "avec", "mit", "à", "aan") or the personal "a" or "an" after a word English does not write ("se lo mandé a
    alexia", "tu peux demander à lucas"): English's nouns do not stand there, so a common given name the dictionary
    holds as a noun is the name."""
    if not before:
        return False
    previous = before[-1].group().casefold()
    if previous in _PEOPLE_PREPOSITIONS and previous not in english_and_stop_words():
        return True
    return (previous in _PERSONAL_ARTICLES and len(before) > 1
            and before[-2].group().casefold() not in english_and_stop_words())  # fmt: skip


def _noun_given_name(word: str, stop_words: frozenset[str], banned: frozenset[str]) -> bool:
    """Whether a lower-case word is a common given name (``person_names``' ``given``) that English holds as a noun
    only, no verb, adjective or adverb ("grace", "mark"), no stop, calendar or field word and no large place, and
    either rare as a word ("alexia", "georgette": no frequent word of ``frequent_words``) or one WordNet writes
    capitalised only (``proper_nouns``: "lucas"; not "data", "blessing")."""
    if len(word) < MIN_LETTERS or word in stop_words or word in banned or word not in known_names().given:
        return False
    english = english_words()
    return (word not in english.verbs and word not in english.modifiers and not _large_place(word)
            and (word not in frequent_in_any() or word in proper_nouns()))  # fmt: skip


def _present_participle(word: str, stems: frozenset[str] | None = None) -> bool:
    """Whether a lower-case word is the -ing form of a word of `stems` (an English verb by default: "texting",
    "calling", "grabbing")."""
    stems = english_words().verbs if stems is None else stems
    return word.endswith("ing") and (word[:-3] in stems or f"{word[:-3]}e" in stems
                                     or (word[-4:-3] == word[-5:-4] and word[:-4] in stems))  # fmt: skip


def _pair_first_name(word: str, stop_words: frozenset[str], common_words: frozenset[str],
                     banned: frozenset[str]) -> bool:  # fmt: skip
    """Whether a lower-case word outside the common given names is a first name still where a family name follows
    it: a first name names-dataset knows, of three letters or more, no stop, calendar or field word, no large place,
    and no English dictionary word unless the dictionary holds it as a noun alone ("charlotte", "maftuna")."""
    if len(word) < MIN_PAIR_LETTERS or not word.islower() or word in stop_words or word in banned:
        return False
    if not known_names().is_first(word) or _large_place(word):
        return False
    english = english_words()
    return word not in common_words or (len(word) >= MIN_LETTERS and word not in english.verbs
                                        and word not in english.modifiers)  # fmt: skip


@functools.cache
def foreign_stop_given_names(stop_words: frozenset[str]) -> frozenset[str]:
    """Common given names of the English-speaking countries (``person_names``' ``given_english``) that are a stop
    word of exactly one language of `stop_words` other than English ("dan", Spanish; "sara", Italian; not "una",
    Spanish and Italian): a first name before a family name ("dan vidal"), never alone."""
    languages = [language_stop_words()[code] for code in ("fr", "es", "de", "it", "pt")]
    return frozenset(word for word in stop_words & known_names().given_english
                     if len(word) >= MIN_PAIR_LETTERS and word not in ENGLISH_STOP_WORDS
                     and sum(word in words for words in languages) == 1)  # fmt: skip


def _unlisted_first_name(word: str, stop_words: frozenset[str], common_words: frozenset[str],
                         banned: frozenset[str]) -> bool:  # fmt: skip
    """Whether a lower-case word may be a first name no list holds ("artawan", "nirja", "xiuying"), where a family
    name follows it: of three letters or more, no stop, calendar or field word, and a word neither the English NER
    model's vocabulary, its dictionary nor the gazetteer holds, nor a vowelless one, a laugh or an -ing form of a word
    the vocabulary holds ("been texting hreindís álfgeirsdóttir": the dictionary lacks the verb "text")."""
    return (len(word) >= MIN_PAIR_LETTERS and word.isalpha() and word.islower() and word not in stop_words
            and word not in banned and word not in common_words and word not in english_words().vocabulary
            and word not in gazetteer() and not is_vowelless(word)
            and not _REPEATED_SYLLABLE.fullmatch(word)
            and not (len(word) > MIN_LETTERS + 1
                     and _present_participle(word, english_words().vocabulary)))  # fmt: skip


def _family_name_follows(text: str, start: int, end: int) -> bool:
    """Whether a word of text[start:end], a surname ``_surname_words`` read, is a known last name or ends as a family
    name or patronymic does (``surnames.has_surname_ending``: "solihayeva", "álfgeirsdóttir")."""
    names = known_names()
    return any(names.is_last(part) or has_surname_ending(part)
               for word in _WORD.findall(text, start, end) for part in word.split("-"))  # fmt: skip


def _worded_given_name(word: str, stop_words: frozenset[str], banned: frozenset[str]) -> bool:
    """Whether a lower-case word is a common given name that English spells as a verb, an adjective or an adverb too
    ("hope", "grace", "mark"), which is a first name only before a family name no dictionary word spells ("grabbing
    coffee with hope ojo", "right, grace okafor-balogun")."""
    if len(word) < MIN_LETTERS or not word.islower() or word in stop_words or word in banned:
        return False
    english = english_words()
    return (word in known_names().given and (word in english.verbs or word in english.modifiers)
            and not _large_place(word) and not _REPEATED_SYLLABLE.fullmatch(word))  # fmt: skip


def _unlisted_family_name(first: str, surname: list[str]) -> bool:
    """Whether a first name and the words after it that ``_surname_words`` read are a name no list holds as a pair
    ("jakobs avotiņš", "aahil wahhaaj", "frusina pușcașu"): one surname word, each part of it and the first name of
    four letters or more and no frequent word of a language (``frequent_words``), no part a known first name (which
    may open the next name); one of the words a name names-dataset knows, or written with a letter English does not
    write. Two words of neither kind are as often a tool's and its part's names in chat typed in lower case ("switch
    to pytest xdist", "deploy to heroku dyno")."""
    names = known_names()
    parts = [part for word in surname for part in word.split("-")]
    if not _pair_shape(first, surname):
        return False
    return names.is_name(first) or any(names.is_last(part) for part in parts) \
        or not (first.isascii() and all(part.isascii() for part in parts))  # fmt: skip


def _pair_shape(first: str, surname: list[str]) -> bool:
    """Whether a first name and the words after it that ``_surname_words`` read have a pair's shape: one surname
    word, each part of it and the first name of four letters or more and no frequent word of a language
    (``frequent_words``), no part a known first name (which may open the next name)."""
    names = known_names()
    parts = [part for word in surname for part in word.split("-")]
    if len(surname) != 1 or len(first) < MIN_LETTERS or first in frequent_in_any():
        return False
    return all(len(part) >= MIN_LETTERS and part not in frequent_in_any() and not names.is_first(part)
               for part in parts)  # fmt: skip


def _double_barrelled(first: str, surname: list[str]) -> bool:
    """Whether the one surname word ``_surname_words`` read after `first` is two parts joined by a hyphen, as a
    double-barrelled family name is written ("tumaini odera-achieng"), neither part `first` itself (a tool and its
    plugin: "pytest pytest-xdist"); ``_pair_shape`` has checked each part is no frequent word nor first name."""
    return len(surname) == 1 and surname[0].count("-") == 1 and first not in surname[0].split("-")


def _person_only_after(after: list[re.Match[str]]) -> bool:
    """Whether the words `after` a name make it a person and nothing else: one of two subjects with the writer ("...
    and i will handle it") or before a French object pronoun elided before the verb ("... m'a dit"). A tool's name
    takes neither ("who" does not do: "who cares" follows anything)."""
    if not after:
        return False
    following = after[0].group().casefold().replace("’", "'")
    pronoun, _, verb = following.partition("'")
    if verb and pronoun in _ELIDED_PRONOUNS:
        return True
    return following == "and" and len(after) > 1 and after[1].group().casefold() in _FIRST_PERSON


def _unlisted_pair_end(text: str, first: str, surname: list[str], start: int, end: int) -> int | None:
    """Where a name no list holds as a pair ends when ``_surname_words`` read two words after its first name and the
    first name and the first of them make one (``_unlisted_family_name``): the second is the sentence's next word, a
    verb or an adverb of a language no dictionary here holds ("hab gerade mit espartaco villagómez telefoniert");
    None otherwise. text[start:end] holds the surname words."""
    if len(surname) < MAX_SURNAME_WORDS or not _unlisted_family_name(first, surname[:1]):
        return None
    family = _WORD.search(text, start, end)
    return None if family is None else family.end()


def _only_family_names(text: str, start: int, end: int) -> bool:
    """Whether every word of text[start:end] is a last name names-dataset knows and no first name."""
    names = known_names()
    parts = [part for word in _WORD.findall(text, start, end) for part in word.split("-")]
    return bool(parts) and all(names.is_last(part) and not names.is_first(part) for part in parts)


def _family_before_verb(text: str, name_end: int, before: list[re.Match[str]], after: list[re.Match[str]],
                        stop_words: frozenset[str]) -> int | None:  # fmt: skip
    """Where a common given name's family name ends when the one word right after the name (ending at `name_end`) is
    a family name the surname reader does not take and a verb follows it, the name its subject: a double-barrelled
    one, two parts of three letters or more joined by a hyphen, no stop word ("dylan marsh-hunt is running late": a
    part is a dictionary word), or a known last name no dictionary, vocabulary, frequent-word list or gazetteer holds
    ("akwasi omani is the best manager": the dictionary holds "omani" as an adjective); None otherwise."""
    if len(after) < 2 or text[name_end : after[0].start()].strip(" \t"):
        return None
    if _glued(text, after[0].start(), after[0].end()):
        return None
    family = after[0].group()
    parts = family.split("-")
    if not family.islower() or not all(part.isalpha() and part not in stop_words for part in parts):
        return None
    if len(parts) == 2:
        shaped = all(len(part) >= MIN_PAIR_LETTERS for part in parts)
    else:
        shaped = (len(parts) == 1 and len(family) >= MIN_LETTERS and known_names().is_last(family)
                  and family not in english_words().vocabulary and family not in frequent_in_any()
                  and family not in gazetteer())  # fmt: skip
    return after[0].end() if shaped and _subject_before(before, after[1:]) else None


_LABEL_COLON = re.compile(r"[ \t]*:[ \t]*")


def labels_value(text: str, end: int, spans: list[tuple[int, int]]) -> bool:
    """Whether the words that end at `end` are a label: a colon follows them, and right after it a value another
    detector took (an address, a number: "test data street: 4 Harris Inlet")."""
    colon = _LABEL_COLON.match(text, end)
    return colon is not None and ":" in colon.group() and any(start == colon.end() for start, _ in spans)


def _in_segment(text: str, start: int, end: int, stop_words: frozenset[str], common_words: frozenset[str],
                banned: frozenset[str], spans: list[tuple[int, int]], found: list[Finding],
                listed_only: bool = False) -> None:  # fmt: skip
    first_names = known_names().first
    vocabulary = english_words().vocabulary
    foreign = foreign_stop_given_names(stop_words)

    def no_name(value: str) -> bool:  # no name of any kind read here: each is a lower-case first name, or a word
        # neither a dictionary nor the NER model's vocabulary holds
        return not value.islower() or (value in stop_words and value not in foreign) or (
            (listed_only or value in common_words or value in vocabulary)
            and value.casefold() not in first_names)  # fmt: skip

    if all(no_name(value) for value in _ANY_WORD.findall(text, start, end)):
        return
    words = list(_ANY_WORD.finditer(text, start, end))
    for index, word in enumerate(words):
        value = word.group()
        if no_name(value):
            continue
        if not _WORD.fullmatch(value):
            continue
        given = _is_given_name(value, stop_words, common_words, banned)
        listed = (given or _pair_first_name(value, stop_words, common_words, banned)
                  or (value in foreign and value not in banned))  # fmt: skip
        worded = not listed and _worded_given_name(value, stop_words, banned)
        if not listed and not worded and not _unlisted_first_name(value, stop_words, common_words, banned):
            continue
        if _glued(text, word.start(), word.end()):
            continue  # a piece of an address, a handle, a key or a path ("lars+alerts@...", "vlad_", "k=v")
        before = words[:index]
        if worded and before and before[-1].group().casefold() in ENGLISH_STOP_WORDS \
                and before[-1].group().casefold() not in _PEOPLE_PREPOSITIONS:  # fmt: skip
            continue  # the word's own sense after a pronoun or an auxiliary: "i hope ramos wins", "will mark it"
        initial = _MIDDLE_INITIAL.match(text, word.end(), end)
        name_end = _surname_words(text, word.end() if initial is None else initial.end(), end, stop_words,
                                  common_words, given)  # fmt: skip
        if initial is not None and name_end == initial.end():
            initial, name_end = None, _surname_words(text, word.end(), end, stop_words, common_words, given)
        surname = _WORD.findall(text, word.end() if initial is None else initial.end(), name_end)  # not the initial
        if any(part in banned for w in surname for part in w.split("-")):
            continue  # a data field's label ("test data ip:", "client id"), not a name and its family name
        if worded and (not surname or any(part in common_words and not _proper_family_name(part)
                                          for w in surname for part in w.split("-"))):  # fmt: skip
            continue  # a given name English spells as a verb or an adjective only before a family name no word spells
        family = _family_name_follows(text, word.end(), name_end) or initial is not None
        unlisted_family = not given and not family and _unlisted_family_name(value, surname)
        pair_end = None if given or family or unlisted_family else _unlisted_pair_end(text, value, surname, word.end(),
                                                                                        name_end)  # fmt: skip
        if pair_end is not None:  # "mit espartaco villagómez telefoniert": the pair, then the sentence's verb
            name_end, surname, unlisted_family = pair_end, surname[:1], True
        # two words no list holds, in ASCII, name a person only where nothing else stands ("moradeke olubode and i")
        plain_pair = not given and not family and not unlisted_family and _pair_shape(value, surname)
        noun_given = (not given and not family and not unlisted_family and name_end == word.end()
                      and _noun_given_name(value, stop_words, banned)
                      and _after_foreign_people_word(text, before))  # fmt: skip
        if not given and not noun_given and (not (family or unlisted_family or plain_pair) or value in surname):
            continue  # a first name outside the common ones counts before a family name only ("maftuna solihayeva",
            # "qaseem d. zaafir"; not a word said twice: "hey hey")
        listed = listed or worded
        after = [w for w in words[index + 1 :] if w.start() >= name_end]
        others = [*before, *after]
        # Alone in its segment, a first name no list holds needs a family name that is no given name too: a word
        # names-dataset knows both ways may be a word of a language with no dictionary here ("nimefika salama",
        # Swahili for "arrived safely"), a family name only is a name's ("nirja banerjee").
        # A first name outside the common ones alone in its segment may be a word of a language no word list here
        # covers ("mama: sawa", Swahili's "ok"; "ok matelot"): it needs a context that names a person.
        rare = given and name_end == word.end() and value not in known_names().given
        alone = not rare and all(_is_filler(w.group(), stop_words) for w in others) and (
            listed or _only_family_names(text, word.end(), name_end))  # fmt: skip
        subject = _subject_before(before, after, common=value in known_names().given)
        if not (subject or alone) and given and name_end == word.end() and value in known_names().given:
            family_end = _family_before_verb(text, name_end, before, after, stop_words)
            if family_end is not None:  # "dylan marsh-hunt is running late", "akwasi omani is the best manager"
                name_end, subject = family_end, True
        if plain_pair and not _person_only_after(after) and not _double_barrelled(value, surname):
            continue
        if unlisted_family or plain_pair:
            alone = False  # two words no list holds name a person where a verb or a preposition of people says so
        if not (alone or subject or _object_after(text, before)):
            continue
        if any(s < name_end and word.start() < e for s, e in spans):
            continue
        if name_end > word.end() and labels_value(text, name_end, spans):
            continue  # a field's label before its value: "# test data street: 4 Harris Inlet"
        found.append(Finding("PERSON", word.start(), name_end, ADDRESSED_SCORE, "addressed_names"))
        spans.append((word.start(), name_end))


# A coordinating conjunction between two words on one line, in the languages read ("and", "und", "y", "et", "e", "&").
_JOINED = re.compile(r"[ \t]+(?:and|und|y|et|e|&)[ \t]+")
_JOINED_BEFORE = re.compile(r"(?<![\w'’-])(?:and|und|y|et|e|&)[ \t]+\Z")


def joined_names(text: str, regions: list[tuple[int, int]], stop_words: frozenset[str], common_words: frozenset[str],
                 banned: frozenset[str], taken: Iterable[Finding]) -> list[Finding]:  # fmt: skip
    """Common given names typed in lower case joined by a conjunction to a person already found in the lower-case
    `regions` ("we met marissa and lyna", "wir haben daniele und zahide", "julia y tomás"), that no finding in
    `taken` overlaps: the pair is two people, the second no thing (``_is_given_name``: no dictionary or stop word)."""
    taken = list(taken)
    spans = [(f.start, f.end) for f in taken]
    found: list[Finding] = []
    people = [f for f in taken if f.entity_type == "PERSON" and f.score >= 0.5]
    for person in people:
        if not any(begin <= person.start and person.end <= stop for begin, stop in regions):
            continue
        if not text[person.start : person.end].islower():
            continue
        joined = _JOINED.match(text, person.end)
        candidates = []
        if joined is not None:
            candidates.append(_WORD.match(text, joined.end()))
        before = _JOINED_BEFORE.search(text, max(0, person.start - 8), person.start)
        if before is not None:
            candidates.append(_WORD.fullmatch(text, *_word_span_before(text, before.start())))
        for word in candidates:
            if word is None or _glued(text, word.start(), word.end()):
                continue
            if not _is_given_name(word.group(), stop_words, common_words, banned):
                continue
            if any(word.start() < end and start < word.end() for start, end in spans):
                continue
            found.append(Finding("PERSON", word.start(), word.end(), ADDRESSED_SCORE, "addressed_names"))
            spans.append(word.span())
    return found


def _word_span_before(text: str, position: int) -> tuple[int, int]:
    """The (start, end) of the word that ends at the spaces before `position`, or an empty span."""
    end = position
    while end > 0 and text[end - 1] in " \t":
        end -= 1
    start = end
    while start > 0 and (text[start - 1].isalpha() or text[start - 1] in "'’-"):
        start -= 1
    return start, end
