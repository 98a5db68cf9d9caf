"""Names and places by position: the value of a field whose key says what it holds.

Agents paste JSON, YAML, logs and code where a person's name or a city stands alone as a field's value
(``"full_name": "Arash Ahmady"``, ``assignee="Leyla Erdoğan"``, ``city: Kamina``, ``birthplace := "Bundi"``): no
sentence around it for NER to read, and often no gazetteer entry. The key decides the type. Keys that merely end in
"name" but name things (``file_name``, ``hostname``, ``service_name``) are not person keys. The value must read as a
name: one to five words of letters (initials and particles allowed), capitalised when more than one, no digits; under a
role's key ("assignee", "reporter", "customer"), where desks and chat lines stand too ("Assigned to: Customer Care",
"customer: Case 4471 reopened"), not only English dictionary and stop words unless a known first name opens it; a
place may also hold the lower-case words of place names ("Antigua and Barbuda", "Alphen aan den Rijn"). In CSV, the
header row is the key: a column named ``full_name`` or ``city`` makes its cells in the rows below names or places;
so does a Markdown table's header ("| Customer Name | City |"), and in HTML an element's class, id, name or
itemprop (``<span class="customer_name">Asali Sayyid</span>``).
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Iterator

from presidio_analyzer import AnalysisExplanation, EntityRecognizer, RecognizerResult
from spacy.lang.en.stop_words import STOP_WORDS as ENGLISH_STOP_WORDS

from gateway.guardrails.columns import DELIMITERS, list_key
from gateway.guardrails.name_cues import BY_VERBS, TITLES, NameWords, names_a_group, ordinary_words, phrase_pattern
from gateway.guardrails.person_names import known_names
from gateway.guardrails.person_nouns import person_nouns
from gateway.guardrails.places import CONNECTORS, english_words, fold, folded_gazetteer, gazetteer
from gateway.guardrails.prefilters import AtLineStarts
from gateway.guardrails.sql_values import inserts, literals, may_hold_inserts
from gateway.guardrails.word_trie import alternation

SCORE = 0.7

_ROLES = ("approver", "reviewer", "signatory", "signer", "signature", "attendee", "participant", "organiser",
          "organizer", "supervisor", "manager", "guardian", "tenant", "lead", "tech lead", "team lead", "project lead",
          "on call", "nok", "next of kin", "emergency contact", "claimant", "applicant", "insured", "policyholder",
          "plaintiff", "defendant", "respondent", "witness", "landlord", "contact person", "holder")  # fmt: skip
_ROLE_KEYS = sorted({role.replace(" ", joiner) for role in _ROLES for joiner in ("_", "-", "", " ")}
                    | {f"{verb}{joiner}by" for verb in BY_VERBS for joiner in ("_", "-", "", " ")})
# Keys that say their value is a name ("full_name", "Nachname"), not only whose it is: a role's key ("assignee",
# "reporter", "customer") may hold a desk, a team or a chat line instead.
# A role's own name key ("applicant_name", "signatory_name") says so too; "names" as forms print it ("Given names").
_NAME_OWNERS = ("full", "first", "last", "given", "family", "sur", "middle", "display", "customer", "client", "contact",
                "user", "account", "card", "patient", "employee", "holder", "owner", "legal", "real", "person",
                "passenger", "guest", "member", "recipient", "sender", "applicant", "signatory", "requester",
                "beneficiary", "insured", "policyholder", "claimant", "tenant", "payee", "payer", "traveller",
                "traveler", "spouse", "student", "driver", "witness", "guardian", "kin", "oncall", "on_call",
                "on-call")  # fmt: skip
_NAME_KEY_WORDS = ("names?", "nom", "nombre", "vorname", "nachname")
_NAME_KEYS = rf"(?:{'|'.join(_NAME_OWNERS)})?[ _.-]?(?:{'|'.join(_NAME_KEY_WORDS)})"
# "actor" is the person an audit or activity record says acted (W3C Activity Streams 2.0's and OCSF's actor;
# ``actor="Марина Фомина"``), "maintainer" and "contributor" the people package metadata names (Python's core metadata,
# npm's package.json, Debian's control file).
_PERSON_WORDS = ("assignee", "assigned[ _-]?to", "reporter", "requester", "author", "owner", "customer", "contact",
                 "recipient", "sender", "patient", "employee", "cardholder", "card[ _-]?holder", "account[ _-]?holder",
                 "beneficiary", "passenger", "actor", "maintainer", "contributor")  # fmt: skip
# the people a record names by their role, and "approved_by", "reviewedBy" (an agent after a verb's participle), as a
# trie: an alternation of some hundred words tried one by one at every position of a text made this pattern half
# again as slow
_PERSON_KEYS = "|".join((_NAME_KEYS, *_PERSON_WORDS, phrase_pattern(_ROLE_KEYS)))
_PLACES = ("city", "town", "village", "birth place", "place of birth", "pob", "home town", "country", "state",
           "province", "region", "county", "district", "municipality", "location", "destination", "dest", "origin",
           "venue", "residence", "domicile", "headquarters", "hq", "home base", "ville", "pays", "ciudad", "localidad",
           "stadt", "ort", "land", "citta", "città", "geburtsort", "lieu de naissance",
           "lugar de nacimiento")  # fmt: skip
_PLACE_KEYS = phrase_pattern({place.replace(" ", joiner) for place in _PLACES for joiner in ("_", "-", "", " ")})
# A key (whole identifier: "customer_name", "assignee") with an optional object path ("user.first_name"), a separator
# (":", "=", "=>"), then the value, quoted or bare to the end of the line or a delimiter. Searched in the lower-cased
# text (a case-insensitive alternation this long is several times slower to search); values are read from the text.
_FIELD = re.compile(
    rf"(?<![\w-])(?P<path>[\w-]+\.)?(?:(?P<person>{_PERSON_KEYS})|(?P<place>{_PLACE_KEYS}))[\"']?\]?"
    r"(?:[ \t]*(?::=?|=>?)|[ \t]*(?P<leaders>\.{3,})|(?P<spaced>[ \t]+)(?=[\"']))[ \t]*"
    r"(?:\"(?P<dq>[^\"\n]{2,60})\"|'(?P<sq>[^'\n]{2,60})'|(?P<bare>[^\W\d_][^\n,;:{}\[\]\"'=|]{1,59}))"
)


def _literal_head(fragment: str) -> str:
    """The letters every match of a key's regex fragment opens with ("assigned[ _-]?to": "assigned"; "names?":
    "name")."""
    head = re.match(r"[^\W\d_]*", fragment).group()  # type: ignore[union-attr]  # matches the empty string too
    return head[:-1] if fragment[len(head) : len(head) + 1] in ("?", "*", "{") else head


def _key_heads() -> frozenset[str]:
    """What every person or place key (``_PERSON_KEYS``, ``_PLACE_KEYS``) opens with, none a prefix of another: a
    name's owner ("full"), or a name's word after an optional joiner ("name", "_nom"); a role's or a place's first
    word ("tech" of "tech lead")."""
    name_words = [_literal_head(word) for word in _NAME_KEY_WORDS]
    heads = {*_NAME_OWNERS, *name_words, *(joiner + word for joiner in " _.-" for word in name_words),
             *map(_literal_head, _PERSON_WORDS),
             *(key.split(" ")[0] for key in _ROLE_KEYS),
             *(key.split(" ")[0] for key in (place.replace(" ", joiner) for place in _PLACES
                                             for joiner in ("_", "-", "", " ")))}  # fmt: skip
    if "" in heads:
        raise ValueError("a key opens with no literal letters")
    return frozenset(head for head in heads if not any(head.startswith(other) for other in heads if other != head))


# Where ``_FIELD`` may match, looked for instead of trying its look-behind and its optional path at every position:
# a character outside ASCII's word characters (the look-behind's, or a path's full stop) before a key. ``_fields``
# tries ``_FIELD`` itself there, and where the path before such a full stop starts.
_FIELD_LEAD = re.compile(rf"[^a-z0-9_-](?:{alternation(_key_heads(), fold=False)})")
_PATH_CHARACTER = re.compile(r"[\w-]")
# An HTML element whose class, id, name, itemprop or data attribute is such a key, and its text.
_TAG_FIELD = re.compile(
    rf"(?:class|id|name|itemprop|data-[\w-]+)=[\"'](?:[\w-]+ )*(?:(?P<person>{_PERSON_KEYS})|(?P<place>{_PLACE_KEYS}))"
    r"(?: [\w-]+)*[\"'][^<>]*>[ \t]*(?P<value>[^<>\n]{2,60}?)[ \t]*<"
)
_PERSON_KEY = re.compile(rf"(?:{_PERSON_KEYS})")
_NAME_KEY = re.compile(_NAME_KEYS)
_PLACE_KEY = re.compile(rf"(?:{_PLACE_KEYS})")
# A CSV header: three or more column names separated by commas or (as French, Spanish and German spreadsheets export
# them) semicolons, nothing else on the line.
_CSV_HEADERS = {d: re.compile(rf"(?m)^[ \t]*[A-Za-z_][\w .-]*(?:{d}[ \t]*[A-Za-z_][\w .-]*){{2,}}[ \t]*\r?$")
                for d in DELIMITERS}  # fmt: skip
_CSV_CELLS = {d: re.compile(rf'"(?:[^"\n]|"")*"|[^{d}\n]*') for d in DELIMITERS}

# One to five words of letters ("Teresa A. Zieliński", "José de la Vega", "O'Neil-Smith", "Saint Vincent and the
# Grenadines").
_MAX_WORDS = 5
_NAME_WORD = r"[^\W\d_]+(?:['’.-][^\W\d_]*)*"
_NAME = re.compile(rf"{_NAME_WORD}(?: {_NAME_WORD}){{0,{_MAX_WORDS - 1}}}")
_PARTICLES = frozenset({"de", "del", "la", "le", "da", "do", "dos", "das", "di", "van", "von", "der", "den", "du",
                        "bin", "ibn", "al", "el", "y", "e", "ben", "ter"})  # fmt: skip
_PLACE_PARTICLES = _PARTICLES | CONNECTORS
_NOT_VALUES = frozenset({"null", "none", "nil", "true", "false", "unknown", "n/a", "na", "tbd", "redacted",
                         "anonymous", "admin", "root", "system", "test", "example", "string", "default", "pending",
                         "active"})  # fmt: skip


def _fields(lowered: str) -> Iterator[re.Match[str]]:
    """``_FIELD.finditer(lowered)``'s matches. A match starts at the text's start, or after a character outside
    ``[\\w-]`` (which ``_FIELD_LEAD`` opens with) at a key or at a path; a path runs to a full stop before a key (which
    ``_FIELD_LEAD`` finds too). Each such start is tried with ``_FIELD`` itself, in order, from where the last match
    ends; a start ``_FIELD_LEAD`` reports inside a path (after a letter outside ASCII) fails the look-behind."""
    position = 0
    if (match := _FIELD.match(lowered)) is not None:
        yield match
        position = match.end()
    search_from = max(0, position - 1)
    while (lead := _FIELD_LEAD.search(lowered, search_from)) is not None:
        at = lead.start()
        search_from = at + 1
        starts = [at + 1]
        if lowered[at] == ".":  # a path may end here: it starts where the run of its characters does
            path_start = at
            while path_start and _PATH_CHARACTER.match(lowered, path_start - 1) is not None:
                path_start -= 1
            if path_start < at:
                starts.insert(0, path_start)
        for start in starts:
            if start >= position and (match := _FIELD.match(lowered, start)) is not None:
                yield match
                position = match.end()
                search_from = max(search_from, position - 1)
                break


# Each pattern of a line tried only at the text's start and after a line break (prefilters.AtLineStarts).
_CSV_HEADER_LINES = {d: AtLineStarts(header.pattern) for d, header in _CSV_HEADERS.items()}


def _reads_as_name(value: str, particles: frozenset[str] = _PARTICLES) -> bool:
    if not _NAME.fullmatch(value) or value.casefold() in _NOT_VALUES or value.isupper():
        return False
    words = [word for word in value.split(" ") if word.casefold() not in particles]
    return bool(words) and (len(words) == 1 or all(word[0].isupper() for word in words))


def _capitals_key(key: str) -> bool:
    """Whether a value in capitals under `key` is read as a name: a name's key that says whose name it is
    ("holder_name", "Given names"); a bare "Name:" also labels what a form or a system calls a thing ("Name: IBAN
    SWIFT")."""
    return _NAME_KEY.fullmatch(key) is not None and key.strip(" _.-") not in ("name", "names")


def _reads_as(value: str, entity: str, particles: frozenset[str], key: str) -> bool:
    """Whether `value`, under the (lower-case) `key`, reads as a name of `entity`; a person's also as "Last, First",
    as directories and exports write it ("Anjum, Gull"), each side capitalised, the surname maybe in capitals ("ANJUM,
    Gull"), and under a name's key a name printed in capitals. A team or a desk in a person's slot is
    none (``_unit_name``), nor, under a role's key, are ordinary words (``_ordinary_value``: "Reporter: Customer
    Care"); under a name's key they are a name ("Full Name: Flint Fable")."""
    if entity == "PERSON" and value.isupper() and _capitals_key(key):
        value = value.title()  # a name printed in capitals under a name's key ("holder_name: GRACE AFRIYIE")
    if _reads_as_name(value, particles):
        shaped = True
    else:
        last, comma, first = value.partition(", ")
        if last.isupper() and not first.isupper():
            last = last.title()  # the surname in capitals, as registers write it ("PUELLO, Eliecer")
        shaped = (entity == "PERSON" and bool(comma) and "," not in first
                  and all(_reads_as_name(part, particles) and part[0].isupper() for part in (last, first)))  # fmt: skip
    if not shaped or entity != "PERSON":
        return shaped
    return not (_code_identifier(value) or _unit_name(value)
                or (_ordinary_value(value) and not _NAME_KEY.fullmatch(key)))  # fmt: skip


# A word opened in lower case that goes on in capitals: a camelCase identifier ("deviceIp", "clientVersion"), which no
# person's name is written as ("McDonald", "DeShawn" open in capitals; "de'Medici", "al-Hassan" have their mark).
_CAMEL_CASE = re.compile(r"(?<![^\W\d_])[a-z]+[A-Z]")
_NAME_PART = re.compile(r"[^\W\d_]+")
# Letters, a full stop, letters: a login's or a host's dotted form, not how a name is written in lower case ("grace
# afriyie"; an initial's full stop has a space after it).
_DOTTED_LOGIN = re.compile(r"[^\W\d_]\.[^\W\d_]")


def _code_identifier(value: str) -> bool:
    """A resource's, a control's or a variable's name in a person's slot: camelCase ("apiKey"), a login in lower case
    with a full stop ("jennifer.morgan"), or no capital at all and a word that names-dataset lists as nobody's name
    ("notifier", "billing-sync", "kyc-worker": a manifest's ``name:``). A lower-case name a person typed keeps its
    name words ("name: grace afriyie")."""
    if _CAMEL_CASE.search(value) or _pascal_case(value):
        return True
    if any(char.isupper() for char in value):
        return False
    if _DOTTED_LOGIN.search(value):
        return True  # a login written first.last ("actor=jennifer.morgan"), as directories and audit logs print it
    parts = [part for part in _NAME_PART.findall(value) if part not in _PARTICLES]
    return not all(known_names().is_name(part) for part in parts)


# A word of two or more capitalised parts of four letters or more glued together: PascalCase ("PaymentIntent",
# "OrderLineItem"); a name's prefix is shorter ("MacArthur", "VanDyke").
_PASCAL_PARTS = re.compile(r"[A-Z][a-z]{3,}")
_PASCAL_WORD = re.compile(r"(?:[A-Z][a-z]{3,}){2,}")


def _pascal_case(value: str) -> bool:
    """A class's or a type's name in a person's slot: one word of two capitalised English dictionary words or more
    glued together ("PaymentIntent", "CustomerAccount"); a name's inner capital follows a short prefix or particle
    ("McDonald", "MacArthur", "DeShawn", "LaToya") or a part no dictionary holds ("FitzGerald")."""
    if " " in value or not _PASCAL_WORD.fullmatch(value):
        return False
    english = english_words()
    return all(part.lower() in english.nouns or part.lower() in english.verbs or part.lower() in english.modifiers
               for part in _PASCAL_PARTS.findall(value))  # fmt: skip


# The words a field's value is read with to tell a team from a person (``_unit_name``): the name gazetteer (looked up
# when first asked, not at import) and the head nouns, no stop words and no English dictionary (with them, the
# dictionary-word surnames no list holds would read as teams: "Flint Fable").
_NAME_WORDS = NameWords(frozenset(), frozenset(), lambda word: known_names().is_name(word),
                        lambda word: known_names().is_first(word))  # fmt: skip


@functools.cache
def _english_reader() -> NameWords:
    """The words of a field's value read with English stop words and the NER model's dictionary
    (``places.english_words``, which the place recognizer loads anyway), built when first asked."""
    english, names = english_words(), known_names()
    return NameWords(frozenset(ENGLISH_STOP_WORDS), english.nouns | english.verbs | english.modifiers, names.is_name,
                     names.is_first)  # fmt: skip


# A value opened by a capital's initial and its full stop ("N. S. Kasai", "M. Alekseeva"): a person's name as
# registers shorten it; no heading or desk is written so.
_INITIALS = re.compile(r"[^\W\d_]\. ")
_VALUE_WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")


def _ordinary_value(value: str) -> bool:
    """A heading, a desk or a chat line's words where a person's name could stand: "Assigned to: Tier 2 Support",
    "Reporter: Customer Care", "customer: National ID number: ...", "customer: order #1642 still not here"
    (``name_cues.ordinary_words``; particles and initials aside). A title makes a name of what follows ("Ms. Ware")."""
    words = [word for word in _VALUE_WORD.findall(value) if len(word) > 1 and word not in _PARTICLES]
    if (len(words) > 1 and words[0].casefold() in TITLES) or _INITIALS.match(value):
        return False
    return ordinary_words(words, _english_reader())


def _unit_name(value: str) -> bool:
    """A team, a desk or a company where a person's name could stand (``name_cues.names_a_group``: by an opening
    English stop word or a head noun; a recognizer has no dictionary to tell an ordinary word from a surname)."""
    return names_a_group(value.split(), _NAME_WORDS)


# After a field's value, a word in lower case that is no next key: the key was a chat speaker's label or a heading
# and a sentence follows ("customer: The session started at ten", "customer: took 3s lol").
_NEXT_KEY = re.compile(r"[ \t]+[^\W\d_][\w.-]*[ \t]*[:=]")  # a key starts with a letter; "00:27:29" is a time
_NEXT_WORD = re.compile(r"[ \t]+(?P<word>[^\W_]+)")


def _sentence_follows(text: str, start: int, end: int) -> bool:
    """Whether a sentence goes on after the name-like words text[start:end] of a bare value: a lower-case word
    follows, or anything but a next key follows a single lower-case word."""
    if _NEXT_KEY.match(text, end):
        return False
    following = _NEXT_WORD.match(text, end)
    if following is None:
        return False
    return following.group("word")[0].islower() or text[start:end].islower()


# An XML (or HTML) element whose own name is the key: "<patient>Edmond Molitor</patient>", "<contactPerson>",
# "<ns:homeTown>"; its text on one line.
_ELEMENT = re.compile(r"<(?P<tag>[A-Za-z_][\w.:-]{0,40})(?:[ \t][^<>\n]*)?>[ \t]*(?P<value>[^<>\n]{2,60}?)[ \t]*"
                      r"</(?P=tag)>")
# An HTML table (its end, or the text's), its rows, and a row's header or data cells (the text of a cell that holds no
# element; the cell is still counted, so the columns stay aligned: "<td><a href=...>...</a></td>"). Searched in the
# lower-cased text (HTML's tag names are case-insensitive).
_HTML_TABLE = re.compile(r"<table\b.*?(?:</table>|\Z)", re.DOTALL)
_HTML_ROW = re.compile(r"<tr\b[^<>]*>(?P<cells>.*?)(?=</tr>|<tr\b|</table>|\Z)", re.DOTALL)
_HTML_CELL = re.compile(r"<(?P<tag>t[hd])\b[^<>]*>(?:[ \t]*(?P<value>[^<>\n]{1,60}?)[ \t]*</(?P=tag)>)?")
# An item of a YAML block list, its value unquoted (the list's key: ``columns.list_key``).
_YAML_ITEM = re.compile(r"(?m)^[ \t]*- [ \t]*[\"']?(?P<value>[^\n\"']*?)[\"']?[ \t]*\r?$")
_YAML_ITEM_LINES = AtLineStarts(_YAML_ITEM.pattern)


# The HTML elements whose ``name`` attribute names the element itself, the key a form submits its value under or the
# target a link or script finds it by (the HTML standard's ``name`` content attribute; ``a`` and ``img`` as older pages
# write it): ``<input name="bday">`` names a control, not a person. An XML element's ``name`` attribute
# (``<author name="Grace Afriyie"/>``) stays a key.
_CONTROL_TAG = re.compile(r"<(?:input|select|textarea|button|form|fieldset|output|object|param|iframe|map|meta|slot|"
                          r"details|a|img)(?![\w:-])")  # fmt: skip
_TAG_REACH = 300  # characters back from an attribute searched for its tag's "<"


def _control_name(lowered: str, start: int) -> bool:
    """Whether the key at `start` of the lower-cased text is the ``name`` attribute of an HTML control's tag."""
    opening = lowered.rfind("<", max(0, start - _TAG_REACH), start)
    if opening < 0 or lowered.find(">", opening, start) >= 0:
        return False
    return _CONTROL_TAG.match(lowered, opening) is not None and lowered[start - 1 : start].isspace()


# The kinds of thing whose name a label writes as the kind and "name" apart ("Model name", "Product name", "Host name"):
# the label's first word is no person's role (those are keys of their own: "Full name", "Holder name").
_THING_KINDS = frozenset({
    "model", "product", "file", "host", "service", "brand", "company", "business", "trade", "domain", "device", "item",
    "project", "app", "application", "package", "branch", "table", "column", "field", "bucket", "queue", "topic",
    "resource", "cluster", "node", "database", "schema", "image", "container", "module", "class", "function",
    "method", "variable", "street", "city", "country", "place", "shop", "store", "team", "group", "department",
    "event", "course", "drug", "bank", "vessel", "ship", "hotel", "venue", "school", "organisation", "organization",
    "plan", "program", "programme", "job", "task", "role", "test", "feature", "library", "dataset",
})  # fmt: skip
_WORD_BEFORE = re.compile(r"([a-z]+)[ \t]\Z")


def _thing_before(lowered: str, start: int) -> bool:
    """Whether the word before a "name" key at `start` of the lower-cased text is a kind of thing ("model name")."""
    before = _WORD_BEFORE.search(lowered, max(0, start - 20), start)
    return before is not None and before.group(1) in _THING_KINDS


# The properties of a product and its offer (schema.org's Product and Offer types: "sku", "gtin13", "mpn", "brand",
# "price", "priceCurrency", ...; a cart line's quantity): an object that holds one names a product, not a person, by
# its "name".
_PRODUCT_PROPERTY = re.compile(
    r'"(?:sku|gtin(?:8|12|13|14)?|mpn|productid|brand|model|price|pricecurrency|offers|availability|itemcondition|'
    r'category|color|colour|material|qty|quantity)"[ \t]*:'
)
_OBJECT_REACH = 400  # characters searched either side of a key for its object's braces


def _product_object(lowered: str, start: int) -> bool:
    """Whether the JSON object around the key at `start` of the lower-cased text holds a product's property."""
    opening = lowered.rfind("{", max(0, start - _OBJECT_REACH), start)
    if opening < 0 or lowered.rfind("}", opening, start) >= 0:
        return False
    closing = lowered.find("}", start, start + _OBJECT_REACH)
    closing = closing if closing >= 0 else min(len(lowered), start + _OBJECT_REACH)
    return _PRODUCT_PROPERTY.search(lowered, opening, closing) is not None


# The key of a JSON object, right before its opening brace (``"guest": {``), or of the array an object is an item of
# (``"passengers": [{...}, {``); searched backwards from the brace within ``_OBJECT_REACH``.
_OBJECT_KEY = re.compile(r'"(?P<key>[A-Za-z_][\w.-]{0,40})"[ \t]*:[ \t\r\n]*\Z')
_KEY_PART = re.compile(r"[a-z]+")


def _person_parent(text: str, match: re.Match[str]) -> bool:
    """Whether the bare "name" key of a `match` of ``_FIELD`` is a person's: its object (or its list of objects) is
    under a key whose last word is a person's key or an English noun of people (``person_nouns``: "guest", "assignee",
    "passenger"), or its path ends so ("guest.name")."""
    if (path := match.group("path")) is not None:
        parent = path[:-1]
    else:
        opening = text.rfind("{", max(0, match.start() - _OBJECT_REACH), match.start())
        if opening < 0 or text.rfind("}", opening, match.start()) >= 0:
            return False
        parent_key = _OBJECT_KEY.search(text, max(0, opening - 60), _array_start(text, opening))
        if parent_key is None:
            return False
        parent = parent_key.group("key")
    words = _KEY_PART.findall(_key_words(parent))
    if not words:
        return False
    noun = _singular(words[-1])
    return noun in person_nouns() or _PERSON_KEY.fullmatch(noun) is not None


def _array_start(text: str, opening: int) -> int:
    """Where the key of the object opened at `opening` ends: before the brace, or before the "[" of the array the
    object is an item of (its earlier items skipped back over, braces counted)."""
    position = opening
    while position > 0 and text[position - 1] in " \t\r\n":
        position -= 1
    if position == 0 or text[position - 1] not in "[,":
        return opening
    depth, floor = 0, max(0, opening - _OBJECT_REACH)
    position -= 1
    while position > floor:
        char = text[position]
        if char in "}]":
            depth += 1
        elif char in "{[":
            if depth == 0:
                return position if char == "[" else opening
            depth -= 1
        position -= 1
    return opening


def _key_words(name: str) -> str:
    """A key as the key patterns read it: lower case, camelCase and a namespace undone ("ns:contactPerson" ->
    "contact_person")."""
    name = name.rpartition(":")[2]
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


def _singular(name: str) -> str:
    """A list's key for one of its items: "patients" -> "patient", "cities" -> "city", "addresses" stays plural-less
    enough for the key patterns."""
    if name.endswith("ies"):
        return name[:-3] + "y"
    if name.endswith(("ches", "shes", "sses", "xes")):
        return name[:-2]
    return name[:-1] if name.endswith("s") and not name.endswith("ss") else name


class FieldValueRecognizer(EntityRecognizer):
    """PERSON or LOCATION: the value of a field whose key names a person or a place."""

    def __init__(self) -> None:
        super().__init__(supported_entities=["PERSON", "LOCATION"], name="FieldValueRecognizer")
        person_nouns()  # read at start, not on the first request with a bare "name" under a key

    def load(self) -> None:
        pass

    def analyze(self, text: str, entities: list[str], nlp_artifacts: object = None) -> list[RecognizerResult]:
        results = []
        lowered = text.lower()
        if len(lowered) != len(text):  # a few characters lower-case to two ("İ"): keep those as they are
            lowered = "".join(char if len(char.lower()) != 1 else char.lower() for char in text)
        for match in _fields(lowered):
            key = match.group("person")
            if key is not None and key.lstrip(" _.-") == "name" and _control_name(lowered, match.end("person") - 4):
                continue  # <input name="iban">: the form control's name
            if key is not None and key.lstrip(" _.-") in ("name", "names") and _thing_before(lowered, match.start()):
                continue  # "Model name: Kelvin scale", "File name: Quarterly Report": a thing's name
            if key is not None and key.lstrip(" _.-") == "name" and _product_object(lowered, match.start()):
                continue  # {"sku": "TB-30", "name": "Trail Backpack", "price": ...}: a product's name
            if match.group("spaced") is not None and match.group("path") is None:
                continue  # "user.name 'Luu, Kei'" (git config) is a key; a lone word before a quote is prose
            if key is not None and key.lstrip(" _.-") == "name" and _person_parent(text, match):
                key = "full_name"  # "guest": {"name": "MAJD UBAIDAH"}, guest.name: the guest's name
            group = next(name for name in ("dq", "sq", "bare") if match.group(name) is not None)
            start, end = match.start(group), match.end(group)
            while end > start and text[end - 1] in " \t.":  # a bare value's trailing space or full stop
                end -= 1
            entity = "PERSON" if match.group("person") is not None else "LOCATION"
            particles = _PARTICLES if entity == "PERSON" else _PLACE_PARTICLES
            if match.group("leaders") is not None:  # a printed form: "PATIENT ....... EDMOND MOLITOR"
                results.extend(self._form_value(text, match, entity))
                continue
            if group == "bare":  # "name=Grace Afriyie status=200": the longest run of words that reads as a name
                capitals = entity == "PERSON" and _capitals_key(key)
                name_end = self._name_end(text, start, end, particles, capitals)
                if entity == "PERSON" and name_end in (None, end):
                    name_end = _given_after_comma(text, start, end, particles) or name_end
                if name_end is None or (" " not in text[start:name_end] and _sentence_follows(text, start, name_end)):
                    continue  # a single word a sentence goes on after: a speaker's label, not a field's key
                end = name_end
            if not _reads_as(text[start:end], entity, particles, key or ""):
                continue
            explanation = AnalysisExplanation(self.name, SCORE, pattern_name=f"{entity.lower()} field")
            results.append(RecognizerResult(entity, start, end, SCORE, explanation))
        for delimiter in DELIMITERS:
            if delimiter in text:
                results.extend(self._csv_cells(text, delimiter))
        if "\n" in text:
            results.extend(self._typed_column_cells(text, {(r.start, r.end) for r in results}))
        if "|" in text:
            results.extend(self._table_cells(text))
        if "<" in text:
            if "<th" in lowered:
                results.extend(self._html_table_cells(text, lowered))
            for match in _TAG_FIELD.finditer(lowered):
                entity = "PERSON" if match.group("person") is not None else "LOCATION"
                key = match.group("person") or match.group("place")
                results.extend(self._cell(text, match.start("value"), match.end("value"), entity, key, "element"))
            for match in _ELEMENT.finditer(text):
                key = _key_words(match.group("tag"))
                results.extend(self._cell(text, match.start("value"), match.end("value"), _column_kind(key), key,
                                          "element"))  # fmt: skip
        if may_hold_inserts(text):
            for statement in inserts(text):
                results.extend(self._sql_values(text, statement))
        if "-" in text:
            results.extend(self._list_items(text))
        for key, start, end, where in _syntax_pairs(text):
            key = _key_words(key)
            results.extend(self._cell(text, start, end, _column_kind(key), key, where))
        return results

    def _list_items(self, text: str) -> list[RecognizerResult]:
        """The items of YAML block lists whose key says what they hold (a line "patients:" over lines "  - Naem",
        "  - Ivo Petrov"). An item on the line after the previous one is of the same list: its key is looked up once
        per list."""
        results: list[RecognizerResult] = []
        key: str | None = None
        next_line = -1
        for item in _YAML_ITEM_LINES.finditer(text):
            if item.start() != next_line:
                key = list_key(text, item.start())
            next_line = item.end() + 1
            if key is not None:
                item_key = _singular(_key_words(key))
                results.extend(self._cell(text, item.start("value"), item.end("value"), _column_kind(item_key),
                                          item_key, "list item"))  # fmt: skip
        return results

    def _form_value(self, text: str, match: re.Match[str], entity: str) -> list[RecognizerResult]:
        """The value after a form's dotted leaders, to the end of the line; in capitals when the key is too (a form
        printed in capitals), and as "LAST, FIRST" for a person."""
        start = match.start(next(name for name in ("dq", "sq", "bare") if match.group(name) is not None))
        line_end = text.find("\n", start)
        end = len(text) if line_end < 0 else line_end
        while end > start and text[end - 1] in " \t\r.":
            end -= 1
        value = text[start:end]
        key = text[match.start("person" if entity == "PERSON" else "place") : match.start("leaders")]
        if value.isupper() and key.isupper():
            value = value.title()
        particles = _PARTICLES if entity == "PERSON" else _PLACE_PARTICLES
        if end - start < 2 or len(value) > 60 or not _reads_as(value, entity, particles, key.lower()):
            return []
        explanation = AnalysisExplanation(self.name, SCORE, pattern_name=f"{entity.lower()} form")
        return [RecognizerResult(entity, start, end, SCORE, explanation)]

    def _sql_values(self, text: str, statement: re.Match[str]) -> list[RecognizerResult]:
        """String literals of an INSERT's VALUES tuples under a person- or place-named column of its column list."""
        kinds: dict[str, str | None] = {}
        results = []
        for literal in literals(text, statement):
            if literal.column not in kinds:
                kinds[literal.column] = _column_kind(_key_words(literal.column))
            if literal.string and (kind := kinds[literal.column]) is not None:
                key = _key_words(literal.column)
                results.extend(self._cell(text, literal.start, literal.end, kind, key, "sql value"))
        return results

    def _cell(self, text: str, start: int, end: int, kind: str | None, key: str,
              where: str) -> list[RecognizerResult]:  # fmt: skip
        """A finding of `kind` for text[start:end] (stripped) when it reads as a name under `key`."""
        while start < end and text[start] in " \t":
            start += 1
        while end > start and text[end - 1] in " \t":
            end -= 1
        particles = _PARTICLES if kind == "PERSON" else _PLACE_PARTICLES
        if kind is None or end - start < 2 or not _reads_as(text[start:end], kind, particles, key):
            return []
        explanation = AnalysisExplanation(self.name, SCORE, pattern_name=f"{kind.lower()} {where}")
        return [RecognizerResult(kind, start, end, SCORE, explanation)]

    def _table_cells(self, text: str) -> list[RecognizerResult]:
        """Cells under a person- or place-named column of each Markdown table (a header line, a delimiter row,
        then rows of cells between pipes)."""
        results = []
        for delimiter in _TABLE_DELIMITER.finditer(text):
            header_end = delimiter.start() - 1
            if header_end < 0:
                continue
            header = text[text.rfind("\n", 0, header_end) + 1 : header_end]
            keys = [name.strip().lower() for name in _split_row(header)]
            kinds = [_column_kind(key) for key in keys]
            if not any(kinds):
                continue
            position = delimiter.end() + 1
            while position < len(text):
                line_end = text.find("\n", position)
                line_end = len(text) if line_end < 0 else line_end
                cells = _row_cells(text, position, line_end)
                if len(cells) != len(kinds):
                    break
                for kind, key, (start, end) in zip(kinds, keys, cells, strict=True):
                    results.extend(self._cell(text, start, end, kind, key, "column"))
                position = line_end + 1
        return results

    def _html_table_cells(self, text: str, lowered: str) -> list[RecognizerResult]:
        """Cells under a person- or place-named column of each HTML table: a row of header cells (``<th>``) names the
        columns of the rows of data cells (``<td>``) after it, as a CSV header does (``_column_kind``: "Contact",
        "City"); a cell's text only, no element inside it."""
        results = []
        for table in _HTML_TABLE.finditer(lowered):
            keys: list[str | None] = []
            for row in _HTML_ROW.finditer(lowered, table.start(), table.end()):
                cells = list(_HTML_CELL.finditer(lowered, row.start("cells"), row.end("cells")))
                if cells and all(cell.group("tag") == "th" for cell in cells):
                    keys = [_key_words(text[cell.start("value") : cell.end("value")].strip()) for cell in cells]
                    continue
                if len(cells) != len(keys) or any(cell.group("tag") != "td" for cell in cells):
                    continue
                for key, cell in zip(keys, cells, strict=True):
                    if key is not None and cell.group("value") is not None:
                        results.extend(self._cell(text, *cell.span("value"), _column_kind(key), key, "html column"))
        return results

    def _csv_cells(self, text: str, delimiter: str) -> list[RecognizerResult]:
        """Cells under a person- or place-named column of each CSV block (a header, then rows with as many cells)."""
        results = []
        for header in _CSV_HEADER_LINES[delimiter].finditer(text):
            columns = [name.strip().lower() for name in header.group().split(delimiter)]
            kinds = {index: _column_kind(name) for index, name in enumerate(columns)}
            if not any(kinds.values()):
                continue
            position = header.end() + 1
            while position < len(text):
                line_end = text.find("\n", position)
                line_end = len(text) if line_end < 0 else line_end
                cells = [(cell.start(), cell.end()) for cell in _CSV_CELLS[delimiter].finditer(text, position, line_end)
                         if cell.end() > cell.start() or cell.start() == position
                         or text[cell.start() - 1] == delimiter]  # fmt: skip
                if len(cells) != len(columns):
                    break
                for index, (start, end) in enumerate(cells):
                    kind = kinds.get(index)
                    if text[start:start + 1] == '"':
                        start, end = start + 1, end - 1
                    particles = _PARTICLES if kind == "PERSON" else _PLACE_PARTICLES
                    if kind is not None and _reads_as(text[start:end].strip(), kind, particles, columns[index]):
                        explanation = AnalysisExplanation(self.name, SCORE, pattern_name=f"{kind.lower()} column")
                        results.append(RecognizerResult(kind, start, end, SCORE, explanation))
                position = line_end + 1
        return results

    def _typed_column_cells(self, text: str, found: set[tuple[int, int]]) -> list[RecognizerResult]:
        """Cells of the columns whose values say they hold people or places, in delimited blocks whose header names
        no such column (a header in a language the keys do not hold: "Etunimi;Sukunimi;Kotikunta") or that have none
        (rows pasted from a spreadsheet): ``_value_columns``; less the cells a header's key has `found` already."""
        results = []
        for delimiter in _VALUE_DELIMITERS:
            if text.count(delimiter) < 2 * (_MIN_VALUE_COLUMNS - 1) or not _TWO_ROWS[delimiter].search(text):
                continue
            for rows in _delimited_blocks(text, delimiter):
                for kind, start, end in _value_columns(text, rows):
                    if (start, end) in found:
                        continue
                    found.add((start, end))
                    explanation = AnalysisExplanation(self.name, SCORE, pattern_name=f"{kind.lower()} typed column")
                    results.append(RecognizerResult(kind, start, end, SCORE, explanation))
        return results

    @staticmethod
    def _name_end(text: str, start: int, end: int, particles: frozenset[str], capitals: bool = False) -> int | None:
        """Where the longest run of words from `start` that reads as a name ends; with `capitals` (a name's key), a
        run in capitals is read as its words capitalised."""
        words = list(re.finditer(r"\S+", text[start:end]))[:_MAX_WORDS]
        for count in range(len(words), 0, -1):
            stop = start + words[count - 1].end()
            value = text[start:stop]
            if _reads_as_name(value.title() if capitals and value.isupper() else value, particles):
                return stop
        return None


# Delimited blocks typed by their values (``_value_columns``): rows of three cells or more between commas,
# semicolons, tabs or pipes (a pipe-delimited export, not a table of pipes: its lines open with no pipe), two rows or
# more with as many cells each (a header and a row, or rows alone).
_VALUE_DELIMITERS = (",", ";", "\t", "|")
_MIN_VALUE_COLUMNS = 3
_MAX_ROW_LENGTH = 400  # a line longer than this is prose or a minified payload, not a spreadsheet's row


# Two lines in a row with two delimiters or more each, no longer than a row (``_MAX_ROW_LENGTH``): the cheap test
# before a text's lines are split, searched from a delimiter (the regex's first character), each try bounded.
def _two_rows(d: str) -> re.Pattern[str]:
    d, other = re.escape(d), rf"[^\n{re.escape(d)}]{{0,{_MAX_ROW_LENGTH}}}"
    return re.compile(rf"{d}{other}{d}[^\n]{{0,{_MAX_ROW_LENGTH}}}\n{other}{d}{other}{d}")


_TWO_ROWS = {d: _two_rows(d) for d in _VALUE_DELIMITERS}
_VALUE_CELLS = {d: re.compile(rf'"(?:[^"\n]|"")*"|[^{re.escape(d)}\n]*') for d in _VALUE_DELIMITERS}
# A header's cell: letters, spaces and the marks column names hold ("Nr.", "E-mail", "Nom complet"); no digits (a row
# of values has a street's number or a phone: "Imhof;Violeta;Drubstraße 7/5;Klaipėda").
_HEADER_CELL = re.compile(r"[^\W\d_][^\W\d]*(?:[ .()/#°-]+[^\W\d]*)*")
# The share of a column's cells that must be known for the column to be typed by them: a given name of the name
# lists opening a name-pair column's cells (``known_names().is_first``), a place of the gazetteer in a place column's.
_KNOWN_SHARE = 0.6
_MAX_PAIR_WORDS = 3  # a given name or a surname in its own cell: "Ana Vitória", "García López", "van der Berg"
_FULL_NAME_WORDS = (2, 4)

Row = list[tuple[int, int]]


def _delimited_cells(line_start: int, line: str, delimiter: str) -> Row:
    """The (start, end) of each cell of a line (its quotes kept), offsets into the text."""
    if '"' not in line:
        cells, position = [], line_start
        for part in line.split(delimiter):
            cells.append((position, position + len(part)))
            position += len(part) + 1
        return cells
    cells = []
    position = 0
    while True:
        cell = _VALUE_CELLS[delimiter].match(line, position)
        end = cell.end() if cell else position
        cells.append((line_start + position, line_start + end))
        if end >= len(line) or line[end] != delimiter:
            return cells
        position = end + 1


def _delimited_blocks(text: str, delimiter: str) -> Iterator[list[Row]]:
    """Runs of two lines or more that split into as many cells each, three or more, under `delimiter`."""
    block: list[Row] = []
    position = 0
    for line in text.split("\n"):
        line_start, position = position, position + len(line) + 1
        line = line[:-1] if line.endswith("\r") else line
        count = line.count(delimiter)
        if (count < _MIN_VALUE_COLUMNS - 1 or len(line) > _MAX_ROW_LENGTH
                or (delimiter == "|" and line.lstrip().startswith("|"))):  # fmt: skip
            if len(block) > 1:
                yield block
            block = []
            continue
        cells = _delimited_cells(line_start, line, delimiter)
        if block and len(cells) != len(block[0]):
            if len(block) > 1:
                yield block
            block = []
        if len(cells) >= _MIN_VALUE_COLUMNS:
            block.append(cells)
    if len(block) > 1:
        yield block


def _cell_value(text: str, start: int, end: int) -> tuple[int, int]:
    """A cell's value: less the spaces and the quotes around it."""
    while start < end and text[start] in " \t\"'":
        start += 1
    while end > start and text[end - 1] in " \t\"'\r":
        end -= 1
    return start, end


def _in_gazetteer(value: str) -> bool:
    key = " ".join(word.casefold() for word in _NAME_PART.findall(value))
    return key in gazetteer() or fold(key) in folded_gazetteer()


def _opens_with_first_name(value: str) -> bool:
    words = [word for word in _NAME_PART.findall(value) if word.casefold() not in _PARTICLES]
    return bool(words) and known_names().is_first(words[0])


def _known_name(value: str) -> bool:
    names = known_names()
    return any(names.is_name(word) for word in _NAME_PART.findall(value) if word.casefold() not in _PARTICLES)


def _value_columns(text: str, rows: list[Row]) -> Iterator[tuple[str, int, int]]:
    """(kind, start, end) for the cells of a delimited block's columns that its values type:

    - a column whose every cell reads as a place's name, most of them places of the gazetteer: LOCATION;
    - a pair of neighbouring columns (no place column) whose every cell reads as a short name, most of them one
      word, that together look like a given name and a surname in their own cells, in either order: half of one
      column's cells or more open with a known given name and half of the pair's cells or more hold a known name
      (names-dataset; both cells of a single row), or the header names one of the two a person's and the other
      nothing: PERSON;
    - a column whose every cell reads as a full name of two to four words, most opening with a known given name:
      PERSON.

    A first row of header-shaped cells ("Fornavn;Etternavn;Poststed") is a header: it is neither counted nor typed
    (the name lists hold header words people typed into name fields: "Förnamn"). The language of the header does
    not matter: the values say what the columns hold."""
    spans = [[_cell_value(text, start, end) for start, end in row] for row in rows]
    header = all(_HEADER_CELL.fullmatch(text[start:end]) for start, end in spans[0])
    data = spans[1:] if header else spans
    count = len(data)
    needed, half = max(1, -(-count * _KNOWN_SHARE // 1)), -(-count // 2)  # ceil(count * share), ceil(count / 2)
    values = [[text[start:end] for start, end in (row[column] for row in data)] for column in range(len(spans[0]))]
    kinds: dict[int, str] = {}
    for column, cells in enumerate(values):
        places = sum(map(_in_gazetteer, cells))
        if (count > 1 and places >= needed and places > sum(map(_opens_with_first_name, cells))
                and all(map(_place_cell, cells))):  # fmt: skip
            kinds[column] = "LOCATION"
    # The columns the header names (``_column_kind``): a name's column makes its neighbour of one-word names the
    # name's other part ("nom,prénom": the surname's key is known, the given name's need not be).
    keyed = [_column_kind(text[start:end].lower()) if header else None for start, end in spans[0]]
    # A single row's place is kept out of the pairs too (the name lists hold "Albania", "Zürich" as given names).
    persons = [column not in kinds and all(map(_person_cell, cells)) and not (count == 1 and _in_gazetteer(cells[0]))
               for column, cells in enumerate(values)]  # fmt: skip
    for column in range(len(values) - 1):
        pair = (values[column], values[column + 1])
        if not (persons[column] and persons[column + 1]):
            continue
        if not all(sum(len(_name_words(value)) == 1 for value in side) >= half for side in pair):
            continue
        if not all(len(_name_words(value)) <= _MAX_PAIR_WORDS for side in pair for value in side):
            continue
        openers = max(sum(map(_opens_with_first_name, side)) for side in pair)
        known = sum(_known_name(value) for side in pair for value in side)
        named = "PERSON" in keyed[column : column + 2] and None in keyed[column : column + 2]
        if named or (openers >= half and known >= (2 if count == 1 else count)):
            kinds[column] = kinds[column + 1] = "PERSON"
    for column, cells in enumerate(values):
        if column in kinds or count < 2 or not persons[column]:
            continue
        if (all(_FULL_NAME_WORDS[0] <= len(value.split()) <= _FULL_NAME_WORDS[1] for value in cells)
                and sum(map(_opens_with_first_name, cells)) >= needed):  # fmt: skip
            kinds[column] = "PERSON"
    for column, kind in kinds.items():
        for row in data:
            start, end = row[column]
            yield kind, start, end


def _name_words(value: str) -> list[str]:
    return [word for word in value.split() if word.casefold() not in _PARTICLES]


def _place_cell(value: str) -> bool:
    """A cell that reads as a place's name with no key to say so: capitalised ("text", "uri" and "date" are a jCard's
    value types, and towns too)."""
    return value[:1].isupper() and _reads_as(value, "LOCATION", _PLACE_PARTICLES, "")


def _person_cell(value: str) -> bool:
    """A cell that reads as a person's name with no key to say so: capitalised but for its particles ("de Graaf"; in
    capitals, read as its words capitalised)."""
    words = _name_words(value)
    return (len(value) >= 2 and bool(words) and words[0][0].isupper()
            and _reads_as(value.title() if value.isupper() else value, "PERSON", _PARTICLES, ""))  # fmt: skip


_NON_SPACE = re.compile(r"\S+")
_COMMA_GIVEN = re.compile(rf",[ \t]+{_NAME_WORD}(?: {_NAME_WORD}){{0,2}}")


def _given_after_comma(text: str, start: int, end: int, particles: frozenset[str]) -> int | None:
    """Where a bare value that stopped at a comma ends when the words after the comma are the given names of "Last,
    First" ("applicant_name=YÊN, Vuong"): the longest run of them that reads so, or None."""
    given = _COMMA_GIVEN.match(text, end)
    if given is None:
        return None
    for stop in sorted((word.end() for word in _NON_SPACE.finditer(text, end + 1, given.end())), reverse=True):
        if _reads_as(text[start:stop], "PERSON", particles, ""):
            return stop
    return None


# Keys and values in the syntaxes other than "key: value", each looked for only where its marker occurs:
# - a pandas Series or a fixed-width record printed as key, two or more spaces, value to the line's end (a notebook's
#   output keeps each line as a JSON string: '"signatory       PEGUERO, Eliasib\\n",');
# - a line a shell appends to a file: the file's name is the key ("echo 'M. Alekseeva' >> ~/notes/requester.txt");
# - a multipart form's part: its name, its headers, a blank line, the value (RFC 7578);
# - a LaTeX command's one argument ("\\signature{Thinnes van Abrantes}", "\\author{...}");
# - a table row of two cells, key and value, as Jira and Markdown write a record ("|signatory|Takamura, Chika|"),
#   unless a delimiter row follows it (a header);
# - a JSON object of a label and a value (``_LABELLED_VALUE``).
_ALIGNED = re.compile(r'(?m)^[ \t]*"?(?P<key>[A-Za-z][\w.-]{1,40})[ \t]{2,}(?P<value>[^\t\n"\\]{2,60}?)[ \t]*'
                      r'(?:\\n|"|\r?$)')
_ALIGNED_LINES = AtLineStarts(_ALIGNED.pattern)
_ECHO_TO_FILE = re.compile(r"(?:echo|printf)[ \t]+(?:-[a-zA-Z]+[ \t]+)?"
                           r"(?:'(?P<sq>[^'\n]{2,60})'|\"(?P<dq>[^\"\n]{2,60})\")[ \t]*>>?[ \t]*"
                           r"[^\s;|&]*?(?P<key>[A-Za-z][\w-]*)(?:\.\w{1,5})?(?=[\s;|&)]|\Z)")
_FORM_PART = re.compile(r'form-data;[ \t]*name="(?P<key>[^"\n]{1,40})"[^\n]*\n(?:[\w-]+:[^\n]*\n)*\r?\n'
                        r"(?P<value>[^\r\n]{2,60})")
_LATEX_COMMAND = re.compile(r"\\(?P<key>[A-Za-z]+)\{(?P<value>[^{}\\\n]{2,60})\}")
# A JSON object of a label and its value, as form builders, CRMs' custom properties and issue trackers' custom fields
# write a record's fields (``{"label": "Contact", "value": "K. Khelil"}``, ``{"name": "city", "value": "Lyon"}``).
_LABELLED_VALUE = re.compile(r'"(?:label|name|key|field|title|property)"[ \t]*:[ \t]*"(?P<key>[^"\n]{1,40})"[ \t]*,'
                             r'[ \t\r\n]*"value"[ \t]*:[ \t]*"(?P<value>[^"\n]{2,60})"')  # fmt: skip
_KEY_VALUE_ROW = re.compile(r"(?m)^[ \t]*\|(?!\|)[ \t]*(?P<key>[^|\n]{1,40}?)[ \t]*\|(?!\|)[ \t]*"
                            r"(?P<value>[^|\n]{2,60}?)[ \t]*\|[ \t]*\r?$")


def _syntax_pairs(text: str) -> list[tuple[str, int, int, str]]:
    """(key, value start, value end, what wrote it) for each pair of the syntaxes above that ``text`` holds."""
    pairs: list[tuple[str, int, int, str]] = []
    if "  " in text:
        aligned = _ALIGNED_LINES.finditer(text)
        pairs += [(m.group("key"), *m.span("value"), "aligned value") for m in aligned]
    if ">" in text and ("echo" in text or "printf" in text):
        for match in _ECHO_TO_FILE.finditer(text):
            value = "sq" if match.group("sq") is not None else "dq"
            pairs.append((match.group("key"), *match.span(value), "file name"))
    if "form-data" in text:
        pairs += [(m.group("key"), *m.span("value"), "form part") for m in _FORM_PART.finditer(text)]
    if "\\" in text and "{" in text:
        pairs += [(m.group("key"), *m.span("value"), "latex command") for m in _LATEX_COMMAND.finditer(text)]
    if '"value"' in text:
        pairs += [(m.group("key"), *m.span("value"), "labelled value") for m in _LABELLED_VALUE.finditer(text)]
    if "|" in text:
        for match in _KEY_VALUE_ROW.finditer(text):
            if _TABLE_DELIMITER.match(text, match.end() + 1) is None:
                pairs.append((match.group("key").strip(), *match.span("value"), "key-value row"))
    return pairs


# A Markdown table's delimiter row, on its own line: "|---|:---:|", "--- | ---".
_TABLE_DELIMITER = re.compile(r"(?m)^[ \t]*\|?(?:[ \t]*:?-{3,}:?[ \t]*\|)+(?:[ \t]*:?-{3,}:?[ \t]*)?\r?$")


def _column_kind(name: str) -> str | None:
    """PERSON or LOCATION for a column whose (lower-case) name is a person or place key, else None."""
    return "PERSON" if _PERSON_KEY.fullmatch(name) else "LOCATION" if _PLACE_KEY.fullmatch(name) else None


def _split_row(line: str) -> list[str]:
    """The cells of a table row, without its outer pipes."""
    inner = line.strip()
    inner = inner[1:] if inner.startswith("|") else inner
    return (inner[:-1] if inner.endswith("|") else inner).split("|")


def _row_cells(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The (start, end) of each cell of the table row text[start:end], without its outer pipes."""
    bars = [i for i in range(start, end) if text[i] == "|"]
    if not bars:
        return []
    row = text[start:end]
    edges = [start - 1 if not row.lstrip().startswith("|") else bars.pop(0), *bars]
    if not row.rstrip().endswith("|"):
        edges.append(end)
    return [(left + 1, right) for left, right in itertools.pairwise(edges)]
