"""The `dev` split's sentence material: for each language, clauses that carry one value of a type (or one decoy) at
``{}``; field names of structured contexts (shared by both splits: a schema's keys, not a phrasing).

The `test` split phrases its sentences, chat, sign-offs and signature labels differently (``phrases_heldout``): the
detectors are tuned on the phrasings here, and the held-out figures show whether what they learned generalises.
Clauses put values at the start of a sentence, at its end, inside brackets and quotes and next to punctuation; a
case joins several clauses, so values also land at the very start and the very end of a text.
"""

from __future__ import annotations

from bench.pii_corpus.model import Phrasebook

SENTENCES: dict[str, dict[str, list[str]]] = {
    "en": {
        "PERSON": [
            "{} approved the change yesterday.",
            "Please forward this to {}.",
            "Dear {},",
            "I spoke with {} about the renewal",
            "The ticket was reassigned to {} (on-call).",
            "Can you ask {}, the account owner, to confirm?",
            "Meeting notes taken by {}:",
        ],
        "LOCATION": [
            "She relocated to {} in the spring.",
            "Our new office is in {}.",
            "{} is where the shipment is held",
            "The flight from {} was delayed by two hours.",
            "Customer is based in {};",
            "I grew up near {}, then moved abroad.",
        ],
        "EMAIL_ADDRESS": [
            "Reach me at {}.",
            "{} bounced twice this week.",
            "cc: {}",
            "send the invoice to <{}>",
            "The login for {} is locked.",
        ],
        "PHONE_NUMBER": [
            "Call me at {} after 5pm.",
            "Phone: {}",
            "{} is the on-call number.",
            "You can text {} if the door is locked.",
            "Her mobile ({}) goes to voicemail.",
        ],
        "CREDIT_CARD": [
            "Charge card {} for the renewal.",
            "{} was declined at checkout.",
            "The customer paid with {}, then disputed it.",
            "card number: {}",
        ],
        "IBAN_CODE": [
            "Wire the refund to {}.",
            "IBAN {} belongs to the supplier.",
            "{} is the payout account",
            "Bank details: IBAN: {}",
        ],
        "US_SSN": ["My SSN is {}.", "social security number {} on the W-2", "SSN: {}", "{} is the SSN on file."],
        "IP_ADDRESS": [
            "The request came from {}.",
            "Blocked {} after 20 failed logins.",
            "{} is on the allow-list",
            "ssh into {} and restart the service",
            "Traffic spiked from [{}].",
        ],
        "STREET_ADDRESS": ["Ship it to {}.", "She lives at {} now.", "{} is the billing address", "Return address: {}"],
        "DATE_OF_BIRTH": [
            "Date of birth: {}.",
            "He was born on {}.",
            "DOB {} per the passport.",
            "born {}, according to the form",
            "{} is his birthday",
        ],
        "NATIONAL_ID": [
            "Her national ID number is {}.",
            "tax id {} on the contract",
            "ID: {}",
            "{} is the identification number we have",
            "Personal number ({}) confirmed.",
        ],
        "SECRET": [
            "Here is the key: {}",
            "Use this token: {} and rotate it after.",
            "{} is the deploy token",
            "the api key is {} btw",
            "Credentials leaked: {}",
        ],
    },
    "fr": {
        "PERSON": [
            "{} a validé la modification hier.",
            "Merci de transmettre à {}.",
            "Bonjour {},",
            "J'ai parlé avec {} du renouvellement.",
            "Le dossier est suivi par {} (support).",
        ],
        "LOCATION": [
            "Elle a déménagé à {} au printemps.",
            "Notre nouveau bureau est à {}.",
            "Le vol depuis {} a eu deux heures de retard.",
            "{} est la ville de livraison",
        ],
        "EMAIL_ADDRESS": ["Écrivez-moi à {}.", "Adresse e-mail : {}", "{} ne reçoit plus nos messages."],
        "PHONE_NUMBER": [
            "Appelez-moi au {}.",
            "Tél. : {}",
            "Mon portable ({}) est coupé.",
            "{} est le numéro d'astreinte.",
        ],
        "CREDIT_CARD": [
            "Débitez la carte {} pour le renouvellement.",
            "La carte {} a été refusée.",
            "numéro de carte : {}",
        ],
        "IBAN_CODE": ["Virez le remboursement sur {}.", "IBAN : {}", "{} est le compte du fournisseur."],
        "US_SSN": ["Son SSN américain est le {}.", "numéro de sécurité sociale US : {}"],
        "IP_ADDRESS": ["La requête venait de {}.", "Adresse IP bloquée : {}", "{} est sur la liste blanche."],
        "STREET_ADDRESS": ["Livrez au {}.", "Elle habite {} désormais.", "Adresse : {}"],
        "DATE_OF_BIRTH": ["Date de naissance : {}.", "Il est né le {}.", "née le {}, selon le formulaire"],
        "NATIONAL_ID": ["Son numéro d'identification est {}.", "N° de sécurité sociale : {}", "identifiant fiscal {}"],
        "SECRET": ["Voici la clé : {}", "Utilisez ce jeton : {} puis changez-le.", "{} est le jeton de déploiement"],
    },
    "es": {
        "PERSON": [
            "{} aprobó el cambio ayer.",
            "Por favor, reenvíalo a {}.",
            "Hola {},",
            "Hablé con {} sobre la renovación.",
        ],
        "LOCATION": [
            "Se mudó a {} en primavera.",
            "Nuestra nueva oficina está en {}.",
            "El vuelo desde {} llegó con retraso.",
            "{} es la ciudad de entrega",
        ],
        "EMAIL_ADDRESS": ["Escríbeme a {}.", "Correo: {}", "{} no recibe nuestros mensajes."],
        "PHONE_NUMBER": ["Llámame al {}.", "Tel.: {}", "Mi móvil ({}) está apagado.", "{} es el número de guardia."],
        "CREDIT_CARD": [
            "Cobra la tarjeta {} por la renovación.",
            "La tarjeta {} fue rechazada.",
            "número de tarjeta: {}",
        ],
        "IBAN_CODE": ["Transfiere el reembolso a {}.", "IBAN: {}", "{} es la cuenta del proveedor."],
        "US_SSN": ["Su SSN es {}.", "número de seguro social: {}"],
        "IP_ADDRESS": ["La petición vino de {}.", "IP bloqueada: {}", "{} está en la lista permitida."],
        "STREET_ADDRESS": ["Envíalo a {}.", "Ahora vive en {}.", "Dirección: {}"],
        "DATE_OF_BIRTH": ["Fecha de nacimiento: {}.", "Nació el {}.", "nacida el {}, según el formulario"],
        "NATIONAL_ID": ["Su número de identificación es {}.", "DNI/NIE: {}", "identificador fiscal {}"],
        "SECRET": ["Aquí está la clave: {}", "Usa este token: {} y luego cámbialo.", "{} es el token de despliegue"],
    },
    "de": {
        "PERSON": [
            "{} hat die Änderung gestern freigegeben.",
            "Bitte leite das an {} weiter.",
            "Hallo {},",
            "Ich habe mit {} über die Verlängerung gesprochen.",
        ],
        "LOCATION": [
            "Sie ist im Frühjahr nach {} gezogen.",
            "Unser neues Büro ist in {}.",
            "Der Flug aus {} hatte zwei Stunden Verspätung.",
            "{} ist der Lieferort",
        ],
        "EMAIL_ADDRESS": ["Schreib mir an {}.", "E-Mail: {}", "{} bekommt unsere Mails nicht mehr."],
        "PHONE_NUMBER": [
            "Ruf mich unter {} an.",
            "Tel.: {}",
            "Mein Handy ({}) ist aus.",
            "{} ist die Bereitschaftsnummer.",
        ],
        "CREDIT_CARD": [
            "Belaste die Karte {} für die Verlängerung.",
            "Die Karte {} wurde abgelehnt.",
            "Kartennummer: {}",
        ],
        "IBAN_CODE": ["Überweise die Erstattung auf {}.", "IBAN: {}", "{} ist das Konto des Lieferanten."],
        "US_SSN": ["Seine SSN lautet {}.", "US-Sozialversicherungsnummer: {}"],
        "IP_ADDRESS": ["Die Anfrage kam von {}.", "Gesperrte IP: {}", "{} steht auf der Allowlist."],
        "STREET_ADDRESS": ["Schick es an {}.", "Sie wohnt jetzt in der {}.", "Anschrift: {}"],
        "DATE_OF_BIRTH": ["Geburtsdatum: {}.", "Er wurde am {} geboren.", "geboren am {} laut Formular"],
        "NATIONAL_ID": ["Ihre Identifikationsnummer ist {}.", "Steuer-ID: {}", "Ausweisnummer {}"],
        "SECRET": [
            "Hier ist der Schlüssel: {}",
            "Nimm dieses Token: {} und rotiere es danach.",
            "{} ist das Deploy-Token",
        ],
    },
}

# Lower-case chat, as people type it: no capitals, little punctuation.
CHAT: dict[str, list[str]] = {
    "PERSON": ["hey its {} here", "can u ping {} about it", "{} said its fine", "thx {}"],
    "LOCATION": ["im in {} this week", "flying to {} tmrw", "{} office is closed today"],
    "EMAIL_ADDRESS": ["my email is {}", "{} pls", "send it to {} ok"],
    "PHONE_NUMBER": ["call me on {}", "my number {}", "{} thats my cell"],
    "CREDIT_CARD": ["card is {}", "use {} for it", "{} exp 09/27"],
    "IBAN_CODE": ["iban {}", "send money to {} pls"],
    "US_SSN": ["ssn {}", "my ssn is {} i think"],
    "IP_ADDRESS": ["ip is {}", "cant reach {} anymore", "{} keeps timing out"],
    "STREET_ADDRESS": ["im at {}", "deliver to {} pls"],
    "DATE_OF_BIRTH": ["dob {}", "born {} lol", "my bday is {}"],
    "NATIONAL_ID": ["my id number is {}", "id {}"],
    "SECRET": ["token {}", "here u go {}", "key is {} dont share"],
}

DECOY_SENTENCES: dict[str, dict[str, list[str]]] = {
    "en": {
        "order_id": ["Order {} shipped today.", "re: order {}"],
        "invoice_id": ["Invoice {} is overdue."],
        "version": ["Upgrade to {} first.", "works on {}"],
        "sku": ["SKU {} is out of stock."],
        "part_number": ["Part no. {} was replaced."],
        "hash": ["Fixed in commit {}.", "sha256 {}"],
        "uuid": ["Request id {} failed."],
        "duration": ["The job took {}."],
        "coordinates": ["The pin is at {}."],
        "price": ["The total is {}.", "costs {} per seat"],
    },
    "fr": {
        "order_id": ["La commande {} est partie."],
        "invoice_id": ["La facture {} est en retard."],
        "version": ["Passez d'abord en {}."],
        "sku": ["La référence {} est épuisée."],
        "part_number": ["La pièce n° {} a été changée."],
        "hash": ["Corrigé dans le commit {}."],
        "uuid": ["La requête {} a échoué."],
        "duration": ["Le traitement a duré {}."],
        "coordinates": ["Le point est en {}."],
        "price": ["Le total est de {}."],
    },
    "es": {
        "order_id": ["El pedido {} salió hoy."],
        "invoice_id": ["La factura {} está vencida."],
        "version": ["Actualiza primero a {}."],
        "sku": ["El SKU {} está agotado."],
        "part_number": ["La pieza n.º {} fue sustituida."],
        "hash": ["Corregido en el commit {}."],
        "uuid": ["La petición {} falló."],
        "duration": ["El proceso tardó {}."],
        "coordinates": ["El punto está en {}."],
        "price": ["El total es {}."],
    },
    "de": {
        "order_id": ["Bestellung {} ist unterwegs."],
        "invoice_id": ["Rechnung {} ist überfällig."],
        "version": ["Erst auf {} aktualisieren."],
        "sku": ["Artikel {} ist ausverkauft."],
        "part_number": ["Teilenummer {} wurde getauscht."],
        "hash": ["Behoben in Commit {}."],
        "uuid": ["Anfrage {} ist fehlgeschlagen."],
        "duration": ["Der Lauf dauerte {}."],
        "coordinates": ["Der Punkt liegt bei {}."],
        "price": ["Die Summe beträgt {}."],
    },
}

CHAT_DECOYS: dict[str, list[str]] = {
    "order_id": ["order {} still not here"],
    "invoice_id": ["invoice {} pls"],
    "version": ["on {} now"],
    "sku": ["sku {} sold out?"],
    "part_number": ["need part {}"],
    "hash": ["see {}"],
    "uuid": ["req {} died"],
    "duration": ["took {} lol"],
    "coordinates": ["meet at {}"],
    "price": ["its {} total"],
}

# Field names structured contexts (JSON, YAML, CSV, logs, code) use for each type and decoy kind.
FIELD_NAMES: dict[str, list[str]] = {
    "PERSON": ["name", "full_name", "customer_name", "assignee", "contact"],
    "LOCATION": ["city", "location", "country", "birthplace", "region"],
    "EMAIL_ADDRESS": ["email", "contact_email", "reply_to", "user_email"],
    "PHONE_NUMBER": ["phone", "mobile", "tel", "phone_number"],
    "CREDIT_CARD": ["card_number", "pan", "cc_number", "payment_card"],
    "IBAN_CODE": ["iban", "payout_iban", "bank_account"],
    "US_SSN": ["ssn", "social_security_number"],
    "IP_ADDRESS": ["ip", "client_ip", "remote_addr", "source_ip"],
    "STREET_ADDRESS": ["address", "street", "shipping_address"],
    "DATE_OF_BIRTH": ["dob", "date_of_birth", "birth_date", "birthday"],
    "NATIONAL_ID": ["national_id", "tax_id", "id_number", "personal_id"],
    "SECRET": ["api_key", "token", "secret", "client_secret", "access_token"],
    "order_id": ["order_id", "order"],
    "invoice_id": ["invoice", "invoice_no"],
    "version": ["version", "app_version"],
    "sku": ["sku", "item_code"],
    "part_number": ["part_no", "part_number"],
    "hash": ["commit", "sha", "digest"],
    "uuid": ["request_id", "trace_id"],
    "duration": ["elapsed", "duration"],
    "coordinates": ["coords", "latlng"],
    "price": ["total", "price"],
}
# Field names for particular credentials, as configuration files name them.
SECRET_FIELD_NAMES = {
    "secret:aws-access-key-id": ["aws_access_key_id", "AWS_ACCESS_KEY_ID"],
    "secret:aws-secret-access-key": ["aws_secret_access_key", "AWS_SECRET_ACCESS_KEY"],
    "secret:github": ["GITHUB_TOKEN", "gh_token"],
    "secret:github-fine-grained": ["GITHUB_TOKEN", "github_pat"],
    "secret:gitlab": ["GITLAB_TOKEN", "private_token"],
    "secret:slack": ["SLACK_BOT_TOKEN", "slack_token"],
    "secret:jwt": ["authorization", "id_token", "jwt"],
}

SIGNOFFS = {"en": ["Best regards,", "Thanks,", "Kind regards,"], "fr": ["Cordialement,", "Bien à vous,"],
            "es": ["Saludos,", "Un saludo,"], "de": ["Mit freundlichen Grüßen", "Viele Grüße"]}  # fmt: skip
SIGNATURE_LABELS = {
    "PHONE_NUMBER": ["Tel: ", "Mobile: ", "M: ", "Phone "],
    "EMAIL_ADDRESS": ["", "E-mail: "],
    "IBAN_CODE": ["IBAN: "],
    "NATIONAL_ID": ["VAT/ID: "],
    "IP_ADDRESS": ["VPN: "],
    "DATE_OF_BIRTH": ["DOB: "],
    "CREDIT_CARD": ["Card: "],
    "US_SSN": ["SSN: "],
    "SECRET": ["Key: "],
}

BOOK = Phrasebook(sentences=SENTENCES, chat=CHAT, decoy_sentences=DECOY_SENTENCES, chat_decoys=CHAT_DECOYS,
                  signoffs=SIGNOFFS, signature_labels=SIGNATURE_LABELS)  # fmt: skip
