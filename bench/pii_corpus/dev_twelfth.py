"""A twelfth `dev`-side corpus: values from sources and in forms no other split draws (``twelfth_values``), in
record formats and exports no other split writes (``twelfth_records``), built before any detector was run on it, so
that its misses show whether fixes made on the other dev splits are generic.

    python -m bench.guardrails --split dev-12 --skip-throughput [--misses FILE]

Contexts: DICOM headers (``dcmdump``), X12 834 enrolments, jCard contacts, OpenLDAP access logs, JSON Lines
application logs, org-mode tables (the label in the heading row), OCR'd forms in capitals (the label on the line
above), Telegram exports in Hungarian and Finnish (foreign cities in the inessive), Indonesian (lower case) and
Polish, terminal sessions and Markdown posts with YAML front matter.

Hard negatives beside the shared decoys: dates that are no date of birth, as the context writes its birth dates, and
ISO 8601 week dates (``other_date``), things named after people (``person_named``) and places (``place_named``),
identifiers of other shapes (ORCID iDs, ISBNs, container numbers, GTINs: ``other_id``) and technical references
(semantic versions, span ids, ETags, durations: ``tech_ref``).

Values are of the `dev` half of every pool (``partition``), drawn with a seed of its own. Like `dev` it may be tuned
on; it was scored once before any tuning.
"""

from __future__ import annotations

import datetime as dt
import random
import re

from stdnum import ean, isbn, luhn
from stdnum.iso6346 import calc_check_digit as container_check_digit
from stdnum.iso7064 import mod_11_2

from bench.pii_corpus import twelfth_records as records
from bench.pii_corpus import twelfth_values as values
from bench.pii_corpus.contexts import Context, with_extra_decoys
from bench.pii_corpus.dev_scaffold import generate_dev_split, named_thing_or_id_decoy
from bench.pii_corpus.generator import Maker
from bench.pii_corpus.model import Case, Decoy

NAME = values.NAME
SEED = values.SEED
ENTITIES_PER_TYPE = 250

# --- hard negatives of this corpus ----------------------------------------------------------------------------------

PERSON_NAMED = ("Turing test", "Bloom filter", "Hamming distance", "Fibonacci heap", "Dewey Decimal", "Celsius scale",
                "Kaplan-Meier curve", "Higgs boson", "Planck constant", "Avogadro constant", "Markov chain",
                "Euler's number", "Pythagorean theorem", "Heisenberg uncertainty principle", "Ohm's law",
                "Gutenberg press", "Jacuzzi tub", "Ferris wheel", "Mendelian inheritance", "Kepler's laws")  # fmt: skip
PLACE_NAMED = ("Glasgow Coma Scale", "Worcestershire sauce", "Oxford shirt", "Berliner doughnut", "Cheddar cheese",
               "Denim jacket", "Jersey knit", "Madeira cake", "Cayenne pepper", "Turkish delight",
               "Helsinki Final Act", "Budapest Memorandum", "Bourbon biscuit", "Champagne flute",
               "Frankfurter sausage", "Dresden porcelain", "Limerick poem", "Tabasco sauce", "Stilton cheese",
               "Cantaloupe melon")  # fmt: skip
EXTRA_KINDS = ("other_date", "person_named", "place_named", "other_id", "tech_ref")


def _other_date(rng: random.Random, context: Context) -> str:
    """A renewal, due or review date of 2018-2031, written as the context writes its birth dates, or an ISO 8601 week
    date (``2027-W14-5``)."""
    date = dt.date(2018, 1, 1) + dt.timedelta(days=rng.randrange(365 * 14))
    if rng.random() < 0.3:
        year, week, day = date.isocalendar()
        return f"{year}-W{week:02d}-{day}" if rng.random() < 0.5 else f"{year}-W{week:02d}"
    return values.written(date, values.date_style(context, rng))


def _orcid(rng: random.Random) -> str:
    body = f"000{rng.randint(0, 3)}{rng.randrange(10**11):011d}"
    digits = body + mod_11_2.calc_check_digit(body)
    return "-".join(digits[i : i + 4] for i in range(0, 16, 4))


def _other_id(rng: random.Random) -> str:
    """An id of another shape; one whose digits pass Luhn is drawn again (a card detector may rightly flag it)."""
    while luhn.is_valid(digits := re.sub(r"\D", "", value := _an_other_id(rng))) and 12 <= len(digits) <= 19:
        pass
    return value


def _an_other_id(rng: random.Random) -> str:
    isbn_body = f"978{rng.randrange(10**9):09d}"
    container = f"{rng.choice(['MSC', 'MAE', 'CMA', 'HLX', 'OOL'])}U{rng.randrange(10**6):06d}"
    gtin = f"{rng.randrange(10**12):012d}"
    return rng.choice([
        f"https://orcid.org/{_orcid(rng)}",
        isbn.format(isbn_body + ean.calc_check_digit(isbn_body)),  # an ISBN-13 is an EAN-13
        f"{container} {container_check_digit(container)}",
        f"GTIN {gtin}{ean.calc_check_digit(gtin)}",
    ])  # fmt: skip


def _tech_ref(rng: random.Random) -> str:
    return rng.choice([
        f"v{rng.randint(0, 12)}.{rng.randint(0, 40)}.{rng.randint(0, 30)}-rc.{rng.randint(1, 9)}",
        f"span_id={rng.getrandbits(64):016x}",
        f'W/"{rng.getrandbits(96):024x}"',
        f"PT{rng.randint(1, 23)}H{rng.randint(1, 59)}M",
        f"sha256:{rng.getrandbits(256):064x}",
    ])  # fmt: skip


def extra_decoy(rng: random.Random, context: Context) -> Decoy:
    return named_thing_or_id_decoy(
        rng, context, EXTRA_KINDS, _other_date, PERSON_NAMED, PLACE_NAMED, _other_id, _tech_ref
    )


# --- the corpus -----------------------------------------------------------------------------------------------------

_CONTEXTS: tuple[Context, ...] = (
    Context("dicom-dump", records.dicom_dump, "en", 1.0),
    Context("x12-834", records.x12_834, "en", 1.0),
    Context("jcard", records.jcard, "en", 0.9),
    Context("ldap-access-log", records.ldap_access_log, "en", 0.9),
    Context("jsonl-applog", records.jsonl_applog, "en", 0.9),
    Context("org-table", records.org_table, "en", 0.9),
    Context("ocr-form", records.ocr_form, "en", 1.0),
    Context("telegram-hu", records.telegram_export, "hu", 0.7),
    Context("telegram-fi", records.telegram_export, "fi", 0.7),
    Context("telegram-id", records.telegram_export, "id", 0.7, lowercase=True),
    Context("telegram-pl", records.telegram_export, "pl", 0.7),
    Context("terminal-session", records.terminal_session, "en", 0.9),
    Context("front-matter", records.front_matter, "en", 0.9),
)
CONTEXTS_TWELFTH = with_extra_decoys(_CONTEXTS, extra_decoy)

MAKERS: dict[str, Maker] = {"PERSON": values.person, "LOCATION": values.location,
                           "DATE_OF_BIRTH": values.date_of_birth, "STREET_ADDRESS": values.street_address,
                           "NATIONAL_ID": values.national_id, "PHONE_NUMBER": values.phone}  # fmt: skip


def generate_twelfth_dev(entities_per_type: int = ENTITIES_PER_TYPE, seed: int = SEED) -> list[Case]:
    """The twelfth dev-side corpus (always the same for the same arguments)."""
    return generate_dev_split(NAME, seed, entities_per_type, CONTEXTS_TWELFTH, MAKERS, values.restart)
