"""What the dev-side generators from `dev-6` on share: a clause of a split's bank for a value, the picking of a
case's values by type, and the corpus call itself (fresh per-corpus sources, then ``generate`` with the split's
contexts and value makers)."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from stdnum import luhn

from bench.pii_corpus import phrases
from bench.pii_corpus.contexts import Context, Item, _label
from bench.pii_corpus.generator import Maker, generate
from bench.pii_corpus.model import Case, Decoy, Pii


def spoken_field_name(item: Item) -> str:
    """A clause for a shared decoy kind no split's bank phrases: its first field name, spoken ("order id {}")."""
    return phrases.FIELD_NAMES[_label(item)][0].replace("_", " ") + " {}"


def clause(item: Item, rng: random.Random, bank: dict[str, list[str]]) -> str:
    """A clause of `bank` (clauses by entity type or decoy kind, ``{}`` where the value goes) for `item`."""
    label = _label(item)
    return rng.choice(bank[label]) if label in bank else spoken_field_name(item)



def labelled_name_parts(
    item: Item | None, name_parts: Callable[[Pii], tuple[str, str] | None]
) -> tuple[Pii, Pii] | None:
    """A person's given name(s) and surname as two labelled values (subtypes ``...:given``, ``...:surname``), as the
    split's `name_parts` tells them apart; None for anything else, or a name it cannot split."""
    if not isinstance(item, Pii) or (parts := name_parts(item)) is None:
        return None
    given, surname = parts
    return Pii("PERSON", given, f"{item.subtype}:given"), Pii("PERSON", surname, f"{item.subtype}:surname")



def rewritten(item: Item, value: str, how: str) -> Item:
    """`item` written as `value` (escaped, encoded or recased `how`, which its subtype records), or itself where that
    changes nothing."""
    if value == item.value:
        return item
    if isinstance(item, Pii):
        return Pii(item.type, value, f"{item.subtype}:{how}")
    return Decoy(item.kind, value)


def is_type(item: Item, *entity_types: str) -> bool:
    return isinstance(item, Pii) and item.type in entity_types


def take(items: list[Item], entity_type: str) -> Item | None:
    """The first item of `entity_type`, removed from `items`."""
    for index, item in enumerate(items):
        if is_type(item, entity_type):
            return items.pop(index)
    return None


def generate_dev_split(name: str, seed: int, entities_per_type: int, contexts: Sequence[Context],
                       makers: dict[str, Maker], restart: Callable[[int], None]) -> list[Case]:  # fmt: skip
    """A dev-side corpus named `name` (always the same for the same arguments). `restart` renews its per-corpus
    sources (Faker instances, name pools) from the seed first: each corpus draws the same values, however many came
    before."""
    restart(seed)
    return generate("dev", seed, entities_per_type, contexts=contexts, name=name, makers=makers)


def named_thing_or_id_decoy(
    rng: random.Random,
    context: Context,
    kinds: Sequence[str],
    other_date: Callable[[random.Random, Context], str],
    person_named: Sequence[str],
    place_named: Sequence[str],
    other_id: Callable[[random.Random], str],
    tech_ref: Callable[[random.Random], str],
) -> Decoy:
    """A hard negative of one of ``kinds``: another date than a birth, a thing named after a person or a place, an id
    of another shape, or a technical reference; a reference that is a run of digits passing Luhn is drawn again (a
    card detector may rightly flag it: no fair negative)."""
    kind = rng.choice(kinds)
    if kind == "other_date":
        return Decoy(kind, other_date(rng, context))
    if kind == "person_named":
        return Decoy(kind, rng.choice(person_named))
    if kind == "place_named":
        return Decoy(kind, rng.choice(place_named))
    if kind == "other_id":
        return Decoy(kind, other_id(rng))
    while (value := tech_ref(rng)).isdigit() and luhn.is_valid(value):
        pass
    return Decoy(kind, value)
