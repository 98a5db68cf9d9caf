"""Lower-case chat: places after a location word that the rules used to pass over.

A city WordNet writes capitalised in every sense counts though English text names it often ("im in miami"); a person's
name after "to" is the place after a verb of travel ("flying to eugene"), not after "talked to"; a word's combining
marks stay in it ("i̇sparta": Turkish "İsparta" lower-cased), and Vietnamese letters are Latin ones ("bến tre"); "St."
before a name is the gazetteer's "st"; French and Spanish "de" after a verb of coming back is "from" for a country or
US state too; a proper noun's plural ("the dakotas") does not make a US state's word a common noun; a name found
without its diacritics counts after "à" or "en" when neither spelling is a word of a dictionary ("je pars à trikala"),
or when accented unlike the gazetteer and no word of a chat language ("à tràpani"), unlike "je suis en réunion"; a name
of several words typed as one counts after a location word ("flying to greenbay"). With no cue, in an English line, a
word WordNet writes capitalised in every sense with a place as its first sense counts ("oakland food >>>")."""

from collections.abc import Callable

import pytest


@pytest.mark.parametrize(
    ("text", "place"),
    [("im in miami this week", "miami"),  # frequent in English as the city's name only
     ("back in pittsburgh lol", "pittsburgh"),
     ("flying to eugene tmrw", "eugene"),  # a first name after a verb of travel and "to"
     ("road trip to verdun!!", "verdun"),
     ("moving to florence in june", "florence"),
     ("flying to i̇sparta tmrw", "i̇sparta"),  # "İsparta".lower(): an i and a combining dot above
     ("im in st. louis this week", "st. louis"),
     ("I live in St. Louis now", "St. Louis"),
     ("on rentre de france ce soir", "france"),
     ("acabo de volver de new jersey", "new jersey"),
     ("el equipo de south dakota lo ve", "south dakota"),
     ("je pars à trikala demain", "trikala"),  # Tríkala typed without its accent
     ("vivo en trikala desde hace años", "trikala"),
     ("ich komme aus trenton", "trenton"),  # German "komme aus", a verb of origin
     ("anyone been to irving?", "irving"),
     ("we live in bến tre now", "bến tre"),  # Latin Extended Additional letters (Vietnamese)
     ("im in ben tre this week", "ben tre"),
     ("je pars à tràpani demain", "tràpani"),  # accented unlike the gazetteer's "Trapani"
     ("flying to greenbay tmrw", "greenbay"),  # "Green Bay" typed as one word
     ("ich fliege morgen nach tanjungpandan", "tanjungpandan"),
     ("heading to burundi next week", "burundi"),  # a WordNet adjective too, but a proper noun only
     ("oakland food >>>", "oakland"),  # no cue: WordNet writes it capitalised only, its first sense a place
     ("prices are nuts, abilene especially", "abilene")],
)  # fmt: skip
def test_a_lower_case_place_after_a_location_word_counts(
    find_places: Callable[[str], list[str]], text: str, place: str
) -> None:
    assert find_places(text) == [place]


@pytest.mark.parametrize(
    "text",
    ["im in reading this week",  # a frequent English word WordNet writes in lower case too
     "talked to eugene yesterday",  # "to" a person
     "i'll get back to eugene tomorrow",
     "the email is from eugene",  # "is from": a message is from a person as often
     "tôi đi về nhà hôm nay",  # Vietnamese words, no place
     "il est en congé",  # a French word with an accent after "en"
     "À l'âge de 92 ans.",  # an elided article and a word ("Lage" is a German word and a town)
     "Greenbay is two hours away by train.",  # a joined name needs a location word
     "the cafe\u0301 in town",  # a combining mark in a word that is no place
     "fecha de nacimiento 1990",  # "de" with no verb of coming back: "of"
     "elle rentre de vacances",
     "je suis en réunion",  # a French word, "reunion" an English one
     "lets meet at the list. louis said ok"],  # a period after a word that abbreviates no place word
)  # fmt: skip
def test_a_lower_case_word_that_reads_otherwise_is_no_place(
    find_places: Callable[[str], list[str]], text: str
) -> None:
    assert find_places(text) == []
