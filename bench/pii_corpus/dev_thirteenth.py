"""A thirteenth `dev`-side corpus: people, places and birth dates in the genres of running prose no other split
writes (``thirteenth_records``: news wires in four languages, court records, obituaries and German and French death
notices, sports reports, letters' closings, minutes of meetings) and in the forms those genres write them
(``thirteenth_values``: a surname alone after a first full mention, possessives, initials, capitals, hyphenated
double surnames, relatives by the given name, ``Springfield, Ill.``, AP-style and two-digit-year birth dates), built
before any detector was run on it, so that its misses show whether fixes made on the other dev splits are generic.

    python -m bench.guardrails --split dev-13 --skip-throughput [--misses FILE]

Hard negatives beside the shared decoys, as these genres hold them: other dates written as the genre writes a birth
(a death, a hearing, a match: ``other_date``), scores (``2-1``), docket numbers (``21-cv-0342``, ``Az.``), ages
(``aged 43``, ``said Ana Ruiz, 43,``), page references (``p. 12``, ``pp. 233-41``) and shirt numbers.

Values are of the `dev` half of every pool (``partition``), drawn with a seed of its own. Like `dev` it may be tuned
on; it was scored once before any tuning.
"""

from __future__ import annotations

import random

from bench.pii_corpus import thirteenth_records as records
from bench.pii_corpus import thirteenth_values as values
from bench.pii_corpus.contexts import Context, with_extra_decoys
from bench.pii_corpus.dev_scaffold import generate_dev_split
from bench.pii_corpus.generator import Maker
from bench.pii_corpus.model import Case, Decoy

NAME = values.NAME
SEED = values.SEED
ENTITIES_PER_TYPE = 250
EXTRA_KINDS = ("other_date", "score", "case_number", "age", "page_ref", "jersey")


def extra_decoy(rng: random.Random, context: Context) -> Decoy:
    """A hard negative of these genres; a date is written in a style the context's language writes births in."""
    kind = rng.choice(EXTRA_KINDS)
    if kind == "other_date":
        return Decoy(kind, values.written(records.a_date(rng), values.date_style(context.lang, rng)))
    if kind == "score":
        return Decoy(kind, f"{rng.randint(0, 7)}{rng.choice(['-', '–', ':'])}{rng.randint(0, 6)}")
    if kind == "case_number":
        return records.docket(rng)
    if kind == "age":
        return records.age(rng)
    if kind == "page_ref":
        first = rng.randint(2, 480)
        return Decoy(kind, rng.choice([f"p. {first}", f"pp. {first}-{first % 100 + rng.randint(1, 30)}",
                                       f"page {first}", f"¶ {rng.randint(1, 60)}"]))  # fmt: skip
    return Decoy(kind, str(rng.randint(2, 99)))


_CONTEXTS: tuple[Context, ...] = (
    Context("news-wire-en", records.news_wire, "en", 1.6),
    Context("news-wire-de", records.news_wire, "de", 0.6),
    Context("news-wire-fr", records.news_wire, "fr", 0.6),
    Context("news-wire-es", records.news_wire, "es", 0.6),
    Context("court-record", records.court_record, "en", 1.2),
    Context("obituary", records.obituary, "en", 1.2),
    Context("death-notice-de", records.death_notice, "de", 0.7),
    Context("death-notice-fr", records.death_notice, "fr", 0.7),
    Context("sports-report", records.sports_report, "en", 1.0),
    Context("letter-en", records.letter, "en", 0.8),
    Context("letter-de", records.letter, "de", 0.5),
    Context("minutes", records.minutes, "en", 1.0),
)
CONTEXTS_THIRTEENTH = with_extra_decoys(_CONTEXTS, extra_decoy)

MAKERS: dict[str, Maker] = {"PERSON": values.person, "LOCATION": values.location,
                           "DATE_OF_BIRTH": values.date_of_birth, "STREET_ADDRESS": values.street_address,
                           "PHONE_NUMBER": values.phone}  # fmt: skip


def generate_thirteenth_dev(entities_per_type: int = ENTITIES_PER_TYPE, seed: int = SEED) -> list[Case]:
    """The thirteenth dev-side corpus (always the same for the same arguments)."""
    return generate_dev_split(NAME, seed, entities_per_type, CONTEXTS_THIRTEENTH, MAKERS, values.restart)
