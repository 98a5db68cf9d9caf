"""Whether a name ends in a company's legal form ("ACME COMERCIO LTDA", "Comercializadora del Norte, S.A. de C.V.").

A record's name slot holds a person or an organisation alike (an X12 NM1 segment, a SWIFT party field, an ISO 20022
party's ``Nm``); an organisation's name ends in the abbreviation of its legal form. The table holds the abbreviations
of ISO 20275's Entity Legal Forms code list (GLEIF's ELF list) that the largest jurisdictions register, written
without dots and compared case-folded; a form of several words ("S.A. de C.V.", "Sp. z o.o.", "Sdn. Bhd.") is matched
as the name's last words.

``form_after``, ``form_before`` and ``is_written_form`` read a form in running text, where a company's name stands
beside people's (an e-mail signature's "Brightmoor SAS", "Polaris Budownictwo sp. z o.o.", "Trivium Ltda."): there
the form must be written as registries write it, in capitals ("SAS", "BV", "N.V."), with a capital inside ("GmbH",
"ApS"), capitalised and of three letters or more ("Ltda", "Oyj", "Inc") or in lower case with its dots ("sp. z o.o.",
"s.r.o."), so that the words "as", "me" and "et" and surnames such as "Ee" or "Ou" are no form.
"""

from __future__ import annotations

import re

# ISO 20275 ELF abbreviations, dots and spaces removed, case-folded, by the jurisdictions that register them.
LEGAL_FORMS = frozenset({
    # English-speaking jurisdictions (US, GB, IE, CA, AU, NZ, IN, SG, MY, ZA)
    "inc", "incorporated", "corp", "corporation", "co", "company", "llc", "lllp", "llp", "lp", "ltd", "limited",
    "plc", "pllc", "pc", "pty", "ptyltd", "pte", "pteltd", "bhd", "sdnbhd", "cic", "dac", "uc", "ulc",
    # German-speaking (DE, AT, CH, LI, LU)
    "gmbh", "ag", "kg", "kgaa", "ohg", "gbr", "ug", "ev", "eg", "se", "gmbhcokg",
    # Romance languages (FR, BE, LU, ES, PT, BR, IT, RO, Latin America)
    "sa", "sas", "sasu", "sarl", "eurl", "sca", "scs", "snc", "sci", "scop", "sl", "slu", "sll", "sad", "srl",
    "spa", "sapa", "ss", "ltda", "eireli", "me", "epp", "sac", "saa", "srlcv", "sadecv", "sabdecv", "sab", "sapi",
    "sapidecv", "sc", "cia", "cialtda", "sae", "lda", "unipessoallda",
    # Dutch, Nordic, Baltic (NL, BE, SE, DK, NO, FI, IS, EE, LV, LT)
    "bv", "nv", "vof", "cv", "ab", "publab", "as", "asa", "aps", "ivs", "amba", "oy", "oyj", "ky", "ehf", "hf", "ou",
    "sia", "uab",
    # Central and Eastern Europe, Greece, Turkey (PL, CZ, SK, HU, SI, HR, RS, BG, GR, CY, UA, RU, TR)
    "spzoo", "spj", "spk", "sro", "vos", "kft", "zrt", "nyrt", "bt", "kkt", "doo", "dd", "ad", "ead", "ood", "eood",
    "et", "ae", "epe", "ike", "oe", "ee", "tov", "pat", "prat", "ooo", "zao", "oao", "pao", "ao", "ltdsti", "sti",
    # Asia (JP, CN, ID, PH, TH, VN, KR)
    "kk", "gk", "yk", "pt", "tbk", "jsc", "coltd", "pcl",
    # sole traders and simplified companies of DE and IT (eingetragener Kaufmann, S.r.l. semplificata)
    "ek", "ekfm", "ekfr", "srls",
})  # fmt: skip
_LONGEST_FORM_WORDS = 4  # "S.A.B. de C.V.", "Sp. z o.o."
_WORD = re.compile(r"[^\W_]+(?:[.'][^\W_]+)*\.?|&")


def ends_in_legal_form(name: str) -> bool:
    """Whether the name's last one to four words, dots and spaces removed, are a legal form of the table."""
    words = _WORD.findall(name)
    for count in range(1, min(_LONGEST_FORM_WORDS, len(words) - 1) + 1):
        form = "".join(words[-count:]).replace(".", "").casefold()
        if form in LEGAL_FORMS:
            return True
    return False


# Forms written before the company's name ("PT Maju Jaya"), never after it; and the two-letter forms registries
# write capitalised rather than in capitals.
_PREFIX_FORMS = frozenset({"pt"})
_CAPITALISED_PAIRS = frozenset({"oy", "co"})
_FORM_SPACE = re.compile(r"[ \t\u00a0]*,?[ \t\u00a0]*")
_LINE_WORD = re.compile(r"[^\W_]+(?:[.'][^\W_]+)*\.?|&|[ \t\u00a0]+")
_FORM_REACH = 24
_MAX_ABBREVIATION_LETTERS = 5  # "SARL", "Ltda.", "S.A. de C.V."; not "Company", "Limited"
_INNER_DOT = re.compile(r"[^\W_]\.[^\W_]")


def is_written_form(form: str) -> bool:
    """Whether `form` (one to four words as written) is a legal form of the table written as registries write it
    (the module's docstring): "SAS", "GmbH", "Ltda.", "sp. z o.o."; not "as", "Ee", "Sa"."""
    words = _WORD.findall(form)
    if not words or len(words) > _LONGEST_FORM_WORDS or "&" in words:
        return False
    folded = "".join(words).replace(".", "").casefold()
    if folded not in LEGAL_FORMS or folded in _PREFIX_FORMS:
        return False
    first = words[0].replace(".", "")
    dotted = _INNER_DOT.search(form) is not None
    if form.islower():
        return dotted  # "sp. z o.o.", "s.r.o.": a lower-case word with no dot inside is a word ("as", "me.")
    if len(words) == 1 and len(first) <= 2 and not first.isupper() and not dotted:
        return folded in _CAPITALISED_PAIRS  # "Oy", "Co"; "As", "Se", "Ee" are words or surnames
    return any(char.isupper() for char in form)


def _form_words(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The word tokens of text[start:end] with their offsets, up to the line's end."""
    words = []
    for match in _LINE_WORD.finditer(text, start, end):
        if not match.group().isspace():
            words.append((match.start(), match.end()))
    return words


# Where a form may begin and end: the prefixes and suffixes of the table's forms (dots and spaces removed), which a
# word next to a name rarely is ("weber", "anna"): the words of most names are looked at no further.
_FORM_PREFIXES = frozenset(form[:index] for form in LEGAL_FORMS for index in range(1, len(form) + 1))
_FORM_SUFFIXES = frozenset(form[index:] for form in LEGAL_FORMS for index in range(len(form)))
_FIRST_TOKEN = re.compile(r"[^\W_]+")


def form_after(text: str, end: int) -> bool:
    """Whether a written legal form follows `end` on its line, after spaces and perhaps a comma, and ends there
    ("Brightmoor| SAS", "Nexora Consultoria| Lda.", "Polaris Budownictwo| sp. z o.o."); after a comma, only an
    abbreviation ("Acme, Inc."; "Anna Gruber, Company Secretary" names a role)."""
    space = _FORM_SPACE.match(text, end)
    start = space.end() if space else end
    comma = "," in text[end:start]
    first = _FIRST_TOKEN.match(text, start)
    if first is None or first.group().casefold() not in _FORM_PREFIXES:
        return False
    line_end = text.find("\n", start, start + _FORM_REACH)
    words = _form_words(text, start, line_end if line_end >= 0 else min(len(text), start + _FORM_REACH))
    for count in range(1, min(_LONGEST_FORM_WORDS, len(words)) + 1):
        form_end = words[count - 1][1]
        form = text[start:form_end]
        if comma and sum(char.isalpha() for char in form) > _MAX_ABBREVIATION_LETTERS:
            continue  # "Anna Gruber, Company Secretary": after a comma, a form spelled out is a role's word
        if (form_end == len(text) or not text[form_end].isalnum()) and is_written_form(form):
            return True
    return False


def form_before(text: str, start: int) -> bool:
    """Whether a written legal form ends right before `start`, after spaces and perhaps '&' ("GmbH & Co.| KG")."""
    line_start = text.rfind("\n", max(0, start - _FORM_REACH), start) + 1
    words = _form_words(text, max(line_start, start - _FORM_REACH), start)
    if words and text[words[-1][0] : words[-1][1]] == "&":
        words.pop()
    for count in range(1, min(_LONGEST_FORM_WORDS, len(words)) + 1):
        if is_written_form(text[words[-count][0] : words[-1][1]]):
            return True
    return False


def ends_in_written_form(span: str) -> bool:
    """Whether the span's last one to four words are a written legal form and a word stands before them ("Trivium
    Ltda", "Corvexa Techniek BV"), or the span is one of three letters or more ("Ltda")."""
    last = span.rsplit(maxsplit=1)[-1] if span.strip() else ""
    if last.replace(".", "").casefold() not in _FORM_SUFFIXES:
        return False
    words = _form_words(span, 0, len(span))
    if len(words) == 1:
        return len(span.replace(".", "")) >= 3 and is_written_form(span)
    for count in range(1, min(_LONGEST_FORM_WORDS, len(words) - 1) + 1):
        if is_written_form(span[words[-count][0] : words[-1][1]]):
            return True
    return False
