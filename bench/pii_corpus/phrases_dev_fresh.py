"""A second `dev`-side phrasebook: clauses phrased unlike both ``phrases`` (dev) and the held-out ones, for a check of
how the detectors do on phrasings they were not written against, without looking at the `test` split.

Written once, before any detector was run on it, around what real business text puts next to a name: product and
tool names, teams, job titles, weekdays and months, acronyms, all capitalised (no place: an unlabelled one would
count against a detector that finds it). Only the types whose
detection depends on the words around a value (PERSON, LOCATION, DATE_OF_BIRTH, STREET_ADDRESS) get fresh
clauses; the other types keep the dev phrasebook's, as their detectors read the value, not its sentence. Used by
``bench.pii_corpus.fresh_dev`` only: never part of the `test` split, and tuned on like any dev material.
"""

from __future__ import annotations

from bench.pii_corpus import phrases
from bench.pii_corpus.model import Phrasebook

_FRESH: dict[str, dict[str, list[str]]] = {
    "en": {
        "PERSON": [
            "Salesforce shows {} as the owner of the Globex renewal.",
            "On Tuesday {} demoed the new Jira workflow to Finance.",
            "The Q3 Board Pack was drafted by {} and reviewed by Legal.",
            "Pinging {} on Slack, since the VP of Engineering is out.",
            "{}'s Outlook calendar is blocked until Thursday.",
            "Attendees: {}, plus two people from Procurement.",
            "Ask {} whether the SOC 2 report is ready.",
            "I had lunch with {} near the Google campus.",
            "Interview panel - Hiring Manager: {}",
            "Screenshot attached (from {}).",
            "The Zoom link came from {} this morning.",
            "Lead Engineer {} owns the Kubernetes migration.",
            "Payroll queries go to {} in HR Operations.",
            "{} from the Customer Success team flagged it in Zendesk.",
            "Happy birthday to {} from everyone in Marketing!",
            "The PR was merged by {} after CI went green.",
        ],
        "LOCATION": [
            "The Tuesday standup is run from {} this quarter.",
            "Our Azure region closest to {} had an outage.",
            "Sales in {} beat the forecast by 12%.",
            "The Annual Kickoff will take place in {}.",
            "Shipping to {} takes 3-5 business days via DHL.",
            "He commutes to {} every Monday.",
            "The new Data Center near {} goes live in March.",
            "Weather in {} grounded the Friday flights.",
        ],
        "STREET_ADDRESS": [
            "The Christmas party is at {}.",
            "Please courier the NDA to {} by Friday.",
            "Visitor entrance: {} (ring Reception).",
        ],
        "DATE_OF_BIRTH": [
            "Employee onboarding form - DOB: {}",
            "Passport holder's date of birth {} matches.",
            "She was born {} in a small town.",
            "Birthdate on the HR record: {}",
            "{} (date of birth) was entered twice in Workday.",
            "Applicant born on {}, per the KYC check.",
        ],
    },
    "fr": {
        "PERSON": [
            "Le dossier Airbus est suivi par {} depuis Janvier.",
            "Réunion Teams avec {} jeudi matin.",
            "{} a présenté le budget au Comité de Direction.",
            "Merci de voir avec {} pour la facture SAP.",
            "Le stagiaire de {} commence Lundi.",
            "La note de frais de {} est bloquée dans Concur.",
            "Contact RH : {}",
        ],
        "LOCATION": [
            "Notre agence de {} ferme en Août.",
            "Le Salon annuel se tiendra à {}.",
            "Les ventes à {} ont doublé.",
            "Il travaille depuis {} le Vendredi.",
        ],
        "DATE_OF_BIRTH": [
            "Date de naissance du salarié : {}",
            "Elle est née le {} à la maternité du quartier.",
            "Né le {}, d'après la Carte Vitale.",
        ],
    },
    "es": {
        "PERSON": [
            "La cuenta de Iberdrola la lleva {} desde Enero.",
            "Reunión por Teams con {} el Jueves.",
            "{} presentó el informe al Consejo.",
            "Hay que consultar con {} lo de la factura de SAP.",
            "El portátil de {} sigue en Soporte.",
            "Responsable de Compras: {}",
            "Felicidades a {} por el ascenso.",
        ],
        "LOCATION": [
            "La sede de {} cierra en Agosto.",
            "El Congreso anual será en {}.",
            "Las ventas en {} crecieron un 8%.",
            "Trabaja desde {} los Viernes.",
        ],
        "DATE_OF_BIRTH": [
            "Fecha de nacimiento del titular: {}",
            "Nació el {} en un pueblo pequeño.",
            "Nacido el {}, según el DNI.",
        ],
    },
    "de": {
        "PERSON": [
            "Das Projekt Siemens Healthineers betreut {} seit Januar.",
            "Teams-Termin mit {} am Donnerstag.",
            "{} hat den Bericht dem Vorstand vorgestellt.",
            "Bitte mit {} wegen der SAP-Rechnung abstimmen.",
            "Der Laptop von {} liegt beim IT-Support.",
            "Ansprechpartner Einkauf: {}",
            "Glückwunsch an {} zur Beförderung!",
        ],
        "LOCATION": [
            "Die Niederlassung in {} schließt im August.",
            "Die Hausmesse findet in {} statt.",
            "Der Umsatz in {} stieg um 8 %.",
            "Freitags arbeitet er aus {}.",
        ],
        "DATE_OF_BIRTH": [
            "Geburtsdatum laut Personalausweis: {}",
            "Sie ist am {} in einem kleinen Dorf geboren.",
            "Geb. {}, laut Bewerbung.",
        ],
    },
}

_FRESH_CHAT: dict[str, list[str]] = {
    "PERSON": [
        "ok so {} said the jira ticket is done",
        "lunch w {} tmrw?",
        "did {} push the fix to main",
        "{} is ooo till monday fyi",
        "can u loop {} into the thread",
    ],
    "LOCATION": ["moving to {} in june", "anyone near {} for coffee?", "{} traffic is insane rn"],
    "DATE_OF_BIRTH": ["my birthdate is {} for the form", "dob on file {} is wrong", "born on {} btw"],
}


def _merged() -> dict[str, dict[str, list[str]]]:
    sentences = {lang: dict(by_type) for lang, by_type in phrases.SENTENCES.items()}
    for lang, by_type in _FRESH.items():
        sentences[lang].update(by_type)
    return sentences


BOOK = Phrasebook(sentences=_merged(), chat={**phrases.CHAT, **_FRESH_CHAT}, decoy_sentences=phrases.DECOY_SENTENCES,
                  chat_decoys=phrases.CHAT_DECOYS, signoffs={"en": ["All the best,", "Regards"],
                  "fr": ["Bonne journée,"], "es": ["Atentamente,"], "de": ["Beste Grüße"]},
                  signature_labels=phrases.SIGNATURE_LABELS)  # fmt: skip
