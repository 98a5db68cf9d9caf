"""A given name typed in lower case where chat addresses or talks about someone in the languages it is written in:
after a greeting ("hi graham"), after "à", "tegen" or the Romance personal "a" ("dile a vicenta"), as a speaker's
label ("marta: omw"), as the subject of a verb before a clause ("antonio dice que ...") or a negation ("inga nie
chciała"); a given name English writes only as a proper noun ("samuel", WordNet's prophet); a first name outside the
common ones that no frequent word of the languages read spells ("olegario"). And their look-alikes that stay
ordinary chat."""

from __future__ import annotations

import pytest

from gateway.guardrails.chat_names import addressed_names
from gateway.guardrails.people import _NOT_GIVEN_NAMES, _STOP_WORDS
from gateway.guardrails.places import english_words


def addressed(text: str) -> list[str]:
    words = english_words()
    common = words.nouns | words.verbs | words.modifiers
    found = addressed_names(text, [(0, len(text))], _STOP_WORDS, common, _NOT_GIVEN_NAMES, [])
    return [text[f.start : f.end] for f in found]


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("hi graham your scan is booked", "graham"),  # a greeting before the name
        ("cześć joanna, jestem rekruterką", "joanna"),
        ("mãe: diz à erica pra ligar pra avó", "erica"),  # "à", a person's preposition
        ("mam: zeg tegen maria dat ze oma moet bellen", "maria"),
        ("mamma: di a antonio di chiamare la nonna", "antonio"),  # the Romance personal "a"
        ("ok so riccardo dice che nichelino costa troppo", "riccardo"),  # a clause after the verb
        ("ok so esther dit qu'elle arrive demain", "esther"),
        ("kabul była niesamowita, róża nie chciała wracać", "róża"),  # a negation after the subject
        ("mum says tell samuel happy birthday", "samuel"),  # a proper noun only in WordNet
        ("nos vamos a catriel?? olegario dice que jingzhi es carísimo", "olegario"),  # a rarer listed first name
        ("qui vient samedi\nrobert peut-être", "robert"),  # a hyphenated stop word says nothing ("peut-être")
        ("marta: ok omw", "marta"),  # a speaker's label
        ("<op> lisa parrish lol", "lisa parrish"),  # a family name WordNet writes capitalised only
        ("daksh bassi and i are doing the demo", "daksh bassi"),  # one of two subjects
        ("<bot> rosa van der ploeg??", "rosa van der ploeg"),  # a family name's particles
        ("hailey\ndaniël van den nuwenhijsen\nbert", "daniël van den nuwenhijsen"),
        ("ok ill send julian thorpe round tomorrow", "julian thorpe"),  # a given name that is an adjective too
        ("martin m'a dit que c'était bon", "martin"),  # an object pronoun elided before the subject's verb
        ("ok so maria l'a vu hier", "maria"),
        ("c'est emma qui gère le dossier", "emma"),  # a relative pronoun that stands for a person
        ("did attila reply yet", "attila"),  # a common given name between a question's auxiliary and its verb
        ("does natalia know the code", "natalia"),
        ("schick das bitte an karlukhan sezer", "karlukhan sezer"),  # German's "an" after a word English lacks
        ("geef het aan natalia", "natalia"),  # Dutch's "aan"
        ("envoie ça à jakobs avotiņš stp", "jakobs avotiņš"),  # two words no pair rule holds, one a listed surname
        ("forwarding to aahil wahhaaj now", "aahil wahhaaj"),
        ("hab gerade mit espartaco villagómez telefoniert", "espartaco villagómez"),  # a verb no list holds after it
        ("moradeke olubode and i will handle it", "moradeke olubode"),  # two ASCII words no list knows, before "and i"
        ("pattamon norramon m'a dit que c'était bon", "pattamon norramon"),  # before an elided French pronoun
        ("waiting on wekesa njeri-otieno and the rest", "wekesa njeri-otieno"),  # a double-barrelled family name
        ("coffee with tumaini odera-achieng later", "tumaini odera-achieng"),
        ("se lo mandé a alexia esta mañana", "alexia"),  # a given name English holds as a noun, after "a"
        ("tu peux demander à lucas de m'appeler", "lucas"),  # after "à"; WordNet writes "Lucas" capitalised only
        ("envoie ça à comfort a. akinwale stp", "comfort a. akinwale"),  # the initial is no dictionary word "a"
    ],
)
def test_a_given_name_chat_addresses_or_talks_about_is_a_person(text: str, name: str) -> None:
    assert name in addressed(text)


@pytest.mark.parametrize(
    "text",
    [
        "hi coffee first",  # a greeting before a dictionary word
        "call a doctor please",  # "a" is English's article after an English verb
        "i'd call a rose a rose",
        "the answer dice que no",  # a clause after no name
        "agent: one sec",  # a role's label, no given name
        "mam: zeg tegen oma dat het goed is",
        "yeah enid lol",  # a proper noun that names a town as often (Enid, Oklahoma)
        "ok matelot",  # a listed first name that is a word of another language
        "ok lisa wifi lol",  # a proper noun of WordNet that is a frequent word (German "wifi") is no family name
        "the dog and i are fine",  # a thing and i
        "ok de la casa lol",  # particles before no name
        "atendente: e data de nascimento",  # a noun the name list holds, no common given name, before particles
        "the team who did it",  # a relative pronoun after no name
        "ok l'a fait",  # an elided pronoun after no name
        "will redis restart",  # a rarer listed first name between an auxiliary and a verb: a tool's name as often
        "did coffee help",
        "talk to an expert",  # "an" is English's article after an English verb
        "switch to pytest xdist",  # two words no list knows, in ASCII: a tool's and its part's names as often
        "deploy to heroku dyno",
        "switch to pytest xdist pluggy",  # three such words: no pair among the first two either
        "pytest xdist is broken again",  # two ASCII words no list knows before a verb: a tool's as often
        "heroku dyno restarted",
        "switch to pytest pytest-xdist",  # a tool and its plugin: the first word is a part of the hyphenated one
        "deploy to heroku docker-compose",  # a hyphenated word of dictionary parts
        "thanks to qwerty state-of-the-art",
        "follow-up with zxcvb e-mail",
        "kubectl argocd who cares",  # "who cares" follows anything
        "schick das bitte an alle",  # German's "an" before no name
        "vamos a data",  # a given name that is a frequent English noun ("data")
        "talk to lucas",  # a given name English holds as a noun needs a preposition English does not write
        "hope a. lot",  # a given name English spells as a verb, an initial, a dictionary word
    ],
)
def test_ordinary_chat_names_nobody(text: str) -> None:
    assert addressed(text) == []


def test_particles_take_no_phrase_of_the_language_into_the_name() -> None:
    # "di" is a family name's particle ("di stefano") and Italian's "to": "chiamare" is a frequent Italian word
    assert addressed("mamma: di a antonio di chiamare la nonna") == ["antonio"]


def test_a_verb_no_list_holds_after_a_pair_is_no_part_of_the_name() -> None:
    # the surname reader takes "telefoniert" (no dictionary here holds German verbs) as a second family name word
    assert addressed("hab gerade mit espartaco villagómez telefoniert") == ["espartaco villagómez"]


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("dylan marsh-hunt is running late again", "dylan marsh-hunt"),  # a double-barrelled name of dictionary words
        ("honestly akwasi omani is the best manager we had", "akwasi omani"),  # 'omani': an adjective too
    ],
)
def test_a_family_name_the_surname_reader_leaves_before_the_subjects_verb(text: str, name: str) -> None:
    assert addressed(text) == [name]


@pytest.mark.parametrize(
    "text",
    [
        "ok maria check-in is at 3",  # a stop word's part: no family name
        "the dylan cross-check is done",  # a thing's
        "ruby rails is slow",  # a dictionary word, no family name
    ],
)
def test_no_family_name_before_a_verb_where_chat_says_a_thing(text: str) -> None:
    assert addressed(text) == []
