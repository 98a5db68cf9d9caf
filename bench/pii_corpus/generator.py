"""Assembles the corpus: which values go into which context, until every entity type has its quota."""

from __future__ import annotations

import functools
import random
from collections import Counter
from collections.abc import Callable, Sequence

from bench.pii_corpus import banking, cards, credentials, dates, decoys, national_ids, network, phones
from bench.pii_corpus.contexts import CONTEXTS, PHRASEBOOKS, Context, Item
from bench.pii_corpus.model import Case, Phrasebook, Pii, TextBuilder
from bench.pii_corpus.partition import SPLITS
from bench.pii_corpus.people import PeoplePools

ENTITY_TYPES = ("PERSON", "LOCATION", "EMAIL_ADDRESS", "PHONE_NUMBER", "CREDIT_CARD", "IBAN_CODE", "US_SSN",
                "IP_ADDRESS", "STREET_ADDRESS", "DATE_OF_BIRTH", "NATIONAL_ID", "SECRET")  # fmt: skip
# Each split has its own default seed, and draws from its own half of every value pool (see partition).
DEFAULT_SEEDS = {"dev": 1729, "test": 314159}
ENTITIES_PER_TYPE = 400
# A value maker: (rng, split, context) -> the value.
Maker = Callable[[random.Random, str, Context], Pii]
# Types whose values chat writes in lower case, as people type them.
_LOWERCASED_IN_CHAT = {"PERSON", "LOCATION", "STREET_ADDRESS", "EMAIL_ADDRESS"}
# Characters a value may not hold in contexts that would have to escape them (JSON/YAML strings, CSV, log fields).
_NEEDS_ESCAPING = ('"', "\\", "\n")


class _ValueSource:
    """Draws one split's values of each type."""

    def __init__(self, split: str, rng: random.Random, makers: dict[str, Maker] | None = None) -> None:
        self.split, self.rng = split, rng
        self.people = PeoplePools.build(split, rng)
        self._makers: dict[str, Callable[[Context], Pii]] = {
            "PERSON": lambda c: self.people.person(rng),
            "LOCATION": lambda c: self.people.location(rng),
            "EMAIL_ADDRESS": lambda c: self.people.email(rng),
            "STREET_ADDRESS": lambda c: self.people.street_address(rng, c.lang),
            "PHONE_NUMBER": lambda c: phones.phone(rng, split),
            "CREDIT_CARD": lambda c: cards.card(rng, split),
            "IBAN_CODE": lambda c: banking.iban(rng, split),
            "US_SSN": lambda c: national_ids.us_ssn(rng, split),
            "IP_ADDRESS": lambda c: network.ip_address(rng, split),
            "DATE_OF_BIRTH": lambda c: dates.date_of_birth(rng, split, c.lang),
            "NATIONAL_ID": lambda c: national_ids.national_id(rng, split),
            "SECRET": lambda c: credentials.secret(rng, split, multiline=c.multiline),
        }
        for entity_type, make in (makers or {}).items():
            self._makers[entity_type] = functools.partial(make, rng, split)

    def value(self, entity_type: str, context: Context) -> Pii:
        while True:
            item = self._makers[entity_type](context)
            if not context.multiline and any(char in item.value for char in _NEEDS_ESCAPING):
                continue
            if context.lowercase and entity_type in _LOWERCASED_IN_CHAT:
                item = Pii(item.type, item.value.lower(), item.subtype + ":lower")
            return item


def _context(rng: random.Random, contexts: Sequence[Context]) -> Context:
    return rng.choices(contexts, weights=[c.weight for c in contexts])[0]


def generate(split: str, seed: int | None = None, entities_per_type: int = ENTITIES_PER_TYPE, *,
             phrasebook: Phrasebook | None = None, contexts: Sequence[Context] = CONTEXTS,
             makers: dict[str, Maker] | None = None, name: str | None = None) -> list[Case]:
    """The corpus of `split` ("dev" or "test"): cases until every entity type has `entities_per_type` values.

    The same split and seed give the same corpus. Values of the two splits never coincide, whatever the seeds.
    `phrasebook`, `contexts` and `makers` (value makers by entity type, called with the rng and the split) replace
    the split's own material: a second dev-side corpus (``fresh_dev``) is made so. `name` prefixes the case ids."""
    if split not in SPLITS:
        raise ValueError(f"split must be one of {SPLITS}, got {split!r}")
    rng = random.Random(f"pii-corpus:{split}:{DEFAULT_SEEDS[split] if seed is None else seed}")
    source = _ValueSource(split, rng, makers)
    book = PHRASEBOOKS[split] if phrasebook is None else phrasebook
    counts: Counter[str] = Counter()
    cases: list[Case] = []
    while missing := [t for t in ENTITY_TYPES if counts[t] < entities_per_type]:
        context = _context(rng, contexts)
        types = rng.sample(missing, min(len(missing), rng.choice([1, 2, 2, 3, 3, 4])))
        items: list[Item] = [source.value(t, context) for t in types]
        items += [decoys.decoy(rng.choice(decoys.KINDS), rng) for _ in range(rng.choice([0, 0, 1, 1, 2]))]
        rng.shuffle(items)
        builder = TextBuilder()
        context.render(builder, items, rng, context.lang, book)
        counts.update(types)
        cases.append(Case(id=f"{name or split}-{len(cases):05d}", split=split, text=builder.finish(),
                          entities=builder.entities, negatives=builder.negatives, context=context.name))  # fmt: skip
    return cases
