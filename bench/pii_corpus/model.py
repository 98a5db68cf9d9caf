"""A case of the corpus, and the builder that assembles its text while recording where each value lands."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypedDict


class Entity(TypedDict):
    type: str  # one of ENTITY_TYPES
    start: int
    end: int
    value: str  # text[start:end]
    subtype: str  # the family inside the type, e.g. "card:mastercard-2series", "phone:FR:NATIONAL"


class Negative(TypedDict):
    kind: str  # what the decoy is: "sku", "uuid", "price", ...
    start: int
    end: int
    value: str


class Case(TypedDict):
    id: str
    split: str
    text: str
    entities: list[Entity]
    negatives: list[Negative]
    context: str


@dataclass(frozen=True)
class Pii:
    """A value to label: its entity type, the exact text, and the family it comes from."""

    type: str
    value: str
    subtype: str


@dataclass(frozen=True)
class Decoy:
    """A hard negative: text shaped like PII that a detector must leave alone."""

    kind: str
    value: str


@dataclass
class TextBuilder:
    """Appends literal text, labelled values and decoys; offsets are those of the finished text."""

    parts: list[str] = field(default_factory=list)
    entities: list[Entity] = field(default_factory=list)
    negatives: list[Negative] = field(default_factory=list)
    length: int = 0

    def text(self, literal: str) -> TextBuilder:
        self.parts.append(literal)
        self.length += len(literal)
        return self

    def value(self, item: Pii | Decoy) -> TextBuilder:
        start = self.length
        self.text(item.value)
        if isinstance(item, Pii):
            self.entities.append(Entity(type=item.type, start=start, end=self.length, value=item.value,
                                        subtype=item.subtype))  # fmt: skip
        else:
            self.negatives.append(Negative(kind=item.kind, start=start, end=self.length, value=item.value))
        return self

    def template(self, template: str, item: Pii | Decoy) -> TextBuilder:
        """`template` holds one ``{}`` where the value goes."""
        before, _, after = template.partition("{}")
        return self.text(before).value(item).text(after)

    def finish(self) -> str:
        return "".join(self.parts)


@dataclass(frozen=True)
class Phrasebook:
    """One split's sentence material: clauses carrying one value (or decoy) at ``{}``, per language and type.

    `sentences` and `decoy_sentences` are keyed by language, then by entity type or decoy kind; `chat` and
    `chat_decoys` (lower-case chat, English) by type or kind; `signoffs` by language; `signature_labels` by type
    (the label before a value in an e-mail signature)."""

    sentences: dict[str, dict[str, list[str]]]
    chat: dict[str, list[str]]
    decoy_sentences: dict[str, dict[str, list[str]]]
    chat_decoys: dict[str, list[str]]
    signoffs: dict[str, list[str]]
    signature_labels: dict[str, list[str]]
