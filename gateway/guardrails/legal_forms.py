"""Whether a name ends in a company's legal form ("ACME COMERCIO LTDA", "Comercializadora del Norte, S.A. de C.V.").

A record's name slot holds a person or an organisation alike (an X12 NM1 segment, a SWIFT party field, an ISO 20022
party's ``Nm``); an organisation's name ends in the abbreviation of its legal form. The table holds the abbreviations
of ISO 20275's Entity Legal Forms code list (GLEIF's ELF list) that the largest jurisdictions register, written
without dots and compared case-folded; a form of several words ("S.A. de C.V.", "Sp. z o.o.", "Sdn. Bhd.") is matched
as the name's last words.
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
