"""The fourth `dev`-side phrasebook: clauses written for ``dev_fourth`` before any detector was run on them, phrased
unlike ``phrases`` (dev), ``phrases_dev_fresh``, ``phrases_dev_third`` and the held-out ones: event travel and
venues, meeting minutes, registrations and civil-status paperwork, and chat that writes product names, weekdays and
acronyms capitalised but people and places in lower case.

Only PERSON, LOCATION and DATE_OF_BIRTH get fresh clauses (the types whose detection leans on the words around a
value); the other types keep the dev phrasebook's. ``OTHER_DATES`` are clauses around dates that are not dates of
birth (invoices, appointments, hiring and expiry dates), written next to the values as hard negatives. Clauses hold
capitalised words that are not PII and no unlabelled name or place. Never part of the `test` split.
"""

from __future__ import annotations

from bench.pii_corpus import phrases
from bench.pii_corpus.model import Phrasebook

_FOURTH: dict[str, dict[str, list[str]]] = {
    "en": {
        "PERSON": [
            "Keynote moved to Hall B because {} is running late.",
            "The minutes were taken by {} and approved without changes.",
            "Please welcome {}, who joins Platform as a Staff Engineer.",
            "Lead Engineer {} owns the rollback plan.",
            "Booking reference under the name {}.",
            "Power of attorney granted to {} until further notice.",
            "{} (she/her) will moderate the Q&A.",
            "Badge printed for {}; pick-up at Registration.",
            "Reviewer: {} - LGTM with nits.",
            "Our Account Manager, {}, will send the renewal quote.",
            "Next of kin listed as {}.",
            "The panel with {} starts after Lunch.",
        ],
        "LOCATION": [
            "Flying into {} on Tuesday for the Summit.",
            "The offsite is in {} this year.",
            "Shuttle buses leave from the station in {} every hour.",
            "Our booth at the {} trade fair needs two more people.",
            "Hotel block reserved near the venue in {}.",
            "Driving down to {} after the Workshop.",
            "Place of birth: {}",
            "Shipment stuck at customs in {}.",
            "She grew up in {} and still speaks the dialect.",
        ],
        "DATE_OF_BIRTH": [
            "Born on {} according to the Registration Form.",
            "The applicant's birth date is {}.",
            "DOB - {}",
            "Age 41 (born {}).",
            "Celebrates his birthday on {}; date of birth verified by HR.",
            "d.o.b. {}",
            "Date and place of birth: {}",
        ],
    },
    "fr": {
        "PERSON": [
            "Étaient présents : {} et l'équipe Achats.",
            "La réunion est animée par {}.",
            "Procuration donnée à {} pour l'Assemblée Générale.",
            "Réservation au nom de {}.",
            "Merci à {} pour la relecture du Cahier des Charges.",
            "Le Directeur Technique, {}, valide le budget.",
        ],
        "LOCATION": [
            "Arrivée à {} prévue jeudi soir.",
            "Le séminaire aura lieu à {} en Octobre.",
            "Lieu de naissance : {}",
            "Navette depuis la gare de {} toutes les heures.",
            "Elle a grandi à {}.",
        ],
        "DATE_OF_BIRTH": [
            "né le {} à la maternité",
            "Date de naissance (JJ/MM/AAAA) : {}",
            "L'enfant, née le {}, est inscrite en CP.",
            "Naissance : {}",
            "âgé de 38 ans, né le {}",
        ],
    },
    "es": {
        "PERSON": [
            "Asistentes: {} y el equipo de Compras.",
            "Modera la mesa redonda {}.",
            "Poder notarial otorgado a {}.",
            "Reserva a nombre de {}.",
            "Gracias a {} por revisar el Pliego.",
            "La Directora Financiera, {}, firma el acuerdo.",
        ],
        "LOCATION": [
            "Llegamos a {} el jueves por la noche.",
            "El congreso será en {} en Octubre.",
            "Lugar de nacimiento: {}",
            "Creció en {} y luego se mudó.",
            "Hay lanzadera desde la estación de {}.",
        ],
        "DATE_OF_BIRTH": [
            "Fecha de nacimiento: {}",
            "nació el {} en el Hospital General",
            "El menor, nacido el {}, queda inscrito.",
            "F. de nac. {} (según DNI)",
            "de 38 años, nacida el {}",
        ],
    },
    "de": {
        "PERSON": [
            "Anwesend: {} sowie das Team Einkauf.",
            "Die Moderation übernimmt {}.",
            "Vollmacht erteilt an {}.",
            "Reservierung auf den Namen {}.",
            "Danke an {} für das Korrekturlesen des Lastenhefts.",
            "Die Geschäftsführerin, {}, zeichnet den Vertrag.",
        ],
        "LOCATION": [
            "Anreise nach {} am Donnerstagabend.",
            "Die Klausur findet in {} statt.",
            "Geburtsort: {}",
            "Shuttle ab Bahnhof {} stündlich.",
            "Sie ist in {} aufgewachsen.",
        ],
        "DATE_OF_BIRTH": [
            "geb. am {} in der Uniklinik",
            "Geburtsdatum (TT.MM.JJJJ): {}",
            "Das Kind, geboren am {}, wird angemeldet.",
            "Geb.-Datum: {}",
            "38 Jahre alt, geb. {}",
        ],
    },
}

_FOURTH_CHAT: dict[str, list[str]] = {
    "PERSON": [
        "Standup moved, {} is out Monday",
        "pinged {} on Slack about the PR",
        "{} said the Jira ticket is done",
        "can {} review my PR before Friday",
        "lol {} broke Prod again",
        "OOO today, {} has the pager",
    ],
    "LOCATION": [
        "flying into {} Thursday for the QBR",
        "offsite is in {} again ugh",
        "anyone else at the {} AWS Summit",
        "stuck at the airport in {}, Wi-Fi down",
    ],
    "DATE_OF_BIRTH": [
        "HR form wants dob, mine is {}",
        "born {} so yes I'm old",
        "bday {} but put it on the Form",
    ],
}

# Clauses around a date that is not a date of birth, by language: the hard negatives written next to the values.
OTHER_DATES: dict[str, list[str]] = {
    "en": ["Invoice dated {}.", "Contract starts on {}.", "Passport expires {}.", "Appointment rescheduled to {}.",
           "Hired on {}, probation ends in March.", "Last login: {}"],
    "fr": ["Facture du {}.", "Rendez-vous fixé au {}.", "Date d'embauche : {}", "Valable jusqu'au {}."],
    "es": ["Factura con fecha {}.", "Cita aplazada al {}.", "Fecha de alta: {}", "Caduca el {}."],
    "de": ["Rechnung vom {}.", "Termin verschoben auf den {}.", "Eintrittsdatum: {}", "Gültig bis {}."],
}
OTHER_DATES_CHAT = ["invoice from {} still unpaid", "deadline is {} fyi", "renewal {} dont forget"]


def _merged() -> dict[str, dict[str, list[str]]]:
    sentences = {lang: dict(by_type) for lang, by_type in phrases.SENTENCES.items()}
    for lang, by_type in _FOURTH.items():
        sentences[lang].update(by_type)
    return sentences


BOOK = Phrasebook(sentences=_merged(), chat={**phrases.CHAT, **_FOURTH_CHAT}, decoy_sentences=phrases.DECOY_SENTENCES,
                  chat_decoys=phrases.CHAT_DECOYS, signoffs={"en": ["All the best,", "Speak soon,"],
                  "fr": ["Bien à vous,"], "es": ["Atentamente,"], "de": ["Beste Grüße"]},
                  signature_labels={**phrases.SIGNATURE_LABELS,
                                    "DATE_OF_BIRTH": ["DOB ", "Date of birth - "]})  # fmt: skip
