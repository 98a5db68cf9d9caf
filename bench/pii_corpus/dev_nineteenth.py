"""A nineteenth `dev`-side corpus of phone numbers and national identifiers written the way people write them: its
sentences were written for it from general knowledge of prose, chat, forms, e-mail signatures, support tickets, CRM
notes, logs and records (JSON, YAML, CSV, vCard, key=value, with invented keys) in English, French, Spanish, German,
Italian, Portuguese, Dutch, Polish and the Nordic languages, before anyone looked at the other splits' phrase banks
or the detectors' label lists (a blind split: its first score measures how the detectors generalise).

    python -m bench.guardrails --split dev-19 --skip-throughput [--misses FILE]

- PHONE_NUMBER of every region and number type phonenumbers has an example of (``nineteenth_values``), written
  E.164, international, RFC 3966, dotted, dashed, with ``00``, with ``(0)``, national (for a region of the text's
  language: plain, dotted, dashed, compact, with a slash), in ``tel:`` and ``wa.me`` links, vCard ``TEL``, two
  numbers joined by "/" or "or", with an extension after it. Subtype
  ``phone:<region>:<type>:<form>:<lang>:<cue>:<context>``.
- NATIONAL_ID of the ten schemes of ``national_ids`` in their printed variants (spaced, dotted, dashed NIR; NINO
  in pairs; CPF with and without punctuation; Aadhaar 4-4-4; PAN and codice fiscale in lower case in chat; IdNr
  grouped). Subtype ``id:<scheme>:<variant>:<lang>:<cue>:<context>``.
- IBAN_CODE and CREDIT_CARD (``banking``, ``cards``) for context, PERSON and EMAIL_ADDRESS where the sentences name
  them: every phone, id, card, IBAN, e-mail and person in a text is labelled.
- The cue of each value: ``a`` a label of the language, ``b`` weak context, ``c`` none.
- Hard negatives: order, invoice, tracking, part and ticket numbers, timestamps, versions, coordinates, prices, ISBNs,
  EANs, sort codes, postcodes, phone-shaped numbers that are no valid number, ids failing their check digit.

Every case is seeded by its index; values are of the `dev` half (``partition``). Like `dev` it may be tuned on; it
was scored once before any tuning.
"""

from __future__ import annotations

import random
import re
from functools import cache

from faker import Faker

from bench.pii_corpus.banking import iban
from bench.pii_corpus.blind_dev import fill, weighted_language
from bench.pii_corpus.cards import card
from bench.pii_corpus.model import Case, Decoy, Pii, TextBuilder
from bench.pii_corpus.nineteenth_values import NEGATIVE_KINDS, national_id, negative, phone
from bench.pii_corpus.partition import draw_in_split

NAME = "dev-19"
SEED = 1901931
PHONE_TEXTS = 250
ID_TEXTS = 235
MONEY_TEXTS = 50
NEGATIVE_TEXTS = 210
LANGS = ("en", "fr", "es", "de", "it", "pt", "nl", "pl", "sv", "da", "no")
LOCALES = {"en": "en_GB", "fr": "fr_FR", "es": "es_ES", "de": "de_DE", "it": "it_IT", "pt": "pt_BR", "nl": "nl_NL",
           "pl": "pl_PL", "sv": "sv_SE", "da": "da_DK", "no": "no_NO"}  # fmt: skip
# The regions whose national forms a text of the language may hold.
HOME_REGIONS = {"en": ("US", "GB", "IE", "AU", "CA"), "fr": ("FR", "BE", "CH"), "es": ("ES", "MX", "AR"),
                "de": ("DE", "AT", "CH"), "it": ("IT",), "pt": ("PT", "BR"), "nl": ("NL", "BE"), "pl": ("PL",),
                "sv": ("SE",), "da": ("DK",), "no": ("NO",)}  # fmt: skip
# The schemes a text of the language names (other languages: any scheme, a foreign colleague's id).
SCHEMES = ("gb.nino", "de.idnr", "fr.nir", "es.dni", "es.nie", "it.codicefiscale", "br.cpf", "in.pan", "in.aadhaar",
           "us.itin")  # fmt: skip
LANG_SCHEMES = {"en": ("gb.nino", "in.pan", "in.aadhaar", "us.itin"), "fr": ("fr.nir",), "es": ("es.dni", "es.nie"),
                "de": ("de.idnr",), "it": ("it.codicefiscale",), "pt": ("br.cpf",)}  # fmt: skip
LANGUAGE_SHARE = {"en": 0.30, "fr": 0.12, "es": 0.11, "de": 0.12, "it": 0.08, "pt": 0.08, "nl": 0.05, "pl": 0.05,
                  "sv": 0.03, "da": 0.03, "no": 0.03}  # fmt: skip

# (cue, context, template[, forms]): {P}/{Q} phones, {N} a person, {E} an e-mail, {X:kind}/{Y:kind} hard negatives;
# forms, where given, restrict the phones' forms.
Template = tuple[str, ...]
PHONE_TEMPLATES: dict[str, list[Template]] = {
    "en": [
        ("a", "signature", "Best,\n{N}\nSenior Buyer\nDirect line: {P}\nSwitchboard: {Q}"),
        ("a", "signature", "--\n{N} | Account Manager\nm. {P} | e. {E}"),
        ("a", "form", "Contact telephone (incl. country code): {P}"),
        ("a", "ticket", "Customer reachable on {P} between 9 and 5, ref {X:ticket}."),
        ("b", "chat", "call me on {P} when ur free", "e164 international intl_00 national national_compact"),
        ("b", "chat", "my new number is {P} btw, the old one's dead"),
        ("b", "chat", "text {P} or {Q}, whichever"),
        ("a", "crm", "Spoke to {N} today. Best number: {P} (mobile) / {Q} (office). Follow up re {X:invoice}."),
        ("a", "crm", "Logged call from {P}, duration 4m12s, outcome: callback requested."),
        ("a", "log", "2025-11-02T08:41:07Z WARN sms.dispatch to={P} status=undelivered retry=3",
         "e164 wa_digits international"),
        ("a", "json", '{{"contact": {{"fullName": "{N}", "phoneMain": "{P}", "phoneAlt": "{Q}"}}}}'),
        ("a", "yaml", "owner:\n  name: {N}\n  reach_at: \"{P}\"\n  order_ref: {X:order}\n"),
        ("a", "csv", "id,name,tel,created\n{X:ticket},{N},{P},{Y:timestamp}\n"),
        ("a", "vcard", "BEGIN:VCARD\nVERSION:3.0\nFN:{N}\nTEL;TYPE=CELL:{P}\nTEL;TYPE=WORK,VOICE:{Q}\nEND:VCARD",
         "e164 international rfc3966 national"),
        ("a", "html", '<a href="tel:{P}">Call our helpdesk</a>', "e164 rfc3966"),
        ("b", "html", "Chat with us on WhatsApp: https://wa.me/{P}", "wa_digits"),
        ("a", "prose", "For urgent matters outside office hours please ring {P}, ext. 2207."),
        ("b", "prose", "You can reach the duty engineer at {P} until midnight."),
        ("c", "prose", "{N} — {P}"),
        ("c", "list", "Escalation list:\n1. {N}  {P}\n2. on-call  {Q}"),
        ("a", "email", "Hi team,\nplease use {P} for the conference bridge, PIN 4471#.\nThanks"),
        ("a", "form", "Phone (home): {P}\nPhone (work): {Q}"),
        ("b", "sms", "Missed call from {P} at 14:02"),
        ("a", "ticket", "Caller left voicemail, said to phone back on {P} x318"),
        ("c", "table", "| Site | Reception |\n| HQ | {P} |\n| Annex | {Q} |"),
    ],
    "fr": [
        ("a", "signature", "Cordialement,\n{N}\nTél. : {P}\nPortable : {Q}"),
        ("a", "form", "Numéro de téléphone : {P}"),
        ("b", "chat", "appelle-moi au {P} ce soir stp"),
        ("a", "crm", "Client rappelé au {P}, laisse un message. Dossier {X:ticket}."),
        ("b", "prose", "Pour toute question, vous pouvez joindre notre service au {P} du lundi au vendredi."),
        ("a", "json", '{{"nom_client": "{N}", "numero_portable": "{P}"}}'),
        ("c", "prose", "{N}, {P}"),
        ("a", "email", "Bonjour,\nmon numéro a changé, c'est désormais le {P} (ou le fixe : {Q}).\nMerci"),
        ("a", "form", "Tél. fixe / mobile : {P} / {Q}"),
    ],
    "es": [
        ("a", "signature", "Un saludo,\n{N}\nTeléfono: {P}\nMóvil: {Q}"),
        ("b", "chat", "llámame al {P} cuando puedas"),
        ("a", "form", "Teléfono de contacto: {P}"),
        ("a", "crm", "Se contactó al cliente en el {P}; pide factura {X:invoice}."),
        ("b", "prose", "Puede comunicarse con nuestra oficina al {P} o escribirnos."),
        ("a", "json", '{{"cliente": "{N}", "tlf": "{P}"}}'),
        ("c", "prose", "{N} · {P}"),
        ("b", "chat", "mi whatsapp es {P}", "e164 international national_compact national"),
    ],
    "de": [
        ("a", "signature", "Mit freundlichen Grüßen\n{N}\nTel.: {P}\nMobil: {Q}"),
        ("a", "form", "Telefonnummer (tagsüber): {P}"),
        ("b", "chat", "ruf mich einfach unter {P} an"),
        ("a", "crm", "Rückruf erbeten unter {P}, Vorgang {X:ticket}."),
        ("b", "prose", "Sie erreichen unsere Hotline unter {P} werktags von 8 bis 18 Uhr."),
        ("a", "json", '{{"ansprechpartner": "{N}", "rufnummer": "{P}"}}'),
        ("c", "prose", "{N}, {P}"),
        ("a", "signature", "--\n{N}\nFon {P} · Fax {Q}"),
        ("a", "form", "Telefon privat / dienstlich: {P} / {Q}"),
    ],
    "it": [
        ("a", "signature", "Cordiali saluti,\n{N}\nTel. {P}\nCell. {Q}"),
        ("b", "chat", "chiamami al {P} dopo le sei"),
        ("a", "form", "Recapito telefonico: {P}"),
        ("b", "prose", "Per informazioni contattare la segreteria al numero {P}."),
        ("c", "prose", "{N} - {P}"),
    ],
    "pt": [
        ("a", "signature", "Atenciosamente,\n{N}\nTelefone: {P}\nCelular: {Q}"),
        ("b", "chat", "me liga no {P} mais tarde"),
        ("a", "form", "Telefone para contato: {P}"),
        ("b", "prose", "Fale conosco pelo {P} de segunda a sexta."),
        ("c", "prose", "{N} | {P}"),
    ],
    "nl": [
        ("a", "signature", "Met vriendelijke groet,\n{N}\nTel: {P}\nMobiel: {Q}"),
        ("b", "chat", "bel me even op {P}"),
        ("a", "form", "Telefoonnummer: {P}"),
        ("c", "prose", "{N}, {P}"),
    ],
    "pl": [
        ("a", "signature", "Pozdrawiam,\n{N}\ntel. {P}\nkom. {Q}"),
        ("b", "chat", "zadzwoń do mnie na {P}"),
        ("a", "form", "Numer telefonu: {P}"),
        ("c", "prose", "{N}, {P}"),
    ],
    "sv": [
        ("a", "signature", "Med vänliga hälsningar\n{N}\nTel: {P}\nMobil: {Q}"),
        ("b", "chat", "ring mig på {P}"),
        ("a", "form", "Telefonnummer: {P}"),
    ],
    "da": [
        ("a", "signature", "Med venlig hilsen\n{N}\nTlf.: {P}\nMobil: {Q}"),
        ("b", "chat", "ring til mig på {P}"),
        ("a", "form", "Telefonnummer: {P}"),
    ],
    "no": [
        ("a", "signature", "Med vennlig hilsen\n{N}\nTlf: {P}\nMobil: {Q}"),
        ("b", "chat", "ring meg på {P}"),
        ("a", "form", "Telefonnummer: {P}"),
    ],
}  # fmt: skip
# {I} the id (its scheme drawn for the language, or `scheme` where given as a fourth element).
ID_TEMPLATES: dict[str, list[Template]] = {
    "en": [
        ("a", "form", "National Insurance number: {I}", "gb.nino"),
        ("a", "hr", "New starter {N}, NI no. {I}, start date confirmed, payroll ref {X:invoice}.", "gb.nino"),
        ("b", "chat", "my ni number is {I} if u need it for the payslip", "gb.nino"),
        ("a", "form", "Taxpayer ID (ITIN): {I}", "us.itin"),
        ("a", "ticket", "W-7 processed; individual taxpayer identification number issued: {I}.", "us.itin"),
        ("a", "form", "PAN: {I}", "in.pan"),
        ("b", "chat", "pan is {I} pls update kyc", "in.pan"),
        ("a", "form", "Aadhaar No.: {I}", "in.aadhaar"),
        ("b", "chat", "uid {I}, name as on the card {N}", "in.aadhaar"),
        ("a", "json", '{{"employee": "{N}", "taxRef": "{I}", "dept": "Ops"}}'),
        ("a", "yaml", "applicant:\n  name: {N}\n  gov_id: {I}\n  order: {X:order}\n"),
        ("a", "csv", "name,national_id,joined\n{N},{I},{X:timestamp}\n"),
        ("a", "log", "2025-09-14 10:22:01 INFO kyc.check subject_id={I} result=pass latency_ms=41"),
        ("b", "crm", "Verified identity for {N} against {I} over the phone."),
        ("c", "prose", "{N} ({I})"),
        ("c", "list", "- {I}\n- {X:part}"),
        ("a", "email", "Hi,\nfor the visa paperwork my tax ID is {I}. Thanks, {N}"),
    ],
    "fr": [
        ("a", "form", "N° de sécurité sociale : {I}"),
        ("a", "hr", "Salarié {N} — NIR {I} — entrée le 3 mars."),
        ("b", "chat", "mon numéro de sécu c'est {I}"),
        ("a", "json", '{{"assure": "{N}", "num_secu": "{I}"}}'),
        ("c", "prose", "{N}, {I}"),
        ("a", "email", "Bonjour, voici mon numéro INSEE : {I}. Bien à vous, {N}"),
    ],
    "es": [
        ("a", "form", "DNI/NIE: {I}"),
        ("a", "hr", "Alta de {N}, documento de identidad {I}, contrato {X:invoice}."),
        ("b", "chat", "te paso mi dni {I}", "es.dni"),
        ("a", "json", '{{"titular": "{N}", "doc_identidad": "{I}"}}'),
        ("c", "prose", "{N} ({I})"),
        ("a", "form", "N.I.E.: {I}", "es.nie"),
    ],
    "de": [
        ("a", "form", "Steuerliche Identifikationsnummer: {I}"),
        ("a", "hr", "Neuer Mitarbeiter {N}, Steuer-ID {I}, Personalnummer {X:order}."),
        ("b", "chat", "meine steuer id ist {I}"),
        ("a", "json", '{{"mitarbeiter": "{N}", "steuer_idnr": "{I}"}}'),
        ("c", "prose", "{N}: {I}"),
        ("a", "email", "Hallo, anbei meine IdNr. {I} für die Lohnabrechnung. Gruß {N}"),
    ],
    "it": [
        ("a", "form", "Codice fiscale: {I}"),
        ("b", "chat", "il mio cf è {I}"),
        ("a", "hr", "Assunzione di {N}, C.F. {I}, matricola {X:order}."),
        ("a", "json", '{{"intestatario": "{N}", "cod_fisc": "{I}"}}'),
        ("c", "prose", "{N} - {I}"),
    ],
    "pt": [
        ("a", "form", "CPF: {I}"),
        ("b", "chat", "meu cpf é {I}"),
        ("a", "hr", "Admissão de {N}, CPF nº {I}, matrícula {X:order}."),
        ("a", "json", '{{"cliente": "{N}", "documento": "{I}"}}'),
        ("c", "prose", "{N} ({I})"),
        ("b", "prose", "Para emitir a nota fiscal, informe o número do seu cadastro de pessoa física: {I}."),
    ],
    "nl": [
        ("a", "hr", "Nieuwe collega {N} (buitenlands ID-nummer {I}) begint maandag."),
        ("b", "crm", "Identiteit gecontroleerd: {I}"),
    ],
    "pl": [
        ("a", "hr", "Pracownik {N}, zagraniczny numer identyfikacyjny: {I}."),
        ("b", "crm", "Tożsamość potwierdzona, dokument {I}."),
    ],
    "sv": [("a", "hr", "Ny medarbetare {N}, utländskt ID-nummer {I}.")],
    "da": [("a", "hr", "Ny medarbejder {N}, udenlandsk ID-nummer {I}.")],
    "no": [("a", "hr", "Ny ansatt {N}, utenlandsk ID-nummer {I}.")],
}  # fmt: skip
MONEY_TEMPLATES: dict[str, list[str]] = {
    "en": ["Please refund to IBAN {B}; the card {K} was cancelled.",
           '{{"payout_iban": "{B}", "card_on_file": "{K}", "order": "{X:order}"}}',
           "card {K} declined again, can u pay to {B} instead?"],
    "fr": ["Merci de virer le montant sur l'IBAN {B} et non sur la carte {K}."],
    "es": ["Titular: {N}\nIBAN: {B}\nTarjeta: {K}"],
    "de": ["Bitte überweisen Sie auf {B}. Die Karte {K} ist gesperrt."],
    "it": ["IBAN per il rimborso: {B} (carta {K} scaduta)"],
    "pt": ["Pagamento com o cartão {K}; reembolso para {B}."],
    "nl": ["Terugbetaling naar {B}, kaart {K} geblokkeerd."],
    "pl": ["Zwrot na konto {B}, karta {K} zablokowana."],
    "sv": ["Återbetalning till {B}, kort {K} spärrat."],
    "da": ["Tilbagebetaling til {B}, kort {K} spærret."],
    "no": ["Tilbakebetaling til {B}, kort {K} sperret."],
}  # fmt: skip
# Hard negatives: {X:kind}, {Y:kind}, {Z:kind}; kinds "any" are drawn from NEGATIVE_KINDS.
NEGATIVE_TEMPLATES: dict[str, list[str]] = {
    "en": ["Your order {X:order} has shipped, tracking {Y:tracking}.",
           "Invoice {X:invoice} total {Y:price}, due in 30 days.",
           "Replace part {X:part} with {Y:part} (rev B).",
           "Upgraded from {X:version} to {Y:version}, build id {Z:build}.",
           "Site coordinates: {X:coordinates}",
           "ISBN {X:isbn}, EAN {Y:ean}",
           "Sort code {X:sort_code}, branch postcode {Y:postcode}.",
           "event_ts={X:timestamp} req={Y:ticket} dur=120ms",
           "The number {X:invalid_phone} you dialled is not recognised.",
           "Rejected: id {X:bad_check} failed validation.",
           '{{"orderId": "{X:order}", "total": "{Y:price}", "ts": "{Z:timestamp}"}}',
           "sku,qty,price\n{X:part},3,{Y:price}\n",
           "ticket {X:ticket} reopened, see {Y:invoice}"],
    "fr": ["Commande {X:order} expédiée, suivi {Y:tracking}.", "Facture {X:invoice} : {Y:price}.",
           "Code postal {X:postcode}, réf. {Y:part}."],
    "es": ["Pedido {X:order} enviado; seguimiento {Y:tracking}.", "Factura {X:invoice} por {Y:price}."],
    "de": ["Bestellung {X:order} versendet, Sendungsnummer {Y:tracking}.", "Rechnung {X:invoice} über {Y:price}.",
           "Version {X:version} installiert am {Y:timestamp}."],
    "it": ["Ordine {X:order} spedito, tracking {Y:tracking}.", "Fattura {X:invoice}: {Y:price}."],
    "pt": ["Pedido {X:order} enviado, rastreio {Y:tracking}.", "Nota {X:invoice}: {Y:price}."],
    "nl": ["Bestelling {X:order} verzonden, track & trace {Y:tracking}."],
    "pl": ["Zamówienie {X:order} wysłane, numer przesyłki {Y:tracking}.", "Faktura {X:invoice} na {Y:price}."],
    "sv": ["Order {X:order} skickad, spårning {Y:tracking}."],
    "da": ["Ordre {X:order} afsendt, sporing {Y:tracking}."],
    "no": ["Ordre {X:order} sendt, sporing {Y:tracking}."],
}  # fmt: skip
_FIELD = re.compile(r"\{\{|\}\}|\{(\w)(?::(\w+))?\}")


@cache
def _faker(locale: str) -> Faker:
    return Faker(locale)


def _items(template: str, lang: str, rng: random.Random, fake: Faker, entry: Template,
           kind: str) -> dict[str, Pii | Decoy]:  # fmt: skip
    cue, context = (entry[0], entry[1]) if kind != "money" else ("a", "money")
    extra = entry[3] if len(entry) > 3 else ""
    items: dict[str, Pii | Decoy] = {}
    for match in _FIELD.finditer(template):
        field, which = match.group(1), match.group(2) or ""
        if field is None or field + which in items:
            continue
        if field in "PQ":
            forms = tuple(extra.split()) if extra else None
            value, subtype = phone(rng, HOME_REGIONS[lang], forms)
            items[field] = Pii("PHONE_NUMBER", value, f"phone:{subtype}:{lang}:{cue}:{context}")
        elif field == "I":
            scheme = extra or rng.choice(LANG_SCHEMES.get(lang, SCHEMES))
            value, variant = national_id(rng, scheme, lower=context == "chat")
            items["I"] = Pii("NATIONAL_ID", value, f"id:{scheme}:{variant}:{lang}:{cue}:{context}")
        elif field == "N":
            name = draw_in_split(lambda: f"{fake.first_name()} {fake.last_name()}", "dev")
            items["N"] = Pii("PERSON", name, f"person:{lang}:first-last")
        elif field == "E":
            items["E"] = Pii("EMAIL_ADDRESS", draw_in_split(fake.email, "dev"), f"email:{lang}")
        elif field == "B":
            items["B"] = iban(rng, "dev")
        elif field == "K":
            items["K"] = card(rng, "dev")
        elif field in "XYZ":
            items[field + which] = Decoy(which, negative(rng, which))
    return items


def _case(index: int, seed: int, kind: str) -> Case:
    rng = random.Random(f"{NAME}:{seed}:{index}")
    lang = weighted_language(rng, LANGUAGE_SHARE, "en")
    fake = _faker(LOCALES[lang])
    fake.seed_instance(f"{NAME}:{seed}:{index}")
    if kind == "phone":
        entry = rng.choice(PHONE_TEMPLATES[lang])
    elif kind == "id":
        entry = rng.choice(ID_TEMPLATES[lang])
    elif kind == "money":
        entry = ("a", "money", rng.choice(MONEY_TEMPLATES[lang]))
    else:
        entry = ("-", "negative", rng.choice(NEGATIVE_TEMPLATES[lang]))
    template = entry[2]
    out = TextBuilder()
    items = _items(template, lang, rng, fake, entry, kind)
    # A decoy field is keyed with its kind ("{X:price}"); the others by their letter alone.
    fill(out, template, _FIELD, lambda match: items[match.group(1) + (match.group(2) or "") if match.group(1) in "XYZ"
                                                    else match.group(1)])  # fmt: skip
    return Case(id=f"{NAME}-{index:04d}", split="dev", text=out.finish(), entities=out.entities,
                negatives=out.negatives, context=f"{kind}-{entry[1]}-{lang}")  # fmt: skip


def generate_nineteenth_dev(phone_texts: int = PHONE_TEXTS, id_texts: int = ID_TEXTS, money_texts: int = MONEY_TEXTS,
                            negative_texts: int = NEGATIVE_TEXTS, seed: int = SEED) -> list[Case]:  # fmt: skip
    """The nineteenth dev-side corpus (always the same for the same arguments): texts holding phones, national ids,
    an IBAN and a card, and hard negatives only, shuffled by the seed."""
    plan = ["phone"] * phone_texts + ["id"] * id_texts + ["money"] * money_texts + ["negative"] * negative_texts
    random.Random(f"{NAME}:{seed}:order").shuffle(plan)
    return [_case(index, seed, kind) for index, kind in enumerate(plan)]


__all__ = ["NAME", "NEGATIVE_KINDS", "generate_nineteenth_dev"]
