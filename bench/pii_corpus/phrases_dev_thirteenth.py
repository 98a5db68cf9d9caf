"""The thirteenth dev-side corpus's phrasing (``dev_thirteenth``): clauses of running prose as news wires, court
records, obituaries and death notices, sports reports, letters and minutes write them, in English, German, French
and Spanish. ``{}`` is where a value (or a hard negative) goes. None of it is taken from another split's phrasebook.
"""

from __future__ import annotations

CLAUSES: dict[str, dict[str, list[str]]] = {
    "en": {
        "PERSON": ["according to a statement from {}", "the motion was seconded by {}", "{} declined to comment",
                   "the referee, {}, waved play on", "tributes were led by {}", "the filing names {} as trustee"],
        "LOCATION": ["a native of {}", "the family later settled in {}", "the hearing was moved to {}",
                     "the squad flew home to {}", "she spent her last years in {}", "the club's ground in {}"],
        "EMAIL_ADDRESS": ["condolences may be sent to {}", "the clerk can be reached at {}",
                          "tips may be e-mailed to {}"],
        "PHONE_NUMBER": ["the chambers' line is {}", "tickets are sold on {}", "the family asks callers to use {}"],
        "CREDIT_CARD": ["the restitution was charged to card {}", "the donation was paid by card {}"],
        "IBAN_CODE": ["donations in lieu of flowers to account {}", "the fine is payable to {}"],
        "US_SSN": ["the exhibit lists the Social Security number {}", "his SSN, {}, appears on page two"],
        "IP_ADDRESS": ["the post was traced to {}", "the stream came from {}"],
        "STREET_ADDRESS": ["the wake will be held at {}", "police were called to {}", "the office moved to {}"],
        "DATE_OF_BIRTH": ["born {}", "(b. {})", "DOB: {}", "d.o.b. {}", "whose date of birth is given as {}"],
        "NATIONAL_ID": ["the court record gives the identity number {}", "her national insurance number {}"],
        "SECRET": ["the leaked credential {} was revoked", "the complaint quotes the key {}"],
        "other_date": ["died peacefully {}", "the hearing is set for {}", "the return leg is on {}",
                       "the minutes were approved {}"],
        "score": ["won {} on the night", "the match ended {}", "a {} defeat away from home"],
        "case_number": ["in Case No. {}", "docketed as {}", "the appeal, {}, was dismissed"],
        "age": ["aged {}", "who was {} when she retired", "now {} and still coaching"],
        "page_ref": ["as noted at {}", "see {} of the transcript", "set out in {}"],
        "jersey": ["wearing No. {}", "the {} shirt", "substituted for No. {}"],
    },
    "de": {
        "PERSON": ["wie {} mitteilte", "nach Angaben von {}", "{} wollte sich nicht äußern"],
        "LOCATION": ["mit Wohnsitz in {}", "aufgewachsen in {}", "die Trauerfeier findet in {} statt"],
        "EMAIL_ADDRESS": ["Kondolenzen bitte an {}", "Rückfragen an {}"],
        "PHONE_NUMBER": ["telefonisch unter {}", "Auskunft unter {}"],
        "CREDIT_CARD": ["bezahlt mit der Karte {}", "Kartennummer {}"],
        "IBAN_CODE": ["Spenden auf das Konto {}", "Überweisung an {}"],
        "US_SSN": ["US-Sozialversicherungsnummer {}", "SSN {}"],
        "IP_ADDRESS": ["der Zugriff kam von {}", "über die Adresse {}"],
        "STREET_ADDRESS": ["Traueradresse: {}", "wohnhaft {}"],
        "DATE_OF_BIRTH": ["geb. {}", "geboren am {}", "* {}"],
        "NATIONAL_ID": ["Ausweisnummer {}", "Identifikationsnummer {}"],
        "SECRET": ["der Schlüssel {} wurde gesperrt", "Zugangsdaten {}"],
        "other_date": ["† {}", "verstorben am {}", "Beisetzung am {}"],
        "score": ["das Spiel endete {}", "ein {}-Sieg"],
        "case_number": ["Az. {}", "unter dem Aktenzeichen {}"],
        "age": ["im Alter von {} Jahren", "der {}-Jährige"],
        "page_ref": ["siehe {}", "vgl. {}"],
        "jersey": ["mit der Rückennummer {}", "die Nummer {}"],
    },
    "fr": {
        "PERSON": ["selon {}", "a déclaré {}", "{} n'a pas souhaité commenter"],
        "LOCATION": ["originaire de {}", "domicilié à {}", "les obsèques auront lieu à {}"],
        "EMAIL_ADDRESS": ["condoléances à {}", "contact presse {}"],
        "PHONE_NUMBER": ["renseignements au {}", "joignable au {}"],
        "CREDIT_CARD": ["réglé par la carte {}", "carte bancaire {}"],
        "IBAN_CODE": ["dons sur le compte {}", "versement au {}"],
        "US_SSN": ["numéro de sécurité sociale américain {}", "SSN {}"],
        "IP_ADDRESS": ["la connexion venait de {}", "depuis l'adresse {}"],
        "STREET_ADDRESS": ["la famille reçoit au {}", "domicile : {}"],
        "DATE_OF_BIRTH": ["né le {}", "née le {}", "date de naissance : {}"],
        "NATIONAL_ID": ["numéro d'identification {}", "pièce d'identité {}"],
        "SECRET": ["la clé {} a été révoquée", "identifiant secret {}"],
        "other_date": ["décédé le {}", "l'audience est fixée au {}", "inhumation le {}"],
        "score": ["le match s'est terminé {}", "une victoire {}"],
        "case_number": ["affaire n° {}", "RG {}"],
        "age": ["à l'âge de {} ans", "âgé de {} ans"],
        "page_ref": ["voir {}", "cf. {}"],
        "jersey": ["le numéro {}", "maillot {}"],
    },
    "es": {
        "PERSON": ["según {}", "declaró {}", "{} no quiso hacer comentarios"],
        "LOCATION": ["natural de {}", "con domicilio en {}", "el sepelio será en {}"],
        "EMAIL_ADDRESS": ["condolencias a {}", "contacto de prensa {}"],
        "PHONE_NUMBER": ["informes al {}", "teléfono de la familia {}"],
        "CREDIT_CARD": ["pagado con la tarjeta {}", "tarjeta {}"],
        "IBAN_CODE": ["donativos a la cuenta {}", "ingreso en {}"],
        "US_SSN": ["número de seguro social {}", "SSN {}"],
        "IP_ADDRESS": ["la conexión vino de {}", "desde la dirección {}"],
        "STREET_ADDRESS": ["la familia recibe en {}", "domicilio: {}"],
        "DATE_OF_BIRTH": ["nacido el {}", "nacida el {}", "fecha de nacimiento: {}"],
        "NATIONAL_ID": ["documento de identidad {}", "número de identificación {}"],
        "SECRET": ["la clave {} fue revocada", "credencial {}"],
        "other_date": ["falleció el {}", "la vista será el {}", "el partido de vuelta es el {}"],
        "score": ["el partido terminó {}", "una derrota por {}"],
        "case_number": ["expediente {}", "causa n.º {}"],
        "age": ["a los {} años", "de {} años"],
        "page_ref": ["véase {}", "cf. {}"],
        "jersey": ["con el dorsal {}", "el número {}"],
    },
}  # fmt: skip

# News agencies a dateline names, by language.
AGENCIES = {"en": ["Reuters", "AP", "AFP", "PA"], "de": ["dpa", "APA", "Reuters"], "fr": ["AFP", "Belga", "ATS"],
            "es": ["EFE", "Europa Press"]}  # fmt: skip
# What a news report says a person said, and what it says next, naming them by the surname alone.
SAID = {"en": ['"We were never told," said {}, {}, a local councillor.',
               "{}, {}, told reporters the plant would close.", '"It was a shock," said {}, {}.'],
        "de": ["„Wir wussten nichts“, sagte {} ({}).", "{} ({}) kündigte Widerstand an."],
        "fr": ["« Nous n'étions pas prévenus », a déclaré {}, {} ans.", "{}, {} ans, a porté plainte."],
        "es": ["«No nos avisaron», dijo {}, de {} años.", "{}, de {} años, presentó una denuncia."]}  # fmt: skip
SECOND_MENTION = {"en": ["{} added that the inquiry would continue.", "{} later withdrew the remark.",
                         "A spokesman for {} did not respond.", "{}'s lawyer said an appeal was likely."],
                  "de": ["{} kündigte weitere Schritte an.", "Auch {} äußerte sich."],
                  "fr": ["{} a ajouté que l'enquête se poursuivait.", "L'avocat de {} a fait appel."],
                  "es": ["{} añadió que la investigación continúa.", "El abogado de {} recurrirá."]}  # fmt: skip
SPORTS_FIRST = [
    "{} scored twice as the visitors",
    "{} opened the scoring after nine minutes",
    "a late header from {} settled it",
    "{} was sent off before the break",
]
SPORTS_AGAIN = [
    "{} has now scored in four straight games.",
    "{}'s second came from the penalty spot.",
    "Coaches praised {} afterwards.",
    '"We needed that," {} said.',
]
COMMITTEES = [
    "Parish Council",
    "Finance Committee",
    "Board of Governors",
    "Residents' Association",
    "Allotment Society",
]
MINUTES_ITEMS = [
    "{} reported on the budget.",
    "Action: {} to circulate the draft.",
    "{} proposed the motion.",
    "{}'s report was received and noted.",
]
