"""The contexts of the twelfth dev-side corpus (``dev_twelfth``), each a format no other split writes: DICOM headers
as ``dcmdump`` prints them, X12 834 benefit enrolments, jCard (RFC 7095) contacts, OpenLDAP access logs, JSON Lines
application logs, org-mode tables (the label in the heading row), OCR'd paper forms (the label on the line above, in
capitals), Telegram exports in Hungarian, Finnish, Indonesian and Polish (senders that are ordinary words), terminal
sessions and Markdown posts with YAML front matter.

Where a format changes how a value is written (DICOM's ``Family^Given``, X12's ``NM1`` name elements, an LDAP DN's
escaped comma, OCR's capitals), the value is labelled as written, with a subtype that says so."""

from __future__ import annotations

import datetime as dt
import json
import random

from bench.pii_corpus import phrases_dev_twelfth as phrasing
from bench.pii_corpus.contexts import Item, _label, field_names
from bench.pii_corpus.dev_scaffold import clause, labelled_name_parts, rewritten, spoken_field_name, take
from bench.pii_corpus.model import Phrasebook, Pii, TextBuilder
from bench.pii_corpus.twelfth_values import ID_LABELS, inflection, name_parts


def _note(builder: TextBuilder, item: Item, rng: random.Random, lang: str = "en") -> TextBuilder:
    """A clause of `lang` for `item`; a place the clause puts in the inessive gets its case ending as text."""
    before, _, after = clause(item, rng, phrasing.CLAUSES[lang]).partition("{}")
    builder.text(before).value(item)
    if isinstance(item, Pii) and item.subtype.startswith("location:inflected:"):
        builder.text(inflection(item.value, item.subtype.rsplit(":", 1)[1]))
    return builder.text(after)


def _stamp(rng: random.Random) -> dt.datetime:
    return dt.datetime(2026, 1, 1) + dt.timedelta(seconds=rng.randrange(330 * 86400))


def _label_of(item: Item, rng: random.Random) -> str:
    if isinstance(item, Pii) and item.type == "NATIONAL_ID":
        return ID_LABELS[item.subtype.split(":")[1]]
    if _label(item) in phrasing.HEADINGS:
        return rng.choice(phrasing.HEADINGS[_label(item)])
    return spoken_field_name(item).removesuffix(" {}").capitalize()  # a shared decoy kind: its field name, spoken


# --- DICOM ----------------------------------------------------------------------------------------------------------

_DICOM_TAGS = {"PERSON": ("0010,0010", "PN", "PatientName"), "DATE_OF_BIRTH": ("0010,0030", "DA", "PatientBirthDate"),
               "STREET_ADDRESS": ("0010,1040", "LO", "PatientAddress"),
               "PHONE_NUMBER": ("0010,2154", "SH", "PatientTelephoneNumbers"),
               "NATIONAL_ID": ("0010,1000", "LO", "OtherPatientIDs"),
               "LOCATION": ("0010,2150", "LO", "CountryOfResidence")}  # fmt: skip


def dicom_dump(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """A DICOM file's header as ``dcmdump`` prints it: ``(gggg,eeee) VR [value]  #  length, VM  Keyword``; a person
    name as DICOM's PN writes it (``Family^Given``), the rest in a PatientComments (0010,4000) LT element."""
    rest = list(items)
    uid = f"1.2.826.0.1.3680043.8.498.{rng.getrandbits(64)}"
    builder.text(f"# Dicom-File-Format\n\n# Dicom-Meta-Information-Header\n(0002,0003) UI [{uid}]"
                 f"{' ' * 4}#  {len(uid)}, 1 MediaStorageSOPInstanceUID\n\n# Dicom-Data-Set\n"
                 f"(0008,0060) CS [{rng.choice(['CT', 'MR', 'US', 'CR'])}]{' ' * 36}#   2, 1 Modality\n")  # fmt: skip
    for entity_type, (tag, vr, keyword) in _DICOM_TAGS.items():
        item = take(rest, entity_type)
        if item is None:
            continue
        builder.text(f"({tag}) {vr} [")
        if entity_type == "PERSON" and (parts := labelled_name_parts(item, name_parts)):
            given, surname = parts
            builder.value(surname).text("^").value(given)
            length = len(given.value) + len(surname.value) + 1
        else:
            builder.value(item)
            length = len(item.value)
        builder.text(f"]{' ' * max(1, 40 - length)}#  {length + length % 2:2d}, 1 {keyword}\n")
    if rest:
        builder.text("(0010,4000) LT [")
        for index, item in enumerate(rest):
            _note(builder.text("; " if index else ""), item, rng)
        builder.text("]  # PatientComments\n")
    builder.text(f"(0020,000d) UI [{uid[:-3]}{rng.randint(100, 999)}]  #  StudyInstanceUID")


# --- X12 834 --------------------------------------------------------------------------------------------------------


def x12_834(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """An ASC X12 834 benefit enrolment (005010X220A1), one segment a line, ``~`` ending each: the member's NM1*IL
    (last and first name elements), PER (phone, e-mail), N3/N4 (street, city), DMG*D8 (birth date), REF*0F (an
    identity number), and MSG segments for the rest."""
    rest = list(items)
    stamp, control = _stamp(rng), rng.randrange(10**9)
    builder.text(f"ISA*00*          *00*          *ZZ*ACMEHEALTH     *ZZ*PAYER{rng.randint(10, 99)}        *"
                 f"{stamp:%y%m%d}*{stamp:%H%M}*^*00501*{control:09d}*0*P*:~\n"
                 f"GS*BE*ACMEHEALTH*PAYER*{stamp:%Y%m%d}*{stamp:%H%M}*{control % 10**4}*X*005010X220A1~\n"
                 f"ST*834*0001*005010X220A1~\nBGN*00*{rng.randrange(10**6):06d}*{stamp:%Y%m%d}*{stamp:%H%M}****2~\n"
                 f"INS*Y*18*021*28*A***FT~\n")  # fmt: skip
    segments = 3  # ST, BGN, INS: SE counts the transaction's segments, itself included
    builder.text("NM1*IL*1*")
    person = take(rest, "PERSON")
    if parts := labelled_name_parts(person, name_parts):
        given, surname = parts
        builder.value(surname).text("*").value(given)
    elif person:
        builder.value(person)
    builder.text(f"****34*{rng.randrange(10**9):09d}~\n")
    segments += 1
    phone, mail = take(rest, "PHONE_NUMBER"), take(rest, "EMAIL_ADDRESS")
    if phone or mail:
        builder.text("PER*IP*")
        for code, item in (("TE", phone), ("EM", mail)):
            if item:
                builder.text(f"*{code}*").value(item)
        builder.text("~\n")
        segments += 1
    street, town = take(rest, "STREET_ADDRESS"), take(rest, "LOCATION")
    if street:
        builder.text("N3*").value(street).text("~\n")
        segments += 1
    if town:
        builder.text("N4*").value(town).text(f"**{rng.randint(10000, 99999)}~\n")
        segments += 1
    if birth := take(rest, "DATE_OF_BIRTH"):
        builder.text("DMG*D8*").value(birth).text(f"*{rng.choice('MF')}~\n")
        segments += 1
    if national := take(rest, "NATIONAL_ID"):
        builder.text("REF*0F*").value(national).text("~\n")
        segments += 1
    for item in rest:
        builder.text("MSG*")
        _note(builder, item, rng).text("~\n")
        segments += 1
    builder.text(f"SE*{segments + 1}*0001~\nGE*1*{control % 10**4}~\nIEA*1*{control:09d}~")


# --- jCard ----------------------------------------------------------------------------------------------------------

_JCARD_PROPERTIES = {"PERSON": ("fn", "text"), "EMAIL_ADDRESS": ("email", "text"), "PHONE_NUMBER": ("tel", "uri"),
                     "DATE_OF_BIRTH": ("bday", "date"), "LOCATION": ("x-birthplace", "text")}  # fmt: skip


def _json_escaped(item: Item) -> Item:
    """A value as a JSON string holds it (a quote or backslash escaped)."""
    return rewritten(item, json.dumps(item.value, ensure_ascii=False)[1:-1], "json-escaped")


def _json_text(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)[1:-1]


def _json_string(builder: TextBuilder, item: Item) -> None:
    builder.text('"').value(_json_escaped(item)).text('"')


def _json_note(builder: TextBuilder, item: Item, rng: random.Random) -> TextBuilder:
    """A clause for `item` inside a JSON string."""
    before, _, after = clause(item, rng, phrasing.CLAUSES["en"]).partition("{}")
    return builder.text(_json_text(before)).value(_json_escaped(item)).text(_json_text(after))


def jcard(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """A jCard (RFC 7095): ``["vcard", [[name, params, type, value], ...]]``, pretty-printed one property a line; a
    street address as the adr property's street component, the rest in note properties."""
    rest = list(items)
    builder.text('["vcard",\n  [\n    ["version", {}, "text", "4.0"]')
    for entity_type, (name, kind) in _JCARD_PROPERTIES.items():
        if item := take(rest, entity_type):
            params = '{"type": "cell"}' if name == "tel" else "{}"
            builder.text(f',\n    ["{name}", {params}, "{kind}", ')
            _json_string(builder, item)
            builder.text("]")
    if street := take(rest, "STREET_ADDRESS"):
        builder.text(',\n    ["adr", {"type": "home"}, "text", ["", "", ')
        _json_string(builder, street)
        builder.text(', "", "", "", ""]]')
    for item in rest:
        builder.text(',\n    ["note", {}, "text", "')
        _json_note(builder, item, rng).text('"]')
    builder.text("\n  ]\n]")


# --- OpenLDAP access log ----------------------------------------------------------------------------------------------

_DN_SPECIALS = {",": "\\,", "+": "\\+", '"': '\\"', "\\": "\\\\", "<": "\\<", ">": "\\>", ";": "\\;", "=": "\\="}


def _dn_value(item: Item) -> Item:
    """A value as an RDN's attribute value holds it (RFC 4514): a special character escaped with a backslash."""
    return rewritten(item, "".join(_DN_SPECIALS.get(char, char) for char in item.value), "dn-escaped")


def ldap_access_log(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook
                    ) -> None:  # fmt: skip
    """slapd's access log (``loglevel stats``): a BIND and SEARCH of an entry whose DN names the person
    (``cn=Given Surname,ou=people,...``), a MOD of its attributes, RESULT lines between."""
    conn, stamp = rng.randint(1000, 99999), _stamp(rng)
    suffix = rng.choice(["dc=acme,dc=example", "o=acme,c=fi", "dc=corp,dc=example"])

    def head(op: int) -> str:
        return f"{stamp:%b %d %H:%M:%S} ldap{rng.randint(1, 3)} slapd[{rng.randint(300, 9999)}]: conn={conn} op={op} "

    rest = list(items)
    person = take(rest, "PERSON")
    builder.text(f'{head(0)}BIND dn="')
    if person:
        builder.text("cn=").value(_dn_value(person)).text(f',ou=people,{suffix}" method=128\n')
    else:
        builder.text(f'uid=svc-sync,ou=services,{suffix}" method=128\n')
    builder.text(f"{head(0)}RESULT tag=97 err=0 text=\n")
    for op, item in enumerate(rest, start=1):
        attribute = rng.choice(["description", "l", "postalAddress", "mobile", "employeeNumber"])
        if rng.random() < 0.5:
            builder.text(f'{head(op)}SRCH base="{suffix}" scope=2 deref=0 filter="({attribute}=')
            builder.value(_dn_value(item)).text(')"\n')
        else:
            builder.text(f"{head(op)}MOD attr={attribute} ; ")
            _note(builder, item, rng).text("\n")
        builder.text(f"{head(op)}RESULT tag={rng.choice([101, 103])} err=0 text=\n")
    builder.text(f"{head(len(rest) + 1)}UNBIND\n{head(len(rest) + 1)}closed")


# --- JSON Lines, org-mode, OCR form --------------------------------------------------------------------------------


def jsonl_applog(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """An application's structured log, one JSON object a line (``{"ts":..,"level":..,"logger":..,"msg":..}``): a
    value as a field of its own, or inside the message."""
    keys = field_names(items, rng, phrasing.KEYS, suffix="_2")
    stamp = _stamp(rng)
    logger = rng.choice(["app.accounts", "svc.onboarding", "worker.notify"])
    for index, (key, item) in enumerate(zip(keys, items, strict=True)):
        stamp += dt.timedelta(milliseconds=rng.randint(3, 5000))
        head = json.dumps({"ts": f"{stamp.isoformat(timespec='milliseconds')}Z", "level": rng.choice(["info", "warn"]),
                           "logger": logger, "trace_id": f"{rng.getrandbits(64):016x}"})  # fmt: skip
        builder.text(("\n" if index else "") + head[:-1] + ', "msg": "')
        if rng.random() < 0.4:
            _json_note(builder, item, rng).text('"}')
        else:
            builder.text(f'profile updated", "{key}": ')
            _json_string(builder, item)
            builder.text("}")


def org_table(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """An Emacs org-mode table under a heading: the labels in the heading row, a ``|---+---|`` rule, the record's
    row, columns padded as org aligns them."""
    headings = [_label_of(item, rng) for item in items]
    widths = [max(len(h), len(item.value)) for h, item in zip(headings, items, strict=True)]
    builder.text(f"* {rng.choice(['Onboarding', 'Contacts', 'Case notes'])} :{rng.choice(['work', 'hr', 'crm'])}:\n")
    builder.text("| " + " | ".join(h.ljust(w) for h, w in zip(headings, widths, strict=True)) + " |\n")
    builder.text("|-" + "-+-".join("-" * w for w in widths) + "-|\n| ")
    for index, (item, width) in enumerate(zip(items, widths, strict=True)):
        builder.value(item).text(" " * (width - len(item.value)) + (" | " if index < len(items) - 1 else " |"))


# What a hand fills in a form's boxes in block capitals; a printed or pasted code (a card, a token) is read as it is.
_HANDWRITTEN = {"PERSON", "LOCATION", "STREET_ADDRESS", "EMAIL_ADDRESS", "DATE_OF_BIRTH"}


def ocr_form(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """A paper form as OCR reads it back: a title, then each box's printed label on a line of its own (capitals,
    a trailing colon or none) and the box's content on the line below, handwriting read as capitals."""
    builder.text(f"{rng.choice(['APPLICATION FOR MEMBERSHIP', 'CHANGE OF DETAILS', 'PATIENT REGISTRATION'])}\n"
                 f"FORM {rng.choice('ABCK')}-{rng.randint(10, 99)}   PAGE 1 OF {rng.randint(1, 3)}\n\n")  # fmt: skip
    for index, item in enumerate(items):
        label = _label_of(item, rng).upper() + rng.choice([":", ""])
        written = item.value.upper() if _label(item) in _HANDWRITTEN else item.value
        builder.text(("\n" if index else "") + label + "\n").value(rewritten(item, written, "upper"))
    builder.text("\n\nSIGNATURE ______________   DATE ____/____/______")


# --- Telegram, terminal, front matter ---------------------------------------------------------------------------------

_SENDERS = {"hu": ["Anya", "Iroda", "Szomszéd", "Főnök"], "fi": ["Äiti", "Toimisto", "Naapuri", "Pomo"],
            "id": ["Kantor", "Ibu", "Kurir", "Bos"], "pl": ["Mama", "Biuro", "Sąsiad", "Szef"]}  # fmt: skip


def telegram_export(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook
                    ) -> None:  # fmt: skip
    """A Telegram Desktop chat exported as text: ``Sender, [DD.MM.YYYY HH:MM]`` on a line, the message below, a blank
    line between messages; the senders are contacts saved as ordinary words ("Mum", "Office")."""
    stamp = _stamp(rng)
    for index, item in enumerate(items):
        stamp += dt.timedelta(minutes=rng.randint(1, 40))
        builder.text(("\n\n" if index else "") + f"{rng.choice(_SENDERS[lang])}, [{stamp:%d.%m.%Y %H:%M}]\n")
        _note(builder, item, rng, lang)


def terminal_session(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook
                     ) -> None:  # fmt: skip
    """A pasted terminal session: a prompt, commands that write or search a value (``echo``, ``grep``, ``jq``) and
    what they print."""
    user, host = rng.choice(["dev", "ops", "ubuntu", "root"]), rng.choice(["bastion", "web-02", "laptop"])
    keys = field_names(items, rng, phrasing.KEYS, suffix="_2")
    for index, (key, item) in enumerate(zip(keys, items, strict=True)):
        prompt = f"{user}@{host}:~$ " if user != "root" else f"root@{host}:~# "
        builder.text(("\n" if index else "") + prompt)
        shape = rng.choice(["echo", "grep", "jq"])
        if shape == "echo":
            quote = '"' if "'" in item.value else "'"
            builder.text(f"echo {quote}{key}: ").value(item).text(f"{quote} >> notes.txt")
        elif shape == "grep":
            builder.text(f"grep -n {key} customers.csv\n{rng.randint(2, 900)}:{key},").value(item)
        else:
            builder.text(f"jq -r '.{key}' record.json\n").value(item)
    builder.text(f"\n{user}@{host}:~$ ")


def front_matter(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """A Markdown post as a static site generator reads it: YAML front matter between ``---`` lines (title, date,
    draft and a key per value), then a body that says the rest."""
    half = (len(items) + 1) // 2
    top, body = items[:half], items[half:]
    builder.text(f"---\ntitle: \"{rng.choice(['Team update', 'Welcome aboard', 'Volunteer roster'])}\"\n"
                 f"date: {_stamp(rng):%Y-%m-%d}\ndraft: {rng.choice(['true', 'false'])}\n")  # fmt: skip
    for key, item in zip(field_names(top, rng, phrasing.KEYS, suffix="_2"), top, strict=True):
        quote = "'" if '"' in item.value else '"'
        builder.text(f"{key}: {quote}").value(item).text(f"{quote}\n")
    builder.text("---\n\n")
    for item in body:
        before, _, after = clause(item, rng, phrasing.CLAUSES["en"]).partition("{}")
        builder.text(before[:1].upper() + before[1:]).value(item).text(after + ". ")
    builder.text(f"\n\n<!--more-->\n{rng.choice(['More soon.', 'Questions? Ask in #general.'])}")
