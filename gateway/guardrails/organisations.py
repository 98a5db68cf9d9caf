"""Places and names inside an organisation's name that opens with what the organisation is ("Banco de Portugal",
"Banca di Roma", "Bank of America", "Universidad de Sevilla", "Hospital Santa Maria", "Crédit Agricole", "Air
France"): the organisation's words, no place where anybody is and no person.

English names an institution after its place or founder with the head noun last ("Boston University", the
``not_names`` eponym heads); the Romance languages, German, Dutch and Polish, and English's "X of Y", open the name
with the head noun instead. ``INSTITUTION_NOUNS`` holds those heads in the eight languages the chat corpora speak:
the common nouns of banks and savings banks, universities, hospitals and clinics, museums, institutes, foundations
and companies, and "Air", which opens airlines' names in every language ("Air France", "Air Canada", "Air India").

``names_an_organisation`` holds a PERSON or LOCATION finding for an organisation's words when

- its first word is a capitalised institution noun and more words follow ("Crédit Agricole", "Société Générale",
  "Banco de Portugal" read whole as a person, "Air Jordan");
- a capitalised institution noun stands right before it on its line, a particle between or none ("Banco de
  |Portugal|", "Bank of |America|", "Universität |Wien|", "Air |France|"). A person after a noun with no particle
  stays a person unless a saint's word opens it ("Hospital |Santa Maria|"): German capitalises every noun, and "im
  Krankenhaus Anna besucht" names Anna; a person after "von" or "van" stays one too ("das Museum von Anna Weber").
"""

from __future__ import annotations

import re

from gateway.guardrails.findings import Finding
from gateway.guardrails.person_names import known_names
from gateway.guardrails.places import NOUN_MIN_POPULATION, gazetteer

# The head nouns that open an institution's name, by language, capitalised as a name writes them.
INSTITUTION_NOUNS: dict[str, frozenset[str]] = {
    "en": frozenset({"Bank", "University", "Hospital", "Museum", "Institute", "Foundation", "Society", "Company"}),
    "fr": frozenset({"Banque", "Crédit", "Caisse", "Université", "Hôpital", "Clinique", "Musée", "Institut",
                     "Fondation", "Société", "Compagnie"}),
    "es": frozenset({"Banco", "Caja", "Universidad", "Hospital", "Clínica", "Museo", "Instituto", "Fundación",
                     "Sociedad", "Compañía"}),
    "de": frozenset({"Bank", "Sparkasse", "Universität", "Hochschule", "Krankenhaus", "Klinikum", "Klinik", "Museum",
                     "Institut", "Stiftung", "Gesellschaft"}),
    "it": frozenset({"Banca", "Banco", "Credito", "Cassa", "Università", "Ospedale", "Clinica", "Museo", "Istituto",
                     "Fondazione", "Società", "Compagnia"}),
    "pt": frozenset({"Banco", "Caixa", "Universidade", "Hospital", "Clínica", "Museu", "Instituto", "Fundação",
                     "Sociedade", "Companhia"}),
    "nl": frozenset({"Bank", "Universiteit", "Ziekenhuis", "Kliniek", "Museum", "Instituut", "Stichting",
                     "Maatschappij"}),
    "pl": frozenset({"Bank", "Uniwersytet", "Szpital", "Klinika", "Muzeum", "Instytut", "Fundacja", "Towarzystwo",
                     "Spółka"}),
    "airline": frozenset({"Air"}),
}  # fmt: skip
_NOUNS = frozenset().union(*INSTITUTION_NOUNS.values())
# Particles between an institution's noun and its place ("Banco de Portugal", "Bank of America", "Museo del Prado").
_PARTICLES = frozenset({"of", "de", "del", "della", "di", "da", "do", "dos", "das", "du", "des", "d", "von", "van",
                        "der", "la", "the"})  # fmt: skip
# Particles that make a person's possessive rather than an institution's name ("das Museum von Anna Weber").
_POSSESSIVE_PARTICLES = frozenset({"von", "van"})
# Words that open a saint's name, after which a hospital, a school or a church is named ("Hospital Santa Maria").
_SAINT_WORDS = frozenset({"San", "Santa", "Santo", "Santos", "São", "Saint", "Sainte", "St", "Ste", "Sankt", "Sint",
                          "Sant", "Święty", "Święta", "Nossa", "Nuestra", "Notre"})  # fmt: skip
_WORD = re.compile(r"[^\W\d_]+")
_PLACE_WORD = re.compile(r"[^\W_][\w'’-]*")  # a word as the gazetteer's keys hold it ("saint-louis")
_REACH = 40  # characters before a finding searched for its institution noun
# What follows an institution noun read alone: a particle or two and a capitalised word ("Universidad| de Sevilla"),
# or a capitalised word right after it ("Universität| Wien").
_AFTER_NOUN = re.compile(
    r"[ \t\u00a0]+(?:(?:of|de|del|della|di|da|do|dos|das|du|des|von|der|la|the)[ \t\u00a0]+){0,2}"
    r"(?:[dD]['’])?[A-ZÀ-Þ]"
)


def _first_word(text: str, start: int, end: int) -> str:
    match = _WORD.match(text, start, end)
    return match.group() if match else ""


def _opens_a_person(word: str) -> bool:
    """Whether `word` after an institution noun opens a person's name: a common given name (``person_names``' given,
    not any first name: names-dataset lists "Agricole"), no saint's word and no large place ("Krankenhaus Anna
    Weber"; not "Air Jordan", "Crédit Agricole")."""
    return (word.casefold() in known_names().given and word not in _SAINT_WORDS
            and gazetteer().get(word.casefold(), 0) < NOUN_MIN_POPULATION)  # fmt: skip


def _is_known_place(text: str, start: int, end: int) -> bool:
    """Whether text[start:end] is a place's name the gazetteer holds whole ("University Heights", "Hôpital
    Saint-Louis"): a town named so, not an institution."""
    return " ".join(word.casefold() for word in _PLACE_WORD.findall(text, start, end)) in gazetteer()


def opens_with_institution(text: str, finding: Finding) -> bool:
    """Whether the finding's first word is an institution noun that opens an organisation's name: words follow it in
    the finding ("Crédit Agricole"; for a person, no first name opens them: "im Krankenhaus Anna Weber" stays one),
    or it stands alone before a particle or a capitalised word ("Universidad| de Sevilla")."""
    first = _WORD.match(text, finding.start, finding.end)
    if first is None or first.group() not in _NOUNS:
        return False
    second = _WORD.search(text, first.end(), finding.end)
    if second is None:
        return _AFTER_NOUN.match(text, first.end()) is not None
    if _is_known_place(text, finding.start, finding.end):
        return False
    if finding.entity_type != "PERSON":
        return True
    if second.group().casefold() in _PARTICLES:  # "Banco de Portugal"; "Museum von Anna Weber" is Anna's
        return second.group().casefold() not in _POSSESSIVE_PARTICLES
    return not _opens_a_person(second.group())


def institution_before(text: str, start: int) -> tuple[int, list[str]] | None:
    """Where the institution noun right before `start` on its line starts, and the particles between, if one stands
    there."""
    low = max(0, start - _REACH, text.rfind("\n", 0, start) + 1)
    head = text[low:start]
    if not head or (not head[-1].isspace() and head[-1] not in "'’"):
        return None
    words = list(_WORD.finditer(head))
    if not words or not head.rstrip(" \t\u00a0'’").endswith(words[-1].group()):
        return None  # punctuation between: "Bank, Anna"
    particles: list[str] = []
    while words and words[-1].group().casefold() in _PARTICLES and len(particles) < 2:
        particles.insert(0, words.pop().group().casefold())
    if not words or words[-1].group() not in _NOUNS:
        return None
    return low + words[-1].start(), particles


def names_an_organisation(text: str, finding: Finding) -> bool:
    """Whether a PERSON or LOCATION finding is (in) an organisation's name that opens with an institution noun (the
    module's rules)."""
    if opens_with_institution(text, finding):
        return True
    before = institution_before(text, finding.start)
    if before is None:
        return False
    noun_start, particles = before
    if _is_known_place(text, noun_start, finding.end):
        return False  # "Hôpital |Saint-Louis|": a town
    if finding.entity_type != "PERSON":
        return True
    if particles:
        return not _POSSESSIVE_PARTICLES.intersection(particles)
    return _first_word(text, finding.start, finding.end) in _SAINT_WORDS
