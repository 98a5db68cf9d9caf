"""Sentences built from parts, so that a name or a place stands beside many different words, not fifteen clauses'.

The PII corpus phrases each split apart (``bench.pii_corpus.phrases`` for `dev`); a model trained on `dev`'s clauses
learns their words ("Dear", "joined the call") and misses names in phrasings it never read. Here a clause is a
lead that ends before a value ("I forwarded the draft to"), a predicate that follows one ("will present the
roadmap"), a possessive, an apposition or a list, with a tail and a punctuation mark, in English, French, Spanish
and German; sentences of the same languages with capitalised words that name no one (products, teams, months,
weekdays) stand between them, unlabelled.

Every part belongs to one of two halves by a hash of its text: ``train`` parts make training samples, ``probe``
parts make sentences to score a trained pipeline on phrasings it never saw (``bench.pii_ner.probe``). None of this
comes from the corpus's held-out phrasebook.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable
from dataclasses import dataclass

HALVES = ("train", "probe")
PROBE_SHARE = 4  # one part in four is a probe part


def half_of(part: str) -> str:
    return "probe" if hashlib.sha256(f"clause:{part}".encode()).digest()[0] % PROBE_SHARE == 0 else "train"


@dataclass(frozen=True)
class Parts:
    """One language's parts; ``{}`` marks the value, ``{P}`` a second value of the same label in a list."""

    person_leads: tuple[str, ...]
    person_predicates: tuple[str, ...]
    person_frames: tuple[str, ...]  # whole clauses: possessives, appositions, titles, lists
    place_leads: tuple[str, ...]
    place_predicates: tuple[str, ...]
    place_frames: tuple[str, ...]
    tails: tuple[str, ...]
    fillers: tuple[str, ...]  # no value: capitalised words that are no person and no place


EN = Parts(
    person_leads=(
        "I forwarded the draft to", "Could you loop in", "The invoice was signed off by", "We are still waiting on",
        "Let's set up a sync with", "Ownership moves to", "Talked to", "Got a reply from", "Reminder for",
        "The new hire is", "On behalf of", "Message from", "Point of contact is", "Interview scheduled with",
        "Had lunch with", "As discussed with", "Feedback came from", "Reviewer:", "Author:", "Owner -",
        "The package is addressed to", "Please book a room for", "This laptop belongs to", "Shift swapped with",
        "Paging", "Notes shared by", "The last commit is from", "Refund requested by", "Background check for",
        "Keys were returned by", "Visitor badge for", "Onboarding buddy:", "New tenant:", "Patient name:",
        "Emergency contact is", "The contract lists", "Travel booked for", "Expense claim from",
    ),
    person_predicates=(
        "will present the roadmap", "is out sick today", "owns the billing migration", "left the company in March",
        "can cover the night shift", "has the spare keys", "needs access to the staging cluster",
        "reported the outage", "booked the meeting room", "is the best person to ask", "moved to the data team",
        "hasn't replied yet", "will be in late", "called twice this morning", "filed the expense report",
        "takes over next week", "closed the ticket", "is waiting in the lobby", "paid the deposit",
        "signed the lease", "missed the flight", "wants a callback", "uploaded the scans", "runs the night desk",
        "is allergic to peanuts", "turned thirty last week", "asked for a raise", "was promoted in June",
        "cancelled the order", "shared the slides",
    ),
    person_frames=(
        "{}'s laptop was stolen", "Please update {}'s address", "{}'s manager approved it",
        "according to {}'s notes", "{}, our new intern, starts Monday", "{} (Head of Sales)", "{} - QA lead",
        "{} from accounting", "Mr. {} will call back", "Dr {} is on call", "Ms {} signed for it",
        "{} and {P} are on the call", "{}, {P} and {P} reviewed it", "attendees: {}, {P}",
        "I told {} that the build is green", "both {} and {P} agreed", "the {} account is overdue",
        "{} Account Manager", "thanks to {} the fix shipped", "with {} in copy", "{} is my landlord",
        "my colleague {} knows", "the customer, {}, complained", "{} left a voicemail for {P}",
    ),
    place_leads=(
        "We are opening a store in", "The conference moves to", "He commutes from", "Shipping is paused for",
        "Our team flew into", "The warehouse near", "Temperatures dropped across", "Weather alert for",
        "She was born in", "They emigrated to", "The train stops at", "Route via", "Headquartered in",
        "Based out of", "Working remotely from", "Roaming charges apply in", "The parcel is stuck in",
        "Flights were grounded in", "Prices went up in", "Hiring engineers in", "The data center is outside",
        "Sales grew fastest in", "Returning from", "Layover in",
    ),
    place_predicates=(
        "hosts the summit next year", "is sunny today", "has the cheapest rents", "won the bid",
        "is closed for the holiday", "reported a power cut", "is our biggest market", "voted last week",
        "is three hours ahead", "flooded again", "is where the servers are", "gets a new office",
    ),
    place_frames=(
        "the {} office", "our {} branch", "the {} plant is hiring", "a {}-based supplier", "{} time zone",
        "{}, {P}", "from {} to {P}", "the {} team ships on Friday", "a trip to {} and {P}", "{} airport is closed",
        "the road between {} and {P}", "customers in {} and {P}", "near {} on the coast",
    ),
    tails=("", " yesterday", " this morning", " before Friday", " when you can", " for the audit",
           " about the refund", " tomorrow", " last week", " asap", " again", " today", " in Q3"),
    fillers=(
        "Deploy the Kubernetes operator before Friday.", "The Jira board is out of date.",
        "Postgres failed over at midnight.", "Sprint Review moved to Thursday.", "Quarterly Business Review slides",
        "The Finance team closes the books in January.", "Release Notes are in Confluence.",
        "Customer Success will reach out.", "Security Audit starts in October.", "Run the Terraform plan first.",
        "The Marketing budget is frozen.", "Slack is down again.", "Black Friday traffic doubled.",
        "Annual Leave requests go through Workday.", "The API Gateway returned 502.", "Office Hours are Tuesday.",
    ),
)

FR = Parts(
    person_leads=(
        "J'ai transmis le dossier à", "Pouvez-vous mettre en copie", "La facture a été signée par",
        "Nous attendons toujours", "Réunion prévue avec", "Le dossier passe à", "J'ai eu au téléphone",
        "Réponse reçue de", "Rappel pour", "La nouvelle recrue est", "De la part de", "Message de",
        "Interlocuteur :", "Entretien avec", "Déjeuner avec", "Comme convenu avec", "Relecture par",
        "Le colis est adressé à", "Ce badge appartient à", "Contact d'urgence :", "Note de frais de",
    ),
    person_predicates=(
        "présentera la feuille de route", "est malade aujourd'hui", "gère la migration", "a quitté l'équipe en mars",
        "peut assurer la permanence", "a les clés", "n'a pas encore répondu", "arrivera en retard",
        "a appelé deux fois", "a clôturé le ticket", "attend à l'accueil", "a payé l'acompte", "a signé le bail",
        "a raté son vol", "veut être rappelé", "a partagé les diapositives",
    ),
    person_frames=(
        "le portable de {} a été volé", "merci de mettre à jour l'adresse de {}", "{}, notre stagiaire, arrive lundi",
        "{} (directrice commerciale)", "{} du service comptable", "M. {} rappellera", "Mme {} a signé",
        "{} et {P} sont en réunion", "selon les notes de {}", "le compte de {} est en retard",
        "j'ai dit à {} que c'était bon", "avec {} en copie", "mon collègue {} le sait",
    ),
    place_leads=(
        "Nous ouvrons une boutique à", "La conférence a lieu à", "Il fait la navette depuis",
        "Les livraisons sont suspendues pour", "Elle est née à", "Ils ont émigré vers", "Le train s'arrête à",
        "Siège social à", "En télétravail depuis", "Le colis est bloqué à", "Les prix ont augmenté en",
        "Nous recrutons à", "De retour de", "Escale à",
    ),
    place_predicates=(
        "accueille le sommet l'an prochain", "est ensoleillée aujourd'hui", "reste notre premier marché",
        "a voté la semaine dernière", "est fermée pour les fêtes", "a une heure d'avance",
    ),
    place_frames=(
        "le bureau de {}", "notre agence de {}", "l'usine de {} recrute", "un fournisseur basé à {}",
        "{}, {P}", "de {} à {P}", "un voyage à {} et à {P}", "l'aéroport de {} est fermé",
    ),
    tails=("", " hier", " ce matin", " avant vendredi", " dès que possible", " pour l'audit", " demain",
           " la semaine dernière", " encore"),
    fillers=(
        "Le Comité de Direction se réunit en Janvier.", "La Revue de Sprint est déplacée à jeudi.",
        "Le Service Client vous recontactera.", "Mise à jour du Tableau de Bord.", "Le Budget Marketing est gelé.",
        "La Sécurité Sociale a répondu.", "Les Ressources Humaines valident les congés.",
    ),
)

ES = Parts(
    person_leads=(
        "Le reenvié el borrador a", "¿Puedes poner en copia a", "La factura la firmó", "Seguimos esperando a",
        "Reunión con", "El caso pasa a", "Hablé por teléfono con", "Respuesta de", "Recordatorio para",
        "La nueva incorporación es", "En nombre de", "Mensaje de", "Persona de contacto:", "Entrevista con",
        "Comí con", "Según lo hablado con", "Revisado por", "El paquete va dirigido a", "Esta tarjeta es de",
        "Contacto de emergencia:", "Gastos de",
    ),
    person_predicates=(
        "presentará la hoja de ruta", "está enfermo hoy", "lleva la migración", "dejó la empresa en marzo",
        "puede cubrir el turno", "tiene las llaves", "no ha contestado", "llegará tarde", "llamó dos veces",
        "cerró la incidencia", "espera en recepción", "pagó la fianza", "firmó el contrato", "perdió el vuelo",
        "quiere que le llamen", "compartió las diapositivas",
    ),
    person_frames=(
        "robaron el portátil de {}", "actualiza la dirección de {}", "{}, nuestra becaria, empieza el lunes",
        "{} (directora comercial)", "{} de contabilidad", "el Sr. {} devolverá la llamada", "la Sra. {} firmó",
        "{} y {P} están en la llamada", "según las notas de {}", "la cuenta de {} está vencida",
        "le dije a {} que ya estaba", "con {} en copia", "mi compañero {} lo sabe",
    ),
    place_leads=(
        "Abrimos una tienda en", "La conferencia será en", "Viaja cada día desde", "Envíos suspendidos para",
        "Nació en", "Emigraron a", "El tren para en", "Con sede en", "Teletrabaja desde", "El paquete está en",
        "Los precios subieron en", "Contratamos en", "Volviendo de", "Escala en",
    ),
    place_predicates=(
        "acoge la cumbre el año que viene", "tiene sol hoy", "es nuestro mayor mercado", "votó la semana pasada",
        "cierra por fiestas", "va una hora por delante",
    ),
    place_frames=(
        "la oficina de {}", "nuestra sucursal de {}", "la planta de {} contrata", "un proveedor con sede en {}",
        "{}, {P}", "de {} a {P}", "un viaje a {} y {P}", "el aeropuerto de {} está cerrado",
    ),
    tails=("", " ayer", " esta mañana", " antes del viernes", " cuando puedas", " para la auditoría", " mañana",
           " la semana pasada", " otra vez"),
    fillers=(
        "El Comité de Dirección se reúne en Enero.", "La Revisión del Sprint pasa al jueves.",
        "Atención al Cliente le llamará.", "Actualización del Cuadro de Mando.",
        "El Presupuesto de Marketing está congelado.",
        "Recursos Humanos aprueba las vacaciones.", "La Seguridad Social respondió.",
    ),
)

DE = Parts(
    person_leads=(
        "Ich habe den Entwurf weitergeleitet an", "Kannst du in Kopie setzen:", "Die Rechnung wurde freigegeben von",
        "Wir warten noch auf", "Termin mit", "Zuständig ist jetzt", "Ich habe telefoniert mit", "Antwort von",
        "Erinnerung für", "Die neue Kollegin ist", "Im Auftrag von", "Nachricht von", "Ansprechpartner:",
        "Vorstellungsgespräch mit", "Mittagessen mit", "Wie besprochen mit", "Geprüft von", "Das Paket geht an",
        "Dieser Ausweis gehört", "Notfallkontakt:", "Reisekosten von",
    ),
    person_predicates=(
        "stellt die Roadmap vor", "ist heute krank", "betreut die Migration", "hat im März gekündigt",
        "übernimmt die Nachtschicht", "hat die Schlüssel", "hat noch nicht geantwortet", "kommt später",
        "hat zweimal angerufen", "hat das Ticket geschlossen", "wartet am Empfang", "hat die Kaution bezahlt",
        "hat den Mietvertrag unterschrieben", "hat den Flug verpasst", "bittet um Rückruf", "hat die Folien geteilt",
    ),
    person_frames=(
        "der Laptop von {} wurde gestohlen", "bitte die Adresse von {} aktualisieren",
        "{}, unsere Praktikantin, fängt Montag an", "{} (Vertriebsleitung)", "{} aus der Buchhaltung",
        "Herr {} ruft zurück", "Frau {} hat unterschrieben", "{} und {P} sind im Call", "laut den Notizen von {}",
        "das Konto von {} ist überfällig", "ich habe {} gesagt, dass es passt", "mit {} in Kopie",
        "mein Kollege {} weiß Bescheid",
    ),
    place_leads=(
        "Wir eröffnen eine Filiale in", "Die Konferenz findet statt in", "Er pendelt aus", "Lieferungen gestoppt für",
        "Sie ist geboren in", "Sie sind ausgewandert nach", "Der Zug hält in", "Firmensitz in", "Im Homeoffice in",
        "Das Paket hängt fest in", "Die Preise stiegen in", "Wir stellen ein in", "Zurück aus", "Zwischenstopp in",
    ),
    place_predicates=(
        "richtet nächstes Jahr den Gipfel aus", "ist heute sonnig", "bleibt unser größter Markt",
        "hat letzte Woche gewählt", "ist über die Feiertage geschlossen", "ist eine Stunde voraus",
    ),
    place_frames=(
        "das Büro in {}", "unsere Niederlassung in {}", "das Werk in {} stellt ein", "ein Lieferant aus {}",
        "{}, {P}", "von {} nach {P}", "eine Reise nach {} und {P}", "der Flughafen {} ist gesperrt",
    ),
    tails=("", " gestern", " heute Morgen", " vor Freitag", " sobald du kannst", " für das Audit", " morgen",
           " letzte Woche", " schon wieder"),
    fillers=(
        "Die Geschäftsleitung tagt im Januar.", "Das Sprint Review ist auf Donnerstag verschoben.",
        "Der Kundendienst meldet sich.", "Die Buchhaltung schließt den Monat ab.",
        "Das Marketing Budget ist eingefroren.",
        "Die Personalabteilung genehmigt den Urlaub.", "Der Betriebsrat hat zugestimmt.",
    ),
)

PARTS = {"en": EN, "fr": FR, "es": ES, "de": DE}
_ENDINGS = (".", ".", ".", "!", "?", "", ";", ",", ":")


def _pick(rng: random.Random, parts: tuple[str, ...], half: str) -> str:
    return rng.choice([part for part in parts if half_of(part) == half] or list(parts))


@dataclass(frozen=True)
class Clause:
    """A clause with its values in place: the text and [start, end, label] spans."""

    text: str
    spans: tuple[tuple[int, int, str], ...]


def _fill(frame: str, label: str, values: list[str]) -> Clause:
    """`frame` with each ``{}`` or ``{P}`` replaced by the next of `values`, all labelled `label`."""
    text, spans = "", list[tuple[int, int, str]]()
    rest = frame
    index = 0
    while True:
        cut = [position for position in (rest.find("{}"), rest.find("{P}")) if position >= 0]
        if not cut:
            return Clause(text + rest, tuple(spans))
        at = min(cut)
        width = 2 if rest.startswith("{}", at) else 3
        text += rest[:at]
        spans.append((len(text), len(text) + len(values[index]), label))
        text += values[index]
        index += 1
        rest = rest[at + width :]


def clause(rng: random.Random, lang: str, label: str, half: str, value: Callable[[], str]) -> Clause:
    """One clause of `lang` holding values of `label` (``value()`` draws one), made of parts of `half`."""
    parts = PARTS[lang]
    leads, predicates, frames = ((parts.person_leads, parts.person_predicates, parts.person_frames)
                                 if label == "PERSON" else
                                 (parts.place_leads, parts.place_predicates, parts.place_frames))  # fmt: skip
    roll = rng.random()
    if roll < 0.4:
        frame = f"{_pick(rng, leads, half)} {{}}{_pick(rng, parts.tails, half)}{rng.choice(_ENDINGS)}"
    elif roll < 0.7:
        frame = f"{{}} {_pick(rng, predicates, half)}{_pick(rng, parts.tails, half)}{rng.choice(_ENDINGS)}"
    else:
        frame = _pick(rng, frames, half)
        frame = (frame[0].upper() + frame[1:] if rng.random() < 0.6 else frame) + rng.choice(_ENDINGS)
    return _fill(frame, label, [value() for _ in range(frame.count("{"))])


def filler(rng: random.Random, lang: str, half: str) -> Clause:
    return Clause(_pick(rng, PARTS[lang].fillers, half), ())
