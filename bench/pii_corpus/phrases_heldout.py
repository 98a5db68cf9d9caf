"""The `test` split's sentence material: clauses phrased unlike every clause of the `dev` split (``phrases``).

No sentence, chat line, sign-off or signature label here appears in `dev`, and the words next to ``{}`` in a PERSON
clause (the cue a name detector reads) differ from every `dev` PERSON clause's: a detector tuned on `dev` meets
these cue phrasings for the first time. The families are the same (greetings, introductions, hand-overs, verbs of
saying after a name, by-phrases, appositions, sign-offs), as real text mixes them all. Nothing here is chosen by
looking at a detector's output.
"""

from __future__ import annotations

from bench.pii_corpus.model import Phrasebook

SENTENCES: dict[str, dict[str, list[str]]] = {
    "en": {
        "PERSON": [
            "Good morning {}, quick question about the invoice.",
            "Loop in {} before we merge.",
            "{} will cover the night shift.",
            "This was flagged by {} during the audit.",
            "According to {}, the contract ends in May.",
            "My manager, {}, signed the form.",
            "I'm writing on behalf of {}.",
            "The laptop belongs to {}.",
            "{} called back this morning.",
        ],
        "LOCATION": [
            "We're opening a branch in {} next year.",
            "The conference moves to {} in the autumn.",
            "{} had the highest sales last quarter.",
            "Her parents still live in {}.",
            "Driving from {} takes about four hours.",
        ],
        "EMAIL_ADDRESS": [
            "{} no longer receives the alerts.",
            "Drop a line to {} if anything breaks.",
            "Contact: {}",
            "My new address is {}, please update it.",
            "Mail to {} keeps bouncing.",
            "From: {}",
        ],
        "PHONE_NUMBER": [
            "Text me on {} when you land.",
            "The hotline is {}.",
            "Tel {} (office)",
            "{} - that's the direct line.",
            "Give us a ring at {}.",
        ],
        "CREDIT_CARD": [
            "Please refund the charge on {}.",
            "The card on file is {}.",
            "Billing card {} expires next month.",
            "{} was used at the airport kiosk.",
        ],
        "IBAN_CODE": [
            "{} has been verified by the bank (IBAN).",
            "Please pay into {} by Friday.",
            "Our account: {}",
            "Beneficiary IBAN {}.",
            "Refunds go to {} from now on.",
        ],
        "US_SSN": [
            "{} appears as the SSN on both tax forms.",
            "Social: {}",
            "The applicant's social security no. is {}.",
            "SSN on the application: {}",
            "Verify {} against the IRS records (SSN).",
        ],
        "IP_ADDRESS": [
            "{} answered on port 443.",
            "Connection refused from {}.",
            "Whitelist {} for the VPN.",
            "The load balancer sits at {}.",
            "Pinged {} and got no reply.",
        ],
        "STREET_ADDRESS": [
            "{} has a new tenant since March.",
            "Our office moved to {}.",
            "Mailing address: {}",
            "Please deliver to {} before noon.",
            "The property at {} is for sale.",
        ],
        "DATE_OF_BIRTH": [
            "{} (date of birth) matches the passport.",
            "Birth date: {}",
            "She was born {}.",
            "Patient DOB: {}.",
            "Birthdate on the insurance card: {}.",
        ],
        "NATIONAL_ID": [
            "{} is listed as her personal tax ID.",
            "Taxpayer number: {}",
            "ID number {} was verified.",
            "Please check the personal ID {} against the register.",
            "Identity document no. {}",
        ],
        "SECRET": [
            "Paste this into the config: {}",
            "The service account key is {}.",
            "{} was committed to the repo by mistake (secret).",
            "Rotate this access token today: {}",
        ],
    },
    "fr": {
        "PERSON": [
            "Bonsoir {}, pouvez-vous confirmer ?",
            "{} nous a rappelés ce matin.",
            "Je mets {} en copie.",
            "Le contrat a été signé par {}.",
            "Selon {}, la livraison est prévue lundi.",
            "Je vous présente {}, notre nouvelle responsable.",
        ],
        "LOCATION": [
            "Nous ouvrons une agence à {} l'an prochain.",
            "Ses parents vivent toujours à {}.",
            "{} a eu les meilleures ventes du trimestre.",
        ],
        "EMAIL_ADDRESS": [
            "{} ne répond plus.",
            "Contact : {}",
            "Ma nouvelle adresse est {}, merci de la mettre à jour.",
            "De : {}",
        ],
        "PHONE_NUMBER": [
            "{} ne répond jamais le soir.",
            "Envoyez-moi un SMS au {}.",
            "La ligne directe est le {}.",
            "Standard : {}",
        ],
        "CREDIT_CARD": ["Remboursez le paiement fait avec la carte {}.", "Carte enregistrée : {}"],
        "IBAN_CODE": ["Merci de payer sur le compte {} avant vendredi.", "Compte bénéficiaire : {}"],
        "US_SSN": ["Le numéro SSN du demandeur est {}.", "SSN (États-Unis) : {}"],
        "IP_ADDRESS": ["Connexion refusée depuis {}.", "Le répartiteur de charge est en {}."],
        "STREET_ADDRESS": ["Nos bureaux ont déménagé au {}.", "Adresse postale : {}"],
        "DATE_OF_BIRTH": ["Née le {} à la maternité.", "Date de naissance du patient : {}"],
        "NATIONAL_ID": ["Numéro fiscal : {}", "Pièce d'identité n° {}"],
        "SECRET": ["Collez ceci dans la configuration : {}", "La clé du compte de service est {}."],
    },
    "es": {
        "PERSON": [
            "Buenos días {}, ¿puedes revisarlo?",
            "{} llamó esta mañana.",
            "Según {}, el pedido llega el lunes.",
            "El contrato lo firmó {}.",
            "Te presento a {}, nuestra nueva gerente.",
            "Me llamo {} y trabajo en soporte.",
        ],
        "LOCATION": [
            "Abrimos una sucursal en {} el año que viene.",
            "Sus padres todavía viven en {}.",
            "{} tuvo las mejores ventas del trimestre.",
        ],
        "EMAIL_ADDRESS": [
            "{} ya no contesta.",
            "Contacto: {}",
            "Mi nueva dirección es {}, actualízala por favor.",
            "De: {}",
        ],
        "PHONE_NUMBER": [
            "{} no contesta por la noche.",
            "Mándame un mensaje al {}.",
            "La línea directa es el {}.",
            "Centralita: {}",
        ],
        "CREDIT_CARD": ["Devuelve el cargo hecho con la tarjeta {}.", "Tarjeta registrada: {}"],
        "IBAN_CODE": ["Paga en la cuenta {} antes del viernes.", "Cuenta del beneficiario: {}"],
        "US_SSN": ["El SSN del solicitante es {}.", "SSN (EE. UU.): {}"],
        "IP_ADDRESS": ["Conexión rechazada desde {}.", "El balanceador de carga está en {}."],
        "STREET_ADDRESS": ["Nuestra oficina se mudó a {}.", "Dirección postal: {}"],
        "DATE_OF_BIRTH": ["Fecha de nacimiento del paciente: {}", "Vino al mundo el {}."],
        "NATIONAL_ID": ["Número fiscal: {}", "Documento de identidad n.º {}"],
        "SECRET": ["Pega esto en la configuración: {}", "La clave de la cuenta de servicio es {}."],
    },
    "de": {
        "PERSON": [
            "Guten Morgen {}, kurze Frage zur Rechnung.",
            "{} hat heute früh angerufen.",
            "Laut {} endet der Vertrag im Mai.",
            "Der Vertrag wurde von {} unterschrieben.",
            "Darf ich vorstellen: {}, unsere neue Leiterin.",
            "Mein Name ist {} und ich arbeite im Support.",
        ],
        "LOCATION": [
            "Nächstes Jahr eröffnen wir eine Filiale in {}.",
            "Ihre Eltern wohnen immer noch in {}.",
            "{} hatte im letzten Quartal den höchsten Umsatz.",
        ],
        "EMAIL_ADDRESS": [
            "{} antwortet nicht mehr.",
            "Kontakt: {}",
            "Meine neue Adresse ist {}, bitte aktualisieren.",
            "Von: {}",
        ],
        "PHONE_NUMBER": [
            "{} ist abends nie erreichbar.",
            "Schreib mir eine SMS an {}.",
            "Die Durchwahl ist {}.",
            "Zentrale: {}",
        ],
        "CREDIT_CARD": ["Erstatte die Zahlung mit der Karte {}.", "Hinterlegte Karte: {}"],
        "IBAN_CODE": ["Bitte bis Freitag auf {} zahlen.", "Empfängerkonto: {}"],
        "US_SSN": ["Die SSN des Antragstellers ist {}.", "SSN (USA): {}"],
        "IP_ADDRESS": ["Verbindung von {} abgelehnt.", "Der Load Balancer liegt auf {}."],
        "STREET_ADDRESS": ["Unser Büro ist in die {} umgezogen.", "Postanschrift: {}"],
        "DATE_OF_BIRTH": ["Geburtsdatum des Patienten: {}", "Sie kam am {} zur Welt."],
        "NATIONAL_ID": ["Steuernummer: {}", "Personalausweis Nr. {}"],
        "SECRET": ["Füge das in die Konfiguration ein: {}", "Der Schlüssel des Dienstkontos ist {}."],
    },
}

CHAT: dict[str, list[str]] = {
    "PERSON": ["yo {} u there", "lmk when {} replies", "{} is out sick today", "tell {} i said hi"],
    "LOCATION": ["back from {} finally", "anyone been to {}", "{} was amazing"],
    "EMAIL_ADDRESS": ["mail me at {}", "{} is my work one"],
    "PHONE_NUMBER": ["text {} later", "{} is my new number"],
    "CREDIT_CARD": ["charge {} again", "try {} instead", "{} got blocked"],
    "IBAN_CODE": ["my account is {}", "{} for the refund"],
    "US_SSN": ["social is {}", "{} is my social"],
    "IP_ADDRESS": ["whitelist {} pls", "server {} is down", "{} wont respond"],
    "STREET_ADDRESS": ["moved to {} last week", "pick me up at {}", "{} is the new place"],
    "DATE_OF_BIRTH": ["birthday {}", "im born {}"],
    "NATIONAL_ID": ["tax number {}", "passport id {}"],
    "SECRET": ["pasting the key {}", "{} thats the token", "{} <- secret, rotate it"],
}

DECOY_SENTENCES: dict[str, dict[str, list[str]]] = {
    "en": {
        "order_id": ["Your order {} is on its way."],
        "invoice_id": ["Please pay invoice {} within 30 days."],
        "version": ["Released in {}.", "pinned to {} for now"],
        "sku": ["Item {} is back in stock."],
        "part_number": ["Replace part {} every year."],
        "hash": ["Reverted {}."],
        "uuid": ["Session {} expired."],
        "duration": ["Response time was {}."],
        "coordinates": ["GPS: {}"],
        "price": ["That comes to {}.", "refund of {} issued"],
    },
    "fr": {
        "order_id": ["Votre commande {} est en route."],
        "invoice_id": ["Merci de régler la facture {} sous 30 jours."],
        "version": ["Publié dans la {}."],
        "sku": ["L'article {} est de nouveau en stock."],
        "part_number": ["Remplacez la pièce {} chaque année."],
        "hash": ["Annulé par {}."],
        "uuid": ["La session {} a expiré."],
        "duration": ["Temps de réponse : {}."],
        "coordinates": ["GPS : {}"],
        "price": ["Cela fait {}."],
    },
    "es": {
        "order_id": ["Tu pedido {} está en camino."],
        "invoice_id": ["Paga la factura {} en 30 días."],
        "version": ["Publicado en la {}."],
        "sku": ["El artículo {} vuelve a estar disponible."],
        "part_number": ["Cambia la pieza {} cada año."],
        "hash": ["Revertido en {}."],
        "uuid": ["La sesión {} caducó."],
        "duration": ["Tiempo de respuesta: {}."],
        "coordinates": ["GPS: {}"],
        "price": ["Son {} en total."],
    },
    "de": {
        "order_id": ["Deine Bestellung {} ist unterwegs zu dir."],
        "invoice_id": ["Bitte Rechnung {} innerhalb von 30 Tagen zahlen."],
        "version": ["Veröffentlicht in {}."],
        "sku": ["Artikel {} ist wieder lieferbar."],
        "part_number": ["Teil {} jährlich ersetzen."],
        "hash": ["Zurückgenommen in {}."],
        "uuid": ["Sitzung {} ist abgelaufen."],
        "duration": ["Antwortzeit: {}."],
        "coordinates": ["GPS: {}"],
        "price": ["Das macht {}."],
    },
}

CHAT_DECOYS: dict[str, list[str]] = {
    "order_id": ["where is order {}"],
    "invoice_id": ["paid {} yesterday"],
    "version": ["upgraded to {}"],
    "sku": ["{} back in stock?"],
    "part_number": ["ordered {} again"],
    "hash": ["reverted {}"],
    "uuid": ["session {} expired"],
    "duration": ["waited {} smh"],
    "coordinates": ["pin {}"],
    "price": ["paid {} for it"],
}

SIGNOFFS = {"en": ["All the best,", "Regards,", "Best,"], "fr": ["Bien cordialement,", "Salutations,"],
            "es": ["Atentamente,", "Saludos cordiales,"], "de": ["Beste Grüße", "Freundliche Grüße"]}  # fmt: skip
SIGNATURE_LABELS = {
    "PHONE_NUMBER": ["Cell: ", "T: ", "Direct: ", "Office "],
    "EMAIL_ADDRESS": ["Email: ", "Mail: "],
    "IBAN_CODE": ["Bank: "],
    "NATIONAL_ID": ["Tax ID: "],
    "IP_ADDRESS": ["Host: "],
    "DATE_OF_BIRTH": ["Born: "],
    "CREDIT_CARD": ["Corporate card: "],
    "US_SSN": ["Social: "],
    "SECRET": ["API key: "],
}

BOOK = Phrasebook(sentences=SENTENCES, chat=CHAT, decoy_sentences=DECOY_SENTENCES, chat_decoys=CHAT_DECOYS,
                  signoffs=SIGNOFFS, signature_labels=SIGNATURE_LABELS)  # fmt: skip
