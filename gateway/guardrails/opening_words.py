"""A frequent word that opens a line or a sentence is no person's name, nor the first word of one.

At a line's or a sentence's start every word is capitalised, so the case that tells a name from a word elsewhere
says nothing there, and the NER models read the opening word of a message in a language they were not trained on
as a name: a first-person verb ("Vendo Renault Clio", "Szukam mieszkania", "Verkaufe ..."), a greeting or a
closing ("Hej, er sofaen ...", "Abraço, Beatriz"), an adjective ("Tolle Ferienwohnung"), a noun ("Biuro
zamknięte"). Such a word is a frequent word of a language chat is written in (``frequent_words``: wordfreq's
snapshot of eight languages), and no common given name nor family name of names-dataset (``person_names``):
"Paz", "Rosa", "Mark", "Costa" and "Bianchi" open sentences as names and stay. A person that is only such a word
is dropped; one that goes on after it ("Selon Matthieu", "Declaración de Rosemarie Klingelhöfer") starts at the
next capitalised word, unless the opening word is a known first name too ("Lucca Lima"). A title opens a name
("Herr Weller"), and a full stop after a title or an initial ends no sentence ("dott. Eco").
"""

from __future__ import annotations

import dataclasses
import re

from gateway.guardrails.findings import Finding
from gateway.guardrails.frequent_words import frequent_in_any
from gateway.guardrails.name_cues import TITLE_WORDS
from gateway.guardrails.person_names import known_names

# The first word of a finding, and the gap after it to the next word.
_FIRST_WORD = re.compile(r"[^\W\d_]+(?:[ \t]+|\Z)")
# What stands before a line's or a sentence's first word: the text's start, a line break, or a sentence's end mark
# and a space (with the word before a full stop, to tell an abbreviation's), with optional spaces or tabs before it.
_OPENING_BEFORE = re.compile(r"(?:\A|\n|(?:(\w*)\.|[!?…])[ \t])[ \t]*\Z")
_REACH = 24  # characters looked at before a finding for the opening
_WORD = re.compile(r"[^\W\d_]+")


def opens_a_sentence(text: str, start: int) -> bool:
    """Whether `start` is the first word of the text, of a line or of a sentence; a full stop after a title or an
    initial ("dott. Eco", "J. Smith") ends none."""
    before = _OPENING_BEFORE.search(text, max(0, start - _REACH), start)
    if before is None:
        return False
    abbreviated = before.group(1)
    return abbreviated is None or (len(abbreviated) > 1 and abbreviated.casefold() not in TITLE_WORDS)


def is_opening_word(word: str) -> bool:
    """A capitalised word frequent in a chat language and no title, common given name nor known family name."""
    if not word[:1].isupper():
        return False
    folded = word.casefold()
    names = known_names()
    return (folded in frequent_in_any() and folded not in TITLE_WORDS
            and folded not in names.given and folded not in names.last)  # fmt: skip


def without_opening_words(text: str, findings: list[Finding]) -> list[Finding]:
    """The findings less each PERSON that is one opening word at a line's or sentence's start (``is_opening_word``);
    a PERSON of more words whose opening word is no known first name either starts at its next capitalised word, or
    is dropped without one ("Chers parents")."""
    if not any(f.entity_type == "PERSON" for f in findings):
        return findings
    kept: list[Finding] = []
    for finding in findings:
        first = _FIRST_WORD.match(text, finding.start, finding.end) if finding.entity_type == "PERSON" else None
        if first is None or not opens_a_sentence(text, finding.start):
            kept.append(finding)
            continue
        word = first.group().rstrip(" \t")
        if not is_opening_word(word):
            kept.append(finding)
        elif first.end() < finding.end:
            if known_names().is_first(word):  # "Lucca Lima": a first name before a name may be the person's own
                kept.append(finding)
                continue
            rest = next((w for w in _WORD.finditer(text, first.end(), finding.end) if w.group()[0].isupper()), None)
            if rest is not None:
                kept.append(dataclasses.replace(finding, start=rest.start()))
    return kept
