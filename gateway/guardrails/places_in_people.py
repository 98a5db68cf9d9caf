"""NER people that are a place with ordinary words beside it: "Visitámos Quetzaltenango", "Standplaats Bāndarban",
"Toimipiste Anjala", "Kantoor Haarlem".

Both NER models run a place into the capitalised words before it (a verb opening a sentence, a label, a noun), and
where both do, their agreement confirms a person no name list knows (``people.confirmed``). When the gazetteer or a
field found a place inside such a person and no word of it is a known name (names-dataset, no stop word), the place is
what is there: both models read the same capitalised words, so their agreement is no evidence. A known name anywhere
in it keeps the person ("Alma Knappe", "Kim Ji-hu", "Hansjürgen Washington": places that are also names).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from gateway.guardrails.findings import Finding
from gateway.guardrails.people import is_stop_word
from gateway.guardrails.person_names import known_names

_WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")


def reads_as_place(text: str, person: Finding, places: Iterable[Finding]) -> bool:
    """Whether `person` holds a place of `places` and more, and no word of it is a known name."""
    if not any(person.start <= p.start and p.end <= person.end and p.end - p.start < person.end - person.start
               for p in places):  # fmt: skip
        return False
    names = known_names()
    return not any(len(word) > 1 and not is_stop_word(word) and names.is_name(word)
                   for word in _WORD.findall(text, person.start, person.end))  # fmt: skip
