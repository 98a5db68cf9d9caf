"""People in chat typed in lower case: a known first name before a surname no list holds, a surname the English
dictionary also lists as a noun, lower-case Cyrillic and Greek names; and what reads as ordinary chat, not a name:
a verb before a name, a word said twice ("ty ty"), an introduction that tells a state ("i'm legit lol")."""

from __future__ import annotations

import pytest

from gateway.guardrails import PiiAnalyzer


def people(analyzer: PiiAnalyzer, text: str) -> list[str]:
    return [text[f.start : f.end] for f in analyzer.analyze(text) if f.entity_type == "PERSON" and f.score >= 0.5]


@pytest.mark.parametrize(
    ("text", "name"),
    [
        # a known first name, then a surname the list does not hold
        ("just got off a call with giulia bertolazzi", "giulia bertolazzi"),
        ("saw piotr gradzik at the gym lol", "piotr gradzik"),  # not "saw piotr": a verb is no first name
        # a surname (or first name) the dictionary also holds as a noun, beside a known name
        ("drove sandra baker to the airport", "sandra baker"),
        ("waiting on kellie roberts to sign off", "kellie roberts"),
        # lower-case Cyrillic and Greek, one word ending as family names do
        ("call with олег смирнов tmrw", "олег смирнов"),
        ("our contact over there is неделяна крушовска", "неделяна крушовска"),
        ("also φρίξος μιχαηλίδης", "φρίξος μιχαηλίδης"),
    ],
)
def test_lower_case_names_in_chat(analyzer, text, name):
    assert name in people(analyzer, text)


@pytest.mark.parametrize(
    "text",
    [
        "ty ty",  # thanks, said twice
        "thx thx",
        "hey hey",
        "ok gracias",  # a two-letter dictionary word beside a surname
        "rose gold or silver?",  # two dictionary words
        "id says 1966-03-09 so i'm legit lol",  # an introduction that tells a state
        "i'm gonna be late",
        "je suis désolé",
        "ich bin müde heute",
        "anna haha that was wild",  # slang the model's vocabulary holds is no surname
        "ok спасибо большое lol",  # Cyrillic words that end as no family name does
    ],
)
def test_ordinary_chat_names_nobody(analyzer, text):
    assert [name for name in people(analyzer, text) if name != "anna"] == []  # "anna" alone may well be a name
