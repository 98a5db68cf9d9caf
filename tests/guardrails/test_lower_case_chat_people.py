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
        # names the dictionary holds as nouns alone (WordNet's people), no verb or adjective: names, not words
        ("lol samuel schubert 😂", "samuel schubert"),
        ("just got off a call with lucas nielsen", "lucas nielsen"),
        ("drove bruno lebrecq to the airport", "bruno lebrecq"),
        # a double surname: each part a known surname or a word no dictionary holds
        ("kalevi auvinen-jäntti is out sick", "kalevi auvinen-jäntti"),
        ("waiting on tamilla vəziroğlu-əfəndizadə to sign off", "tamilla vəziroğlu-əfəndizadə"),
        ("pues simona říhová-sedláčková y ya", "simona říhová-sedláčková"),
        # lower-case Cyrillic and Greek, one word ending as family names do
        ("call with олег смирнов tmrw", "олег смирнов"),
        ("our contact over there is неделяна крушовска", "неделяна крушовска"),
        ("also φρίξος μιχαηλίδης", "φρίξος μιχαηλίδης"),
    ],
)
def test_lower_case_names_in_chat(analyzer, text, name):
    assert name in people(analyzer, text)


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("shoutout to valérie for fixing the build", "valérie"),  # an English stop word ends a lower-case name
        ("tell pintusorn tungkasethakul i said hi", "pintusorn tungkasethakul"),
        ("hey it's pascual again, still waiting", "pascual"),  # nor does a contraction before it open one
        ("i'm tomasz btw", "tomasz"),  # a word with no vowel is a chat abbreviation
        ("thanks anna de souza for the help", "anna de souza"),  # a particle is no English stop word
    ],
)
def test_a_cued_lower_case_name_is_only_the_name(analyzer, text, name):
    assert people(analyzer, text) == [name]


@pytest.mark.parametrize(
    "text",
    [
        "ty ty",  # thanks, said twice
        "thx thx",
        "hey hey",
        "ok gracias",  # a two-letter dictionary word beside a surname
        "rose gold or silver?",  # two dictionary words
        "georgia vibes tonight lol",  # a country's or a state's name is a place's, whatever WordNet says
        "the schubert concert was great",  # a composer's name before a noun that is also a verb
        "holly tree in the yard",
        "flying to i̇sparta tmrw",  # a combining mark ("i̇": a dotted capital I lower-cased) splits no word
        "id says 1966-03-09 so i'm legit lol",  # an introduction that tells a state
        "i'm gonna be late",
        "je suis désolé",
        "ich bin müde heute",
        "anna haha that was wild",  # slang the model's vocabulary holds is no surname
        "ok спасибо большое lol",  # Cyrillic words that end as no family name does
        "can karen follow-up on this",  # a compound of dictionary words is no double surname
        "did maria check-in at the desk",
        "is john co-op or not",
    ],
)
def test_ordinary_chat_names_nobody(analyzer, text):
    assert [name for name in people(analyzer, text) if name != "anna"] == []  # "anna" alone may well be a name
