"""The third `dev`-side phrasebook: clauses written for ``dev_third`` before any detector was run on them, phrased
unlike ``phrases`` (dev), ``phrases_dev_fresh`` and the held-out ones: support tickets, HR and travel admin, field
service, school and clinic paperwork, and chat typed fast (lower case, no punctuation, abbreviations).

Only the types whose detection depends on the words around a value (PERSON, LOCATION, DATE_OF_BIRTH,
STREET_ADDRESS) get fresh clauses; the other types keep the dev phrasebook's. Clauses hold capitalised words that
are not PII (products, teams, weekdays, forms) and no unlabelled name or place. Never part of the `test` split;
tuned on like any dev material.
"""

from __future__ import annotations

from bench.pii_corpus import phrases
from bench.pii_corpus.model import Phrasebook

_THIRD: dict[str, dict[str, list[str]]] = {
    "en": {
        "PERSON": [
            "Refund approved; the customer, {}, was notified by SMS.",
            "Technician {} replaced the router on site.",
            "Visa letter requested for {} (Sales Engineering).",
            "Consultation booked with {} for Wednesday at 10.",
            "Emergency contact: {}",
            "{} will cover the night shift at the Warehouse.",
            "Tenant {} reported a leak under the sink.",
            "Parent/guardian: {}",
            "Thanks {} - the Confluence page is updated.",
            "Signed on behalf of the Supplier by {}.",
            "Agent note: spoke to {} who confirmed the address change.",
            "Expense claim #4471 submitted by {} is pending Approval.",
            "{} asked to be removed from the Newsletter.",
            "The Slack huddle with {} ran over.",
            "Patient {} was discharged on Friday.",
            "Rotation handover from {} to the APAC team.",
        ],
        "LOCATION": [
            "Site survey scheduled in {} next Wednesday.",
            "Candidate is willing to relocate from {}.",
            "The courier depot in {} is closed for Eid.",
            "Conference room booked for the {} roadshow.",
            "Tax residency: {}",
            "Our reseller covers {} and the surrounding district.",
            "Roaming charges were applied while in {}.",
            "The technician drove in from {} this morning.",
        ],
        "STREET_ADDRESS": [
            "Service address on the Work Order: {}",
            "Return the Laptop to {} in the prepaid box.",
            "Registered office - {}",
        ],
        "DATE_OF_BIRTH": [
            "Date of birth (as on Passport): {}",
            "Member since 2019, born {}.",
            "Student DOB {} does not match the Enrolment Form.",
            "Birthday on file: {}",
            "Patient born {}, Allergies: none.",
            "Guardian confirmed the child's date of birth as {}.",
        ],
    },
    "fr": {
        "PERSON": [
            "Le technicien {} est passé mardi pour la Box.",
            "Dossier transmis à {} du service Contentieux.",
            "Candidature reçue de {} pour le poste de Chef de Projet.",
            "Personne à prévenir : {}",
            "Le locataire {} signale une fuite.",
            "Bon de commande validé par {}.",
        ],
        "LOCATION": [
            "Le dépôt de {} est fermé ce Samedi.",
            "Le candidat habite actuellement à {}.",
            "Intervention prévue à {} mercredi.",
            "Résidence fiscale : {}",
        ],
        "DATE_OF_BIRTH": [
            "Né le {}, selon le Livret de Famille.",
            "Née le {} (voir pièce jointe).",
            "Date de naissance de l'élève : {}",
            "L'adhérent, né le {}, a renouvelé sa Licence.",
        ],
    },
    "es": {
        "PERSON": [
            "El técnico {} cambió el Router el martes.",
            "Expediente enviado a {} de Asesoría Jurídica.",
            "Persona de contacto en caso de emergencia: {}",
            "El inquilino {} avisó de una fuga.",
            "Pedido aprobado por {}.",
            "Candidatura de {} para el puesto de Jefe de Proyecto.",
        ],
        "LOCATION": [
            "El almacén de {} cierra este Sábado.",
            "La candidata vive ahora en {}.",
            "Visita técnica en {} el miércoles.",
            "Residencia fiscal: {}",
        ],
        "DATE_OF_BIRTH": [
            "Nacida el {}, según el Libro de Familia.",
            "Fecha de nac.: {}",
            "El socio, nacido el {}, renovó la Licencia.",
            "F. nacimiento del alumno: {}",
        ],
    },
    "de": {
        "PERSON": [
            "Der Techniker {} hat am Dienstag den Router getauscht.",
            "Vorgang an {} aus der Rechtsabteilung übergeben.",
            "Notfallkontakt: {}",
            "Mieter {} meldet einen Wasserschaden.",
            "Bestellung freigegeben von {}.",
            "Bewerbung von {} als Projektleiter eingegangen.",
        ],
        "LOCATION": [
            "Das Lager in {} ist am Samstag geschlossen.",
            "Die Bewerberin wohnt derzeit in {}.",
            "Außentermin in {} am Mittwoch.",
            "Steuerlicher Wohnsitz: {}",
        ],
        "DATE_OF_BIRTH": [
            "Die Mitarbeiterin (geb. {}) hat gekündigt.",
            "Geburtstag laut Mitgliedsantrag: {}",
            "Geb. am {} - Angaben geprüft.",
            "Der Schüler, geboren am {}, wechselt die Klasse.",
        ],
    },
}

_THIRD_CHAT: dict[str, list[str]] = {
    "PERSON": [
        "hey is {} still on the rota",
        "cc {} on that pls",
        "{} wants the deck by eod",
        "talked to {} earlier, all good",
        "ask {} she knows the login",
        "thx {}!!",
        "who is {} again",
    ],
    "LOCATION": [
        "just landed in {}",
        "the {} depot never picks up",
        "is it raining in {} too",
        "wfh from {} this week",
    ],
    "DATE_OF_BIRTH": [
        "dob is {} if they ask",
        "his birthday {} right?",
        "form says born {} lol",
    ],
    "STREET_ADDRESS": ["drop it at {} thx", "new addr {}"],
}


def _merged() -> dict[str, dict[str, list[str]]]:
    sentences = {lang: dict(by_type) for lang, by_type in phrases.SENTENCES.items()}
    for lang, by_type in _THIRD.items():
        sentences[lang].update(by_type)
    return sentences


BOOK = Phrasebook(sentences=_merged(), chat={**phrases.CHAT, **_THIRD_CHAT}, decoy_sentences=phrases.DECOY_SENTENCES,
                  chat_decoys=phrases.CHAT_DECOYS, signoffs={"en": ["Cheers,", "Many thanks,", "Warmly,"],
                  "fr": ["Salutations,"], "es": ["Un saludo,"], "de": ["Mit freundlichen Grüßen"]},
                  signature_labels={**phrases.SIGNATURE_LABELS, "DATE_OF_BIRTH": ["Born: ", "Birthday: "]})  # fmt: skip
