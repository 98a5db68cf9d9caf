"""The shapes of text a value is embedded in: prose in four languages, lower-case chat, JSON, YAML, CSV, log lines,
code, stack traces and e-mail signatures. Each renderer appends one case's values (and decoys) to a TextBuilder."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from bench.pii_corpus import phrases, phrases_heldout
from bench.pii_corpus.model import Decoy, Phrasebook, Pii, TextBuilder

Item = Pii | Decoy
# (builder, the case's values and decoys, rng, the prose's language, the split's phrasebook)
Renderer = Callable[[TextBuilder, list[Item], random.Random, str, Phrasebook], None]
# Each split phrases its prose, chat and signatures its own way (see phrases and phrases_heldout).
PHRASEBOOKS = {"dev": phrases.BOOK, "test": phrases_heldout.BOOK}


def _label(item: Item) -> str:
    return item.type if isinstance(item, Pii) else item.kind


def field_name(
    item: Item, rng: random.Random, table: Mapping[str, Sequence[str]], taken: set[str], suffix: str = "2"
) -> str:
    """A field name for `item` that `taken` does not hold yet (added to it): drawn from `table`'s names for the item's
    subtype, else for its type or decoy kind, else from the shared ``phrases.FIELD_NAMES``; a name already taken
    grows `suffix` until it is new, so that two values of one type never share a key."""
    label = _label(item)
    names = (isinstance(item, Pii) and table.get(item.subtype)) or table.get(label) or phrases.FIELD_NAMES[label]
    name = rng.choice(names)
    while name in taken:
        name += suffix
    taken.add(name)
    return name


def field_names(
    items: Sequence[Item], rng: random.Random, table: Mapping[str, Sequence[str]], suffix: str = "2"
) -> list[str]:
    """One field name per item (see field_name), no two alike."""
    taken: set[str] = set()
    return [field_name(item, rng, table, taken, suffix) for item in items]


def _field_names(items: list[Item], rng: random.Random) -> list[str]:
    return field_names(items, rng, phrases.SECRET_FIELD_NAMES, suffix="_2")


def sentences(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    separator = rng.choice([" ", " ", "\n", "  "])
    for index, item in enumerate(items):
        bank = book.sentences[lang] if isinstance(item, Pii) else book.decoy_sentences[lang]
        builder.text(separator if index else "").template(rng.choice(bank[_label(item)]), item)


def chat(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    separator = rng.choice([" ", " and ", "\n", " / "])
    for index, item in enumerate(items):
        bank = book.chat if isinstance(item, Pii) else book.chat_decoys
        builder.text(separator if index else "").template(rng.choice(bank[_label(item)]), item)


def json_object(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    pretty = rng.random() < 0.5
    newline, indent = ("\n", "  ") if pretty else ("", "")
    wrapper = rng.choice(["customer", "user", "record", "payload", None])
    fields: list[tuple[str, Item | str]] = [
        *zip(_field_names(items, rng), items, strict=True),
        ("status", rng.choice(["active", "pending", "closed"])),
    ]
    rng.shuffle(fields)
    depth = indent * (2 if wrapper else 1)
    builder.text("{" + newline)
    if wrapper:
        builder.text(f'{indent}"{wrapper}": {{{newline}')
    for index, (name, item) in enumerate(fields):
        builder.text(f'{depth}"{name}": "')
        if isinstance(item, str):
            builder.text(item)
        else:
            builder.value(item)
        last = index == len(fields) - 1
        builder.text('"' + ("" if last else ",") + (newline or ("" if last else " ")))
    if wrapper:
        builder.text(f"{indent}}}{newline}")
    builder.text("}")


def yaml_document(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    builder.text(f"{rng.choice(['customer', 'account', 'deploy', 'contact'])}:\n")
    for name, item in zip(_field_names(items, rng), items, strict=True):
        quote = rng.choice(['"', '"', "'"]) if "'" not in item.value else '"'
        builder.text(f"  {name}: {quote}").value(item).text(f"{quote}\n")
    builder.text(f"  retries: {rng.randint(1, 5)}\n")


def csv_rows(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    names = _field_names(items, rng)
    builder.text(",".join(["id", *names, "status"]) + "\n" + str(rng.randint(1, 9999)))
    for item in items:
        quote = '"' if any(c in item.value for c in ',"\n') else ""
        builder.text("," + quote).value(item).text(quote)
    builder.text("," + rng.choice(["ok", "review", "done"]) + ("\n" if rng.random() < 0.5 else ""))


def log_lines(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    service = rng.choice(["auth", "billing", "api-gw", "checkout", "sync-worker"])
    for index, (name, item) in enumerate(zip(_field_names(items, rng), items, strict=True)):
        stamp = f"2026-0{rng.randint(1, 9)}-{rng.randint(10, 28)}T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:" \
                f"{rng.randint(0, 59):02d}.{rng.randint(0, 999):03d}Z"  # fmt: skip
        level = rng.choice(["INFO", "WARN", "ERROR", "DEBUG"])
        event = rng.choice(["request handled", "lookup failed", "record updated", "retrying", "validation error"])
        quote = '"' if " " in item.value else ""
        builder.text(("\n" if index else "") + f"{stamp} {level:<5} [{service}] {event} {name}={quote}")
        builder.value(item).text(f"{quote} status={rng.choice([200, 400, 404, 500])}")


def code(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    style = rng.choice(["python", "js", "go"])
    comment = {"python": "# ", "js": "// ", "go": "// "}[style]
    opening = {"python": "def load_fixture():\n", "js": "function loadFixture() {\n", "go": "func fixture() {\n"}
    builder.text(opening[style])
    for name, item in zip(_field_names(items, rng), items, strict=True):
        if "\n" in item.value:  # a key block: a raw multi-line string
            opener, closer = {"python": ('"""', '"""'), "js": ("`", "`"), "go": ("`", "`")}[style]
            builder.text(f"    {name.upper()} = {opener}").value(item).text(f"{closer}\n")
        elif rng.random() < 0.5:
            builder.text(f"    {comment}{rng.choice(['TODO: remove', 'test data', 'fixture'])} {name}: ")
            builder.value(item).text("\n")
        else:
            assign = {"python": f"    {name} = ", "js": f"  const {name} = ", "go": f"    {name} := "}[style]
            builder.text(assign + '"').value(item).text('"\n')
    builder.text({"python": "    return locals()", "js": "}", "go": "}"}[style])


def stack_trace(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    if rng.random() < 0.5:
        module = rng.choice(["billing", "accounts", "sync"])
        builder.text("Traceback (most recent call last):\n"
                     f'  File "/srv/app/{module}/handlers.py", line {rng.randint(20, 400)}, in handle\n'
                     "    result = process(record)\n"
                     f'  File "/srv/app/{module}/process.py", line {rng.randint(20, 400)}, in process\n'
                     "    raise ValidationError(record)\n"
                     f"{module}.errors.ValidationError: rejected record")  # fmt: skip
        for name, item in zip(_field_names(items, rng), items, strict=True):
            builder.text(f" {name}='").value(item).text("'")
    else:
        builder.text(f"java.lang.IllegalStateException: {rng.choice(['lookup failed', 'cannot settle'])} for")
        for name, item in zip(_field_names(items, rng), items, strict=True):
            builder.text(f" {name}=").value(item).text(";")
        builder.text("\n\tat com.acme.payments.Settlement.run(Settlement.java:"
                     f"{rng.randint(20, 400)})\n\tat java.base/java.lang.Thread.run(Thread.java:840)")  # fmt: skip


def signature(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    builder.text(rng.choice(book.signoffs[lang]) + "\n")
    for item in sorted(items, key=lambda i: 0 if _label(i) == "PERSON" else 1):
        label = "" if not isinstance(item, Pii) else rng.choice(book.signature_labels.get(item.type, [""]))
        if isinstance(item, Decoy):
            label = f"{phrases.FIELD_NAMES[item.kind][0].replace('_', ' ').title()}: "
        builder.text(label).value(item).text("\n")
    builder.text(rng.choice(["Acme GmbH", "Northwind Ltd", "Contoso S.A.", "Initech"]))


@dataclass(frozen=True)
class Context:
    name: str
    render: Renderer
    lang: str  # the language of the prose, and of the dates written in it
    weight: float
    lowercase: bool = False  # names and places written in lower case, as chat is
    multiline: bool = False  # may hold a value with line breaks (a PEM block) raw


def with_extra_decoys(contexts: Sequence[Context], decoy: Callable[[random.Random, Context], Decoy]
                      ) -> tuple[Context, ...]:  # fmt: skip
    """`contexts`, each rendering up to two more hard negatives (`decoy`'s, made for that context) among a case's
    values: the decoys a dev-side corpus adds to the shared ones."""

    def wrapped(context: Context) -> Context:
        def rendered(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
            mixed = items + [decoy(rng, context) for _ in range(rng.choice([0, 1, 1, 2]))]
            rng.shuffle(mixed)
            context.render(builder, mixed, rng, lang, book)

        return dataclasses.replace(context, render=rendered)

    return tuple(wrapped(context) for context in contexts)


CONTEXTS: tuple[Context, ...] = (
    Context("sentence-en", sentences, "en", 3.0, multiline=True),
    Context("sentence-fr", sentences, "fr", 1.0),
    Context("sentence-es", sentences, "es", 1.0),
    Context("sentence-de", sentences, "de", 1.0),
    Context("chat-lower", chat, "en", 1.5, lowercase=True, multiline=True),
    Context("json", json_object, "en", 1.0),
    Context("yaml", yaml_document, "en", 0.7),
    Context("csv", csv_rows, "en", 0.7),
    Context("log", log_lines, "en", 1.0),
    Context("code", code, "en", 0.8, multiline=True),
    Context("stack-trace", stack_trace, "en", 0.6),
    Context("signature-en", signature, "en", 0.5),
    Context("signature-de", signature, "de", 0.2),
    Context("signature-fr", signature, "fr", 0.2),
)
