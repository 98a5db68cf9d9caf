"""A second `dev`-side corpus: dev values in phrasings, contexts and date formats the detectors were not written
against, to see on the dev side what an unseen split does to them.

    python -m bench.guardrails --split dev-fresh --skip-throughput [--misses FILE]

Values come from the `dev` half of every pool (``partition``), drawn with a seed of its own, so nothing of the
`test` split is read. The sentences are ``phrases_dev_fresh``'s; beside the usual contexts it writes three more
(a Markdown table, a chat transcript with speakers, an HTML snippet); dates of birth are also written in formats
the main corpus does not use (``1985/03/04``, ``04-Mar-1985``, ``4th of March 1985``, ``Mar. 4, 1985``). Like the
`dev` split it may be tuned on: it is a stand-in for unseen text, not a held-out set.
"""

from __future__ import annotations

import datetime as dt
import random

from bench.pii_corpus import dates, phrases_dev_fresh
from bench.pii_corpus.contexts import CONTEXTS, Context, Item, _field_names
from bench.pii_corpus.generator import generate
from bench.pii_corpus.model import Case, Phrasebook, Pii, TextBuilder
from bench.pii_corpus.partition import draw_in_split

NAME = "dev-fresh"
SEED = 2718
ENTITIES_PER_TYPE = 250


def markdown_table(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    names = _field_names(items, rng)
    builder.text("| " + " | ".join(name.replace("_", " ").title() for name in names) + " | Status |\n")
    builder.text("|" + "---|" * (len(names) + 1) + "\n| ")
    for item in items:
        builder.value(item).text(" | ")
    builder.text(rng.choice(["Open", "Done", "In Review"]) + " |")


def transcript(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """A chat export: the people are the speakers, the other values what they wrote."""
    speakers = [item for item in items if isinstance(item, Pii) and item.type == "PERSON"]
    others = [item for item in items if item not in speakers]
    for index, speaker in enumerate(speakers):
        builder.text(f"[{rng.randint(8, 18):02d}:{rng.randint(0, 59):02d}] ").value(speaker)
        builder.text(": " + rng.choice(["joined the Standup", "Sounds good, merging now", "Can we move this?"]))
        builder.text("\n" if index < len(speakers) - 1 or others else "")
    for index, item in enumerate(others):
        bank = book.chat if isinstance(item, Pii) else book.chat_decoys
        label = item.type if isinstance(item, Pii) else item.kind
        stamp = f"[{rng.randint(8, 18):02d}:{rng.randint(0, 59):02d}]"
        builder.text(f"{stamp} Bot: ").template(rng.choice(bank[label]), item)
        builder.text("\n" if index < len(others) - 1 else "")


def html_snippet(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    builder.text('<div class="profile">\n')
    for name, item in zip(_field_names(items, rng), items, strict=True):
        builder.text(f'  <span class="{name}">').value(item).text("</span>\n")
    builder.text("</div>")


CONTEXTS_FRESH: tuple[Context, ...] = (
    *CONTEXTS,
    Context("markdown-table", markdown_table, "en", 1.0),
    Context("transcript", transcript, "en", 1.0),
    Context("html", html_snippet, "en", 0.7),
)

_ORDINAL = {1: "st", 2: "nd", 3: "rd", 21: "st", 22: "nd", 23: "rd", 31: "st"}


def _fresh_format(date: dt.date, rng: random.Random) -> tuple[str, str]:
    month = dates.MONTHS["en"][date.month - 1]
    return rng.choice([
        (date.strftime("%Y/%m/%d"), "en:y/m/d"),
        (f"{date.day:02d}-{month[:3]}-{date.year}", "en:d-mon-y"),
        (f"{date.day}{_ORDINAL.get(date.day, 'th')} of {month} {date.year}", "en:dth-of-month-y"),
        (f"{month[:3]}. {date.day}, {date.year}", "en:mon.-d-y"),
        (f"{month} {date.day}{_ORDINAL.get(date.day, 'th')}, {date.year}", "en:month-dth-y"),
    ])  # fmt: skip


def date_of_birth(rng: random.Random, split: str, context: Context) -> Pii:
    """Half the dates in the main corpus's formats of the context's language, half in the fresh English ones."""
    if context.lang != "en" or rng.random() < 0.5:
        return dates.date_of_birth(rng, split, context.lang)

    def make() -> tuple[str, str]:
        return _fresh_format(dt.date(1935, 1, 1) + dt.timedelta(days=rng.randrange(365 * 72)), rng)

    value, form = draw_in_split(make, split, key=lambda made: made[0])
    return Pii("DATE_OF_BIRTH", value, f"dob:{form}")


def generate_fresh_dev(entities_per_type: int = ENTITIES_PER_TYPE, seed: int = SEED) -> list[Case]:
    """The fresh dev-side corpus (always the same for the same arguments); another `seed` writes other values in the
    same shapes (the NER's training text, ``bench.pii_ner.dataset``)."""
    return generate("dev", seed, entities_per_type, phrasebook=phrases_dev_fresh.BOOK, contexts=CONTEXTS_FRESH,
                    makers={"DATE_OF_BIRTH": date_of_birth}, name=NAME)  # fmt: skip

