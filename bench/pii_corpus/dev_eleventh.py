"""An eleventh `dev`-side corpus: values from sources no other split draws (``eleventh_values``), in record and
interchange standards and chats no other split writes (``eleventh_records``), built before any detector was run on
it, so that its misses show whether fixes made on the other dev splits are generic.

    python -m bench.guardrails --split dev-11 --skip-throughput [--misses FILE]

Contexts: GEDCOM family trees, UN/EDIFACT IFTMIN interchanges (NAD, COM, DTM+329, DOC, FTX), raw MIME e-mails (an
RFC 2047 encoded-word sender), logfmt lines, fixed-width reports, terraform.tfvars files, redis-cli history,
Prometheus metrics scrapes, git diffs of YAML fixtures, ``journalctl -o export`` entries, a Persian WhatsApp export
(right-to-left marks, Eastern Arabic digits) and a Swahili SMS thread (written in lower case).

Hard negatives beside the shared decoys: dates that are no date of birth, written as the context writes its birth
dates (``other_date``), things named after people (``person_named``) and places (``place_named``), identifiers of
other shapes (DOIs, UUIDs, IMO ship numbers, ISSNs: ``other_id``) and technical references (commit hashes,
timestamps, coordinates, build versions: ``tech_ref``).

Values are of the `dev` half of every pool (``partition``), drawn with a seed of its own. Like `dev` it may be tuned
on; it was scored once before any tuning.
"""

from __future__ import annotations

import datetime as dt
import random
import uuid

from stdnum import issn

from bench.pii_corpus import eleventh_records as records
from bench.pii_corpus import eleventh_values as values
from bench.pii_corpus.contexts import Context, with_extra_decoys
from bench.pii_corpus.dev_scaffold import generate_dev_split, named_thing_or_id_decoy
from bench.pii_corpus.generator import Maker
from bench.pii_corpus.model import Case, Decoy

NAME = values.NAME
SEED = values.SEED
ENTITIES_PER_TYPE = 250

# --- hard negatives of this corpus ----------------------------------------------------------------------------------

PERSON_NAMED = ("Apgar score", "Babinski sign", "Tinel's sign", "Epley maneuver", "Valsalva maneuver",
                "Guillain-Barré syndrome", "Ménière's disease", "Addison's disease", "Cushing syndrome", "Wells score",
                "Caesar salad", "Beef Stroganoff", "Eggs Benedict", "Peach Melba", "Fresnel lens", "Kalashnikov rifle",
                "Mercator projection", "Richter scale", "Bessemer process", "Möbius strip")  # fmt: skip
PLACE_NAMED = ("Dalmatian dog", "Labrador retriever", "Angora wool", "Cashmere scarf", "Kashmir shawl",
               "Sicilian Defence", "Catalan Opening", "Tuscan kale", "Persian rug", "Rio Declaration",
               "Addis Ababa Action Agenda", "Mozambique drill", "Mediterranean diet", "Lisbon Strategy",
               "Balkan burek", "Ohrid trout", "Havana brown cat", "Zanzibar pizza", "Tabriz carpet",
               "Shiraz grape")  # fmt: skip
EXTRA_KINDS = ("other_date", "person_named", "place_named", "other_id", "tech_ref")


def _other_date(rng: random.Random, context: Context) -> str:
    """An appointment, issue or expiry date of 2018-2031, written as the context writes its birth dates."""
    date = dt.date(2018, 1, 1) + dt.timedelta(days=rng.randrange(365 * 14))
    return values.written(date, values.date_style(context, rng))


def _imo(rng: random.Random) -> str:
    """An IMO ship number: six digits weighted 7..2, the sum's last digit the check digit."""
    digits = f"{rng.randint(7, 9)}{rng.randrange(10**5):05d}"
    return f"IMO {digits}{sum(int(d) * w for d, w in zip(digits, range(7, 1, -1), strict=True)) % 10}"


def _other_id(rng: random.Random) -> str:
    body = f"{rng.randrange(10**7):07d}"
    return rng.choice([
        f"doi:10.{rng.randint(1000, 9999)}/{rng.choice(['jmir', 'bmj', 'nejm'])}.{rng.randint(2015, 2026)}."
        f"{rng.randrange(10**5):05d}",
        str(uuid.UUID(int=rng.getrandbits(128), version=4)),
        _imo(rng),
        f"ISSN {body[:4]}-{body[4:]}{issn.calc_check_digit(body)}",
    ])  # fmt: skip


def _tech_ref(rng: random.Random) -> str:
    stamp = dt.datetime(2025, 1, 1) + dt.timedelta(seconds=rng.randrange(2 * 365 * 86400))
    return rng.choice([
        f"{rng.getrandbits(160):040x}",
        f"{rng.getrandbits(28):07x}",
        f"{stamp:%Y-%m-%dT%H:%M:%S}Z",
        f"{rng.uniform(-60, 60):.5f}, {rng.uniform(-170, 170):.5f}",
        f"{rng.randint(1, 9)}.{rng.randint(0, 30)}.{rng.randint(0, 20)}+build.{rng.randint(1, 9999)}",
    ])  # fmt: skip


def extra_decoy(rng: random.Random, context: Context) -> Decoy:
    return named_thing_or_id_decoy(
        rng, context, EXTRA_KINDS, _other_date, PERSON_NAMED, PLACE_NAMED, _other_id, _tech_ref
    )


# --- the corpus -----------------------------------------------------------------------------------------------------

_CONTEXTS: tuple[Context, ...] = (
    Context("gedcom", records.gedcom, "en", 1.0),
    Context("edifact", records.edifact, "en", 1.0),
    Context("mime-email", records.mime_email, "en", 1.0),
    Context("logfmt", records.logfmt, "en", 0.9),
    Context("fixed-width", records.fixed_width, "en", 0.9),
    Context("terraform-tfvars", records.terraform_tfvars, "en", 0.9),
    Context("redis-cli-history", records.redis_cli_history, "en", 0.8),
    Context("prometheus-metrics", records.prometheus_metrics, "en", 0.8),
    Context("unified-diff", records.unified_diff, "en", 0.9),
    Context("journald-export", records.journald_export, "en", 0.9),
    Context("chat-fa", records.chat_export, "fa", 0.8),
    Context("sms-sw", records.chat_export, "sw", 0.8, lowercase=True),
)
CONTEXTS_ELEVENTH = with_extra_decoys(_CONTEXTS, extra_decoy)

MAKERS: dict[str, Maker] = {"PERSON": values.person, "LOCATION": values.location,
                           "DATE_OF_BIRTH": values.date_of_birth, "STREET_ADDRESS": values.street_address,
                           "NATIONAL_ID": values.national_id, "PHONE_NUMBER": values.phone}  # fmt: skip


def generate_eleventh_dev(entities_per_type: int = ENTITIES_PER_TYPE, seed: int = SEED) -> list[Case]:
    """The eleventh dev-side corpus (always the same for the same arguments)."""
    return generate_dev_split(NAME, seed, entities_per_type, CONTEXTS_ELEVENTH, MAKERS, values.restart)
