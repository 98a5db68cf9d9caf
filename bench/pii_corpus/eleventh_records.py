"""The contexts of the eleventh dev-side corpus (``dev_eleventh``), each a format no other split writes: GEDCOM
family trees, UN/EDIFACT interchanges, raw MIME e-mails with RFC 2047 encoded-word senders, logfmt lines, fixed-width
reports, terraform.tfvars files, redis-cli history, Prometheus metrics scrapes, git diffs of YAML fixtures, journald's
export format, a Persian WhatsApp export and a Swahili SMS thread.

Where a format escapes a character a value holds (EDIFACT's ``?+``, HCL's ``$${``) or encodes the value (an e-mail
header's encoded word), the value is written as the format writes it and labelled as written, with a subtype that
says so (``:edifact-released``, ``:rfc2047``)."""

from __future__ import annotations

import datetime as dt
import random

from bench.pii_corpus import phrases_dev_eleventh as phrasing
from bench.pii_corpus.contexts import Item, field_names
from bench.pii_corpus.dev_scaffold import clause, labelled_name_parts, rewritten, take
from bench.pii_corpus.eleventh_values import name_parts
from bench.pii_corpus.model import Phrasebook, TextBuilder


def _escaped(item: Item, table: dict[str, str], how: str) -> Item:
    return rewritten(item, "".join(table.get(char, char) for char in item.value), how)


def _note(builder: TextBuilder, item: Item, rng: random.Random, lang: str = "en") -> TextBuilder:
    return builder.template(clause(item, rng, phrasing.CLAUSES[lang]), item)


def _stamp(rng: random.Random) -> dt.datetime:
    return dt.datetime(2026, 1, 1) + dt.timedelta(minutes=rng.randrange(330 * 24 * 60))


# --- GEDCOM ---------------------------------------------------------------------------------------------------------


def gedcom(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """A GEDCOM 5.5.1 family-tree export: ``1 NAME Given /Surname/`` with GIVN and SURN, the birth's DATE and PLAC,
    a residence's ADDR, PHON and EMAIL, NOTEs for the rest."""
    rest = list(items)
    builder.text(f"0 HEAD\n1 SOUR ACME_TREE\n2 VERS {rng.randint(2, 9)}.{rng.randint(0, 9)}\n1 GEDC\n2 VERS 5.5.1\n"
                 f"2 FORM LINEAGE-LINKED\n1 CHAR UTF-8\n0 @I{rng.randint(1, 999)}@ INDI\n")  # fmt: skip
    person = take(rest, "PERSON")
    if parts := labelled_name_parts(person, name_parts):
        given, surname = parts
        builder.text("1 NAME ").value(given).text(" /").value(surname).text("/\n")
        builder.text("2 GIVN ").value(given).text("\n2 SURN ").value(surname).text("\n")
    elif person:
        builder.text("1 NAME ").value(person).text("\n")
    builder.text(f"1 SEX {rng.choice('MF')}\n")
    birth, town = take(rest, "DATE_OF_BIRTH"), take(rest, "LOCATION")
    if birth or town:
        builder.text("1 BIRT\n")
        if birth:
            builder.text("2 DATE ").value(birth).text("\n")
        if town:
            builder.text("2 PLAC ").value(town).text("\n")
    street, phone, mail = take(rest, "STREET_ADDRESS"), take(rest, "PHONE_NUMBER"), take(rest, "EMAIL_ADDRESS")
    if street or phone or mail:
        builder.text("1 RESI\n")
        for tag, item in (("ADDR", street), ("PHON", phone), ("EMAIL", mail)):
            if item:
                builder.text(f"2 {tag} ").value(item).text("\n")
    for item in rest:
        builder.text("1 NOTE ")
        _note(builder, item, rng).text("\n")
    builder.text("0 TRLR")


# --- MIME e-mail ----------------------------------------------------------------------------------------------------


def encoded_word(text: str) -> str:
    """RFC 2047's Q encoding of `text` in UTF-8: letters and digits as they are, a space as ``_``, any other byte
    as ``=XX``."""
    out = []
    for byte in text.encode():
        char = chr(byte)
        out.append(char if char.isascii() and char.isalnum() else "_" if char == " " else f"={byte:02X}")
    return "=?UTF-8?Q?" + "".join(out) + "?="


_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def mime_email(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """A raw e-mail (RFC 5322) as a mail server stores it: the sender's display name in ``From`` (an RFC 2047
    encoded word when it is not ASCII), the body's lines each saying one value."""
    rest = list(items)
    stamp = _stamp(rng)
    builder.text(f"Return-Path: <bounces+{rng.randrange(10**5)}@mail.acme.example>\n"
                 f"Received: from mx{rng.randint(1, 9)}.acme.example (mx.acme.example)"
                 f"\n\tby inbound.acme.example with ESMTPS; {_DAYS[stamp.weekday()]}, {stamp.day} "
                 f"{_MONTHS[stamp.month - 1]} {stamp.year} {stamp:%H:%M:%S} +0000\nFrom: ")  # fmt: skip
    person, mail = take(rest, "PERSON"), take(rest, "EMAIL_ADDRESS")
    if person:
        shown = person.value if person.value.isascii() else encoded_word(person.value)
        quote = '"' if shown == person.value and not shown.replace(" ", "").isalnum() else ""
        builder.text(quote).value(rewritten(person, shown, "rfc2047")).text(f"{quote} ")
    builder.text("<")
    if mail:
        builder.value(mail)
    else:
        builder.text("no-reply@forms.acme.example")
    builder.text(f">\nTo: records@acme.example\nSubject: {rng.choice(['Update my details', 'Re: your application'])}"
                 f"\nDate: {_DAYS[stamp.weekday()]}, {stamp.day} {_MONTHS[stamp.month - 1]} {stamp.year} "
                 f"{stamp:%H:%M:%S} +0000\nMessage-ID: <{rng.getrandbits(80):020x}@mail.acme.example>\n"
                 "MIME-Version: 1.0\nContent-Type: text/plain; charset=UTF-8\nContent-Transfer-Encoding: 8bit\n\n"
                 "Hello,\n\n")  # fmt: skip
    for item in rest:
        before, _, after = clause(item, rng, phrasing.CLAUSES["en"]).partition("{}")
        builder.text(before[:1].upper() + before[1:]).value(item).text(after + ".\n")
    builder.text("\nThanks")


# --- logfmt, fixed-width --------------------- -----------------------------------------------------------------------


def _logfmt_value(builder: TextBuilder, item: Item) -> None:
    quote = '"' if any(c in item.value for c in ' ="') or not item.value else ""
    builder.text(quote).value(item).text(quote)


def logfmt(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """logfmt lines (``key=value``, quoted where a value holds a space): a value as a field, or in a msg."""
    keys = field_names(items, rng, phrasing.KEYS, suffix="_2")
    stamp = _stamp(rng)
    for index, (key, item) in enumerate(zip(keys, items, strict=True)):
        stamp += dt.timedelta(milliseconds=rng.randint(5, 4000))
        level, service = rng.choice(["info", "warn", "debug"]), rng.choice(["kyc", "billing", "crm"])
        builder.text(("\n" if index else "") + f"ts={stamp.isoformat(timespec='milliseconds')}Z level={level} "
                     f"svc={service} ")  # fmt: skip
        if rng.random() < 0.3:
            builder.text('msg="')
            _note(builder, item, rng).text('"')
        else:
            builder.text(f'msg="record updated" {key}=')
            _logfmt_value(builder, item)
        builder.text(f" dur={rng.randint(1, 900)}ms")


def fixed_width(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """A mainframe-style fixed-width report: a title, padded column headings, a rule, and the record's row."""
    keys = [key.upper() for key in field_names(items, rng, phrasing.KEYS, suffix="_2")]
    widths = [max(len(key), len(item.value)) + 2 for key, item in zip(keys, items, strict=True)]
    builder.text(f"RPT{rng.randint(100, 999)}  {rng.choice(['CUSTOMER MASTER EXTRACT', 'MEMBER LISTING'])}  "
                 f"PAGE {rng.randint(1, 40):4d}\n")  # fmt: skip
    builder.text("".join(key.ljust(width) for key, width in zip(keys, widths, strict=True)).rstrip() + "\n")
    builder.text("".join(("-" * (width - 2)).ljust(width) for width in widths).rstrip() + "\n")
    for index, (item, width) in enumerate(zip(items, widths, strict=True)):
        builder.value(item)
        if index < len(items) - 1:
            builder.text(" " * (width - len(item.value)))


# --- UN/EDIFACT -----------------------------------------------------------------------------------------------------

_EDIFACT_RELEASE = {"?": "??", "+": "?+", ":": "?:", "'": "?'"}


def _edifact_text(text: str) -> str:
    return "".join(_EDIFACT_RELEASE.get(char, char) for char in text)


def _edifact(item: Item) -> Item:
    return _escaped(item, _EDIFACT_RELEASE, "edifact-released")


def edifact(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """A UN/EDIFACT IFTMIN interchange, one segment a line: the consignee's NAD (``Surname:Given``, street, city),
    CTA and COM (phone, e-mail), DTM+329 (birth date, CCYYMMDD), DOC (identity document), FTX free text for the rest;
    ``+ : ' ?`` in a value released with ``?``."""
    rest = list(items)
    stamp, reference = _stamp(rng), rng.randrange(10**8)
    builder.text(f"UNA:+.? '\nUNB+UNOC:3+ACMESHIP:14+PARTNER{rng.randint(1, 99):02d}:14+{stamp:%y%m%d:%H%M}+"
                 f"{reference:08d}'\nUNH+1+IFTMIN:D:04A:UN'\nBGM+610+SHP{rng.randrange(10**6):06d}+9'\n"
                 f"DTM+137:{stamp:%Y%m%d%H%M}:203'\n")  # fmt: skip
    segments = 3  # UNH, BGM, DTM: UNT counts the message's segments, itself included
    person, street, town = take(rest, "PERSON"), take(rest, "STREET_ADDRESS"), take(rest, "LOCATION")
    if person or street or town:
        builder.text("NAD+CN+++")
        if parts := labelled_name_parts(person, name_parts):
            builder.value(_edifact(parts[1])).text(":").value(_edifact(parts[0]))
        elif person:
            builder.value(_edifact(person))
        builder.text("+")
        if street:
            builder.value(_edifact(street))
        builder.text("+")
        if town:
            builder.value(_edifact(town))
        builder.text(f"++{rng.randint(10000, 99999)}'\n")
        segments += 1
    for entity_type, opening, closing in (("PHONE_NUMBER", "COM+", ":TE'"), ("EMAIL_ADDRESS", "COM+", ":EM'"),
                                          ("DATE_OF_BIRTH", "DTM+329:", ":102'"),
                                          ("NATIONAL_ID", "DOC+ID:110:111+", "'")):  # fmt: skip
        if item := take(rest, entity_type):
            builder.text(opening).value(_edifact(item)).text(closing + "\n")
            segments += 1
    for item in rest:
        before, _, after = clause(item, rng, phrasing.CLAUSES["en"]).partition("{}")
        builder.text(f"FTX+AAI+++{_edifact_text(before)}").value(_edifact(item)).text(f"{_edifact_text(after)}'\n")
        segments += 1
    builder.text(f"UNT+{segments + 1}+1'\nUNZ+1+{reference:08d}'")


# --- Terraform, redis-cli, Prometheus, diff, journald -----------------------------------------------------------------


def _hcl(item: Item) -> Item:
    """A value as an HCL string literal holds it: a template opening (``${``, ``%{``) doubled."""
    return rewritten(item, item.value.replace("${", "$${").replace("%{", "%%{"), "hcl-escaped")


def terraform_tfvars(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook
                     ) -> None:  # fmt: skip
    """A terraform.tfvars file: top-level ``key = "value"`` assignments aligned as ``terraform fmt`` aligns them, and
    a map of the rest (``contact = { ... }``)."""
    keys = field_names(items, rng, phrasing.KEYS, suffix="_2")
    half = (len(items) + 1) // 2
    workspace, region = rng.choice(["prod", "staging", "dr"]), rng.choice(["eu-west-1", "ap-south-1"])
    builder.text(f'# {workspace} workspace\nregion = "{region}"\n\n')
    top = list(zip(keys[:half], items[:half], strict=True))
    width = max(len(key) for key, _ in top)
    for key, item in top:
        builder.text(f'{key.ljust(width)} = "').value(_hcl(item)).text('"\n')
    if items[half:]:
        nested = list(zip(keys[half:], items[half:], strict=True))
        width = max(len(key) for key, _ in nested)
        builder.text("\ncontact = {\n")
        for key, item in nested:
            builder.text(f'  {key.ljust(width)} = "').value(_hcl(item)).text('"\n')
        builder.text("}\n")
    builder.text(f"\ninstance_count = {rng.randint(1, 6)}")


def redis_cli_history(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook
                      ) -> None:  # fmt: skip
    """~/.rediscli_history: HSET, SET, SETEX and LPUSH commands with the values quoted as redis-cli takes them."""
    keys = field_names(items, rng, phrasing.KEYS, suffix="_2")
    user = rng.randint(1000, 99999)
    for index, (key, item) in enumerate(zip(keys, items, strict=True)):
        builder.text("\n" if index else "")
        quote = "'" if '"' in item.value else '"'
        shape = rng.choice(["hset", "set", "setex", "lpush"])
        if shape == "hset":
            builder.text(f"HSET user:{user} {key} {quote}")
        elif shape == "set":
            builder.text(f"SET user:{user}:{key} {quote}")
        elif shape == "setex":
            builder.text(f"SETEX session:{rng.getrandbits(48):012x}:{key} {rng.choice([900, 3600, 86400])} {quote}")
        else:
            builder.text(f"LPUSH audit:{key} {quote}")
        builder.value(item).text(quote)
    builder.text(f"\nEXPIRE user:{user} {rng.choice([3600, 604800])}")


def prometheus_metrics(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook
                       ) -> None:  # fmt: skip
    """A /metrics scrape in Prometheus's text format: an info metric per value, the value a label's."""
    metric = rng.choice(["crm_record_info", "kyc_pending_check", "billing_customer_info"])
    builder.text(f"# HELP {metric} Records awaiting review, by field.\n# TYPE {metric} gauge\n")
    for key, item in zip(field_names(items, rng, phrasing.KEYS, suffix="_2"), items, strict=True):
        builder.text(f'{metric}{{instance="app-{rng.randint(1, 9)}:9100",{key}="').value(item)
        builder.text(f'"}} {rng.randint(1, 5)}\n')
    builder.text(f"process_start_time_seconds {rng.randint(1_760_000_000, 1_790_000_000)}\n# EOF")


def unified_diff(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """A git diff of a YAML fixture: a hunk that adds the values as quoted fields of one record."""
    path = rng.choice(["fixtures/contacts.yaml", "seed/customers.yml", "tests/data/patients.yaml"])
    start = rng.randint(3, 200)
    keys = field_names(items, rng, phrasing.KEYS, suffix="_2")
    builder.text(f"diff --git a/{path} b/{path}\nindex {rng.getrandbits(28):07x}..{rng.getrandbits(28):07x} 100644\n"
                 f"--- a/{path}\n+++ b/{path}\n@@ -{start},3 +{start},{3 + len(items)} @@ records:\n"
                 f"   - id: {rng.randint(1, 9999)}\n     status: active\n")  # fmt: skip
    for key, item in zip(keys, items, strict=True):
        builder.text(f'+    {key}: "').value(item).text('"\n')
    builder.text(f"     updated_by: {rng.choice(['seed-script', 'ci', 'ops'])}")


def journald_export(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook
                    ) -> None:  # fmt: skip
    """``journalctl -o export``: entries of ``FIELD=value`` lines, apart by a blank line; a value in an upper-case
    structured field of its own, or in MESSAGE."""
    keys = field_names(items, rng, phrasing.KEYS, suffix="_2")
    micros = rng.randrange(1_767_225_600, 1_790_000_000) * 1_000_000
    unit = rng.choice(["kyc-worker", "crm-api", "billing"])
    for index, (key, item) in enumerate(zip(keys, items, strict=True)):
        micros += rng.randint(1000, 9_000_000)
        builder.text(("\n\n" if index else "") + f"__CURSOR=s={rng.getrandbits(128):032x};i={rng.randint(1, 99999):x}\n"
                     f"__REALTIME_TIMESTAMP={micros}\n_HOSTNAME=node-{rng.randint(1, 9)}\n"
                     f"SYSLOG_IDENTIFIER={unit}\nPRIORITY={rng.choice([4, 5, 6])}\n")  # fmt: skip
        if rng.random() < 0.4:
            builder.text("MESSAGE=")
            _note(builder, item, rng)
        else:
            builder.text(f"MESSAGE=record updated\n{key.upper()}=").value(item)


# --- chat -----------------------------------------------------------------------------------------------------------

_PERSIAN_DIGITS = str.maketrans("0123456789", "۰۱۲۳۴۵۶۷۸۹")
_SENDERS = {"fa": ["دفتر", "من", "پشتیبانی"], "sw": ["Mimi", "Ofisi", "Benki", "Mama"]}


def chat_export(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """A Persian WhatsApp export (right-to-left marks, Eastern Arabic digits in the stamps: ``‏۱۲/۳/۲۰۲۶، ۱۴:۳۲ -
    sender: text``) or a Swahili SMS thread as a phone backup prints it (``[12/03/2026 14:32] sender: text``)."""
    stamp = _stamp(rng)
    for index, item in enumerate(items):
        stamp += dt.timedelta(minutes=rng.randint(1, 30))
        sender = rng.choice(_SENDERS[lang])
        if lang == "fa":
            when = f"{stamp.month}/{stamp.day}/{stamp.year}، {stamp:%H:%M}".translate(_PERSIAN_DIGITS)
            prefix = f"\u200f{when} - {sender}: "
        else:
            prefix = f"[{stamp:%d/%m/%Y %H:%M}] {sender}: "
        builder.text(("\n" if index else "") + prefix)
        _note(builder, item, rng, lang)
