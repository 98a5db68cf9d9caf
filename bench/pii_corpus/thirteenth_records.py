"""The contexts of the thirteenth dev-side corpus (``dev_thirteenth``), genres of running prose no other split
writes: news wire reports (a dateline, a quote with the speaker's age, the surname alone later) in English, German,
French and Spanish; court records (a caption ``State v. Surname``, parties in capitals, a docket number); obituaries
(``SURNAME, Given``, the children by their given names) and German and French death notices (``* 4. März 1941``,
``né le``); sports reports (the surname alone after a first full mention, scores, shirt numbers); letters' closings
with a street and a town line; and minutes of meetings (``Present: A. Nowak (chair); B. Silva``).

A person's later mentions are labelled as written (subtypes ``...:surname`` for the surname alone, ``...:upper`` in
capitals, ``...:surname-first``, ``...:initial``), and a relative an obituary names by the given name alone is a
PERSON of its own (``...:given``)."""

from __future__ import annotations

import datetime as dt
import random

from bench.pii_corpus import phrases_dev_thirteenth as phrasing
from bench.pii_corpus.contexts import Context, Item
from bench.pii_corpus.dev_scaffold import clause, is_type, rewritten, take
from bench.pii_corpus.model import Decoy, Phrasebook, Pii, TextBuilder
from bench.pii_corpus.thirteenth_values import AP_MONTHS, given_name, location, name_parts, person, written

_ANY = Context("any", lambda *_: None, "en", 1.0)  # what person() is told of the context: nothing it reads


def _surname(item: Pii) -> Pii:
    return Pii("PERSON", name_parts(item)[1], f"{item.subtype}:surname")


def _locale(item: Pii) -> str:
    return item.subtype.split(":")[2]


def _sentence(builder: TextBuilder, item: Item, rng: random.Random, lang: str) -> TextBuilder:
    """A clause for `item` as a sentence of its own (capitalised, a full stop after)."""
    before, _, after = clause(item, rng, phrasing.CLAUSES[lang]).partition("{}")
    return builder.text(before[:1].upper() + before[1:]).value(item).text(after + ". ")


def _body(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str) -> None:
    """The rest of a case's values, a sentence each; a person named in full is named again by the surname."""
    again: list[Pii] = []
    for item in items:
        _sentence(builder, item, rng, lang)
        if is_type(item, "PERSON") and isinstance(item, Pii):
            again.append(item)
    for item in again:
        before, _, after = rng.choice(phrasing.SECOND_MENTION[lang]).partition("{}")
        builder.text(before).value(_surname(item)).text(after + " ")


def age(rng: random.Random) -> Decoy:
    return Decoy("age", str(rng.randint(19, 94)))


def a_date(rng: random.Random) -> dt.date:
    return dt.date(2019, 1, 1) + dt.timedelta(days=rng.randrange(365 * 8))


_ES_MONTHS = ("ene", "feb", "mar", "abr", "may", "jun", "jul", "ago", "sep", "oct", "nov", "dic")

# --- news wire ------------------------------------------------------------------------------------------------------


def _dateline(builder: TextBuilder, place: Pii, rng: random.Random, lang: str) -> None:
    """``BERLIN, March 3 (Reuters) — ``: the city in capitals (an AP state abbreviation as written), the day of the
    report, the agency."""
    day = a_date(rng)
    agency = rng.choice(phrasing.AGENCIES[lang])
    city, comma, state = place.value.partition(", ")
    builder.value(rewritten(place, city.upper() + comma + state, "dateline"))
    if lang == "en":
        builder.text(f", {AP_MONTHS[day.month - 1]} {day.day} ({agency}) — ")
    else:
        month = _ES_MONTHS[day.month - 1]
        builder.text(f" ({agency}) – " if lang != "es" else f", {day.day} {month} ({agency}) - ")


def news_wire(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    rest = list(items)
    place = take(rest, "LOCATION")
    if not isinstance(place, Pii):  # a report is always datelined: a place of its own where the case has none
        place = location(rng, "dev", _ANY)
    _dateline(builder, place, rng, lang)
    speaker = take(rest, "PERSON")
    if isinstance(speaker, Pii):
        first, _, after = rng.choice(phrasing.SAID[lang]).partition("{}")
        middle, _, last = after.partition("{}")
        builder.text(first).value(speaker).text(middle).value(age(rng)).text(last + " ")
    _body(builder, rest, rng, lang)
    if isinstance(speaker, Pii):
        before, _, after = rng.choice(phrasing.SECOND_MENTION[lang]).partition("{}")
        builder.text(before).value(_surname(speaker)).text(after)


# --- court record ---------------------------------------------------------------------------------------------------

_COURTS = [
    "IN THE CIRCUIT COURT OF THE ELEVENTH JUDICIAL CIRCUIT",
    "SUPERIOR COURT OF THE STATE",
    "DISTRICT COURT",
    "IN THE COUNTY COURT AT LAW NO. 2",
]


def docket(rng: random.Random) -> Decoy:
    year = rng.randint(15, 26)
    return Decoy("case_number", rng.choice([f"{year}-cv-{rng.randint(1, 9999):04d}",
                                            f"{rng.randint(1, 4)}:{year}-cr-{rng.randint(1, 99999):05d}",
                                            f"CV-{2000 + year}-{rng.randint(1, 999999):06d}"]))  # fmt: skip


def court_record(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """A caption (``State v. Kowalski``, the court, the docket number), then the party named in capitals with where
    they reside and their birth date, then the rest."""
    rest = list(items)
    party = take(rest, "PERSON")
    builder.text(rng.choice(_COURTS) + "\n\n")
    if isinstance(party, Pii):
        builder.text(rng.choice(["State", "People", "R", "Commonwealth"]) + " v. ").value(_surname(party))
    else:
        builder.text("In re the Estate of a Minor")
    builder.text("\nNo. ").value(docket(rng)).text("\n\n")
    if isinstance(party, Pii):
        given, surname = name_parts(party)
        shape = rng.choice(["upper", "surname-upper", "plain"])
        shown = {"upper": party.value.upper(), "surname-upper": f"{given} {surname.upper()}"}.get(shape, party.value)
        builder.text(rng.choice(["Defendant ", "Plaintiff ", "The respondent, "])).value(rewritten(party, shown, shape))
        place, street, born = take(rest, "LOCATION"), take(rest, "STREET_ADDRESS"), take(rest, "DATE_OF_BIRTH")
        if street or place:
            builder.text(", residing at " if street else ", of ")
            if street:
                builder.value(street).text(", " if place else "")
            if place:
                builder.value(place)
        if born:
            builder.text(", DOB: " if rng.random() < 0.5 else ", born ").value(born)
        builder.text(", appeared in person. ")
    _body(builder, rest, rng, lang)
    builder.text("\n\nSO ORDERED.")


# --- obituaries and death notices ---------------------------------------------------------------------------------


def _children(builder: TextBuilder, deceased: Pii, rng: random.Random, lang: str) -> None:
    """The children or grandchildren by their given names (of the deceased's language), joined as the language joins
    a list."""
    names = [Pii("PERSON", given_name(_locale(deceased), rng), f"{deceased.subtype}:given")
             for _ in range(rng.randint(2, 3))]  # fmt: skip
    joiner = {"en": " and ", "de": " und ", "fr": " et ", "es": " y "}[lang]
    for index, name in enumerate(names):
        builder.text("" if index == 0 else (joiner if index == len(names) - 1 else ", ")).value(name)


def obituary(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """``KOWALSKI, Maria, of Springfield, Ill., died peacefully ... Born Sept. 4, 1941 in ..., she is survived by her
    sons Tomasz and Piotr.``"""
    rest = list(items)
    deceased, place = take(rest, "PERSON"), take(rest, "LOCATION")
    if isinstance(deceased, Pii):
        given, surname = name_parts(deceased)
        builder.value(rewritten(deceased, f"{surname.upper()}, {given}", "surname-first")).text(", ")
    else:
        builder.text(rng.choice(["Our beloved mother, ", "Our dear father, "]))
    if place:
        builder.text("of ").value(place).text(", ")
    day = a_date(rng)
    builder.text("passed away peacefully on ").value(Decoy("other_date", written(day, "ap"))).text(", aged ")
    builder.value(age(rng)).text(". ")
    if born := take(rest, "DATE_OF_BIRTH"):
        builder.text(rng.choice(["Born ", "She was born ", "He was born "])).value(born)
        if town := take(rest, "LOCATION"):
            builder.text(" in ").value(town)
        builder.text(". ")
    if isinstance(deceased, Pii):
        builder.text(rng.choice(["Survived by ", "Survived by the children ", "Left to mourn are "]))
        _children(builder, deceased, rng, lang)
        builder.text(". ")
    _body(builder, rest, rng, lang)
    if isinstance(deceased, Pii):
        builder.text(f"{rng.choice(['The family of ', 'Friends of '])}").value(_surname(deceased))
        builder.text(" thank the staff of the hospice.")


def death_notice(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """A German (``* 4. März 1941  † 2. Mai 2024``) or French (``né le 4 mars 1941 à Lyon``) death notice."""
    rest = list(items)
    deceased, born = take(rest, "PERSON"), take(rest, "DATE_OF_BIRTH")
    died = Decoy("other_date", written(a_date(rng), "de-long" if lang == "de" else "fr-long"))
    if lang == "de":
        builder.text(rng.choice(["In stiller Trauer nehmen wir Abschied von", "Wir trauern um"]) + "\n\n")
        if deceased:
            builder.value(deceased).text("\n")
        if born:
            builder.text("* ").value(born).text("   ")
        builder.text("† ").value(died).text("\n\n")
        if isinstance(deceased, Pii):
            builder.text("In Liebe: ")
            _children(builder, deceased, rng, lang)
            builder.text("\n")
    else:
        builder.text("On nous prie d'annoncer le décès")
        if deceased:
            builder.text(rng.choice([" de M. ", " de Mme ", " de "])).value(deceased)
        else:
            builder.text(" de notre mère")
        if born:
            builder.text(rng.choice([", né le ", ", née le "])).value(born)
            if place := take(rest, "LOCATION"):
                builder.text(" à ").value(place)
        builder.text(", survenu le ").value(died).text(". ")
        if isinstance(deceased, Pii):
            builder.text("De la part de ")
            _children(builder, deceased, rng, lang)
            builder.text(". ")
    _body(builder, rest, rng, lang)


# --- sports report --------------------------------------------------------------------------------------------------


def sports_report(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """A match report: a player named in full, then by the surname (also possessive), the score and shirt numbers."""
    rest = list(items)
    player = take(rest, "PERSON")
    score = Decoy("score", f"{rng.randint(0, 5)}-{rng.randint(0, 4)}")
    builder.text(rng.choice(["United", "Rovers", "Athletic", "City"]) + " won ").value(score).text(". ")
    if isinstance(player, Pii):
        before, _, after = rng.choice(phrasing.SPORTS_FIRST).partition("{}")
        builder.text(before[:1].upper() + before[1:]).value(player).text(after + ". ")
        if rng.random() < 0.5:
            builder.text("The No. ").value(Decoy("jersey", str(rng.randint(2, 99)))).text(" ")
        before, _, after = rng.choice(phrasing.SPORTS_AGAIN).partition("{}")
        builder.text(before[:1].upper() + before[1:] if before else "").value(_surname(player)).text(after + " ")
    _body(builder, rest, rng, lang)


# --- letters and minutes --------------------------------------------------------------------------------------------

_CLOSINGS = {"en": ["Yours sincerely,", "Yours faithfully,", "Kind regards,"],
             "de": ["Mit freundlichen Grüßen", "Herzliche Grüße"], "fr": ["Veuillez agréer mes salutations.",
             "Bien cordialement,"], "es": ["Atentamente,", "Un cordial saludo,"]}  # fmt: skip


def letter(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """A letter's body, then its closing: the sender's name, street line and town line."""
    rest = list(items)
    sender, street, town = take(rest, "PERSON"), take(rest, "STREET_ADDRESS"), take(rest, "LOCATION")
    builder.text({"en": "Dear Sir or Madam,\n\n", "de": "Sehr geehrte Damen und Herren,\n\n",
                  "fr": "Madame, Monsieur,\n\n", "es": "Estimados señores:\n\n"}[lang])  # fmt: skip
    _body(builder, rest, rng, lang)
    builder.text("\n\n" + rng.choice(_CLOSINGS[lang]) + "\n\n")
    for item in (sender, street, town):
        if item:
            builder.value(item).text("\n")


def _initialled(item: Pii) -> Pii:
    given, surname = name_parts(item)
    return Pii("PERSON", f"{given[0]}. {surname}", f"{item.subtype}:initial")


def minutes(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """Minutes: who was present (``A. Nowak (chair); B. Silva; C. Okafor``) and who sent apologies (``D. Ruiz &
    E. Smith``), then items naming them by the surname."""
    rest = list(items)
    chair = take(rest, "PERSON")
    others = [person(rng, "dev", _ANY) for _ in range(rng.randint(1, 3))]
    present = [chair, *others] if isinstance(chair, Pii) else others
    builder.text(f"Minutes of the {rng.choice(phrasing.COMMITTEES)} meeting\n\nPresent: ")
    for index, member in enumerate(present):
        builder.text("; " if index else "").value(_initialled(member))
        if index == 0 and member is chair:
            builder.text(" (chair)")
    absent = [person(rng, "dev", _ANY) for _ in range(rng.randint(0, 2))]
    if absent:
        builder.text("\nApologies: ")
        for index, member in enumerate(absent):
            builder.text(rng.choice([" & ", " and "]) if index else "").value(member)
    builder.text("\n\n1. ")
    before, _, after = rng.choice(phrasing.MINUTES_ITEMS).partition("{}")
    builder.text(before).value(_surname(present[0])).text(after + "\n2. ")
    _body(builder, rest, rng, lang)
