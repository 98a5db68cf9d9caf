"""Warden's PII analyzer: pattern detectors behind pre-filters, plus gated spaCy NER when a policy enables it."""

from __future__ import annotations

import dataclasses
import re
import threading
from collections.abc import Sequence

from gateway.guardrails import budget
from gateway.guardrails.columns import in_table_header
from gateway.guardrails.common_nouns import without_common_nouns
from gateway.guardrails.datelines import without_names_in_datelines
from gateway.guardrails.dicom_records import without_dicom_syntax
from gateway.guardrails.directory_records import without_directory_syntax
from gateway.guardrails.findings import Finding
from gateway.guardrails.gedcom import without_gedcom_syntax
from gateway.guardrails.lower_case_ner import lower_case_view
from gateway.guardrails.ner import NerModel
from gateway.guardrails.normalize import ReaderView, reader_view
from gateway.guardrails.not_names import without_non_names
from gateway.guardrails.opening_words import without_opening_words
from gateway.guardrails.ordinary_phrases import holds_unnamed_word, reads_as_words
from gateway.guardrails.people import confirmed, line_parts, more_people, place_confirmed
from gateway.guardrails.person_names import known_names
from gateway.guardrails.personal_ids import without_phones_in_labelled_ids
from gateway.guardrails.phones import judgements_shared
from gateway.guardrails.places import CUE_SCORE as PLACE_CUE_SCORE
from gateway.guardrails.places_in_people import reads_as_place
from gateway.guardrails.query_strings import decoded_view
from gateway.guardrails.recognizers import Detector, build_detectors, run_detector
from gateway.guardrails.recurring_names import with_recurring_names
from gateway.guardrails.unspaced_scripts import glued_findings

PATTERN_ENTITIES = frozenset(
    {"EMAIL_ADDRESS", "CREDIT_CARD", "IBAN_CODE", "US_SSN", "IP_ADDRESS", "PHONE_NUMBER", "STREET_ADDRESS",
     "DATE_OF_BIRTH", "NATIONAL_ID", "SECRET", "LOCATION"}
)  # fmt: skip
NER_ENTITIES = frozenset({"PERSON", "LOCATION"})
_WORD = re.compile(r"[^\W\d_]+")
SUPPORTED_ENTITIES = PATTERN_ENTITIES | NER_ENTITIES


class PiiAnalyzer:
    """Finds every supported entity with its raw score; policies apply thresholds and actions afterwards.

    Returning raw findings (not policy-filtered ones) is what lets the cache serve any policy version.
    The NER model loads lazily on first use so a deployment whose policies all disable NER never pays for it.
    """

    def __init__(self, detectors: list[Detector] | None = None, ner: NerModel | None = None) -> None:
        self._detectors = detectors if detectors is not None else build_detectors()
        self._ner = ner
        self._ner_lock = threading.Lock()

    @property
    def ner(self) -> NerModel:
        if self._ner is None:
            with self._ner_lock:
                if self._ner is None:
                    with budget.unmetered():
                        self._ner = NerModel()
        return self._ner

    def analyze(self, text: str, *, ner_enabled: bool = True) -> list[Finding]:
        return self.analyze_many([text], ner_enabled=ner_enabled)[0]

    def analyze_many(self, texts: Sequence[str], *, ner_enabled: bool = True) -> list[list[Finding]]:
        """Each text's findings, as `analyze` gives them; NER runs once over all texts' windows (one model call).
        Detectors read each text as a reader sees it (``normalize.reader_view``: invisible characters dropped,
        compatibility forms folded; query strings' values decoded: ``query_strings``); findings are reported at the raw
        spans they came from. Within a scan's CPU budget (``budget.scanning``), raises ``ScanBudgetExceeded`` between
        detectors once it is spent."""
        views = [decoded_view(reader_view(text)) for text in texts]
        with judgements_shared():  # the texts of one call are one request's: they hold the same phone numbers
            per_view = self._analyze_views([view.text for view in views], ner_enabled=ner_enabled)
        return [findings if view.origin is None else [_at_raw_span(f, view) for f in findings]
                for view, findings in zip(views, per_view, strict=True)]

    def _analyze_views(self, texts: Sequence[str], *, ner_enabled: bool) -> list[list[Finding]]:
        per_text: list[list[Finding]] = []
        scan_budget = budget.current()  # looked up once: about 200 checks a request
        for text in texts:
            findings: list[Finding] = []
            for detector in self._detectors:
                if scan_budget is not None:
                    scan_budget.check()
                # most pre-filters fail on most texts: asked here, without a call into the detector for nothing
                if detector.prefilter_is_anchors or detector.prefilter(text):
                    findings.extend(run_detector(detector, text, prefiltered=True))
            # values glued to Japanese, Chinese, Thai or Korean words (``unspaced_scripts``)
            findings.extend(glued_findings(text, findings, self._detectors))
            # a labelled identity number a scheme validates is no phone number as well (``personal_ids``)
            per_text.append(without_phones_in_labelled_ids(findings))
        if not ner_enabled or not texts:
            return [_without_non_values(text, findings) for text, findings in zip(texts, per_text, strict=True)]
        budget.check()
        # A name inside an e-mail address or a place inside a street address is already covered: NER reads
        # those spans masked, and a name it still reports across one's edge is dropped. Gazetteer places are not
        # masked: NER reads them in their sentence, and where it calls one a person ("Tsuen Wan"), the place wins
        # unless a cue makes it a person ("Dear Florence").
        pattern_spans = [[f for f in findings if f.score >= 0.5 and f.entity_type not in NER_ENTITIES]
                         for findings in per_text]
        # chat typed in lower case, and lines in capitals: NER reads them with their given names and places
        # capitalised, and only its people and places made of those names count there (``lower_case_ner``)
        masked = [[(p.start, p.end) for p in spans] for spans in pattern_spans]
        views = [lower_case_view(text, values) for text, values in zip(texts, masked, strict=True)]
        read = [text if view is None else view.text for text, view in zip(texts, views, strict=True)]
        recased = [() if view is None else view.recased() for view in views]
        found = self.ner.find_many(read, masked, recased)
        for text, findings, spans, names, view in zip(texts, per_text, pattern_spans, found, views, strict=True):
            read_names, names = view.split(names) if view is not None else ([], names)
            # NER's people are kept when written as names, outside the places found, and names-dataset knows one
            # of their words (``people.confirmed``); its places when written as place names
            # (``people.place_confirmed``); known name pairs and names a cue points at that nothing else found are
            # added (``people.more_people``).
            places = [f for f in findings if f.entity_type == "LOCATION" and f.score >= 0.5]
            people = [f for f in names if f.entity_type == "PERSON"]
            findings.extend(kept for f in names if not any(f.overlaps(p) for p in spans)
                            for kept in _kept(text, f, places, self.ner.common_words,
                                              _agreed(text, f, people, self.ner.common_words)))
            findings.extend(more_people(text, self.ner.common_words, [f for f in findings if f.score >= 0.5]))
            if view is not None:  # after the name rules, whose spans hold the family names NER does not know
                findings.extend(view.read(read_names, findings))
            # a found person's words where they recur alone, and names beside them (``recurring_names``)
            findings[:] = with_recurring_names(text, findings)
            findings[:] = _without_non_values(text, _without_places_inside(text, findings))
        return per_text


def _without_non_values(text: str, findings: list[Finding]) -> list[Finding]:
    """The findings less those that stand in a shape no value takes, whatever reported them: a business named after
    its street, a form's label, a weekday before its date, a company and a column name are no person nor place
    (``not_names``); a GEDCOM line's level, cross-reference and tag are no value of any type (``gedcom``); a DICOM
    dump's tags, VRs and keywords likewise, and a place inside a person's name (``dicom_records``); a syslog line's
    timestamp month and a slapd operation's name are no person nor place (``directory_records``); a name inside a
    news dateline's place is none (``datelines``), nor a German noun phrase's noun or a French noun after an elided
    article ("Sehr geehrte Damen", "In stiller Trauer", "l'âge": ``common_nouns``), nor a frequent word opening a
    line or sentence ("Vendo ...", "Hej, ...": ``opening_words``)."""
    findings = without_common_nouns(text, without_names_in_datelines(text, findings))
    findings = without_opening_words(text, findings)
    findings = without_gedcom_syntax(text, without_non_names(text, findings))
    return without_directory_syntax(text, without_dicom_syntax(text, findings))


def _holds_place_words(text: str, finding: Finding) -> bool:
    """A date of birth ("26 October 1973"), or a person whose first word is a known first name: a place name inside
    either is a word of it ("Georgia Bryant", "Sofía Orellana", "Kévim Machado"), not a place. A person NER reads
    into a place ("Flughafen Kokstad", "Gijang Cambodia") starts with no first name and keeps its place."""
    if finding.score < 0.5:
        return False
    if finding.entity_type == "DATE_OF_BIRTH":
        return True
    first = _WORD.match(text, finding.start)
    return finding.entity_type == "PERSON" and first is not None and known_names().is_first(first.group())


def _without_places_inside(text: str, findings: list[Finding]) -> list[Finding]:
    """The findings less the places that lie inside a longer person or date of birth (``_holds_place_words``),
    unless a location word stands before the place (the gazetteer's cued score: "in Quan Bon", which NER may still
    call a person)."""
    holders = [f for f in findings if f.entity_type in ("PERSON", "DATE_OF_BIRTH") and _holds_place_words(text, f)]
    if not holders:
        return findings
    return [f for f in findings if f.entity_type != "LOCATION" or f.score == PLACE_CUE_SCORE or not any(
        h.start <= f.start and f.end <= h.end and h.end - h.start > f.end - f.start for h in holders)]


def _agreed(text: str, finding: Finding, people: list[Finding], common_words: frozenset[str]) -> bool:
    """Whether the other NER model also calls this stretch of text a person, and no word of it is an English
    dictionary word ("Lake Shore" of a street address cut short in a stream is both models' person)."""
    return (finding.entity_type == "PERSON"
            and any(other.source != finding.source and other.overlaps(finding) for other in people)
            and not any(word.casefold() in common_words for word in _WORD.findall(text[finding.start : finding.end]))
            and not holds_unnamed_word(text[finding.start : finding.end]))


def _kept(text: str, finding: Finding, places: list[Finding], common_words: frozenset[str] = frozenset(),
          agreed: bool = False) -> list[Finding]:  # fmt: skip
    """What of a NER finding is kept: a place when written as one, a person's parts on each line when confirmed
    (the same rules for both models: on the dev split they kept more of the continental model's names than cutting
    its spans to runs of capitalised words did), unless its words are ordinary words (``ordinary_phrases``) or a place
    and words no name list knows (``places_in_people``)."""
    if "|" in text and in_table_header(text, finding.start):
        return []  # a Markdown table's column names ("Customer Name", "Contact")
    if finding.entity_type != "PERSON":
        return [finding] if place_confirmed(text, finding, common_words) else []
    return [part for part in line_parts(finding, text) if confirmed(text, part, places, agreed)
            and not reads_as_words(text[part.start : part.end], common_words)
            and not reads_as_place(text, part, places)]


def _at_raw_span(finding: Finding, view: ReaderView) -> Finding:
    start, end = view.raw_span(finding.start, finding.end)
    return dataclasses.replace(finding, start=start, end=end)
