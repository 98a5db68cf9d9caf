"""PERSON from the words around a name: a greeting, a title, a verb of speaking, a sign-off, whatever the name is.

A name list only knows the names it holds; the words around a name do not depend on it. Three cues, in English,
French, Spanish, German, Italian, Portuguese and Dutch:

- before a name: a greeting, welcome or thanks ("Dear", "Hola", "Welcome aboard", "thx"), a title ("Mr", "Frau",
  "Mme", "Sra."), an introduction ("my name is", "je m'appelle", "hey its"), a hand-over ("forward this to",
  "reassigned to", "spoke with", "ping", "cc", "invite"), an attribution ("per", "d'après");
- after a name: a verb of saying or approving ("said", "wrote", "approved", "dijo", "sagte", "a validé"), a ticket's
  comment header ("commented", "a commenté");
- a sign-off line ("Best regards,", "Mit freundlichen Grüßen", "Cordialement,"): the next line, when it holds only
  a name and a word of it is a known name (a company or a city may stand there instead);
- an e-mail's layout, whatever its words: the line after a closing no list holds (a short line ending in a comma or
  an exclamation mark: "Un caro saluto,", "Appreciate it,"), after a signature's delimiter ("-- ") or, as a text's
  last line, after a one-line message ("Låter bra, tack.\n\nYuki"), past blank and separator lines and a quoted
  reply's "> ", when the line is a name with a known name in it (a team, a desk or a company stands there as often),
  or initials before a known last name ("A. Brown"), or a family name in capitals before a known first name
  ("SMITH William"); and a display name before an address in angle brackets ("... schrieb Beatriz Aguirre
  <b@x.ch>:");
- an e-mail's sender or recipient header ("From: ", "Von: ", "De : ", "To: ", "Cc: ", "À : "): the name after it;
- a signature's or a form's label ("Signed:", "gez.", "Patient:", "Name:", "Nom :"), unless a noun of a thing
  stands before "Name" ("Item Name:", "FILE NAME:") or the value is a word of code ("Name: PaymentIntent");
- a Japanese, Korean or Chinese honorific glued after a name in Latin letters ("B. Yinh様", "Ana Ruizさん");
- post-nominal letters after a name and a comma ("Akinyi Irungu, GP", "J. Okafor, RN", "Ana Ruiz, PhD");
- regards sent to someone and hand-overs of the chat languages ("Bisous à Bernard", "Grüß Claire von mir", "skriv
  til Mads", "falem com a Chico"), before a name the list knows and no place; a closing that opens a line or a
  sentence, before the name that ends its line ("Saludos, Mariano", "VG Boban", "Gruß Beni Schindler"); an
  @-mention of a common given name ("ping @Kristine"); an appositive after a determiner and a noun of a person
  ("The driver (Tristan) was polite", "Our client, Haskins, denies");
- a dash and thanks after a name that opens a line ("Mihkel - thanks for the repro!"), a dash before a name on the
  text's last line ("— Ilse") or on the line after a closing ("All the best,\n— Kipenzi"), and a signature's name
  line whose other fields follow a separator ("Tristan – Service client", "Kazim | Buchhaltung | Ironbridge GmbH").

The name itself is one to four words of letters (with inner apostrophes or hyphens), initials ("K.") and
lower-case particles between them ("van", "de", "da"), on one line. In cased text it is capitalised, or written in
capitals as forms print it ("NAME: XIOMARA QUISPE") when two words or more, one a known name and none an English
dictionary word; in chat a name typed in lower case counts only when a word of it is no English dictionary word
or a common given name the dictionary holds as a proper noun only ("thx ruben", "happy bday teresa"; not "thx man").
After a sign-off, a line of one capitalised word that no list knows is a name too, unless it is an English word or a
place ("Thanks,\nGunngeir"; not "Thanks,\nSupport"), and so is a line of two such words ("Cheers,\nPattapon
Chaisatit"; not "Cheers,\nAcme Widgets").
Stop words of the six languages end a name, so "Dear all" or "ping the server" name nobody. A lower-case name
after a cue counts only where its writer types in lower case: not where its line, or (outside a chat speaker's
line) a line of the text, opens capitalised ("Bedankt voor je snelle reactie", "ricevuto per errore").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache

from spacy.lang.en.stop_words import STOP_WORDS as ENGLISH_STOP_WORDS

from gateway.guardrails.findings import Finding
from gateway.guardrails.frequent_words import frequent_in_any, frequent_words
from gateway.guardrails.person_names import known_names
from gateway.guardrails.person_nouns import person_nouns
from gateway.guardrails.proper_nouns import proper_nouns
from gateway.guardrails.span_index import SpanIndex

CUED_SCORE = 0.7
LOWER_CASE_CUED_SCORE = 0.6
MAX_NAME_WORDS = 4
MAX_LOWER_CASE_NAME_WORDS = 3
MAX_PARTICLE_LETTERS = 3  # "van", "de", "da", "del", "von", "bin": the lower-case words names hold

_HANDING_VERBS = ("forward", "forwarded", "send", "sent", "pass", "passed", "hand", "handed", "escalate", "escalated",
                  "assign", "assigned", "reassign", "reassigned")  # fmt: skip
BY_VERBS = ("taken", "approved", "signed", "written", "reported", "reviewed", "requested", "created", "submitted",
             "drafted", "merged", "prepared", "sent", "shared", "raised", "opened", "closed", "filed", "owned", "led",
             "run", "managed", "handled", "edited", "updated", "authored", "organised", "organized", "hosted",
             "presented", "flagged", "escalated", "assigned", "authorised", "authorized", "booked",
             "issued")  # fmt: skip
TITLES = ("mr", "mrs", "ms", "mx", "miss", "dr", "prof", "herr", "frau", "monsieur", "madame", "mademoiselle", "mme",
          "mlle", "m.", "señor", "señora", "señorita", "sr", "sra", "srta", "don", "doña", "dott", "sig", "sig.ra",
          "dhr", "mevr", "meneer", "mevrouw", "juffrouw", "dottore", "dottoressa", "dottor", "dott.ssa", "signora",
          "signor", "senhor", "senhora")  # fmt: skip
_TITLE_SET = frozenset(TITLES)
# The titles as words: an abbreviation without its dot ("sig.ra", "m").
TITLE_WORDS = frozenset(title.rstrip(".") for title in TITLES)
_ABBREVIATED_TITLES = frozenset({"mr", "mrs", "ms", "mx", "dr", "prof", "mme", "mlle", "m", "sr", "sra", "srta", "dott",
                                 "sig", "sig.ra", "dhr", "mevr", "dott.ssa"})  # fmt: skip
_BEFORE = (
    # greetings and thanks
    "dear", "hi", "hello", "hey", "hiya", "thanks", "thank you", "thx", "ty", "cheers", "congrats",
    "bonjour", "salut", "cher", "chère", "merci", "hola", "estimado", "estimada", "querido", "querida", "gracias",
    "hallo", "liebe", "lieber", "sehr geehrte", "sehr geehrter", "danke", "moin", "servus", "ciao", "gentile", "caro",
    "cara", "grazie", "olá", "oi", "prezado", "prezada", "obrigado", "obrigada", "beste", "bedankt",
    "welcome", "welcome back", "welcome aboard", "kudos to", "shout-out to", "shoutout to", "bienvenue", "bienvenu",
    "bienvenido", "bienvenida", "willkommen", "willkommen an bord", "benvenuto", "benvenuta", "bem-vindo", "bem-vinda",
    "welkom", "merci à", "gracias a", "danke an", "grazie a",
    # a booking or a mandate in someone's name
    "under the name", "in the name of", "au nom de", "a nombre de", "auf den namen", "im namen von", "a nome di",
    "happy birthday", "happy birthday to", "happy bday", "hbd", "congratulations", "congratulations to",
    "congrats to", "félicitations", "félicitations à", "felicidades", "felicidades a", "enhorabuena", "glückwunsch an",
    "herzlichen glückwunsch", "auguri", "parabéns",
    *TITLES,
    # introductions
    "my name is", "my name's", "name's", "i am", "i'm", "this is", "it's", "its", "je m'appelle", "je suis",
    "me llamo", "soy", "ich heiße", "hier ist", "ich bin", "mi chiamo", "sono", "meu nome é", "chamo-me", "ik ben",
    # hand-overs
    *(f"{verb}{obj} to" for verb in _HANDING_VERBS for obj in ("", " this", " it", " that", " them", " it over")),
    *(f"{verb} {preposition}" for verb in ("spoke", "speak", "talked", "talk") for preposition in ("with", "to")),
    "reply to", "replied to", "replying to", "write back to", "wrote back to",
    "met with", "meet with", "ask", "asked", "ask for", "tell", "told", "ping", "pinged", "pinging", "dm", "cc", "attn",
    "invite", "frag", "frag mal", "fragen sie", "demande à", "demandez à", "pregunta por", "pregúntale a",
    "invited", "loop", "loop in", "looping in", "looped in",
    "did", "per", "d'après", "de acuerdo con", "nach aussage von",
    *(f"{verb} by" for verb in BY_VERBS),
    "parlé avec", "suivi par", "transmettre à", "hablé con", "reenvíalo a", "gesprochen mit", "habe mit",
    "leite das an",
    # a signature or a form's label before the name it names: "Signed: ...", "gez. ...", "Patient: ...", "Name: ..."
    "signed", "signature", "signé", "signée", "firmado", "firmada", "firma", "unterschrieben", "unterschrift", "gez.",
    "gezeichnet", "assinado", "assinatura", "getekend", "patient", "patiente", "patientin", "paciente", "paziente",
    "name", "full name", "nom", "prénom", "nombre", "apellido", "apellidos", "vorname", "nachname", "nome", "cognome",
    "naam",
)  # fmt: skip
# A role a sentence says a person holds, right before the person: "the account holder is ...", "ur point of contact
# will be ...", "name on the booking is ...". Their first words are ordinary nouns ("account", "point", "name"), so
# they stay out of ``CUE_WORDS`` (words that never open a name).
_ROLES = (
    *(f"{holder} {verb}" for holder in ("account holder", "card holder", "cardholder", "policy holder",
                                         "policyholder", "point of contact", "contact person", "primary contact")
      for verb in ("is", "will be")),
    *(f"name on the {record} is" for record in ("account", "booking", "card", "reservation", "ticket", "order",
                                                "invoice", "lease", "policy")),
    "booked under", "reserved under", "registered to",
)  # fmt: skip
# Self-introductions of the chat languages whose first word is an ordinary word ("mam", "moi", "eu", "mein", "mijn",
# "il"), so, like ``_ROLES``, they stay out of ``CUE_WORDS``: Polish, Portuguese, French, Spanish, Italian, German
# and Dutch for "my name is" or "I am", with and without their diacritics as chat types them.
_INTRODUCTIONS = (
    "mam na imię", "mam na imie", "nazywam się", "nazywam sie", "jestem", "me chamo", "o meu nome é", "eu sou", "sou",
    "moi c'est", "moi c’est", "mi nombre es", "il mio nome è", "mein name ist", "ich heisse", "ik heet",
    "mijn naam is",
)  # fmt: skip
# Titles and forms of address of German, Polish, Dutch, Italian and Portuguese that are ordinary words too (Herr in
# the accusative or dative, Polish "pan"/"pani" in their cases, a teacher's "juf", "meester", "maestra", a
# professor's or a doctor's title): before a capitalised word only ("pani Mazan", "la maestra Respighi", "o professor
# Carneiro", "Herrn Prager"; not "il maestro arriva", "pani ma rację"), and out of ``CUE_WORDS``.
_ADDRESS_TITLES = frozenset({
    "herrn", "pan", "pana", "panu", "panem", "pani", "panią", "juf", "meester", "maestra", "maestro", "professor",
    "professora", "professore", "professoressa", "doutor", "doutora",
})  # fmt: skip
# Regards sent to someone ("say hi to Anna", "Bisous à Bernard", "Grüß Claire von mir", "saludos a Pilar", "hils
# Malou") and a hand-over to someone in the chat languages ("write to", "écrivez à", "fale com", "skriv til", "piszcie
# do", "rivolgetevi a"), where English's own hand-overs (``_BEFORE``) have no equivalent: in English, French,
# Spanish, German, Italian, Portuguese, Dutch, Polish and the Scandinavian languages. Their words are ordinary words
# ("grüß Gott", "salue l'accord", "contact Support", "saluti a Roma"), so they point at a name only when the name list
# knows its first word (``_KNOWN_NAME_ONLY``) and stay out of ``CUE_WORDS``.
_REGARDS_TO = (
    "say hi to", "say hello to", "give my love to", "give my regards to", "my regards to", "my best to",
    "greetings to", "hugs to", "love to",
    "bisous à", "bises à", "grosses bises à", "dis bonjour à", "le bonjour à", "mes amitiés à", "salue", "embrasse",
    "saludos a", "saluda a", "dale saludos a", "besos a", "un beso a", "un abrazo a", "recuerdos a",
    "grüß", "grüss", "grüße an", "grüsse an", "liebe grüße an", "viele grüße an", "schöne grüße an",
    "saluta", "salutami", "saluti a", "baci a", "un bacio a", "un abbraccio a",
    "beijos para", "beijos à", "beijos ao", "um beijo para", "abraço para", "um abraço para", "cumprimentos a",
    "diz olá a", "diz oi para",
    "groetjes aan", "groeten aan", "de groeten aan", "doe de groeten aan", "liefs aan",
    "pozdrów", "pozdrowienia dla", "buziaki dla", "uściski dla",
    "hils", "hils til", "hilsen til", "hälsa", "hälsa till", "hälsningar till", "kram till",
)  # fmt: skip
_HAND_OVERS = (
    "write to", "reach out to", "contact", "check with",
    "écris à", "écrivez à", "contacte", "contactez", "adressez-vous à", "voyez avec", "vois avec",
    "escribe a", "escríbele a", "escribid a", "contacta a", "contacta con", "contactad con", "habla con",
    "hablad con", "pregunta a",
    "schreib", "schreibt", "schreib an", "schreiben sie", "kontaktiere", "kontaktieren sie", "wende dich an",
    "wendet euch an", "wenden sie sich an", "melde dich bei", "meldet euch bei", "melden sie sich bei",
    "scrivi a", "scrivete a", "contatta", "contattate", "rivolgiti a", "rivolgetevi a", "sentite", "chiedete a",
    "escreve a", "escrevam a", "escreve para", "fala com", "fale com", "falem com", "fala com o", "fala com a",
    "fale com o", "fale com a", "falem com o", "falem com a", "liga para", "liguem para",
    "schrijf", "schrijf naar", "neem contact op met", "contacteer",
    "napisz do", "piszcie do", "pisz do", "zadzwoń do", "dzwońcie do", "skontaktuj się z",
    "skriv til", "skriv till", "send melding til", "send en besked til", "send besked til", "kontakta",
)  # fmt: skip
# English verbs of meeting or seeing someone ("I met Inger at the conference", "saw Kemal yesterday"), which meet
# things, places and dates as often ("met expectations", "visited Porto", "see Appendix", "meet Monday"): they point
# at a name only when its first word is a known first name, no month or weekday, and no place found
# (``_FIRST_NAME_ONLY``); out of ``CUE_WORDS``, "Met" and "Meet" open a heading or a Dutch phrase ("Met vriendelijke
# groet").
_MEETINGS = ("met", "meet", "meeting", "saw", "seeing", "visited", "visiting")
_FIRST_NAME_ONLY = frozenset(_MEETINGS)
_KNOWN_NAME_ONLY = frozenset((*_REGARDS_TO, *_HAND_OVERS))
_BEFORE_PHRASES = (*_BEFORE, *_ROLES, *_INTRODUCTIONS, *sorted(_ADDRESS_TITLES), *_REGARDS_TO, *_HAND_OVERS,
                   *_MEETINGS)  # fmt: skip
_AFTER = (
    "said", "says", "wrote", "writes", "asked", "replied", "approved", "confirmed", "mentioned", "agreed", "signed",
    "a dit", "a écrit", "a validé", "a approuvé", "a confirmé", "dijo", "escribió", "aprobó", "confirmó", "sagte",
    "schrieb", "ha detto", "ha scritto", "ha approvato", "disse", "escreveu", "aprovou", "zei", "schreef",
    "joined", "knows", "is on leave", "est en congé", "está de vacaciones", "ist bis",
    # a ticket's or a forum's comment header ("E. Reynolds commented:")
    "commented", "responded", "a commenté", "comentó", "kommentierte", "ha commentato", "comentou", "reageerde",
)  # fmt: skip
_SIGN_OFF = (
    "regards", "best regards", "kind regards", "warm regards", "warmest regards", "best", "cheers", "thanks",
    "many thanks", "thank you", "sincerely", "yours", "yours truly", "mit freundlichen grüßen", "freundliche grüße",
    "mit besten grüßen", "beste grüße", "viele grüße", "liebe grüße", "lg", "mfg", "cordialement", "bien à vous",
    "amicalement", "bien amicalement", "salutations", "salutations distinguées", "saludos", "un saludo",
    "saludos cordiales", "atentamente", "cordiali saluti", "saluti", "distinti saluti", "atenciosamente", "abraços",
    "cumprimentos", "met vriendelijke groet", "met vriendelijke groeten", "groeten",
)  # fmt: skip

# Closings of the chat languages that ``_SIGN_OFF`` lacks, which a message writes with the writer's name after them on
# the same line ("VG Boban", "Bisous, Léa", "Un abrazo, Mariano", "Groetjes, Sanne", "Mvh Siv Berge"); out of
# ``CUE_WORDS``, their first words being ordinary words ("un", "all", "take", "love", "med").
_CLOSINGS = (
    "best wishes", "all the best", "take care", "love", "xoxo", "talk soon", "speak soon",
    "bisous", "bises", "grosses bises", "à bientôt", "bonne journée", "bonne soirée", "bien cordialement",
    "un abrazo", "abrazos", "besos", "un beso", "cordialmente", "hasta pronto",
    "gruß", "grüße", "viele grüße", "herzliche grüße", "schöne grüße", "liebe grüsse", "viele grüsse", "vg",
    "un saluto", "un caro saluto", "a presto", "baci", "un abbraccio",
    "abraço", "um abraço", "beijos", "beijinhos",
    "groetjes", "groet", "hartelijke groet", "mvg",
    "pozdrawiam", "pozdrowienia", "z poważaniem",
    "mvh", "hilsen", "med vennlig hilsen", "venlig hilsen", "med venlig hilsen", "hälsningar", "vänliga hälsningar",
)  # fmt: skip

# Introductions that tell a state or a place as often in capitalised text, where a particle Polish or Portuguese
# share with names opens what follows ("Jestem w Warszawie", "Moi c'est Pareil", "Sou Brasileira"): the words after
# one are a name only when the name list knows the first, whatever their case.
_STATE_OR_NAME_ANY_CASE = frozenset({"jestem", "sou", "eu sou", "moi c'est", "moi c’est"})
# The greeting, title and sign-off words, lower case: words around a name, never a name's first word.
CUE_WORDS = frozenset(phrase.split()[0] for phrase in (*_BEFORE, *_SIGN_OFF))
# Introductions that as often say what the speaker is as who ("i'm outta here", "i'm legit", "je suis désolé",
# "ich bin müde"): in text typed in lower case, the words after one are a name only when the name list knows the
# first. ("my name is", "je m'appelle", "me llamo" say who; so, on the phone or in chat, do "it's" and "this is":
# "hi its lista alaimo again".)
STATE_OR_NAME = frozenset({"i am", "i'm", "je suis", "soy", "ich bin", "sono", "ik ben", *_STATE_OR_NAME_ANY_CASE})


def phrase_pattern(phrases: Iterable[str]) -> str:
    """A regex for any of `phrases` (lower case; a space matches any run of whitespace), shaped as a trie: Python's
    engine then tries one branch per character instead of every phrase at every position of a long text."""
    trie: dict = {}
    for phrase in phrases:
        node = trie
        for char in phrase:
            node = node.setdefault(char, {})
        node[""] = {}

    def emit(node: dict) -> str:
        branches = [(r"\s+" if char == " " else re.escape(char)) + emit(child)
                    for char, child in sorted(node.items()) if char]  # fmt: skip
        if not branches:
            return ""
        if "" in node:
            return "(?:" + "|".join(branches) + ")?"
        return branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"

    return emit(trie)


# Cues are looked for in the text lower-cased (a case-sensitive scan is several times faster than an IGNORECASE one
# over long texts); where lower-casing changes a text's length, the IGNORECASE twin reads the text as it is. A label's
# colon may stand after a space, as French sets it ("Nom : ...").
_CUES = (rf"(?<![\w'’-])(?P<before>{phrase_pattern(_BEFORE_PHRASES)})(?:[ \t]?[.,:])?[ \t]+"
         rf"|[ \t]+(?P<after>{phrase_pattern(_AFTER)})(?![\w'’-])")  # fmt: skip
_CUE = re.compile(_CUES)  # the plain form, for reference and tests: ``_cues`` finds its matches in lower-case text
_CUE_ANY_CASE = re.compile(_CUES, re.IGNORECASE)
# Regards or a hand-over ending where a word starts, on its line ("Say hi to ", "Bisous à ", "wende dich an "): the
# preposition that ends one points at a person, not at a place (``given_name_places``). The reach is longer than any
# of the phrases, so the look-behind sees the character before one.
_REGARDS_OR_HAND_OVER_BEFORE = re.compile(rf"(?<![\w'’-])(?:{phrase_pattern((*_REGARDS_TO, *_HAND_OVERS))})[ \t]+\Z")
_REGARDS_REACH = 40


def regards_cue_before(text: str, position: int) -> bool:
    """Whether regards sent to someone or a hand-over to someone ends right before `position` ("Say hi to Imre",
    "Bisous à Bernard", "écrivez à Gaëlle"; not "a week in Brittany")."""
    window = text[max(0, position - _REGARDS_REACH) : position].lower()
    return _REGARDS_OR_HAND_OVER_BEFORE.search(window) is not None


# ``_CUE``'s two branches searched apart, each opening with what the regex engine skips to (``_cues`` merges them).
# Before a name: a character outside ASCII's word characters (a superset of the look-behind's: a letter outside ASCII
# is told apart afterwards) followed by a phrase's first letter. After one: a single space or tab before the phrase;
# ``[ \t]+`` at every space of an indented text's runs made the plain form's second branch quadratic in their length.
_BEFORE_FIRST_LETTERS = "".join(sorted({phrase[0] for phrase in _BEFORE_PHRASES}))
_BEFORE_CUE_TAIL = rf"(?P<before>{phrase_pattern(_BEFORE_PHRASES)})(?:[ \t]?[.,:])?[ \t]+"
_BEFORE_CUE_AT_START = re.compile(_BEFORE_CUE_TAIL)
_BEFORE_CUE_AFTER_NON_ASCII_WORD = re.compile(rf"[^a-z0-9_'’-](?=[{re.escape(_BEFORE_FIRST_LETTERS)}])"
                                              + _BEFORE_CUE_TAIL)  # fmt: skip
_NOT_BEFORE_CUE = re.compile(r"[\w'’-]")
_AFTER_CUE_AFTER_SPACE = re.compile(rf"[ \t](?P<after>{phrase_pattern(_AFTER)})(?![\w'’-])")
# A sign-off line: searched from the line break before it (a literal the engine skips to) and at the text's start.
_SIGN_OFF_LINE_BODY = rf"[ \t]*(?:{phrase_pattern(_SIGN_OFF)})[ \t]*[,!.]?[ \t]*\r?$"
_SIGN_OFF_LINES = rf"^{_SIGN_OFF_LINE_BODY}"
_SIGN_OFF_LINE = re.compile(_SIGN_OFF_LINES, re.MULTILINE)  # the plain form, for reference and tests
_SIGN_OFF_LINE_AT_START = re.compile(_SIGN_OFF_LINE_BODY, re.MULTILINE)
_SIGN_OFF_LINE_AFTER_BREAK = re.compile(rf"\n{_SIGN_OFF_LINE_BODY}", re.MULTILINE)
_SIGN_OFF_LINE_ANY_CASE = re.compile(_SIGN_OFF_LINES, re.MULTILINE | re.IGNORECASE)
_SIGN_OFF_PHRASE = re.compile(rf"(?:{phrase_pattern(_SIGN_OFF)})[ \t]*[,!.]?", re.IGNORECASE)
_SIGN_OFF_AT = re.compile(rf"(?:{phrase_pattern(_SIGN_OFF)})[ \t]*[,!.]?[ \t]*(?:\r?\n|\Z)", re.IGNORECASE)
# A sign-off or a closing ("Cheers", "Saludos", "All the best"), as the patterns below write one.
_CLOSING_PHRASES = phrase_pattern((*_SIGN_OFF, *_CLOSINGS))
# A closing, then a comma or none, then the name that ends its line ("Saludos, Mariano", "Gruß Beni Schindler"):
# matched in the lower-cased text where a line or a sentence starts (``_OPENINGS``: few places, found fast).
_INLINE_CLOSING = re.compile(rf"[ \t>]*(?:{_CLOSING_PHRASES})[ \t]*,?[ \t]+(?=[^\W\d_])")
# Where a line or a sentence opens: a line break (a literal the engine skips to) before a closing's first letter, and
# a sentence's end mark and a space.
_CLOSING_LETTERS = re.escape("".join(sorted({phrase[0] for phrase in (*_SIGN_OFF, *_CLOSINGS)})))
_LINE_OPENINGS = re.compile(rf"\n(?=[ \t>]*[{_CLOSING_LETTERS}])")
_SENTENCE_OPENINGS = re.compile(r"[.!?…][ \t]")
# A form's "Name:" label names a thing when a noun of a thing stands before it ("Item Name: ThinkPad", "FILE NAME:",
# "Product Name:"): an English dictionary word that is no noun of a person (``person_nouns``: "Customer Name",
# "Patient Name") nor a word of a person's name's labels below.
_NAME_LABEL = "name"
_PERSON_NAME_QUALIFIERS = frozenset({"first", "last", "full", "given", "family", "middle", "maiden", "display",
                                     "legal", "preferred", "nick", "birth", "christian", "contact", "holder",
                                     "account", "agent"})  # fmt: skip
_WORD_BEFORE = re.compile(r"([^\W\d_]+)[ \t_]*\Z")
# A word of code: dictionary words run together, each capitalised ("PaymentIntent", "OrderLineItem").
_CAMEL_HUMP = re.compile(r"[A-Z][a-z]+")

# An e-mail's sender or recipient header, as a pasted message or a quoted reply carries it ("From: Hasif See
# <h.see@...>", "> Von: ...", "De : ...", "To: ...", "Cc: ..."): the name is what follows on the line, a desk or a
# list ("Service Desk") being no name; the other names of a list are ``name_lists``'.
# Looked for only where a subject header's word stands too (an e-mail's headers come together): most text is no
# e-mail, and a line-by-line scan of it costs.
_SENDER_HEADER = re.compile(
    r"(?im)^[ \t>]*(?:from|sender|von|absender|de|expéditeur|remitente|da|van|to|cc|bcc|"
    r"an|à|a|para|per|aan|recipient|destinataire|empfänger|destinatario)[ \t]*:[ \t]*"
)
_SUBJECT_WORDS = ("subject", "betreff", "objet", "asunto", "oggetto", "assunto", "onderwerp")


# Japanese, Korean and Chinese honorifics glued to the name they follow ("Vienna Đông様", "D. S. Casallasさん",
# "Kim님", "Wang先生"), written after a name in Latin letters; the name ends where they start. A name in Han, kana
# or Hangul before them has no word boundary to say where it starts: those are left out.
HONORIFICS = ("様", "さま", "さん", "氏", "殿", "君", "くん", "ちゃん", "先生", "님", "씨", "女士", "小姐")
_LATIN = "A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f\u1e00-\u1eff"
# The honorifics first and the letter before them checked after: a pattern that opens with a look-behind is tried at
# every position of the text, one that opens with these characters only where one stands.
_HONORIFIC = re.compile(rf"(?:{'|'.join(HONORIFICS)})")
_LATIN_LETTER = re.compile(rf"[{_LATIN}]")
# The run of Latin letters, spaces and initials' periods that ends where an honorific starts.
_LATIN_RUN = re.compile(rf"(?<![{_LATIN} .'’-])[{_LATIN}][{_LATIN} .'’-]*\Z")


def is_sign_off(phrase: str) -> bool:
    """Whether `phrase` is a sign-off ("Beste Grüße", "Kind regards,"): the small English model calls some people."""
    return _SIGN_OFF_PHRASE.fullmatch(phrase.strip()) is not None


# A word of a name: letters with inner apostrophes or hyphens ("O'Neill", "Tangney-Deasy", "Марʼяна"), or an
# initial ("K." or, as Irish "Ó", a capital alone). Separated by spaces or tabs only: a name never spans lines.
_WORD = re.compile(r"[^\W\d_]+(?:['’ʼ-][^\W\d_]+)*(?:\.(?=[ \t]))?")
_GAP = re.compile(r"[ \t]+")


@dataclass(frozen=True)
class NameWords:
    """What the cue rules need to know of a word: stop words of the languages read, English dictionary words, and
    known first or last names."""

    stop_words: frozenset[str]
    common_words: frozenset[str]
    is_name: Callable[[str], bool]
    is_first: Callable[[str], bool]

    def is_stop(self, word: str) -> bool:
        return word.casefold() in self.stop_words

    def is_common(self, word: str) -> bool:
        """An English dictionary word or its plural: the dictionary lists lemmas ("sir", "service"), and "Dear
        Sirs" or "Field Services" name nobody."""
        folded = word.casefold()
        return folded in self.common_words or (len(folded) > 3 and folded.endswith("s")
                                               and folded[:-1] in self.common_words)  # fmt: skip


def _is_initial(word: str) -> bool:
    return len(word.rstrip(".")) == 1


def _is_particle(word: str) -> bool:
    return word.islower() and len(word) <= MAX_PARTICLE_LETTERS


def _name_after(text: str, start: int, words: NameWords, *, title: bool = False) -> tuple[int, int] | None:
    """The span of the name that begins at `start`, if the words there make one. After a `title`, the name may open
    with a particle before a capitalised word ("meneer van Evelingen") or with a capitalised stop word ("Mme Vos",
    "Herr Will"): a title names the person after it."""
    taken: list[re.Match[str]] = []
    position = start
    while len(taken) < MAX_NAME_WORDS:
        word = _WORD.match(text, position)
        if word is None:
            break
        inner = bool(taken) and (
            _is_initial(word.group())
            or (_is_particle(word.group()) and _continues(text, word.end(), capitalised=taken[0].group()[0].isupper()))
        )
        if title and not taken:
            capitalised = word.group()[0].isupper() and not word.group().isupper()
            inner = capitalised or (_is_particle(word.group()) and _continues(text, word.end(), capitalised=True))
        if (
            words.is_stop(word.group().rstrip("."))
            and not inner
            and not (not taken and word.group()[0].isupper() and words.is_first(word.group()))
        ):
            break  # "Dear all", "ping the server"; but "Hi Dan", "Will Smith" open with a first name
        taken.append(word)
        if len(taken) > 1 and len(word.group()) > 3 and word.group().endswith(".") \
                and word.group()[:-1].casefold() not in TITLES:  # fmt: skip
            break  # a sentence's full stop, not an initial's period: "The account holder is Vi Nguyễn. Mobile on ..."
        gap = _GAP.match(text, word.end())
        if gap is None:
            break
        position = gap.end()
    return _valid(text, taken, words)


def _continues(text: str, end: int, capitalised: bool) -> bool:
    """Whether another word of the name follows on the same line, capitalised if the name is (a particle is part of
    a name only before more of it: "Senna de Jonge", not "Anișoara du renouvellement")."""
    gap = _GAP.match(text, end)
    following = None if gap is None else _WORD.match(text, gap.end())
    return following is not None and (following.group()[0].isupper() or not capitalised)


def _name_before(text: str, end: int, words: NameWords) -> tuple[int, int] | None:
    """The span of the name that ends at `end`, if the words there make one."""
    found = list(_WORD.finditer(text, max(0, end - 80), end))
    taken: list[re.Match[str]] = []
    cursor = end
    for word in reversed(found):
        between = text[word.end() : cursor]
        if (taken and not _GAP.fullmatch(between)) or (not taken and word.end() != end):
            break
        stop = words.is_stop(word.group().rstrip("."))
        if (
            stop
            and not (taken and _is_particle(word.group()) and word.group() not in _NAME_BREAKS)
            and not (taken and word.group()[0].isupper() and words.is_first(word.group()))
        ):
            break  # "the server said", "dob on the ticket says"; but "Sara Holst-Hansen said", "Will Smith said"
        taken.insert(0, word)
        cursor = word.start()
        if len(taken) == MAX_NAME_WORDS:
            break
    if taken and taken[-1].group()[0].isupper():  # a capitalised name starts after the last lower-case word
        lowered = [i for i, w in enumerate(taken) if (not w.group()[0].isupper() and not _is_particle(w.group()))
                   or w.group() in _NAME_BREAKS]  # fmt: skip
        taken = taken[lowered[-1] + 1 :] if lowered else taken
    if taken and taken[0].start() > 0 and text[taken[0].start() - 1] in "'’-":
        return None
    return _valid(text, taken, words)


# English stop words of a particle's length that no name holds between its words ("Based in Spain", "Head of IT"
# after a sign-off): they end a capitalised name. Not Portuguese's "a" and "do" ("Maria do Carmo"), nor Dutch "ten"
# ("Anna ten Brink").
_NAME_BREAKS = frozenset(word for word in ENGLISH_STOP_WORDS if word.islower()) - {"do", "a", "i", "ten"}
# The definite articles of Spanish, Italian, French and Portuguese, which open a noun phrase ("El Gobierno", "Il
# Ministero") and a family name only with a name after them ("Le Pen").
_ARTICLES = frozenset({"el", "los", "las", "la", "il", "lo", "gli", "le", "les", "os", "as"})


def _valid(text: str, taken: list[re.Match[str]], words: NameWords) -> tuple[int, int] | None:
    """The span of `taken` when its words read as a name. In a capitalised name, its short lower-case words are
    particles ("Senna de Jonge"); in one typed in lower case, only stop words are ("job van klaarwater" keeps "job")."""
    lower = all(w.group().islower() for w in taken if not _is_initial(w.group()))

    def particle(word: str) -> bool:
        return words.is_stop(word) if lower else _is_particle(word)

    def filler(match: re.Match[str]) -> bool:
        return particle(match.group()) or _is_initial(match.group())

    start, end = 0, len(taken)
    while start < end and filler(taken[start]):
        start += 1  # a name starts with a name, not with a particle or an initial
    while end > start and filler(taken[end - 1]):
        end -= 1  # nor ends with one
    taken = taken[start:end]
    if lower:
        taken = _english_words_cut(taken, words)
        while taken and filler(taken[0]):
            taken = taken[1:]
        while taken and filler(taken[-1]):
            taken = taken[:-1]
    if not lower:  # a capitalised name ends before its first lower-case word that is no particle
        cut = next((i for i, w in enumerate(taken) if (not filler(w) and not w.group()[0].isupper())
                    or w.group() in _NAME_BREAKS), len(taken))  # fmt: skip
        taken = taken[:cut]
        while taken and filler(taken[-1]):
            taken = taken[:-1]
    names = [w.group() for w in taken if not filler(w)]
    if not names:
        return None
    if _in_capitals(names):
        # A form's capitals ("XIOMARA QUISPE"): a known name and no dictionary word, so "IBAN SWIFT" or "DEAR
        # CUSTOMER" name nobody.
        known = any(words.is_name(name.capitalize()) for name in names)
        ordinary = any(words.is_common(name) or words.is_stop(name) for name in names)
        return (taken[0].start(), taken[-1].end()) if known and not ordinary else None
    if not (lower or all(name[0].isupper() and not name.isupper() for name in names)):
        return None
    if lower and len(names) > MAX_LOWER_CASE_NAME_WORDS:
        return None
    if not lower and names[0].casefold() in _ARTICLES and not any(words.is_name(name) for name in names[1:]):
        return None  # "El Gobierno aprobó", "La Comisión dijo": an article and a noun; "Le Pen", "La Toya" are names
    known = any(words.is_name(name) for name in names)
    dictionary = all(words.is_common(name) and not (lower and _proper_given_name(name)) for name in names)
    if lower and dictionary and not (len(names) > 1 and words.is_first(names[0]) and words.is_name(names[-1])):
        return None  # "thx man", "ping support"; "hey its anthony pastor here" is a first and a last name
    if not lower and dictionary and not (known if len(names) > 1 else words.is_first(names[0])):
        return None  # "Dear Customer", "Hi Team", "reviewed by Legal" ("Legal" is a surname too; "Grace" a first name)
    end = taken[-1].end()
    if len(taken[-1].group()) > 2 and text[end - 1] == ".":
        end -= 1  # a sentence's full stop, not an initial's period
    return taken[0].start(), end


def _proper_given_name(word: str) -> bool:
    """Whether a word of three letters or more is a common given name (``person_names``' ``given``) that WordNet
    writes capitalised in every sense (``proper_nouns``: "teresa", "inger") and no month or weekday: the dictionary
    holds it as a name, not as an ordinary word, so typed in lower case after a cue it names a person ("happy bday
    teresa"; "thx man" holds a lower-case noun, "per june" a date). Outside the English-speaking countries' common
    given names, it must be no frequent word of a language of ``frequent_words`` ("sono nato il ...": Italian's
    "born")."""
    folded = word.casefold()
    names = known_names()
    return (len(folded) > 2 and folded in proper_nouns() and folded in names.given
            and (folded in names.given_english or folded not in frequent_in_any())
            and folded not in _calendar_words())  # fmt: skip


@cache
def _verb_titles() -> frozenset[str]:
    """The titles that are English verbs too ("miss", "don"): typed in lower case before a place the gazetteer or NER
    found, one is the verb ("miss wujiaqu so much"), not a title."""
    from gateway.guardrails.places import english_words  # places reads this module's phrase_pattern

    return frozenset(title for title in TITLE_WORDS if title in english_words().verbs)


@cache
def _calendar_words() -> frozenset[str]:
    """Month and weekday names (``dates.calendar_words``): "per april", "until june" name a date, not a person."""
    from gateway.guardrails.dates import calendar_words  # dates reads this module's phrase_pattern

    return calendar_words()


def _english_words_cut(taken: list[re.Match[str]], words: NameWords) -> list[re.Match[str]]:
    """A lower-case name's words without the English around it: a contraction of an English stop word before it
    ("hey it's pascual again": "it's"), and from an English stop word after its first word on ("valérie for fixing
    the build", "tell pintusorn tungkasethakul i said hi"), a word with no vowel ("lunch w/ inta tmrw") or a frequent
    English word that is no known name ("ping devops later", "thx ana again"; "hugo conrad" and "anna may" are names
    too). A name's particles are no English stop words ("de", "da", "van", "von"); an initial keeps its period
    ("qasim d. man")."""
    while taken and any(mark in taken[0].group() for mark in "'’ʼ") \
            and re.split(r"['’ʼ]", taken[0].group())[0] in ENGLISH_STOP_WORDS:  # fmt: skip
        taken = taken[1:]
    cut = next((i for i, w in enumerate(taken) if i and (w.group() in ENGLISH_STOP_WORDS or is_vowelless(w.group())
                                                          or _english_not_name(w.group(), words))),
               len(taken))  # fmt: skip
    return taken[:cut]


def _english_not_name(word: str, words: NameWords) -> bool:
    """Whether `word` is a frequent English word (``frequent_words``) that the name list does not know ("later",
    "today"): after a lower-case name's first word, the sentence running on."""
    return word in frequent_words("en") and not words.is_name(word)


def is_vowelless(word: str) -> bool:
    """Whether a word of ASCII letters holds no vowel: a chat abbreviation ("tmrw", "btw", "thx"), no name's."""
    return len(word) > 1 and word.isascii() and word.isalpha() and not any(char in "aeiouy" for char in word.lower())


# The head nouns of a team's, a desk's or an office's name, and a company's legal form: "Assigned to: Field Services",
# "Reporter: Night Shift", "owner: Claims Unit", "customer: Acme Holdings". A person's name ends in a surname.
UNIT_NOUNS = frozenset({"team", "teams", "desk", "desks", "unit", "units", "office", "offices", "department", "dept",
                        "services", "service", "support", "shift", "group", "squad", "crew", "centre", "center",
                        "division", "bureau", "committee", "board", "staff", "operations", "ops", "queue", "helpdesk",
                        "registry", "administration", "management", "payroll", "billing", "records", "pool", "section",
                        "agency", "council", "ministry", "clinic", "ward", "lab", "laboratory",
                        "pharmacy", "ltd", "inc", "llc", "plc", "gmbh", "corp", "holdings", "company"})  # fmt: skip


def names_a_group(names: Sequence[str], words: NameWords) -> bool:
    """Whether the words where a person's name could stand name a desk, a team, an office, a company or a list
    instead ("Facilities Desk", "All Staff", "Claims Unit Tax", "Acme Holdings"). Two words or more, and
    - the first an English stop word that is no known first name ("All Staff", "Their VPN"; "Will Hansson" is a
      person), or
    - the first no known first name (or one that is a stop word of the languages read: "Uma" is Portuguese's) and
      either a later word a team's head noun (``UNIT_NOUNS``: "Claims Unit", and "Claims Unit Tax" where a
      sentence runs on after it) or every word an English dictionary word or stop word, the last no known name
      ("Customer Care"; "Uma Vargas" is a person, and so is "Brenik Stamp": the dictionary holds many surnames, so a
      last word alone in it tells nothing).
    A reader with no dictionary and no stop words (empty `words.common_words`, `words.stop_words`) has the head
    nouns alone."""
    if len(names) < 2:
        return False
    first_name = words.is_first(names[0])
    if names[0].casefold() in ENGLISH_STOP_WORDS and not first_name:
        return True
    if first_name and not words.is_stop(names[0]):
        return False  # "John Office", "Grace Baker"
    if any(name.casefold() in UNIT_NOUNS for name in names[1:]):
        return True
    ordinary = all(words.is_common(name) or words.is_stop(name) for name in names)
    return ordinary and not words.is_name(names[-1].capitalize())


def ordinary_words(names: Sequence[str], words: NameWords) -> bool:
    """Whether the words where a person's name could stand are all English dictionary or stop words and the first
    is no known first name: a heading, a desk or the start of a sentence ("Customer Care", "National ID", "Tier",
    "Our"), not a person ("Grace Baker", "Will Smith" open with a first name; "Arash Ahmady" holds a word no
    dictionary does). The last-name list is no help here: it holds "The", "Case" and "Date"."""
    return (bool(names) and not words.is_first(names[0])
            and all(words.is_common(name) or words.is_stop(name) for name in names))  # fmt: skip


def _in_capitals(names: list[str]) -> bool:
    """Two words or more, each written in capitals of two letters or more."""
    return len(names) >= 2 and all(name.isupper() and len(name) > 1 for name in names)


def _cue_spans(lowered: str) -> Iterator[tuple[bool, int, int]]:
    """(whether a cue before a name, start, end) of each match of ``_CUE`` in the lower-cased text, in order: its two
    branches searched apart and merged as one search finds them (no position opens both: a phrase before a name opens
    with a letter, one after it with a space), each searched again from where the last match taken ends."""
    position = 0
    before = _before_cue(lowered, 0)
    after = _after_cue(lowered, 0)
    while before is not None or after is not None:
        is_before = after is None or (before is not None and before[0] < after[0])
        cue = before if is_before else after
        assert cue is not None  # one of them is none only when the other is the one taken
        start, end = cue
        yield is_before, start, end
        position = end
        if before is not None and before[0] < position:
            before = _before_cue(lowered, position)
        if after is not None and after[0] < position:
            after = _after_cue(lowered, position)


def _before_cue(lowered: str, position: int) -> tuple[int, int] | None:
    """The span of the first match at or after `position` of ``_CUE``'s branch for a cue before a name."""
    if not position and (cue := _BEFORE_CUE_AT_START.match(lowered)) is not None:
        return cue.span()
    search_from = max(0, position - 1)
    while (cue := _BEFORE_CUE_AFTER_NON_ASCII_WORD.search(lowered, search_from)) is not None:
        if _NOT_BEFORE_CUE.match(lowered, cue.start()) is None:  # not after a letter outside ASCII ("é", "ß")
            return cue.start() + 1, cue.end()
        search_from = cue.start() + 1
    return None


def _after_cue(lowered: str, position: int) -> tuple[int, int] | None:
    """The span of the first match at or after `position` of ``_CUE``'s branch for a cue after a name: it opens
    where the run of spaces and tabs before the phrase does (not before `position`)."""
    cue = _AFTER_CUE_AFTER_SPACE.search(lowered, position)
    if cue is None:
        return None
    start = cue.start()
    while start > position and lowered[start - 1] in " \t":
        start -= 1
    return start, cue.end()


def _sign_off_ends(lowered: str) -> list[int]:
    """Where each match of ``_SIGN_OFF_LINE`` in the lower-cased text ends."""
    first = _SIGN_OFF_LINE_AT_START.match(lowered)
    position = 0 if first is None else first.end()
    following = [line.end() for line in _SIGN_OFF_LINE_AFTER_BREAK.finditer(lowered, position)]
    return following if first is None else [position, *following]


def _lower_case_checked(text: str, lowered: str, cue_start: int, cue_end: int, span: tuple[int, int] | None,
                        words: NameWords) -> tuple[int, int] | None:  # fmt: skip
    """`span`, the name a cue before it points at, unless typed in lower case and either the cue said again ("ty
    ty", "hey hey", "thx thx") or after an introduction that as often tells a state (``STATE_OR_NAME``) and opening
    with a word of two letters or one the name list does not know ("i'm legit lol", "i'm gonna be late", "je suis
    né le ..."); capitalised, unless after an introduction that tells a state or a place in any case
    (``_STATE_OR_NAME_ANY_CASE``) and opening with such a word ("Jestem w Warszawie"); in either case, unless after
    regards or a hand-over of ordinary words (``_KNOWN_NAME_ONLY``) and opening with such a word ("Grüß Gott")."""
    if span is None:
        return None
    cue = lowered[cue_start:cue_end].strip(" \t.,:").split()
    named = _WORD.findall(text, span[0], span[1])
    known = (len(named[0]) > 2 and words.is_name(named[0])) or _middle_initialled(named, words)
    said = " ".join(cue)
    if said in _KNOWN_NAME_ONLY and not known:
        return None
    if said in _FIRST_NAME_ONLY and not (words.is_first(named[0]) and named[0].casefold() not in _calendar_words()):
        return None
    if not text[span[0] : span[1]].islower():
        return span if known or said not in _STATE_OR_NAME_ANY_CASE else None
    if cue and named[0].casefold() == cue[-1]:
        return None
    if said in STATE_OR_NAME and not known:
        return None
    return span


def _middle_initialled(named: Sequence[str], words: NameWords) -> bool:
    """Whether `named` is a given name, middle initials and a family name, each name capitalised and no stop or
    English dictionary word ("Γκίκας K. Κακοσαίος", "Anon P. Phusilarungrueng"): the shape of a person's name, whatever
    the name list knows (not "Plan B", "Vitamin D. Take")."""
    outer = (named[0], named[-1]) if len(named) > 2 else ()
    return (
        bool(outer)
        and all(_is_initial(word) and word[0].isupper() for word in named[1:-1])
        and all(len(word) > 2 and word[0].isupper() and not word.isupper() for word in outer)
        and not any(words.is_stop(word) or words.is_common(word) for word in outer)
    )


# A signature's separator line ("-- ", "__________", "—"), or a blank one (a no-break space counts as blank).
_SEPARATOR_LINE = re.compile(r"[ \t\u00a0\r]*(?:-- ?|[-_—–=~*]{3,}|[—–])?[ \t\u00a0\r]*")
# A signature's delimiter line ("-- ", "--", "____"), quoted or not.
_DELIMITER_LINE = re.compile(r"[> \t]*(?:--[ \t]?|_{3,})[ \t\r\u00a0]*")
# A line that ends in a comma, an exclamation mark or a full stop (a closing may: "Thanks,", "Danke!", "Mvh.").
_LINE_END_MARK = re.compile(r"[,!.][ \t\r\u00a0]*\n")
MAX_CLOSING_WORDS = 6
MAX_SKIPPED_LINES = 2


def _particle_or_stop(word: str, words: NameWords) -> bool:
    """Whether `word` is a stop word of a particle's length ("De", "da", "La"): the name list holds those too, so
    they tell no team's name ("De Servicedesk", "Departamento de Facturación") from a person's."""
    return len(word) <= MAX_PARTICLE_LETTERS and words.is_stop(word)


def _first_name_alone(name: str, words: NameWords) -> bool:
    """Whether `name` is one known first name of three letters or more that is no stop or dictionary word."""
    return (len(name) > 2 and " " not in name and words.is_first(name) and not words.is_stop(name)
            and not words.is_common(name))  # fmt: skip


# A word of letters alone (not a piece of a token: "xoxb-24410-7IllaoCLMI", "wWChI+RrW5VNQ6").
_LETTERS_WORD = re.compile(r"(?<![\w'’+/=-])[^\W\d_]+(?![\w'’+/=-])")
_LINE_OPENING = re.compile(r"(?m)^[> \t]*([^\W\d_]+)(?![\w'’+/=-])")  # a line's first word, if of letters alone


def _capitalised_around(text: str, span: tuple[int, int]) -> bool:
    """Whether the writer of a lower-case name capitalises: a capitalised word stands in its line (from after a chat
    speaker's colon: "[10:42] Ana: thx ruben"), or, where no speaker's colon opens the line, a line of the text opens
    with one ("Bedankt voor je snelle reactie", "Hallo,\n\nbedankt voor ...", "Se lo avete ricevuto per errore"):
    then the lower-case words are no name."""
    line_start = text.rfind("\n", 0, span[0]) + 1
    colon = text.rfind(": ", line_start, span[0])
    line_end = text.find("\n", span[1])
    line = text[line_start if colon < 0 else colon + 2 : len(text) if line_end < 0 else line_end]
    words = [*_LETTERS_WORD.findall(line), *([] if colon >= 0 else _LINE_OPENING.findall(text))]
    return any(len(word) > 1 and word[0].isupper() and word[1].islower() for word in words)


# A name line in a signature written with initials or the family name in capitals first ("A. Brown", "J.-P. Roux",
# "SMITH William", "O'BRIEN Connor").
_INITIALLED = re.compile(r"(?:[^\W\d_](?:\.-?[^\W\d_])?\.[ \t]*){1,3}(?P<last>[^\W\d_]+(?:['’-][^\W\d_]+)*)")
_CAPITALS_FIRST = re.compile(r"(?P<last>[^\W\d_]+(?:['’-][^\W\d_]+)*)[ \t]+(?P<first>[^\W\d_]+(?:-[^\W\d_]+)?)")


def _shaped_name(text: str, start: int, words: NameWords, ends: Callable[[int], bool]) -> tuple[int, int] | None:
    """The span of a name at `start` written with initials before a known last name ("A. Brown", "J.-P. Roux") or
    with a family name in capitals before a known first name ("SMITH William", "O'BRIEN Connor"), whatever the
    dictionary holds, that `ends` accepts the end of."""
    for shape in (_INITIALLED, _CAPITALS_FIRST):
        match = shape.match(text, start)
        if match is None or not ends(match.end()):
            continue
        last = match.group("last")
        if shape is _INITIALLED:
            known = last[0].isupper() and words.is_name(last) and not words.is_stop(last)
        else:
            first = match.group("first")
            family = last.title().replace("'", "").replace("’", "")  # names-dataset writes "Obrien"
            # The layout names the line a person's: a known family name in capitals, then a known name or a word no
            # dictionary holds ("QIAN Guiying", "ALEMDAR Aksoy"); "SAP Consulting" is a company's.
            known = (last.isupper() and len(last) > 2 and first[0].isupper() and not first.isupper()
                     and not words.is_stop(first) and words.is_name(family)
                     and (words.is_name(first) or not words.is_common(first)))  # fmt: skip
        if known:
            return start, match.end()
    return None


def _signature_name(text: str, start: int, words: NameWords) -> tuple[int, int] | None:
    """The span of the name that is the whole line at `start` after a closing, where a word of it is a known name
    and, alone, a known first name or no English dictionary word ("Best,\nFinance"): a team, a desk or a company
    stands there as often; or a name of ``_shaped_name``'s shapes."""
    shaped = _shaped_name(text, start, words, lambda end: _ends_line(text, end))
    if shaped is not None:
        return shaped
    span = _name_after(text, start, words)
    if span is None or not _ends_line(text, span[1]):
        return None
    if text[span[0] : span[1]].islower():
        return None  # chat typed in lower case has no layout to read ("ty!\nok cool")
    line_words = [word.rstrip(".") for word in _WORD.findall(text, span[0], span[1]) if not _is_initial(word)]
    if not any(words.is_name(word) and not _particle_or_stop(word, words) for word in line_words):
        return None  # a closing's next line with no name the list knows: a team, a desk, a company
    if len(line_words) == 1 and words.is_common(line_words[0]) and not words.is_first(line_words[0]):
        return None  # "Best,\nFinance"; but "Best wishes,\nPeter"
    return span


# An address in angle brackets after its display name, as e-mail headers and reply lines write a sender ("From:
# Ana Lima <ana@x.org>", "Am 04.03.2025 schrieb Beatriz Aguirre <b@x.ch>:", "O'BRIEN Connor (<c@x.ie>)").
_BRACKETED_ADDRESS = re.compile(r"<[^<>\s@]+@[^<>\s@]+>")


def _display_name(text: str, bracket: int, words: NameWords) -> tuple[int, int] | None:
    """The span of the display name before an address's bracket at `bracket`, where a word of it is a known name
    (a desk, a list or a company has a display name too: "Billing <billing@...>")."""
    end = bracket
    while end > 0 and text[end - 1] in ' \t"(':
        end -= 1
    span = _name_before(text, end, words)
    if span is not None:
        named = [word for word in _WORD.findall(text, span[0], span[1]) if not _is_initial(word)]
        return span if any(words.is_name(word) for word in named) else None
    line_start = text.rfind("\n", 0, end) + 1
    start = max(line_start, text.rfind(",", line_start, end) + 1, text.rfind(":", line_start, end) + 1)
    while start < end and text[start] in ' \t"':
        start += 1
    return _shaped_name(text, start, words, lambda found_end: found_end == end)


def _ends_line(text: str, end: int) -> bool:
    """Whether only spaces, a comma or a bold marker's asterisk stand between `end` and the end of its line, or a
    signature's field separator opens what follows on it ("Tristan – Service client", "Kazim | Buchhaltung")."""
    line_end = text.find("\n", end)
    rest = text[end : len(text) if line_end < 0 else line_end]
    return not rest.strip(" \t\r,*\u00a0") or _FIELD_SEPARATOR.match(rest) is not None


# What parts a signature line's fields: a dash, a bar or a middle dot between spaces ("Tristan – Service client",
# "Kazim | Sachbearbeiterin | Ironbridge GmbH", "Guadalupe · Móvil: ...").
_FIELD_SEPARATOR = re.compile(r"[ \t\u00a0]+[-–—|·•][ \t\u00a0]+\S")
# Thanks after a name and a dash, where the line opens with the name ("Mihkel - thanks for the repro!", "Marta Kowal
# — merci"): the thanks words of ``_BEFORE`` that are no greeting too.
_THANKS = ("thanks", "thank you", "thx", "ty", "cheers", "kudos", "merci", "gracias", "danke", "grazie", "obrigado",
           "obrigada", "bedankt", "dank je", "dank u")  # fmt: skip
_DASHED_THANKS = re.compile(rf"[-–—][ \t]+(?:{phrase_pattern(_THANKS)})(?![\w'’-])")  # opens with the dash (a space
# before it is checked after a match: a pattern opening with spaces is tried at every one)
# A sign-off that is a dash and a name on a line of its own ("— Ilse", "-- Marta Kowal"), as the text's last words.
_DASHED_SIGNATURE = re.compile(r"[ \t]*(?:[—–]|--)[ \t]*(?=[^\W\d_])")  # not "- ": a list's item
# The same dash opening any line (from the line break: a literal the engine skips to), and a closing that is all of
# a line ("All the best,", "Cordialement"): a dash-led name line after one signs a message wherever it stands
# ("All the best,\n— Kipenzi\nAdresse: ...").
_DASHED_LINE = re.compile(r"\n[ \t]*(?:[—–]|--)[ \t]*(?=[^\W\d_])")
_CLOSING_LINE = re.compile(rf"[ \t>]*(?:{_CLOSING_PHRASES})[ \t]*[,!.]?[ \t\r]*")
# Post-nominal letters after a name and a comma ("Akinyi Irungu, GP", "J. Okafor, RN", "Ana Ruiz, PhD"): academic
# degrees (ISCED 6-8 as English-language universities abbreviate them), the licences of the regulated health, law,
# accounting and engineering professions, and the British orders' letters; written as their bodies write them. Not
# those that are US state or Canadian province codes too ("MA", "MS", "PA", "PE", "SC", "CA": "Jackson, MS"), but
# "MD", whose name needs two words at least (``_post_nominal_names``).
POST_NOMINALS = (
    "PhD", "Ph.D.", "DPhil", "EdD", "Ed.D.", "DSc", "MD", "M.D.", "DO", "D.O.", "MBBS", "MBChB", "BMBS", "DDS",
    "D.D.S.", "DMD", "D.M.D.", "DVM", "D.V.M.", "PharmD", "Pharm.D.", "DNP", "DPT", "OD", "PsyD", "Psy.D.", "JD",
    "J.D.", "LLB", "LL.B.", "LLM", "LL.M.", "MBA", "M.B.A.", "MPH", "MSc", "M.Sc.", "M.A.", "MEng",
    "MSN", "MSW", "BSc", "B.Sc.", "BA", "B.A.", "BEng", "BSN", "RN", "R.N.", "LPN", "NP", "APRN", "CNM", "CRNA",
    "PA-C", "GP", "FRCS", "FRCP", "FRCPC", "MRCP", "MRCGP", "FRCGP", "FACP", "FACS", "RD", "LCSW", "OT", "PT",
    "CPA", "ACA", "FCA", "ACCA", "CFA", "CMA", "P.E.", "PEng", "P.Eng.", "CEng", "Esq", "Esq.", "KC", "QC", "OBE",
    "MBE", "CBE", "KBE", "DBE",
)  # fmt: skip
_POST_NOMINAL = re.compile(rf",[ \t]+(?:{'|'.join(re.escape(p) for p in sorted(POST_NOMINALS, key=len, reverse=True))})"
                           r"(?![\w-]|\.\w|[ \t]*\d)")  # fmt: skip


def _signature_name_starts(text: str) -> list[int]:
    """Where a signature's name line may start, by an e-mail's layout whatever its words: the line after a closing
    (a short line ending in a comma or an exclamation mark, "Un caro saluto,", "Grazie mille,", "Thanks!"), after a
    signature's delimiter ("-- "), or the text's last line after a line ending a sentence ("Låter bra, tack.\n\nYuki");
    blank lines and a separator ("____") between them skipped, and a quoted reply's "> " before each."""
    if "\n" not in text or text.lstrip()[:1] in ("{", "["):
        return []  # one line; or a JSON document, whose lines are its fields' (an e-mail in it is a string)
    last = len(text.rstrip(" \t\r\n\u00a0"))
    final_line = text.rfind("\n", 0, last) + 1
    starts: list[int] = []
    for mark in _line_end_marks(text, last):
        if not text[mark - 1 : mark].isalpha():
            continue  # a closing ends in a word ("Thanks,"), a JSON line or a log line in a quote, a digit, a bracket
        full_stop = text[mark] == "."
        line_end = text.find("\n", mark)
        if full_stop and (final_line - line_end > 40 or text[line_end:final_line].strip(" \t\r\n\u00a0-_>")):
            continue  # a sentence's full stop counts only before the text's last line
        line_start = text.rfind("\n", 0, mark) + 1
        closing = text[_after_quote_marks(text, line_start) : mark + 1].strip(" \t\r\u00a0")
        if not closing[:1].isalpha() or (start := _after_blank_lines(text, line_end + 1)) is None:
            continue
        if start >= final_line or (not full_stop and len(closing.split()) <= MAX_CLOSING_WORDS
                                   and not any(char.isdigit() or char in "@:" for char in closing)):  # fmt: skip
            starts.append(start)
    for dashes in ("--", "___"):
        position = text.find(dashes)
        while position >= 0:
            line_start = text.rfind("\n", 0, position) + 1
            line_end = text.find("\n", position)
            if line_end < 0:
                break
            if _DELIMITER_LINE.fullmatch(text, line_start, line_end):
                start = _after_blank_lines(text, line_end + 1)
                if start is not None:
                    starts.append(start)
            position = text.find(dashes, line_end)
    return sorted(set(starts))


def _line_end_marks(text: str, end: int) -> list[int]:
    """Where a line before `end` ends in a comma, an exclamation mark or a full stop (spaces may follow it)."""
    return [mark.start() for mark in _LINE_END_MARK.finditer(text, 0, end)]


def _after_quote_marks(text: str, start: int) -> int:
    """Where a line starting at `start` starts after a quoted reply's marks ("> ", ">> ")."""
    while start < len(text) and text[start] in "> \t" and text[start : start + 1] != "\n":
        start += 1
    return start


def _after_blank_lines(text: str, start: int) -> int | None:
    """Where the words of the next line with words start, from `start` (a line's start) on, past at most
    ``MAX_SKIPPED_LINES`` blank or separator lines (and quote marks, and a bold marker's asterisk); None where
    none does or more stand between."""
    for _ in range(MAX_SKIPPED_LINES + 1):
        start = _after_quote_marks(text, start)
        line_end = text.find("\n", start)
        line = text[start : len(text) if line_end < 0 else line_end]
        if not _SEPARATOR_LINE.fullmatch(line):
            return start + (line[:1] == "*") if line[:1].isalpha() or line[:2][-1:].isalpha() else None
        if line_end < 0:
            return None
        start = line_end + 1
    return None


def _names_a_thing(lowered: str, cue_start: int, words: NameWords) -> bool:
    """Whether the "name" label at `cue_start` follows a noun of a thing on its line ("item name", "file_name")."""
    before = _WORD_BEFORE.search(lowered, max(0, cue_start - 40), cue_start)
    if before is None:
        return False
    noun = before.group(1)
    return words.is_common(noun) and noun not in person_nouns() and noun not in _PERSON_NAME_QUALIFIERS


def _code_word(word: str, words: NameWords) -> bool:
    """Whether `word` is two dictionary words or more run together, each capitalised ("PaymentIntent"); names that
    look so ("McDonald", "MacArthur", "DeShawn") hold a part no dictionary lists."""
    humps = _CAMEL_HUMP.findall(word)
    return len(humps) >= 2 and "".join(humps) == word and all(len(hump) > 2 and words.is_common(hump) for hump in humps)


def cued_names(text: str, words: NameWords, taken: Iterable[Finding]) -> list[Finding]:
    """PERSON spans a cue points at, that no finding in `taken` overlaps. A cue before a name beats a place
    gazetteer ("Dear Florence"); the line after a sign-off does not (a signature often ends with a city)."""
    taken = list(taken)
    places = [(f.start, f.end) for f in taken if f.entity_type == "LOCATION"]
    spans = SpanIndex((f.start, f.end) for f in taken if f.entity_type != "LOCATION")
    found: list[Finding] = []

    def add(span: tuple[int, int] | None) -> None:
        if span is None or spans.overlaps(*span):
            return
        named = _WORD.findall(text, span[0], span[1])
        if len(named) == 1 and _code_word(named[0], words):
            return  # a class or a record type a label names: "Name: PaymentIntent"
        if named[0][0].isupper() and names_a_group(named, words):
            return  # a desk or a team a hand-over points at: "Handled by Field Services", "To: All Staff"
        lower = text[span[0] : span[1]].islower()
        if lower and _capitalised_around(text, span):
            return  # "Bedankt voor je snelle reactie", "ricevuto per errore": a writer who capitalises names
        found.append(Finding("PERSON", span[0], span[1], LOWER_CASE_CUED_SCORE if lower else CUED_SCORE,
                             "name_cues"))  # fmt: skip
        spans.add(*span)

    lowered = text.lower()
    same_length = len(lowered) == len(text)
    cues = (_cue_spans(lowered) if same_length
            else ((cue.group("before") is not None, *cue.span()) for cue in _CUE_ANY_CASE.finditer(text)))  # fmt: skip
    for before, cue_start, cue_end in cues:
        if before:
            if not _SIGN_OFF_AT.match(text, cue_start):  # "Liebe Grüße", "Beste groeten": a closing
                cue = lowered[cue_start:cue_end].strip(" \t,:")
                # a title; with a period, one that abbreviates ("Mme. Vos"; "... veramente don. Forse": a full stop)
                title = cue.rstrip(".") in _TITLE_SET and (not cue.endswith(".") or cue[:-1] in _ABBREVIATED_TITLES)
                if cue == _NAME_LABEL and _names_a_thing(lowered, cue_start, words):
                    continue  # "Item Name: ThinkPad X1 Carbon"
                span = _name_after(text, cue_end, words, title=title or cue in _ADDRESS_TITLES)
                if cue in _ADDRESS_TITLES and span is not None and not text[span[0]].isupper():
                    continue  # "il maestro arriva domani": an ordinary word
                lower_verb = title and span is not None and text[span[0] : span[1]].islower() and cue in _verb_titles()
                yields_to_places = " ".join(cue.split()) in _KNOWN_NAME_ONLY | _FIRST_NAME_ONLY or lower_verb
                if yields_to_places and span is not None and any(
                        start <= span[0] and span[1] <= end for start, end in places):  # fmt: skip
                    continue  # "saluti a Roma", "contacta con Valencia", "miss wujiaqu so much": a place found
                add(_lower_case_checked(text, lowered, cue_start, cue_end, span, words))
        else:
            add(_name_before(text, cue_start, words))  # the name ends where the space before the verb starts
    if any(honorific in text for honorific in HONORIFICS):
        for honorific in _HONORIFIC.finditer(text):
            if not honorific.start() or _LATIN_LETTER.match(text, honorific.start() - 1) is None:
                continue
            start = _LATIN_RUN.search(text, max(0, honorific.start() - 80), honorific.start())
            if start is not None:  # the name as if the text began where its letters do: "担当は" is no word of it
                span = _name_before(text[start.start() : honorific.start()], honorific.start() - start.start(), words)
                add(None if span is None else (span[0] + start.start(), span[1] + start.start()))
    if ":" in text and any(word in lowered for word in _SUBJECT_WORDS):
        for header in _SENDER_HEADER.finditer(text):
            add(_name_after(text, header.end(), words))
    sign_offs = (_sign_off_ends(lowered) if same_length
                 else [sign_off.end() for sign_off in _SIGN_OFF_LINE_ANY_CASE.finditer(text)])  # fmt: skip
    if "<" in text and "@" in text:
        for address in _BRACKETED_ADDRESS.finditer(text):
            add(_display_name(text, address.start(), words))
    for name_start in _signature_name_starts(text):
        span = _signature_name(text, name_start, words)
        if span is not None and (_first_name_alone(text[span[0] : span[1]], words) or not any(
                begin <= span[0] and span[1] <= end for begin, end in places)):  # fmt: skip
            add(span)  # a place that is all the line yields, unless the line is a first name alone ("Yuki")
    for span in _post_nominal_names(text, words):
        if not any(start < span[1] and span[0] < end for start, end in places):
            add(span)  # "Akinyi Irungu, GP"; not "Bethesda, MD" (a place)
    for span in _dashed_names(text, lowered, words, places):
        add(span)
    for span in _inline_closing_names(text, lowered, words, places):
        add(span)
    if "@" in text:
        for span in _mentioned_names(text, words):
            add(span)
    for span in _appositive_names(text, lowered, words):
        add(span)
    for line_end in sign_offs:
        if line_end >= len(text):
            continue
        next_end = text.find("\n", line_end + 1)
        next_end = len(text) if next_end < 0 else next_end
        span = _name_after(text, line_end + 1, words)
        if span is None or (text[span[1] : next_end].strip(" \t\r,")
                            and _FIELD_SEPARATOR.match(text, span[1], next_end) is None):  # fmt: skip
            continue  # the name must be the whole next line, or its first field ("Tristan – Service client")
        line_words = _WORD.findall(text, span[0], span[1])
        if (
            not any(words.is_name(word) and not _particle_or_stop(word, words) for word in line_words)
            and not (len(line_words) == 1 and not words.is_common(line_words[0]))
            and not _unlisted_pair(line_words, words)
        ):
            continue  # with no name the list knows, two words are as likely a company's ("Acme GmbH")
        if not any(start <= span[0] and span[1] <= end for start, end in places):
            add(span)  # unless the whole line is a place
    return found


def _unlisted_pair(line_words: Sequence[str], words: NameWords) -> bool:
    """Whether a sign-off's next line is two capitalised words of three letters or more that no list knows: no English
    dictionary or stop word, no head noun of a team or a company's form (``UNIT_NOUNS``), none in capitals ("Cheers,\n
    Pattapon Chaisatit"). A name list cannot hold every family name, and a company's name holds a word the dictionary
    does ("Acme Widgets") or its legal form ("Initech GmbH", which ``not_names`` drops whatever found it)."""
    return len(line_words) == 2 and all(
        len(word) > 2 and word.isalpha() and word[0].isupper() and not word.isupper() and not words.is_common(word)
        and not words.is_stop(word) and word.casefold() not in UNIT_NOUNS for word in line_words)  # fmt: skip


def _unlisted_word_line(text: str, start: int, words: NameWords) -> tuple[int, int] | None:
    """The span of one capitalised word at `start` that ends its line, of three letters or more, and no English
    dictionary or stop word ("Temistocle")."""
    word = _WORD.match(text, start)
    if word is None or not _ends_line(text, word.end()):
        return None
    name = word.group()
    plain = len(name) > 2 and name[0].isupper() and not name.isupper() and name.isalpha()
    return word.span() if plain and not words.is_common(name) and not words.is_stop(name) else None


def _inline_closing_names(text: str, lowered: str, words: NameWords,
                          places: list[tuple[int, int]]) -> list[tuple[int, int]]:  # fmt: skip
    """The name after a closing on the same line, where the closing opens a line or a sentence and the name ends the
    line ("Viene desde Guam.\nSaludos, Mariano", "Cordiali saluti, Temistocle", "VG Boban", "Gruß Beni Schindler"):
    a line of ``_signature_name``'s, or one capitalised word of three letters or more that no list knows and that is
    no English dictionary or stop word, as after a sign-off line ("Temistocle"; not "Thanks, Team"). A place that is
    all the line yields ("Saludos, Montevideo"), unless it is one common given name (``person_names``' ``given``) of
    three letters or more that is no stop word ("Mariano")."""
    if len(lowered) != len(text):
        return []
    found: list[tuple[int, int]] = []
    openings = (0, *(mark.end() for mark in _LINE_OPENINGS.finditer(lowered)),
                *(mark.end() for mark in _SENTENCE_OPENINGS.finditer(lowered)))  # fmt: skip
    for opening in sorted(openings):
        closing = _INLINE_CLOSING.match(lowered, opening)
        if closing is None:
            continue
        span = _name_after_closing(text, closing.end(), words, places)
        if span is not None:
            found.append(span)
    return found


def _name_after_closing(text: str, at: int, words: NameWords,
                        places: list[tuple[int, int]]) -> tuple[int, int] | None:  # fmt: skip
    """The writer's name at `at`, after a closing: a line of ``_signature_name``'s or one capitalised word no list
    knows and no English dictionary or stop word; not a line in capitals, nor a place that is all the line yields
    unless it is one common given name (``person_names``' ``given``) of three letters or more that is no stop word."""
    span = _signature_name(text, at, words) or _unlisted_word_line(text, at, words)
    if span is None or text[span[0] : span[1]].isupper():
        return None
    named = _WORD.findall(text, span[0], span[1])
    given = (len(named) == 1 and len(named[0]) > 2 and named[0].casefold() in known_names().given
             and not words.is_stop(named[0]))  # fmt: skip
    if given or not any(start <= span[0] and span[1] <= end for start, end in places):
        return span
    return None


# An @-mention in prose, as chat and issue trackers write one ("ping @Kristine or me", "thanks @Ana Lima"): an "@"
# after a space, a line's start or an opening bracket, not inside an address or a handle ("ana@x.org", "x@@y").
_MENTION = re.compile(r"@(?=[^\W\d_])")
_NOT_BEFORE_MENTION = re.compile(r"[\w@.+-]")


def _mentioned_names(text: str, words: NameWords) -> list[tuple[int, int]]:
    """The capitalised name an @-mention writes, where its first word is a common given name (``person_names``'
    ``given``) that is no stop word, and no bracket follows it (a decorator or an annotation: "@Grace(...)"); a user
    name ("@octocat", "@sre-oncall") and a code annotation ("@Override", "@Component") name nobody."""
    given = known_names().given
    found: list[tuple[int, int]] = []
    for mention in _MENTION.finditer(text):
        if mention.start() and _NOT_BEFORE_MENTION.match(text, mention.start() - 1):
            continue
        span = _name_after(text, mention.end(), words)
        if span is None or span[0] != mention.end() or text[span[1] : span[1] + 1] == "(":
            continue
        first = _WORD.match(text, span[0])
        name = "" if first is None else first.group()
        if name[:1].isupper() and not name.isupper() and name.casefold() in given and not words.is_stop(name):
            found.append(span)
    return found


# A noun of a person after a determiner, then a comma or an opening bracket: the name the appositive gives ("The driver
# (Tristan) was polite", "Our client, Haskins, denies", "my landlord, Ana Lima, says"), in the lower-cased text.
_APPOSITIVE = re.compile(r"(?:the|our|my|your|his|her|their)[ \t]+([a-z]+)[ \t]*[,(][ \t]*(?=[^\W\d_])")
_APPOSITIVE_END = re.compile(r"[ \t]*[,)]")


def _appositive_names(text: str, lowered: str, words: NameWords) -> list[tuple[int, int]]:
    """The capitalised name in an appositive after a determiner and a noun whose most frequent WordNet sense is a
    person (``person_nouns``: "driver", "client", "host"), closed by a comma or a bracket, where a word of it is a
    known name or no English dictionary word ("the customer, Acme, ..." is a company's; "the team (Support)" no
    person's noun)."""
    if len(lowered) != len(text) or ("," not in text and "(" not in text):
        return []
    found: list[tuple[int, int]] = []
    for appositive in _APPOSITIVE.finditer(lowered):
        if appositive.group(1) not in person_nouns() or not text[appositive.end()].isupper():
            continue
        if appositive.start() and _NOT_BEFORE_CUE.match(lowered, appositive.start() - 1) is not None:
            continue
        span = _name_after(text, appositive.end(), words)
        if span is None or span[0] != appositive.end() or _APPOSITIVE_END.match(text, span[1]) is None:
            continue
        named = [word for word in _WORD.findall(text, span[0], span[1]) if not _is_initial(word)]
        if any(words.is_name(word) or not words.is_common(word) for word in named):
            found.append(span)
    return found


# English stop words in lower case, a capitalised run of words holds before a name ("Referred by Akinyi Irungu"),
# less those that are names' particles too (Portuguese "do": "Maria do Carmo").
_ENGLISH_NOT_PARTICLES = frozenset(word for word in ENGLISH_STOP_WORDS if word.islower()) - {"do", "a", "i"}
_INITIAL_BEFORE = re.compile(r"(?<![\w'’-])[^\W\d_]\.[ \t]*\Z")


def _post_nominal_names(text: str, words: NameWords) -> list[tuple[int, int]]:
    """The names before post-nominal letters and a comma (``POST_NOMINALS``: "Akinyi Irungu, GP", "J. Okafor, RN"):
    capitalised, of two words at least (an initial counts), not all dictionary words unless a known first name opens
    them and a known name ends them ("Data Science, MBA"; "Tom Baker, MD"), starting after the run's last English
    stop word ("Referred by Akinyi Irungu")."""
    if ", " not in text:
        return []
    found: list[tuple[int, int]] = []
    for letters in _POST_NOMINAL.finditer(text):
        span = _name_before(text, letters.start(), words)
        if span is None:
            continue
        named = _WORD.findall(text, span[0], span[1])
        cut = [i for i, word in enumerate(named) if word in _ENGLISH_NOT_PARTICLES]
        if cut:  # "Referred by Akinyi Irungu": the name starts after the English word
            named = named[cut[-1] + 1 :]
            if not named:
                continue
            span = (text.rindex(named[0], span[0], span[1] - sum(map(len, named[1:]))), span[1])
        initialled = _INITIAL_BEFORE.search(text, max(0, span[0] - 4), span[0]) is not None
        if not named[0][0].isupper() or len(named) + initialled < 2:
            continue
        if all(words.is_common(word) for word in named) and not (words.is_first(named[0])
                                                                 and words.is_name(named[-1])):  # fmt: skip
            continue  # "the Data Science, MBA track"; but "Tom Baker, MD"
        found.append(span)
    return found


def _dashed_names(text: str, lowered: str, words: NameWords, places: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """A name that opens a line before a dash and thanks ("Mihkel - thanks for the detailed repro!", "Marta Kowal —
    merci"), and one after a dash on the text's last line ("— Ilse", "-- Marta Kowal"), as ``_signature_name`` reads
    a signature's line (a place that is all of it yields, unless a first name alone: "— Paris")."""
    if not any(dash in text for dash in ("- ", "– ", "— ")):
        return []
    found: list[tuple[int, int]] = []
    if len(lowered) == len(text):
        for thanks in _DASHED_THANKS.finditer(lowered):
            end = thanks.start()
            if not end or lowered[end - 1] not in " \t":
                continue
            while end and lowered[end - 1] in " \t":
                end -= 1
            span = _name_before(text, end, words)
            line_start = text.rfind("\n", 0, end) + 1
            if span is not None and not text[line_start : span[0]].strip(" \t>*"):
                found.append(span)
    last = len(text.rstrip(" \t\r\n\u00a0"))
    final_line = text.rfind("\n", 0, last) + 1
    if final_line and (dash := _DASHED_SIGNATURE.match(text, final_line, last)) is not None:
        span = _signature_name(text, dash.end(), words)
        if span is not None and (_first_name_alone(text[span[0] : span[1]], words) or not any(
                begin <= span[0] and span[1] <= end for begin, end in places)):  # fmt: skip
            found.append(span)
    if len(lowered) == len(text):
        found.extend(span for span in _closing_dashed_names(text, lowered, words, places) if span not in found)
    return found


def _closing_dashed_names(text: str, lowered: str, words: NameWords,
                          places: list[tuple[int, int]]) -> list[tuple[int, int]]:  # fmt: skip
    """The name on a dash-led line right after a closing's line ("All the best,\n— Kipenzi\nAdresse: ...", "Thanks,\n
    -- Marta Kowal"), as ``_inline_closing_names`` reads the name after a closing on its own line: a line of
    ``_signature_name``'s, or one capitalised word that no list knows and no English dictionary or stop word ("—
    Support" names nobody); a place that is all the line yields, unless one common given name."""
    found: list[tuple[int, int]] = []
    for dash in _DASHED_LINE.finditer(text):
        line_start = text.rfind("\n", 0, dash.start()) + 1
        if _CLOSING_LINE.fullmatch(lowered, line_start, dash.start()) is None:
            continue
        span = _name_after_closing(text, dash.end(), words, places)
        if span is not None:
            found.append(span)
    return found
